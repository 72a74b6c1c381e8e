//! The port list of a block, read from its rust-hdl struct: the top-level
//! input and output signals, in declaration order, with their widths. This
//! is the one place the ports are written; the Verilator driver, the VCD
//! writer, replay and the golden models' encodings are checked against it.

use rust_hdl::prelude::*;

/// One port of a block's top level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HdlPort {
    pub name: String,
    pub input: bool,
    pub width: usize,
}

struct PortProbe {
    depth: usize,
    ports: Vec<HdlPort>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let input = match signal.kind() {
            AtomKind::InputParameter => true,
            AtomKind::OutputParameter => false,
            _ => return,
        };
        self.ports.push(HdlPort {
            name: name.to_string(),
            input,
            width: signal.bits(),
        });
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The input and output ports of `block`'s top level, in declaration order.
pub fn ports_of(block: &dyn Block) -> Vec<HdlPort> {
    let mut p = PortProbe {
        depth: 0,
        ports: vec![],
    };
    block.accept("top", &mut p);
    p.ports
}
