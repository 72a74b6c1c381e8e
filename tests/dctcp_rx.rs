//! DCTCP_RX across crates: the conformance suite every block passes,
//! instantiated by one line, plus its own check: bugs of the flow table's
//! forwarding and of the decision, written by hand into the Verilog, which
//! random stimulus must catch.

#[macro_use]
mod common;

use ccrtl_golden::dctcp_rx::{DctcpRxConfig, DctcpRxIn, DctcpRxParams, DctcpRxShape};
use ccrtl_sim::dctcp_rx::DctcpRxBlock;
use common::conformance::{BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(DctcpRxBlock);

fn shape(flow_bits: u32, m: u32) -> DctcpRxConfig {
    DctcpRxConfig {
        shape: DctcpRxShape { flow_bits },
        reset: DctcpRxParams { m },
    }
}

impl BlockTests for DctcpRxBlock {
    /// `common::rx::traces`: CE one packet in two (so CE changes come
    /// often).
    fn traces(config: &DctcpRxConfig) -> BoxedStrategy<Vec<DctcpRxIn>> {
        common::rx::traces(config, 2)
    }

    /// 16 flows, `m = 2` after reset: a group of two is ACKed, a CE change
    /// with one packet pending gives a flip ACK.
    fn proptest_config() -> DctcpRxConfig {
        shape(4, 2)
    }

    /// 256 flows, reset `m` 3: a reset that restores another value shows
    /// on the first groups after the clearing.
    fn mutation_config() -> DctcpRxConfig {
        shape(8, 3)
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_DCTCP_RX;

    /// The flip ACK carries the new CE bit instead of the old one.
    fn planted_bug(verilog: &str) -> String {
        verilog.replace(
            "            o_flip_ece$d = cur_ce;",
            "            o_flip_ece$d = p7_ce$q;",
        )
    }

    /// Reset, the 16 cycles of the clearing, two packets of one flow with
    /// different CE, eight cycles to their ACKs: 27 cycles at the least.
    const SHRUNK_MAX: usize = 40;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[dctcp_rx]\nflow_bits = 9\n", "`flow_bits`"),
            ("[dctcp_rx]\nflow_bits = 20\n", "`flow_bits`"),
            (
                "[dctcp_rx]\nflow_bits = 8\n[dctcp_rx.reset]\nm = 16\n",
                "`m`",
            ),
            ("[dctcp_rx]\nflows = 16\n", "unknown field `flows`"),
            ("[dctcp_rx]\nflow_bits = -3\n", "line 2"),
        ]
    }
}

/// Mutants of DCTCP_RX that no stimulus can tell apart from the original:
/// none. The full run (`every_planted_mutant_is_caught_or_shown_equivalent`,
/// 460 mutants of the mutation configuration, 1e6 cycles each) caught every
/// one; the registers whose reset no stimulus could see (stage 1's valid,
/// the write records) are not reset in the RTL (hdl/src/dctcp_rx.rs says
/// why).
const EQUIVALENT_DCTCP_RX: &[Equivalent] = &[];

/// Bugs of the flow table's forwarding and of the decision, written by
/// hand into the emitted Verilog (each a plausible slip), must each be
/// caught by the random stimulus within 1e6 cycles.
#[test]
fn hand_written_flow_table_bugs_are_caught() {
    let c = shape(8, 3);
    let bugs: &[(&str, &str, &str)] = &[
        (
            "the word of the event one ahead not forwarded",
            "            cur = w1_word$q;",
            "            cur = p7_fword$q;",
        ),
        (
            "the event two ahead (decided in the last cycle) not forwarded",
            "        hit2 = p6_e2$q & w1_we$q;",
            "        hit2 = 1'b0;",
        ),
        (
            "the event eight ahead (its write collides with the read) not forwarded",
            "        p6_h8$d = w6_we$q & (p5_flow$q == w6_flow$q);",
            "        p6_h8$d = 1'b0;",
        ),
        (
            "the event seven ahead forwarded with the word of the one eight ahead",
            "            p7_fword$d = w6_word$q;",
            "            p7_fword$d = w7_word$q;",
        ),
        (
            "m = 0 not taken as 1 (k wraps to 15)",
            "            p2_k$d = 32'h0;",
            "            p2_k$d = p1_m$q - 32'h1;",
        ),
        (
            "a group left above m by a lower m not ACKed (== for >=)",
            "                ack = cur_p >= p7_k$q;",
            "                ack = cur_p == p7_k$q;",
        ),
        (
            "a flush with nothing pending ACKs",
            "        ack = |cur_p;",
            "        ack = 1'b1;",
        ),
        (
            "the clearing stops before the last flow",
            "        sweep_q$d = sweep_q$q & (ptr$q != last_flow);",
            "        sweep_q$d = sweep_q$q & (ptr$q != last_flow - 8'h1);",
        ),
        (
            "the reset cycle does not clear flow 0",
            "        if (rst) begin\n            flow_ram$write_address = 32'h0;",
            "        if (rst) begin\n            flow_ram$write_address = ptr$q;",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<DctcpRxBlock>(&c, bugs, 1_000_000);
}
