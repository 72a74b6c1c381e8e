//! The Verilator driver on its own: ports wider than 64 bits, and errors.

mod common;

use ccrtl_sim::lockstep::VerilatorDut;
use ccrtl_sim::ports::Port;
use ccrtl_sim::rng::Rng;
use ccrtl_sim::verilator::Model;
use common::{ccrtl, test_root, tmp_dir};

const WIDE: &str = "
module ccrtl_wide(input clk, input [103:0] a, input [39:0] b, input [7:0] c,
                  output reg [103:0] y, output reg [39:0] z, output reg [7:0] w);
  always @(posedge clk) begin
    y <= a + 104'd1;
    z <= b ^ {c, c, c, c, c};
    w <= ~c;
  end
endmodule
";

/// The Verilator model of `text` (top `top`, clock `clk`), named `shown`.
fn build(
    text: &str,
    shown: &str,
    top: &str,
    ports: &[Port],
) -> Result<Model, ccrtl_sim::verilator::VerilatorError> {
    Model::build(
        text,
        shown,
        top,
        "clk",
        ports,
        &test_root().join("verilator"),
    )
}

fn wide_ports() -> Vec<Port> {
    vec![
        Port::input("a", 104),
        Port::input("b", 40),
        Port::input("c", 8),
        Port::output("y", 104),
        Port::output("z", 40),
        Port::output("w", 8),
    ]
}

#[test]
fn ports_over_64_bits_cross_the_ffi_intact() {
    let ports = wide_ports();
    let m = build(WIDE, "wide.v", "ccrtl_wide", &ports).unwrap_or_else(|e| panic!("{e}"));
    let mut dut = VerilatorDut::new(&m, &ports, 1);
    let mut r = Rng::new(3);
    let mask104 = (1u128 << 104) - 1;
    let mut prev: Option<[u128; 3]> = None;
    for k in 0..10_000 {
        let a = match k % 4 {
            0 => mask104,           // carries through every word
            1 => (1u128 << 64) - 1, // carry from word 1 into word 2
            _ => ((r.next_u64() as u128) << 64 | r.next_u64() as u128) & mask104,
        };
        let b = r.next_u64() as u128 & ((1 << 40) - 1);
        let c = r.next_u32() as u128 & 0xff;
        let mut out = [0u128; 3];
        dut.cycle_values(&[a, b, c], &mut out).unwrap();
        if let Some([pa, pb, pc]) = prev {
            let c5 = pc | pc << 8 | pc << 16 | pc << 24 | pc << 32;
            assert_eq!(out, [(pa + 1) & mask104, pb ^ c5, !pc & 0xff], "cycle {k}");
        }
        prev = Some([a, b, c]);
    }
}

#[test]
fn a_verilog_error_is_reported_with_the_tool_output() {
    let broken = WIDE.replace("y <= a + 104'd1;", "y <= a +;");
    let e = build(&broken, "wide.v", "ccrtl_wide", &wide_ports())
        .err()
        .expect("a syntax error must fail the build");
    let msg = e.to_string();
    assert!(
        msg.contains("verilator") && msg.contains("syntax error"),
        "{msg}"
    );
    // The error names the user's file and line, not the build copy.
    let line = broken.lines().position(|l| l.contains("a +;")).unwrap() + 1;
    assert!(msg.contains(&format!("wide.v:{line}:")), "{msg}");
    assert!(!msg.contains("ccrtl_wide.v"), "{msg}");
}

/// A counter design that calls `what` when it reaches 100.
fn stopping(what: &str) -> String {
    format!(
        "module ccrtl_stop(input clk, input rst, output reg [7:0] n);
         always @(posedge clk) begin
           if (rst) n <= 0; else n <= n + 8'd1;
           if (!rst && n == 8'd100) {what};
         end
endmodule
"
    )
}

#[test]
fn finish_stop_fatal_and_assertions_stop_the_run_with_file_and_line() {
    let ports = vec![Port::input("rst", 1), Port::output("n", 8)];
    for (what, kind) in [
        ("$finish", "$finish"),
        ("$stop", "$stop"),
        ("$fatal(1, \"boom\")", "$"),
        ("assert (n != 8'd100)", "$"),
    ] {
        let text = stopping(what);
        let m = build(&text, "my/stop.v", "ccrtl_stop", &ports).unwrap_or_else(|e| panic!("{e}"));
        let mut inst = m.instantiate(5);
        // Batch of 300 cycles: reset in the first, then counting.
        let mut ins = vec![0u32; 300];
        ins[0] = 1;
        let mut outs = vec![0u32; 300];
        let (k, why) = inst.cycles(300, &ins, &mut outs).expect_err(what);
        // n == 100 is seen in cycle 101; the design stops at its edge.
        assert_eq!(k, 101, "{what}");
        assert!(why.kind.starts_with(kind), "{what}: {why}");
        let line = text.lines().position(|l| l.contains("8'd100)")).unwrap() + 1;
        assert!(
            why.message.starts_with(&format!("my/stop.v:{line}:")),
            "{what}: {why}"
        );
        assert!(!why.message.contains("ccrtl_stop.v"), "{what}: {why}");
        if what.starts_with("$fatal") {
            assert!(why.message.contains("boom"), "{why}");
        }
        // The instance stays stopped.
        assert!(inst.cycles(1, &ins[..1], &mut outs[..1]).is_err());
    }
}

#[test]
fn verify_writes_the_whole_run_as_vcd() {
    let dir = tmp_dir("verify-vcd");
    let vcd = dir.join("run.vcd");
    let out = ccrtl(&[
        "verify",
        "cp",
        "--cycles",
        "3000",
        "--seed",
        "2",
        "--allow-missed-coverage",
        "--vcd",
        vcd.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(text.starts_with("$timescale"));
    assert!(text.contains(" s_enq_len $end"));
    assert!(text.contains("\n#29990\n"), "every cycle is in the trace");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
}

/// Ctrl-C (SIGINT) in the middle of a run that writes a VCD, and in the
/// middle of a Verilator build, leaves no temporary file or directory and
/// no tool running: the command exits 130, the directories hold only
/// finished files, and no process names the run's directory.
#[test]
fn an_interrupted_run_leaves_no_temporaries() {
    use std::process::{Command, Stdio};
    for (k, wait_ms) in [(0, 300u64), (1, 2500), (2, 6000)] {
        let dir = tmp_dir(&format!("interrupt-{k}"));
        let build = dir.join("build");
        let vcd = dir.join("run.vcd");
        let child = Command::new(env!("CARGO_BIN_EXE_ccrtl"))
            .args(["verify", "cp", "--cycles", "100000000", "--vcd"])
            .arg(&vcd)
            .env("CCRTL_BUILD_DIR", &build)
            .env("CI", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
        let pid = child.id().to_string();
        assert!(Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut left = vec![];
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name.contains(".tmp") {
                    left.push(p.clone());
                }
                if p.is_dir()
                    && !name.starts_with("runtime-")
                    && p.parent() != Some(&build.join("verilator"))
                {
                    stack.push(p);
                }
            }
        }
        assert!(left.is_empty(), "after {wait_ms} ms: left behind {left:?}");
        // No tool it started (Verilator, a compiler) outlives it: one
        // still running could write into the build directory afterwards.
        let needle = dir.to_string_lossy().into_owned();
        let mut strays = vec![];
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
                continue;
            };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(&needle) {
                strays.push(cmdline);
            }
        }
        assert!(strays.is_empty(), "after {wait_ms} ms: still running {strays:?}");
        assert!(!vcd.exists(), "a partial VCD under the final name");
    }
}

/// `replay --engine verilator` on a design that calls `$finish` fails with
/// exit 2 naming the cycle and the file, and writes no output.
#[test]
fn replay_of_a_design_that_finishes_fails_and_writes_nothing() {
    let dir = tmp_dir("replay-finish");
    let emitted = dir.join("v");
    let o = ccrtl(&["emit", "cp", "--out", emitted.to_str().unwrap()]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(emitted.join("ccrtl_cp.v")).unwrap();
    let fin = common::with_finish_after(&text, 5);
    let f = dir.join("fin.v");
    std::fs::write(&f, fin).unwrap();
    let stim = dir.join("in.csv");
    let mut csv = String::from("rst,s_enq_valid,s_enq_len\n1,0,0\n");
    for _ in 0..20 {
        csv.push_str("0,1,100\n");
    }
    std::fs::write(&stim, csv).unwrap();
    let out = dir.join("out.csv");
    let o = ccrtl(&[
        "replay",
        "cp",
        "--engine",
        "verilator",
        "--verilog",
        f.to_str().unwrap(),
        "--stimulus",
        stim.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("$finish") && err.contains("fin.v:") && err.contains("cycle "),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !out.exists() && !left.iter().any(|n| n.contains(".tmp")),
        "{left:?}"
    );
}
