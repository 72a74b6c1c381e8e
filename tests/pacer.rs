//! PACER across crates: the conformance suite every block passes (emission
//! on every shape, three-way lockstep, proptest with shrinking, planted
//! mutants, the command line), instantiated by one line, plus PACER's own
//! checks: hand-written bugs of the read-modify-write's forwarding, which
//! random stimulus must catch.

mod common;

use ccrtl_golden::pacer::{PacerConfig, PacerIn, PacerParams, PacerShape};
use ccrtl_sim::block::Block;
use ccrtl_sim::pacer::PacerBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

// The conformance suite, split by cost (as RP's): the checks that build
// one or two Verilator models run in `make test`; the planted mutants (a
// model each), every shape for longer, and the netlists run in `make
// test-deep`, which keeps CI under its 30 minutes.
mod conformance {
    use super::*;
    use crate::common::conformance as c;

    #[test]
    fn every_shape_emits_lints_and_has_the_struct_ports() {
        c::every_shape_emits_lints_and_has_the_struct_ports::<PacerBlock>();
    }
    #[test]
    fn golden_encoding_fits_the_struct_ports_on_every_shape() {
        c::golden_encoding_fits_the_struct_ports_on_every_shape::<PacerBlock>();
    }
    #[test]
    fn rotating_shapes_with_random_reset_values_match_golden() {
        c::rotating_shapes_with_random_reset_values_match_golden::<PacerBlock>(2, 1_000_000);
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn every_shape_with_random_reset_values_matches_golden_deep() {
        c::rotating_shapes_with_random_reset_values_match_golden::<PacerBlock>(
            <PacerBlock as Block>::menu().len(),
            2_000_000,
        );
    }
    #[test]
    fn golden_rusthdl_and_verilator_agree_cycle_by_cycle() {
        c::golden_rusthdl_and_verilator_agree::<PacerBlock>(30_000, true);
    }
    #[test]
    fn a_mismatch_is_reported_with_its_vcd() {
        c::a_mismatch_is_reported_with_its_vcd::<PacerBlock>();
    }
    #[test]
    fn proptest_golden_and_verilator_are_equivalent() {
        c::proptest_golden_and_verilator_are_equivalent::<PacerBlock>(300);
    }
    #[test]
    fn proptest_shrinks_a_planted_bug_to_a_short_trace_with_its_vcd() {
        c::proptest_shrinks_a_planted_bug::<PacerBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (a Verilator model per mutant)"]
    fn planted_mutants_sample_is_caught() {
        c::planted_mutants_sample_is_caught::<PacerBlock>(25, 500_000);
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn every_planted_mutant_is_caught_or_shown_equivalent() {
        c::every_planted_mutant_is_caught_or_shown_equivalent::<PacerBlock>(1_000_000);
    }
    #[test]
    fn verify_cli_exit_status() {
        c::verify_cli_exit_status::<PacerBlock>();
    }
    #[test]
    fn bad_parameters_are_refused_by_name() {
        c::bad_parameters_are_refused_by_name::<PacerBlock>();
    }
    #[test]
    fn listed_deletions_leave_no_signal_undriven() {
        c::listed_deletions_leave_no_signal_undriven::<PacerBlock>();
    }
    #[test]
    fn replay_engines_agree() {
        c::replay_engines_agree::<PacerBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (three netlists)"]
    fn netlists_of_every_target_match_golden() {
        c::netlists_match_golden::<PacerBlock>(&c::GateTarget::ALL, 20_000);
    }
}

/// 16 flows, a refresh every 4 cycles (every flow every 64): the clearing
/// takes 16 cycles and short traces see every flow refreshed.
fn small(bucket: u32, byte_time: u32, init_rate: u32) -> PacerConfig {
    PacerConfig {
        shape: PacerShape {
            flow_bits: 4,
            refresh_bits: 2,
        },
        reset: PacerParams {
            bucket,
            byte_time,
            init_rate,
        },
    }
}

impl BlockTests for PacerBlock {
    /// Reset, then 40 to 400 cycles: requests in most cycles, of four flows
    /// most often (back-to-back requests of one flow are the rule), for 0
    /// to 8 bytes mostly, so that with a bucket of 6 bytes and rates of 0
    /// to 3 the buckets run dry and refill across every forwarding
    /// distance; rate updates one cycle in four; a register write one
    /// cycle in 24; a reset one cycle in 300.
    fn traces(config: &PacerConfig) -> BoxedStrategy<Vec<PacerIn>> {
        let mask = config.shape.flows() - 1;
        let flow = prop_oneof![4 => 0u32..4, 1 => 0..=mask];
        let bytes = prop_oneof![6 => 0u32..9, 1 => 0u32..65_536];
        let rate = prop_oneof![6 => 0u32..4, 1 => 0u32..(1 << 19)];
        let cfg = (
            0u8..24,
            0u32..4,
            prop_oneof![3 => 0u32..8, 1 => any::<u32>()],
        );
        let cycle = (
            0u16..300,
            0u8..8,
            flow.clone(),
            bytes,
            (0u8..4, flow, rate),
            cfg,
        );
        prop::collection::vec(cycle, 40..400)
            .prop_map(|cycles| {
                let mut trace = vec![PacerIn {
                    rst: true,
                    ..PacerIn::default()
                }];
                for (r, req, flow, bytes, (rv, rflow, rc), (w, addr, data)) in cycles {
                    trace.push(PacerIn {
                        rst: r == 0,
                        req_valid: req != 0,
                        req_flow: flow,
                        req_bytes: bytes,
                        rate_valid: rv == 0,
                        rate_flow: rflow,
                        rate_rc: rc,
                        cfg_valid: w == 0,
                        cfg_addr: addr,
                        cfg_data: data,
                    });
                }
                trace
            })
            .boxed()
    }

    /// A 6-byte bucket, one token a byte, 1 Mb/s until a rate update: a
    /// flow earns a byte a cycle, so back-to-back requests of a few bytes
    /// meet the grant's compare on its edge.
    fn proptest_config() -> PacerConfig {
        small(6, 1, 1)
    }

    /// Reset values far from the defaults: a reset that restores another
    /// value shows on the first requests after the clearing.
    /// `init_rate` 0: a flow the reset does not clear keeps its old bucket
    /// (it earns nothing until a rate update), so the first request after
    /// the clearing shows it.
    fn mutation_config() -> PacerConfig {
        small(5, 3, 0)
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_PACER;

    /// The touch one ahead is taken for two ahead: its tokens are read from
    /// the record of two cycles ago.
    fn planted_bug(verilog: &str) -> String {
        let from = "        p7_d1$d = p6_hit$q & (p6_d$q == 32'h1);";
        assert!(verilog.contains(from), "the planted bug's line is gone");
        verilog.replace(from, "        p7_d1$d = 1'b0;")
    }

    /// Reset, the clearing's 16 cycles, two requests of one flow, the 16
    /// cycles to their decisions: about 35 cycles at the least.
    const SHRUNK_MAX: usize = 60;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[pacer]\nflow_bits = 5\n", "`flow_bits`"),
            ("[pacer]\nrefresh_bits = 3\n", "`refresh_bits`"),
            ("[pacer.reset]\nbucket = 131072\n", "`bucket`"),
            ("[pacer.reset]\nbyte_time = 16384\n", "`byte_time`"),
            ("[pacer.reset]\ninit_rate = 524288\n", "`init_rate`"),
            ("[pacer]\nflows = 16\n", "unknown field `flows`"),
            ("[pacer]\nflow_bits = -3\n", "line 2"),
        ]
    }
}

/// Hand-written bugs of the forwarding, each caught by the default
/// stimulus within 1e6 cycles on the short configuration.
#[test]
fn hand_written_forwarding_bugs_are_caught() {
    let c = PacerBlock::short_config();
    let bugs: &[(&str, &str, &str)] = &[
        (
            "the rate update of the cycle before (it collides with the read) not forwarded",
            "        p1_fr$d = rw_valid$q & (rw_flow$q == flow0);",
            "        p1_fr$d = 1'b0;",
        ),
        (
            "the rate word's valid bit ignored (init_rate for every flow)",
            "        if (rate$read_data_a[32'h13]) begin",
            "        if (1'b0) begin",
        ),
        (
            "the touch 16 ahead (its write collides with the read) not forwarded",
            "((((w2_valid$q & (w2_flow$q == p1_flow$q))) & 16'hffff) << 32'hf)",
            "16'h0",
        ),
        (
            "the touch 15 ahead (written the cycle of the read) not forwarded",
            "((((w1_valid$q & (w1_flow$q == p1_flow$q))) & 16'hffff) << 32'he)",
            "16'h0",
        ),
        (
            "back to back: the tokens of the loop of two cycles ago",
            "        x1 = w1$q;",
            "        x1 = w2$q;",
        ),
        (
            "two ahead: the record of one cycle too old",
            "            x2 = w1$q;",
            "            x2 = w2$q;",
        ),
        (
            "back to back: the bucket not capped at its depth",
            "        p15_bmc$d = p14_bma$q[(32'h0)+:(31)];",
            "        p15_bmc$d = 31'h7fffffff;",
        ),
        (
            "R x age not saturated (wraps at 2^32)",
            "            p12_a$d = sat;",
            "            p12_a$d = afull[(32'h0)+:(32)];",
        ),
        (
            "the age one cycle short (the stamp's offset)",
            "        p6_age$d = now$q - stm$read_data_a + ten;",
            "        p6_age$d = now$q - stm$read_data_a + ten - 15'h1;",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<PacerBlock>(&c, bugs, 1_000_000);
}

const fn eq(change: &'static str, original: &'static str, reason: &'static str) -> Equivalent {
    eq_in("ccrtl_pacer", change, original, reason)
}

const TIME_RELATIVE: &str = "only differences of `now` are read (a stamp against `now`), and \
     every stamp read after a reset was written after it; a cleared flow's stamp is never read \
     into a result (its 2^31 - 1 tokens cap at the depth whatever it earned)";
const CLEARED_STAMP: &str = "a cleared flow's stamp is never read into a result: its tokens \
     (2^31 - 1) cap at the depth whatever the age";
const PRODUCT_BITS: &str = "PACER's products are below 2^44 (26 x 17, 16 x 17, 17 x 17 bits, \
     and R x age < 2^45 after the high rows): bit 47 of a 48-bit product or partial sum is 0";

/// Mutants of PACER that no stimulus can tell apart from the original, each
/// with its reason.
const EQUIVALENT_PACER: &[Equivalent] = &[
    eq("reset-not-cleared now$d", "now$d = 32'h0;", TIME_RELATIVE),
    eq("32'h0 -> 32'h1", "now$d = 32'h0;", TIME_RELATIVE),
    eq(
        "reset-not-cleared stm$write_address",
        "stm$write_address = 32'h0;",
        CLEARED_STAMP,
    ),
    eq_in(
        "ccrtl_pacer__ma*",
        "width-truncated * [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq_in(
        "ccrtl_pacer__mb*",
        "width-truncated * [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq_in(
        "ccrtl_pacer__ml*",
        "width-truncated * [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq(
        "width-truncated ccrtl_pacer.ma$p [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq(
        "width-truncated ccrtl_pacer.mb$p [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq(
        "width-truncated ccrtl_pacer.ml$p [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
    eq(
        "width-truncated ccrtl_pacer.afull [47:0] -> [46:0]",
        "",
        PRODUCT_BITS,
    ),
];

/// The lockstep refuses an input value wider than its port (it would reach
/// the Verilator model unmasked while the golden model masks it): the bug
/// PACER's first stimulus had, a register address of 32 on a 5-bit port.
#[test]
fn a_stimulus_value_wider_than_its_port_stops_the_run() {
    use ccrtl_sim::lockstep::{run_with, RunOptions};
    let c = PacerBlock::short_config();
    let mut stimulus = |_: &ccrtl_golden::pacer::Pacer, i: &mut PacerIn| {
        i.cfg_valid = true;
        i.cfg_addr = 32;
    };
    let err = run_with::<PacerBlock, _>(&c, &mut stimulus, &mut [], &RunOptions::new(10))
        .expect_err("a value of 32 on the 5-bit s_cfg_addr must stop the run");
    let text = err.to_string();
    assert!(
        text.contains("`s_cfg_addr` (5 bits)")
            && text.contains("drove 32")
            && text.contains("cycle 0"),
        "{text}"
    );
    // The same stimulus within the port's width runs.
    let mut fits = |_: &ccrtl_golden::pacer::Pacer, i: &mut PacerIn| {
        i.cfg_valid = true;
        i.cfg_addr = 31;
    };
    run_with::<PacerBlock, _>(&c, &mut fits, &mut [], &RunOptions::new(10)).unwrap();
}
