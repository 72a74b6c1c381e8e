//! Block RAM output registers on ECP5: a pass over yosys's JSON netlist,
//! run between `synth_ecp5` and nextpnr-ecp5, that moves a fabric
//! flip-flop registering a DP16KD read output into the RAM's own output
//! register.
//!
//! Why: nextpnr-ecp5 0.11 (LFE5U-85F, speed 8) models a DP16KD read as
//! 4.26 ns clock-to-out with `REGMODE_<P> = "NOREG"` and 0.72 ns with
//! `"OUTREG"`, the port's output register. yosys 0.70's block RAM mapping
//! (`share/lattice/brams_16kd.txt`, `brams_map_16kd.v`) always writes
//! NOREG, so a register loaded from a RAM read in the RTL stays a
//! `TRELLIS_FF` behind a 4.26 ns path. Vendor tools absorb such a register
//! into the block RAM; this pass does the same, so the Verilog stays a
//! plain RAM read followed by a plain register.
//!
//! For every `DP16KD` cell of the top module and each of its ports P (A,
//! B), the port is converted only when all of these hold (otherwise it is
//! left untouched and the reason is recorded):
//!
//! - the RAM: `REGMODE_<P>` is `NOREG`; neither `DATA_WIDTH_A` nor
//!   `DATA_WIDTH_B` is 36 (the pseudo-dual-port mode, where nextpnr copies
//!   one REGMODE to both ports); `CLK<P>MUX` is `CLK<P>` (not inverted) and
//!   `CLK<P>` is a net; `OCE<P>` is the constant 1, `RST<P>` the constant 0
//!   and `CE<P>` the constant 1; `GSR` is `DISABLED` or `ENABLED`;
//! - every `DO<P>n` bit that is a net (not a constant) is not a port of the
//!   module and drives either nothing or exactly one cell input, the `DI`
//!   of a `TRELLIS_FF`; at least one bit drives a flip-flop;
//! - each such flip-flop: `CLKMUX` `CLK` (not inverted) and its `CLK` the
//!   same net as the RAM's `CLK<P>`; `CEMUX` `1` (always enabled), or `CE`
//!   with `CE` the constant 1; `LSRMUX` `LSR` with `LSR` unconnected or the
//!   constant 0 (no set or reset); `REGSET` `RESET` (power-up 0); `GSR` the
//!   same as the RAM's; `Q` one net, not a `DO<P>` bit and not the `Q` of
//!   another flip-flop absorbed.
//!
//! A parameter that is missing counts as not met. yosys pads a string
//! parameter that looks like a bit string with a trailing space (`CEMUX`
//! is written `"1 "`): strings are compared with trailing spaces removed.
//!
//! The conversion sets `REGMODE_<P> = "OUTREG"`, connects each `DO<P>n`
//! that drove a flip-flop to that flip-flop's `Q` net and deletes the
//! flip-flop. A `DO<P>n` that drove nothing keeps its (unread) net.
//!
//! Why the result is exact: with `OCE<P>` = 1 and `RST<P>` = 0 the output
//! register of a DP16KD port is a D flip-flop clocked by the port's clock
//! that loads the RAM's read data every cycle and is 0 after configuration
//! (Lattice's simulation model of the ECP3 DP16KC, whose ports and modes
//! the DP16KD keeps: it loads while OCE is high, clears on RST and, with
//! GSR enabled, on the global set/reset; yosys's mapping rules state
//! `rdinit zero`). The flip-flops absorbed are exactly
//! that: the same clock net and edge, enabled every cycle, never set or
//! reset, 0 at power-up, cleared by the global set/reset exactly when the
//! RAM's register is. So the net `Q` carries the same value in every cycle
//! before and after, and the read data bit it was loaded from had no other
//! reader. `CE<P>` = 1 is required as well, so that the result does not
//! depend on which enable gates the output register (the DP16KC model
//! gates it with OCE only; the model of MachXO's DP8KB, which has no OCE,
//! with CE).
//!
//! Only the top module is rewritten (`synth_ecp5` flattens the design).
//! When nothing is absorbed, [`absorb_file`] writes yosys's bytes
//! unchanged; otherwise the netlist is written again by serde_json, with
//! the keys of every JSON object sorted.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use crate::fsutil;

/// The block RAM cell the pass converts.
pub const RAM: &str = "DP16KD";
/// The fabric flip-flop it absorbs.
pub const FF: &str = "TRELLIS_FF";
/// Data output bits per DP16KD port (`DOA0`..`DOA17`).
const DO_BITS: usize = 18;

/// What the pass did with one DP16KD port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Set to OUTREG; the flip-flops absorbed, by cell name.
    Absorbed(Vec<String>),
    /// Left as it was, and why.
    Refused(String),
    /// None of its read data bits is read (a write-only port): nothing to
    /// absorb.
    Unused,
}

/// One DP16KD port and its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortNote {
    pub cell: String,
    pub port: char,
    pub verdict: Verdict,
}

/// The result of the pass on one netlist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// DP16KD ports set to OUTREG.
    pub ports: usize,
    /// TRELLIS_FF cells absorbed (deleted from the netlist).
    pub ffs: usize,
    /// Every DP16KD port of the top module, in cell-name order, A before B.
    pub notes: Vec<PortNote>,
}

impl Outcome {
    /// Ports with a read data output that were left NOREG.
    pub fn refused(&self) -> usize {
        self.notes
            .iter()
            .filter(|n| matches!(n.verdict, Verdict::Refused(_)))
            .count()
    }

    /// The debug log: one line per DP16KD port.
    pub fn log(&self) -> String {
        let mut s = format!(
            "block RAM output registers: {} {RAM} ports set to OUTREG, {} {FF} absorbed, {} ports left NOREG\n",
            self.ports,
            self.ffs,
            self.refused()
        );
        for n in &self.notes {
            let what = match &n.verdict {
                Verdict::Absorbed(ffs) => format!("OUTREG, absorbed {}", ffs.join(", ")),
                Verdict::Refused(why) => format!("left NOREG: {why}"),
                Verdict::Unused => "no read data bit is read".to_string(),
            };
            s.push_str(&format!("{} port {}: {what}\n", n.cell, n.port));
        }
        s
    }
}

/// A parameter as a string, without yosys's trailing padding.
fn text<'a>(cell: &'a Value, name: &str) -> Option<&'a str> {
    cell.get("parameters")?
        .get(name)?
        .as_str()
        .map(|s| s.trim_end_matches(' '))
}

/// An integer parameter (yosys writes them as bit strings).
fn int(cell: &Value, name: &str) -> Option<u64> {
    match cell.get("parameters")?.get(name)? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) if !s.is_empty() && s.len() <= 64 => u64::from_str_radix(s, 2).ok(),
        _ => None,
    }
}

/// The bits connected to a cell's pin.
fn conn<'a>(cell: &'a Value, pin: &str) -> Option<&'a [Value]> {
    cell.get("connections")?
        .get(pin)?
        .as_array()
        .map(Vec::as_slice)
}

/// The net of a one-bit connection.
fn net(bits: Option<&[Value]>) -> Option<u64> {
    match bits? {
        [b] => b.as_u64(),
        _ => None,
    }
}

/// Whether a connection is the one constant bit `c` (`"0"`, `"1"`).
fn constant(bits: Option<&[Value]>, c: &str) -> bool {
    matches!(bits, Some([Value::String(s)]) if s == c)
}

/// A connection for messages.
fn show(bits: Option<&[Value]>) -> String {
    match bits {
        None | Some([]) => "unconnected".into(),
        Some([Value::String(s)]) => format!("the constant {s}"),
        Some([b]) => format!("net {b}"),
        Some(v) => format!("{} bits", v.len()),
    }
}

/// A parameter for messages.
fn show_param(cell: &Value, name: &str) -> String {
    match text(cell, name) {
        Some(s) => format!("{name} {s}"),
        None => format!("no {name}"),
    }
}

/// Cell inputs per net: (cell, pin). A pin counts as an input unless the
/// cell says it is an output.
type Sinks<'a> = HashMap<u64, Vec<(&'a str, &'a str)>>;

fn sinks(cells: &serde_json::Map<String, Value>) -> Sinks<'_> {
    let mut map: Sinks<'_> = HashMap::new();
    for (name, cell) in cells {
        let Some(conns) = cell.get("connections").and_then(Value::as_object) else {
            continue;
        };
        for (pin, bits) in conns {
            let dir = cell
                .get("port_directions")
                .and_then(|d| d.get(pin))
                .and_then(Value::as_str);
            if dir == Some("output") {
                continue;
            }
            for b in bits.as_array().into_iter().flatten() {
                if let Some(n) = b.as_u64() {
                    map.entry(n)
                        .or_default()
                        .push((name.as_str(), pin.as_str()));
                }
            }
        }
    }
    map
}

/// One read data bit moved to a flip-flop's `Q` net.
#[derive(Debug)]
struct Move {
    pin: String,
    index: usize,
    ff: String,
    q: u64,
}

/// A port to convert.
#[derive(Debug)]
struct Plan {
    ram: String,
    port: char,
    moves: Vec<Move>,
}

/// What a port's analysis finds.
enum Found {
    Convert(Vec<Move>),
    Unused,
}

/// The netlist context a port is checked in.
struct Ctx<'a> {
    cells: &'a serde_json::Map<String, Value>,
    sinks: Sinks<'a>,
    port_bits: HashSet<u64>,
}

/// Checks the RAM's side of port `p`.
fn check_ram(ram: &Value, p: char) -> Result<(), String> {
    let regmode = format!("REGMODE_{p}");
    if text(ram, &regmode) != Some("NOREG") {
        return Err(format!("{} (not NOREG)", show_param(ram, &regmode)));
    }
    for w in ["DATA_WIDTH_A", "DATA_WIDTH_B"] {
        match int(ram, w) {
            Some(36) => return Err(format!("{w} 36 (pseudo-dual-port mode)")),
            Some(_) => {}
            None => return Err(format!("no integer {w}")),
        }
    }
    let clkmux = format!("CLK{p}MUX");
    if text(ram, &clkmux) != Some(format!("CLK{p}").as_str()) {
        return Err(format!(
            "{} (the port's clock is inverted or unknown)",
            show_param(ram, &clkmux)
        ));
    }
    let clk = format!("CLK{p}");
    if net(conn(ram, &clk)).is_none() {
        return Err(format!("CLK{p} is {}", show(conn(ram, &clk))));
    }
    let oce = format!("OCE{p}");
    if !constant(conn(ram, &oce), "1") {
        return Err(format!(
            "OCE{p} is {} (the output register would not load every cycle)",
            show(conn(ram, &oce))
        ));
    }
    let rst = format!("RST{p}");
    if !constant(conn(ram, &rst), "0") {
        return Err(format!(
            "RST{p} is {} (the output register would be reset)",
            show(conn(ram, &rst))
        ));
    }
    let ce = format!("CE{p}");
    if !constant(conn(ram, &ce), "1") {
        return Err(format!("CE{p} is {} (a read enable)", show(conn(ram, &ce))));
    }
    match text(ram, "GSR") {
        Some("DISABLED" | "ENABLED") => Ok(()),
        _ => Err(format!(
            "{} (neither DISABLED nor ENABLED)",
            show_param(ram, "GSR")
        )),
    }
}

/// Checks one flip-flop loaded from a read data bit of `ram`'s port `p`.
fn check_ff(
    name: &str,
    ff: &Value,
    ram: &Value,
    p: char,
    ram_do: &HashSet<u64>,
) -> Result<u64, String> {
    let who = format!("{FF} `{name}`");
    if text(ff, "CLKMUX") != Some("CLK") {
        return Err(format!(
            "{who}: {} (not the rising edge)",
            show_param(ff, "CLKMUX")
        ));
    }
    let clk = net(conn(ff, "CLK"));
    if clk.is_none() || clk != net(conn(ram, &format!("CLK{p}"))) {
        return Err(format!(
            "{who}: clock {}, the RAM port's is {}",
            show(conn(ff, "CLK")),
            show(conn(ram, &format!("CLK{p}")))
        ));
    }
    match text(ff, "CEMUX") {
        Some("1") => {}
        Some("CE") if constant(conn(ff, "CE"), "1") => {}
        _ => {
            return Err(format!(
                "{who}: a clock enable ({}, CE {})",
                show_param(ff, "CEMUX"),
                show(conn(ff, "CE"))
            ))
        }
    }
    let lsr = conn(ff, "LSR");
    if text(ff, "LSRMUX") != Some("LSR") || !(lsr.is_none() || constant(lsr, "0")) {
        return Err(format!(
            "{who}: a set or reset ({}, LSR {})",
            show_param(ff, "LSRMUX"),
            show(lsr)
        ));
    }
    if text(ff, "REGSET") != Some("RESET") {
        return Err(format!(
            "{who}: {} (powers up 1; the output register powers up 0)",
            show_param(ff, "REGSET")
        ));
    }
    if text(ff, "GSR") != text(ram, "GSR") {
        return Err(format!(
            "{who}: {}, the RAM's {}",
            show_param(ff, "GSR"),
            show_param(ram, "GSR")
        ));
    }
    match net(conn(ff, "Q")) {
        Some(q) if !ram_do.contains(&q) => Ok(q),
        _ => Err(format!("{who}: Q is {}", show(conn(ff, "Q")))),
    }
}

/// The analysis of port `p` of the DP16KD `ram_name`.
fn check_port(
    ctx: &Ctx<'_>,
    ram_name: &str,
    p: char,
    taken: &HashSet<u64>,
) -> Result<Found, String> {
    let ram = &ctx.cells[ram_name];
    let pins: Vec<String> = (0..DO_BITS).map(|i| format!("DO{p}{i}")).collect();
    // Every read data bit that is a net: (pin, index, net).
    let mut bits = vec![];
    for pin in &pins {
        for (i, b) in conn(ram, pin).into_iter().flatten().enumerate() {
            if let Some(n) = b.as_u64() {
                bits.push((pin.as_str(), i, n));
            }
        }
    }
    let used = |n: &u64| ctx.sinks.contains_key(n) || ctx.port_bits.contains(n);
    if !bits.iter().any(|(_, _, n)| used(n)) {
        return Ok(Found::Unused);
    }
    check_ram(ram, p)?;
    let ram_do: HashSet<u64> = bits.iter().map(|&(_, _, n)| n).collect();
    let mut moves = vec![];
    let mut qs = HashSet::new();
    for &(pin, index, n) in &bits {
        if ctx.port_bits.contains(&n) {
            return Err(format!("{pin} (net {n}) is a port of the module"));
        }
        let sinks = ctx.sinks.get(&n).map(Vec::as_slice).unwrap_or(&[]);
        let &(ff_name, ff_pin) = match sinks {
            [] => continue,
            [one] => one,
            more => {
                return Err(format!(
                    "{pin} (net {n}) drives {} inputs ({})",
                    more.len(),
                    more.iter()
                        .map(|(c, p)| format!("{c}.{p}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        };
        let ff = &ctx.cells[ff_name];
        let t = ff.get("type").and_then(Value::as_str).unwrap_or("?");
        if t != FF || ff_pin != "DI" {
            return Err(format!(
                "{pin} (net {n}) drives {ff_name}.{ff_pin}, a {t}, not a {FF} DI"
            ));
        }
        let q = check_ff(ff_name, ff, ram, p, &ram_do)?;
        if taken.contains(&q) || !qs.insert(q) {
            return Err(format!(
                "{FF} `{ff_name}`: Q net {q} is another absorbed flip-flop's"
            ));
        }
        moves.push(Move {
            pin: pin.to_string(),
            index,
            ff: ff_name.to_string(),
            q,
        });
    }
    Ok(Found::Convert(moves))
}

/// Absorbs, in module `top` of `netlist`, the flip-flops that register
/// DP16KD read outputs into the RAMs' output registers (module
/// documentation). The netlist is changed in place; nothing is changed for
/// a port that is refused.
pub fn absorb(netlist: &mut Value, top: &str) -> Result<Outcome> {
    let module = netlist
        .get("modules")
        .and_then(|m| m.get(top))
        .ok_or_else(|| anyhow!("module {top} missing from the netlist"))?;
    let Some(cells) = module.get("cells").and_then(Value::as_object) else {
        return Ok(Outcome::default());
    };
    let port_bits: HashSet<u64> = module
        .get("ports")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values())
        .filter_map(|p| p.get("bits").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    let ctx = Ctx {
        cells,
        sinks: sinks(cells),
        port_bits,
    };
    let mut rams: Vec<&str> = cells
        .iter()
        .filter(|(_, c)| c.get("type").and_then(Value::as_str) == Some(RAM))
        .map(|(n, _)| n.as_str())
        .collect();
    rams.sort_unstable();

    let mut outcome = Outcome::default();
    let mut plans = vec![];
    let mut taken: HashSet<u64> = HashSet::new();
    for ram in rams {
        for p in ['A', 'B'] {
            let verdict = match check_port(&ctx, ram, p, &taken) {
                Ok(Found::Unused) => Verdict::Unused,
                Err(why) => Verdict::Refused(why),
                Ok(Found::Convert(moves)) => {
                    taken.extend(moves.iter().map(|m| m.q));
                    let ffs = moves.iter().map(|m| m.ff.clone()).collect();
                    plans.push(Plan {
                        ram: ram.to_string(),
                        port: p,
                        moves,
                    });
                    Verdict::Absorbed(ffs)
                }
            };
            outcome.notes.push(PortNote {
                cell: ram.to_string(),
                port: p,
                verdict,
            });
        }
    }

    let cells = netlist
        .get_mut("modules")
        .and_then(|m| m.get_mut(top))
        .and_then(|m| m.get_mut("cells"))
        .and_then(Value::as_object_mut)
        .expect("checked above");
    for plan in plans {
        for m in &plan.moves {
            if cells.remove(&m.ff).is_none() {
                bail!("{FF} {} absorbed twice", m.ff);
            }
        }
        let ram = cells.get_mut(&plan.ram).expect("a RAM of the netlist");
        ram["parameters"][format!("REGMODE_{}", plan.port)] = Value::from("OUTREG");
        for m in &plan.moves {
            ram["connections"][&m.pin][m.index] = Value::from(m.q);
        }
        outcome.ports += 1;
        outcome.ffs += plan.moves.len();
    }
    Ok(outcome)
}

/// Runs [`absorb`] on the netlist file `input` and writes the result to
/// `output`, atomically: yosys's bytes unchanged when nothing was absorbed.
/// Returns the outcome and the netlist after the pass.
pub fn absorb_file(input: &Path, output: &Path, top: &str) -> Result<(Outcome, Value)> {
    let bytes = std::fs::read(input).with_context(|| format!("reading {}", input.display()))?;
    let mut json: Value =
        serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", input.display()))?;
    let outcome = absorb(&mut json, top).with_context(|| format!("netlist {}", input.display()))?;
    let written = if outcome.ports == 0 {
        bytes
    } else {
        let mut v = serde_json::to_vec(&json)?;
        v.push(b'\n');
        v
    };
    fsutil::write_atomic(output, &written)
        .with_context(|| format!("writing {}", output.display()))?;
    Ok((outcome, json))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Module `t`: a DP16KD whose port B reads two bits into two plain
    /// flip-flops on the RAM's clock (net 2); port A only writes. The
    /// flip-flops' outputs (20, 21) feed a LUT whose output is the port
    /// `rd`. Bit 2 of DOB is a constant, bit 0 of DOA an unread net.
    fn base() -> Value {
        let ff = |di: u64, q: u64| {
            json!({
                "type": "TRELLIS_FF",
                "parameters": {"CEMUX": "1 ", "CLKMUX": "CLK", "GSR": "DISABLED",
                               "LSRMUX": "LSR", "REGSET": "RESET"},
                "port_directions": {"CLK": "input", "DI": "input", "LSR": "input", "Q": "output"},
                "connections": {"CLK": [2], "DI": [di], "LSR": ["0"], "Q": [q]}
            })
        };
        json!({"modules": {"t": {
            "ports": {
                "clk": {"direction": "input", "bits": [2]},
                "a": {"direction": "input", "bits": [3]},
                "rd": {"direction": "output", "bits": [22]}
            },
            "cells": {
                "ram": {
                    "type": "DP16KD",
                    "parameters": {
                        "REGMODE_A": "NOREG", "REGMODE_B": "NOREG",
                        "DATA_WIDTH_A": "00000000000000000000000000001001",
                        "DATA_WIDTH_B": "00000000000000000000000000001001",
                        "CLKAMUX": "CLKA", "CLKBMUX": "CLKB", "GSR": "DISABLED",
                        "WRITEMODE_A": "READBEFOREWRITE", "RESETMODE": "SYNC"
                    },
                    "port_directions": {
                        "CLKA": "input", "CLKB": "input", "CEA": "input", "CEB": "input",
                        "OCEA": "input", "OCEB": "input", "RSTA": "input", "RSTB": "input",
                        "WEA": "input", "DIA0": "input", "ADB0": "input",
                        "DOA0": "output", "DOB0": "output", "DOB1": "output", "DOB2": "output"
                    },
                    "connections": {
                        "CLKA": [2], "CLKB": [2], "CEA": ["1"], "CEB": ["1"],
                        "OCEA": ["1"], "OCEB": ["1"], "RSTA": ["0"], "RSTB": ["0"],
                        "WEA": [3], "DIA0": [3], "ADB0": [3],
                        "DOA0": [12], "DOB0": [10], "DOB1": [11], "DOB2": ["x"]
                    }
                },
                "ff0": ff(10, 20),
                "ff1": ff(11, 21),
                "lut": {
                    "type": "LUT4",
                    "parameters": {"INIT": "0110011001100110"},
                    "port_directions": {"A": "input", "B": "input", "Z": "output"},
                    "connections": {"A": [20], "B": [21], "Z": [22]}
                }
            }
        }}})
    }

    fn cell<'a>(n: &'a mut Value, name: &str) -> &'a mut Value {
        &mut n["modules"]["t"]["cells"][name]
    }

    fn note(o: &Outcome, port: char) -> &Verdict {
        &o.notes
            .iter()
            .find(|n| n.port == port)
            .expect("a note")
            .verdict
    }

    /// `change` applied to [`base`]: the pass refuses port B, changes
    /// nothing, and the reason is returned.
    fn refused(change: impl FnOnce(&mut Value)) -> String {
        let mut n = base();
        change(&mut n);
        let before = n.clone();
        let o = absorb(&mut n, "t").unwrap();
        assert_eq!((o.ports, o.ffs), (0, 0), "{}", o.log());
        assert_eq!(n, before, "a refused port was changed");
        assert_eq!(o.refused(), 1, "{}", o.log());
        match note(&o, 'B') {
            Verdict::Refused(why) => why.clone(),
            v => panic!("port B: {v:?}"),
        }
    }

    #[test]
    fn registers_on_a_ram_read_become_its_output_register() {
        let mut n = base();
        let o = absorb(&mut n, "t").unwrap();
        assert_eq!((o.ports, o.ffs, o.refused()), (1, 2, 0), "{}", o.log());
        assert_eq!(note(&o, 'A'), &Verdict::Unused);
        assert_eq!(
            note(&o, 'B'),
            &Verdict::Absorbed(vec!["ff0".into(), "ff1".into()])
        );
        // Written and read back, as nextpnr reads it.
        let text = serde_json::to_string(&n).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        let cells = back["modules"]["t"]["cells"].as_object().unwrap();
        let mut names: Vec<&str> = cells.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["lut", "ram"]);
        let ram = &cells["ram"];
        assert_eq!(ram["parameters"]["REGMODE_B"], "OUTREG");
        assert_eq!(ram["parameters"]["REGMODE_A"], "NOREG");
        assert_eq!(ram["connections"]["DOB0"], json!([20]));
        assert_eq!(ram["connections"]["DOB1"], json!([21]));
        assert_eq!(ram["connections"]["DOB2"], json!(["x"]));
        assert_eq!(ram["connections"]["DOA0"], json!([12]));
        assert_eq!(cells["lut"], base()["modules"]["t"]["cells"]["lut"]);
        assert!(
            o.log().contains("ram port B: OUTREG, absorbed ff0, ff1"),
            "{}",
            o.log()
        );
    }

    #[test]
    fn a_clock_enable_tied_to_1_is_no_clock_enable() {
        let mut n = base();
        let ff = cell(&mut n, "ff1");
        ff["parameters"]["CEMUX"] = json!("CE");
        ff["connections"]["CE"] = json!(["1"]);
        let o = absorb(&mut n, "t").unwrap();
        assert_eq!((o.ports, o.ffs), (1, 2), "{}", o.log());
    }

    #[test]
    fn an_unconnected_set_reset_is_no_set_or_reset() {
        let mut n = base();
        let conns = cell(&mut n, "ff0")["connections"].as_object_mut().unwrap();
        conns.remove("LSR");
        let o = absorb(&mut n, "t").unwrap();
        assert_eq!((o.ports, o.ffs), (1, 2), "{}", o.log());
    }

    #[test]
    fn a_flip_flop_with_a_clock_enable_is_refused() {
        let why = refused(|n| {
            let ff = cell(n, "ff1");
            ff["parameters"]["CEMUX"] = json!("CE");
            ff["connections"]["CE"] = json!([3]);
        });
        assert!(
            why.contains("`ff1`: a clock enable (CEMUX CE, CE net 3)"),
            "{why}"
        );
    }

    #[test]
    fn a_flip_flop_with_its_set_or_reset_driven_is_refused() {
        let why = refused(|n| cell(n, "ff0")["connections"]["LSR"] = json!([3]));
        assert!(
            why.contains("`ff0`: a set or reset (LSRMUX LSR, LSR net 3)"),
            "{why}"
        );
        let why = refused(|n| cell(n, "ff0")["parameters"]["LSRMUX"] = json!("INV"));
        assert!(why.contains("`ff0`: a set or reset (LSRMUX INV"), "{why}");
    }

    #[test]
    fn a_flip_flop_on_another_clock_is_refused() {
        let why = refused(|n| cell(n, "ff1")["connections"]["CLK"] = json!([3]));
        assert!(
            why.contains("`ff1`: clock net 3, the RAM port's is net 2"),
            "{why}"
        );
    }

    #[test]
    fn an_inverted_clock_on_either_side_is_refused() {
        let why = refused(|n| cell(n, "ff0")["parameters"]["CLKMUX"] = json!("INV"));
        assert!(why.contains("`ff0`: CLKMUX INV"), "{why}");
        let why = refused(|n| cell(n, "ram")["parameters"]["CLKBMUX"] = json!("INV"));
        assert!(why.contains("CLKBMUX INV"), "{why}");
    }

    #[test]
    fn a_read_data_bit_with_two_readers_is_refused() {
        let why = refused(|n| {
            n["modules"]["t"]["cells"]["lut2"] = json!({
                "type": "LUT4",
                "port_directions": {"A": "input", "Z": "output"},
                "connections": {"A": [11], "Z": [23]}
            });
        });
        assert!(why.contains("DOB1 (net 11) drives 2 inputs"), "{why}");
    }

    #[test]
    fn a_read_data_bit_into_logic_or_another_pin_is_refused() {
        let why = refused(|n| {
            let cells = n["modules"]["t"]["cells"].as_object_mut().unwrap();
            cells.remove("ff1");
            cells["lut"]["connections"]["B"] = json!([11]);
        });
        assert!(
            why.contains("DOB1 (net 11) drives lut.B, a LUT4, not a TRELLIS_FF DI"),
            "{why}"
        );
        let why = refused(|n| {
            let ff = cell(n, "ff1");
            ff["parameters"]["LSRMUX"] = json!("LSR");
            ff["connections"]["LSR"] = json!([11]);
            ff["connections"]["DI"] = json!([3]);
        });
        assert!(
            why.contains("drives ff1.LSR, a TRELLIS_FF, not a TRELLIS_FF DI"),
            "{why}"
        );
    }

    #[test]
    fn a_read_data_bit_that_is_a_module_port_is_refused() {
        let why = refused(|n| {
            n["modules"]["t"]["ports"]["raw"] = json!({"direction": "output", "bits": [10]});
        });
        assert!(
            why.contains("DOB0 (net 10) is a port of the module"),
            "{why}"
        );
    }

    #[test]
    fn an_output_clock_enable_that_is_not_1_is_refused() {
        let why = refused(|n| cell(n, "ram")["connections"]["OCEB"] = json!([3]));
        assert!(why.contains("OCEB is net 3"), "{why}");
        let why = refused(|n| cell(n, "ram")["connections"]["OCEB"] = json!(["0"]));
        assert!(why.contains("OCEB is the constant 0"), "{why}");
    }

    #[test]
    fn a_ram_port_reset_that_is_not_0_is_refused() {
        let why = refused(|n| cell(n, "ram")["connections"]["RSTB"] = json!([3]));
        assert!(why.contains("RSTB is net 3"), "{why}");
    }

    #[test]
    fn a_read_enable_is_refused() {
        let why = refused(|n| cell(n, "ram")["connections"]["CEB"] = json!([3]));
        assert!(why.contains("CEB is net 3 (a read enable)"), "{why}");
    }

    #[test]
    fn a_port_already_outreg_is_left_alone() {
        let why = refused(|n| cell(n, "ram")["parameters"]["REGMODE_B"] = json!("OUTREG"));
        assert!(why.contains("REGMODE_B OUTREG (not NOREG)"), "{why}");
    }

    #[test]
    fn a_flip_flop_that_powers_up_1_is_refused() {
        let why = refused(|n| cell(n, "ff0")["parameters"]["REGSET"] = json!("SET"));
        assert!(why.contains("`ff0`: REGSET SET"), "{why}");
    }

    #[test]
    fn a_global_set_reset_that_differs_is_refused() {
        let why = refused(|n| cell(n, "ff0")["parameters"]["GSR"] = json!("ENABLED"));
        assert!(
            why.contains("`ff0`: GSR ENABLED, the RAM's GSR DISABLED"),
            "{why}"
        );
        // A value that is neither, on the RAM and the flip-flops alike.
        let why = refused(|n| {
            for c in ["ram", "ff0", "ff1"] {
                cell(n, c)["parameters"]["GSR"] = json!("AUTO");
            }
        });
        assert!(
            why.contains("GSR AUTO (neither DISABLED nor ENABLED)"),
            "{why}"
        );
        // Both enabled: both cleared by the global set/reset.
        let mut n = base();
        for c in ["ram", "ff0", "ff1"] {
            cell(&mut n, c)["parameters"]["GSR"] = json!("ENABLED");
        }
        assert_eq!(absorb(&mut n, "t").unwrap().ffs, 2);
    }

    #[test]
    fn pseudo_dual_port_mode_and_missing_parameters_are_refused() {
        let why = refused(|n| {
            cell(n, "ram")["parameters"]["DATA_WIDTH_A"] = json!("00000000000000000000000000100100")
        });
        assert!(why.contains("DATA_WIDTH_A 36"), "{why}");
        let why = refused(|n| {
            let p = cell(n, "ff1")["parameters"].as_object_mut().unwrap();
            p.remove("CEMUX");
        });
        assert!(why.contains("`ff1`: a clock enable (no CEMUX"), "{why}");
    }

    #[test]
    fn two_flip_flops_on_one_q_net_are_refused() {
        let why = refused(|n| cell(n, "ff1")["connections"]["Q"] = json!([20]));
        assert!(
            why.contains("`ff1`: Q net 20 is another absorbed flip-flop's"),
            "{why}"
        );
    }

    #[test]
    fn a_flip_flop_driving_a_read_data_net_is_refused() {
        let why = refused(|n| cell(n, "ff0")["connections"]["Q"] = json!([11]));
        assert!(why.contains("`ff0`: Q is net 11"), "{why}");
    }

    #[test]
    fn a_netlist_without_block_ram_is_written_byte_for_byte() {
        let dir = std::env::temp_dir().join(format!("ccrtl-outreg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // No DP16KD (yosys's own spacing, keys out of order).
        let mut n = base();
        n["modules"]["t"]["cells"]
            .as_object_mut()
            .unwrap()
            .remove("ram");
        let text = format!("{{\n  \"z\": 1,\n  \"modules\": {}\n}}\n", n["modules"]);
        std::fs::write(dir.join("in.json"), &text).unwrap();
        let (o, _) = absorb_file(&dir.join("in.json"), &dir.join("out.json"), "t").unwrap();
        assert_eq!((o.ports, o.ffs, o.notes.len()), (0, 0, 0));
        assert_eq!(std::fs::read_to_string(dir.join("out.json")).unwrap(), text);
        // With it: the written netlist is the one returned.
        std::fs::write(dir.join("in.json"), base().to_string()).unwrap();
        let (o, json) = absorb_file(&dir.join("in.json"), &dir.join("out.json"), "t").unwrap();
        assert_eq!(o.ffs, 2);
        let back: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
        assert_eq!(back, json);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
