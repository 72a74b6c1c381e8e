//! RCC_SCHED across crates: the conformance suite every block passes,
//! instantiated by one line.

#[macro_use]
mod common;

use ccrtl_golden::rcc_sched::{RccSchedConfig, RccSchedIn, RccSchedParams, RccSchedShape};
use ccrtl_sim::rcc_sched::RccSchedBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(RccSchedBlock);

fn config(win_bits: u32, window: u32, wc_min: u32) -> RccSchedConfig {
    RccSchedConfig {
        shape: RccSchedShape { win_bits },
        reset: RccSchedParams { window, wc_min },
    }
}

impl BlockTests for RccSchedBlock {
    /// Reset, then 8 to 200 cycles: each class valid three times in four
    /// with a length of 0 to 3, 40 to 60 or any; the link ready seven
    /// times in eight; a degree update one cycle in six (0, 1 to 3, 255
    /// or any), so that entries, cuts, quits and the pending slot come
    /// within a trace; a register write one cycle in ten to any address,
    /// data 0 to 3, 40 to 200 or any; a reset one cycle in 150.
    fn traces(_config: &RccSchedConfig) -> BoxedStrategy<Vec<RccSchedIn>> {
        let len = || prop_oneof![2 => 0u32..4, 2 => 40u32..60, 1 => 0u32..16_384];
        let cycle = (
            (0u16..150, 0u8..4, len(), 0u8..4, len(), 0u8..8),
            (
                0u8..6,
                prop_oneof![1 => Just(0u32), 1 => 1u32..4, 1 => Just(255u32), 1 => 0u32..256],
            ),
            (
                0u8..10,
                0u32..4,
                prop_oneof![2 => 0u32..4, 2 => 40u32..200, 1 => 0u32..(1 << 24)],
            ),
        );
        prop::collection::vec(cycle, 8..200)
            .prop_map(|cycles| {
                let mut trace = vec![RccSchedIn {
                    rst: true,
                    ..RccSchedIn::default()
                }];
                for ((r, cv, c_len, nv, n_len, rd), (fv, fb), (wv, cfg_addr, cfg_data)) in cycles {
                    trace.push(RccSchedIn {
                        rst: r == 0,
                        c_valid: cv != 0,
                        c_len,
                        n_valid: nv != 0,
                        n_len,
                        out_ready: rd != 0,
                        fb_valid: fv == 0,
                        fb,
                        cfg_valid: wv == 0,
                        cfg_addr,
                        cfg_data,
                    });
                }
                trace
            })
            .boxed()
    }

    /// 16-bit windows of 200 bytes, `wc_min` 30: windows turn over every
    /// few packets and the floor binds after a few cuts.
    fn proptest_config() -> RccSchedConfig {
        config(16, 200, 30)
    }

    /// 16-bit windows of 300 bytes, `wc_min` 20: a reset that restores
    /// other values shows within the first windows.
    fn mutation_config() -> RccSchedConfig {
        config(16, 300, 20)
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_RCC_SCHED;

    /// A window ends one byte late: `nl + L > 0` instead of `>= 0` (the
    /// sign test of `nl + L - 1`): a grant that fills the window exactly
    /// shows it.
    fn planted_bug(verilog: &str) -> String {
        let from = "        e_c = nl$q + lc;";
        assert!(verilog.contains(from), "the planted bug's line is gone");
        verilog.replace(from, "        e_c = nl$q + lc - 1;")
    }

    /// Reset, a degree update, its eight cycles, and a grant.
    const SHRUNK_MAX: usize = 16;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[rcc_sched]\nwin_bits = 18\n", "`win_bits`"),
            (
                "[rcc_sched]\nwin_bits = 16\n[rcc_sched.reset]\nwindow = 65536\n",
                "`window`",
            ),
            (
                "[rcc_sched]\n[rcc_sched.reset]\nwc_min = 1048576\n",
                "`wc_min`",
            ),
            ("[rcc_sched]\nwindows = 8\n", "unknown field `windows`"),
            (
                "[rcc_sched]\n[rcc_sched.reset]\nwc = 3\n",
                "unknown field `wc`",
            ),
            ("[rcc_sched]\nwin_bits = -3\n", "line 2"),
        ]
    }
}

const PRODUCT_BITS: &str =
    "the product Wc (512 - Fb) is below 2^25 with 16-bit windows (2^16 x 2^9), \
     and so is every partial sum of the multiplier: bits 47 and up are always 0";
const WC_RESET_UNSEEN: &str =
    "Wc's reset value never shows: normal mode shows W, an entry's operand \
     is W / 2 and its product the new Wc (wc1, then wc), lim1 is recomputed from wc1 and w1 \
     every cycle and read only in window mode, which only an entry starts";
const WINDOW_ONLY: &str = "nl and cr are read only in window mode (the end test under acc, \
     eligibility as !mode | !sign(cr)); only an entry starts window mode, and it loads both";

const ZERO_ROWS: &str = "the multiplier's b is 512 - Fb, 257 to 511 for a cut or an entry (bit 9 \
     is set only for Fb = 0, a quit, whose product is never used; bits 10 to 16 are wiring 0): \
     rows 9 to 16 are 0, and so are the partial sums of rows 10 to 16";
const MUL: &str = "ccrtl_rcc_sched__mul";

/// Mutants of RCC_SCHED that no stimulus can tell apart from the original,
/// each with its reason. `mutation_config`: 16-bit windows.
const EQUIVALENT_RCC_SCHED: &[Equivalent] = &[
    eq_in(
        "",
        "width-truncated ccrtl_rcc_sched.mul$p [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq_in(
        "ccrtl_rcc_sched__mul*",
        "width-truncated * [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq_in(
        "",
        "- -> +",
        "busy$d = busy$q - c_one4;",
        "busy goes from 8 to 0 in eight steps counting down or up (modulo 16)",
    ),
    eq_in(MUL, "*", "if (b[32'h9]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r9 = a48;", ZERO_ROWS),
    eq_in(MUL, "*", "if (b[32'ha]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r10 = a48;", ZERO_ROWS),
    eq_in(MUL, "*", "if (b[32'hb]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r11 = a48;", ZERO_ROWS),
    eq_in(MUL, "*", "if (b[32'hc]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r12 = a48;", ZERO_ROWS),
    eq_in(MUL, "*", "if (b[32'hd]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r13 = a48;", ZERO_ROWS),
    eq_in(MUL, "*", "if (b[32'he]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r14 = a48;", ZERO_ROWS),
    eq_in(MUL, "*", "if (b[32'hf]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r15 = a48;", ZERO_ROWS),
    eq_in(MUL, "*", "if (b[32'h10]) begin", ZERO_ROWS),
    eq_in(MUL, "*", "r16 = a48;", ZERO_ROWS),
    eq_in(MUL, "+ -> -", "s1_5$d = r10 + (r11 << 32'h1);", ZERO_ROWS),
    eq_in(MUL, "<< -> >>", "s1_5$d = r10 + (r11 << 32'h1);", ZERO_ROWS),
    eq_in(
        MUL,
        "32'h1 -> 32'h2",
        "s1_5$d = r10 + (r11 << 32'h1);",
        ZERO_ROWS,
    ),
    eq_in(MUL, "+ -> -", "s1_6$d = r12 + (r13 << 32'h1);", ZERO_ROWS),
    eq_in(MUL, "<< -> >>", "s1_6$d = r12 + (r13 << 32'h1);", ZERO_ROWS),
    eq_in(
        MUL,
        "32'h1 -> 32'h2",
        "s1_6$d = r12 + (r13 << 32'h1);",
        ZERO_ROWS,
    ),
    eq_in(MUL, "+ -> -", "s1_7$d = r14 + (r15 << 32'h1);", ZERO_ROWS),
    eq_in(MUL, "<< -> >>", "s1_7$d = r14 + (r15 << 32'h1);", ZERO_ROWS),
    eq_in(
        MUL,
        "32'h1 -> 32'h2",
        "s1_7$d = r14 + (r15 << 32'h1);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "+ -> -",
        "s2_3$d = s1_6$q + (s1_7$q << 32'h2);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "<< -> >>",
        "s2_3$d = s1_6$q + (s1_7$q << 32'h2);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "32'h2 -> 32'h3",
        "s2_3$d = s1_6$q + (s1_7$q << 32'h2);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "+ -> -",
        "s2_2$d = s1_4$q + (s1_5$q << 32'h2);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "<< -> >>",
        "s2_2$d = s1_4$q + (s1_5$q << 32'h2);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "32'h2 -> 32'h3",
        "s2_2$d = s1_4$q + (s1_5$q << 32'h2);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "+ -> -",
        "s3_1$d = s2_2$q + (s2_3$q << 32'h4);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "<< -> >>",
        "s3_1$d = s2_2$q + (s2_3$q << 32'h4);",
        ZERO_ROWS,
    ),
    eq_in(
        MUL,
        "32'h4 -> 32'h5",
        "s3_1$d = s2_2$q + (s2_3$q << 32'h4);",
        ZERO_ROWS,
    ),
    eq_in(MUL, "<< -> >>", "s4_1$d = s3_2$q << 32'h10;", ZERO_ROWS),
    eq_in(
        MUL,
        "32'h10 -> 32'h11",
        "s4_1$d = s3_2$q << 32'h10;",
        ZERO_ROWS,
    ),
    eq_in(MUL, "+ -> -", "s5$d = s4_0$q + s4_1$q;", ZERO_ROWS),
    // The multiplier's operand b = 512 - Fb: bit 9 only for a quit (its
    // product unused), bits 10 to 16 wiring 0, bit 8 always 1 otherwise
    // (b >= 257), so row 8 is always `a` and row 0's default shows only in
    // an even product (b[0] = 0), where adding 1 never reaches bit 9.
    eq_in(
        "",
        "width-truncated ccrtl_rcc_sched.k0_m$d [9:0] -> [8:0]",
        "",
        ZERO_ROWS,
    ),
    eq_in(
        "",
        "width-truncated ccrtl_rcc_sched.k0_m$q [9:0] -> [8:0]",
        "",
        ZERO_ROWS,
    ),
    eq_in(
        "ccrtl_rcc_sched__k0_m",
        "width-truncated * [9:0] -> [8:0]",
        "",
        ZERO_ROWS,
    ),
    eq_in(
        "",
        "width-truncated ccrtl_rcc_sched.mul$b [16:0] -> [15:0]",
        "",
        ZERO_ROWS,
    ),
    eq_in(MUL, "*", "r8 = 32'h0;", ZERO_ROWS),
    eq_in(
        MUL,
        "32'h0 -> 32'h1",
        "r0 = 32'h0;",
        "row 0 is 0 only when b is even, and then the product is even: adding 1 \
         never carries into bit 9, so floor(p / 512) is the same",
    ),
    eq_in(MUL, "+ -> -", "s1_4$d = r8 + (r9 << 32'h1);", ZERO_ROWS),
    eq_in(MUL, "<< -> >>", "s1_4$d = r8 + (r9 << 32'h1);", ZERO_ROWS),
    eq_in(
        MUL,
        "32'h1 -> 32'h2",
        "s1_4$d = r8 + (r9 << 32'h1);",
        ZERO_ROWS,
    ),
    // Widths with bits that are always 0.
    eq_in(
        "",
        "width-truncated ccrtl_rcc_sched.lc [17:0] -> [16:0]",
        "",
        "a 14-bit length widened to N = 18 bits: bits 14 to 17 are 0",
    ),
    eq_in(
        "",
        "width-truncated ccrtl_rcc_sched.ln [17:0] -> [16:0]",
        "",
        "a 14-bit length widened to N = 18 bits: bits 14 to 17 are 0",
    ),
    eq_in(
        "",
        "< -> <=",
        "if (prod < wc_min$q) begin",
        "max(prod, wc_min): at prod == wc_min either arm gives the same value",
    ),
    // Defaults whose loss leaves a value that is already the right one.
    eq_in(
        "",
        "delete statement",
        "wc2 = wc1$q;",
        "without the default wc2 keeps the last floored value, which wc1 holds \
         since that update was applied; only a reset makes them differ, and Wc's \
         reset value never shows (entries overwrite it)",
    ),
    eq_in(
        "",
        "delete statement",
        "new_fb = pend_fb$q;",
        "without the default new_fb keeps the last s_fb of a cycle with s_fb_valid, \
         which pend_fb also holds (it loads new_fb every cycle); the pending degree \
         is read only after such a cycle (reset clears pend_v)",
    ),
    eq_in("", "reset-constant *", "wc$d = reset_wc;", WC_RESET_UNSEEN),
    eq_in(
        "",
        "reset-not-cleared wc$d",
        "wc$d = reset_wc;",
        WC_RESET_UNSEEN,
    ),
    eq_in("", "reset-constant *", "wc1$d = reset_wc;", WC_RESET_UNSEEN),
    eq_in(
        "",
        "reset-not-cleared wc1$d",
        "wc1$d = reset_wc;",
        WC_RESET_UNSEEN,
    ),
    eq_in(
        "",
        "reset-constant *",
        "lim1$d = reset_wc;",
        WC_RESET_UNSEEN,
    ),
    eq_in(
        "",
        "reset-not-cleared lim1$d",
        "lim1$d = reset_wc;",
        WC_RESET_UNSEEN,
    ),
    eq_in("", "reset-constant *", "nl$d = reset_nw;", WINDOW_ONLY),
    eq_in(
        "",
        "reset-not-cleared nl$d",
        "nl$d = reset_nw;",
        WINDOW_ONLY,
    ),
    eq_in("", "reset-constant *", "cr$d = reset_cr;", WINDOW_ONLY),
    eq_in(
        "",
        "reset-not-cleared cr$d",
        "cr$d = reset_cr;",
        WINDOW_ONLY,
    ),
];
