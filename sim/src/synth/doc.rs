//! `docs/fpga.md` from `ccrtl synth` reports (`ccrtl synth-doc`).

use std::collections::BTreeMap;

use super::{mhz, outreg_notes, outreg_row, resource_rows, Report};
use crate::synth::netlist::Resources;

fn md_row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

fn md_table(header: &[String], rows: &[Vec<String>]) -> String {
    let mut s = md_row(header);
    s.push_str(&md_row(&vec!["---".to_string(); header.len()]));
    for r in rows {
        s.push_str(&md_row(r));
    }
    s
}

/// The program name of a recorded command line, without its directory
/// (`./target/release/ccrtl synth ...` -> `ccrtl synth ...`).
fn short_command(c: &str) -> String {
    let mut parts = c.splitn(2, ' ');
    let prog = parts.next().unwrap_or("");
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    match parts.next() {
        Some(rest) => format!("{prog} {rest}"),
        None => prog.to_string(),
    }
}

/// A tool's path shortened to its name in a recorded command.
fn short_tools(cmd: &str) -> String {
    let mut parts = cmd.splitn(2, ' ');
    let prog = parts.next().unwrap_or("");
    let prog = prog.trim_matches('\'');
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    match parts.next() {
        Some(rest) => format!("{prog} {rest}"),
        None => prog.to_string(),
    }
}

/// A long tool-made name shortened in the middle (the full one is in the
/// JSON report).
fn short_name(n: &str) -> String {
    const MAX: usize = 72;
    let chars: Vec<char> = n.chars().collect();
    if chars.len() <= MAX {
        return n.to_string();
    }
    let head: String = chars[..MAX / 2].iter().collect();
    let tail: String = chars[chars.len() - MAX / 2 + 4..].iter().collect();
    format!("{head}...{tail}")
}

/// The yosys synthesis command in a recorded yosys command line
/// (`synth_ecp5`, `synth_xilinx -family xc7 ...`).
fn synth_script(cmd: &str) -> String {
    match cmd.find("; synth_") {
        Some(i) => cmd[i + 2..].split(" -top").next().unwrap_or("").to_string(),
        None => String::new(),
    }
}

fn resources_table(names: &[String], res: &[&Resources]) -> String {
    let mut header = vec![String::new()];
    header.extend(names.iter().cloned());
    let rows: Vec<Vec<String>> = resource_rows(res)
        .into_iter()
        .map(|(label, v)| {
            let mut r = vec![label.to_string()];
            r.extend(v);
            r
        })
        .collect();
    md_table(&header, &rows)
}

fn block_section(r: &Report) -> String {
    // One section per report: a block's default configuration under its
    // name, another shape (`--params FILE`) under the name and the file.
    let mut s = match r.verilog.origin.split_once("--params ") {
        Some((_, file)) => format!("## `{}`, `{}`\n\n", r.block, file),
        None => format!("## `{}`\n\n", r.block),
    };
    s.push_str(&format!(
        "Verilog: `{}` ({}), sha256 `{}`.",
        r.verilog.file, r.verilog.origin, r.verilog.sha256
    ));
    if !r.verilog.parameters.is_empty() {
        s.push_str(&format!(
            " Generation-time parameters: {}.",
            r.verilog
                .parameters
                .iter()
                .map(|p| format!("`{}`", p.split_whitespace().collect::<Vec<_>>().join(" ")))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    s.push_str(&format!(
        "\nProduced by `{}` in {:.0} s.\n\n",
        short_command(&r.command),
        r.wall_seconds
    ));

    let names: Vec<String> = r.devices.iter().map(|d| d.name.clone()).collect();
    s.push_str("### The block\n\nResources of the block synthesized alone (no wrapper):\n\n");
    let mut header = vec![String::new()];
    header.extend(names.iter().cloned());
    let mut rows: Vec<Vec<String>> =
        resource_rows(&r.devices.iter().map(|d| &d.block).collect::<Vec<_>>())
            .into_iter()
            .map(|(label, v)| {
                let mut row = vec![label.to_string()];
                row.extend(v);
                row
            })
            .collect();
    if let Some(v) = outreg_row(&r.devices) {
        let mut row = vec!["FFs absorbed into block RAM output registers".to_string()];
        row.extend(v);
        rows.push(row);
    }
    if r.pnr {
        let mut med = vec![format!("**Fmax, MHz** (median of {} seeds)", r.seeds.len())];
        let mut per = vec![format!(
            "Fmax per seed ({})",
            r.seeds
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )];
        for d in &r.devices {
            match &d.pnr {
                Some(p) => {
                    med.push(format!("**{}**", mhz(p.median_fmax_mhz)));
                    per.push(
                        p.runs
                            .iter()
                            .map(|x| mhz(x.fmax_mhz))
                            .collect::<Vec<_>>()
                            .join(", "),
                    );
                }
                None => {
                    med.push("no P&R".into());
                    per.push("-".into());
                }
            }
        }
        rows.push(med);
        rows.push(per);
    }
    s.push_str(&md_table(&header, &rows));
    s.push('\n');
    s.push_str(
        "LUTs are LUT4 (ECP5, iCE40) or LUT1-LUT6 (7-series); FFs every flip-flop type; carry \
         cells CCU2C (ECP5, two bits each), SB_CARRY (iCE40), CARRY4 (7-series, four bits each); \
         DSP MULT18X18D/ALU54B, SB_MAC16, DSP48E1; LUT RAM includes 7-series shift-register LUTs. \
         \"Other cells\" are the rest, by type:\n\n",
    );
    for d in &r.devices {
        let other: Vec<String> = d
            .block
            .other_cells
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        s.push_str(&format!(
            "- {}: {}\n",
            d.name,
            if other.is_empty() {
                "none".to_string()
            } else {
                other.join(", ")
            }
        ));
    }
    s.push('\n');
    let notes = outreg_notes(&r.devices);
    if !notes.is_empty() {
        s.push_str(
            "ECP5 netlists go through ccrtl's block RAM output-register pass before they are \
             counted and placed: a flip-flop loaded from a DP16KD read becomes the RAM's own output \
             register (fpga/README.md). The FFs above are counted after it.\n\n",
        );
        for n in notes {
            s.push_str(&format!("- {n}\n"));
        }
        s.push('\n');
    }
    for d in &r.devices {
        if let Some(why) = &d.no_fmax {
            s.push_str(&format!("{}: {why}.\n", d.name));
        }
    }

    let pnr: Vec<_> = r
        .devices
        .iter()
        .filter_map(|d| d.pnr.as_ref().map(|p| (d, p)))
        .collect();
    if !pnr.is_empty() {
        s.push_str(&format!(
            "\n### Critical paths\n\nThe post-route critical path of the median seed, from nextpnr's \
             \"Critical path report\" of the clock (target {} MHz). It starts at the first `Source` \
             cell (a register) and ends at the last `Sink` cell (a register's input). \"From\" and \
             \"to\" are the design's names that nextpnr's cell names are derived from: a register's \
             output (`x.q`, `x$q`, or a wire yosys preferred for the same net), the net into a \
             register (`x.d`), or a block input, where the path starts at the wrapper's shift \
             register feeding it.\n\n",
            r.freq_mhz
        ));
        let mut rows = vec![];
        for (d, p) in &pnr {
            let Some(c) = &p.critical_path else {
                rows.push(vec![
                    d.name.clone(),
                    p.median_seed.to_string(),
                    "no report".into(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]);
                continue;
            };
            let logic = match (c.logic_ns, c.routing_ns) {
                (Some(l), Some(r)) => format!("{:.2} ({l:.2} logic, {r:.2} routing)", c.delay_ns),
                _ => format!("{:.2}", c.delay_ns),
            };
            rows.push(vec![
                d.name.clone(),
                p.median_seed.to_string(),
                format!("`{}`", c.source.display()),
                format!("`{}`", c.sink.display()),
                logic,
                c.nets.to_string(),
            ]);
        }
        s.push_str(&md_table(
            &[
                "device".into(),
                "seed".into(),
                "from".into(),
                "to".into(),
                "delay, ns".into(),
                "nets".into(),
            ],
            &rows,
        ));
        s.push_str("\nThe cells and nets as nextpnr names them:\n\n");
        for (d, p) in &pnr {
            if let Some(c) = &p.critical_path {
                s.push_str(&format!(
                    "- {}: from cell `{}` pin `{}`, net `{}`; to cell `{}` pin `{}`, net `{}`\n",
                    d.name,
                    short_name(&c.source.cell),
                    c.source.port,
                    short_name(&c.source.net),
                    short_name(&c.sink.cell),
                    c.sink.port,
                    short_name(&c.sink.net)
                ));
            }
        }
    }

    if let Some(w) = &r.wrapper {
        s.push_str(&format!(
            "\n### The place-and-route wrapper\n\n`{}` (module `{}`): a {}-bit input shift register \
             fed from one pin, and the {} output bits registered and XOR-reduced in {} pipelined \
             stages into one pin (see [fpga/README.md](../fpga/README.md)). Its own resources are \
             not in the block's figures above; they are counted from {}:\n\n",
            w.file, w.module, w.data_input_bits, w.output_bits, w.xor_stages, w.resources_method
        ));
        let with: Vec<_> = r
            .devices
            .iter()
            .filter_map(|d| d.wrapper.as_ref().map(|w| (d.name.clone(), w)))
            .collect();
        let names: Vec<String> = with.iter().map(|(n, _)| n.clone()).collect();
        let res: Vec<&Resources> = with.iter().map(|(_, w)| *w).collect();
        s.push_str(&resources_table(&names, &res));
        s.push_str(
            "\nnextpnr's utilisation of the whole wrapped design (block and wrapper, after packing, \
             median seed):\n\n",
        );
        for (d, p) in &pnr {
            let keys = [
                "TRELLIS_COMB",
                "TRELLIS_FF",
                "MULT18X18D",
                "DP16KD",
                "ICESTORM_LC",
                "ICESTORM_DSP",
                "ICESTORM_RAM",
            ];
            let u: Vec<String> = keys
                .iter()
                .filter_map(|k| p.utilisation.get(*k).map(|[a, b]| format!("{k} {a}/{b}")))
                .collect();
            s.push_str(&format!("- {}: {}\n", d.name, u.join(", ")));
        }
    }

    s.push_str(&format!(
        "\n### Commands\n\nRun in the block's output directory (`build/synth/{}/`), in this order \
         (the place-and-route runs two at a time):\n\n```sh\n",
        r.block
    ));
    let mut seen = vec![];
    let mut cmds = vec![];
    for d in &r.devices {
        let steps = [
            (Some(&d.synthesis), d.outreg.as_ref()),
            (d.wrapped_synthesis.as_ref(), d.wrapped_outreg.as_ref()),
            (d.wrapper_synthesis.as_ref(), None),
        ];
        for (st, pass) in steps {
            let Some(st) = st else { continue };
            if !seen.contains(&st.command) {
                seen.push(st.command.clone());
                cmds.push(short_tools(&st.command));
                if let Some(p) = pass {
                    cmds.push(format!(
                        "# ccrtl's block RAM output-register pass: {} -> {} (log {})",
                        p.input, p.output, p.log
                    ));
                }
            }
        }
    }
    for d in &r.devices {
        if let Some(p) = &d.pnr {
            for run in &p.runs {
                cmds.push(short_tools(&run.step.command));
            }
        }
    }
    for c in cmds {
        s.push_str(&c);
        s.push('\n');
    }
    s.push_str("```\n");
    s
}

/// The page. `doc_command` is the `ccrtl synth-doc` command line, `sources`
/// the JSON files read.
pub fn markdown(reports: &[Report], doc_command: &str, sources: &[String]) -> String {
    let mut s = String::from("# FPGA resources and Fmax\n\n");
    s.push_str(&format!(
        "<!-- Generated by `{}`; do not edit: rerun `make synth`, or `ccrtl synth` and this command. -->\n\n",
        short_command(doc_command)
    ));
    let cmds: Vec<String> = reports
        .iter()
        .map(|r| format!("`{}`", short_command(&r.command)))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let ccrtl: Vec<String> = reports
        .iter()
        .map(|r| r.ccrtl.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    s.push_str(&format!(
        "Figures produced by {} with ccrtl {}; page rendered from {} by `{}`. How the figures are \
         taken, the devices and the wrapper: [fpga/README.md](../fpga/README.md).\n\n",
        cmds.join(", "),
        ccrtl.join(", "),
        sources
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", "),
        short_command(doc_command)
    ));
    let mut tools: BTreeMap<String, String> = BTreeMap::new();
    for r in reports {
        for (k, v) in &r.tools {
            tools.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    s.push_str("Tool versions:\n\n");
    for (k, v) in &tools {
        s.push_str(&format!("- `{k}`: {v}\n"));
    }
    s.push_str("\nDevices:\n\n");
    let mut devs: Vec<Vec<String>> = vec![];
    let mut seen = vec![];
    for r in reports {
        for d in &r.devices {
            if seen.contains(&d.key) {
                continue;
            }
            seen.push(d.key.clone());
            let pnr = d
                .pnr
                .as_ref()
                .map(|p| {
                    let c = short_tools(&p.runs[0].step.command);
                    let args: Vec<&str> = c
                        .split_whitespace()
                        .take_while(|a| *a != "--json")
                        .collect();
                    format!("`{}`", args.join(" "))
                })
                .unwrap_or_else(|| "none".into());
            devs.push(vec![
                d.name.clone(),
                d.part.clone(),
                format!(
                    "`{}` `{}`",
                    d.synthesis.tool,
                    synth_script(&d.synthesis.command)
                ),
                pnr,
            ]);
        }
    }
    s.push_str(&md_table(
        &[
            "".into(),
            "device".into(),
            "synthesis".into(),
            "place and route".into(),
        ],
        &devs,
    ));
    s.push('\n');
    for r in reports {
        s.push_str(&block_section(r));
        s.push('\n');
    }
    s
}
