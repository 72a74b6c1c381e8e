//! `ccrtl`: emit the Verilog of the congestion-control blocks and check it
//! against the golden models.
//!
//! Exit status: 0 success; 1 a check failed (mismatches, a coverage point
//! missed, a design that stopped itself after mismatches, a property that
//! failed or was not proven); 2 bad usage,
//! bad parameters, bad input files, a tool failure, or a design that
//! stopped itself (`$finish`, `$stop`, `$fatal`, an assertion); 130 when
//! interrupted (temporary files removed).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use ccrtl_sim::commands::{self, ReplayOpts, SoakOpts, VerifyOpts, VerifyRow};
use ccrtl_sim::formal::{self, FormalOpts};
use ccrtl_sim::params::ParamsFile;
use ccrtl_sim::{fsutil, registry, synth};

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
    /// Write DIR/ccrtl_<block>.v and its FuseSoC core DIR/ccrtl_<block>.core
    /// for one block or all.
    Emit {
        /// Block name, or `all`.
        block: String,
        #[arg(long)]
        out: PathBuf,
        /// Generation-time parameters (docs/params.md).
        #[arg(long)]
        params: Option<PathBuf>,
    },
    /// Print the AXI4-Lite register map of a block that has one (`nic`) as
    /// the Markdown table of its docs page, from the one source.
    Regmap {
        block: String,
        /// Generation-time parameters (docs/params.md).
        #[arg(long)]
        params: Option<PathBuf>,
    },
    /// Check the Verilog of a block against its golden model under Verilator
    /// with random stimulus, random valid runtime parameters, random reset
    /// values (without --params) and a random power-up state.
    Verify {
        /// Block name, or `all`.
        block: String,
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seed of the random power-up state (default: a new one each run,
        /// printed).
        #[arg(long)]
        power_up_seed: Option<u32>,
        /// Check this Verilog file instead of freshly emitted Verilog.
        #[arg(long)]
        verilog: Option<PathBuf>,
        /// Write the whole run's trace.
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Where a mismatch's trace goes (default build/mismatch/<block>-seed<S>.vcd).
        #[arg(long)]
        mismatch_vcd: Option<PathBuf>,
        /// Generation-time parameters; without it the reset values of the
        /// runtime registers are drawn from --seed.
        #[arg(long)]
        params: Option<PathBuf>,
        /// Pass even if some coverage points were not hit.
        #[arg(long)]
        allow_missed_coverage: bool,
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
        /// With `--engine verilator`: seed of the random power-up state.
        #[arg(long)]
        power_up_seed: Option<u32>,
    },
    /// Verify many seeds on all cores: random shapes of the menu, random
    /// reset values, random power-up states; prints one row per block.
    Soak {
        /// Block name, or `all`.
        block: String,
        /// Cycles per block, over all runs.
        #[arg(long, default_value_t = 1_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
        cycles: u64,
        /// Cycles per run (one seed, one configuration each).
        #[arg(long, default_value_t = 50_000_000, value_parser = clap::value_parser!(u64).range(1..))]
        chunk: u64,
        /// Parallel runs (default: every core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Seed of the first run; run k uses seed + k.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        params: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Prove the properties of a block (formal/<block>/) with SymbiYosys or
    /// yosys `sat` and print one row per property: method (induction,
    /// bounded, cover, sat, sat-reach), depth, result, seconds.
    Formal {
        /// Block name, or `all` (every block with a formal/<block>/ folder).
        block: String,
        /// Run only this task (property) of the block's .sby or .sat.toml
        /// file; repeatable.
        #[arg(long = "task", value_name = "TASK")]
        tasks: Vec<String>,
        /// Prove this file instead of freshly emitted Verilog; it must have
        /// been emitted with the proof configuration (or with --params).
        #[arg(long)]
        verilog: Option<PathBuf>,
        /// Prove another configuration than those of formal/<block>/
        /// (params.toml, params-<name>.toml).
        #[arg(long)]
        params: Option<PathBuf>,
        /// Run only this configuration of formal/<block>/ (the params file's
        /// name without .toml: params, params-q2-dequeue); repeatable.
        #[arg(long = "config", value_name = "NAME")]
        configs: Vec<String>,
        /// Print a machine-readable summary on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Synthesize a block for ECP5, iCE40 and Xilinx 7-series and report
    /// its resources; with --pnr also place and route it (ECP5, iCE40) over
    /// several seeds for Fmax (fpga/README.md).
    Synth {
        /// Block name, or `all`.
        block: String,
        #[arg(long, value_enum, default_value_t = SynthTarget::All)]
        target: SynthTarget,
        /// Also place and route, for Fmax and the critical path.
        #[arg(long)]
        pnr: bool,
        /// Placer seeds 1..N; the Fmax reported is their median.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
        seeds: u32,
        /// Target frequency given to nextpnr, MHz (200: line rate, see
        /// docs/cp.md "Pipeline").
        #[arg(long, default_value_t = 200.0)]
        freq: f64,
        /// Print the report (or with `all` the summary) as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Output directory (default build/synth/<block>; with `all`, the
        /// directory holding one per block and summary.json).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Generation-time parameters (docs/params.md).
        #[arg(long)]
        params: Option<PathBuf>,
        /// Synthesize this Verilog file instead of emitting the block.
        #[arg(long)]
        verilog: Option<PathBuf>,
    },
    /// Gate-level simulation: synthesize a block with yosys (generic,
    /// ECP5, iCE40) into build/netlist/<block>/<target>/ and run each
    /// netlist in the Verilator lockstep against the golden model; with
    /// --equiv also check the RTL against the generic netlist with yosys's
    /// equivalence passes (docs/verification.md "Netlist equivalence").
    Netlist {
        /// Block name, or `all`.
        block: String,
        #[arg(long, value_enum, default_value_t = NetlistTarget::All)]
        target: NetlistTarget,
        #[arg(long, default_value_t = 100_000)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seed of the random power-up state (default: drawn, printed).
        #[arg(long)]
        power_up_seed: Option<u32>,
        /// Also run the yosys equivalence check (generic netlist) with this
        /// sequential depth for equiv_simple and equiv_induct.
        #[arg(long, num_args = 0..=1, default_missing_value = "5")]
        equiv: Option<u32>,
        /// Output directory (default build/netlist).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Generation-time parameters (docs/params.md).
        #[arg(long)]
        params: Option<PathBuf>,
    },
    /// Write docs/fpga.md from `ccrtl synth` report.json or summary.json files.
    SynthDoc {
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        #[arg(long, default_value = "docs/fpga.md")]
        out: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum NetlistTarget {
    Generic,
    Ecp5,
    Ice40,
    All,
}

#[derive(Clone, Copy, ValueEnum)]
enum SynthTarget {
    Ecp5,
    Ice40,
    Xilinx,
    All,
}

#[derive(Clone, Copy, ValueEnum)]
enum Engine {
    Golden,
    Verilator,
}

fn main() -> ExitCode {
    // The revision of this build (build.rs), for the headers of emitted files.
    ccrtl_hdl::emit::set_git_rev(env!("CCRTL_GIT_REV"));
    // Ctrl-C: remove the temporaries in flight (partial outputs, Verilator
    // builds), then exit.
    let _ = ctrlc::set_handler(|| {
        fsutil::remove_temporaries();
        eprintln!("ccrtl: interrupted");
        std::process::exit(130);
    });
    let cli = Cli::parse();
    let result = run(cli);
    fsutil::wait_if_interrupted();
    match result {
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

/// Where the blocks' properties live (`formal/`), and the venv with the
/// yowasp tools (`.venv/`), both relative to the repository root.
fn formal_dir() -> PathBuf {
    std::env::var_os("CCRTL_FORMAL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("formal"))
}

fn venv_dir() -> PathBuf {
    std::env::var_os("CCRTL_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(".venv"))
}

fn load_params(path: Option<&std::path::Path>) -> Result<ParamsFile> {
    Ok(ParamsFile::load(path, &registry::names())?)
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.cmd {
        Cmd::Regmap { block, params } => {
            if block != "nic" {
                bail!(
                    "block `{block}` has no AXI4-Lite register map (the blocks take \
                     their registers on cfg ports; `nic` maps them all)"
                );
            }
            let params = load_params(params.as_deref())?;
            let config = params.config::<ccrtl_sim::nic::NicBlock>()?;
            print!("{}", ccrtl_golden::nic::regmap_markdown(&config)?);
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Emit { block, out, params } => {
            let blocks = commands::named(&block)?;
            let params = load_params(params.as_deref())?;
            // Everything is generated before anything is written.
            let mut files = vec![];
            for b in &blocks {
                files.push((
                    out.join(ccrtl_hdl::emit::file_name(b.name())),
                    b.emit(&params)?,
                ));
                files.push((
                    out.join(ccrtl_hdl::emit::core_file_name(b.name())),
                    ccrtl_hdl::emit::core_file(b.name()),
                ));
            }
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
            power_up_seed,
            verilog,
            vcd,
            mismatch_vcd,
            params,
            allow_missed_coverage,
            json,
        } => {
            let blocks = commands::named(&block)?;
            if blocks.len() > 1 && (verilog.is_some() || vcd.is_some() || mismatch_vcd.is_some()) {
                bail!("--verilog, --vcd and --mismatch-vcd need a single block, not `all`");
            }
            let random_reset = params.is_none();
            let params = load_params(params.as_deref())?;
            for b in &blocks {
                b.check_params(&params)?;
            }
            let mut rows = vec![];
            for b in blocks {
                let opts = VerifyOpts {
                    cycles,
                    seed,
                    verilog: verilog.clone(),
                    vcd: vcd.clone(),
                    mismatch_vcd: mismatch_vcd.clone(),
                    progress: !json,
                    power_up_seed,
                    random_reset,
                    build_dir: build_dir(),
                };
                let row = b.verify(&params, &opts)?;
                report_problems(&row);
                rows.push(row);
            }
            print_verify(&rows, json);
            Ok(verify_status(&rows, allow_missed_coverage))
        }
        Cmd::Replay {
            block,
            stimulus,
            out,
            engine,
            params,
            verilog,
            power_up_seed,
        } => {
            let blocks = commands::named(&block)?;
            if blocks.len() != 1 {
                bail!("replay takes one block, not `all`");
            }
            let verilator = matches!(engine, Engine::Verilator);
            if !verilator && (verilog.is_some() || power_up_seed.is_some()) {
                bail!("--verilog and --power-up-seed go with --engine verilator");
            }
            let params = load_params(params.as_deref())?;
            let n = blocks[0].replay(
                &params,
                &ReplayOpts {
                    stimulus,
                    out: out.clone(),
                    verilator,
                    verilog,
                    power_up_seed,
                    build_dir: build_dir(),
                },
            )?;
            println!("wrote {} ({n} cycles)", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Soak {
            block,
            cycles,
            chunk,
            jobs,
            seed,
            params,
            json,
        } => {
            let blocks = commands::named(&block)?;
            let params = load_params(params.as_deref())?;
            let jobs =
                jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let mut rows = vec![];
            for b in blocks {
                let opts = SoakOpts {
                    cycles,
                    chunk,
                    jobs,
                    seed,
                    build_dir: build_dir(),
                };
                rows.push(b.soak(&params, &opts)?);
            }
            if json {
                let v: Vec<_> = rows
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "block": r.block, "runs": r.runs, "cycles": r.cycles,
                            "mismatches": r.mismatches, "failures": r.failures,
                            "wall_seconds": r.wall.as_secs_f64(),
                            "cycles_per_second": (r.cycles as f64 / r.wall.as_secs_f64().max(1e-9)).round(),
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                println!(
                    "{:<6} {:>6} {:>14} {:>11} {:>9} {:>12}",
                    "block", "runs", "cycles", "mismatches", "wall s", "cycles/s"
                );
                for r in &rows {
                    println!(
                        "{:<6} {:>6} {:>14} {:>11} {:>9.1} {:>12.0}",
                        r.block,
                        r.runs,
                        r.cycles,
                        r.mismatches,
                        r.wall.as_secs_f64(),
                        r.cycles as f64 / r.wall.as_secs_f64().max(1e-9)
                    );
                    for f in &r.failures {
                        println!("       FAILED {f}");
                    }
                }
            }
            let ok = rows.iter().all(|r| r.failures.is_empty());
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Synth {
            block,
            target,
            pnr,
            seeds,
            freq,
            json,
            out,
            params,
            verilog,
        } => {
            let opts = synth::CommandOpts {
                target: match target {
                    SynthTarget::Ecp5 => synth::Target::Ecp5,
                    SynthTarget::Ice40 => synth::Target::Ice40,
                    SynthTarget::Xilinx => synth::Target::Xilinx,
                    SynthTarget::All => synth::Target::All,
                },
                pnr,
                seeds,
                freq_mhz: freq,
                out,
                verilog,
                json,
                build_dir: build_dir(),
            };
            synth::command(&block, &load_params(params.as_deref())?, &opts)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Netlist {
            block,
            target,
            cycles,
            seed,
            power_up_seed,
            equiv,
            out,
            params,
        } => {
            use synth::gate::GateTarget;
            let blocks = commands::named(&block)?;
            let params = load_params(params.as_deref())?;
            let targets = match target {
                NetlistTarget::Generic => vec![GateTarget::Generic],
                NetlistTarget::Ecp5 => vec![GateTarget::Ecp5],
                NetlistTarget::Ice40 => vec![GateTarget::Ice40],
                NetlistTarget::All => GateTarget::ALL.to_vec(),
            };
            let opts = synth::gate::NetlistOpts {
                targets,
                cycles,
                seed,
                equiv_seq: equiv,
                out: out.unwrap_or_else(|| build_dir().join("netlist")),
                build_dir: build_dir(),
                power_up_seed,
            };
            let mut ok = true;
            println!(
                "{:<6} {:<8} {:>7} {:>8} {:>10} {:>11} {:>10}  equivalence",
                "block", "target", "cells", "synth s", "cycles", "mismatches", "cycles/s"
            );
            for b in blocks {
                for r in synth::gate::run(b, &params, &opts)? {
                    report_problems(&r.verify);
                    let rep = &r.verify.report;
                    ok &= rep.mismatches == 0 && rep.design_stop.is_none();
                    let eq = match &r.equivalence {
                        None => String::from("-"),
                        Some(e) if e.proven() => format!(
                            "proven ({} $equiv cells, seq {}, {:.0} s)",
                            e.cells, e.seq, e.seconds
                        ),
                        Some(e) => format!(
                            "NOT proven: {} of {} $equiv cells unproven (seq {}, {:.0} s; {})",
                            e.unproven,
                            e.cells,
                            e.seq,
                            e.seconds,
                            e.log.display()
                        ),
                    };
                    println!(
                        "{:<6} {:<8} {:>7} {:>8.1} {:>10} {:>11} {:>10.0}  {eq}",
                        r.block,
                        r.netlist.target.key(),
                        r.netlist.cell_count(),
                        r.netlist.seconds,
                        rep.compared,
                        rep.mismatches,
                        rep.cycles_per_second()
                    );
                }
            }
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::SynthDoc { reports, out } => {
            synth::doc_command(&reports, &out)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Formal {
            block,
            tasks,
            verilog,
            params,
            configs,
            json,
        } => {
            let named = commands::named(&block)?;
            let all = block == "all";
            if all && (verilog.is_some() || !tasks.is_empty() || !configs.is_empty()) {
                bail!("--verilog, --task and --config need a single block, not `all`");
            }
            let opts = FormalOpts {
                formal_dir: formal_dir(),
                build_dir: build_dir(),
                venv: venv_dir(),
                params,
                configs,
                verilog,
                tasks,
                progress: !json,
            };
            let blocks = formal::with_properties(named, all, &opts.formal_dir)?;
            let tools = formal::Tools::find(&opts.venv)?;
            let mut rows = vec![];
            for b in blocks {
                rows.extend(formal::run(b, &tools, &opts)?);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&formal::json(&rows))?);
            } else {
                print!("{}", formal::table(&rows));
            }
            for r in &rows {
                for t in r
                    .tasks
                    .iter()
                    .filter(|t| t.outcome != formal::Outcome::Pass)
                {
                    eprintln!("{}", formal::failure_line(r, t));
                }
            }
            Ok(if rows.iter().all(|r| r.all_pass()) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

/// Prints mismatches, a design's own stop and VCD warnings on stderr.
fn report_problems(row: &VerifyRow) {
    let r = &row.report;
    let name = row.block;
    let repro = format!(
        "reproduce with --seed {} --power-up-seed {}",
        row.seed, row.power_up_seed
    );
    for m in &r.first {
        eprintln!("MISMATCH {name}: {m}");
    }
    if let Some(p) = &r.mismatch_vcd {
        eprintln!(
            "MISMATCH {name}: trace of the cycles around it in {}",
            p.display()
        );
    }
    if let Some(w) = &r.vcd_warning {
        eprintln!("WARNING {name}: {w}");
    }
    if let Some((cycle, dut, why)) = &r.design_stop {
        eprintln!("STOPPED {name}: cycle {cycle}: {dut}: {why}");
    }
    if r.compared == 0 && r.design_stop.is_none() {
        eprintln!("FAILED {name}: no cycle was compared (the stimulus never asserted reset)");
    }
    if !r.first.is_empty() || r.design_stop.is_some() {
        eprintln!("{name}: {}; {repro}", row.config);
    }
}

fn verify_status(rows: &[VerifyRow], allow_missed_coverage: bool) -> ExitCode {
    let mismatches = rows.iter().any(|r| r.report.mismatches > 0);
    let stopped = rows.iter().any(|r| r.report.design_stop.is_some());
    let missed = rows.iter().any(|r| !r.coverage_missed().is_empty());
    // A run that compared nothing (the stimulus never reset the block)
    // proves nothing.
    let vacuous = rows.iter().any(|r| r.report.compared == 0);
    if mismatches {
        ExitCode::from(1)
    } else if stopped {
        ExitCode::from(2)
    } else if vacuous || (missed && !allow_missed_coverage) {
        // Printed on stderr also with --json, whose stdout is the report.
        for r in rows {
            let missed = r.coverage_missed();
            if !missed.is_empty() && !allow_missed_coverage {
                eprintln!(
                    "{}: {} of {} coverage points not hit ({}); run more cycles, \
                     or pass --allow-missed-coverage",
                    r.block,
                    missed.len(),
                    r.report.coverage.points().len(),
                    missed.join("; ")
                );
            }
        }
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_verify(rows: &[VerifyRow], json: bool) {
    if json {
        let v: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "block": r.block,
                    "file": r.file,
                    "config": r.config,
                    "random_reset": r.random_reset,
                    "seed": r.seed,
                    "power_up_seed": r.power_up_seed,
                    "cycles": r.report.cycles,
                    "cycles_compared": r.report.compared,
                    "mismatches": r.report.mismatches,
                    "cycles_per_second": r.report.cycles_per_second().round(),
                    "ns_per_cycle_in_design": (r.report.dut_time.as_secs_f64() * 1e9 / r.report.cycles.max(1) as f64).round(),
                    "ns_per_cycle_total": (r.report.elapsed.as_secs_f64() * 1e9 / r.report.cycles.max(1) as f64).round(),
                    "first_mismatch": r.report.first.iter().map(|m| serde_json::json!({
                        "cycle": m.cycle, "signal": m.signal,
                        "expected": m.expected.to_string(), "actual": m.actual.to_string(),
                    })).collect::<Vec<_>>(),
                    "mismatch_vcd": r.report.mismatch_vcd.as_ref().map(|p| p.display().to_string()),
                    "vcd_warning": r.report.vcd_warning,
                    "design_stop": r.report.design_stop.as_ref().map(|(c, d, why)| serde_json::json!({
                        "cycle": c, "design": d, "kind": why.kind, "message": why.message,
                    })),
                    "coverage": r.report.coverage.points().iter()
                        .map(|(n, c)| serde_json::json!({"point": n, "hits": c}))
                        .collect::<Vec<_>>(),
                    "coverage_missed": r.coverage_missed(),
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
        let hit = c.points().len() - c.missed().len();
        println!(
            "{:<6} {:<28} {:>14} {:>11} {:>12.0}  {hit}/{} points",
            r.block,
            r.file,
            r.report.compared,
            r.report.mismatches,
            r.report.cycles_per_second(),
            c.points().len()
        );
        println!(
            "       {} {}; seed {}, power-up seed {}",
            if r.random_reset {
                "random reset values:"
            } else {
                "configuration:"
            },
            r.config,
            r.seed,
            r.power_up_seed
        );
        for m in c.missed() {
            println!("       coverage point not hit: {m}");
        }
    }
}
