//! Port lists and packed values, shared by the Verilator driver, the VCD
//! writer and the CSV replay. A port value is held in a `u128` (every port of
//! every planned block is at most 128 bits wide; the widest is a 104-bit flow
//! ID) and crosses the FFI as `ceil(width / 32)` little-endian 32-bit words.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dir::In => "input",
            Dir::Out => "output",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    pub name: &'static str,
    pub width: u32,
    pub dir: Dir,
}

impl Port {
    pub const fn input(name: &'static str, width: u32) -> Port {
        Port {
            name,
            width,
            dir: Dir::In,
        }
    }
    pub const fn output(name: &'static str, width: u32) -> Port {
        Port {
            name,
            width,
            dir: Dir::Out,
        }
    }
    /// 32-bit words the port takes in a packed array.
    pub fn words(&self) -> usize {
        self.width.div_ceil(32) as usize
    }
    /// Largest value the port can carry.
    pub fn max(&self) -> u128 {
        if self.width >= 128 {
            u128::MAX
        } else {
            (1u128 << self.width) - 1
        }
    }
}

/// When an input's value is part of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Care {
    /// Always: the reset, every `*_valid`, and inputs outside a stream.
    Always,
    /// Only while stream valid (the input of that index) is high and reset
    /// is low: a payload port `s_<stream>_<field>` of a stream with a
    /// `s_<stream>_valid` input. Otherwise the block must ignore it.
    Gated(usize),
}

/// The [`Care`] of every input port (`ins` are the inputs only), from the
/// naming convention of the streams (`s_<stream>_valid` gates
/// `s_<stream>_*`); the port list written once is all it needs.
pub fn cares(ins: &[Port]) -> Vec<Care> {
    let find = |valid: &str| ins.iter().position(|q| q.name == valid);
    ins.iter()
        .map(|p| {
            // AXI4-Stream: `s_axis_<stream>_tdata` (and `tkeep`, ...) gated
            // by `s_axis_<stream>_tvalid`; AXI4-Lite: `s_axil_<ch>addr`,
            // `s_axil_<ch>data`, `s_axil_<ch>strb` by `s_axil_<ch>valid`.
            if let Some(rest) = p.name.strip_prefix("s_axis_") {
                if let Some((stream, field)) = rest.rsplit_once('_') {
                    if field.starts_with('t') && field != "tvalid" {
                        if let Some(k) = find(&format!("s_axis_{stream}_tvalid")) {
                            return Care::Gated(k);
                        }
                    }
                }
                return Care::Always;
            }
            if let Some(field) = p.name.strip_prefix("s_axil_") {
                for suffix in ["addr", "data", "strb", "prot"] {
                    if let Some(ch) = field.strip_suffix(suffix) {
                        if let Some(k) = find(&format!("s_axil_{ch}valid")) {
                            return Care::Gated(k);
                        }
                    }
                }
                return Care::Always;
            }
            let Some(rest) = p.name.strip_prefix("s_") else {
                return Care::Always;
            };
            let Some((stream, field)) = rest.split_once('_') else {
                return Care::Always;
            };
            if field == "valid" {
                return Care::Always;
            }
            let valid = format!("s_{stream}_valid");
            match ins.iter().position(|q| q.name == valid) {
                Some(k) => Care::Gated(k),
                None => Care::Always,
            }
        })
        .collect()
}

/// A name made `'static` once and shared by every later call.
fn intern(name: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = NAMES
        .get_or_init(|| Mutex::new(HashSet::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = set.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(n);
    n
}

/// The port list of a rust-hdl block ([`ccrtl_hdl::ports::ports_of`]):
/// inputs, then outputs, each in declaration order, without the clock.
pub fn from_hdl(ports: &[ccrtl_hdl::ports::HdlPort], clock: &str) -> Vec<Port> {
    let mut v: Vec<Port> = ports
        .iter()
        .filter(|p| p.input && p.name != clock)
        .map(|p| Port::input(intern(&p.name), p.width as u32))
        .collect();
    v.extend(
        ports
            .iter()
            .filter(|p| !p.input)
            .map(|p| Port::output(intern(&p.name), p.width as u32)),
    );
    v
}

/// A port list ready for packing many times (the lockstep packs every
/// cycle of a batch at once): when every port fits one word, packing is a
/// plain copy.
pub struct Layout<'a> {
    ports: &'a [Port],
    narrow: bool,
}

impl<'a> Layout<'a> {
    pub fn new(ports: &'a [Port]) -> Layout<'a> {
        Layout {
            ports,
            narrow: ports.iter().all(|p| p.width <= 32),
        }
    }

    /// Packs rows of values (one row of one value per port per cycle, as
    /// [`pack`] takes) into rows of words, one after the other.
    pub fn pack_rows(&self, values: &[u128], words: &mut [u32]) {
        if self.narrow {
            for (w, v) in words.iter_mut().zip(values) {
                *w = *v as u32;
            }
        } else {
            let n = self.ports.len().max(1);
            let nw: usize = self.ports.iter().map(|p| p.words()).sum();
            for (v, w) in values
                .chunks_exact(n)
                .zip(words.chunks_exact_mut(nw.max(1)))
            {
                pack(self.ports, v, w);
            }
        }
    }
}

/// Packs `values` (one per port, in order) into `words`.
#[inline]
pub fn pack(ports: &[Port], values: &[u128], words: &mut [u32]) {
    let mut off = 0;
    for (p, &v) in ports.iter().zip(values) {
        if p.width <= 32 {
            words[off] = v as u32;
            off += 1;
        } else {
            let n = p.words();
            for (k, w) in words[off..off + n].iter_mut().enumerate() {
                *w = (v >> (32 * k)) as u32;
            }
            off += n;
        }
    }
}

/// Unpacks `words` into one value per port.
#[inline]
pub fn unpack(ports: &[Port], words: &[u32], values: &mut [u128]) {
    let mut off = 0;
    for (p, v) in ports.iter().zip(values.iter_mut()) {
        if p.width <= 32 {
            *v = (words[off] as u128) & p.max();
            off += 1;
        } else {
            let n = p.words();
            let mut x = 0u128;
            for (k, &w) in words[off..off + n].iter().enumerate() {
                x |= (w as u128) << (32 * k);
            }
            *v = x & p.max();
            off += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_gated_by_their_streams_valid() {
        let ins = [
            Port::input("rst", 1),
            Port::input("s_enq_valid", 1),
            Port::input("s_enq_len", 14),
            Port::input("s_deq_len", 14),
            Port::input("s_cfg_kmin", 24),
            Port::input("s_cfg_valid", 1),
            Port::input("mode", 2),
        ];
        assert_eq!(
            cares(&ins),
            vec![
                Care::Always,
                Care::Always,
                Care::Gated(1),
                Care::Always, // no s_deq_valid: not a stream
                Care::Gated(5),
                Care::Always,
                Care::Always,
            ]
        );
    }

    #[test]
    fn axi_payloads_are_gated_by_their_channels_valid() {
        let ins = [
            Port::input("rst", 1),
            Port::input("s_axis_rx_tvalid", 1),
            Port::input("s_axis_rx_tdata", 15),
            Port::input("m_axis_cnp_tready", 1),
            Port::input("s_axis_tx_tdata", 28), // no s_axis_tx_tvalid
            Port::input("s_axil_awvalid", 1),
            Port::input("s_axil_awaddr", 12),
            Port::input("s_axil_wvalid", 1),
            Port::input("s_axil_wdata", 32),
            Port::input("s_axil_wstrb", 4),
            Port::input("s_axil_bready", 1),
            Port::input("s_axil_arvalid", 1),
            Port::input("s_axil_araddr", 12),
            Port::input("s_axil_rready", 1),
        ];
        assert_eq!(
            cares(&ins),
            vec![
                Care::Always,
                Care::Always,
                Care::Gated(1),
                Care::Always,
                Care::Always,
                Care::Always,
                Care::Gated(5),
                Care::Always,
                Care::Gated(7),
                Care::Gated(7),
                Care::Always,
                Care::Always,
                Care::Gated(11),
                Care::Always,
            ]
        );
    }

    #[test]
    fn pack_unpack_round_trips_wide_and_narrow_ports() {
        let ports = [
            Port::input("a", 1),
            Port::input("b", 104),
            Port::input("c", 40),
        ];
        let vals = [1u128, (1u128 << 103) | 0xdead_beef_0123, (1u128 << 39) | 7];
        let mut w = vec![0u32; 1 + 4 + 2];
        pack(&ports, &vals, &mut w);
        assert_eq!(w[0], 1);
        assert_eq!(w[1], 0xdead_beef_0123u64 as u32);
        assert_eq!(w[4], 1 << (103 - 96));
        let mut back = [0u128; 3];
        unpack(&ports, &w, &mut back);
        assert_eq!(back, vals);
    }

    #[test]
    fn rows_pack_as_each_row_alone() {
        let wide = [Port::input("a", 1), Port::input("b", 104)];
        let narrow = [Port::input("a", 1), Port::input("b", 32)];
        let rows = [1u128, (1u128 << 100) | 5, 0, 0xffff_ffff];
        for ports in [&wide[..], &narrow[..]] {
            let n: usize = ports.iter().map(|p| p.words()).sum();
            let mut one = vec![0u32; 2 * n];
            pack(ports, &rows[..2], &mut one[..n]);
            pack(ports, &rows[2..], &mut one[n..]);
            let mut all = vec![0u32; 2 * n];
            Layout::new(ports).pack_rows(&rows, &mut all);
            assert_eq!(all, one);
        }
    }
}
