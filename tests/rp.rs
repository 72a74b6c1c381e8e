//! RP across crates: the conformance suite every block passes (emission on
//! every shape, three-way lockstep, proptest with shrinking, planted
//! mutants, the command line), instantiated by one line.

mod common;

use ccrtl_golden::rp::{kind, RpConfig, RpIn, RpParams, RpShape, RTL_STEPS};
use ccrtl_sim::rp::RpBlock;
use common::conformance::{BlockTests, Equivalent};
use proptest::prelude::*;

// The conformance suite, split by cost. RP's model is large (the visit's
// 57-stage pipeline): one Verilator build of it takes minutes on the CI's
// two cores, and the whole suite builds a few dozen (every shape, every
// netlist target, every planted mutant), so only the checks that build one
// model run in `make test`; the rest are in the deep tier (`make
// test-deep`).
mod conformance {
    use super::*;
    use crate::common::conformance as c;

    #[test]
    fn golden_encoding_fits_the_struct_ports_on_every_shape() {
        c::golden_encoding_fits_the_struct_ports_on_every_shape::<RpBlock>();
    }
    #[test]
    fn golden_rusthdl_and_verilator_agree_cycle_by_cycle() {
        c::golden_rusthdl_and_verilator_agree::<RpBlock>(30_000);
    }
    #[test]
    fn bad_parameters_are_refused_by_name() {
        c::bad_parameters_are_refused_by_name::<RpBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn every_shape_emits_lints_and_has_the_struct_ports() {
        c::every_shape_emits_lints_and_has_the_struct_ports::<RpBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn every_shape_with_random_reset_values_matches_golden() {
        // 3,000,000 cycles: the 17-bit shapes spend 131,072 cycles busy
        // after each reset or forgetting write, and their points need a
        // few of each.
        c::rotating_shapes_with_random_reset_values_match_golden::<RpBlock>(
            <RpBlock as ccrtl_sim::block::Block>::menu().len(),
            3_000_000,
        );
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn a_mismatch_is_reported_with_its_vcd() {
        c::a_mismatch_is_reported_with_its_vcd::<RpBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn proptest_golden_and_verilator_are_equivalent() {
        c::proptest_golden_and_verilator_are_equivalent::<RpBlock>(300);
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn proptest_shrinks_a_planted_bug_to_a_short_trace_with_its_vcd() {
        c::proptest_shrinks_a_planted_bug::<RpBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn planted_mutants_sample_is_caught() {
        c::planted_mutants_sample_is_caught::<RpBlock>(25, 500_000);
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn every_planted_mutant_is_caught_or_shown_equivalent() {
        c::every_planted_mutant_is_caught_or_shown_equivalent::<RpBlock>(1_000_000);
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn verify_cli_exit_status() {
        c::verify_cli_exit_status::<RpBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn replay_engines_agree() {
        c::replay_engines_agree::<RpBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
    fn netlists_of_every_target_match_golden() {
        c::netlists_match_golden::<RpBlock>(20_000);
    }
}

/// 16 flows, stamps of 8 bits, a FIFO of 4: the clearing (and the power
/// table's fill) takes 1,024 cycles; paper at 40 Gb/s, a tick of 10
/// cycles, both timers 3 ticks (the shortest the loader takes for 16 flows
/// in use), a byte counter of 100,000 bytes: cuts, increases, alpha decays
/// and byte-counter events within a few hundred cycles of traffic.
fn small() -> RpConfig {
    let shape = RpShape {
        flow_bits: 4,
        stamp_bits: 8,
        fifo_bits: 2,
        steps: RTL_STEPS,
    };
    let mut reset = RpParams::paper(40_000.0, 10, 16);
    reset.t_inc = 3;
    reset.alpha_period = 3;
    reset.byte_counter = 100_000;
    RpConfig { shape, reset }
}

impl BlockTests for RpBlock {
    /// Reset, then 1,100 to 1,800 cycles (the clearing takes the first
    /// 1,024): events in most cycles, of four flows most often (so
    /// back-to-back events of one flow are common), CNPs one in four, byte
    /// counts large half the time; a register write one cycle in 64 (any
    /// address and value: writes of `profile` and `g` forget every flow); a
    /// reset one cycle in 2,000.
    fn traces(config: &RpConfig) -> BoxedStrategy<Vec<RpIn>> {
        let mask = config.shape.flows() - 1;
        let flow = prop_oneof![4 => 0u32..4, 1 => 0..=mask];
        let bytes = prop_oneof![1 => 40_000u32..65_536, 1 => 0u32..65_536];
        let cfg = (0u8..64, 0u32..20, any::<u32>());
        let cycle = (0u16..2000, 0u8..8, flow, bytes, cfg);
        prop::collection::vec(cycle, 1_100..1_800)
            .prop_map(|cycles| {
                let mut trace = vec![RpIn {
                    rst: true,
                    ..RpIn::default()
                }];
                for (r, ev, flow, bytes, (w, addr, data)) in cycles {
                    trace.push(RpIn {
                        rst: r == 0,
                        evt_valid: ev != 0,
                        evt_kind: if ev == 1 { kind::CNP } else { kind::BYTES },
                        evt_flow: flow,
                        evt_bytes: bytes,
                        cfg_valid: w == 0,
                        cfg_addr: addr,
                        cfg_data: data,
                    });
                }
                trace
            })
            .boxed()
    }

    fn proptest_config() -> RpConfig {
        small()
    }

    /// Reset values far from the defaults (nvidia with its byte counter and
    /// a first-CNP rate), so that a reset restoring another constant shows.
    fn mutation_config() -> RpConfig {
        let mut c = small();
        let mut r = RpParams::nvidia(40_000.0, 10, 16);
        r.t_inc = 5;
        r.alpha_period = 1;
        r.dec_shift = 1;
        r.byte_counter = 100_000;
        r.first_cnp_rate = 30_000;
        r.max_dec = 1_000;
        c.reset = r;
        c
    }

    const EQUIVALENT: &'static [Equivalent] = &[];

    /// The visit of the event's own cycle does not clear the pending flags
    /// the capture sees: an event of the flow the engine visits in the same
    /// cycle is taken as merged, and its flow is not queued.
    fn planted_bug(verilog: &str) -> String {
        let from = "        q5_con$d = v_valid$3$q & (v_flow$3$q == q4_flow$q);";
        assert!(verilog.contains(from), "the planted bug's line is gone");
        verilog.replace(from, "        q5_con$d = 1'b0;")
    }

    /// Reset, the clearing's 1,024 cycles, a CNP, its visit and the
    /// 64 cycles to its output: about 1,100 cycles at the least.
    const SHRUNK_MAX: usize = 1_250;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[rp]\nflow_bits = 5\n", "`flow_bits`"),
            ("[rp]\nflow_bits = 4\nstamp_bits = 10\n", "`stamp_bits`"),
            ("[rp]\nflow_bits = 4\nstamp_bits = 8\nfifo_bits = 3\n", "`fifo_bits`"),
            ("[rp]\nstamp_bits = 13\n", "`stamp_bits`"),
            ("[rp]\nflow_bits = 4\nstamp_bits = 8\nfifo_bits = 2\n[rp.reset]\nt_inc = 1\ntick_cycles = 1\n", "`t_inc`"),
            ("[rp.reset]\nprofile = \"dctcp\"\n", "`profile`"),
            ("[rp.reset]\nt_inc = 0\n", "`t_inc`"),
            ("[rp.reset]\nline_rate = 600000\n", "`line_rate`"),
            ("[rp.reset]\nr_min = 200000\n", "`r_min`"),
            ("[rp.reset]\nbyte_counter = 1000\n", "`byte_counter`"),
            ("[rp.reset]\nflows = 16\n", "unknown field `flows`"),
            ("[rp]\nfifo_bits = -3\n", "line 2"),
        ]
    }
}
