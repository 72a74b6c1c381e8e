//! SAR — switch-level adaptive routing: the least congested equal-cost port.
//!
//! Implements `../shared/ALGORITHMS.md` §"Regional congestion mitigation
//! (RCM) switch", SAR item, which restates seed 002 §3.4 ("SAR"): a flow
//! that misses the CAM may be sent to the equal-cost output port with the
//! least regional congestion degree (`Fb'`, from crd); CAM hits are never
//! detoured; with no alternative port nothing moves. The contract is
//! `docs/sar.md`.
//!
//! # The rule
//! The block holds `deg[p]`, the regional congestion degree of each output
//! port `p` ([`DEG_BITS`] = 8 bits), and two kinds of registers: `mask[g]`,
//! the equal-cost ports of group `g` (`P` bits), and `margin` (8 bits).
//! A request (`req_valid`, no reset) in cycle `t` for original port `o`
//! (from routing), group `g` and CAM hit `h` is decided on `deg[]` as held
//! at the start of `t` and the registers in force in `t`:
//! - `h`: `dec_port = o` (a congestion flow is never detoured);
//! - else the candidates are `C = mask[g] ∪ {o}`; `best` is the port of `C`
//!   with the least `deg`, ties going to `o` if it is among the least, else
//!   to the lowest numbered; the request is *detoured* iff `best != o` and
//!   `deg[best] + margin < deg[o]` (exact: a 9-bit sum); `dec_port = best`
//!   if detoured, else `o`. With no alternative (`C = {o}`) `o` stands.
//!
//! # Timing (the interface contract the RTL must meet)
//! - One request per cycle (II = 1), no ready: every request is decided.
//! - A request in cycle `t` has its decision on `dec_valid`, `dec_port`,
//!   `dec_detour` (`= dec_port != o`) during cycle `t + LATENCY` (`t + 3`).
//!   The outputs are registered (state only); `dec_port` and `dec_detour`
//!   are 0 when `dec_valid` is low.
//! - `deg_valid` in cycle `t` sets `deg[deg_port] = deg` from `t + 1` (a
//!   request of cycle `t` sees the old value).
//! - A register write (`cfg_valid`, `cfg_addr`, `cfg_data`) in cycle `t` is
//!   in force from `t + 1`. Addresses `g < G` are `mask[g]`, address `G` is
//!   `margin`, the others (`G + 1 .. 2G - 1`) are ignored; data bits above a
//!   register's width are ignored.
//! - `rst` in cycle `t`: `deg[] = 0`, the registers to their reset values,
//!   the decisions in flight dropped (none of a request before `t` comes out
//!   from `t + 1` on; the outputs during `t` itself are the registered ones);
//!   every other input of a reset cycle is ignored.
//! - The model starts as if a reset had been applied in the cycle before its
//!   first step.
//! - Only the low port-width bits of each input are ports: `port_bits` of
//!   `deg_port` and `req_port`, 8 of `deg`, `group_bits` of `req_group`,
//!   `group_bits + 1` of `cfg_addr`, 16 of `cfg_data`.
//!
//! # Register map ([`SarShape::registers`]; `cfg_addr` `group_bits + 1` bits, `cfg_data` 16 bits)
//! | addr | name | bits | reset | meaning |
//! |---|---|---|---|---|
//! | `g` in `0 .. G` | `mask` | `P` | `SarParams::mask` (0) | equal-cost ports of group `g`, bit `p` = port `p` |
//! | `G` | `margin` | 8 | `SarParams::margin` (0) | detour only if `deg[best] + margin < deg[o]` |
//!
//! # Decisions the contract left open
//! - A `mask[g]` bit for `o` itself is harmless (`C` holds `o` anyway).
//! - The reset value of `mask` is one value for every group (the contract's
//!   config), 0 by default: after a reset no request is ever detoured until
//!   a group's mask is written.
//! - `deg_valid` and a request in the same cycle: the request sees the old
//!   `deg` (the contract's "held at the start of `t`"), as does a write of a
//!   mask or the margin in the request's cycle.

use crate::error::ParamError;
use crate::mask as low;
pub use crate::register::Register;

/// Width of a congestion degree (`deg`, crd's `Fb'`).
pub const DEG_BITS: u32 = 8;
/// Width of the `margin` register.
pub const MARGIN_BITS: u32 = 8;
/// Width of `cfg_data`.
pub const CFG_DATA_BITS: u32 = 16;
/// Cycles from a request to its decision on the outputs (at least 1).
pub const LATENCY: usize = 3;
const _: () = assert!(LATENCY >= 1, "the outputs are registered");

/// The shape menu, written once: the port-number widths and the group-number
/// widths the RTL can be generated with. `sar_shape_menu!([callback] ;
/// ARGS)` expands `callback!{ (ARGS) ; [port widths] ; [group widths] }`.
#[macro_export]
macro_rules! sar_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [2, 3, 4] ; [1, 2, 3, 4] }
    };
}

macro_rules! menu_constants {
    (() ; [$($p:literal),*] ; [$($g:literal),*]) => {
        /// Port-number widths (`P = 2^port_bits` ports) the RTL can be
        /// generated with.
        pub const SUPPORTED_PORT_BITS: &[u32] = &[$($p),*];
        /// Group-number widths (`G = 2^group_bits` groups) the RTL can be
        /// generated with.
        pub const SUPPORTED_GROUP_BITS: &[u32] = &[$($g),*];
    };
}
sar_shape_menu!([menu_constants];);

/// Generation-time (structural) sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SarShape {
    /// `P = 2^port_bits` output ports.
    pub port_bits: u32,
    /// `G = 2^group_bits` equal-cost groups.
    pub group_bits: u32,
}

impl Default for SarShape {
    fn default() -> Self {
        // 8 ports, 8 groups.
        SarShape {
            port_bits: 3,
            group_bits: 3,
        }
    }
}

impl SarShape {
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v, menu) in [
            ("port_bits", self.port_bits, SUPPORTED_PORT_BITS),
            ("group_bits", self.group_bits, SUPPORTED_GROUP_BITS),
        ] {
            if !menu.contains(&v) {
                return Err(ParamError::new(
                    name,
                    format!("{v} is not supported; choose one of {menu:?}"),
                ));
            }
        }
        Ok(())
    }

    /// `P`, the number of output ports (also the width of a mask).
    pub fn ports(&self) -> u32 {
        1 << self.port_bits
    }

    /// `G`, the number of equal-cost groups.
    pub fn groups(&self) -> u32 {
        1 << self.group_bits
    }

    /// The largest mask, `2^P - 1`.
    pub fn mask_max(&self) -> u32 {
        low(self.ports())
    }

    /// Width of `cfg_addr`, `group_bits + 1`.
    pub fn cfg_addr_bits(&self) -> u32 {
        self.group_bits + 1
    }

    /// The register map of this shape: `mask` at `0 .. G`, `margin` at `G`.
    pub fn registers(&self) -> Vec<Register> {
        let mut r: Vec<Register> = (0..self.groups())
            .map(|g| Register {
                addr: g,
                name: "mask",
                bits: self.ports(),
                doc: "the equal-cost ports of group addr (bit p: port p)",
            })
            .collect();
        r.push(Register {
            addr: self.groups(),
            name: "margin",
            bits: MARGIN_BITS,
            doc: "detour only if deg[best] + margin < deg[orig]",
        });
        r
    }
}

/// Reset values of the registers (every group's mask resets to `mask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SarParams {
    /// Every group's equal-cost ports after a reset (`P` bits; 0: none).
    pub mask: u32,
    /// Detour only if `deg[best] + margin < deg[orig]` (8 bits).
    pub margin: u32,
}

impl SarParams {
    /// Refuses, by name, a value that does not fit its register.
    pub fn validate(&self, shape: &SarShape) -> Result<(), ParamError> {
        if self.mask > shape.mask_max() {
            return Err(ParamError::new(
                "mask",
                format!(
                    "{:#x} is wider than P = {} ports (max {:#x})",
                    self.mask,
                    shape.ports(),
                    shape.mask_max()
                ),
            ));
        }
        if self.margin > low(MARGIN_BITS) {
            return Err(ParamError::new(
                "margin",
                format!("{} does not fit 8 bits (max 255)", self.margin),
            ));
        }
        Ok(())
    }
}

/// Generation-time configuration: sizes, and the registers' reset values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SarConfig {
    pub shape: SarShape,
    pub reset: SarParams,
}

impl SarConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate(&self.shape)
    }
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
/// Only the low port-width bits of each field are ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SarIn {
    pub rst: bool,
    /// A degree update comes in.
    pub deg_valid: bool,
    /// Its output port (low `port_bits`).
    pub deg_port: u32,
    /// The port's regional congestion degree (low 8 bits).
    pub deg: u32,
    /// A request comes in.
    pub req_valid: bool,
    /// The original output port, from routing (low `port_bits`).
    pub req_port: u32,
    /// The flow's equal-cost group (low `group_bits`).
    pub req_group: u32,
    /// The flow hit the CAM (a congestion flow).
    pub req_hit: bool,
    pub cfg_valid: bool,
    /// Register address (low `group_bits + 1` bits).
    pub cfg_addr: u32,
    /// Value (low 16 bits; bits above the register's width ignored).
    pub cfg_data: u32,
}

/// Outputs during one clock cycle (registered: they depend only on state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SarOut {
    /// The decision of a request of [`LATENCY`] cycles ago.
    pub dec_valid: bool,
    /// The port to send the flow to (0 when `dec_valid` is low).
    pub dec_port: u32,
    /// `dec_port` differs from the request's port (low when `dec_valid` is).
    pub dec_detour: bool,
}

/// One decision: `(dec_port, dec_detour)`.
pub type Decision = (u32, bool);

/// The golden model of SAR: one [`Sar::step`] per clock cycle.
#[derive(Debug, Clone)]
pub struct Sar {
    config: SarConfig,
    /// `deg[p]`, 8 bits each.
    deg: Vec<u8>,
    /// `mask[g]` in force, `P` bits each.
    masks: Vec<u32>,
    /// `margin` in force, 8 bits.
    margin: u32,
    /// A ring: `pipe[(head + i) % LATENCY]` holds the decision of the
    /// request of `i + 1` cycles ago, if any.
    pipe: [Option<Decision>; LATENCY],
    head: usize,
    cycle: u64,
}

impl Sar {
    /// A model as just after a reset.
    pub fn new(config: SarConfig) -> Result<Sar, ParamError> {
        config.validate()?;
        let shape = config.shape;
        Ok(Sar {
            config,
            deg: vec![0; shape.ports() as usize],
            masks: vec![config.reset.mask; shape.groups() as usize],
            margin: config.reset.margin,
            pipe: [None; LATENCY],
            head: 0,
            cycle: 0,
        })
    }

    pub fn config(&self) -> &SarConfig {
        &self.config
    }

    /// Steps taken (the number of the next step's cycle).
    #[inline]
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// `deg[port]` as the next step's request would see it.
    #[inline]
    pub fn deg(&self, port: u32) -> u32 {
        self.deg[(port & low(self.config.shape.port_bits)) as usize] as u32
    }

    /// Every port's degree, port 0 first.
    #[inline]
    pub fn degs(&self) -> &[u8] {
        &self.deg
    }

    /// `mask[group]` in force (for the next step).
    #[inline]
    pub fn mask(&self, group: u32) -> u32 {
        self.masks[(group & low(self.config.shape.group_bits)) as usize]
    }

    /// Every group's mask in force, group 0 first.
    #[inline]
    pub fn masks(&self) -> &[u32] {
        &self.masks
    }

    /// `margin` in force (for the next step).
    #[inline]
    pub fn margin(&self) -> u32 {
        self.margin
    }

    /// The value of the register at `addr` (cut to `cfg_addr`'s width);
    /// `None` for an address not in the map.
    pub fn read(&self, addr: u32) -> Option<u32> {
        let shape = self.config.shape;
        let a = addr & low(shape.cfg_addr_bits());
        match a.cmp(&shape.groups()) {
            std::cmp::Ordering::Less => Some(self.masks[a as usize]),
            std::cmp::Ordering::Equal => Some(self.margin),
            std::cmp::Ordering::Greater => None,
        }
    }

    /// The candidate set `C = mask[group] ∪ {port}` as a `P`-bit mask.
    pub fn candidates(&self, port: u32, group: u32) -> u32 {
        let p = port & low(self.config.shape.port_bits);
        self.mask(group) | 1 << p
    }

    /// The decision a request in the next step would get (before that
    /// step's degree update and write): `(dec_port, dec_detour)`.
    pub fn decide(&self, port: u32, group: u32, hit: bool) -> Decision {
        let o = port & low(self.config.shape.port_bits);
        if hit {
            return (o, false);
        }
        let c = self.candidates(o, group);
        // best: start at o and move only to a strictly less congested port,
        // scanning upwards, so ties go to o, else to the lowest numbered.
        let mut best = o;
        for p in 0..self.config.shape.ports() {
            if c >> p & 1 != 0 && self.deg[p as usize] < self.deg[best as usize] {
                best = p;
            }
        }
        // deg[best] + margin: 9 bits.
        let detour = best != o
            && (self.deg[best as usize] as u32 + self.margin) < self.deg[o as usize] as u32;
        if detour {
            (best, true)
        } else {
            (o, false)
        }
    }

    /// Decisions in flight (requests of the last `LATENCY` cycles, the
    /// oldest being on the outputs of the next step).
    pub fn in_flight(&self) -> usize {
        self.pipe.iter().flatten().count()
    }

    /// The outputs during the next step's cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> SarOut {
        // The oldest entry: just before the head.
        match self.pipe[(self.head + LATENCY - 1) % LATENCY] {
            Some((dec_port, dec_detour)) => SarOut {
                dec_valid: true,
                dec_port,
                dec_detour,
            },
            None => SarOut::default(),
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    pub fn step(&mut self, i: &SarIn) -> SarOut {
        let out = self.outputs();
        self.cycle += 1;
        // Shift the decision pipeline by one stage.
        self.head = (self.head + LATENCY - 1) % LATENCY;
        if i.rst {
            self.pipe = [None; LATENCY];
            self.deg.fill(0);
            self.masks.fill(self.config.reset.mask);
            self.margin = self.config.reset.margin;
            return out;
        }
        // The decision first: deg[] and registers as at the start of t.
        self.pipe[self.head] = i
            .req_valid
            .then(|| self.decide(i.req_port, i.req_group, i.req_hit));
        let shape = self.config.shape;
        if i.deg_valid {
            self.deg[(i.deg_port & low(shape.port_bits)) as usize] = (i.deg & low(DEG_BITS)) as u8;
        }
        if i.cfg_valid {
            let a = i.cfg_addr & low(shape.cfg_addr_bits());
            let d = i.cfg_data & low(CFG_DATA_BITS);
            if a < shape.groups() {
                self.masks[a as usize] = d & shape.mask_max();
            } else if a == shape.groups() {
                self.margin = d & low(MARGIN_BITS);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(port_bits: u32, group_bits: u32, mask: u32, margin: u32) -> Sar {
        Sar::new(SarConfig {
            shape: SarShape {
                port_bits,
                group_bits,
            },
            reset: SarParams { mask, margin },
        })
        .unwrap()
    }

    fn req(port: u32, group: u32, hit: bool) -> SarIn {
        SarIn {
            req_valid: true,
            req_port: port,
            req_group: group,
            req_hit: hit,
            ..SarIn::default()
        }
    }

    fn with_deg(mut i: SarIn, port: u32, deg: u32) -> SarIn {
        (i.deg_valid, i.deg_port, i.deg) = (true, port, deg);
        i
    }

    fn with_cfg(mut i: SarIn, addr: u32, data: u32) -> SarIn {
        (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, addr, data);
        i
    }

    fn set_degs(s: &mut Sar, degs: &[(u32, u32)]) {
        for &(p, d) in degs {
            s.step(&with_deg(SarIn::default(), p, d));
        }
    }

    /// Runs `ins` then `LATENCY` idle cycles; returns, per input, the
    /// decision on the outputs `LATENCY` cycles later.
    fn decisions(s: &mut Sar, ins: &[SarIn]) -> Vec<Option<Decision>> {
        let outs: Vec<SarOut> = ins
            .iter()
            .chain(&[SarIn::default(); LATENCY])
            .map(|i| s.step(i))
            .collect();
        for o in &outs[..LATENCY] {
            assert!(!o.dec_valid);
        }
        outs[LATENCY..]
            .iter()
            .map(|o| {
                if o.dec_valid {
                    Some((o.dec_port, o.dec_detour))
                } else {
                    assert_eq!((o.dec_port, o.dec_detour), (0, false));
                    None
                }
            })
            .collect()
    }

    #[test]
    fn least_congested_candidate_wins_ties_to_the_lowest_port() {
        // P = 8, G = 8. Group 2's ports: 1, 2, 3. deg: 5 -> 100, 1 -> 50,
        // 2 -> 30, 3 -> 30, 4 -> 0 (not a candidate).
        let mut s = model(3, 3, 0, 0);
        s.step(&with_cfg(SarIn::default(), 2, 0b0000_1110));
        set_degs(&mut s, &[(5, 100), (1, 50), (2, 30), (3, 30), (4, 0)]);
        assert_eq!(s.candidates(5, 2), 0b0010_1110);
        // C = {1, 2, 3, 5}; least deg 30 at 2 and 3: the lowest, 2.
        // 30 + 0 < 100: detour to 2.
        let d = decisions(
            &mut s,
            &[req(5, 2, false), req(5, 2, true), req(5, 1, false)],
        );
        assert_eq!(d, vec![Some((2, true)), Some((5, false)), Some((5, false))]);
        // Group 1's mask is 0: C = {5}, the port stands (above).
        // Margin 69: 30 + 69 = 99 < 100: detour; 70: 100 < 100 fails.
        // (Margin is at address G = 8; the write of 70 is in force from the
        // cycle after its request's.)
        s.step(&with_cfg(SarIn::default(), 8, 69));
        let d = decisions(
            &mut s,
            &[with_cfg(req(5, 2, false), 8, 70), req(5, 2, false)],
        );
        assert_eq!(d, vec![Some((2, true)), Some((5, false))]);
    }

    #[test]
    fn a_tie_with_the_original_port_keeps_it() {
        let mut s = model(3, 3, 0b1111_1111, 0);
        // Every port at 0: the original stands, whatever its number.
        let d = decisions(
            &mut s,
            &(0..8).map(|p| req(p, 0, false)).collect::<Vec<_>>(),
        );
        assert!(d
            .iter()
            .enumerate()
            .all(|(p, d)| *d == Some((p as u32, false))));
        // deg: 6 -> 40, 2 -> 40, every other 90. From 6: tie with 2 at the
        // least, 6 among them: stays. From 7 (90): 2 and 6 tie, the lowest: 2.
        set_degs(&mut s, &(0..8).map(|p| (p, 90)).collect::<Vec<_>>());
        set_degs(&mut s, &[(6, 40), (2, 40)]);
        let d = decisions(
            &mut s,
            &[req(6, 0, false), req(7, 0, false), req(2, 5, false)],
        );
        assert_eq!(d, vec![Some((6, false)), Some((2, true)), Some((2, false))]);
    }

    #[test]
    fn a_cam_hit_is_never_detoured() {
        let mut s = model(4, 1, 0xffff, 0);
        set_degs(&mut s, &[(9, 255)]);
        let d = decisions(
            &mut s,
            &[req(9, 0, true), req(9, 1, true), req(9, 1, false)],
        );
        assert_eq!(d, vec![Some((9, false)), Some((9, false)), Some((0, true))]);
    }

    #[test]
    fn margin_extremes() {
        // margin 255: deg[best] + 255 < deg[o] <= 255 never holds.
        let mut s = model(2, 1, 0b1111, 255);
        set_degs(&mut s, &[(3, 255)]);
        assert_eq!(
            decisions(&mut s, &[req(3, 0, false)]),
            vec![Some((3, false))]
        );
        // margin 254: 0 + 254 < 255 holds (the 9-bit sum), 1 + 254 does not.
        s.step(&with_cfg(SarIn::default(), 2, 254));
        assert_eq!(
            decisions(&mut s, &[req(3, 0, false)]),
            vec![Some((0, true))]
        );
        set_degs(&mut s, &[(0, 1), (1, 1), (2, 1)]);
        assert_eq!(
            decisions(&mut s, &[req(3, 0, false)]),
            vec![Some((3, false))]
        );
        // margin above 8 bits: only the low 8 (0x1ff -> 255); cfg_data 16
        // bits (0x1_00fe -> 254).
        s.step(&with_cfg(SarIn::default(), 2, 0x1ff));
        assert_eq!(s.margin(), 255);
        s.step(&with_cfg(SarIn::default(), 2, 0x1_00fe));
        assert_eq!(s.margin(), 254);
    }

    #[test]
    fn degree_and_register_updates_take_effect_next_cycle() {
        let mut s = model(3, 2, 0b0000_0011, 0);
        set_degs(&mut s, &[(0, 10), (1, 20), (7, 50)]);
        let ins = [
            // Port 0 rises to 60 in the request's cycle: decided on 10.
            with_deg(req(7, 0, false), 0, 60),
            // Now 0 -> 60, 1 -> 20: best 1.
            req(7, 0, false),
            // Group 0's mask written to {} in this cycle: decided with {0, 1}.
            with_cfg(req(7, 0, false), 0, 0),
            req(7, 0, false),
        ];
        let d = decisions(&mut s, &ins);
        assert_eq!(
            d,
            vec![
                Some((0, true)),
                Some((1, true)),
                Some((1, true)),
                Some((7, false))
            ]
        );
        assert_eq!(s.deg(0), 60);
    }

    #[test]
    fn decision_comes_out_exactly_latency_cycles_later_at_ii_1() {
        let mut s = model(3, 3, 0xff, 0);
        set_degs(&mut s, &(1..8).map(|p| (p, 1)).collect::<Vec<_>>());
        let ins: Vec<SarIn> = (0..8).map(|k| req(k, 0, k % 3 == 0)).collect();
        let outs: Vec<SarOut> = ins
            .iter()
            .chain(&[SarIn::default(); LATENCY + 2])
            .map(|i| s.step(i))
            .collect();
        for (t, o) in outs.iter().enumerate() {
            if (LATENCY..LATENCY + 8).contains(&t) {
                let k = (t - LATENCY) as u32;
                // Hits stay; the others go to port 0 (deg 0 < 1).
                let want = match k % 3 {
                    0 => k,
                    _ => 0,
                };
                assert_eq!(
                    (o.dec_valid, o.dec_port, o.dec_detour),
                    (true, want, want != k)
                );
            } else {
                assert_eq!(*o, SarOut::default(), "cycle {t}");
            }
        }
    }

    #[test]
    fn reset_drops_decisions_in_flight_and_restores_state() {
        let mut s = model(3, 3, 0b1, 3);
        s.step(&with_cfg(SarIn::default(), 8, 0)); // margin 0
        s.step(&with_cfg(SarIn::default(), 1, 0xf0));
        set_degs(&mut s, &[(5, 9)]);
        let mut ins: Vec<SarIn> = (0..LATENCY as u32 + 3).map(|_| req(5, 0, false)).collect();
        // Requests 0 ..= LATENCY - 1 in flight at the reset; the reset
        // cycle's request, degree and write are ignored.
        ins[LATENCY] = SarIn {
            rst: true,
            ..with_cfg(with_deg(req(5, 0, false), 5, 200), 8, 0)
        };
        let outs: Vec<SarOut> = ins
            .iter()
            .chain(&[SarIn::default(); LATENCY + 2])
            .map(|i| s.step(i))
            .collect();
        let valid: Vec<(usize, u32, bool)> = outs
            .iter()
            .enumerate()
            .filter(|(_, o)| o.dec_valid)
            .map(|(t, o)| (t, o.dec_port, o.dec_detour))
            .collect();
        // Request 0's decision shows during the reset cycle (0 < 9 - 0);
        // the requests after the reset (margin 3, deg 0 everywhere) stay.
        let mut want = vec![(LATENCY, 0, true)];
        for k in LATENCY + 1..LATENCY + 3 {
            want.push((k + LATENCY, 5, false));
        }
        assert_eq!(valid, want);
        assert_eq!(
            (s.degs(), s.margin(), s.mask(1), s.in_flight()),
            (&[0u8; 8][..], 3, 0b1, 0)
        );
        // Back-to-back resets, then the model works.
        s.step(&SarIn {
            rst: true,
            ..SarIn::default()
        });
        set_degs(&mut s, &[(5, 9)]);
        assert_eq!(
            decisions(&mut s, &[req(5, 0, false)]),
            vec![Some((0, true))]
        );
    }

    #[test]
    fn ports_keep_only_their_low_bits_and_payloads_need_their_valid() {
        let mut s = model(2, 2, 0, 0);
        // cfg_addr is 3 bits: 0b1_010 -> 2 = group 2's mask; data 4 bits.
        s.step(&with_cfg(SarIn::default(), 0b1010, 0xfff2));
        assert_eq!(s.mask(2), 0b0010);
        // Address 5, 6, 7 (> G = 4): ignored.
        for a in 5..8 {
            s.step(&with_cfg(SarIn::default(), a, 0xf));
        }
        assert_eq!((s.masks(), s.margin()), (&[0, 0, 0b10, 0][..], 0));
        assert_eq!(s.read(4), Some(0));
        assert_eq!(s.read(5), None);
        assert_eq!(s.read(0b1010), Some(0b10));
        // deg_port 2 bits, deg 8 bits: (0b111, 0x1_40) -> deg[3] = 0x40.
        s.step(&with_deg(SarIn::default(), 0b111, 0x140));
        assert_eq!(s.deg(3), 0x40);
        // Request port 0b111 -> 3, group 0b110 -> 2: C = {1, 3}: detour to 1.
        assert_eq!(
            decisions(&mut s, &[req(0b111, 0b110, false)]),
            vec![Some((1, true))]
        );
        // Payloads with their valid low change nothing.
        let i = SarIn {
            deg_port: 1,
            deg: 99,
            req_port: 3,
            cfg_addr: 4,
            cfg_data: 77,
            ..SarIn::default()
        };
        assert_eq!(decisions(&mut s, &[i, i]), vec![None, None]);
        assert_eq!((s.deg(1), s.margin()), (0, 0));
        // The map.
        let regs = s.config().shape.registers();
        assert_eq!(
            regs.iter()
                .map(|r| (r.addr, r.name, r.bits))
                .collect::<Vec<_>>(),
            vec![
                (0, "mask", 4),
                (1, "mask", 4),
                (2, "mask", 4),
                (3, "mask", 4),
                (4, "margin", 8)
            ]
        );
    }

    #[test]
    fn widest_shape_uses_16_bit_masks() {
        let mut s = model(4, 4, 0xffff, 0);
        s.step(&with_cfg(SarIn::default(), 16, 0)); // margin at G = 16
        s.step(&with_cfg(SarIn::default(), 15, 0x8000)); // group 15: port 15
        set_degs(&mut s, &(0..15).map(|p| (p, 200)).collect::<Vec<_>>());
        let d = decisions(&mut s, &[req(3, 15, false), req(3, 0, false)]);
        assert_eq!(d, vec![Some((15, true)), Some((15, true))]);
        s.step(&with_cfg(SarIn::default(), 31, 0)); // addr 31 > G: ignored
        assert_eq!(s.mask(15), 0x8000);
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        fn name<T: std::fmt::Debug>(r: Result<T, ParamError>) -> &'static str {
            r.unwrap_err().name
        }
        let mut c = SarConfig::default();
        assert_eq!(
            (
                c.shape.port_bits,
                c.shape.group_bits,
                c.reset.mask,
                c.reset.margin
            ),
            (3, 3, 0, 0)
        );
        assert!(c.validate().is_ok());
        for pb in [0, 1, 5, 8] {
            c.shape.port_bits = pb;
            assert_eq!(name(Sar::new(c)), "port_bits");
        }
        c.shape.port_bits = 2;
        for gb in [0, 5, 16] {
            c.shape.group_bits = gb;
            assert_eq!(name(c.validate()), "group_bits");
        }
        c.shape.group_bits = 1;
        c.reset.mask = 0x10;
        assert_eq!(name(c.validate()), "mask");
        c.reset.mask = 0xf;
        c.reset.margin = 256;
        assert_eq!(name(Sar::new(c)), "margin");
        c.reset.margin = 255;
        assert!(Sar::new(c).is_ok());
    }
}

/// Reference: the rule stated by brute force (sort the candidates).
pub mod reference {
    /// The decision for a request of original port `orig`, with degrees
    /// `deg` (one per port), the group's `mask` and `margin`:
    /// `(dec_port, dec_detour)`. Candidates are every port in `mask` and
    /// `orig`, sorted by `(deg, port != orig, port)`; the first is `best`.
    pub fn decide(deg: &[u8], mask: u32, margin: u32, orig: u32, hit: bool) -> (u32, bool) {
        if hit {
            return (orig, false);
        }
        let mut c: Vec<u32> = (0..deg.len() as u32)
            .filter(|&p| p == orig || mask >> p & 1 == 1)
            .collect();
        c.sort_by_key(|&p| (deg[p as usize], p != orig, p));
        let best = c[0];
        if best != orig && deg[best as usize] as u32 + margin < deg[orig as usize] as u32 {
            (best, true)
        } else {
            (orig, false)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::*;
        use super::decide as reference;
        use crate::xorshift;
        use std::collections::VecDeque;

        /// Random traces through every shape: a shadow of `deg[]`, masks and
        /// margin kept by the test from the inputs alone (updates after the
        /// cycle's decision, reset to reset values), the reference's decision
        /// queued and compared with the model's output `LATENCY` cycles
        /// later; plus the properties of every decision. Degrees are drawn
        /// from a few values (ties, 0, 255) and near the margin.
        #[test]
        fn model_matches_the_brute_force_rule_and_its_properties() {
            let mut rng = 0x5eed_1234u32;
            let mut draw = || {
                rng = xorshift::next(rng);
                rng
            };
            let (mut detours, mut decided, mut tie_kept) = (0u64, 0u64, 0u64);
            for &pb in SUPPORTED_PORT_BITS {
                for &gb in SUPPORTED_GROUP_BITS {
                    let shape = SarShape {
                        port_bits: pb,
                        group_bits: gb,
                    };
                    let reset = SarParams {
                        mask: draw() & shape.mask_max(),
                        margin: draw() % 8,
                    };
                    let mut s = Sar::new(SarConfig { shape, reset }).unwrap();
                    let (np, ng) = (shape.ports(), shape.groups());
                    let mut deg = vec![0u8; np as usize];
                    let mut masks = vec![reset.mask; ng as usize];
                    let mut margin = reset.margin;
                    // Decisions expected, by the cycle they come out.
                    let mut due: VecDeque<(u64, Option<(u32, bool)>)> = VecDeque::new();
                    for t in 0..40_000u64 {
                        let r = draw();
                        let q = draw();
                        let degv = [0, 0, 7, 7, 8, 100, 254, 255][(q & 7) as usize]
                            + if r & 0x100 != 0 { q >> 28 } else { 0 };
                        let i = SarIn {
                            rst: r & 0x7ff == 0,
                            deg_valid: r & 2 != 0,
                            deg_port: q >> 8,
                            deg: degv,
                            req_valid: r & 4 != 0,
                            req_port: q >> 12,
                            req_group: q >> 16,
                            req_hit: r & 0x18 == 0,
                            cfg_valid: r & 0x3e0 == 0,
                            cfg_addr: q >> 20,
                            cfg_data: if r & 0x400 != 0 {
                                q >> 24 & 0xf
                            } else {
                                draw()
                            },
                        };
                        let o = s.step(&i);
                        let want = match due.front() {
                            Some(&(at, d)) if at == t => {
                                due.pop_front();
                                d
                            }
                            _ => None,
                        };
                        let got = o.dec_valid.then_some((o.dec_port, o.dec_detour));
                        assert_eq!(got, want, "shape {pb}/{gb} cycle {t}");
                        if !o.dec_valid {
                            assert_eq!((o.dec_port, o.dec_detour), (0, false));
                        }
                        if i.rst {
                            due.clear();
                            deg.fill(0);
                            masks.fill(reset.mask);
                            margin = reset.margin;
                            continue;
                        }
                        if i.req_valid {
                            let orig = i.req_port % np;
                            let m = masks[(i.req_group % ng) as usize];
                            let d = reference(&deg, m, margin, orig, i.req_hit);
                            // Properties.
                            let (port, detour) = d;
                            assert_eq!(detour, port != orig);
                            assert!(!(i.req_hit && detour), "a hit detoured");
                            assert!(port == orig || m >> port & 1 == 1, "not a candidate");
                            if detour {
                                assert!(
                                    deg[port as usize] as u32 + margin < deg[orig as usize] as u32
                                );
                                assert!((0..np)
                                    .filter(|&p| m >> p & 1 == 1)
                                    .all(|p| deg[p as usize] >= deg[port as usize]));
                                detours += 1;
                            } else if !i.req_hit
                                && (0..np).any(|p| {
                                    m >> p & 1 == 1
                                        && p != orig
                                        && deg[p as usize] == deg[orig as usize]
                                })
                            {
                                tie_kept += 1;
                            }
                            decided += 1;
                            due.push_back((t + LATENCY as u64, Some(d)));
                        }
                        if i.deg_valid {
                            deg[(i.deg_port % np) as usize] = i.deg as u8;
                        }
                        if i.cfg_valid {
                            let a = i.cfg_addr % (2 * ng);
                            if a < ng {
                                masks[a as usize] = i.cfg_data & shape.mask_max();
                            } else if a == ng {
                                margin = i.cfg_data & 0xff;
                            }
                        }
                        assert_eq!(
                            (s.degs(), s.masks(), s.margin()),
                            (&deg[..], &masks[..], margin)
                        );
                    }
                }
            }
            println!(
                "sar: {decided} requests checked, {detours} detours, {tie_kept} kept on a tie"
            );
            assert!(detours > 1000 && tie_kept > 100);
        }
    }
}
