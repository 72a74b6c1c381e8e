//! CRD across crates: the conformance suite every block passes,
//! instantiated by one line, and the params file's checks.

#[macro_use]
mod common;

use ccrtl_golden::crd::{CrdConfig, CrdIn, CrdParams, CrdShape};
use ccrtl_sim::crd::CrdBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(CrdBlock);

fn config(queue_bits: u32, len_bits: u32, reset: CrdParams) -> CrdConfig {
    CrdConfig {
        shape: CrdShape {
            queue_bits,
            len_bits,
        },
        reset,
    }
}

impl BlockTests for CrdBlock {
    /// Reset, then 8 to 200 cycles: a report in half of them (0 to 3, `qeq`
    /// give or take 3, lengths near `254 << fb_shift`, the largest, any); a
    /// notification in one in four (`cn_fb` 0, 1, 255 or any) and a
    /// register write in one in eight, to any address (6 and 7 too), with
    /// data 0 to 3, 15 to 17 (around `PERIOD_MIN`), 255 to 257 (around a
    /// weight of 1), all 24 bits set or any; a reset one cycle in 150.
    fn traces(config: &CrdConfig) -> BoxedStrategy<Vec<CrdIn>> {
        let s = config.shape;
        let (nq, m) = (s.queues(), s.len_max());
        let r = config.reset;
        let qeq = r.qeq;
        let big = (254u32 << r.fb_shift.min(s.len_bits)).min(m);
        let len = prop_oneof![
            3 => 0u32..4,
            3 => qeq.saturating_sub(3)..=(qeq + 3).min(m),
            1 => big.saturating_sub(4)..=big,
            1 => Just(m),
            2 => 0u32..=m,
        ];
        let cycle = (
            (0u16..150, any::<bool>(), 0..nq),
            len,
            (
                0u8..4,
                0..nq,
                prop_oneof![2 => Just(0u32), 1 => Just(1), 1 => Just(255), 2 => 0u32..=255],
            ),
            (
                0u8..8,
                0u32..8,
                prop_oneof![
                    2 => 0u32..4,
                    1 => 15u32..18,
                    1 => 255u32..258,
                    1 => Just(0xFF_FFFF),
                    1 => 0u32..=0xFF_FFFF
                ],
            ),
        );
        prop::collection::vec(cycle, 8..200)
            .prop_map(|cycles| {
                let mut trace = vec![CrdIn {
                    rst: true,
                    ..CrdIn::default()
                }];
                for (
                    (r, lv, len_queue),
                    len_bytes,
                    (cv, cn_queue, cn_fb),
                    (wv, cfg_addr, cfg_data),
                ) in cycles
                {
                    trace.push(CrdIn {
                        rst: r == 0,
                        len_valid: lv,
                        len_queue,
                        len_bytes,
                        cn_valid: cv == 0,
                        cn_queue,
                        cn_fb,
                        cfg_valid: wv == 0,
                        cfg_addr,
                        cfg_data,
                    });
                }
                trace
            })
            .boxed()
    }

    /// Two queues of 16-bit lengths sampled every 16 cycles, `wq = 1.5`
    /// (products not whole: the floor matters), `qeq = 40`, `fb_shift =
    /// 2`, `w = 1/2`, `hold = 3`: both queues are sampled in the two cycles
    /// after a reset, and the local flag's boundary is a few bytes from
    /// `qeq`.
    fn proptest_config() -> CrdConfig {
        config(
            1,
            16,
            CrdParams {
                period: 16,
                qeq: 40,
                wq: 12,
                fb_shift: 2,
                w: 128,
                hold: 3,
            },
        )
    }

    /// Four queues of 16-bit lengths; every register resets to a value
    /// other than its default (`period = 23`, `qeq = 777`, `wq = 13`,
    /// `fb_shift = 3`, `w = 200`, `hold = 5`): a reset that restores
    /// another shows in the samples right after it, before the stimulus
    /// writes the registers.
    fn mutation_config() -> CrdConfig {
        config(
            2,
            16,
            CrdParams {
                period: 23,
                qeq: 777,
                wq: 13,
                fb_shift: 3,
                w: 200,
                hold: 5,
            },
        )
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_CRD;

    /// A valid notification with `Fbr = 0` sets the remote flag: it shows
    /// in the next sample of the notified queue.
    fn planted_bug(verilog: &str) -> String {
        let from = "        b_remote$d = a_rv$q & |a_rem$q;";
        assert!(verilog.contains(from), "the planted bug's line is gone");
        verilog.replace(from, "        b_remote$d = a_rv$q;")
    }

    /// The shrinker takes the queue numbers to 0: reset, a notification of
    /// 0 for queue 0 in the cycle after it (after queue 0's sample of that
    /// cycle), queue 0's next sample 16 cycles later and its result
    /// `LATENCY = 10` cycles after that: 29 cycles as measured.
    const SHRUNK_MAX: usize = 30;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[crd]\nqueue_bits = 5\n", "`queue_bits`"),
            ("[crd]\nqueue_bits = 0\n", "line 2"),
            ("[crd]\nlen_bits = 18\n", "`len_bits`"),
            ("[crd.reset]\nperiod = 15\n", "`period`"),
            ("[crd]\n[crd.reset]\n\nperiod = 15\n", "line 4"),
            ("[crd.reset]\nperiod = 65536\n", "`period`"),
            ("[crd]\nlen_bits = 16\n[crd.reset]\nqeq = 65536\n", "`qeq`"),
            ("[crd]\nlen_bits = 16\n[crd.reset]\nqeq = 65536\n", "line 4"),
            ("[crd.reset]\nwq = 32\n", "`wq`"),
            (
                "[crd]\nlen_bits = 16\n[crd.reset]\nfb_shift = 17\n",
                "`fb_shift`",
            ),
            ("[crd.reset]\nw = 257\n", "`w`"),
            ("[crd.reset]\nw = 257\n", "line 2"),
            ("[crd.reset]\nhold = 16\n", "`hold`"),
            ("[crd]\nqueues = 8\n", "unknown field `queues`"),
            ("[crd.reset]\nhold_time = 3\n", "unknown field `hold_time`"),
            ("[crd]\nlen_bits = -3\n", "line 2"),
            ("[crd.reset]\n\nw = 0.5\n", "line 3"),
        ]
    }
}

/// Mutants of CRD that no stimulus can tell apart from the original, each
/// with its reason. `mutation_config`: four queues, 16-bit lengths.
const EQUIVALENT_CRD: &[Equivalent] = &[
    // Widths with bits that are always 0 or never read.
    eq_in(
        "",
        "width-truncated ccrtl_crd.* [16:0] -> [15:0]",
        "",
        MIX_BITS,
    ),
    eq_in(
        "ccrtl_crd__*",
        "width-truncated * [16:0] -> [15:0]",
        "",
        MIX_BITS,
    ),
    eq_in(
        "",
        "width-truncated ccrtl_crd.b_qoff$* [22:0] -> [21:0]",
        "",
        QOFF_TOP,
    ),
    eq_in(
        "ccrtl_crd__b_qoff",
        "width-truncated * [22:0] -> [21:0]",
        "",
        QOFF_TOP,
    ),
    eq_in(
        "",
        "width-truncated ccrtl_crd.sel_len$0 [15:0] -> [14:0]",
        "",
        SEL_ZERO,
    ),
    eq_in(
        "",
        "width-truncated ccrtl_crd.sel_old$0 [15:0] -> [14:0]",
        "",
        SEL_ZERO,
    ),
    eq_in(
        "",
        "width-truncated ccrtl_crd.sel_rem$0 [7:0] -> [6:0]",
        "",
        SEL_ZERO,
    ),
    eq_in(
        "",
        "width-truncated ccrtl_crd.d_e6 [5:0] -> [4:0]",
        "",
        "min(fb_shift + 11, len_bits + 6) is at most 30: bit 5 is dropped by the register",
    ),
    eq_in(
        "",
        "width-truncated ccrtl_crd.xs [22:0] -> [21:0]",
        "",
        "only bits 7:0 of S >> (s + 3) are read (saturation is S >= 2^e)",
    ),
    // Selects whose last assignment stands (`x[Q]`), and the one-hot chain.
    eq_in("", "delete statement", "smp_all = smp$1;", OVERWRITTEN),
    eq_in("", "delete statement", "smp_all = smp$2;", OVERWRITTEN),
    eq_in("", "delete statement", "smp_all = smp$3;", OVERWRITTEN),
    eq_in("", "delete statement", "len_all = sel_len$1;", OVERWRITTEN),
    eq_in("", "delete statement", "len_all = sel_len$2;", OVERWRITTEN),
    eq_in("", "delete statement", "len_all = sel_len$3;", OVERWRITTEN),
    eq_in("", "delete statement", "old_all = sel_old$1;", OVERWRITTEN),
    eq_in("", "delete statement", "old_all = sel_old$2;", OVERWRITTEN),
    eq_in("", "delete statement", "old_all = sel_old$3;", OVERWRITTEN),
    eq_in("", "delete statement", "rem_all = sel_rem$1;", OVERWRITTEN),
    eq_in("", "delete statement", "rem_all = sel_rem$2;", OVERWRITTEN),
    eq_in("", "delete statement", "rem_all = sel_rem$3;", OVERWRITTEN),
    eq_in("", "delete statement", "rv_all = sel_rv$1;", OVERWRITTEN),
    eq_in("", "delete statement", "rv_all = sel_rv$2;", OVERWRITTEN),
    eq_in("", "delete statement", "rv_all = sel_rv$3;", OVERWRITTEN),
    eq_in("", "delete statement", "smp$2 = 1'b1;", SMP_KEPT),
    eq_in("", "delete statement", "smp$3 = 1'b1;", SMP_KEPT),
    eq_in("", "delete statement", "smp$4 = 1'b1;", SMP_KEPT),
    // `old` read one cycle late: it changes only at its queue's sample
    // (read again 16 cycles later at the soonest) and at a reset.
    eq_in("", "load-late old$0$q -> old$0__late", "", OLD0_AFTER_RESET),
    eq_in("", "load-late old$1$q -> old$1__late", "", OLD_LATE),
    eq_in("", "load-late old$2$q -> old$2__late", "", OLD_LATE),
    eq_in("", "load-late old$3$q -> old$3__late", "", OLD_LATE),
    // Clamps whose boundary gives the same value either way.
    eq_in("", "> -> >=", "if (d_f5 > c_len5) begin", CLAMP_EDGE),
    eq_in("", "> -> >=", "if (d_e6raw > c_emax) begin", CLAMP_EDGE),
    eq_in("", "> -> >=", "if (d_w > c_wone) begin", CLAMP_EDGE),
    eq_in("", "< -> <=", "if (d_period < c_pmin) begin", CLAMP_EDGE),
    // Shifts by idx8$0 = 0.
    eq_in("", "<< -> >>", "wrow$0 = a_we17 << idx8$0;", SHIFT_ZERO),
    eq_in("", "<< -> >>", "prow$0 = b_d$q << idx8$0;", SHIFT_ZERO),
    eq_in("", "<< -> >>", "nrow$0 = nw17 << idx8$0;", SHIFT_ZERO),
    eq_in(
        "",
        "32'h0 -> 32'h1",
        "prow$0 = 32'h0;",
        "with wq[0] = 0, S is even and S + 1 crosses none of 8, 2^e, 2^(SW-1) nor \
         changes S >> (s + 3) (s + 3 >= 3)",
    ),
    eq_in(
        "",
        "< -> <=",
        "f_local$d = (e_s$q >= c_eight) & (e_s$q < c_half);",
        "|S| < 39 * 2^L < 2^(SW-1): S is never -2^(SW-1)",
    ),
    // Reset values never seen.
    eq_in("", "32'h0 -> 32'h1", "old$0$d = 32'h0;", OLD0_AFTER_RESET),
    eq_in(
        "",
        "reset-not-cleared old$0$d",
        "old$0$d = 32'h0;",
        OLD0_AFTER_RESET,
    ),
    eq_in("", "32'h0 -> 32'h1", "rem$0$d = 32'h0;", REM_UNREAD),
    eq_in("", "32'h0 -> 32'h1", "rem$1$d = 32'h0;", REM_UNREAD),
    eq_in("", "32'h0 -> 32'h1", "rem$2$d = 32'h0;", REM_UNREAD),
    eq_in("", "32'h0 -> 32'h1", "rem$3$d = 32'h0;", REM_UNREAD),
    eq_in(
        "",
        "reset-not-cleared rem$0$d",
        "rem$0$d = 32'h0;",
        REM_UNREAD,
    ),
    eq_in(
        "",
        "reset-not-cleared rem$1$d",
        "rem$1$d = 32'h0;",
        REM_UNREAD,
    ),
    eq_in(
        "",
        "reset-not-cleared rem$2$d",
        "rem$2$d = 32'h0;",
        REM_UNREAD,
    ),
    eq_in(
        "",
        "reset-not-cleared rem$3$d",
        "rem$3$d = 32'h0;",
        REM_UNREAD,
    ),
    eq_in(
        "",
        "32'h0 -> 32'h1",
        "age$0$d = 32'h0;",
        "queue 0's sample right after the reset then mixes rem[0] = 0 into Fbq = 0 \
         (Fb <= 0, its length being 0): Fb' = 0, remote low, as without; and it \
         spends the count",
    ),
    eq_in(
        "",
        "reset-not-cleared hot$0$d",
        "hot$0$d = 1'b0;",
        "the next line sets hot[0]",
    ),
    eq_in(
        "",
        "reset-not-cleared hot$3$d",
        "hot$3$d = 1'b0;",
        "hot[Q-1] left set selects queue Q-1 beside queue 0 for the one cycle \
         after the reset, when every queue's state is 0 (ORed in: nothing), and \
         its own update writes 0 over 0; it has no successor to pass it on",
    ),
];

const MIX_BITS: &str = "the mix's sums and rows are at most 256 * 255 < 2^16: bit 16 is 0";
const QOFF_TOP: &str = "Qoff is read only as Qoff << 3 in SW bits, which drops its top bits";
const SEL_ZERO: &str = "the first element of an AND-OR select is the constant 0";
const OVERWRITTEN: &str = "overwritten by the loop's last iteration (the select's last element)";
const SMP_KEPT: &str = "hot[q] is always preceded by hot[q-1] in the cycle before, when this \
                        element was already 1: the value kept is 1";
const OLD_LATE: &str = "old[q] changes at q's sample or a reset, and is next read at q's next \
                        sample, at least two cycles later: one cycle late is the same value";
const OLD0_AFTER_RESET: &str = "queue 0 is sampled in the cycle after a reset with length 0: \
                                Fb = -qeq + floor(-wq old / 8) <= 0 whatever old is, then old = 0";
const REM_UNREAD: &str = "rem[q] is read only while age[q] > 0, which a reset clears and only a \
                          notification (which writes rem[q]) sets";
const CLAMP_EDGE: &str = "at the boundary both branches give the same value";
const SHIFT_ZERO: &str = "a shift by 0 either way";
