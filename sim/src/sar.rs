//! SAR in the generic machinery: ports, value encoding, random stimulus
//! and the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the degrees, masks and margin the
//! golden model holds and aims at the rule's edges. It keeps a focus flow
//! (an original port and a group, changed every hundred cycles or so) that
//! half of the requests come from, and sets the degrees of the focus's
//! port and of its least congested alternative so that `deg[best] + margin`
//! lands exactly on `deg[o]` (blocked), one below it (detoured), two below
//! or one above; so that the 9-bit sum passes 255 while the 8-bit one would
//! detour (a margin of 128 or more, `deg[o] = 255`); so that two candidates
//! tie at the least degree, or a candidate ties with the original port.
//! Other degree updates are 0, 255, another port's degree (plus 0 to 3) or
//! any value, on random ports. Requests come from random ports and groups
//! too, hit the CAM one time in four, and share their cycle with a degree
//! update of their own port or of their best alternative, or with a write
//! of their group's mask or of the margin, half of the time with the value
//! that would flip their decision (the request must see the old one).
//! Masks written: 0, all sixteen data bits set, every port, one port, the
//! request's own port only, any; a quarter of them with random data bits
//! above `P`. Margins: 0 most often, small, 255, 128 or more, any; one in
//! eight with data bits above 8. Writes to the unused addresses `G + 1 ..
//! 2G - 1` carry random data. After three resets in four every mask and
//! the margin are written in consecutive cycles, 0 to 40 cycles after the
//! reset (the reset values are seen before). The share of cycles with a
//! request (every cycle, most, half, few, none), with a degree update and
//! with a write changes every 50 to 1,500 cycles: bursts at II = 1 and
//! idle gaps. Resets come every 1,000 to 6,000 cycles (one in four after 5
//! to 40), held one to three cycles, with traffic in the reset cycles.
//!
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::sar::{
    Sar, SarConfig, SarIn, SarOut, SarParams, SarShape, CFG_DATA_BITS, DEG_BITS, LATENCY,
    MARGIN_BITS, SUPPORTED_GROUP_BITS, SUPPORTED_PORT_BITS,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct SarBlock;

impl Block for SarBlock {
    const NAME: &'static str = "sar";
    type Config = SarConfig;
    type In = SarIn;
    type Out = SarOut;
    type Golden = Sar;
    type Stimulus = SarStimulus;

    fn ports(c: &SarConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::sar::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &SarIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.deg_valid as u128;
        v[2] = i.deg_port as u128;
        v[3] = i.deg as u128;
        v[4] = i.req_valid as u128;
        v[5] = i.req_port as u128;
        v[6] = i.req_group as u128;
        v[7] = i.req_hit as u128;
        v[8] = i.cfg_valid as u128;
        v[9] = i.cfg_addr as u128;
        v[10] = i.cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> SarIn {
        // Values were checked against the port widths by the caller.
        SarIn {
            rst: v[0] != 0,
            deg_valid: v[1] != 0,
            deg_port: v[2] as u32,
            deg: v[3] as u32,
            req_valid: v[4] != 0,
            req_port: v[5] as u32,
            req_group: v[6] as u32,
            req_hit: v[7] != 0,
            cfg_valid: v[8] != 0,
            cfg_addr: v[9] as u32,
            cfg_data: v[10] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &SarOut, v: &mut [u128]) {
        v[0] = o.dec_valid as u128;
        v[1] = o.dec_port as u128;
        v[2] = o.dec_detour as u128;
    }

    fn golden(c: &SarConfig) -> Sar {
        Sar::new(*c).expect("SAR configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut Sar, i: &SarIn) -> SarOut {
        g.step(i)
    }

    fn verilog(c: &SarConfig) -> String {
        ccrtl_hdl::sar::verilog(c).expect("SAR configuration must be validated before use")
    }

    fn hdl_sim(c: &SarConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<SarIn, SarOut>> {
        ccrtl_hdl::sar::sim(c).expect("SAR configuration must be validated before use")
    }

    fn default_config() -> SarConfig {
        SarConfig::default()
    }

    fn parse_config(text: &str, path: &str) -> Result<SarConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<SarConfig> {
        let mut v = vec![];
        for &port_bits in SUPPORTED_PORT_BITS {
            for &group_bits in SUPPORTED_GROUP_BITS {
                v.push(SarConfig {
                    shape: SarShape {
                        port_bits,
                        group_bits,
                    },
                    reset: SarParams::default(),
                });
            }
        }
        v
    }

    fn random_reset(c: &SarConfig, r: &mut Rng) -> SarConfig {
        let mask_max = c.shape.mask_max();
        let mask = match r.upto(7) {
            0 | 1 => 0,
            2 => mask_max,
            3 => 1 << r.upto(c.shape.ports() - 1),
            _ => r.next_u32() & mask_max,
        };
        SarConfig {
            shape: c.shape,
            reset: SarParams {
                mask,
                margin: random_margin(r),
            },
        }
    }

    fn describe(c: &SarConfig) -> String {
        format!(
            "port_bits={} group_bits={} reset: mask={:#x} margin={}",
            c.shape.port_bits, c.shape.group_bits, c.reset.mask, c.reset.margin
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    /// With 16 ports a mask takes all sixteen data bits: none is above it.
    fn coverage_applies(c: &SarConfig) -> Vec<bool> {
        let mut v = vec![true; COVER.len()];
        v[MASK_HIGH_BITS] = c.shape.ports() < CFG_DATA_BITS;
        v
    }

    #[inline]
    fn cover(g: &Sar, prev: &SarIn, i: &SarIn, cov: &mut Coverage) {
        if i.rst {
            if prev.rst {
                cov.hit(RESET_HELD);
            } else if g.in_flight() > 0 {
                cov.hit(RESET_IN_FLIGHT);
            }
            if i.req_valid || i.deg_valid || i.cfg_valid {
                cov.hit(TRAFFIC_IN_RESET);
            }
            return;
        }
        let shape = g.config().shape;
        let (np, ng) = (shape.ports(), shape.groups());
        let mask_max = shape.mask_max();
        let margin = g.margin();
        let d = g.degs();
        // Register writes (a request of the same cycle looks at them below).
        let cfg_addr = i.cfg_addr & (2 * ng - 1);
        let cfg_data = i.cfg_data & low(CFG_DATA_BITS);
        if i.cfg_valid {
            if cfg_addr < ng && cfg_data > mask_max {
                cov.hit(MASK_HIGH_BITS);
            }
            if cfg_addr == ng && cfg_data > low(MARGIN_BITS) {
                cov.hit(MARGIN_HIGH_BITS);
            }
            if cfg_addr > ng
                && cfg_data & mask_max != g.masks()[(cfg_addr - ng) as usize]
                && cfg_data & low(MARGIN_BITS) != margin
            {
                cov.hit(UNUSED_WRITE);
            }
        }
        if !i.req_valid {
            return;
        }
        let o = i.req_port & (np - 1);
        let grp = i.req_group & (ng - 1);
        if prev.rst {
            cov.hit(REQ_AFTER_RESET);
        }
        if g.in_flight() == LATENCY {
            cov.hit(BACK_TO_BACK);
        }
        let c = g.candidates(o, grp);
        let now = decision(d, c, o, margin);
        if i.req_hit {
            if now.1 {
                cov.hit(HIT_KEPT);
            }
            return;
        }
        let (best, detour) = now;
        let alt = least(d, c & !(1 << o));
        let deg = |p: u32| d[p as usize] as u32;
        if detour {
            cov.hit(DETOUR);
            if deg(o) == 255 && deg(best) == 0 {
                cov.hit(DETOUR_EXTREMES);
            }
            if best == 0 {
                cov.hit(DETOUR_TO_ZERO);
            }
            if best == np - 1 {
                cov.hit(DETOUR_TO_TOP);
            }
            if c == mask_max {
                cov.hit(DETOUR_ALL_CANDIDATES);
            }
            if (0..np).any(|p| p != o && p != best && c >> p & 1 != 0 && deg(p) == deg(best)) {
                cov.hit(TIE_LOWEST);
            }
        }
        if let Some(a) = alt {
            if deg(a) == deg(o) && margin == 0 {
                cov.hit(TIE_ORIG);
            }
            if deg(a) < deg(o) {
                let sum = deg(a) + margin;
                if sum == deg(o) {
                    cov.hit(MARGIN_EQUAL);
                }
                if sum + 1 == deg(o) {
                    cov.hit(MARGIN_ONE_BELOW);
                }
                if sum >= 256 && sum & low(DEG_BITS) < deg(o) {
                    cov.hit(SUM_OVERFLOW);
                }
            }
        } else if (0..np).any(|p| deg(p) + margin < deg(o)) {
            cov.hit(NO_ALTERNATIVE);
        }
        if deg(o) == 255 && margin == 255 && alt.is_some() {
            cov.hit(MAX_SUM);
        }
        // The same cycle's update or write would change the decision: the
        // request must be decided on the old value.
        if i.deg_valid {
            let p = i.deg_port & (np - 1);
            let v = i.deg & low(DEG_BITS);
            if c >> p & 1 != 0 && v != deg(p) {
                let mut d2 = [0u8; 16];
                d2[..d.len()].copy_from_slice(d);
                d2[p as usize] = v as u8;
                if decision(&d2[..d.len()], c, o, margin) != now {
                    cov.hit(if p == o {
                        SAME_CYCLE_DEG_ORIG
                    } else {
                        SAME_CYCLE_DEG_CAND
                    });
                }
            }
        }
        if i.cfg_valid {
            if cfg_addr == grp {
                let c2 = cfg_data & mask_max | 1 << o;
                if decision(d, c2, o, margin) != now {
                    cov.hit(SAME_CYCLE_MASK);
                }
            }
            if cfg_addr == ng && decision(d, c, o, cfg_data & low(MARGIN_BITS)) != now {
                cov.hit(SAME_CYCLE_MARGIN);
            }
        }
        // The cycle before's update or write is in force.
        if !prev.rst {
            if prev.deg_valid && c >> (prev.deg_port & (np - 1)) & 1 != 0 {
                cov.hit(AFTER_DEG);
            }
            let a = prev.cfg_addr & (2 * ng - 1);
            if prev.cfg_valid && (a == grp || a == ng) {
                cov.hit(AFTER_WRITE);
            }
        }
    }
}

const COVER: &[&str] = &[
    "request detoured",
    "detour from a port at degree 255 to a port at 0",
    "detour to port 0",
    "detour to the highest-numbered port",
    "detour with every port a candidate",
    "CAM hit kept on its port where a miss would be detoured",
    "detour with two or more candidates tied at the least degree (the lowest wins)",
    "the original port tied with another candidate at the least degree, margin 0 (kept)",
    "detour blocked exactly at the margin (deg[best] + margin == deg[o])",
    "detour one below the margin (deg[best] + margin == deg[o] - 1)",
    "deg[best] + margin above 255 where an 8-bit sum would detour (kept)",
    "request with deg[o] = 255 and margin 255, alternatives present (kept)",
    "no alternative (candidates = {o}) while another port is less congested by more than the margin",
    "request with an update of its port's degree in the same cycle that would change its decision",
    "request with an update of another candidate's degree in the same cycle that would change its decision",
    "request with a write of its group's mask in the same cycle that would change its decision",
    "request with a margin write in the same cycle that would change its decision",
    "request in the cycle after a degree update of one of its candidates",
    "request in the cycle after a write of its group's mask or of the margin",
    "write to an unused address (G + 1 .. 2G - 1) with data unlike the mask and the margin",
    "mask write with data bits above P",
    "margin write with data bits above 8",
    "requests in LATENCY + 1 consecutive cycles (II = 1)",
    "request in the cycle after a reset",
    "reset with decisions in flight",
    "reset held for several cycles",
    "request, degree update or write in a reset cycle",
];
const DETOUR: usize = 0;
const DETOUR_EXTREMES: usize = 1;
const DETOUR_TO_ZERO: usize = 2;
const DETOUR_TO_TOP: usize = 3;
const DETOUR_ALL_CANDIDATES: usize = 4;
const HIT_KEPT: usize = 5;
const TIE_LOWEST: usize = 6;
const TIE_ORIG: usize = 7;
const MARGIN_EQUAL: usize = 8;
const MARGIN_ONE_BELOW: usize = 9;
const SUM_OVERFLOW: usize = 10;
const MAX_SUM: usize = 11;
const NO_ALTERNATIVE: usize = 12;
const SAME_CYCLE_DEG_ORIG: usize = 13;
const SAME_CYCLE_DEG_CAND: usize = 14;
const SAME_CYCLE_MASK: usize = 15;
const SAME_CYCLE_MARGIN: usize = 16;
const AFTER_DEG: usize = 17;
const AFTER_WRITE: usize = 18;
const UNUSED_WRITE: usize = 19;
const MASK_HIGH_BITS: usize = 20;
const MARGIN_HIGH_BITS: usize = 21;
const BACK_TO_BACK: usize = 22;
const REQ_AFTER_RESET: usize = 23;
const RESET_IN_FLIGHT: usize = 24;
const RESET_HELD: usize = 25;
const TRAFFIC_IN_RESET: usize = 26;

/// `2^bits - 1`.
#[inline]
fn low(bits: u32) -> u32 {
    ((1u64 << bits) - 1) as u32
}

/// The lowest-numbered port of `ports` (a mask) with the least degree.
#[inline]
fn least(d: &[u8], ports: u32) -> Option<u32> {
    let mut best: Option<u32> = None;
    for p in 0..d.len() as u32 {
        if ports >> p & 1 != 0 && best.is_none_or(|b| d[p as usize] < d[b as usize]) {
            best = Some(p);
        }
    }
    best
}

/// The rule on given state, for the coverage points and the aims only
/// (the golden model decides): `(dec_port, dec_detour)` of a miss from
/// port `o` with candidates `c`. A tie with `o` never detours, so `best`
/// is the least alternative when it beats `o` by more than the margin.
#[inline]
fn decision(d: &[u8], c: u32, o: u32, margin: u32) -> (u32, bool) {
    match least(d, c & !(1 << o)) {
        Some(a) if d[a as usize] as u32 + margin < d[o as usize] as u32 => (a, true),
        _ => (o, false),
    }
}

/// A random margin: 0 most often (every strict improvement detours),
/// small, the largest, 128 or more, any.
pub fn random_margin(r: &mut Rng) -> u32 {
    match r.upto(15) {
        0..=3 => 0,
        4..=8 => r.range(1, 8),
        9 | 10 => r.range(9, 60),
        11 => 255,
        12 | 13 => r.range(128, 254),
        _ => r.upto(255),
    }
}

/// A random set bit of `m` (`None` for 0).
fn random_bit(r: &mut Rng, m: u32) -> Option<u32> {
    let n = m.count_ones();
    if n == 0 {
        return None;
    }
    let k = r.upto(n - 1);
    (0..32).filter(|&p| m >> p & 1 != 0).nth(k as usize)
}

/// Random valid SAR stimulus (see the module comment).
pub struct SarStimulus {
    rng: Rng,
    ports: u32,
    groups: u32,
    mask_max: u32,
    /// Cycles to the next reset; reset cycles still to come.
    reset_in: u32,
    reset_left: u32,
    /// After a reset: cycles to the writes of every register, and the next
    /// address to write (`None`: no such writes pending).
    setup_in: Option<u32>,
    setup_addr: u32,
    /// Share of cycles with a request, a degree update, a write, in 256ths.
    req_256: u32,
    deg_256: u32,
    cfg_256: u32,
    /// Cycles to the next change of the shares.
    mood_in: u32,
    /// The focus flow: original port and group.
    focus: (u32, u32),
}

impl SarStimulus {
    fn new_focus(&mut self) {
        self.focus = (
            self.rng.upto(self.ports - 1),
            self.rng.upto(self.groups - 1),
        );
    }

    /// Random data bits above `P` (within `cfg_data`'s 16) a quarter of
    /// the time.
    fn high_bits(&mut self) -> u32 {
        if self.rng.chance(64) {
            self.rng.next_u32() & low(CFG_DATA_BITS) & !self.mask_max
        } else {
            0
        }
    }

    /// Data for a mask write; `own`: the request's port.
    fn mask_data(&mut self, own: u32) -> u32 {
        let v = match self.rng.upto(15) {
            0 | 1 => 0,
            2 | 3 => low(CFG_DATA_BITS),
            4 => self.mask_max,
            5 | 6 => 1 << self.rng.upto(self.ports - 1),
            7 => 1 << own,
            _ => self.rng.next_u32() & self.mask_max,
        };
        v | self.high_bits()
    }

    /// Data for a margin write, bits above 8 set one time in eight.
    fn margin_data(&mut self) -> u32 {
        let v = random_margin(&mut self.rng);
        if self.rng.chance(32) {
            v | self.rng.range(1, 255) << 8
        } else {
            v
        }
    }

    /// The degree update of this cycle (`i` holds the request already).
    fn degree(&mut self, g: &Sar, i: &SarIn) -> (u32, u32) {
        let np = self.ports;
        let d = g.degs();
        let deg = |p: u32| d[p as usize] as u32;
        let m = g.margin();
        let (o, rg) = (i.req_port, i.req_group);
        let c = g.candidates(o, rg);
        let (_, detour) = decision(d, c, o, m);
        let alt = least(d, c & !(1 << o));
        let (fo, fg) = self.focus;
        let fc = g.candidates(fo, fg);
        let falt = least(d, fc & !(1 << fo));
        let random = self.rng.upto(np - 1);
        match self.rng.upto(15) {
            // The request's own port, in its cycle: half of the time to the
            // value that flips its decision (0 keeps it, 255 lets it go).
            0 | 1 if i.req_valid => {
                let v = match self.rng.upto(3) {
                    0 | 1 => {
                        if detour {
                            0
                        } else {
                            255
                        }
                    }
                    2 => alt.map_or(255, |a| (deg(a) + m + 1).min(255)),
                    _ => self.rng.upto(255),
                };
                (o, v)
            }
            // Its best alternative, in its cycle.
            2 | 3 if i.req_valid && alt.is_some() => {
                let a = alt.unwrap();
                let v = match self.rng.upto(3) {
                    0 | 1 => {
                        if detour {
                            255
                        } else {
                            0
                        }
                    }
                    2 => deg(o).saturating_sub(m + 1),
                    _ => self.rng.upto(255),
                };
                (a, v)
            }
            // The focus at the margin's boundary: deg[o] - (deg[alt] +
            // margin) = k, 0 blocked exactly, 1 detoured exactly; or the
            // 9-bit sum above 255 with deg[o] = 255.
            4..=7 if falt.is_some() => {
                let a = falt.unwrap();
                if m >= 2 && self.rng.chance(64) {
                    return if deg(fo) != 255 {
                        (fo, 255)
                    } else {
                        (a, self.rng.range(256 - m, 254))
                    };
                }
                let k = self.rng.pick(&[0i32, 0, 1, 1, 2, -1]);
                let up = deg(a) as i32 + m as i32 + k;
                let down = deg(fo) as i32 - m as i32 - k;
                if (0..=255).contains(&up) && (self.rng.chance(128) || !(0..=255).contains(&down)) {
                    (fo, up as u32)
                } else if (0..=255).contains(&down) {
                    (a, down as u32)
                } else {
                    (fo, 255)
                }
            }
            // Ties: another candidate of the focus, or the focus's port,
            // to the least alternative's degree; or any port to another's.
            8 | 9 => match falt {
                Some(a) if self.rng.chance(128) => {
                    match random_bit(&mut self.rng, fc & !(1 << fo) & !(1 << a)) {
                        Some(p) => (p, deg(a)),
                        None => (fo, deg(a)),
                    }
                }
                Some(a) => (fo, deg(a)),
                None => (random, deg(self.rng.upto(np - 1))),
            },
            // Extremes.
            10 => (random, self.rng.pick(&[0, 255])),
            11 => (fo, 255),
            // Any port: another's degree give or take 3, or any value.
            _ => {
                let v = if self.rng.chance(128) {
                    let q = deg(self.rng.upto(np - 1)) as i32 + self.rng.range(0, 6) as i32 - 3;
                    q.clamp(0, 255) as u32
                } else {
                    self.rng.upto(255)
                };
                (random, v)
            }
        }
    }

    /// The register write of this cycle, if any (`i` holds the request).
    fn write(&mut self, g: &Sar, i: &SarIn) -> Option<(u32, u32)> {
        let ng = self.groups;
        if let Some(0) = self.setup_in {
            if !i.rst {
                // Every mask, then the margin, rich masks and small margins.
                let a = self.setup_addr;
                self.setup_addr += 1;
                if self.setup_addr > ng {
                    self.setup_in = None;
                }
                let data = if a == ng {
                    self.rng.pick(&[0, 0, 1, 2, 5]) | self.high_bits() & 0xff00
                } else {
                    match self.rng.upto(7) {
                        0 | 1 => self.mask_max,
                        2 => 1 << self.rng.upto(self.ports - 1),
                        3 => 0,
                        _ => self.rng.next_u32() & self.mask_max,
                    }
                };
                return Some((a, data));
            }
        }
        if !self.rng.chance(self.cfg_256) {
            return None;
        }
        let d = g.degs();
        let (o, rg) = (i.req_port, i.req_group);
        let c = g.candidates(o, rg);
        let (_, detour) = decision(d, c, o, g.margin());
        let flip = self.rng.chance(128);
        Some(match self.rng.upto(15) {
            // The request's group, in its cycle: half of the time the mask
            // that flips its decision.
            0..=2 if i.req_valid => {
                let data = if !flip {
                    self.mask_data(o)
                } else if detour {
                    self.rng.pick(&[0, 1 << o]) | self.high_bits()
                } else {
                    self.mask_max | self.high_bits()
                };
                (rg, data)
            }
            // The margin, in the request's cycle.
            3 | 4 if i.req_valid => {
                let data = if !flip {
                    self.margin_data()
                } else if detour {
                    255
                } else {
                    0
                };
                (ng, data)
            }
            5 | 6 => {
                let (fo, fg) = self.focus;
                (fg, self.mask_data(fo))
            }
            7 | 8 => (ng, self.margin_data()),
            // An unused address.
            9 => (
                self.rng.range(ng + 1, 2 * ng - 1),
                self.rng.upto(low(CFG_DATA_BITS)),
            ),
            _ => {
                let own = self.rng.upto(self.ports - 1);
                (self.rng.upto(ng - 1), self.mask_data(own))
            }
        })
    }
}

impl Stimulus<SarBlock> for SarStimulus {
    fn new(config: &SarConfig, seed: u64) -> SarStimulus {
        let shape = config.shape;
        let mut s = SarStimulus {
            rng: Rng::new(seed),
            ports: shape.ports(),
            groups: shape.groups(),
            mask_max: shape.mask_max(),
            // The run starts with a reset held one to three cycles.
            reset_in: 0,
            reset_left: 0,
            setup_in: None,
            setup_addr: 0,
            req_256: 200,
            deg_256: 128,
            cfg_256: 24,
            mood_in: 300,
            focus: (0, 0),
        };
        s.new_focus();
        s
    }

    fn next_into(&mut self, g: &Sar, i: &mut SarIn) {
        let (np, ng) = (self.ports, self.groups);
        // Resets, and the writes of every register after most of them.
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
        } else if self.reset_in == 0 {
            i.rst = true;
            self.reset_left = self.rng.upto(2);
            self.reset_in = if self.rng.chance(64) {
                self.rng.range(5, 40)
            } else {
                self.rng.range(1_000, 6_000)
            };
            self.setup_in = self.rng.chance(192).then(|| self.rng.upto(40));
            self.setup_addr = 0;
        } else {
            self.reset_in -= 1;
        }
        if !i.rst {
            if let Some(n) = self.setup_in.as_mut() {
                *n = n.saturating_sub(1);
            }
        }
        // Shares of busy cycles change now and then, and the focus.
        self.mood_in = self.mood_in.saturating_sub(1);
        if self.mood_in == 0 {
            self.mood_in = self.rng.range(50, 1_500);
            self.req_256 = self.rng.pick(&[256, 256, 200, 128, 40, 0]);
            self.deg_256 = self.rng.pick(&[192, 128, 64, 16]);
            self.cfg_256 = self.rng.pick(&[64, 24, 8, 2]);
            self.new_focus();
        }
        if self.rng.chance(2) {
            self.new_focus();
        }
        // The request: the focus flow half of the time; a CAM hit one in 4.
        i.req_valid = self.rng.chance(self.req_256);
        (i.req_port, i.req_group) = if self.rng.chance(128) {
            self.focus
        } else {
            (self.rng.upto(np - 1), self.rng.upto(ng - 1))
        };
        i.req_hit = self.rng.chance(64);
        // The degree update.
        i.deg_valid = self.rng.chance(self.deg_256);
        (i.deg_port, i.deg) = self.degree(g, i);
        // The register write.
        if let Some((addr, data)) = self.write(g, i) {
            (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, addr, data);
        }
    }
}

// ---- the params file ---------------------------------------------------------

/// SAR's table: `[sar]` with `port_bits`, `group_bits` and `[sar.reset]`
/// with `mask`, `margin`.
#[derive(Debug, Default, Deserialize)]
struct SarFile {
    sar: Option<SarTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SarTable {
    port_bits: Option<u32>,
    group_bits: Option<u32>,
    reset: Option<SarReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SarReset {
    mask: Option<u32>,
    margin: Option<u32>,
}

/// Parses and validates SAR's table of params text; `path` names it.
pub fn parse_config(text: &str, path: &str) -> Result<SarConfig, ParamsError> {
    let file: SarFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.sar.unwrap_or_default();
    let defaults = SarConfig::default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = SarShape {
        port_bits: t.port_bits.unwrap_or(defaults.shape.port_bits),
        group_bits: t.group_bits.unwrap_or(defaults.shape.group_bits),
    };
    shape.validate().map_err(perr)?;
    let r = t.reset.unwrap_or_default();
    let c = SarConfig {
        shape,
        reset: SarParams {
            mask: r.mask.unwrap_or(defaults.reset.mask),
            margin: r.margin.unwrap_or(defaults.reset.margin),
        },
    };
    c.validate().map_err(perr)?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the stimulus on the golden model alone for `cycles`; returns
    /// the coverage, and checks on every request that the rule restated
    /// for the coverage points is the golden model's.
    fn run(c: &SarConfig, seed: u64, cycles: u64) -> Coverage {
        let mut g = SarBlock::golden(c);
        let mut s = SarStimulus::new(c, seed);
        let mut cov = Coverage::new(COVER, SarBlock::coverage_applies(c));
        let mut prev = SarIn::default();
        for _ in 0..cycles {
            let i = s.next(&g);
            if i.req_valid && !i.rst {
                let o = i.req_port;
                let d = decision(g.degs(), g.candidates(o, i.req_group), o, g.margin());
                assert_eq!(d, g.decide(o, i.req_group, false), "{i:?}");
            }
            SarBlock::cover(&g, &prev, &i, &mut cov);
            g.step(&i);
            prev = i;
        }
        cov
    }

    #[test]
    fn stimulus_hits_every_coverage_point_in_1e5_cycles_on_every_shape() {
        let mut r = Rng::new(5);
        for (k, shape) in SarBlock::menu().iter().enumerate() {
            for c in [*shape, SarBlock::random_reset(shape, &mut r)] {
                let cov = run(&c, 1 + k as u64, 100_000);
                if c == SarConfig::default() {
                    eprintln!("{}: {:?}", SarBlock::describe(&c), cov.points());
                }
                assert!(
                    cov.missed().is_empty(),
                    "{}: missed {:?}\n{:?}",
                    SarBlock::describe(&c),
                    cov.missed(),
                    cov.points()
                );
            }
        }
    }

    #[test]
    fn coverage_points_are_named_once() {
        let mut names = COVER.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), COVER.len());
        assert_eq!(COVER.len(), TRAFFIC_IN_RESET + 1);
    }

    #[test]
    fn params_table_is_parsed_and_checked_by_name() {
        let c = parse_config(
            "[sar]\nport_bits = 2\ngroup_bits = 4\n[sar.reset]\nmask = 0xa\nmargin = 9\n",
            "p.toml",
        )
        .unwrap();
        assert_eq!(
            (
                c.shape.port_bits,
                c.shape.group_bits,
                c.reset.mask,
                c.reset.margin
            ),
            (2, 4, 0xa, 9)
        );
        assert_eq!(parse_config("", "p.toml").unwrap(), SarConfig::default());
        let e = parse_config("[sar]\nport_bits = 2\n[sar.reset]\nmask = 0x10\n", "p.toml");
        assert!(e.unwrap_err().to_string().contains("`mask`"));
    }
}
