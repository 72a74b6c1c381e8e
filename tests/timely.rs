//! TIMELY across crates: the conformance suite every block passes,
//! instantiated by one line, plus its own check: bugs of the three loops,
//! their tables' forwarding, the reciprocals and the decrease's lag, written
//! by hand into the Verilog, which random stimulus must catch.

#[macro_use]
mod common;

use ccrtl_golden::timely::{TimelyConfig, TimelyIn, TimelyParams, TimelyShape};
use ccrtl_sim::timely::TimelyBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(TimelyBlock);

fn shape(flow_bits: u32, reset: TimelyParams) -> TimelyConfig {
    TimelyConfig {
        shape: TimelyShape { flow_bits },
        reset,
    }
}

/// A small RTT scale and a fast EWMA: every branch and clamp within a few
/// hundred cycles; reset values other than the defaults, so that a reset
/// that restores another value shows.
fn small() -> TimelyParams {
    TimelyParams {
        min_rtt: 1000,
        t_low: 1500,
        t_high: 8000,
        ai: 40,
        beta: 52_429,
        ewma_shift: 2,
        hai_thresh: 2,
        hai_n: 5,
        min_rate: 100,
        max_rate: 6000,
        init_rate: 3000,
    }
}

impl BlockTests for TimelyBlock {
    /// Reset, then 40 to 300 cycles (the clearing of 16 flows takes the
    /// first 16): an event in seven cycles in eight, of four flows most
    /// often; RTTs around the thresholds (below `t_low`, between, above
    /// `t_high`, 0), timestamps 0 to 3,000 apart; a register write one cycle
    /// in 24; a reset one cycle in 300.
    fn traces(config: &TimelyConfig) -> BoxedStrategy<Vec<TimelyIn>> {
        let mask = config.shape.flows() - 1;
        let flow = prop_oneof![4 => 0u32..4, 1 => 0..=mask];
        let rtt = prop_oneof![
            1 => Just(0u32),
            2 => 0u32..1500,
            4 => 1500u32..8001,
            2 => 8000u32..40_000,
            1 => Just(0xff_ffff),
        ];
        let cycle = (
            (0u16..300, 0u8..8, flow, rtt, 0u32..3000),
            (0u8..24, 0u32..16, prop_oneof![0u32..16, 0u32..20_000, Just(0xff_ffff)]),
        );
        prop::collection::vec(cycle, 40..300)
            .prop_map(move |cycles| {
                let mut trace = vec![TimelyIn {
                    rst: true,
                    ..TimelyIn::default()
                }];
                let mut now = u32::MAX - 100_000;
                for ((r, valid, f, rtt, step), (w, addr, data)) in cycles {
                    now = now.wrapping_add(step);
                    trace.push(TimelyIn {
                        rst: r == 0,
                        ev_valid: valid != 0,
                        ev_flow: f,
                        ev_rtt: rtt,
                        ev_time: now,
                        cfg_valid: w == 0,
                        cfg_addr: addr,
                        cfg_data: data,
                    });
                }
                trace
            })
            .boxed()
    }

    /// 16 flows, the small scale.
    fn proptest_config() -> TimelyConfig {
        shape(4, small())
    }

    /// The two reciprocal ROMs (`rr`, `rm`): word `i` is `T[i]` (18 bits)
    /// with the slope `T[i] - T[i + 1]` above it (docs/timely.md), `T` the
    /// golden model's table.
    fn static_check(verilog: &str) -> Result<(), String> {
        common::conformance::check_case_rom(verilog, "9'd", "data <= 27'h", 16, &timely_rom(), 2)
    }
    /// 256 flows, the small scale.
    fn mutation_config() -> TimelyConfig {
        shape(8, small())
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_TIMELY;
    const UNEXAMINED: &'static [Equivalent] = UNEXAMINED_TIMELY;

    /// The width-truncated mutants of the registers' pipeline copies: the
    /// class's full run (2026-12-02) predates the stimulus and RTL changes
    /// since, and samples of 2026-12-03 drew four such copies that
    /// survived 5e5 cycles (`ptime`, `pmr`, `pmax`'s bit 31 / 23 / 18,
    /// seeds 29938830-29938836). Drawn again once that class is rerun.
    const SAMPLE_SKIPS: &'static [Equivalent] = &[
        common::conformance::eq_in("", "width-truncated ccrtl_timely.p*$* [*", "", "awaiting the width class's full rerun"),
        common::conformance::eq_in("", "width-truncated ccrtl_timely__p*__*.* [*", "", "awaiting the width class's full rerun"),
    ];

    /// The half clamp takes `floor(old / 2)`.
    fn planted_bug(verilog: &str) -> String {
        let v = verilog.replace(
            "half = (((old) & 32'hffffffff) + 32'h1) >> 32'h1;",
            "half = ((old) & 32'hffffffff) >> 32'h1;",
        );
        assert_ne!(v, verilog, "planted bug not applied");
        v
    }

    /// Reset, the 16 cycles of the clearing, an event, a decrease that
    /// meets the half clamp, 23 cycles to the result.
    const SHRUNK_MAX: usize = 70;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[timely]\nflow_bits = 9\n", "`flow_bits`"),
            ("[timely]\nflow_bits = 20\n", "`flow_bits`"),
            ("[timely.reset]\nmin_rtt = 0\n", "`min_rtt`"),
            ("[timely.reset]\nmin_rtt = 16777216\n", "`min_rtt`"),
            ("[timely.reset]\nt_low = 2000000\n", "`t_low`"),
            ("[timely.reset]\nai = 0\n", "`ai`"),
            ("[timely.reset]\nbeta = 0\n", "`beta`"),
            ("[timely.reset]\nbeta = 65537\n", "`beta`"),
            ("[timely.reset]\newma_shift = 13\n", "`ewma_shift`"),
            ("[timely.reset]\nhai_thresh = 16\n", "`hai_thresh`"),
            ("[timely.reset]\nhai_n = 0\n", "`hai_n`"),
            ("[timely.reset]\nmax_rate = 0\n", "`max_rate`"),
            (
                "[timely.reset]\nmin_rate = 5000\nmax_rate = 4000\ninit_rate = 4500\n",
                "`min_rate`",
            ),
            ("[timely.reset]\ninit_rate = 5\n", "`init_rate`"),
            ("[timely]\nflows = 16\n", "unknown field `flows`"),
            ("[timely.reset]\nalpha = 1\n", "unknown field `alpha`"),
            ("[timely]\nflow_bits = -3\n", "line 2"),
        ]
    }
}

/// Bugs of the three loops, their forwarding, the reciprocals and the
/// decrease's lag, written by hand into the emitted Verilog (each a
/// plausible slip), must each be caught by the random stimulus within 1e6
/// cycles.
#[test]
fn hand_written_loop_bugs_are_caught() {
    let c = shape(8, small());
    let bugs: &[(&str, &str, &str)] = &[
        (
            "the decrease's operand is the table's rate even for a flow first seen 1 to 3 cycles before",
            "        if (plag$10$q) begin\n            op20$d",
            "        if (1'b0) begin\n            op20$d",
        ),
        (
            "the lag's first-event test forgets the event three before",
            " | (pv$10$q & (pf$10$q == pf$7$q) & pfirst$3$q);",
            ";",
        ),
        (
            "the decrease's operand lags one cycle too few (ra read at stage 13)",
            "ra$rd_flow = pf$11$q;",
            "ra$rd_flow = pf$12$q;",
        ),
        (
            "the avg loop reads the table's stale word at a flow's first event",
            "        if (pfirst$1$q) begin\n            anew = c9$q;",
            "        if (1'b0) begin\n            anew = c9$q;",
        ),
        (
            "the EWMA's shift of a negative avg is logical",
            "avx = ~((nav) & 74'h3ffffffffffffffffff);",
            "avx = ((av) & 74'h3ffffffffffffffffff);",
        ),
        (
            "neg wraps at 15 instead of saturating",
            "nnew = 32'hf;",
            "nnew = 32'h0;",
        ),
        (
            "HAI from neg > hai_thresh",
            "hai10 = (br == 32'h2) & (n10$q >= pht$9$q);",
            "hai10 = (br == 32'h2) & (n10$q > pht$9$q);",
        ),
        (
            "delta is not 1 when dt >= min_rtt",
            "| pfirst$4$q | pge$4$q) begin",
            "| pfirst$4$q) begin",
        ),
        (
            "u's shift takes min_rtt's exponent",
            "ushw = mu$p >> per$2$q;",
            "ushw = mu$p >> pem$2$q;",
        ),
        (
            "the decrease's product is not rounded",
            "dq$d = dqm + 32'h2;",
            "dq$d = dqm;",
        ),
        (
            "the rate loop's first event starts from the table's word",
            "        if (pfirst$13$q) begin\n            q_old =",
            "        if (1'b0) begin\n            q_old =",
        ),
        (
            "the loop's start value misses the write issued in its own cycle (the event two ahead)",
            "        if (e2$q) begin\n            q_old = w_r$q;",
            "        if (1'b0) begin\n            q_old = w_r$q;",
        ),
        (
            "the decrease's operand misses the write of the event four ahead",
            "        if (e4$q) begin\n            op20$d = w_r$q;",
            "        if (1'b0) begin\n            op20$d = w_r$q;",
        ),
        (
            "max_rate wins over min_rate when min_rate > max_rate",
            "        if (pmax$20$q < pmin$20$q) begin\n            mq22$d =",
            "        if (1'b0) begin\n            mq22$d =",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<TimelyBlock>(&c, bugs, 1_000_000);
}

/// Survivors of the full width-truncated run of 2026-12-02
/// (`CCRTL_MUTANT_CLASS=width-truncated`, 1,565 mutants, 1e6 cycles) not
/// yet caught nor shown equivalent: top bits of intermediate values whose
/// bounds are to be shown (most are sums and shifts of bounded operands)
/// or stimulus to be aimed (phai, pmai, pinc: an HAI increase of
/// hai_n * ai just above 2^22, aimed since: phai$0$d, phai$7$q, pmai$0$d
/// and pinc$0$d were then seen caught within 1e6 cycles and are not
/// listed, the rest not run again). docs/timely.md lists them as open.
const UNEXAMINED_TIMELY: &[Equivalent] = &[
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_timely__rm__m2.q [23:0] -> [22:0]",
        "",
        "survived the sample of CCRTL_TEST_SEED=29938835 (5e5 cycles); not examined yet",
    ),
    // Drawn by the fast tier's samples of CCRTL_TEST_SEED=29938830 and
    // 29938836 and not caught in their 5e5 cycles (2026-12-03): the event's
    // time in a pipeline copy without bit 31, which may show only where a
    // flow's dt is at or past 2^31.
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_timely.ptime$* [31:0] -> [30:0]",
        "",
        "survived the sample of CCRTL_TEST_SEED=29938830 (5e5 cycles); not examined yet",
    ),
    eq_in("", "width-truncated ccrtl_timely.phai$0$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$1$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$1$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$2$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$2$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$3$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$3$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$4$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$4$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$5$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$5$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$6$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$6$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.phai$7$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dt8$d [31:0] -> [30:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dt8$q [31:0] -> [30:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pmai$0$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pmai$1$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pmai$1$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pmai$2$d [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pmai$2$q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dsh12$d [19:0] -> [18:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dsh12$q [19:0] -> [18:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.ush12$d [19:0] -> [18:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.ush12$q [19:0] -> [18:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.gsh15$d [47:0] -> [46:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.gsh15$q [47:0] -> [46:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$0$q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$1$d [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$1$q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$2$d [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$2$q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$3$d [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$3$q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$4$d [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.pinc$4$q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dp1$d [31:0] -> [30:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dp1$q [31:0] -> [30:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dq$d [32:0] -> [31:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dq$q [32:0] -> [31:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.xhw [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.xgw [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dsum [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dqm [32:0] -> [31:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dxs [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dxc [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dmx [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.dmn [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.hxs [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.hxc [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.lxs [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely.lxc [63:0] -> [62:0]", "", UNEXAMINED_2026_12_02),
    // The rate loop as rebuilt on 2026-12-03 (its lines rerun, every
    // class: 230 planted): the half clamp's tests at their edges, which
    // the stimulus does not aim at yet. `old = 2 min_rate 2^12 - 2` with a
    // decrease of at least half (thl22 one lower); a write of max_rate or
    // min_rate between two events of a flow at those edges (the loads one
    // cycle late); and, with the half taken, `old - dec <= max_rate <
    // ceil(old / 2)` (the half's upper test replaced by the value's), which
    // needs `old = 2 max_rate + 1` or a lagged decrease above `old / 2`.
    eq_in("", "32'h1 -> 32'h2", "thl22$d = (((pmin$20$q) & 39'h7fffffffff) << 32'hd) - ((32'h1) & 39'h7fffffffff);", HALF_EDGES),
    eq_in("", "load-late th22$q -> th22__late", "g_h = th22$q - o39;", HALF_EDGES),
    eq_in("", "load-late thl22$q -> thl22__late", "l_h = o39 - thl22$q;", HALF_EDGES),
    eq_in("", "delete statement", "gt = g_h[32'h26];", HALF_EDGES),
    eq_in("", "width-truncated ccrtl_timely__dp1.q [31:0] -> [30:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__dq.q [32:0] -> [31:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__dsh12.q [19:0] -> [18:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__dt8.q [31:0] -> [30:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__gsh15.q [47:0] -> [46:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__0.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__1.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__2.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__3.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__4.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__5.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__6.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__phai__7.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pinc__0.q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pinc__1.q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pinc__2.q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pinc__3.q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pinc__4.q [34:0] -> [33:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pmai__0.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pmai__1.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__pmai__2.q [22:0] -> [21:0]", "", UNEXAMINED_2026_12_02),
    eq_in("", "width-truncated ccrtl_timely__ush12.q [19:0] -> [18:0]", "", UNEXAMINED_2026_12_02),
];

const UNEXAMINED_2026_12_02: &str = "survived the full width-truncated run of 2026-12-02; not examined yet";
const HALF_EDGES: &str = "the half clamp's tests at their edges: stimulus not aimed yet";
const HALF_LOW: &str = "thl = 2 min_rate 2^12 - 1 made 2 min_rate 2^12 or + 1: the test differs only for \
                        old in [2 min 2^12 - 1, 2 min 2^12], whose half is min_rate 2^12: the clamp's value";

/// A saturation `x = min(w, 2^17)` written `if (w > 2^17) x = 2^17`: at
/// `w = 2^17` both branches give 2^17 (the CI sample of 8e2cf43,
/// `CCRTL_TEST_SEED=29938398`, drew the `>=` of `xhw`).
const SAT_EDGE: &str = "at w = 2^17 the saturated value and w[17:0] are both 2^17";

/// Mutants of TIMELY that no stimulus can tell apart from the original,
/// each with its reason.
const EQUIVALENT_TIMELY: &[Equivalent] = &[
    common::conformance::eq_in(
        "",
        "32'h1c -> 32'h1d",
        "gmag16$d = (((32'h1 << 32'h1c) - 32'h1) & 28'hfffffff);",
        "2^29 - 1 masked to 28 bits is 2^28 - 1, the original's value",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_timely.pmax$21$* [18:0] -> [17:0]",
        "",
        "pmax$21 is read by the formal wrapper only: no output depends on it",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_timely__pmax__21.* [18:0] -> [17:0]",
        "",
        "pmax$21 is read by the formal wrapper only: no output depends on it",
    ),
    // pmax$21 is read by the formal wrapper only (formal/timely): no output
    // of the block depends on it (a survivor of CI seed 29938825's sample).
    common::conformance::eq_in(
        "",
        "load-late pmax$20$q -> pmax$20__late",
        "pmax$21$d = pmax$20$q;",
        "pmax$21 is read by the formal wrapper only: no output depends on it",
    ),
    // The rate loop (2026-12-03).
    // The register's d and q, and its module's q.
    eq_in("", "width-truncated ccrtl_timely*dc22* [30:0] -> [29:0]", "", "dec <= rate_lag / 2 < 2^30 (decw's waiver): bit 30 is 0"),
    eq_in("", "width-truncated ccrtl_timely*th22* [38:0] -> [37:0]", "", "2 max_rate 2^12 < 2^32, never negative: bit 38 is 0"),
    eq_in("", "width-truncated ccrtl_timely.half [31:0] -> [30:0]", "", "ceil(old / 2) < 2^30: bit 31 is 0"),
    eq_in("", "width-truncated ccrtl_timely.v_half [30:0] -> [29:0]", "", "ceil(old / 2) <= 2^30 - 2^11 (old <= (2^19 - 1) 2^12): bit 30 is 0"),
    eq_in("", "width-truncated ccrtl_timely.o39 [38:0] -> [37:0]", "", "old zero-extended from 31 bits: bit 38 is 0"),
    eq_in("", "width-truncated ccrtl_timely.nav [36:0] -> [35:0]", "", "~avg is read only when avg < 0: its bit 36 is then 0"),
    eq_in("", "width-truncated ccrtl_timely.avx [73:0] -> [72:0]", "", "the shift is at most 15: bits above 36 + 15 never reach ash"),
    eq_in("", "width-truncated ccrtl_timely.avs [73:0] -> [72:0]", "", "only the shifted word's low 37 bits are read (ash)"),
    eq_in("", "31'h7fffffff -> 31'h0", "sub22$d = ((32'h0) & 31'h7fffffff) - pinc$4$q[(32'h0)+:(31)];", "the mask of the constant 0"),
    eq_in("", "31'h7fffffff -> 31'h0", "dc22$d = ((32'h0) & 31'h7fffffff);", "the mask of the constant 0"),
    eq_in("", "- -> +", "thl22$d = (((pmin$20$q) & 39'h7fffffffff) << 32'hd) - ((32'h1) & 39'h7fffffffff);", HALF_LOW),
    eq_in("", "& -> | #2", "thl22$d = (((pmin$20$q) & 39'h7fffffffff) << 32'hd) - ((32'h1) & 39'h7fffffffff);", HALF_LOW),
    eq_in("", "39'h7fffffffff -> 39'h0 #2", "thl22$d = (((pmin$20$q) & 39'h7fffffffff) << 32'hd) - ((32'h1) & 39'h7fffffffff);", HALF_LOW),
    eq_in("", "> -> >=", "if (xhw > ((32'h1 << 32'h11) & 64'hffffffffffffffff)) begin", SAT_EDGE),
    eq_in("", "> -> >=", "if (xgw > ((32'h1 << 32'h11) & 64'hffffffffffffffff)) begin", SAT_EDGE),
    eq_in("ccrtl_timely__m*", "width-truncated * [63:0] -> [62:0]", "", MUL_64),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.m* [63:0] -> [62:0]", "", MUL_64),
    eq_in("ccrtl_timely__m*", "width-truncated * [47:0] -> [46:0]", "", MUL_48),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.m* [47:0] -> [46:0]", "", MUL_48),
    eq_in("ccrtl_timely__m*", "width-truncated *p2* [31:0] -> [30:0]", "", MUL_P2),
    eq_in("ccrtl_timely__mdel*", "width-truncated *p1* [31:0] -> [30:0]", "", MUL_P1),
    eq_in("ccrtl_timely__mu*", "width-truncated *p1* [31:0] -> [30:0]", "", MUL_P1),
    eq_in("ccrtl_timely__mv*", "width-truncated *p1* [31:0] -> [30:0]", "", MUL_P1),
    eq_in("ccrtl_timely__minc*", "width-truncated *p1* [31:0] -> [30:0]", "", MUL_P1),
    eq_in("ccrtl_timely__mxh*", "width-truncated *p1* [31:0] -> [30:0]", "", MUL_P1),
    eq_in("ccrtl_timely__mxg*", "width-truncated *p1* [31:0] -> [30:0]", "", MUL_P1),
    eq_in("ccrtl_timely__r*", "width-truncated *p6* [31:0] -> [30:0]", "", RECIP_P6),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.incw [63:0] -> [62:0]", "", MUL_64),
    eq_in("ccrtl_timely__r*", "width-truncated *m3* [23:0] -> [22:0]", "", MANTISSA_TOP),
    eq_in("ccrtl_timely__r*", "width-truncated *.n1 [23:0] -> [22:0]", "", MANTISSA_TOP),
    eq_in("ccrtl_timely__r*", "width-truncated *.rnd [31:0] -> [30:0]", "", RECIP_RND),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.*$pre [*", "", PRE_UNREAD),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.mv$b [17:0] -> [16:0]", "", BETA_17),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.mxg$b [17:0] -> [16:0]", "", BETA_17),
    eq_in("", "width-truncated *hlo2* [31:0] -> [30:0]", "", HAI_HALVES),
    eq_in("", "width-truncated *hhi2* [31:0] -> [30:0]", "", HAI_HALVES),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.hsum [31:0] -> [30:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.aneg [36:0] -> [35:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.dshw [63:0] -> [62:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.ushw [63:0] -> [62:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.gshw [63:0] -> [62:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.vw [63:0] -> [62:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.decw [63:0] -> [62:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.hsm [63:0] -> [62:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely", "width-truncated ccrtl_timely.lsm [63:0] -> [62:0]", "", WAIVED_TOP),
    eq_in("ccrtl_timely__*", "width-truncated ccrtl_timely__*.pre [*", "", PRE_UNREAD),
    eq_in(
        "",
        "< -> <=",
        "if (pmax$20$q < pmin$20$q) begin",
        "with max_rate = min_rate the clamp takes min_rate instead of max_rate: the same value",
    ),
];

// The seven `a * b + c` multipliers (`Mul48x18`, modules `ccrtl_timely__m*`)
// take `a` of 24 (mdel, mu), 36 (mg), 18 (mv, mxh), 23 (minc) and 28 (mxg)
// bits, `b` of 18 and a rounding constant `c` of at most 2^31 (mg's).
const MUL_64: &str = "every 64-bit word of a multiplier (sums, carry-save terms, c, p) is \
                      below 2^55: a < 2^36, b < 2^18, c <= 2^31; bit 63 is never set";
const MUL_48: &str = "a (and the rows h0, h1 of b[16], b[17]) is below 2^36: bit 47 is never set";
const MUL_P2: &str = "p2 = a[47:32] * b[15:0] with a < 2^36: below 2^20, bit 31 never set";
const MUL_P1: &str = "p1 = a[31:16] * b[15:0] with a < 2^28 (every multiplier but mg): \
                      below 2^28, bit 31 never set";
const BETA_17: &str = "b = beta's 17 bits zero-extended to 18: bit 17 is 0";
const HAI_HALVES: &str = "hlo2 = ai[15:0] * hai_n < 2^20, hhi2 = ai[18:16] * hai_n < 2^7: bit 31 never set";
const WAIVED_TOP: &str = "the top bit is among the bits the design never reads (LINT_WAIVERS in \
                          hdl/src/timely.rs, each with its bound)";
const MANTISSA_TOP: &str = "the reciprocals' normalised mantissa (n1, m3) has bit 23 set and \
                            never read: the ROM address is bits 22:14, t bits 13:0";
const RECIP_RND: &str = "rnd = (p6 + 2^13) >> 14 with p6 < 2^23: below 2^10, bit 31 never set";
const PRE_UNREAD: &str = "TIMELY reads no table's stage-6 word (`pre`, waived UNUSED in the \
                          lint): the output and the wire it drives are never read";
const RECIP_P6: &str = "p6 = slope * t, a 9-bit slope and a 14-bit t: below 2^23, bit 31 never set";


/// The ROM words the emitted file must hold, from the golden table.
fn timely_rom() -> Vec<u64> {
    let t = &ccrtl_golden::timely::RECIP_TABLE;
    (0..512)
        .map(|i| u64::from(t[i]) | (u64::from(t[i] - t[i + 1]) << 18))
        .collect()
}

/// The static check passes the emitted ROMs and fails each kind of
/// change the mutants make: a word plus one, a word deleted (in either
/// ROM).
#[test]
fn rom_words_are_the_golden_table_and_a_changed_word_is_seen() {
    let v = <TimelyBlock as ccrtl_sim::block::Block>::verilog(&<TimelyBlock as BlockTests>::mutation_config());
    <TimelyBlock as BlockTests>::static_check(&v).unwrap();
    let w = timely_rom();
    for (k, copy) in [(213usize, 1usize), (0, 2), (511, 1)] {
        let line = format!("          9'd{k}: data <= 27'h{:x};", w[k]);
        assert_eq!(v.matches(&line).count(), 2, "{line}");
        let nth = |text: &str, by: &str| {
            let at = text.match_indices(&line).nth(copy - 1).unwrap().0;
            format!("{}{by}{}", &text[..at], &text[at + line.len()..])
        };
        let plus = nth(&v, &format!("          9'd{k}: data <= 27'h{:x};", w[k] + 1));
        assert!(<TimelyBlock as BlockTests>::static_check(&plus).is_err(), "word {k} + 1");
        let gone = nth(&v, "");
        assert!(<TimelyBlock as BlockTests>::static_check(&gone).is_err(), "word {k} deleted");
    }
}
