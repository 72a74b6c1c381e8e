//! The `ccrtl` commands for one block, written once for every block.
//!
//! [`Entry`] is the object-safe face of a [`Block`]: the command line finds a
//! block by name in [`crate::registry::BLOCKS`] and calls these methods, so a
//! new block touches one registry line, not the command line, the params
//! file, emission or the Makefile.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::block::Block;
use crate::lockstep::{self, RunOptions, VerilatorDut};
use crate::params::ParamsFile;
use crate::ports::Dir;
use crate::rng::Rng;
use crate::{fsutil, replay, verilator};

/// What `ccrtl verify` needs to know.
#[derive(Debug, Clone)]
pub struct VerifyOpts {
    pub cycles: u64,
    pub seed: u64,
    pub verilog: Option<PathBuf>,
    pub vcd: Option<PathBuf>,
    pub mismatch_vcd: Option<PathBuf>,
    pub progress: bool,
    /// Seed of the random power-up state; `None` draws one (printed).
    pub power_up_seed: Option<u32>,
    /// Draw the reset values of the runtime registers from `seed` (when
    /// the Verilog is emitted here and no params file was given).
    pub random_reset: bool,
    pub build_dir: PathBuf,
}

/// The result of `verify` for one block.
#[derive(Debug)]
pub struct VerifyRow {
    pub block: &'static str,
    pub file: String,
    /// The configuration checked (shape and reset values).
    pub config: String,
    /// Whether the reset values were drawn at random from the seed.
    pub random_reset: bool,
    pub seed: u64,
    pub power_up_seed: u32,
    pub report: lockstep::Report,
}

impl VerifyRow {
    pub fn coverage_missed(&self) -> Vec<&'static str> {
        self.report.coverage.missed()
    }
}

/// What `ccrtl replay` needs to know.
#[derive(Debug, Clone)]
pub struct ReplayOpts {
    pub stimulus: PathBuf,
    pub out: PathBuf,
    pub verilator: bool,
    pub verilog: Option<PathBuf>,
    pub power_up_seed: Option<u32>,
    pub build_dir: PathBuf,
}

/// What `ccrtl soak` needs to know.
#[derive(Debug, Clone)]
pub struct SoakOpts {
    pub cycles: u64,
    pub chunk: u64,
    pub jobs: usize,
    pub seed: u64,
    pub build_dir: PathBuf,
}

/// The result of a soak of one block.
#[derive(Debug)]
pub struct SoakRow {
    pub block: &'static str,
    pub runs: u64,
    pub cycles: u64,
    pub mismatches: u64,
    /// One line per failing run: its seed, configuration and first mismatch.
    pub failures: Vec<String>,
    pub wall: Duration,
}

/// One cycle of a replay engine: encoded inputs in, encoded outputs out.
type Engine = dyn FnMut(&[u128], &mut [u128]) -> Result<()>;

/// A block as the command line sees it.
pub trait Entry: Sync {
    fn name(&self) -> &'static str;
    /// Name of the block's clock input.
    fn clock(&self) -> &'static str;
    /// Checks the block's table of the params file.
    fn check_params(&self, params: &ParamsFile) -> Result<()>;
    /// The Verilog file for the block's configuration.
    fn emit(&self, params: &ParamsFile) -> Result<String>;
    fn verify(&self, params: &ParamsFile, o: &VerifyOpts) -> Result<VerifyRow>;
    /// Returns the number of cycles replayed.
    fn replay(&self, params: &ParamsFile, o: &ReplayOpts) -> Result<u64>;
    fn soak(&self, params: &ParamsFile, o: &SoakOpts) -> Result<SoakRow>;
}

/// The [`Entry`] of block `B`.
pub struct Registered<B>(PhantomData<fn() -> B>);

impl<B> Registered<B> {
    pub const NEW: Registered<B> = Registered(PhantomData);
}

/// A power-up seed that differs from run to run.
pub fn fresh_power_up_seed() -> u32 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut r = Rng::new(t ^ ((std::process::id() as u64) << 32));
    (r.next_u32() & 0x7fff_ffff).max(1)
}

/// The most cycles a run takes for which its model is compiled for a
/// short build rather than a fast simulation (`verilator::Model::build_quick`:
/// the build and the run are the shorter so up to about 2.5e6 cycles).
pub const QUICK_BUILD_CYCLES: u64 = 2_000_000;

/// The Verilog to check (a user's file, or freshly emitted into
/// `build_dir/verilog/`) and its Verilator model; `quick`: compiled for a
/// short build (a run of at most [`QUICK_BUILD_CYCLES`]).
pub fn model_of<B: Block>(
    config: &B::Config,
    verilog: Option<&Path>,
    build_dir: &Path,
    quick: bool,
) -> Result<(String, verilator::Model)> {
    let (path, text) = match verilog {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            check_header::<B>(config, &text, p)?;
            (p.to_path_buf(), text)
        }
        None => {
            // Not build/verilog/, which holds what `emit` wrote: verify may
            // emit another configuration (random reset values).
            let dir = build_dir.join("verify");
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            let path = dir.join(ccrtl_hdl::emit::file_name(B::NAME));
            let text = B::verilog(config);
            fsutil::write_atomic(&path, text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            (path, text)
        }
    };
    let shown = path.display().to_string();
    // A netlist of `ccrtl netlist` names its target in its header: its
    // cell simulation models are verilated beside it.
    let target = crate::synth::gate::netlist_target(&text)?;
    let library = match target {
        Some(t) => crate::synth::gate::cell_library(t)?,
        None => None,
    };
    let model = build_model::<B>(
        config,
        &text,
        &shown,
        build_dir,
        library.as_ref(),
        target.is_some() || quick,
    )?;
    Ok((shown, model))
}

impl<B: Block> Entry for Registered<B> {
    fn name(&self) -> &'static str {
        B::NAME
    }

    fn clock(&self) -> &'static str {
        B::CLOCK
    }

    fn check_params(&self, params: &ParamsFile) -> Result<()> {
        params.config::<B>()?;
        Ok(())
    }

    fn emit(&self, params: &ParamsFile) -> Result<String> {
        Ok(B::verilog(&params.config::<B>()?))
    }

    fn verify(&self, params: &ParamsFile, o: &VerifyOpts) -> Result<VerifyRow> {
        let mut config = params.config::<B>()?;
        let random_reset = o.random_reset && o.verilog.is_none();
        if random_reset {
            config = B::random_reset(&config, &mut Rng::new(o.seed ^ 0x7e5e_7000_0000_0000));
        }
        let quick = o.cycles <= QUICK_BUILD_CYCLES;
        let (file, model) = model_of::<B>(&config, o.verilog.as_deref(), &o.build_dir, quick)?;
        let power_up_seed = o.power_up_seed.unwrap_or_else(fresh_power_up_seed);
        let mut dut = VerilatorDut::new(&model, &B::ports(&config), power_up_seed);
        let mut opts = RunOptions::new(o.cycles);
        opts.full_vcd = o.vcd.clone();
        opts.progress = o.progress;
        let vcd = o.mismatch_vcd.clone().unwrap_or_else(|| {
            o.build_dir
                .join("mismatch")
                .join(format!("{}-seed{}.vcd", B::NAME, o.seed))
        });
        if let Some(p) = vcd.parent() {
            if !p.as_os_str().is_empty() {
                // A directory that cannot be made shows as a VCD warning.
                let _ = std::fs::create_dir_all(p);
            }
        }
        opts.mismatch_vcd = Some(vcd);
        let report = lockstep::run::<B>(&config, o.seed, &mut [&mut dut], &opts).map_err(|e| {
            match e.kind() {
                // The run's own errors (a stimulus value that does not fit
                // its port) say what they are.
                std::io::ErrorKind::Other => anyhow::anyhow!("{e}"),
                _ => anyhow::Error::new(e).context("writing the VCD of the run"),
            }
        })?;
        Ok(VerifyRow {
            block: B::NAME,
            file,
            config: B::describe(&config),
            random_reset,
            seed: o.seed,
            power_up_seed: dut.seed(),
            report,
        })
    }

    fn replay(&self, params: &ParamsFile, o: &ReplayOpts) -> Result<u64> {
        let config = params.config::<B>()?;
        let ports = B::ports(&config);
        replay::check_distinct(&o.stimulus, &o.out)?;
        let mut reader = replay::StimulusReader::open(&o.stimulus, &ports, Some(B::RESET))?;
        let n_in = ports.iter().filter(|p| p.dir == Dir::In).count();
        let n_out = ports.iter().filter(|p| p.dir == Dir::Out).count();
        let reset = ports
            .iter()
            .filter(|p| p.dir == Dir::In)
            .position(|p| p.name == B::RESET);
        let mut writer = replay::OutputWriter::create(&o.out, &ports)?;
        let mut row = vec![0u128; n_in];
        let mut outs = vec![0u128; n_out];
        let mut armed = reset.is_none();
        let mut cycles = 0u64;
        let mut engine: Box<Engine> = if o.verilator {
            let (_, model) = model_of::<B>(&config, o.verilog.as_deref(), &o.build_dir, false)?;
            let seed = o.power_up_seed.unwrap_or_else(fresh_power_up_seed);
            let mut dut = VerilatorDut::new(&model, &ports, seed);
            Box::new(move |i, out| dut.cycle_values(i, out).map_err(anyhow::Error::msg))
        } else {
            let mut g = B::golden(&config);
            Box::new(move |i, out| {
                let o = B::golden_step(&mut g, &B::decode_in(i));
                B::encode_out(&o, out);
                Ok(())
            })
        };
        while reader.next_row(&mut row)? {
            engine(&row, &mut outs)
                .with_context(|| format!("cycle {cycles} of {}", o.stimulus.display()))?;
            if armed {
                writer.row(&outs)?;
            } else {
                // Before the first reset edge the registers hold their
                // power-up values: the outputs are unknown.
                writer.row_unknown()?;
            }
            if reset.is_some_and(|r| row[r] != 0) {
                armed = true;
            }
            cycles += 1;
        }
        writer.finish()?;
        Ok(cycles)
    }

    fn soak(&self, params: &ParamsFile, o: &SoakOpts) -> Result<SoakRow> {
        let base = params.config::<B>()?;
        let menu = if params.file.is_some() {
            vec![base]
        } else {
            B::menu()
        };
        let chunk = o.chunk.max(1);
        let runs = o.cycles.div_ceil(chunk);
        let next = std::sync::atomic::AtomicU64::new(0);
        let results = std::sync::Mutex::new(vec![]);
        let start = Instant::now();
        let first_error = std::sync::Mutex::new(None);
        std::thread::scope(|s| {
            for _ in 0..o.jobs.max(1) {
                s.spawn(|| loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= runs || first_error.lock().map(|e| e.is_some()).unwrap_or(true) {
                        break;
                    }
                    let seed = o.seed.wrapping_add(k);
                    let cycles = chunk.min(o.cycles - k * chunk);
                    let mut r = Rng::new(seed ^ 0x50a6_0000_0000_0000);
                    let shape = &menu[(k as usize) % menu.len()];
                    let config = if params.file.is_some() {
                        shape.clone()
                    } else {
                        B::random_reset(shape, &mut r)
                    };
                    let one = (|| -> Result<(u64, Option<String>)> {
                        let (_, model) = model_of_quiet::<B>(&config, &o.build_dir)?;
                        let pu = (r.next_u32() & 0x7fff_ffff).max(1);
                        let mut dut = VerilatorDut::new(&model, &B::ports(&config), pu);
                        let rep = lockstep::run::<B>(
                            &config,
                            seed,
                            &mut [&mut dut],
                            &RunOptions::new(cycles),
                        )?;
                        let mut failure = None;
                        if rep.mismatches > 0 || rep.design_stop.is_some() {
                            let what = match (rep.first.first(), &rep.design_stop) {
                                (Some(m), _) => m.to_string(),
                                (None, Some((c, _, why))) => format!("cycle {c}: {why}"),
                                (None, None) => String::new(),
                            };
                            failure = Some(format!(
                                "seed {seed} power-up seed {pu} ({}): {what}",
                                B::describe(&config)
                            ));
                        }
                        Ok((rep.mismatches, failure))
                    })();
                    match one {
                        Ok(r) => results.lock().expect("results").push((cycles, r)),
                        Err(e) => {
                            if let Ok(mut f) = first_error.lock() {
                                f.get_or_insert(e);
                            }
                        }
                    }
                });
            }
        });
        if let Some(e) = first_error.into_inner().ok().flatten() {
            return Err(e);
        }
        let results = results.into_inner().expect("results");
        let mut row = SoakRow {
            block: B::NAME,
            runs: results.len() as u64,
            cycles: 0,
            mismatches: 0,
            failures: vec![],
            wall: start.elapsed(),
        };
        for (c, (m, f)) in results {
            row.cycles += c;
            row.mismatches += m;
            row.failures.extend(f);
        }
        Ok(row)
    }
}

/// The `//   key = value` lines of an emitted file's "Generation-time
/// parameters" header, or `None` for a file without one (hand-written).
pub fn header_parameters(text: &str) -> Option<Vec<&str>> {
    let mut lines = text.lines().take_while(|l| l.starts_with("//"));
    lines.find(|l| l.trim() == "// Generation-time parameters:")?;
    Some(lines.take_while(|l| l.starts_with("//   ")).collect())
}

/// A file emitted by ccrtl states the generation-time parameters it was
/// made with; verifying it against others would report every difference
/// as a mismatch. Refuse that with the two sets side by side.
fn check_header<B: Block>(config: &B::Config, text: &str, path: &Path) -> Result<()> {
    if header_parameters(text).is_none() {
        return Ok(());
    }
    same_parameters(text, &B::verilog(config), path, "verify")
}

/// Refuses `text` (read from `path`) unless its header states the same
/// generation-time parameters as `ours`, the file `command` would emit.
pub fn same_parameters(text: &str, ours: &str, path: &Path, command: &str) -> Result<()> {
    let file = header_parameters(text).unwrap_or_default();
    let ours = header_parameters(ours).unwrap_or_default();
    if file != ours {
        bail!(
            "{} was generated with other parameters than the ones {command} uses; pass the \
             --params file it was emitted with.\n  the file says:\n{}\n  {command} uses:\n{}",
            path.display(),
            file.join("\n"),
            ours.join("\n")
        );
    }
    Ok(())
}

/// The Verilator model of freshly emitted Verilog (kept in memory only).
fn model_of_quiet<B: Block>(
    config: &B::Config,
    build_dir: &Path,
) -> Result<(String, verilator::Model)> {
    let shown = format!("{} (emitted)", ccrtl_hdl::emit::file_name(B::NAME));
    let model = build_model::<B>(config, &B::verilog(config), &shown, build_dir, None, false)?;
    Ok((shown, model))
}

/// Builds (or finds in the cache) the Verilator model of `text`, block `B`'s
/// Verilog, named `shown` in messages.
fn build_model<B: Block>(
    config: &B::Config,
    text: &str,
    shown: &str,
    build_dir: &Path,
    library: Option<&verilator::CellLibrary>,
    gate_level: bool,
) -> Result<verilator::Model> {
    Ok(verilator::Model::build_with(
        text,
        shown,
        &ccrtl_hdl::emit::top_module(B::NAME),
        B::CLOCK,
        &B::ports(config),
        &build_dir.join("verilator"),
        library,
        gate_level,
    )?)
}

/// The entries named by `name` (a block, or `all`).
pub fn named(name: &str) -> Result<Vec<&'static dyn Entry>> {
    let all = crate::registry::BLOCKS;
    if name == "all" {
        return Ok(all.to_vec());
    }
    match all.iter().find(|b| b.name() == name) {
        Some(b) => Ok(vec![*b]),
        None => bail!(
            "unknown block `{name}`; the blocks are: {} (or `all`)",
            crate::registry::names().join(", ")
        ),
    }
}
