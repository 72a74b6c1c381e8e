//! DCTCP_TX across crates: the conformance suite every block passes,
//! instantiated by one line, plus its own check: bugs of the three loops,
//! their tables' forwarding and the cut's lag, written by hand into the
//! Verilog, which random stimulus must catch.

#[macro_use]
mod common;

use ccrtl_golden::dctcp_tx::{DctcpTxConfig, DctcpTxIn, DctcpTxParams, DctcpTxShape};
use ccrtl_sim::dctcp_tx::DctcpTxBlock;
use common::conformance::{BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(DctcpTxBlock);

fn shape(flow_bits: u32, reset: DctcpTxParams) -> DctcpTxConfig {
    DctcpTxConfig {
        shape: DctcpTxShape { flow_bits },
        reset,
    }
}

/// Small windows, so that slow start meets the ceiling and cuts meet the
/// floor within a few hundred cycles; `gshift = 2` moves alpha fast.
fn small() -> DctcpTxParams {
    DctcpTxParams {
        gshift: 2,
        mss: 1000,
        init_cwnd: 4000,
        cwnd_min: 2000,
        cwnd_max: 12_000,
    }
}

impl BlockTests for DctcpTxBlock {
    /// Reset, then 40 to 300 cycles (the clearing of 16 flows takes the
    /// first 16): an ACK in seven cycles in eight, of four flows most
    /// often; per flow the transport's `SND.UNA` and `SND.NXT` move ahead,
    /// and an ACK acknowledges 1 to 3,000 bytes of it, or is a duplicate,
    /// an old one or one beyond `SND.NXT`; ECE one ACK in three; a register
    /// write one cycle in 24; a reset one cycle in 300.
    fn traces(config: &DctcpTxConfig) -> BoxedStrategy<Vec<DctcpTxIn>> {
        let mask = config.shape.flows() - 1;
        let flow = prop_oneof![4 => 0u32..4, 1 => 0..=mask];
        let cycle = (
            (0u16..300, 0u8..8, flow, 0u8..12, 1u32..3000, 0u8..3),
            (0u8..24, 0u32..6, prop_oneof![0u32..8, 0u32..20_000, Just(0xff_ffff)]),
        );
        prop::collection::vec(cycle, 40..300)
            .prop_map(move |cycles| {
                let mut trace = vec![DctcpTxIn {
                    rst: true,
                    ..DctcpTxIn::default()
                }];
                // Per flow: SND.UNA and SND.NXT of the transport, from
                // just below 2^32 (wrap-around).
                let n = mask as usize + 1;
                let mut una = vec![u32::MAX - 5000; n];
                let mut nxt = vec![u32::MAX - 5000; n];
                for ((r, valid, f, kind, step, ece), (w, addr, data)) in cycles {
                    let fi = f as usize;
                    nxt[fi] = nxt[fi].wrapping_add(step);
                    let seq = match kind {
                        0 => una[fi],
                        1 => una[fi].wrapping_sub(step),
                        2 => nxt[fi].wrapping_add(step),
                        3 => nxt[fi],
                        _ => {
                            let flight = nxt[fi].wrapping_sub(una[fi]);
                            una[fi].wrapping_add(step.min(flight.max(1)))
                        }
                    };
                    if valid != 0 && kind >= 3 {
                        una[fi] = seq;
                    }
                    trace.push(DctcpTxIn {
                        rst: r == 0,
                        ack_valid: valid != 0,
                        ack_flow: f,
                        ack_seq: seq,
                        ack_ece: ece == 0,
                        ack_snd_nxt: nxt[fi],
                        cfg_valid: w == 0,
                        cfg_addr: addr,
                        cfg_data: data,
                    });
                }
                trace
            })
            .boxed()
    }

    /// 16 flows, small windows.
    fn proptest_config() -> DctcpTxConfig {
        shape(4, small())
    }

    /// 256 flows, small windows with reset values other than the defaults:
    /// a reset that restores another value shows in the first windows.
    fn mutation_config() -> DctcpTxConfig {
        shape(8, small())
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_DCTCP_TX;
    const UNEXAMINED: &'static [Equivalent] = UNEXAMINED_DCTCP_TX;

    /// The cut flag is not cleared at a window end: a flow cuts once and
    /// never again.
    fn planted_bug(verilog: &str) -> String {
        verilog.replace(
            "            cdn = cut | (v_cd & ~wend);",
            "            cdn = cut | v_cd;",
        )
    }

    /// Reset, the 16 cycles of the clearing, a first ACK, an ECE ACK that
    /// ends the window and cuts, then a second window and its cut: about
    /// 20 cycles and 24 to the result.
    const SHRUNK_MAX: usize = 70;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[dctcp_tx]\nflow_bits = 9\n", "`flow_bits`"),
            ("[dctcp_tx]\nflow_bits = 20\n", "`flow_bits`"),
            ("[dctcp_tx.reset]\ngshift = 16\n", "`gshift`"),
            ("[dctcp_tx.reset]\nmss = 0\n", "`mss`"),
            ("[dctcp_tx.reset]\nmss = 65536\n", "`mss`"),
            ("[dctcp_tx.reset]\ncwnd_max = 16777216\n", "`cwnd_max`"),
            (
                "[dctcp_tx.reset]\ncwnd_min = 5000\ncwnd_max = 4000\ninit_cwnd = 4500\n",
                "`cwnd_min`",
            ),
            ("[dctcp_tx.reset]\ninit_cwnd = 100\n", "`init_cwnd`"),
            ("[dctcp_tx]\nflows = 16\n", "unknown field `flows`"),
            ("[dctcp_tx]\nflow_bits = -3\n", "line 2"),
        ]
    }
}

/// Bugs of the three loops, their forwarding and the cut's lag, written by
/// hand into the emitted Verilog (each a plausible slip), must each be
/// caught by the random stimulus within 1e6 cycles.
#[test]
fn hand_written_loop_bugs_are_caught() {
    let c = shape(8, small());
    let bugs: &[(&str, &str, &str)] = &[
        (
            "the cwnd loop does not forward the ACK three ahead",
            "if (w_valid$1$q & (w_flow$1$q == b_flow$14$q)) begin",
            "if (1'b0) begin",
        ),
        (
            "the cwnd loop does not forward the ACK one ahead",
            "e1$d = b_valid$13$q & b_valid$14$q & (b_flow$13$q == b_flow$14$q);",
            "e1$d = 1'b0;",
        ),
        (
            "the one-ahead test compares the flows of stages 22 and 23 a cycle late",
            "e1$d = b_valid$13$q & b_valid$14$q & (b_flow$13$q == b_flow$14$q);",
            "e1$d = b_valid$14$q & b_valid$15$q & (b_flow$14$q == b_flow$15$q);",
        ),
        (
            "the cut's operand is the table's cwnd even for a flow not seen 4 cycles before",
            "        base$d = ci20;\n",
            "        base$d = t3a$view[(32'h0)+:(24)];\n",
        ),
        (
            "the divider's first quotient bit compares with > (marked = acked gives M < 1024)",
            "if (d_rem$0$q >= d_div$0$q) begin",
            "if (d_rem$0$q > d_div$0$q) begin",
        ),
        (
            "a first ACK after SND.NXT starts its window at SND.NXT",
            "                n_wend = a_seq$6$q;",
            "                n_wend = a_nxt$6$q;",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<DctcpTxBlock>(&c, bugs, 1_000_000);
}

/// Survivors of the last full mutant run not examined yet: not drawn by
/// the fast tier's sample; the deep tier fails on them. None since the
/// stimulus aims at ca + b = cwnd - 1 and at windows of 2^31 marked bytes.
const UNEXAMINED_DCTCP_TX: &[Equivalent] = &[
];

/// The tables' stage-6 words other than t1a's.
const PRE_UNREAD: &str = "this table's pre is not read (only t1a's stage-6 word is compared a cycle early)";

/// Mutants of DCTCP_TX that no stimulus can tell apart from the original,
/// each with its reason (those seen in the fast tier's samples; the full
/// run, `every_planted_mutant_is_caught_or_shown_equivalent`, is still to
/// be made).
const EQUIVALENT_DCTCP_TX: &[Equivalent] = &[
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "> -> >=",
        "if (init20$q > max20$q) begin",
        "clamp(init_cwnd): with init_cwnd = cwnd_max both branches give cwnd_max",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "< -> <=",
        "if (max20$q < min20$q) begin",
        "the clamp's floor min(cwnd_min, cwnd_max): at cwnd_max = cwnd_min both branches give it",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "< -> <=",
        "if (init20$q < min20$q) begin",
        "clamp(init_cwnd): at init_cwnd = cwnd_min the floor min(cwnd_min, cwnd_max) is init_cwnd, \
         or cwnd_max < init_cwnd, which the ceiling's test then gives either way",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "< -> <=",
        "if (b_b$13$q < ((((p21_mss$q) & 17'h1ffff) << 32'h1) & 24'hffffff)) begin",
        "min(b, 2 mss): at b = 2 mss both branches give 2 mss",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "26'h3ffffff -> 26'h0 #2",
        "max1_22 = ((p22_max$q) & 26'h3ffffff) + ((32'h1) & 26'h3ffffff);",
        "the clamp tests c > cwnd_max as c >= cwnd_max + 1; as c >= cwnd_max it \
         also clamps c = cwnd_max to cwnd_max",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "& -> |",
        "n_ss = ((32'hffffff) & 24'hffffff);",
        "both operands are 2^24 - 1",
    ),
    common::conformance::eq_in("", "width-truncated ccrtl_dctcp_tx.t1c$pre [1:0] -> [0:0]", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx__t1c", "width-truncated ccrtl_dctcp_tx__t1c.pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx", "width-truncated ccrtl_dctcp_tx.t1b$pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx__t1b", "width-truncated ccrtl_dctcp_tx__t1b.pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx", "width-truncated ccrtl_dctcp_tx.t2$pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx__t2", "width-truncated ccrtl_dctcp_tx__t2.pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx", "width-truncated ccrtl_dctcp_tx.t3a$pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx__t3a", "width-truncated ccrtl_dctcp_tx__t3a.pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx", "width-truncated ccrtl_dctcp_tx.t3b$pre [*", "", PRE_UNREAD),
    common::conformance::eq_in("ccrtl_dctcp_tx__t3b", "width-truncated ccrtl_dctcp_tx__t3b.pre [*", "", PRE_UNREAD),
    // Registers wider than their values (bounds in hdl/src/dctcp_tx.rs):
    // a one-bit truncation of their top bit cannot show.
    Equivalent {
        module: "ccrtl_dctcp_tx__d_q__*",
        original: "",
        change: "width-truncated * [10:0] -> [9:0]",
        reason: "the quotient so far has at most 10 bits before the last stage (bit 10 is 0)",
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_dctcp_tx",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.d_q* [10:0] -> [9:0]",
        reason: "the quotient so far has at most 10 bits before the last stage (bit 10 is 0)",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.ka_1 [16:0] -> [15:0]",
        reason: "M with its last bit 1 is at most 1023 (M <= 1024): (1023 << 6) < 2^16",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.p22_ssinc$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2 mss) < 2^17",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__p22_ssinc.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2 mss) < 2^17",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.p23_ssinc$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2 mss) < 2^17",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__p23_ssinc.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2 mss) < 2^17",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.p22_b24$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2^24 - 1) < 2^24",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__p22_b24.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2^24 - 1) < 2^24",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.p23_b24$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2^24 - 1) < 2^24",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__p23_b24.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: min(b, 2^24 - 1) < 2^24",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.plo$* [31:0] -> [30:0]",
        reason: "its top bit is always 0: base[15:0] * alpha10 < 2^27",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__plo.q [31:0] -> [30:0]",
        reason: "its top bit is always 0: base[15:0] * alpha10 < 2^27",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.phi$* [31:0] -> [30:0]",
        reason: "its top bit is always 0: base[23:16] * alpha10 < 2^19",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__phi.q [31:0] -> [30:0]",
        reason: "its top bit is always 0: base[23:16] * alpha10 < 2^19",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.r$* [23:0] -> [22:0]",
        reason: "its top bit is always 0: R = floor(base * alpha10 / 2^11) <= floor((2^24 - 1) / 2) < 2^23",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__r.q [23:0] -> [22:0]",
        reason: "its top bit is always 0: R = floor(base * alpha10 / 2^11) <= floor((2^24 - 1) / 2) < 2^23",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.t_hi_cut$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: floor(P / 2^11) + cwnd_max + 1 < 2^25, never negative",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__t_hi_cut.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: floor(P / 2^11) + cwnd_max + 1 < 2^25, never negative",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.t_lo_cut$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: floor(P / 2^11) + cwnd_min < 2^25, never negative",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__t_lo_cut.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: floor(P / 2^11) + cwnd_min < 2^25, never negative",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.t_hi_0$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: cwnd_max + 1 <= 2^24, never negative",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__t_hi_0.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: cwnd_max + 1 <= 2^24, never negative",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.t_lo_0$* [25:0] -> [24:0]",
        reason: "its top bit is always 0: cwnd_min < 2^24, never negative",
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx__t_lo_0.q [25:0] -> [24:0]",
        reason: "its top bit is always 0: cwnd_min < 2^24, never negative",
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_dctcp_tx",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.d_rem* [32:0] -> [31:0]",
        reason: "bit 32 is always 0: the remainder is below the divisor, < 2^32",
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_dctcp_tx",
        original: "",
        change: "width-truncated ccrtl_dctcp_tx.d_div* [32:0] -> [31:0]",
        reason: "bit 32 is always 0: the divisor is acked, 32 bits",
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_dctcp_tx__d_rem__*",
        original: "",
        change: "width-truncated * [32:0] -> [31:0]",
        reason: "bit 32 is always 0: the remainder is below the divisor, < 2^32",
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_dctcp_tx__d_div__*",
        original: "",
        change: "width-truncated * [32:0] -> [31:0]",
        reason: "the divisor is acked (32 bits), held 33 bits wide only to be compared with \
                 the remainder: bit 32 is always 0",
        nth: 0,
    },
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "& -> |",
        "b_b$0$d = ((32'hffffff) & 24'hffffff);",
        "rust-hdl's mask of a constant by itself: both operands are 0xffffff",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "32'h1 -> 32'h2",
        "d_q$1$d = (d_q$0$q << 32'h1) | ((32'h1) & 11'h7ff);",
        "the shift of d_q[0], which is 0 whenever the second quotient bit is set (as for \
         << -> >> on this line)",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "delete statement",
        "ahead_una = au_una$q;",
        "with the ACK one ahead of the same flow (s_e1), au_pre = au_una: t1a's pre (the \
         word of the flow read 6 cycles ago) and its view (read 7 cycles ago) are of one \
         flow with the same writes applied (hdl/src/fwd.rs), so the default test is the same",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "delete statement",
        "ahead_wend = aw_wend$q;",
        "with the ACK one ahead of the same flow (s_e1), aw_pre = aw_wend: the same word of \
         t1a as pre and as view (as for ahead_una = au_una)",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "32'hffffffff -> 32'h0",
        "a_neg$d = ((32'h0) & 32'hffffffff) - a_seq$5$q;",
        "the mask of a constant 0",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "delete statement",
        "cdn = 1'b0;",
        "a first ACK's flow is not seen, and a flow not seen has its cut flag 0: the \
         clearing writes the word {cut flag, seen} as 0 and every later write sets seen",
    ),
    common::conformance::eq_in(
        "ccrtl_dctcp_tx",
        "32'h0 -> 32'h1",
        "t3b$wword = 32'h0;",
        "the clearing's word {seen, ca} with ca = 1: seen (bit 24) stays 0, and a flow not \
         seen takes ca = 0 at its first ACK whatever its word's ca",
    ),
    // Top bits of carry-chain locals (hdl/src/dctcp_tx.rs, their
    // declarations) that their operands' bounds keep 0.
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.r_sum [39:0] -> [38:0]",
        "",
        "bit 39 is always 0: base * alpha10 <= (2^24 - 1) 2^10 < 2^34",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.s_*_cut [39:0] -> [38:0]",
        "",
        "bit 39 is always 0: base * alpha10 + (cwnd_max + 1 or cwnd_min) 2^11 < 2^34 + 2^35",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.max1_22 [25:0] -> [24:0]",
        "",
        "bit 25 is always 0: cwnd_max + 1 <= 2^24",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.x_cut [25:0] -> [24:0]",
        "",
        "bit 25 is never read: only x_cut[23:0] is, and only when the clamp tests \
        (x_cut_lo, x_cut_hi) keep it",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.x_ss [25:0] -> [24:0]",
        "",
        "bit 25 is always 0: cwnd + min(b, 2 mss) < 2^24 + 2^17",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.x_ca [25:0] -> [24:0]",
        "",
        "bit 25 is always 0: cwnd + mss < 2^24 + 2^16",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.ca_sum [25:0] -> [24:0]",
        "",
        "bit 25 is always 0: ca + min(b, 2^24 - 1) < 2^25",
    ),
    common::conformance::eq_in(
        "",
        "width-truncated ccrtl_dctcp_tx.csa_c [25:0] -> [24:0]",
        "",
        "bit 25 is the majority of bit 24 of ca, b and ~cwnd, and the first two are \
        0 (24-bit values): always 0",
    ),
    common::conformance::eq_in(
    "ccrtl_dctcp_tx",
    "<< -> >>",
    "d_q$1$d = (d_q$0$q << 32'h1) | ((32'h1) & 11'h7ff);",
    "the divider's second quotient bit is set only when bit 10 (in d_q[0]) is 0: bit 10 \
     is 1 only for marked = acked, which leaves remainder 0 and every later bit 0, so \
     d_q[0] shifted either way is 0 there",
    ),
];
