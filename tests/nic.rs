//! NIC across crates: the conformance suite every block passes, plus the
//! nic's own checks: hand-written bugs of its glue that random stimulus
//! must catch, the register map page generated from its one source, the
//! FuseSoC core file, and no combinational loop in the flattened design.

mod common;

use ccrtl_golden::nic::{regmap_markdown, NicConfig, NicShape};
use ccrtl_sim::block::Block;
use ccrtl_sim::nic::{NicBlock, NicPortsIn};
use common::conformance::{BlockTests, Equivalent};
use proptest::prelude::*;

// The conformance suite, split by cost as RP's and PACER's: the checks
// that build one or two Verilator models run in `make test`; the planted
// mutants, every shape for longer and the netlists in `make test-deep`.
mod conformance {
    use super::*;
    use crate::common::conformance as c;

    #[test]
    fn every_shape_emits_lints_and_has_the_struct_ports() {
        c::every_shape_emits_lints_and_has_the_struct_ports::<NicBlock>();
    }
    #[test]
    fn golden_encoding_fits_the_struct_ports_on_every_shape() {
        c::golden_encoding_fits_the_struct_ports_on_every_shape::<NicBlock>();
    }
    #[test]
    fn rotating_shapes_with_random_reset_values_match_golden() {
        // One shape a run (the shape rotates with the run's seed); every
        // shape in the deep tier.
        c::rotating_shapes_with_random_reset_values_match_golden::<NicBlock>(1, 1_000_000);
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn every_shape_with_random_reset_values_matches_golden_deep() {
        c::rotating_shapes_with_random_reset_values_match_golden::<NicBlock>(
            <NicBlock as Block>::menu().len() * 2,
            3_000_000,
        );
    }
    /// 1,300 cycles: rust-hdl simulates the whole nic at about 15 cycles a
    /// second with the hdl crate at opt-level 0 (Cargo.toml; rp's clearing
    /// takes the first 1,024; the golden-Verilator lockstep of the rotating
    /// shape runs a million). The deep tier runs longer.
    #[test]
    fn golden_rusthdl_and_verilator_agree_cycle_by_cycle() {
        c::golden_rusthdl_and_verilator_agree::<NicBlock>(1_300, false);
    }
    #[test]
    #[ignore = "deep tier: make test-deep"]
    fn golden_rusthdl_and_verilator_agree_cycle_by_cycle_deep() {
        c::golden_rusthdl_and_verilator_agree::<NicBlock>(20_000, true);
    }
    #[test]
    fn a_mismatch_is_reported_with_its_vcd() {
        c::a_mismatch_is_reported_with_its_vcd::<NicBlock>();
    }
    #[test]
    fn proptest_golden_and_verilator_are_equivalent() {
        c::proptest_golden_and_verilator_are_equivalent::<NicBlock>(200);
    }
    #[test]
    fn proptest_shrinks_a_planted_bug_to_a_short_trace_with_its_vcd() {
        c::proptest_shrinks_a_planted_bug::<NicBlock>();
    }
    #[test]
    #[ignore = "deep tier: make test-deep (a Verilator model per mutant)"]
    fn planted_mutants_sample_is_caught() {
        c::planted_mutants_sample_is_caught::<NicBlock>(25, 500_000);
    }
    #[test]
    fn verify_cli_exit_status() {
        c::verify_cli_exit_status::<NicBlock>();
    }
    #[test]
    fn bad_parameters_are_refused_by_name() {
        c::bad_parameters_are_refused_by_name::<NicBlock>();
    }
    #[test]
    fn listed_deletions_leave_no_signal_undriven() {
        c::listed_deletions_leave_no_signal_undriven::<NicBlock>();
    }
    #[test]
    fn replay_engines_agree() {
        c::replay_engines_agree::<NicBlock>();
    }
}

/// The 16-flow shape with reset values far from the defaults.
fn small() -> NicConfig {
    let mut c = NicConfig::reset_for(NicShape { flow_bits: 4 }).unwrap();
    c.np.interval = 9;
    c.rp.r_min = 60_000;
    c.pacer.bucket = 5;
    c.pacer.byte_time = 3;
    c
}

impl BlockTests for NicBlock {
    /// Reset, then 40 to 400 cycles of raw port values: the streams'
    /// valids and readies at random, `tdata` over a few flows, AXI4-Lite
    /// writes and reads of the map's offsets (and a few others) with
    /// random strobes, a reset one cycle in 300. rp clears for 1,024
    /// cycles after a reset, so these traces exercise the register file,
    /// the counters' clears and the CNP FIFO's reset; the streams' paths
    /// are the random runs' (`ccrtl verify nic`).
    fn traces(_config: &NicConfig) -> BoxedStrategy<Vec<NicPortsIn>> {
        let offset = prop_oneof![
            4 => prop::sample::select(vec![
                0x000u32, 0x004, 0x008, 0x010, 0x014, 0x018, 0x01c, 0x100, 0x200, 0x210,
                0x244, 0x300, 0x304, 0x308,
            ]),
            1 => 0u32..0x1000,
        ];
        let cycle = (
            0u16..300,
            (any::<bool>(), 0u64..128, any::<bool>(), any::<u64>()),
            (0u8..4, offset.clone(), 0u8..4, any::<u32>(), 0u8..16),
            (0u8..3, 0u8..3, offset, 0u8..3),
        );
        prop::collection::vec(cycle, 40..400)
            .prop_map(|cycles| {
                let mut trace = vec![NicPortsIn {
                    rst: true,
                    ..NicPortsIn::default()
                }];
                for (r, (rxv, rxd, txv, txd), (aw, awaddr, w, wdata, wstrb), (b, ar, araddr, rr)) in
                    cycles
                {
                    trace.push(NicPortsIn {
                        rst: r == 0,
                        rx_tvalid: rxv,
                        rx_tdata: rxd,
                        tx_tvalid: txv,
                        tx_tdata: txd & 0xf_ffff,
                        req_tvalid: rxv && txv,
                        req_tdata: txd >> 44,
                        cnp_tready: r % 3 != 0,
                        awvalid: aw == 0,
                        awaddr,
                        wvalid: w == 0,
                        wdata,
                        wstrb,
                        bready: b != 0,
                        arvalid: ar == 0,
                        araddr,
                        rready: rr != 0,
                    });
                }
                trace
            })
            .boxed()
    }

    fn proptest_config() -> NicConfig {
        small()
    }

    fn mutation_config() -> NicConfig {
        small()
    }

    const EQUIVALENT: &'static [Equivalent] = &[];

    /// The write strobes ignored: every write takes all of `wdata`.
    fn planted_bug(verilog: &str) -> String {
        let from = "            wr_val$d = (wr_cur & ~smask) | (w_d & smask);";
        assert!(verilog.contains(from), "the planted bug's line is gone");
        verilog.replace(from, "            wr_val$d = w_d;")
    }

    /// Reset, a write with partial strobes (address and data, then the
    /// write made), two cycles to the copy, a read and its data: about ten
    /// cycles; the shrinker stops at a local minimum of about 40 (from
    /// traces of up to 400).
    const SHRUNK_MAX: usize = 60;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[nic]\nflow_bits = 8\n", "`flow_bits`"),
            ("[nic.np.reset]\ninterval = 70000\n", "`interval`"),
            ("[nic.pacer.reset]\ninit_rate = 524288\n", "`init_rate`"),
            ("[nic]\nflows = 16\n", "unknown field `flows`"),
            ("[nic.rp]\nflow_bits = 4\n", "unknown key `flow_bits`"),
            ("[nic.rp.reset]\nprofile = \"fast\"\n", "`profile`"),
            ("[nic]\nflow_bits = -3\n", "line 2"),
        ]
    }
}

/// Hand-written bugs of the glue, each caught by the default stimulus
/// within 1e6 cycles on the short configuration (seed 1: at cycles
/// 133,204, 1,171, 4,816, 91,616 and 1,387). Deep tier: a Verilator model
/// of the nic per bug.
#[test]
#[ignore = "deep tier: make test-deep (a Verilator model of the nic per bug)"]
fn hand_written_glue_bugs_are_caught() {
    let c = NicBlock::short_config();
    let bugs: &[(&str, &str, &str)] = &[
        (
            "the r_min bit table's clearing skips flow 0 (a reset cycle writes the pointer's flow)",
            "            tbl$write_address = 32'h0;",
            "            tbl$write_address = tptr$q;",
        ),
        (
            "a bytes event that loses rp's slot to a CNP is dropped, not held",
            "                skid_full$d = 1'b1;",
            "                skid_full$d = skid_full$q;",
        ),
        (
            "a beat at exactly r_min not counted (< for <=)",
            "        tb$0$d = ((rp$m_rate_rc) & 32'hffffffff) <= copy$5$q;",
            "        tb$0$d = ((rp$m_rate_rc) & 32'hffffffff) < copy$5$q;",
        ),
        (
            "a counter's clear loses the event of its cycle",
            "            cnt_cut$d = (((rp$m_rate_valid & rp$m_rate_cut)) & 32'hffffffff);",
            "            cnt_cut$d = 32'h0;",
        ),
        (
            "the CNP FIFO takes a request when full even if nothing leaves",
            "        store = cnp_v & ((fifo_count$q < fifo_cap) | pop);",
            "        store = cnp_v & ((fifo_count$q <= fifo_cap) | pop);",
        ),
    ];
    common::conformance::hand_written_bugs_are_caught::<NicBlock>(&c, bugs, 1_000_000);
}

/// docs/nic.md holds the register map of the default configuration as
/// `ccrtl regmap nic` writes it from the one source, and the check fails
/// on a page that differs.
#[test]
fn the_register_map_page_is_the_generated_one() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/nic.md")).unwrap();
    let table = regmap_markdown(&NicConfig::default()).unwrap();
    assert!(
        page.contains(&table),
        "docs/nic.md does not hold the generated map; run `ccrtl regmap nic`:\n{table}"
    );
    let out = common::ccrtl(&["regmap", "nic"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), table);
    // A changed reset value changes the table, so a stale page is seen.
    let mut c = NicConfig::default();
    c.pacer.bucket += 1;
    assert!(!page.contains(&regmap_markdown(&c).unwrap()));
}

/// `ccrtl emit nic` writes a FuseSoC core beside the Verilog, naming the
/// file and the top module.
#[test]
fn emit_writes_a_fusesoc_core_naming_the_file() {
    let dir = common::tmp_dir("nic-core");
    let out = common::ccrtl(&["emit", "nic", "--out", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let core = std::fs::read_to_string(dir.join("ccrtl_nic.core")).unwrap();
    assert!(core.starts_with("CAPI=2:\n"), "{core}");
    assert!(core.contains("      - ccrtl_nic.v\n"), "{core}");
    assert!(core.contains("    toplevel: ccrtl_nic\n"), "{core}");
    assert!(dir.join("ccrtl_nic.v").exists());
}

/// The flattened design has no combinational loop (the Verilator waiver
/// of UNOPTFLAT on rp's event valid is a false loop at the granularity of
/// rust-hdl's always blocks), and the check sees a real one.
#[test]
fn the_flattened_nic_has_no_combinational_loop() {
    let dir = common::tmp_dir("nic-loop");
    let text = NicBlock::verilog(&NicBlock::short_config());
    let path = dir.join("ccrtl_nic.v");
    std::fs::write(&path, &text).unwrap();
    let script = |p: &std::path::Path| {
        format!(
            "read_verilog {}; hierarchy -check -top ccrtl_nic; proc; flatten; opt_clean; check -assert",
            p.display()
        )
    };
    common::yosys_ok(&script(&path));
    // A real loop: the skid's ready read back into rp's event valid.
    let from = "        tx_ready = rp$s_evt_ready & ~skid_full$q;";
    assert_eq!(text.matches(from).count(), 1);
    let looped = dir.join("looped.v");
    std::fs::write(
        &looped,
        text.replace(
            from,
            "        tx_ready = rp$s_evt_ready & ~skid_full$q & ~rp$s_evt_valid;",
        ),
    )
    .unwrap();
    assert!(!common::yosys(&script(&looped)).status.success());
}
