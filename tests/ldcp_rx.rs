//! LDCP_RX across crates: the conformance suite every block passes,
//! instantiated by one line, plus its own check: bugs of LDCP's rule in the
//! shared receiver RTL (hdl/src/dctcp_rx.rs with `ldcp` set), written by
//! hand into the Verilog, which random stimulus must catch. The shared
//! flow table's forwarding bugs are DCTCP_RX's (tests/dctcp_rx.rs); one is
//! repeated here.

#[macro_use]
mod common;

use ccrtl_golden::dctcp_rx::{DctcpRxConfig, DctcpRxIn, DctcpRxParams, DctcpRxShape};
use ccrtl_sim::ldcp_rx::LdcpRxBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(LdcpRxBlock);

fn shape(flow_bits: u32, m: u32) -> DctcpRxConfig {
    DctcpRxConfig {
        shape: DctcpRxShape { flow_bits },
        reset: DctcpRxParams { m },
    }
}

impl BlockTests for LdcpRxBlock {
    /// `common::rx::traces`: CE one packet in four (so unmarked groups
    /// pend when a CE packet comes).
    fn traces(config: &DctcpRxConfig) -> BoxedStrategy<Vec<DctcpRxIn>> {
        common::rx::traces(config, 4)
    }

    /// 16 flows, `m = 2` after reset: a CE packet after one unmarked packet
    /// gets both slots; a lone CE packet is ACKed at once.
    fn proptest_config() -> DctcpRxConfig {
        shape(4, 2)
    }

    /// 256 flows, reset `m` 3.
    fn mutation_config() -> DctcpRxConfig {
        shape(8, 3)
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_LDCP_RX;

    /// A CE packet waits for its group like an unmarked one (the rule's
    /// "at once" dropped).
    fn planted_bug(verilog: &str) -> String {
        verilog.replace(
            "        at_once = p7_lone$q | ldcp;",
            "        at_once = p7_lone$q;",
        )
    }

    /// Reset, the 16 cycles of the clearing, one CE packet, eight cycles to
    /// its ACK: 26 cycles at the least.
    const SHRUNK_MAX: usize = 40;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[ldcp_rx]\nflow_bits = 9\n", "`flow_bits`"),
            ("[ldcp_rx]\nflow_bits = 8\n[ldcp_rx.reset]\nm = 16\n", "`m`"),
            ("[ldcp_rx]\nflows = 16\n", "unknown field `flows`"),
            ("[ldcp_rx]\nflow_bits = -3\n", "line 2"),
        ]
    }
}

/// Mutants of LDCP_RX that no stimulus can tell apart from the original
/// (found by `every_planted_mutant_is_caught_or_shown_equivalent`; each
/// one's reason).
const EQUIVALENT_LDCP_RX: &[Equivalent] = &[
    // The words' registers and the RAM inside its module (not `cur`: its
    // bit 4 truncated reads as X, which Verilator randomises).
    Equivalent {
        module: "ccrtl_ldcp_rx__*",
        original: "",
        change: "width-truncated * [4:0] -> [3:0]",
        reason: CE_BIT_ZERO,
        nth: 0,
    },
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] flow_ram$write_data;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] flow_ram$read_data_a;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] word;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] p6_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] p6_word$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] p7_ram$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] p7_ram$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] p7_fword$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] p7_fword$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] w1_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] w1_word$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] w2_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] w2_word$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] w3_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] w3_word$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] w4_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] w4_word$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] w5_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] w5_word$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] w6_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] w6_word$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "reg  [4:0] w7_word$d;",
        CE_BIT_ZERO,
    ),
    eq(
        "width-truncated * [4:0] -> [3:0]",
        "wire  [4:0] w7_word$q;",
        CE_BIT_ZERO,
    ),
    eq("delete statement", "new_ce = cur_ce;", CE_BIT_ZERO),
    eq("delete statement", "new_ce = p7_ce$q & ~ldcp;", CE_BIT_ZERO),
    eq(
        "load-late p7_ce$q -> p7_ce__late",
        "new_ce = p7_ce$q & ~ldcp;",
        CE_BIT_ZERO,
    ),
    eq(
        "32'h4 -> 32'h5",
        "word = ((new_p) & 5'h1f) | (((new_ce) & 5'h1f) << 32'h4);",
        CE_BIT_ZERO,
    ),
    eq(
        "5'h1f -> 5'h0 #2",
        "word = ((new_p) & 5'h1f) | (((new_ce) & 5'h1f) << 32'h4);",
        CE_BIT_ZERO,
    ),
    eq(
        "<< -> >>",
        "word = ((new_p) & 5'h1f) | (((new_ce) & 5'h1f) << 32'h4);",
        CE_BIT_ZERO,
    ),
    eq("delete statement", "o_flip_ece$d = 1'b0;", CE_BIT_ZERO),
    eq("delete statement", "o_flip_ece$d = cur_ce;", CE_BIT_ZERO),
    eq(
        "reset-not-cleared o_flip_ece$d",
        "o_flip_ece$d = 1'b0;",
        CE_BIT_ZERO,
    ),
    eq(
        "load-early o_flip_ece$q -> o_flip_ece$d",
        "m_flip_ece = o_flip_ece$q;",
        CE_BIT_ZERO,
    ),
    eq(
        "load-late p7_lone$q -> p7_lone__late",
        "at_once = p7_lone$q | ldcp;",
        AT_ONCE,
    ),
    eq("32'h1 -> 32'h2", "new_p = 32'h1;", AT_ONCE),
    eq("delete statement", "new_p = 32'h1;", AT_ONCE),
    eq("32'h1 -> 32'h2", "p2_lone$d = p1_m$q <= 32'h1;", AT_ONCE),
    eq("delete statement", "p2_lone$d = p1_m$q <= 32'h1;", AT_ONCE),
    eq("delete statement", "p3_lone$d = p2_lone$q;", AT_ONCE),
    eq(
        "load-late p2_lone$q -> p2_lone__late",
        "p3_lone$d = p2_lone$q;",
        AT_ONCE,
    ),
    eq("delete statement", "p4_lone$d = p3_lone$q;", AT_ONCE),
    eq(
        "load-late p3_lone$q -> p3_lone__late",
        "p4_lone$d = p3_lone$q;",
        AT_ONCE,
    ),
    eq("delete statement", "p5_lone$d = p4_lone$q;", AT_ONCE),
    eq(
        "load-late p4_lone$q -> p4_lone__late",
        "p5_lone$d = p4_lone$q;",
        AT_ONCE,
    ),
    eq("delete statement", "p6_lone$d = p5_lone$q;", AT_ONCE),
    eq(
        "load-late p5_lone$q -> p5_lone__late",
        "p6_lone$d = p5_lone$q;",
        AT_ONCE,
    ),
    eq("delete statement", "p7_lone$d = p6_lone$q;", AT_ONCE),
    eq(
        "load-late p6_lone$q -> p6_lone__late",
        "p7_lone$d = p6_lone$q;",
        AT_ONCE,
    ),
];

const fn eq(change: &'static str, original: &'static str, reason: &'static str) -> Equivalent {
    eq_in("ccrtl_ldcp_rx", change, original, reason)
}

/// Why the word's CE bit, and everything computed from it, cannot show.
const CE_BIT_ZERO: &str = "with LDCP's rule every word is written with CE 0 (`new_ce = p7_ce & \
     ~ldcp`, ldcp = 1), so bit 4 of a word is 0 wherever it is stored or forwarded, and the flip \
     slot's ECE (the word's CE) is 0: dropping bit 4, or any change to how the CE bit is \
     computed, placed in the word or output, leaves it 0";
/// Why the `lone` pipeline cannot show.
const AT_ONCE: &str = "`at_once = lone | ldcp` is 1 with ldcp = 1: the `lone` bit's pipeline \
     (stages 2 to 7) and the CE-change path's `new_p = 1` (taken only when not at once) are \
     dead logic in LDCP_RX (the same RTL serves DCTCP_RX, where they are caught)";

/// Bugs of LDCP's rule, written by hand into the emitted Verilog, must
/// each be caught by the random stimulus within 1e6 cycles.
#[test]
fn hand_written_rule_bugs_are_caught() {
    let c = shape(8, 3);
    let bugs: &[(&str, &str, &str)] = &[
        (
            "a CE packet waits for its group (not ACKed at once)",
            "        at_once = p7_lone$q | ldcp;",
            "        at_once = p7_lone$q;",
        ),
        (
            "the CE bit written to the table (CE packets then grouped as DCTCP's)",
            "                new_ce = p7_ce$q & ~ldcp;",
            "                new_ce = p7_ce$q;",
        ),
        (
            "the word of the event one ahead not forwarded",
            "            cur = w1_word$q;",
            "            cur = p7_fword$q;",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<LdcpRxBlock>(&c, bugs, 1_000_000);
}
