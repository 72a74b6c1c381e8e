//! SAR across crates: the conformance suite every block passes,
//! instantiated by one line, plus its own check: bugs of the decision
//! written by hand into the Verilog are caught by the random stimulus.

#[macro_use]
mod common;

use ccrtl_golden::sar::{SarConfig, SarIn, SarParams, SarShape};
use ccrtl_sim::sar::SarBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(SarBlock);

fn shape(port_bits: u32, group_bits: u32, mask: u32, margin: u32) -> SarConfig {
    SarConfig {
        shape: SarShape {
            port_bits,
            group_bits,
        },
        reset: SarParams { mask, margin },
    }
}

impl BlockTests for SarBlock {
    /// Reset, then 8 to 200 cycles: a degree update in half of them (0 to
    /// 3 and 253 to 255 most often, so that ties and the margin's boundary
    /// come often); a request in three in four, a CAM hit one in four; a
    /// register write one cycle in eight, to any address (the unused ones
    /// too), with data 0 to 3, all ones or any; a reset one cycle in 150.
    fn traces(config: &SarConfig) -> BoxedStrategy<Vec<SarIn>> {
        let s = config.shape;
        let (np, ng) = (s.ports(), s.groups());
        let cycle = (
            (0u16..150, any::<bool>(), 0..np),
            prop_oneof![2 => 0u32..4, 2 => 253u32..=255, 1 => 0u32..=255],
            (0u8..4, 0..np, 0..ng, 0u8..4),
            (
                0u8..8,
                0..2 * ng,
                prop_oneof![2 => 0u32..4, 1 => Just(0xFFFF), 1 => 0u32..=0xFFFF],
            ),
        );
        prop::collection::vec(cycle, 8..200)
            .prop_map(|cycles| {
                let mut trace = vec![SarIn {
                    rst: true,
                    ..SarIn::default()
                }];
                for (
                    (r, dv, deg_port),
                    deg,
                    (rv, req_port, req_group, h),
                    (cv, cfg_addr, cfg_data),
                ) in cycles
                {
                    trace.push(SarIn {
                        rst: r == 0,
                        deg_valid: dv,
                        deg_port,
                        deg,
                        req_valid: rv != 0,
                        req_port,
                        req_group,
                        req_hit: h == 0,
                        cfg_valid: cv == 0,
                        cfg_addr,
                        cfg_data,
                    });
                }
                trace
            })
            .boxed()
    }

    /// Four ports, two groups; every group's mask resets to ports 0, 1 and
    /// 3, the margin to 1: detours and the margin's boundary come within a
    /// few degree updates of a reset.
    fn proptest_config() -> SarConfig {
        shape(2, 1, 0b1011, 1)
    }

    /// Four ports, two groups; masks reset to ports 1 and 3, the margin to
    /// 2: a reset that restores other values shows in the first requests
    /// after degree updates, before the masks and margin are written.
    fn mutation_config() -> SarConfig {
        shape(2, 1, 0b1010, 2)
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_SAR;

    /// Port 0 beats the original port when `deg[0] + margin == deg[o]`
    /// (`<=` for `<`): a request exactly at the margin's boundary shows it.
    fn planted_bug(verilog: &str) -> String {
        let from = "        b_lt$0$d = a_sum$0$q < ((a_odeg$q) & 9'h1ff);";
        assert!(verilog.contains(from), "the planted bug's line is gone");
        verilog.replace(from, "        b_lt$0$d = a_sum$0$q <= ((a_odeg$q) & 9'h1ff);")
    }

    /// Reset, the shortest trace the strategy makes (eight cycles): a
    /// degree update, the request and its decision three cycles later fit
    /// in it.
    const SHRUNK_MAX: usize = 12;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[sar]\nport_bits = 5\n", "`port_bits`"),
            ("[sar]\ngroup_bits = 0\n", "`group_bits`"),
            ("[sar]\nport_bits = 2\n[sar.reset]\nmask = 0x1f\n", "`mask`"),
            ("[sar]\n[sar.reset]\nmargin = 256\n", "`margin`"),
            ("[sar]\nports = 8\n", "unknown field `ports`"),
            (
                "[sar]\n[sar.reset]\nthreshold = 3\n",
                "unknown field `threshold`",
            ),
            ("[sar]\ngroup_bits = -3\n", "line 2"),
        ]
    }
}

/// Mutants of SAR that no stimulus can tell apart from the original, each
/// with its reason. `mutation_config`: four ports, two groups; the pair bit
/// of port `p` against `q = (p + j) mod 4` is `bt$k`, `k = 3 p + j - 1`.
const EQUIVALENT_SAR: &[Equivalent] = &[
    // Widths with bits that are always 0.
    eq_in("", "width-truncated ccrtl_sar.kmod$*$deg9 [8:0] -> [7:0]", "", NINE_BITS),
    eq_in("", "width-truncated ccrtl_sar__kmod__*.deg9 [8:0] -> [7:0]", "", NINE_BITS),
    eq_in("", "width-truncated ccrtl_sar.margin9 [8:0] -> [7:0]", "", NINE_BITS),
    eq_in("", "width-truncated ccrtl_sar.enc$1 [1:0] -> [0:0]", "", ENC_BITS),
    eq_in("", "width-truncated ccrtl_sar.enc$2 [1:0] -> [0:0]", "", ENC_BITS),
    eq_in("", "width-truncated ccrtl_sar.enc$0 [1:0] -> [0:0]", "", ENC_BITS),
    // Two ports' keys are never equal.
    eq_in("", "< -> <=", "bt$0$d = kmod$1$key < kmod$0$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$1$d = kmod$2$key < kmod$0$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$2$d = kmod$3$key < kmod$0$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$3$d = kmod$2$key < kmod$1$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$4$d = kmod$3$key < kmod$1$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$5$d = kmod$0$key < kmod$1$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$6$d = kmod$3$key < kmod$2$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$7$d = kmod$0$key < kmod$2$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$8$d = kmod$1$key < kmod$2$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$9$d = kmod$0$key < kmod$3$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$10$d = kmod$1$key < kmod$3$key;", DISTINCT_KEYS),
    eq_in("", "< -> <=", "bt$11$d = kmod$2$key < kmod$3$key;", DISTINCT_KEYS),
    // o among the candidates: o never wins a detour (a tie with o, or o
    // the least, fails `deg[best] + margin < deg[o]`), so a candidate set
    // without o decides the same.
    eq_in("", "& -> |", "a_cand$d = msel | (one << ((s_req_port) & 4'hf));", O_CAND),
    eq_in("", "<< -> >>", "a_cand$d = msel | (one << ((s_req_port) & 4'hf));", O_CAND),
    // Clears of a port's win that never matter.
    eq_in("", "delete statement", "w$0$d = 1'b0;", BY_ANY_FOR_0),
    // (The clears of w$1 come by ports 2, 3, 0; those of w$2 by 3, 0, 1.)
    eq_del("w$1$d = 1'b0;", 2, BY_PORT_3),
    eq_del("w$2$d = 1'b0;", 1, BY_PORT_3),
    eq_in(
        "",
        "delete statement",
        "enc$1 = enc$0;",
        "enc$1 keeps its other branch's value, enc$0 | pidx$0 = 0, which is enc$0",
    ),
    eq_del(
        "o_port$d = b_port$q;",
        5,
        "the last iteration's else: the iterations before it assigned b_port \
         too (det is monotone: no detour at the last means none before)",
    ),
    eq_del(
        "o_detour$d = 1'b0;",
        5,
        "the last iteration's else: the iterations before it assigned 0 \
         too (det is monotone: no detour at the last means none before)",
    ),
    // Defaults of selects that always select.
    eq_in(
        "",
        "*",
        "odeg = 32'h0;",
        "overwritten: the request's port is one of the P ports, each with its arm",
    ),
    eq_in(
        "",
        "*",
        "msel = 32'h0;",
        "overwritten: the request's group is one of the G groups, each with its arm",
    ),
    eq_in(
        "",
        "*",
        "enc$1 = enc$0 | pidx$0;",
        "enc$0 and pidx$0 are both 0: any change of the line leaves enc$1 0",
    ),
    // The loop whose last assignment stands.
    eq_nth("o_port$d = b_port$q;", 1),
    eq_nth("o_port$d = b_port$q;", 2),
    eq_nth("o_port$d = b_port$q;", 3),
    eq_nth("o_port$d = b_port$q;", 4),
    eq_nth("o_detour$d = 1'b0;", 2),
    eq_nth("o_detour$d = 1'b0;", 3),
    eq_nth("o_detour$d = 1'b0;", 4),
    eq_nth("o_detour$d = 1'b1;", 1),
    eq_nth("o_detour$d = 1'b1;", 2),
    eq_nth("o_detour$d = 1'b1;", 3),
    eq_in("", "*", "o_port$d = enc$1;", OVERWRITTEN),
    eq_in("", "*", "o_port$d = enc$2;", OVERWRITTEN),
    eq_in("", "*", "o_port$d = enc$3;", OVERWRITTEN),
    eq_in("", "*", "if (~b_hit$q & det$1) begin", OVERWRITTEN),
    eq_in("", "*", "if (~b_hit$q & det$2) begin", OVERWRITTEN),
    eq_in("", "*", "if (~b_hit$q & det$3) begin", OVERWRITTEN),
    eq_in(
        "",
        "reset-not-cleared a_valid$d",
        "a_valid$d = 1'b0;",
        "a_valid's load already has `& ~rst`",
    ),
];

const O_CAND: &str = "o as a candidate changes no decision: o never wins a detour";
const NINE_BITS: &str = "an 8-bit value (a degree, the margin) widened to nine bits: the \
                         top bit is always 0";
const BY_ANY_FOR_0: &str = "port 0 left a winner beside the true one (of lower degree: a \
                            port above 0 has a lower key only with a lower degree) changes \
                            nothing: the winners' numbers are ORed (0 adds no bit) and port \
                            0 beats o by the margin only if the true winner does";
const BY_PORT_3: &str = "port p left a winner beside port 3 (four ports: 3 is binary 11): \
                         the winners' numbers ORed are 3 all the same, and port 3, of lower \
                         degree, beats o by the margin whenever p does";

/// An [`Equivalent`] entry for deleting the `nth` line (1-based) with
/// `original`'s text.
const fn eq_del(original: &'static str, nth: usize, reason: &'static str) -> Equivalent {
    Equivalent {
        module: "",
        original,
        change: "delete statement",
        reason,
        nth,
    }
}

const DISTINCT_KEYS: &str = "the keys of two ports differ in their port numbers: `<` and `<=` \
                             agree on them";
const ENC_BITS: &str = "enc$k is the number of a winner among ports below k: enc$1 is 0, \
                        enc$2 at most 1, one bit";
const OVERWRITTEN: &str = "overwritten by the next iteration of the loop whose last \
                           assignment stands (`det[P]`, `enc[P]`): only the last one is read";

/// An [`Equivalent`] entry for the `nth` line (1-based) with `original`'s
/// text: the first `o_port$d = b_port$q;` and those of the loop's
/// iterations before the last are overwritten.
const fn eq_nth(original: &'static str, nth: usize) -> Equivalent {
    Equivalent {
        module: "",
        original,
        change: "*",
        reason: OVERWRITTEN,
        nth,
    }
}

/// Bugs of the decision, written by hand into the emitted Verilog of the
/// default shape (8 ports, 8 groups), each a plausible slip, must each be
/// caught by the random stimulus within 1e6 cycles.
#[test]
fn hand_written_decision_bugs_are_caught() {
    let c = SarConfig::default();
    let bugs: &[(&str, &str, &str)] = &[
        (
            "deg[3] + margin summed in 8 bits (the carry lost)",
            "        a_sum$3$d = kmod$3$deg9 + margin9;",
            "        a_sum$3$d = {1'b0, kmod$3$deg9[7:0] + margin9[7:0]};",
        ),
        (
            "port 5 detours at the margin's boundary (`<=` for `<`)",
            "        b_lt$5$d = a_sum$5$q < ((a_odeg$q) & 9'h1ff);",
            "        b_lt$5$d = a_sum$5$q <= ((a_odeg$q) & 9'h1ff);",
        ),
        (
            "a request sees the degree of port 2 updated in its own cycle",
            "        a_sum$2$d = kmod$2$deg9 + margin9;",
            "        a_sum$2$d = ((s_deg_valid & (s_deg_port == 3'h2)) ? {1'b0, s_deg} : \
             kmod$2$deg9) + margin9;",
        ),
        (
            "a request sees the margin written in its own cycle (port 4's sum)",
            "        a_sum$4$d = kmod$4$deg9 + margin9;",
            "        a_sum$4$d = kmod$4$deg9 + ((s_cfg_valid & (s_cfg_addr == margin_addr)) ? \
             {1'b0, s_cfg_data[7:0]} : margin9);",
        ),
        (
            "port 3's key without its port number in its compare with port 0: \
             a tie of ports 0 and 3 is not broken (two winners)",
            "        bt$25$d = kmod$0$key < kmod$3$key;",
            "        bt$25$d = kmod$0$key < (kmod$3$key & 12'hff0);",
        ),
        (
            "a CAM hit detoured",
            "            if (~b_hit$q & det$8) begin",
            "            if (det$8) begin",
        ),
        (
            "the unused addresses above the margin write the margin",
            "        if (s_cfg_valid & (s_cfg_addr == margin_addr)) begin",
            "        if (s_cfg_valid & (s_cfg_addr >= margin_addr)) begin",
        ),
        (
            "address G + 1 writes group 1's mask (the address's top bit ignored)",
            "        if (s_cfg_valid & (s_cfg_addr == gidx$1)) begin",
            "        if (s_cfg_valid & (s_cfg_addr[2:0] == 3'h1)) begin",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<SarBlock>(&c, bugs, 1_000_000);
}
