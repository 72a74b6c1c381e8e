//! The pin-limited wrapper that place and route needs.
//!
//! A block has far more I/O bits than a package has pins (CP: 179 data
//! input bits and 30 output bits; the UP5K sg48 package has 39 user I/Os),
//! and tying the extra inputs to constants or leaving outputs open would
//! let yosys delete the logic behind them. The wrapper has three pins,
//! `clk`, `sin`, `sout`:
//!
//! - every data input bit of the block comes from one shift register `sh`
//!   loaded one bit per clock from `sin`, so each input is a register whose
//!   value is not constant and every path into the block starts at a
//!   register;
//! - every output bit is registered (`x0`), then XOR-reduced through a
//!   pipelined tree of 4-input XORs (one LUT per stage) into `sout`, so no
//!   output is dead logic and the wrapper adds at most one LUT level
//!   between registers: the critical path is the block's own unless the
//!   block is trivially fast.
//!
//! The block's clock input is wired to `clk`. The wrapper is generated from
//! the port list of the block's synthesized netlist, so it fits any block.

use anyhow::{bail, Result};

use super::netlist::{Dir, Port};

/// Instance name of the block inside the wrapper (its cells show in
/// nextpnr's reports as `dut.<name>`).
pub const INSTANCE: &str = "dut";

#[derive(Debug, Clone)]
pub struct Wrapper {
    /// Module name of the wrapper, `<top>__pnr_wrap`.
    pub module: String,
    /// The wrapper's Verilog.
    pub verilog: String,
    /// A blackbox stub of the block (its ports only), to synthesize the
    /// wrapper on its own and count its resources apart from the block's.
    pub blackbox: String,
    /// The block's clock input wired to `clk`, if it has one.
    pub clock: Option<String>,
    pub data_input_bits: usize,
    pub output_bits: usize,
    pub xor_stages: usize,
}

/// The name as a Verilog identifier (escaped when it is not a plain one).
fn ident(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        name.to_string()
    } else {
        format!("\\{name} ")
    }
}

/// The wrapper of `top`, whose ports are `ports`, with `clock` (if it is a
/// 1-bit input of `top`) wired to the wrapper's clock pin.
pub fn generate(top: &str, ports: &[Port], clock: &str) -> Result<Wrapper> {
    let bad: Vec<&str> = ports
        .iter()
        .filter(|p| p.dir == Dir::InOut)
        .map(|p| p.name.as_str())
        .collect();
    if !bad.is_empty() {
        bail!(
            "{top} has inout ports ({}); the place-and-route wrapper supports inputs and outputs only",
            bad.join(", ")
        );
    }
    let clock = ports
        .iter()
        .find(|p| p.dir == Dir::In && p.name == clock && p.width == 1)
        .map(|p| p.name.clone());
    let data_ins: Vec<&Port> = ports
        .iter()
        .filter(|p| p.dir == Dir::In && Some(&p.name) != clock.as_ref() && p.width > 0)
        .collect();
    let outs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.dir == Dir::Out && p.width > 0)
        .collect();
    if outs.is_empty() {
        bail!("{top} has no outputs: nothing of it would survive place and route");
    }
    let nin: usize = data_ins.iter().map(|p| p.width).sum();
    let nout: usize = outs.iter().map(|p| p.width).sum();
    let module = format!("{top}__pnr_wrap");

    let mut v = vec![
        format!("// pnr_wrap.v - written by `ccrtl synth` for place and route of {top}; do not edit."),
        format!("// {top} has {nin} data input bits and {nout} output bits, more than a package has pins."),
        "// Inputs: a shift register loaded one bit per clock from pin `sin`.".to_string(),
        "// Outputs: every output bit is registered, then XOR-reduced through a pipelined tree of".to_string(),
        "// 4-input XORs (one LUT per stage) into pin `sout`, so no output is dead logic and the".to_string(),
        "// wrapper adds at most one LUT level between registers.".to_string(),
        format!("module {module}(clk, sin, sout);"),
        "    input wire clk;".to_string(),
        "    input wire sin;".to_string(),
        "    output wire sout;".to_string(),
    ];
    if nin > 0 {
        v.push(format!("    reg [{}:0] sh;", nin - 1));
        if nin == 1 {
            v.push("    always @(posedge clk) sh <= sin;".to_string());
        } else {
            v.push(format!(
                "    always @(posedge clk) sh <= {{sh[{}:0], sin}};",
                nin - 2
            ));
        }
    }
    v.push(format!("    wire [{}:0] o;", nout - 1));
    let mut conns = vec![];
    if let Some(c) = &clock {
        conns.push(format!(".{}(clk)", ident(c)));
    }
    let mut lo = 0;
    for p in &data_ins {
        conns.push(format!(
            ".{}(sh[{}:{lo}])",
            ident(&p.name),
            lo + p.width - 1
        ));
        lo += p.width;
    }
    lo = 0;
    for p in &outs {
        conns.push(format!(".{}(o[{}:{lo}])", ident(&p.name), lo + p.width - 1));
        lo += p.width;
    }
    v.push(format!("    {top} {INSTANCE}("));
    v.push(format!("        {}", conns.join(",\n        ")));
    v.push("    );".to_string());
    v.push(format!("    reg [{}:0] x0;", nout - 1));
    v.push("    always @(posedge clk) x0 <= o;".to_string());
    let (mut width, mut stage) = (nout, 0);
    while width > 1 {
        let nw = width.div_ceil(4);
        stage += 1;
        v.push(format!("    reg [{}:0] x{stage};", nw - 1));
        for i in 0..nw {
            let hi = (4 * i + 3).min(width - 1);
            v.push(format!(
                "    always @(posedge clk) x{stage}[{i}] <= ^x{}[{hi}:{}];",
                stage - 1,
                4 * i
            ));
        }
        width = nw;
    }
    v.push(format!("    assign sout = x{stage}[0];"));
    v.push(format!("endmodule // {module}"));

    let mut b = vec![
        format!("// pnr_blackbox.v - written by `ccrtl synth`: the ports of {top} only, so that"),
        "// the wrapper can be synthesized alone and its own resources counted.".to_string(),
        "(* blackbox *)".to_string(),
        format!(
            "module {top}({});",
            ports
                .iter()
                .map(|p| ident(&p.name))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    for p in ports {
        let dir = if p.dir == Dir::In { "input" } else { "output" };
        let range = if p.width > 1 {
            format!("[{}:0] ", p.width - 1)
        } else {
            String::new()
        };
        b.push(format!("    {dir} {range}{};", ident(&p.name)));
    }
    b.push("endmodule".to_string());

    Ok(Wrapper {
        module,
        verilog: v.join("\n") + "\n",
        blackbox: b.join("\n") + "\n",
        clock,
        data_input_bits: nin,
        output_bits: nout,
        xor_stages: stage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(name: &str, dir: Dir, width: usize) -> Port {
        Port {
            name: name.into(),
            dir,
            width,
        }
    }

    #[test]
    fn every_input_bit_is_shifted_in_and_every_output_bit_reduced() {
        let ports = [
            port("clk", Dir::In, 1),
            port("a", Dir::In, 5),
            port("b", Dir::In, 1),
            port("y", Dir::Out, 9),
            port("z", Dir::Out, 8),
        ];
        let w = generate("ccrtl_x", &ports, "clk").unwrap();
        assert_eq!((w.data_input_bits, w.output_bits), (6, 17));
        // 17 -> 5 -> 2 -> 1
        assert_eq!(w.xor_stages, 3);
        assert_eq!(w.clock.as_deref(), Some("clk"));
        for line in [
            "    always @(posedge clk) sh <= {sh[4:0], sin};",
            ".clk(clk)",
            ".a(sh[4:0])",
            ".b(sh[5:5])",
            ".y(o[8:0])",
            ".z(o[16:9])",
            "    always @(posedge clk) x1[4] <= ^x0[16:16];",
            "    assign sout = x3[0];",
        ] {
            assert!(w.verilog.contains(line), "{line} missing:\n{}", w.verilog);
        }
        assert!(w.blackbox.contains("    input [4:0] a;"));
        assert!(w.blackbox.contains("    output [7:0] z;"));
    }

    #[test]
    fn inout_ports_and_blocks_without_outputs_are_refused() {
        let e = generate("t", &[port("p", Dir::InOut, 1)], "clk").unwrap_err();
        assert!(e.to_string().contains("inout ports (p)"), "{e}");
        let e = generate("t", &[port("a", Dir::In, 3)], "clk").unwrap_err();
        assert!(e.to_string().contains("no outputs"), "{e}");
    }
}
