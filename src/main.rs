//! `ccrtl`: emit the Verilog of the congestion-control blocks and check it
//! against the golden models.
//!
//! Exit status: 0 success, 1 a check found mismatches, 2 bad usage, bad
//! parameters, bad input files or a tool failure.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use ccrtl_sim::block::Block;
use ccrtl_sim::cp::CpBlock;
use ccrtl_sim::lockstep::{self, RunOptions, VerilatorDut};
use ccrtl_sim::params::Params;
use ccrtl_sim::{fsutil, replay, verilator};

/// The blocks, by the one name each has everywhere.
const BLOCKS: &[&str] = &["cp"];

#[derive(Parser)]
#[command(
    name = "ccrtl",
    version,
    about = "Verified Verilog for congestion-control hardware"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write DIR/ccrtl_<block>.v for one block or all.
    Emit {
        /// Block name, or `all`.
        block: String,
        #[arg(long)]
        out: PathBuf,
        /// Generation-time parameters (docs/params.md).
        #[arg(long)]
        params: Option<PathBuf>,
    },
    /// Check the Verilog of a block against its golden model under Verilator
    /// with random stimulus and random valid runtime parameters.
    Verify {
        /// Block name, or `all`.
        block: String,
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Check this Verilog file instead of freshly emitted Verilog.
        #[arg(long)]
        verilog: Option<PathBuf>,
        /// Write the whole run's trace.
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Where a mismatch's trace goes (default build/mismatch/<block>-seed<S>.vcd).
        #[arg(long)]
        mismatch_vcd: Option<PathBuf>,
        #[arg(long)]
        params: Option<PathBuf>,
        /// Print a machine-readable summary on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Run a CSV stimulus (one row per cycle) and write the outputs as CSV.
    Replay {
        block: String,
        #[arg(long)]
        stimulus: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_enum, default_value_t = Engine::Golden)]
        engine: Engine,
        #[arg(long)]
        params: Option<PathBuf>,
        /// With `--engine verilator`: run this file instead of emitted Verilog.
        #[arg(long)]
        verilog: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Engine {
    Golden,
    Verilator,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ccrtl: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn build_dir() -> PathBuf {
    std::env::var_os("CCRTL_BUILD_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("build"))
}

fn blocks_named(name: &str) -> Result<Vec<&'static str>> {
    if name == "all" {
        return Ok(BLOCKS.to_vec());
    }
    match BLOCKS.iter().find(|b| **b == name) {
        Some(b) => Ok(vec![*b]),
        None => bail!(
            "unknown block `{name}`; the blocks are: {} (or `all`)",
            BLOCKS.join(", ")
        ),
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.cmd {
        Cmd::Emit { block, out, params } => {
            let blocks = blocks_named(&block)?;
            let params = Params::load(params.as_deref())?;
            // Everything is generated before anything is written.
            let files: Vec<(PathBuf, String)> = blocks
                .iter()
                .map(|b| {
                    (
                        out.join(ccrtl_hdl::emit::file_name(b)),
                        verilog_of(b, &params),
                    )
                })
                .collect();
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            for (path, text) in files {
                fsutil::write_atomic(&path, text.as_bytes())
                    .with_context(|| format!("writing {}", path.display()))?;
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Verify {
            block,
            cycles,
            seed,
            verilog,
            vcd,
            mismatch_vcd,
            params,
            json,
        } => {
            let blocks = blocks_named(&block)?;
            if blocks.len() > 1 && (verilog.is_some() || vcd.is_some() || mismatch_vcd.is_some()) {
                bail!("--verilog, --vcd and --mismatch-vcd need a single block, not `all`");
            }
            let params = Params::load(params.as_deref())?;
            let mut rows = vec![];
            for b in blocks {
                let opts = VerifyOpts {
                    cycles,
                    seed,
                    verilog: verilog.clone(),
                    vcd: vcd.clone(),
                    mismatch_vcd: mismatch_vcd.clone(),
                    progress: !json,
                };
                rows.push(match b {
                    "cp" => verify::<CpBlock>(&params.cp, &opts)?,
                    _ => unreachable!("every block is listed in BLOCKS"),
                });
            }
            print_verify(&rows, json);
            let ok = rows.iter().all(|r| r.mismatches == 0);
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Replay {
            block,
            stimulus,
            out,
            engine,
            params,
            verilog,
        } => {
            let blocks = blocks_named(&block)?;
            if blocks.len() != 1 {
                bail!("replay takes one block, not `all`");
            }
            if verilog.is_some() && matches!(engine, Engine::Golden) {
                bail!("--verilog goes with --engine verilator");
            }
            let params = Params::load(params.as_deref())?;
            match blocks[0] {
                "cp" => replay_block::<CpBlock>(&params.cp, &stimulus, &out, engine, verilog)?,
                _ => unreachable!("every block is listed in BLOCKS"),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn verilog_of(block: &str, params: &Params) -> String {
    match block {
        "cp" => CpBlock::verilog(&params.cp),
        _ => unreachable!("every block is listed in BLOCKS"),
    }
}

struct VerifyOpts {
    cycles: u64,
    seed: u64,
    verilog: Option<PathBuf>,
    vcd: Option<PathBuf>,
    mismatch_vcd: Option<PathBuf>,
    progress: bool,
}

struct VerifyRow {
    block: &'static str,
    file: String,
    report: lockstep::Report,
    mismatches: u64,
}

/// The Verilog to check (a user's file, or freshly emitted into
/// build/verilog/) and its Verilator model.
fn model_of<B: Block>(
    config: &B::Config,
    verilog: Option<&Path>,
) -> Result<(String, verilator::Model)> {
    let (path, text) = match verilog {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            (p.to_path_buf(), text)
        }
        None => {
            let dir = build_dir().join("verilog");
            std::fs::create_dir_all(&dir)?;
            let path = dir.join(ccrtl_hdl::emit::file_name(B::NAME));
            let text = B::verilog(config);
            fsutil::write_atomic(&path, text.as_bytes())?;
            (path, text)
        }
    };
    let shown = path.display().to_string();
    let model = verilator::Model::build(
        &text,
        &shown,
        &ccrtl_hdl::emit::top_module(B::NAME),
        B::CLOCK,
        &B::ports(config),
        &build_dir().join("verilator"),
    )?;
    Ok((shown, model))
}

fn verify<B: Block>(config: &B::Config, o: &VerifyOpts) -> Result<VerifyRow> {
    let (file, model) = model_of::<B>(config, o.verilog.as_deref())?;
    let mut dut = VerilatorDut::new(&model, &B::ports(config));
    let mut opts = RunOptions::new(o.cycles);
    opts.full_vcd = o.vcd.clone();
    opts.progress = o.progress;
    opts.mismatch_vcd = Some(o.mismatch_vcd.clone().unwrap_or_else(|| {
        build_dir()
            .join("mismatch")
            .join(format!("{}-seed{}.vcd", B::NAME, o.seed))
    }));
    if let Some(p) = opts.mismatch_vcd.as_ref().and_then(|p| p.parent()) {
        if !p.as_os_str().is_empty() {
            std::fs::create_dir_all(p)?;
        }
    }
    let report = lockstep::run::<B>(config, o.seed, &mut [&mut dut], &opts)?;
    for m in &report.first {
        eprintln!("MISMATCH {}: {m}", B::NAME);
    }
    if let Some(p) = &report.mismatch_vcd {
        eprintln!(
            "MISMATCH {}: trace of the cycles around it in {}",
            B::NAME,
            p.display()
        );
    }
    Ok(VerifyRow {
        block: B::NAME,
        file,
        mismatches: report.mismatches,
        report,
    })
}

fn print_verify(rows: &[VerifyRow], json: bool) {
    if json {
        let v: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "block": r.block,
                    "file": r.file,
                    "cycles": r.report.cycles,
                    "mismatches": r.mismatches,
                    "cycles_per_second": r.report.cycles_per_second().round(),
                    "first_mismatch": r.report.first.iter().map(|m| serde_json::json!({
                        "cycle": m.cycle, "signal": m.signal,
                        "expected": m.expected.to_string(), "actual": m.actual.to_string(),
                    })).collect::<Vec<_>>(),
                    "mismatch_vcd": r.report.mismatch_vcd.as_ref().map(|p| p.display().to_string()),
                    "coverage": r.report.coverage.points.iter()
                        .map(|(n, c)| serde_json::json!({"point": n, "hits": c}))
                        .collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("JSON of plain values")
        );
        return;
    }
    println!(
        "{:<6} {:<28} {:>14} {:>11} {:>12}  coverage",
        "block", "file", "cycles checked", "mismatches", "cycles/s"
    );
    for r in rows {
        let c = &r.report.coverage;
        let hit = c.points.len() - c.missed().len();
        println!(
            "{:<6} {:<28} {:>14} {:>11} {:>12.0}  {hit}/{} points",
            r.block,
            r.file,
            r.report.cycles,
            r.mismatches,
            r.report.cycles_per_second(),
            c.points.len()
        );
        for m in c.missed() {
            println!("       coverage point not hit: {m}");
        }
    }
}

fn replay_block<B: Block>(
    config: &B::Config,
    stimulus: &Path,
    out: &Path,
    engine: Engine,
    verilog: Option<PathBuf>,
) -> Result<()> {
    let ports = B::ports(config);
    let shown = stimulus.display().to_string();
    let text = std::fs::read_to_string(stimulus).with_context(|| format!("reading {shown}"))?;
    let rows = replay::read_stimulus(&text, &shown, &ports, Some("rst"))?;
    let n_out = ports
        .iter()
        .filter(|p| p.dir == ccrtl_sim::ports::Dir::Out)
        .count();
    let mut results = Vec::with_capacity(rows.len());
    match engine {
        Engine::Golden => {
            let mut g = B::golden(config);
            for r in &rows {
                let o = B::golden_step(&mut g, &B::decode_in(r));
                let mut v = vec![0u128; n_out];
                B::encode_out(&o, &mut v);
                results.push(v);
            }
        }
        Engine::Verilator => {
            let (_, model) = model_of::<B>(config, verilog.as_deref())?;
            let mut dut = VerilatorDut::new(&model, &ports);
            for r in &rows {
                let mut v = vec![0u128; n_out];
                dut.cycle_values(r, &mut v);
                results.push(v);
            }
        }
    }
    replay::write_outputs(out, &ports, &results)?;
    println!("wrote {} ({} cycles)", out.display(), results.len());
    Ok(())
}
