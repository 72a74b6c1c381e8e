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

/// Packs `values` (one per port, in order) into `words`.
pub fn pack(ports: &[Port], values: &[u128], words: &mut [u32]) {
    let mut off = 0;
    for (p, &v) in ports.iter().zip(values) {
        for k in 0..p.words() {
            words[off + k] = (v >> (32 * k)) as u32;
        }
        off += p.words();
    }
}

/// Unpacks `words` into one value per port.
pub fn unpack(ports: &[Port], words: &[u32], values: &mut [u128]) {
    let mut off = 0;
    for (p, v) in ports.iter().zip(values.iter_mut()) {
        let mut x = 0u128;
        for k in 0..p.words() {
            x |= (words[off + k] as u128) << (32 * k);
        }
        *v = x & p.max();
        off += p.words();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
