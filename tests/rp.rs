//! RP across crates: the conformance suite every block passes (emission on
//! every shape, three-way lockstep, proptest with shrinking, planted
//! mutants, the command line), instantiated by one line.

mod common;

use ccrtl_golden::rp::{kind, RpConfig, RpIn, RpParams, RpShape, RTL_STEPS};
use ccrtl_sim::rp::RpBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
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
        // HDL_CYCLES, as the docs of RpBlock's BlockTests say (30,000 in
        // both configurations took 267 s of the CI of 2026-12-03).
        c::golden_rusthdl_and_verilator_agree::<RpBlock>(
            <RpBlock as c::BlockTests>::HDL_CYCLES,
            false,
        );
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn golden_rusthdl_and_verilator_agree_cycle_by_cycle_deep() {
        c::golden_rusthdl_and_verilator_agree::<RpBlock>(c::HDL_CYCLES_DEEP, true);
    }
    #[test]
    fn bad_parameters_are_refused_by_name() {
        c::bad_parameters_are_refused_by_name::<RpBlock>();
    }
    #[test]
    fn listed_deletions_leave_no_signal_undriven() {
        c::listed_deletions_leave_no_signal_undriven::<RpBlock>();
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
        c::netlists_match_golden::<RpBlock>(&c::GateTarget::ALL, 20_000);
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
    /// The clearing takes the first 1,024 cycles; rust-hdl simulates RP at
    /// about 20 cycles a second (hdl at opt-level 0: 4,000 cycles took
    /// 250 s of CPU), so the fast tier sees the clearing and 276 cycles of
    /// events per configuration, the deep tier 30,000 cycles.
    const HDL_CYCLES: u64 = 1_300;

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
    /// a first-CNP rate), so that a reset restoring another constant shows:
    /// 13 flows in use of 16 (with all 16, a reset restoring any larger
    /// count would look the same), an alpha period of 3 ticks (with 1, the
    /// tick count within the period is 0 after every tick, so a reset that
    /// left it as it was, or a read of it one cycle late, could not show).
    fn mutation_config() -> RpConfig {
        let mut c = small();
        let mut r = RpParams::nvidia(40_000.0, 10, 13);
        r.t_inc = 5;
        r.alpha_period = 3;
        r.dec_shift = 1;
        r.byte_counter = 100_000;
        r.first_cnp_rate = 30_000;
        r.max_dec = 1_000;
        c.reset = r;
        c
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_RP;

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

/// Why the waiting write's flag needs no reset.
const STALE_AT_RESET: &str = "`stale` (a written register waits) is read only by `take` and \
     `can`; a reset that leaves it set makes the block busy from the next cycle, in which `can` \
     is low and `take` only loads the engine's copies `e_*`, which busy loads anyway; after \
     the last reset cycle nothing is in flight and `wrote` is clear (the reset cleared both), \
     and `wrote2` is clear from the second cycle, so `take` clears it within two cycles, still \
     busy, and its next value is then the same as without it";
/// Why the engine's copies of the registers may be read one cycle late.
const ENGINE_COPY_LATE: &str = "the engine's copy `e_*` changes only in the cycle after a load \
     (busy: every visit was killed and none starts; or `take`: no visit started in the last 63 \
     cycles, and older ones have left `RpVisit`); a visit started in the load's cycle or later \
     enters `RpVisit` five cycles after it, and `RpVisit` reads its registers at stage 0 or \
     later (through its derived registers no earlier than their latency): no visit reads the \
     copy in the one cycle where the late copy differs";
/// Why decay 2's partial sum of rows 12 to 15 loses nothing without its top bit.
const MD2_ROWS_12_15: &str = "decay 2's multiply is an 18-bit power Q(k) times the 14-bit alpha \
     (b's bits 14 to 16 are 0), so s2_3 = (b[12] + 2 b[13]) a <= 3 (2^18 - 1) < 2^20 after the \
     first cycles from power-up: bit 47 is always 0";

/// Mutants of RP that no stimulus can tell apart from the original (found
/// by the planted-mutant tests; each one's reason).
const EQUIVALENT_RP: &[Equivalent] = &[
    eq(
        "reset-not-cleared stale$d",
        "stale$d = 1'b0;",
        STALE_AT_RESET,
    ),
    eq(
        "load-late e_profile$q -> e_profile__late",
        "visit$profile = e_profile$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_line_rate$q -> e_line_rate__late",
        "visit$line_rate = e_line_rate$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_r_min$q -> e_r_min__late",
        "visit$r_min = e_r_min$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_r_ai$q -> e_r_ai__late",
        "visit$r_ai = e_r_ai$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_r_hai$q -> e_r_hai__late",
        "visit$r_hai = e_r_hai$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_first_cnp_rate$q -> e_first_cnp_rate__late",
        "visit$first_cnp_rate = e_first_cnp_rate$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_alpha_init$q -> e_alpha_init__late",
        "visit$alpha_init = e_alpha_init$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_alpha_period$q -> e_alpha_period__late",
        "visit$alpha_period = e_alpha_period$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_dec_shift$q -> e_dec_shift__late",
        "visit$dec_shift = e_dec_shift$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_t_inc$q -> e_t_inc__late",
        "visit$t_inc = e_t_inc$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_bc_on$q -> e_bc_on__late",
        "visit$byte_counter_on = e_bc_on$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_f$q -> e_f__late",
        "visit$f = e_f$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_gd$q -> e_gd__late",
        "visit$gd = e_gd$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_max_dec$q -> e_max_dec__late",
        "visit$max_dec = e_max_dec$q;",
        ENGINE_COPY_LATE,
    ),
    eq(
        "load-late e_clamp$q -> e_clamp__late",
        "visit$clamp_tgt_rate = e_clamp$q[32'h0];",
        ENGINE_COPY_LATE,
    ),
    eq_in(
        "ccrtl_rp__visit__md2",
        "width-truncated ccrtl_rp__visit__md2.s2_3$d [47:0] -> [46:0]",
        "reg  [47:0] s2_3$d;",
        MD2_ROWS_12_15,
    ),
];

const fn eq(change: &'static str, original: &'static str, reason: &'static str) -> Equivalent {
    eq_in("ccrtl_rp", change, original, reason)
}

/// Planted mutants that survived 500,000 cycles of an earlier stimulus,
/// each a real bug in a corner it did not reach (or a reset value of the
/// mutation configuration that hid it), found by their module, change and
/// line: each must be caught. The corners are aimed at in `RpStimulus`
/// (the reconfiguration after a reset, the tick of one cycle) and in
/// `mutation_config`.
#[test]
#[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
fn mutants_that_found_stimulus_gaps_are_caught() {
    use ccrtl_sim::block::Block;
    let c = RpBlock::mutation_config();
    let good = RpBlock::verilog(&c);
    let all = ccrtl_sim::mutate::mutants(&good, &ccrtl_hdl::emit::top_module("rp"));
    let gaps: &[(&str, &str, &str, &str)] = &[
        (
            "a reset restores flows_in_use from the wrong constant (hidden while the reset \
             value was every flow)",
            "ccrtl_rp",
            "reset-constant reset_flows_in_use -> clear_cycles",
            "fiu_next = reset_flows_in_use;",
        ),
        (
            "the alpha period's tick count read one cycle late (shows only with a tick \
             every cycle)",
            "ccrtl_rp",
            "load-late ap_pre$q -> ap_pre__late",
            "ap_pre$d = ap_pre$q + 32'h1;",
        ),
        (
            "the alpha period's tick count not cleared by reset (hidden while the reset \
             value of alpha_period was 1)",
            "ccrtl_rp",
            "reset-not-cleared ap_pre$d",
            "ap_pre$d = 32'h0;",
        ),
        (
            "the delay line of Rc before the visit one bit short (shows only with rates \
             of 2^18 Mb/s and up)",
            "ccrtl_rp__visit",
            "width-truncated ccrtl_rp__visit.c_rcb$10$d [18:0] -> [17:0]",
            "reg  [18:0] c_rcb$10$d;",
        ),
        (
            "paper's hyper-increase step with 16 to 48 R_HAI too many (paper was rarely the \
             profile)",
            "ccrtl_rp__visit",
            "== -> !=",
            "if (ua_i$2$q[(32'h4)+:(2)] == 32'h3) begin",
        ),
        (
            "the decrease tick's multiply reads bit 5 of alpha_period for row 4 (shows only \
             with alpha periods of 16 ticks and more in nvidia/ns3)",
            "ccrtl_rp__visit__mb",
            "32'h4 -> 32'h5",
            "if (b[32'h4]) begin",
        ),
    ];
    for (what, module, change, original) in gaps {
        let m: Vec<_> = all
            .iter()
            .filter(|m| m.module == *module && m.change == *change && m.original == *original)
            .collect();
        assert_eq!(m.len(), 1, "{what}: the mutant is not found once");
        let r = common::conformance::verilator_run::<RpBlock>(&c, &m[0].text, 1, 500_000);
        assert!(r.mismatches > 0, "{what}: not caught in 5e5 cycles");
        eprintln!("{what}: caught at cycle {}", r.first[0].cycle);
    }
}

/// The capture's fold (resolved a cycle ahead into one-hot masks), the
/// visit's changed flag (registered apart from the rate word) and the
/// output's registered kill, each planted wrong: each must be caught by the
/// default stimulus.
#[test]
#[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
fn planted_bugs_in_the_fold_and_the_output_are_caught() {
    let c = RpBlock::mutation_config();
    let bugs: &[(&str, &str, &str)] = &[
        (
            "the pending flags of a capture taken over a newer visit of its flow",
            "        if (h3_w$2 & ~nw_all$2) begin",
            "        if (h3_w$2 & ~nw_cap$2) begin",
        ),
        (
            "the capture of n - 3 compared with the flow of n - 4",
            "e3_w$1$d = q2_flow$q == q5_flow$q;",
            "e3_w$1$d = q2_flow$q == w_flow$0$q;",
        ),
        (
            "the visit of n - 2 left out of the hits newer than the capture of n - 3",
            "nw_all$1 = nw_all$0 | h3_w$0 | h3_v$1;",
            "nw_all$1 = nw_all$0 | h3_w$0;",
        ),
        (
            "the oldest visit left out of the fold's hit",
            "f4_hit$d = nw_all$4 | h3_w$4 | h3_v$5;",
            "f4_hit$d = nw_all$4 | h3_w$4;",
        ),
        (
            "a capture's hit read with the valid of the record a cycle older",
            "h3_w$2 = e3_w$2$q & w_valid$1$q;",
            "h3_w$2 = e3_w$2$q & w_valid$2$q;",
        ),
        (
            "the visit of the event's own cycle compared with the one before",
            "m4_con$d = q3_flow$q == v_flow$2$q;",
            "m4_con$d = q3_flow$q == v_flow$3$q;",
        ),
        (
            "a rate of a flow not limited reported as changed",
            "s33_chg$d = c_fw$11$q[32'ha] & (s32_rcf$q != c_rcb$19$q);",
            "s33_chg$d = (s32_rcf$q != c_rcb$19$q);",
        ),
        (
            "the cut flag merged a cycle early",
            "s33_cut$d = c_cut$27$q;",
            "s33_cut$d = c_cut$26$q;",
        ),
        (
            "a rate update the cycle after a reset or a forgetting write not cut",
            "o2_valid$d = o1_valid$q & ~kill & ~kill_q$q;",
            "o2_valid$d = o1_valid$q & ~kill;",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<RpBlock>(&c, bugs, 1_000_000);
}

/// The rate stream's cut flag (`m_rate_cut`), planted wrong three ways in
/// the visit: each must be caught by the default stimulus.
#[test]
#[ignore = "deep tier: make test-deep (RP's Verilator builds)"]
fn planted_bugs_in_the_cut_flag_are_caught() {
    let c = RpBlock::mutation_config();
    let bugs: &[(&str, &str, &str)] = &[
        (
            "nvidia/ns3: a first CNP that sets first_cnp_rate is not flagged as a cut",
            "c_cut$0$d = c_split$0$q | (c_first$2$q & (first_cnp_rate != 32'h0));",
            "c_cut$0$d = c_split$0$q;",
        ),
        (
            "paper: the cut flag taken from the decrease tick's split instead of the CNP",
            "            c_cut$0$d = c_cnp$3$q;",
            "            c_cut$0$d = c_split$0$q;",
        ),
        (
            "the flag read from the bit below it in the delay line (Rc's top bit)",
            "out_cut = c_rw$24$q[32'h27] & c_v$56$q;",
            "out_cut = c_rw$24$q[32'h26] & c_v$56$q;",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<RpBlock>(&c, bugs, 500_000);
}
