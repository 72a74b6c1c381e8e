//! Reading yosys's JSON netlists and logs: ports, cell counts by resource
//! class, latches.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The device families, as far as counting cells goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Ecp5,
    Ice40,
    Xilinx7,
}

/// Direction of a port of the synthesized top module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
    InOut,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: usize,
}

/// The resources of one synthesized design, by class. Every cell is in
/// exactly one class; `cells` has them all by type.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Resources {
    pub luts: u64,
    pub ffs: u64,
    pub carry: u64,
    pub dsp: u64,
    pub bram: u64,
    /// `None` where the family has no LUT RAM (iCE40).
    pub lutram: Option<u64>,
    pub other: u64,
    /// The cells counted in `other`, by type.
    pub other_cells: BTreeMap<String, u64>,
    pub cells: BTreeMap<String, u64>,
}

/// A netlist as yosys writes it with `write_json` / `-json`.
pub fn load(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

fn module<'a>(netlist: &'a Value, top: &str) -> Result<&'a Value> {
    netlist
        .get("modules")
        .and_then(|m| m.get(top))
        .ok_or_else(|| anyhow!("module {top} missing from the netlist"))
}

/// The ports of `top`, in their declaration order. (The JSON object is
/// read with its keys sorted; yosys numbers the port bits in declaration
/// order, so the ports are put back in order by their first bit's number.
/// Ports of constant bits only go last.)
pub fn ports(netlist: &Value, top: &str) -> Result<Vec<Port>> {
    let m = module(netlist, top)?;
    let Some(ports) = m.get("ports").and_then(|p| p.as_object()) else {
        bail!("module {top} has no port list in the netlist");
    };
    let first_bit = |p: &Value| {
        p.get("bits")
            .and_then(|b| b.as_array())
            .and_then(|b| b.iter().filter_map(|x| x.as_u64()).min())
            .unwrap_or(u64::MAX)
    };
    let mut ordered: Vec<(&String, &Value)> = ports.iter().collect();
    ordered.sort_by_key(|(name, p)| (first_bit(p), name.to_string()));
    ordered
        .into_iter()
        .map(|(name, p)| {
            let dir = match p.get("direction").and_then(|d| d.as_str()) {
                Some("input") => Dir::In,
                Some("output") => Dir::Out,
                Some("inout") => Dir::InOut,
                d => bail!("port {name} of {top} has direction {d:?}"),
            };
            let width = p
                .get("bits")
                .and_then(|b| b.as_array())
                .map_or(0, |b| b.len());
            Ok(Port {
                name: name.clone(),
                dir,
                width,
            })
        })
        .collect()
}

fn is_leaf(m: &Value) -> bool {
    let attr = |k: &str| m.get("attributes").and_then(|a| a.get(k)).is_some();
    let no_cells = m
        .get("cells")
        .and_then(|c| c.as_object())
        .is_none_or(|c| c.is_empty());
    attr("blackbox") || attr("whitebox") || no_cells
}

/// Cell types of `top`, counted through any submodule that was not
/// flattened. yosys's `$scopeinfo` bookkeeping cells and cells whose type
/// is in `skip` (a blackboxed block) are left out.
pub fn cell_counts(netlist: &Value, top: &str, skip: &[&str]) -> Result<BTreeMap<String, u64>> {
    let modules = netlist
        .get("modules")
        .ok_or_else(|| anyhow!("no modules in the netlist"))?;
    let mut counts = BTreeMap::new();
    fn walk(
        modules: &Value,
        name: &str,
        skip: &[&str],
        counts: &mut BTreeMap<String, u64>,
        depth: usize,
    ) -> Result<()> {
        if depth > 64 {
            bail!("module hierarchy deeper than 64 at {name}");
        }
        let m = modules
            .get(name)
            .ok_or_else(|| anyhow!("module {name} missing from the netlist"))?;
        let Some(cells) = m.get("cells").and_then(|c| c.as_object()) else {
            return Ok(());
        };
        for cell in cells.values() {
            let t = cell.get("type").and_then(|t| t.as_str()).unwrap_or("?");
            if t == "$scopeinfo" || skip.contains(&t) {
                continue;
            }
            match modules.get(t) {
                Some(sub) if !is_leaf(sub) => walk(modules, t, skip, counts, depth + 1)?,
                _ => *counts.entry(t.to_string()).or_insert(0) += 1,
            }
        }
        Ok(())
    }
    walk(modules, top, skip, &mut counts, 0)?;
    Ok(counts)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Lut,
    Ff,
    Carry,
    Dsp,
    Bram,
    LutRam,
    Other,
}

fn class(family: Family, t: &str) -> Class {
    use Class::*;
    match family {
        Family::Ecp5 => match t {
            "LUT4" => Lut,
            "TRELLIS_FF" => Ff,
            "CCU2C" => Carry,
            "MULT18X18D" | "ALU54B" => Dsp,
            "DP16KD" | "PDPW16KD" => Bram,
            "TRELLIS_DPR16X4" => LutRam,
            _ => Other,
        },
        Family::Ice40 => match t {
            "SB_LUT4" => Lut,
            "SB_CARRY" => Carry,
            "SB_MAC16" => Dsp,
            "SB_SPRAM256KA" => Bram,
            _ if t.starts_with("SB_DFF") => Ff,
            _ if t.starts_with("SB_RAM40_4K") => Bram,
            _ => Other,
        },
        Family::Xilinx7 => match t {
            "LUT1" | "LUT2" | "LUT3" | "LUT4" | "LUT5" | "LUT6" | "LUT6_2" => Lut,
            "FDRE" | "FDSE" | "FDCE" | "FDPE" => Ff,
            "CARRY4" => Carry,
            "DSP48E1" => Dsp,
            _ if t.starts_with("RAMB") => Bram,
            // Distributed RAM and shift-register LUTs ("LUT as memory").
            _ if t.starts_with("RAM") || t.starts_with("SRL") => LutRam,
            _ => Other,
        },
    }
}

/// Sorts `cells` into resource classes.
pub fn classify(family: Family, cells: &BTreeMap<String, u64>) -> Resources {
    let mut r = Resources {
        lutram: (family != Family::Ice40).then_some(0),
        cells: cells.clone(),
        ..Resources::default()
    };
    for (t, &n) in cells {
        match class(family, t) {
            Class::Lut => r.luts += n,
            Class::Ff => r.ffs += n,
            Class::Carry => r.carry += n,
            Class::Dsp => r.dsp += n,
            Class::Bram => r.bram += n,
            Class::LutRam => *r.lutram.get_or_insert(0) += n,
            Class::Other => {
                r.other += n;
                r.other_cells.insert(t.clone(), n);
            }
        }
    }
    r
}

/// The signals a yosys log says a latch was inferred for, as
/// `module.signal` (yosys 0.23 says it plainly, 0.70 as an `ERROR:` or a
/// `Warning:` depending on the flow; "No latch inferred" lines are not
/// counted).
pub fn latches_in_log(log: &str) -> Vec<String> {
    const KEY: &str = "Latch inferred for signal `";
    let mut found = vec![];
    for line in log.lines() {
        let Some(at) = line.find(KEY) else { continue };
        let rest = &line[at + KEY.len()..];
        let name = rest.split('\'').next().unwrap_or(rest);
        let clean: String = name.replace('\\', "");
        if !found.contains(&clean) {
            found.push(clean);
        }
    }
    found
}

/// Latch cells left in a netlist (`$_DLATCH_*`, Xilinx `LDCE`/`LDPE`, ...).
pub fn latch_cells(cells: &BTreeMap<String, u64>) -> Vec<String> {
    cells
        .keys()
        .filter(|t| {
            let u = t.to_ascii_uppercase();
            u.contains("LATCH") || u.starts_with("LDCE") || u.starts_with("LDPE")
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latch_lines_of_both_yosys_versions_are_found_and_no_latch_lines_are_not() {
        let log = "\
No latch inferred for signal `\\ccrtl_cp.\\q_depth' from process `x'.
Latch inferred for signal `\\ccrtl_l.\\l' from process `\\ccrtl_l.$proc$latch.v:3$1': $auto$1
ERROR: Latch inferred for signal `\\ccrtl_l.\\m' from process `y': $auto$2
Warning: Latch inferred for signal `\\ccrtl_l.\\l' from process `z'";
        assert_eq!(latches_in_log(log), vec!["ccrtl_l.l", "ccrtl_l.m"]);
    }

    #[test]
    fn ports_come_back_in_declaration_order() {
        let json: Value = serde_json::from_str(
            r#"{"modules": {"t": {"ports": {
                "zeta": {"direction": "input", "bits": [2]},
                "alpha": {"direction": "output", "bits": [5, 6]},
                "tied": {"direction": "output", "bits": ["0"]},
                "mid": {"direction": "input", "bits": [3, 4]}}}}}"#,
        )
        .unwrap();
        let p = ports(&json, "t").unwrap();
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["zeta", "mid", "alpha", "tied"]);
        assert_eq!((p[2].dir, p[2].width), (Dir::Out, 2));
    }

    #[test]
    fn every_cell_lands_in_one_class() {
        let cells: BTreeMap<String, u64> = [
            ("LUT4", 10),
            ("TRELLIS_FF", 7),
            ("CCU2C", 3),
            ("MULT18X18D", 2),
            ("DP16KD", 1),
            ("PFUMX", 4),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let r = classify(Family::Ecp5, &cells);
        assert_eq!((r.luts, r.ffs, r.carry, r.dsp, r.bram), (10, 7, 3, 2, 1));
        assert_eq!((r.lutram, r.other), (Some(0), 4));
        let total = r.luts + r.ffs + r.carry + r.dsp + r.bram + r.lutram.unwrap() + r.other;
        assert_eq!(total, cells.values().sum::<u64>());
    }
}
