//! NP across crates: the conformance suite every block passes (emission on
//! every shape, three-way lockstep, proptest with shrinking, planted
//! mutants, the command line), instantiated by one line, plus NP's own
//! checks: hand-written bugs of the flow table's forwarding and scrubbing,
//! which random stimulus must catch.

#[macro_use]
mod common;

use ccrtl_golden::np::{ecn, NpConfig, NpIn, NpParams, NpShape};
use ccrtl_sim::np::NpBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(NpBlock);

/// 256 flows, a 12-bit interval: the clearing takes 256 cycles and the
/// timestamps wrap every 2^14 cycles, so short traces reach both.
fn small(interval: u32) -> NpConfig {
    NpConfig {
        shape: NpShape {
            flow_bits: 8,
            interval_bits: 12,
        },
        reset: NpParams { interval },
    }
}

impl BlockTests for NpBlock {
    /// Reset, then 270 to 600 cycles (the clearing takes the first 256):
    /// packets in most cycles, of four flows most often (so back-to-back
    /// packets of one flow are common), CE most often; an interval load
    /// one cycle in 24 (0 to 10 most often, so packets land on the
    /// interval's edge and on every forwarding distance); a reset one cycle in 400.
    fn traces(config: &NpConfig) -> BoxedStrategy<Vec<NpIn>> {
        let mask = config.shape.flows() - 1;
        let nmax = config.shape.interval_max();
        let flow = prop_oneof![4 => 0u32..4, 1 => 0..=mask];
        let interval = prop_oneof![4 => 0u32..11, 1 => 0..=nmax];
        let ecn = prop_oneof![3 => Just(ecn::CE), 1 => 0u8..4];
        let cycle = (0u16..400, any::<bool>(), flow, ecn, 0u8..24, interval);
        prop::collection::vec(cycle, 270..600)
            .prop_map(|cycles| {
                let mut trace = vec![NpIn {
                    rst: true,
                    ..NpIn::default()
                }];
                for (r, valid, flow, ecn, load, interval) in cycles {
                    trace.push(NpIn {
                        rst: r == 0,
                        pkt_valid: valid || r % 4 != 1,
                        pkt_flow: flow,
                        pkt_ecn: ecn,
                        cfg_valid: load == 0,
                        cfg_interval: interval,
                    });
                }
                trace
            })
            .boxed()
    }

    /// Interval 2 after reset: a second CE packet of one flow one cycle
    /// after the first is refused a CNP, two cycles after it gets one.
    fn proptest_config() -> NpConfig {
        small(2)
    }

    /// Reset interval 37: a reset that restores another value shows on the
    /// first packets after the clearing.
    fn mutation_config() -> NpConfig {
        small(37)
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_NP;

    /// The packet one ahead's CNP is taken as two cycles old (its interval
    /// compare is `N > 2`, not `N > 1`): with N = 2, back-to-back CE packets
    /// of one flow both get a CNP.
    fn planted_bug(verilog: &str) -> String {
        verilog.replace(
            "        p7_gt1$d = p6_ns$q > 32'h1;",
            "        p7_gt1$d = p6_ns$q > 32'h2;",
        )
    }

    /// Reset, the 256 cycles of the clearing, two CE packets, eight cycles
    /// to their decisions: 267 cycles at the least; shrinking ends near it.
    const SHRUNK_MAX: usize = 280;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[np]\nflow_bits = 9\n", "`flow_bits`"),
            ("[np]\nflow_bits = 24\n", "`flow_bits`"),
            ("[np]\ninterval_bits = 13\n", "`interval_bits`"),
            (
                "[np]\ninterval_bits = 12\n[np.reset]\ninterval = 5000\n",
                "`interval`",
            ),
            ("[np]\nflows = 16\n", "unknown field `flows`"),
            ("[np]\nflow_bits = -3\n", "line 2"),
        ]
    }
}

/// Mutants of NP that no stimulus can tell apart from the original (found
/// by `every_planted_mutant_is_caught_or_shown_equivalent`; each one's reason).
const EQUIVALENT_NP: &[Equivalent] = &[
    eq("reset-not-cleared now$d", "now$d = 32'h0;", TIME_RELATIVE),
    eq("32'h0 -> 32'h1", "now$d = 32'h0;", TIME_RELATIVE),
    eq(
        ">= -> >",
        "c7_stale$d = c6_v$q & (c6_age$q >= stale_age);",
        STALE_THRESHOLD,
    ),
    eq(
        "^ -> |",
        "c6_v$d = |a$read_data_b ^ |b$read_data_b;",
        CLEAR_OF_INVALID,
    ),
    eq(
        "width-truncated ccrtl_np.p6_age$d [13:0] -> [12:0]",
        "reg  [13:0] p6_age$d;",
        AGE_BOUND,
    ),
    eq(
        "width-truncated ccrtl_np.p6_age$q [13:0] -> [12:0]",
        "wire  [13:0] p6_age$q;",
        AGE_BOUND,
    ),
    eq(
        "width-truncated ccrtl_np.c6_age$d [13:0] -> [12:0]",
        "reg  [13:0] c6_age$d;",
        AGE_BOUND,
    ),
    eq(
        "width-truncated ccrtl_np.c6_age$q [13:0] -> [12:0]",
        "wire  [13:0] c6_age$q;",
        AGE_BOUND,
    ),
    eq_in(
        "ccrtl_np__p6_age",
        "width-truncated ccrtl_np__p6_age.q [13:0] -> [12:0]",
        "output reg  [13:0] q;",
        AGE_BOUND,
    ),
    eq_in(
        "ccrtl_np__c6_age",
        "width-truncated ccrtl_np__c6_age.q [13:0] -> [12:0]",
        "output reg  [13:0] q;",
        AGE_BOUND,
    ),
    eq("> -> >=", "if (p1_n$q > nine) begin", NS_SATURATION),
    eq("32'h9 -> 32'ha", "p2_ns$d = 32'h9;", NS_SATURATION),
    eq(
        "reset-not-cleared p1_valid$d",
        "p1_valid$d = 1'b0;",
        ACCEPT_GATED,
    ),
    eq("reset-not-cleared w1_we$d", "w1_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared w2_we$d", "w2_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared w3_we$d", "w3_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared w4_we$d", "w4_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared w5_we$d", "w5_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared w6_we$d", "w6_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared sw1_we$d", "sw1_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared sw2_we$d", "sw2_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared sw3_we$d", "sw3_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared sw4_we$d", "sw4_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared sw5_we$d", "sw5_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared sw6_we$d", "sw6_we$d = 1'b0;", FLUSHED_IN_CLEARING),
    eq("reset-not-cleared c1_valid$d", "c1_valid$d = 1'b0;", SWEEP_OWNS_B),
    eq("reset-not-cleared c2_valid$d", "c2_valid$d = 1'b0;", SWEEP_OWNS_B),
    eq("reset-not-cleared c3_valid$d", "c3_valid$d = 1'b0;", SWEEP_OWNS_B),
    eq("reset-not-cleared c4_valid$d", "c4_valid$d = 1'b0;", SWEEP_OWNS_B),
    eq("reset-not-cleared c5_valid$d", "c5_valid$d = 1'b0;", SWEEP_OWNS_B),
    eq("reset-not-cleared c6_valid$d", "c6_valid$d = 1'b0;", SWEEP_OWNS_B),
    eq("reset-not-cleared c7_valid$d", "c7_valid$d = 1'b0;", SWEEP_OWNS_B),
    eq(
        "load-late c1_valid$q -> c1_valid__late",
        "c2_valid$d = c1_valid$q;",
        SCRUB_START,
    ),
    eq(
        "load-late c2_valid$q -> c2_valid__late",
        "c3_valid$d = c2_valid$q;",
        SCRUB_START,
    ),
    eq(
        "load-late c3_valid$q -> c3_valid__late",
        "c4_valid$d = c3_valid$q;",
        SCRUB_START,
    ),
    eq(
        "load-late c4_valid$q -> c4_valid__late",
        "c5_valid$d = c4_valid$q;",
        SCRUB_START,
    ),
    eq(
        "load-late c5_valid$q -> c5_valid__late",
        "c6_valid$d = c5_valid$q;",
        SCRUB_START,
    ),
    eq(
        "load-late c6_valid$q -> c6_valid__late",
        "c7_valid$d = c6_valid$q;",
        SCRUB_START,
    ),
    eq(
        "load-late c7_valid$q -> c7_valid__late",
        "clear = c7_valid$q & c7_stale$q & ~c7_dirty$q & ~(w1_we$q & c7_pw$q) & ~rst & ~(cnp & c7_pe$q);",
        SCRUB_START,
    ),
];

const fn eq(change: &'static str, original: &'static str, reason: &'static str) -> Equivalent {
    eq_in("ccrtl_np", change, original, reason)
}

/// Why the time counter's reset value does not matter.
const TIME_RELATIVE: &str = "timestamps are only compared as differences `now - s`, and after \
     a reset every flow is invalid (the clearing), so the counter's start value changes no \
     answer";
/// Why the scrubber may clear one cycle later.
const STALE_THRESHOLD: &str = "a flow may be cleared at any age above the largest interval \
     (2^interval_bits - 1): clearing at 2^interval_bits + 1 instead of 2^interval_bits changes \
     no answer, and a valid flow's age stays under 2^stamp_bits";
/// Why treating `a | b` as valid in the scrubber changes nothing.
const CLEAR_OF_INVALID: &str = "for an invalid flow a = b, and a clear writes b = a, which \
     changes nothing: `a | b` in place of `a ^ b` only adds clears of flows already invalid";
/// Why the top bit of an age is not needed in the mutation shape.
const AGE_BOUND: &str = "the scrubber keeps every valid flow less than 2^interval_bits + \
     2^flow_bits + 8 = 4,360 cycles old in the mutation shape (8 and 12 bits), under 2^13, so \
     bit 13 of a valid flow's age is always 0 (and a stale flow's age, 2^12 or more, keeps bit \
     12); stamp_bits = max(flow_bits, interval_bits) + 2 is needed where the two are equal";
/// Why the forwarding compares' saturation may be 10 instead of 9.
const NS_SATURATION: &str = "`min(N, 9)` only feeds the compares `N > d` for the forwarding \
     distances d = 1 to 8: any saturation value of 9 or more (and saturating N = 9 itself) \
     gives the same answers";
/// Why stage 1's valid needs no reset.
const ACCEPT_GATED: &str = "stage 1 loads `accept & CE`, and `accept` is low in a reset cycle: \
     the reset's assignment repeats what the stage loads anyway";
/// Why the forwarding records need no reset.
const FLUSHED_IN_CLEARING: &str = "the decision records (`w*`, `sw*`) are read only by packets in \
     stages 5 to 7 and by the scrubber's stages, and neither a packet nor the scrubber runs for \
     2^flow_bits >= 256 cycles after a reset, by which time the records hold the clearing's \
     zeros";
/// Why the scrubber's stage valids need no reset.
const SWEEP_OWNS_B: &str = "a scrubber stage left valid by a reset reaches its clear within seven \
     cycles, while the clearing owns the `b` write port (2^flow_bits >= 256 cycles) and the \
     clear is gated by `rst` in the reset cycle; its decision records are read by no packet in \
     that time";
/// Why a scrubber stage's valid may follow one cycle late.
const SCRUB_START: &str = "the scrubber's valids rise only when the clearing ends (the first \
     flows then hold no CNP: nothing was accepted) and fall at a reset (when the clearing owns \
     the `b` write port): a valid one cycle late changes no clear";

/// Bugs of the flow table's forwarding and scrubbing, written by hand into
/// the emitted Verilog (each a plausible slip), must each be caught by the
/// random stimulus within 1e6 cycles.
#[test]
fn hand_written_flow_table_bugs_are_caught() {
    let c = small(37);
    let bugs: &[(&str, &str, &str)] = &[
        (
            "the packet one ahead's CNP compared as two cycles old",
            "        p7_gt1$d = p6_ns$q > 32'h1;",
            "        p7_gt1$d = p6_ns$q > 32'h2;",
        ),
        (
            "the CNP eight ahead (its write collides with the read) not forwarded",
            "        p6_h8$d = w6_we$q & (p5_flow$q == w6_flow$q);",
            "        p6_h8$d = 1'b0;",
        ),
        (
            "the scrubber's clear of the last cycle not forwarded into `b`",
            "            b_eff = p7_bv1$q;",
            "            b_eff = p7_b$q;",
        ),
        (
            "the scrubber's clear eight cycles ahead (it collides) not forwarded into `b`",
            "        p6_bh8$d = sw6_we$q & (p5_flow$q == sw6_y$q);",
            "        p6_bh8$d = 1'b0;",
        ),
        (
            "the scrubber clears a flow given a CNP while it was in flight",
            " & ~c7_dirty$q &",
            " &",
        ),
        (
            "a CNP in the cycle before the scrubber's read (it collides) not seen",
            "        c1_dirty$d = w1_we$q & (w1_flow$q == ptr$q);",
            "        c1_dirty$d = 1'b0;",
        ),
        (
            "a CNP in the scrubber's read cycle not seen",
            "        c2_dirty$d = c1_dirty$q | (w1_we$q & (w1_flow$q == c1_y$q));",
            "        c2_dirty$d = c1_dirty$q;",
        ),
        (
            "a CNP in the cycle before the scrubber's clear not seen",
            " & ~(w1_we$q & c7_pw$q)",
            "",
        ),
        (
            "the scrubber clears a flow given a CNP in the same cycle",
            " & ~(cnp & c7_pe$q);",
            ";",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<NpBlock>(&c, bugs, 1_000_000);
}
