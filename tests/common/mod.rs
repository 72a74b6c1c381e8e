//! Helpers shared by the integration tests.
#![allow(dead_code)]

#[macro_use]
pub mod conformance;
pub mod rx;

use std::path::PathBuf;
use std::process::{Command, Output};

use ccrtl_sim::block::Block;
use ccrtl_sim::verilator::Model;

/// Where the tests keep their Verilator builds and files.
pub fn test_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ccrtl-tests")
}

/// A fresh, empty directory for one test.
pub fn tmp_dir(name: &str) -> PathBuf {
    let d = test_root().join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A Verilator model of `verilog` for block `B`, built for a short build
/// (a test runs it for at most a few million cycles: `Model::build_quick`).
pub fn model<B: Block>(config: &B::Config, verilog: &str) -> Model {
    Model::build_quick(
        verilog,
        "test.v",
        &format!("ccrtl_{}", B::NAME),
        B::CLOCK,
        &B::ports(config),
        &test_root().join("verilator"),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the `ccrtl` command with its build directory under the test root.
pub fn ccrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ccrtl"))
        .args(args)
        .env("CCRTL_BUILD_DIR", test_root().join("cli-build"))
        .env("CI", "1")
        .output()
        .unwrap()
}

/// `verilator --lint-only -Wall` on a file whose top module is `top`.
pub fn verilator_lint(path: &std::path::Path, top: &str) -> Output {
    Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", top])
        .arg(path)
        .output()
        .unwrap()
}

/// Runs a yosys script quietly.
pub fn yosys(script: &str) -> Output {
    Command::new("yosys")
        .args(["-q", "-p", script])
        .output()
        .unwrap()
}

/// Runs a yosys script quietly and panics with its output if it fails.
pub fn yosys_ok(script: &str) {
    let y = yosys(script);
    assert!(
        y.status.success(),
        "yosys -p '{script}':\n{}{}",
        String::from_utf8_lossy(&y.stdout),
        String::from_utf8_lossy(&y.stderr)
    );
}

/// An emitted file with a planted `$finish` that fires after `n` clock
/// edges (a counter of its own, before the top module's logic).
pub fn with_finish_after(verilog: &str, n: u32) -> String {
    let planted = verilog.replacen(
        "    // Update code\n",
        &format!(
            "    reg [31:0] ccrtl_n = 0;\n    always @(posedge clk) begin ccrtl_n <= ccrtl_n + 1; \
             if (ccrtl_n == 32'd{n}) $finish; end\n    // Update code\n"
        ),
        1,
    );
    assert_ne!(planted, verilog, "no place to plant $finish");
    planted
}
