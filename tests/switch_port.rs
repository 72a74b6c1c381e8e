//! SWITCH_PORT across crates: the conformance suite, split by cost as
//! NIC's (the composed port is the largest design: its Verilator model
//! takes the longest to build and rust-hdl simulates it slowly), with the
//! mutants planted in the glue only (each block's own suite plants its
//! own).

mod common;

use ccrtl_golden::switch_port::{SwitchPortConfig, SwitchPortIn, SwitchPortShape};
use ccrtl_sim::block::Block;
use ccrtl_sim::switch_port::SwitchPortBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

mod conformance {
    use super::*;
    use crate::common::conformance as c;

    #[test]
    fn every_shape_emits_lints_and_has_the_struct_ports() {
        c::every_shape_emits_lints_and_has_the_struct_ports::<SwitchPortBlock>();
    }
    #[test]
    fn golden_encoding_fits_the_struct_ports_on_every_shape() {
        c::golden_encoding_fits_the_struct_ports_on_every_shape::<SwitchPortBlock>();
    }
    #[test]
    fn rotating_shapes_with_random_reset_values_match_golden() {
        c::rotating_shapes_with_random_reset_values_match_golden::<SwitchPortBlock>(1, 1_000_000);
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn every_shape_with_random_reset_values_matches_golden_deep() {
        c::rotating_shapes_with_random_reset_values_match_golden::<SwitchPortBlock>(
            <SwitchPortBlock as Block>::menu().len() * 2,
            2_000_000,
        );
    }
    /// 1,500 cycles: rust-hdl simulates the whole port at about 40 cycles
    /// a second.
    #[test]
    fn golden_rusthdl_and_verilator_agree_cycle_by_cycle() {
        c::golden_rusthdl_and_verilator_agree::<SwitchPortBlock>(1_500, false);
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn golden_rusthdl_and_verilator_agree_cycle_by_cycle_deep() {
        c::golden_rusthdl_and_verilator_agree::<SwitchPortBlock>(c::HDL_CYCLES_DEEP, true);
    }
    #[test]
    fn a_mismatch_is_reported_with_its_vcd() {
        c::a_mismatch_is_reported_with_its_vcd::<SwitchPortBlock>();
    }
    #[test]
    fn proptest_golden_and_verilator_are_equivalent() {
        c::proptest_golden_and_verilator_are_equivalent::<SwitchPortBlock>(150);
    }
    #[test]
    fn proptest_shrinks_a_planted_bug_to_a_short_trace_with_its_vcd() {
        c::proptest_shrinks_a_planted_bug::<SwitchPortBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (a Verilator model of the whole port per mutant)"]
    fn planted_mutants_sample_is_caught() {
        c::planted_mutants_sample_is_caught::<SwitchPortBlock>(10, 500_000);
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn every_planted_mutant_is_caught_or_shown_equivalent() {
        c::every_planted_mutant_is_caught_or_shown_equivalent::<SwitchPortBlock>(1_000_000);
    }
    #[test]
    fn verify_cli_exit_status() {
        c::verify_cli_exit_status::<SwitchPortBlock>();
    }
    #[test]
    fn bad_parameters_are_refused_by_name() {
        c::bad_parameters_are_refused_by_name::<SwitchPortBlock>();
    }
    #[test]
    fn listed_deletions_leave_no_signal_undriven() {
        c::listed_deletions_leave_no_signal_undriven::<SwitchPortBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn replay_engines_agree() {
        c::replay_engines_agree::<SwitchPortBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn netlists_of_every_target_match_golden_deep() {
        c::netlists_match_golden::<SwitchPortBlock>(&c::GateTarget::ALL, 100_000);
    }
}

/// The small CAM, every arrival sampled (`S = 1`), crd sampling every 16
/// cycles with `qeq` at 2 KiB, windows of 3,000 bytes: hits, degrees and
/// window mode come within a short trace.
fn small() -> SwitchPortConfig {
    let mut c = SwitchPortConfig::reset_for(SwitchPortShape { cam_depth: 16 });
    c.cam.period = 1;
    c.crd.period = 16;
    c.crd.qeq = 2048;
    c.rcc.window = 3000;
    c.rcc.wc_min = 200;
    c.sar.mask = 0xff;
    c
}

impl BlockTests for SwitchPortBlock {
    /// rust-hdl simulates SWITCH_PORT at under a hundred cycles a second
    /// (hdl at opt-level 0).
    const HDL_CYCLES: u64 = 2_000;

    /// Reset, then 8 to 200 cycles: arrivals one cycle in two with one of
    /// four keys (or any), lengths 64, 1500 or any, ports 0 to 2 and
    /// groups 0 to 1; heads valid three times in four, the link ready one
    /// time in two; degree updates on the bus one cycle in four (0, 255 or
    /// any, ports 0 to 2); a neighbour's notification one cycle in eight;
    /// a register write to a random block one cycle in 40 (raw values);
    /// a reset one cycle in 150.
    fn traces(_config: &SwitchPortConfig) -> BoxedStrategy<Vec<SwitchPortIn>> {
        let keys = prop_oneof![4 => 0u128..4, 1 => any::<u128>()];
        let len = || prop_oneof![1 => Just(64u32), 1 => Just(1500u32), 1 => 0u32..16_384];
        let arrival = (0u8..2, keys, len(), 0u8..4, 0u32..3, 0u32..2);
        let heads = (0u8..4, len(), 0u8..4, len(), 0u8..2);
        let bus = (
            0u8..4,
            0u32..3,
            prop_oneof![Just(0u32), Just(255u32), 0u32..256],
            0u8..8,
            0u32..256,
        );
        let cfg = (0u8..40, 0u8..5, any::<u32>(), any::<u32>());
        let cycle = (0u16..150, arrival, heads, bus, cfg);
        prop::collection::vec(cycle, 8..200)
            .prop_map(|cycles| {
                let mut trace = vec![SwitchPortIn {
                    rst: true,
                    ..SwitchPortIn::default()
                }];
                for (r, (av, key, alen, ecn, port, group), (cv, c_len, nv, n_len, rd), bus, cfg) in
                    cycles
                {
                    let (dv, deg_port, deg, nf, cn_fb) = bus;
                    let (wv, blk, a, d) = cfg;
                    let mut i = SwitchPortIn {
                        rst: r == 0,
                        arr_valid: av == 0,
                        arr_key: key & ((1u128 << 104) - 1),
                        arr_len: alen,
                        arr_ecn: ecn,
                        arr_port: port,
                        arr_group: group,
                        c_valid: cv != 0,
                        c_len,
                        n_valid: nv != 0,
                        n_len,
                        out_ready: rd != 0,
                        deg_valid: dv == 0,
                        deg_port,
                        deg,
                        cn_valid: nf == 0,
                        cn_fb,
                        ..SwitchPortIn::default()
                    };
                    if wv == 0 {
                        match blk {
                            0 => {
                                i.cp_cfg_valid = true;
                                i.cp_cfg.kmin = a & 0xfffff;
                                i.cp_cfg.kmax = (a >> 8) & 0xfffff;
                                i.cp_cfg.pmax = d & 0x1ffff;
                                i.cp_cfg.kdrop = (d >> 4) & 0xfffff;
                                i.cp_cfg.buf_max = (a ^ d) & 0xfffff;
                                i.cp_cfg.seed = a.rotate_left(7);
                            }
                            1 => {
                                i.crd_cfg_valid = true;
                                i.crd_cfg_addr = a & 7;
                                i.crd_cfg_data = d & 0xff_ffff;
                            }
                            2 => {
                                i.cam_cfg_valid = true;
                                i.cam_cfg_period = d & 0xffff;
                            }
                            3 => {
                                i.rcc_cfg_valid = true;
                                i.rcc_cfg_addr = a & 3;
                                i.rcc_cfg_data = d & 0xff_ffff;
                            }
                            _ => {
                                i.sar_cfg_valid = true;
                                i.sar_cfg_addr = a & 15;
                                i.sar_cfg_data = d & 0xffff;
                            }
                        }
                    }
                    trace.push(i);
                }
                trace
            })
            .boxed()
    }

    fn proptest_config() -> SwitchPortConfig {
        small()
    }

    fn mutation_config() -> SwitchPortConfig {
        small()
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_SWITCH_PORT;

    /// A detoured arrival still enqueued at this port: cp's enqueue valid
    /// without the detour test.
    fn planted_bug(verilog: &str) -> String {
        let from = "        cp$s_enq_valid = sar$m_dec_valid & ~sar$m_dec_detour;";
        assert!(verilog.contains(from), "the planted bug's line is gone");
        verilog.replace(from, "        cp$s_enq_valid = sar$m_dec_valid;")
    }

    /// Reset, a degree update that makes a detour, the arrival and its 19
    /// cycles.
    const SHRUNK_MAX: usize = 40;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[switch_port]\ncam_depth = 32\n", "`cam_depth`"),
            ("[switch_port.cp]\ndepth_bits = 24\n", "`depth_bits`"),
            ("[switch_port.crd.reset]\nqeq = 2000000\n", "`qeq`"),
            ("[switch_port.sar.reset]\nmargin = 256\n", "`margin`"),
            ("[switch_port]\ncam_depths = 8\n", "`cam_depths`"),
            ("[switch_port]\ncam_depth = -3\n", "`cam_depth`"),
        ]
    }

    const MUTATE_TOP_ONLY: bool = true;
}

const FB_UNREAD: &str = "rcc_sched reads s_fb only with s_fb_valid (its contract: a payload \
     without its valid is ignored), and s_fb_valid is fb_q0: the default that zeroes s_fb \
     when fb_q0 is low (or, deleted, a latch of the last m_fb) never reaches rcc_sched's state";

const ONE_QUEUE: &str = "the port's cp has one queue and marks at enqueue: it ignores its \
     queue selects and the dequeue's ECN, which the glue ties to 0 (a 1, or no value, is not \
     looked at)";
const DATA_TOP_BIT: &str = "no register of this shape is that wide (sar: 8-port masks and an \
     8-bit margin; crd: 20-bit qeq; rcc_sched: 20-bit W); data bits above a register's width \
     are ignored (each block's register contract)";
const DEQ_ECN_UNREAD: &str = "cp's dequeue ECN output is not used by the port (waived: it \
     marks at enqueue)";

/// Mutants of the glue that no stimulus can tell apart from the original,
/// each with its reason (the full run: docs/switch_port.md, Status).
const EQUIVALENT_SWITCH_PORT: &[Equivalent] = &[
    eq_in(
        "ccrtl_switch_port",
        "32'h0 -> 32'h1",
        "rcc$s_fb = 32'h0;",
        FB_UNREAD,
    ),
    eq_in(
        "ccrtl_switch_port",
        "delete statement",
        "rcc$s_fb = 32'h0;",
        FB_UNREAD,
    ),
    eq_in(
        "ccrtl_switch_port",
        "32'h0 -> 32'h1",
        "cp$s_enq_queue = 32'h0;",
        ONE_QUEUE,
    ),
    eq_in(
        "ccrtl_switch_port",
        "32'h0 -> 32'h1",
        "cp$s_deq_ecn = 32'h0;",
        ONE_QUEUE,
    ),
    eq_in(
        "ccrtl_switch_port",
        "32'h0 -> 32'h1",
        "cp$s_deq_queue = 32'h0;",
        ONE_QUEUE,
    ),
    eq_in(
        "ccrtl_switch_port",
        "32'h0 -> 32'h1",
        "cp$s_cfg_queue = 32'h0;",
        ONE_QUEUE,
    ),
    eq_in(
        "ccrtl_switch_port",
        "32'h0 -> 32'h1",
        "cp$depth_sel = 32'h0;",
        ONE_QUEUE,
    ),
    eq_in(
        "ccrtl_switch_port",
        "width-truncated ccrtl_switch_port.sar$s_cfg_data [15:0] -> [14:0]",
        "reg  [15:0] sar$s_cfg_data;",
        DATA_TOP_BIT,
    ),
    eq_in(
        "ccrtl_switch_port",
        "width-truncated ccrtl_switch_port.crd$s_cfg_data [23:0] -> [22:0]",
        "reg  [23:0] crd$s_cfg_data;",
        DATA_TOP_BIT,
    ),
    eq_in(
        "ccrtl_switch_port",
        "width-truncated ccrtl_switch_port.rcc$s_cfg_data [23:0] -> [22:0]",
        "reg  [23:0] rcc$s_cfg_data;",
        DATA_TOP_BIT,
    ),
    eq_in(
        "ccrtl_switch_port",
        "width-truncated ccrtl_switch_port.cp$s_deq_ecn [1:0] -> [0:0]",
        "reg  [1:0] cp$s_deq_ecn;",
        ONE_QUEUE,
    ),
    eq_in(
        "ccrtl_switch_port",
        "width-truncated ccrtl_switch_port.cp$m_deq_ecn [1:0] -> [0:0]",
        "wire  [1:0] cp$m_deq_ecn;",
        DEQ_ECN_UNREAD,
    ),
];
