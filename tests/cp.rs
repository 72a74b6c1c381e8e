//! CP across crates: the emitted Verilog against the golden model under
//! Verilator, the rust-hdl simulation as third leg, property-based
//! equivalence with shrinking, planted bugs, the command line.

mod common;

use std::path::PathBuf;

use ccrtl_golden::cp::{CpConfig, CpIn, CpParams, CpShape, PMAX_ONE};
use ccrtl_sim::block::{Block, Stimulus};
use ccrtl_sim::cp::{random_params, CpBlock, CpStimulus};
use ccrtl_sim::lockstep::{self, Dut, HdlDut, RunOptions, VerilatorDut};
use ccrtl_sim::mutate;
use ccrtl_sim::rng::Rng;
use common::{ccrtl, model, tmp_dir, verilator_lint, yosys, yosys_ok};
use proptest::prelude::*;
use proptest::test_runner::{
    Config as PtConfig, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner,
};

fn config(depth_bits: u32, len_bits: u32) -> CpConfig {
    let shape = CpShape {
        depth_bits,
        len_bits,
    };
    CpConfig {
        shape,
        reset: CpParams::reset_for(&shape),
    }
}

/// Shapes checked in the test suite: default, smallest, widest, and one
/// with the packet length as wide as the depth.
fn shapes() -> Vec<CpConfig> {
    vec![
        config(24, 14),
        config(16, 12),
        config(28, 16),
        config(16, 16),
    ]
}

fn verilator_run(c: &CpConfig, verilog: &str, seed: u64, cycles: u64) -> lockstep::Report {
    let m = model::<CpBlock>(c, verilog);
    let mut dut = VerilatorDut::new(&m, &CpBlock::ports(c));
    lockstep::run::<CpBlock>(c, seed, &mut [&mut dut], &RunOptions::new(cycles)).unwrap()
}

#[test]
fn verilator_matches_golden_on_every_shape_with_every_corner_hit() {
    for (k, c) in shapes().iter().enumerate() {
        let r = verilator_run(c, &CpBlock::verilog(c), 100 + k as u64, 400_000);
        assert_eq!(r.mismatches, 0, "{:?}: {:?}", c.shape, r.first);
        assert_eq!(r.cycles, 400_000);
        assert!(
            r.coverage.missed().is_empty(),
            "{:?}: stimulus missed {:?}",
            c.shape,
            r.coverage.missed()
        );
    }
}

#[test]
fn golden_rusthdl_and_verilator_agree_cycle_by_cycle() {
    for (k, c) in shapes().iter().enumerate() {
        let m = model::<CpBlock>(c, &CpBlock::verilog(c));
        let mut vl = VerilatorDut::new(&m, &CpBlock::ports(c));
        let mut hdl = HdlDut::<CpBlock>(ccrtl_hdl::sim::cp_sim(c).unwrap());
        let duts: &mut [&mut dyn Dut<CpBlock>] = &mut [&mut hdl, &mut vl];
        let r = lockstep::run::<CpBlock>(c, 7 + k as u64, duts, &RunOptions::new(30_000)).unwrap();
        assert_eq!(r.mismatches, 0, "{:?}: {:?}", c.shape, r.first);
        assert_eq!(r.cycles, 30_000);
    }
}

#[test]
fn lockstep_reports_the_first_mismatch_and_writes_its_vcd() {
    let c = CpConfig::default();
    let good = CpBlock::verilog(&c);
    // Planted bug: WRED drops only above kdrop instead of at it.
    let bad = good.replacen("(depth$q >= kdrop$q)", "(depth$q > kdrop$q)", 1);
    assert_ne!(good, bad);
    let m = model::<CpBlock>(&c, &bad);
    let mut dut = VerilatorDut::new(&m, &CpBlock::ports(&c));
    let vcd = tmp_dir("lockstep-vcd").join("m.vcd");
    let mut opts = RunOptions::new(1_000_000);
    opts.mismatch_vcd = Some(vcd.clone());
    let r = lockstep::run::<CpBlock>(&c, 1, &mut [&mut dut], &opts).unwrap();
    assert!(r.mismatches > 0);
    let first = &r.first[0];
    assert!(
        r.cycles <= first.cycle + 1 + opts.after,
        "run stops shortly after"
    );
    assert_ne!(first.expected, first.actual);
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(text.contains("$var wire 1 ") && text.contains(" mismatch $end"));
    assert!(text.contains("$scope module expected $end"));
    assert!(text.contains("$scope module actual $end"));
    // The window holds the cycles before the mismatch and after it.
    let stamps: Vec<u64> = text
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|t| t.parse().unwrap())
        .collect();
    assert!(*stamps.first().unwrap() <= (first.cycle - 60) * 10);
    assert!(*stamps.last().unwrap() >= (first.cycle + opts.after) * 10);
}

// ---- property-based equivalence -----------------------------------------

/// A short trace of valid inputs: reset, then random cycles, with parameter
/// loads drawn from a seed so every load is a valid set.
fn trace_strategy(shape: CpShape) -> impl Strategy<Value = Vec<CpIn>> {
    let len_max = shape.len_max();
    let cycle = (
        any::<bool>(),
        0..=len_max,
        0u8..4,
        any::<bool>(),
        0..=len_max,
        0u8..16,
        any::<u64>(),
    );
    prop::collection::vec(cycle, 1..400).prop_map(move |cycles| {
        let mut trace = vec![CpIn {
            rst: true,
            ..CpIn::default()
        }];
        for (enq, elen, ecn, deq, dlen, cfg, seed) in cycles {
            let mut i = CpIn {
                enq_valid: enq,
                enq_len: elen,
                enq_ecn: ecn,
                deq_valid: deq,
                deq_len: dlen,
                ..CpIn::default()
            };
            if cfg == 0 {
                // Small buffers often, so the thresholds are reached.
                let mut r = Rng::new(seed);
                let mut p = random_params(&mut r, &shape);
                if seed % 2 == 0 {
                    p.buf_max = p.buf_max.min(3 * len_max);
                    p.kmin = p.kmin.min(p.buf_max);
                    p.kmax = p.kmax.min(p.buf_max).max(p.kmin);
                    p.kdrop = p.kdrop.min(p.buf_max);
                }
                assert!(p.validate(&shape).is_ok());
                i.cfg_valid = true;
                i.cfg = p.into();
            }
            trace.push(i);
        }
        trace
    })
}

/// Runs `trace` on golden and `verilog`; on a mismatch writes `vcd` (the
/// last failing case proptest tries is the shrunk one, so the file left is
/// the minimal trace) and fails the case.
fn equivalent(
    c: &CpConfig,
    m: &ccrtl_sim::verilator::Model,
    trace: &[CpIn],
    vcd: &PathBuf,
) -> Result<(), TestCaseError> {
    let mut dut = VerilatorDut::new(m, &CpBlock::ports(c));
    let mut k = 0;
    let mut next = |_: &ccrtl_golden::cp::Cp| {
        let i = trace[k.min(trace.len() - 1)];
        k += 1;
        i
    };
    let mut opts = RunOptions::new(trace.len() as u64);
    opts.full_vcd = Some(vcd.clone());
    opts.after = 0;
    let r = lockstep::run_with::<CpBlock>(c, &mut next, &mut [&mut dut], &opts).unwrap();
    if r.mismatches == 0 {
        let _ = std::fs::remove_file(vcd);
        Ok(())
    } else {
        Err(TestCaseError::fail(format!("{}", r.first[0])))
    }
}

fn config_for(cases: u32) -> PtConfig {
    PtConfig {
        cases,
        failure_persistence: None,
        ..PtConfig::default()
    }
}

/// A runner with a fresh random seed each run: over many CI runs it
/// explores more traces.
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(config_for(cases))
}

#[test]
fn proptest_golden_and_verilator_are_equivalent() {
    let c = config(16, 12);
    let m = model::<CpBlock>(&c, &CpBlock::verilog(&c));
    let vcd = tmp_dir("proptest-cp").join("failing-trace.vcd");
    let result = runner(300).run(&trace_strategy(c.shape), |t| equivalent(&c, &m, &t, &vcd));
    if let Err(e) = result {
        panic!("{e}\nminimal failing trace: {}", vcd.display());
    }
}

#[test]
fn proptest_shrinks_a_planted_bug_to_a_short_trace_with_its_vcd() {
    let c = config(16, 12);
    // Planted bug: the tail-drop test forgets the packet's own length.
    let bad = CpBlock::verilog(&c).replacen(
        "(sum > ((buf_max$q) & 32'hffffffff))",
        "(q32 > ((buf_max$q) & 32'hffffffff))",
        1,
    );
    assert_ne!(bad, CpBlock::verilog(&c));
    let m = model::<CpBlock>(&c, &bad);
    let vcd = tmp_dir("proptest-cp-planted").join("failing-trace.vcd");
    // A fixed seed: how far shrinking gets depends on the case it starts from.
    let mut runner = TestRunner::new_with_rng(
        config_for(500),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let result = runner.run(&trace_strategy(c.shape), |t| equivalent(&c, &m, &t, &vcd));
    match result {
        Err(TestError::Fail(_, trace)) => {
            // The least a failure needs: reset, a parameter load with a
            // small buffer, the overflowing enqueue, one cycle to see the
            // depth. Shrinking gets near that from traces of up to 400
            // cycles (a parameter set comes from a seed, which shrinks
            // less well than plain values).
            assert!(trace.len() <= 12, "not shrunk: {} cycles", trace.len());
            let text = std::fs::read_to_string(&vcd).expect("VCD of the failing trace");
            assert!(text.starts_with("$timescale"));
        }
        other => panic!("the planted bug was not found: {other:?}"),
    }
}

// ---- planted bugs -----------------------------------------------------------

/// Mutants that no stimulus can tell apart from the original, each with the
/// reason. Matched on the changed line's original text and the change.
const EQUIVALENT: &[(&str, &str, &str)] = &[(
    "s1_ge_kmin$d = depth$q >= kmin$q;",
    ">= -> >",
    "differs only at q == kmin, where the ramp's right side (q - kmin) * pmax \
     is 0, so no draw marks; and when also q >= kmax the mark comes from \
     s1_ge_kmax alone",
)];

#[test]
fn every_planted_mutant_is_caught_or_shown_equivalent() {
    // Reset values with a marking ramp and a small buffer, so that a bug in
    // restoring them after reset shows before the next parameter load.
    let mut c = CpConfig::default();
    c.reset = CpParams {
        kmin: 3_000,
        kmax: 40_000,
        pmax: 21_000,
        kdrop: 30_000,
        buf_max: 60_000,
        seed: 0x1234_5678,
    };
    let good = CpBlock::verilog(&c);
    let mutants = mutate::mutants(&good, "ccrtl_cp");
    assert!(mutants.len() > 50, "only {} mutants", mutants.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let survivors = std::sync::Mutex::new(vec![]);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(m) = mutants.get(k) else { break };
                let r = verilator_run(&c, &m.text, 1, 1_000_000);
                if r.mismatches == 0 {
                    survivors.lock().unwrap().push(m.clone());
                }
            });
        }
    });
    let survivors = survivors.into_inner().unwrap();
    let unexplained: Vec<String> = survivors
        .iter()
        .filter(|m| {
            !EQUIVALENT
                .iter()
                .any(|(orig, change, _)| m.original == *orig && m.change == *change)
        })
        .map(|m| format!("{} `{}`", m.id(), m.original))
        .collect();
    eprintln!(
        "mutants: {} planted, {} caught, {} survived ({} shown equivalent)",
        mutants.len(),
        mutants.len() - survivors.len(),
        survivors.len(),
        survivors.len() - unexplained.len()
    );
    assert!(
        unexplained.is_empty(),
        "surviving mutants:\n{}",
        unexplained.join("\n")
    );
}

// ---- emitted files ----------------------------------------------------------

#[test]
fn emitted_verilog_passes_verilator_wall_and_yosys_without_latches() {
    let dir = tmp_dir("lint");
    for c in shapes() {
        let text = CpBlock::verilog(&c);
        let path = dir.join(format!(
            "ccrtl_cp_{}_{}.v",
            c.shape.depth_bits, c.shape.len_bits
        ));
        std::fs::write(&path, &text).unwrap();
        let lint = verilator_lint(&path, "ccrtl_cp");
        assert!(
            lint.status.success(),
            "{}",
            String::from_utf8_lossy(&lint.stderr)
        );
        // The check itself can fail: without the waivers it does.
        let bare_path = dir.join("bare.v");
        std::fs::write(&bare_path, text.replace("lint_off", "lint_on")).unwrap();
        assert!(!verilator_lint(&bare_path, "ccrtl_cp").status.success());

        let no_latch = |p: &std::path::Path| {
            format!(
                "read_verilog {}; hierarchy -check -top ccrtl_cp; proc; \
                 select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
                p.display()
            )
        };
        yosys_ok(&no_latch(&path));
        // The latch check can fail too: without its default assignment the
        // underflow flag's next value is a latch.
        let latch_path = dir.join("latch.v");
        let latch = text.replacen("underflow$d = underflow$q;", "", 1);
        assert_ne!(latch, text);
        std::fs::write(&latch_path, latch).unwrap();
        assert!(!yosys(&no_latch(&latch_path)).status.success());
    }
}

#[test]
fn emitted_modules_are_all_prefixed_and_coexist_with_other_files() {
    let text = CpBlock::verilog(&CpConfig::default());
    let modules: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .map(|l| l.split('(').next().unwrap())
        .collect();
    assert!(modules.len() > 10);
    for m in &modules {
        assert!(m.starts_with("ccrtl_cp"), "module `{m}` is not prefixed");
        assert!(!m.contains('$'), "module `{m}`");
    }
    // A user design with rust-hdl's default names reads in beside it.
    let dir = tmp_dir("coexist");
    std::fs::write(dir.join("ccrtl_cp.v"), &text).unwrap();
    std::fs::write(
        dir.join("user.v"),
        "module top(input clk, output q); assign q = clk; endmodule\n\
         module top$depth(input d, output q); assign q = d; endmodule\n",
    )
    .unwrap();
    yosys_ok(&format!(
        "read_verilog {0}/ccrtl_cp.v {0}/user.v; hierarchy -check -top ccrtl_cp",
        dir.display()
    ));
}

#[test]
fn header_states_block_parameters_version_and_revision() {
    let mut c = CpConfig::default();
    c.reset.kmin = 1234;
    c.reset.kmax = 5678;
    let text = CpBlock::verilog(&c);
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//")).collect();
    let h = header.join("\n");
    assert!(h.contains("Block `cp`"));
    assert!(h.contains("depth_bits    = 24"));
    assert!(h.contains("reset.kmin    = 1234"));
    assert!(h.contains("reset.kmax    = 5678"));
    assert!(h.contains(&format!("ccrtl {}", env!("CARGO_PKG_VERSION"))));
    assert!(h.contains("(git "));
}

// ---- command line -----------------------------------------------------------

#[test]
fn verify_cli_passes_good_verilog_and_prints_json() {
    let out = ccrtl(&[
        "verify", "cp", "--cycles", "200000", "--seed", "5", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["block"], "cp");
    assert_eq!(v[0]["cycles"], 200000);
    assert_eq!(v[0]["mismatches"], 0);
    assert!(v[0]["cycles_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn verify_cli_fails_on_a_planted_bug_naming_cycle_and_signal() {
    let dir = tmp_dir("cli-mutant");
    let bad =
        CpBlock::verilog(&CpConfig::default()).replacen("o_ecn$d = 32'h3;", "o_ecn$d = 32'h2;", 1);
    let f = dir.join("bad.v");
    std::fs::write(&f, bad).unwrap();
    let vcd = dir.join("mismatch.vcd");
    let out = ccrtl(&[
        "verify",
        "cp",
        "--cycles",
        "1000000",
        "--verilog",
        f.to_str().unwrap(),
        "--mismatch-vcd",
        vcd.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("signal `m_dec_ecn` expected 0x3 actual 0x2"),
        "{err}"
    );
    assert!(err.contains("cycle "));
    assert!(vcd.exists());
}

#[test]
fn verify_cli_names_a_port_of_the_wrong_width() {
    let dir = tmp_dir("cli-ports");
    let bad = CpBlock::verilog(&CpConfig::default()).replacen(
        "input wire  [13:0] s_enq_len;",
        "input wire  [15:0] s_enq_len;",
        1,
    );
    let f = dir.join("ports.v");
    std::fs::write(&f, bad).unwrap();
    let out = ccrtl(&[
        "verify",
        "cp",
        "--cycles",
        "10",
        "--verilog",
        f.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("port `s_enq_len` is 16 bits wide, expected 14"),
        "{err}"
    );
}

/// `ccrtl emit all` with a params file holding `toml`; returns the command's
/// output and the directory it was asked to write.
fn emit_with_params(name: &str, toml: &str) -> (std::process::Output, PathBuf) {
    let dir = tmp_dir(name);
    let params = dir.join("p.toml");
    std::fs::write(&params, toml).unwrap();
    let out_dir = dir.join("out");
    let out = ccrtl(&[
        "emit",
        "all",
        "--out",
        out_dir.to_str().unwrap(),
        "--params",
        params.to_str().unwrap(),
    ]);
    (out, out_dir)
}

#[test]
fn emit_refuses_bad_parameters_by_name_and_writes_nothing() {
    let cases = [
        (
            "[cp.reset]\nkmin = 500\nkmax = 400\nbuf_max = 1000\nkdrop = 10\n",
            "`kmin`",
        ),
        ("[cp.reset]\npmax = 1.5\n", "`pmax`"),
        (
            "[cp.reset]\nkdrop = 2000\nbuf_max = 1000\nkmin = 1\nkmax = 2\n",
            "`kdrop`",
        ),
        (
            "[cp]\ndepth_bits = 16\n[cp.reset]\nbuf_max = 70000\n",
            "`buf_max`",
        ),
        ("[cp]\ndepth_bits = 22\n", "`depth_bits`"),
        ("[cp]\nlen_bits = 18\n", "`len_bits`"),
        (
            "[cp]\ndepth_bits = 16\nlen_bits = 16\n[cp.reset]\nkmin = 70000\n",
            "`kmin`",
        ),
        ("[cp]\ndepth = 16\n", "unknown field `depth`"),
        ("[cp]\ndepth_bits = -3\n", "line 2"),
    ];
    for (k, (toml, expect)) in cases.iter().enumerate() {
        let (out, out_dir) = emit_with_params(&format!("bad-params-{k}"), toml);
        assert_eq!(out.status.code(), Some(2), "case {k}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expect), "case {k}: {err}");
        assert!(!out_dir.exists(), "case {k}: something was written");
    }
}

#[test]
fn emit_writes_one_file_per_block_with_the_params_file_applied() {
    let (out, out_dir) = emit_with_params(
        "emit-good",
        "[cp]\ndepth_bits = 20\nlen_bits = 12\n[cp.reset]\nkmin = 100\nkmax = 900\npmax = 0.25\nkdrop = 500\nbuf_max = 1000\nseed = 9\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        files,
        vec![std::ffi::OsString::from("ccrtl_cp.v")],
        "no temporary left"
    );
    let text = std::fs::read_to_string(out_dir.join("ccrtl_cp.v")).unwrap();
    assert!(text.contains("input wire  [19:0] s_cfg_kmin;"));
    assert!(text.contains("reset.pmax    = 16384 (Q1.16, = 0.25)"));
}

#[test]
fn replay_gives_the_same_outputs_on_golden_and_verilator() {
    let dir = tmp_dir("replay");
    let c = CpConfig::default();
    let ports = CpBlock::ports(&c);
    let mut stim = CpStimulus::new(&c, 11);
    let mut g = CpBlock::golden(&c);
    let ins: Vec<_> = ports
        .iter()
        .filter(|p| p.dir == ccrtl_sim::ports::Dir::In)
        .collect();
    let mut csv = ins.iter().map(|p| p.name).collect::<Vec<_>>().join(",");
    csv.push('\n');
    let mut marks = 0;
    for _ in 0..5000 {
        let i = stim.next(&g);
        let o = CpBlock::golden_step(&mut g, &i);
        marks += (o.dec_action == 1) as u32;
        let mut v = vec![0u128; ins.len()];
        CpBlock::encode_in(&i, &mut v);
        csv.push_str(
            &v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(","),
        );
        csv.push('\n');
    }
    assert!(marks > 0, "the trace should exercise marking");
    let stim_path = dir.join("in.csv");
    std::fs::write(&stim_path, csv).unwrap();
    let run = |engine: &str| {
        let out = dir.join(format!("{engine}.csv"));
        let o = ccrtl(&[
            "replay",
            "cp",
            "--stimulus",
            stim_path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--engine",
            engine,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let golden = run("golden");
    let verilator = run("verilator");
    assert_eq!(golden.lines().count(), 5001);
    assert!(golden.starts_with("cycle,m_dec_valid,m_dec_action,m_dec_ecn,q_depth,err_underflow\n"));
    assert_eq!(golden, verilator);
}

#[test]
fn replay_names_line_and_column_of_malformed_input() {
    let dir = tmp_dir("replay-bad");
    let stim = dir.join("in.csv");
    std::fs::write(&stim, "rst,s_enq_valid,s_enq_len\n1,0,0\n0,1,99999\n").unwrap();
    let out = dir.join("out.csv");
    let o = ccrtl(&[
        "replay",
        "cp",
        "--stimulus",
        stim.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("in.csv:3:3: 99999 does not fit port `s_enq_len` (14 bits, max 16383)"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn step_marking_marks_every_ect_packet_at_k_in_the_verilog() {
    // DCTCP step marking through the whole flow: golden and Verilator both
    // mark an ECT packet exactly when the depth is at or above K.
    let c = CpConfig::default();
    let k = 3000;
    let mut trace = vec![CpIn {
        rst: true,
        ..CpIn::default()
    }];
    trace.push(CpIn {
        cfg_valid: true,
        cfg: CpParams {
            kmin: k,
            kmax: k,
            pmax: PMAX_ONE,
            kdrop: 100_000,
            buf_max: 200_000,
            seed: 5,
        }
        .into(),
        ..CpIn::default()
    });
    for _ in 0..4 {
        trace.push(CpIn {
            enq_valid: true,
            enq_len: 1000,
            enq_ecn: 2,
            ..CpIn::default()
        });
    }
    trace.extend(std::iter::repeat_n(CpIn::default(), 4));
    let m = model::<CpBlock>(&c, &CpBlock::verilog(&c));
    let mut dut = VerilatorDut::new(&m, &CpBlock::ports(&c));
    let mut actions = vec![];
    for i in &trace {
        let mut v = vec![0u128; 13];
        CpBlock::encode_in(i, &mut v);
        let mut o = vec![0u128; 5];
        dut.cycle_values(&v, &mut o);
        if o[0] == 1 {
            actions.push(o[1]);
        }
    }
    // Depths seen: 0, 1000, 2000 (below K: admit), 3000 (at K: mark).
    assert_eq!(actions, vec![0, 0, 0, 1]);
}

#[test]
fn replay_example_in_the_docs_is_what_both_engines_print() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/replay.md")).unwrap();
    let stim = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/examples/cp-step.csv");
    let dir = tmp_dir("replay-doc");
    for engine in ["golden", "verilator"] {
        let out = dir.join(format!("{engine}.csv"));
        let o = ccrtl(&[
            "replay",
            "cp",
            "--stimulus",
            stim,
            "--out",
            out.to_str().unwrap(),
            "--engine",
            engine,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            doc.contains(&text),
            "docs/replay.md does not show what {engine} prints:\n{text}"
        );
    }
}

#[test]
fn emit_into_an_unusable_directory_fails_cleanly() {
    let dir = tmp_dir("emit-blocked");
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, "a file where the output directory should be").unwrap();
    let out = ccrtl(&["emit", "all", "--out", blocker.join("v").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not-a-dir/v"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("not-a-dir")]);
}
