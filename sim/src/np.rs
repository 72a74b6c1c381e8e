//! NP in the generic machinery: ports, value encoding, random stimulus and
//! the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it keeps a few "watched" flows that were
//! sent CE packets and reads the golden model's cycles since each one's
//! last CNP request, so that CE packets arrive exactly `N` and `N - 1`
//! cycles after a CNP (the interval's edge), and 1 to 8 cycles after (the
//! packets whose CNPs the flow table does not yet hold, or holds in a word
//! that collides with the read: all forwarded). Traffic comes from a hot set of a few flows (so
//! back-to-back packets of one flow are the rule), from random flows, and
//! now and then from a flow whose last CNP is older than the timestamps'
//! wrap (`2^stamp_bits` cycles). The interval is loaded now and then (in
//! runs of consecutive cycles, with packets in the same cycle): 0, 1 to 10,
//! small, the largest, or any value. The block is reset mid-traffic one
//! to three clearing periods apart (one reset in four during the clearing
//! that follows the last one, one in four after more than the wrap), held one to four cycles, with traffic and
//! loads in the reset cycles; packets keep coming while the table is being cleared
//! (`s_pkt_ready` low), and are refused.
//!
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::np::{
    ecn, Np, NpConfig, NpIn, NpOut, NpParams, NpShape, SUPPORTED_FLOW_BITS, SUPPORTED_INTERVAL_BITS,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Front, FrontPoints, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct NpBlock;

impl Block for NpBlock {
    const NAME: &'static str = "np";
    type Config = NpConfig;
    type In = NpIn;
    type Out = NpOut;
    type Golden = Np;
    type Stimulus = NpStimulus;

    fn ports(c: &NpConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::np::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &NpIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.pkt_valid as u128;
        v[2] = i.pkt_flow as u128;
        v[3] = i.pkt_ecn as u128;
        v[4] = i.cfg_valid as u128;
        v[5] = i.cfg_interval as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> NpIn {
        // Values were checked against the port widths by the caller.
        NpIn {
            rst: v[0] != 0,
            pkt_valid: v[1] != 0,
            pkt_flow: v[2] as u32,
            pkt_ecn: v[3] as u8,
            cfg_valid: v[4] != 0,
            cfg_interval: v[5] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &NpOut, v: &mut [u128]) {
        v[0] = o.pkt_ready as u128;
        v[1] = o.cnp_valid as u128;
        v[2] = o.cnp_flow as u128;
    }

    fn golden(c: &NpConfig) -> Np {
        Np::new(*c).expect("NP configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut Np, i: &NpIn) -> NpOut {
        g.step(i)
    }

    fn verilog(c: &NpConfig) -> String {
        ccrtl_hdl::np::verilog(c).expect("NP configuration must be validated before use")
    }

    fn hdl_sim(c: &NpConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<NpIn, NpOut>> {
        ccrtl_hdl::np::sim(c).expect("NP configuration must be validated before use")
    }

    fn default_config() -> NpConfig {
        NpConfig::default()
    }

    /// 256 flows (a 256-cycle clearing, timestamps that wrap every 2^14
    /// cycles), reset interval 37.
    const SHORT_PARAMS: &'static str =
        "[np]\nflow_bits = 8\ninterval_bits = 12\n[np.reset]\ninterval = 37\n";

    fn parse_config(text: &str, path: &str) -> Result<NpConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<NpConfig> {
        let mut v = vec![];
        for &flow_bits in SUPPORTED_FLOW_BITS {
            for &interval_bits in SUPPORTED_INTERVAL_BITS {
                let shape = NpShape {
                    flow_bits,
                    interval_bits,
                };
                if shape.validate().is_ok() {
                    v.push(NpConfig {
                        shape,
                        reset: NpParams::reset_for(&shape),
                    });
                }
            }
        }
        v
    }

    fn random_reset(c: &NpConfig, r: &mut Rng) -> NpConfig {
        NpConfig {
            shape: c.shape,
            reset: NpParams {
                interval: random_interval(r, &c.shape),
            },
        }
    }

    fn describe(c: &NpConfig) -> String {
        format!(
            "flow_bits={} interval_bits={} reset: interval={}",
            c.shape.flow_bits, c.shape.interval_bits, c.reset.interval
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    /// The points past the wrap and past the scrubber's age count only
    /// where the wrap is at most 2^18 cycles, so that a run of 1e6 cycles
    /// reaches them (with interval_bits = 20 the wrap is 2^22 cycles; the
    /// same generic RTL is checked past its wrap at the smaller widths).
    fn coverage_applies(c: &NpConfig) -> Vec<bool> {
        let long = c.shape.stamp_bits() > LONG_RUN_STAMP_BITS;
        (0..COVER.len())
            .map(|k| !(long && (k == BEYOND_WRAP || k == BEYOND_INTERVAL_MAX)))
            .collect()
    }

    #[inline]
    fn cover(g: &Np, prev: &NpIn, i: &NpIn, cov: &mut Coverage) {
        let front = |x: &NpIn| Front {
            rst: x.rst,
            event: x.pkt_valid,
            cfg: x.cfg_valid,
            cfg_unused: false,
        };
        if !FRONT.cover(cov, g.ready(), front(prev), front(i)) {
            return;
        }
        if i.pkt_ecn != ecn::CE {
            cov.hit(NOT_CE);
            return;
        }
        let n = g.interval() as u64;
        if n == 0 {
            cov.hit(INTERVAL_ZERO);
        }
        if n == g.config().shape.interval_max() as u64 {
            cov.hit(INTERVAL_MAX);
        }
        match g.since_cnp(i.pkt_flow) {
            None => cov.hit(NEVER_SEEN),
            Some(d) => {
                if (1..=8).contains(&d) {
                    cov.hit(SINCE_1 + d as usize - 1);
                }
                if n > 0 && d == n {
                    cov.hit(AT_INTERVAL);
                }
                if n > 1 && d + 1 == n {
                    cov.hit(BELOW_INTERVAL);
                }
                if d >> g.config().shape.interval_bits != 0 {
                    cov.hit(BEYOND_INTERVAL_MAX);
                }
                if d >> g.config().shape.stamp_bits() != 0 {
                    cov.hit(BEYOND_WRAP);
                }
            }
        }
    }
}

const COVER: &[&str] = &[
    "CE packet of a flow with no CNP since reset",
    "CE packet 1 cycle after its flow's CNP",
    "CE packet 2 cycles after its flow's CNP",
    "CE packet 3 cycles after its flow's CNP",
    "CE packet 4 cycles after its flow's CNP",
    "CE packet 5 cycles after its flow's CNP",
    "CE packet 6 cycles after its flow's CNP",
    "CE packet 7 cycles after its flow's CNP",
    "CE packet 8 cycles after its flow's CNP",
    "CE packet exactly N cycles after its flow's CNP",
    "CE packet N - 1 cycles after its flow's CNP",
    "CE packet of a flow whose CNP is older than the timestamp wrap",
    "CE packet with N = 0",
    "CE packet with N at its largest value",
    "packet that is not CE",
    "packet refused while the table is cleared",
    "reset mid-traffic",
    "reset during the clearing",
    "reset held for several cycles",
    "packet in a reset cycle",
    "interval load in a reset cycle",
    "interval loads in consecutive cycles",
    "interval load with a packet in the same cycle",
    "packet in the cycle after a reset (refused)",
    "CE packet of a flow whose CNP is 2^interval_bits or more cycles old (scrubbed)",
];
/// The widest timestamps whose wrap a 1e6-cycle run reaches.
const LONG_RUN_STAMP_BITS: u32 = 18;
const NEVER_SEEN: usize = 0;
const SINCE_1: usize = 1;
const AT_INTERVAL: usize = 9;
const BELOW_INTERVAL: usize = 10;
const BEYOND_WRAP: usize = 11;
const INTERVAL_ZERO: usize = 12;
const INTERVAL_MAX: usize = 13;
const NOT_CE: usize = 14;
const REFUSED_WHILE_CLEARING: usize = 15;
const RESET_MID_RUN: usize = 16;
const RESET_WHILE_CLEARING: usize = 17;
const RESET_HELD: usize = 18;
const TRAFFIC_IN_RESET: usize = 19;
const CFG_IN_RESET: usize = 20;
const CFG_BACK_TO_BACK: usize = 21;
const CFG_WITH_PACKET: usize = 22;
const RIGHT_AFTER_RESET: usize = 23;
const BEYOND_INTERVAL_MAX: usize = 24;

/// The front-end points ([`FrontPoints`]).
const FRONT: FrontPoints = FrontPoints {
    reset_mid_run: RESET_MID_RUN,
    reset_while_clearing: RESET_WHILE_CLEARING,
    reset_held: RESET_HELD,
    event_in_reset: TRAFFIC_IN_RESET,
    cfg_in_reset: CFG_IN_RESET,
    cfg_back_to_back: CFG_BACK_TO_BACK,
    cfg_with_event: CFG_WITH_PACKET,
    cfg_ignored: None,
    refused_while_clearing: REFUSED_WHILE_CLEARING,
    right_after_reset: RIGHT_AFTER_RESET,
};

/// A random interval for `shape`, extreme values often.
pub fn random_interval(r: &mut Rng, shape: &NpShape) -> u32 {
    let max = shape.interval_max();
    match r.upto(9) {
        0 => 0,
        1..=2 => r.range(1, 11),
        3..=5 => r.range(6, 300).min(max),
        6 => max,
        7 => max - r.upto(3),
        _ => r.upto(max),
    }
}

/// How many watched flows the stimulus aims at.
const WATCHED: usize = 8;

/// Random valid NP stimulus (see the module comment).
pub struct NpStimulus {
    rng: Rng,
    shape: NpShape,
    flow_mask: u32,
    /// A few flows traffic returns to all the time.
    hot: [u32; 4],
    /// Flows sent CE packets, whose CNP age is aimed at.
    watched: [u32; WATCHED],
    /// Flows given a CNP long ago, revisited past the wrap.
    old: Vec<(u64, u32)>,
    cycle: u64,
    /// Cycles to the next mid-traffic reset.
    reset_in: u64,
    /// Reset cycles still to come in the current reset.
    reset_left: u32,
    /// Cycles to the next interval load.
    cfg_in: u32,
    /// Loads still to come in a run of consecutive loads.
    loads_left: u32,
    /// Share of cycles with a packet, in 64ths (changes now and then).
    load_64: u32,
    /// Cycles since the last reset cycle, counting the cycle being made
    /// (1 in a reset cycle): the RTL's scrubber reads flow
    /// `(since_reset - 1) mod F` in it.
    since_reset: u64,
    /// Cycles of the current CNP storm still to come, and the cycle the
    /// next one starts (after the reset that schedules it).
    storm_left: u64,
    storm_at: Option<u64>,
    /// Resets so far (their gaps cycle through four kinds).
    resets: u64,
    /// Flows to send a CE packet to, one a cycle, after a storm.
    revisit: Vec<u32>,
    /// The last cycle made was a reset cycle: a packet comes now.
    after_reset: bool,
    /// The last cycle made was a load of a run with more to come.
    in_run: bool,
}

impl NpStimulus {
    /// Cycles from the end of a reset to the next one, by the reset's
    /// number: soon (in the clearing that follows, or just after), one to three clearing
    /// periods (and a few thousand cycles of traffic), then a CNP storm
    /// (see `next_into`) and more than the wrap, then one to three
    /// clearing periods again.
    fn reset_gap(&mut self) -> u64 {
        let f = self.shape.flows() as u64;
        self.resets += 1;
        match self.resets % 4 {
            // Just after the clearing (three times in four), or in it: the
            // flows given CNPs in the first cycles of traffic (0 and F - 1,
            // revisited then) carry stamps that, had the next clearing
            // missed them, would read as a few cycles old after it (the
            // time counter restarts at each reset).
            1 if self.rng.chance(192) => f + 4 + self.rng.upto(16) as u64,
            1 => self.rng.upto(f as u32) as u64 + 1,
            // (No storm where the wrap is longer than a 1e6-cycle run.)
            3 if self.shape.stamp_bits() <= LONG_RUN_STAMP_BITS => {
                let wrap = 1u64 << self.shape.stamp_bits();
                let start = f + 5_000;
                self.storm_at = Some(start);
                start + 2 * wrap + 2 * f + 40_000
            }
            _ => f + 2_000 + self.rng.next_u64() % (2 * f + 20_000),
        }
    }

    fn random_flow(&mut self) -> u32 {
        self.rng.next_u32() & self.flow_mask
    }
}

impl Stimulus<NpBlock> for NpStimulus {
    fn new(config: &NpConfig, seed: u64) -> NpStimulus {
        let mut rng = Rng::new(seed);
        let flow_mask = config.shape.flows() - 1;
        // The first and the last flow are hot: the clearing after a reset
        // starts and ends with them.
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = NpStimulus {
            rng,
            shape: config.shape,
            flow_mask,
            hot,
            watched: [0; WATCHED],
            old: Vec::new(),
            cycle: 0,
            reset_in: 0,
            reset_left: 0,
            cfg_in: 50,
            loads_left: 0,
            load_64: 48,
            since_reset: 0,
            storm_left: 0,
            storm_at: None,
            resets: 0,
            revisit: Vec::new(),
            after_reset: false,
            in_run: false,
        };
        for k in 0..WATCHED {
            s.watched[k] = s.random_flow();
        }
        // The run starts with a reset held for two to four cycles; the
        // first stretch of traffic is longer than the wrap, so every run of
        // a few 1e5 cycles (about 2^stamp_bits + 2^(flow_bits + 1))
        // revisits flows past it.
        s.reset_left = 2 + s.rng.upto(2);
        let f = config.shape.flows() as u64;
        s.reset_in = if config.shape.stamp_bits() <= LONG_RUN_STAMP_BITS {
            (1u64 << config.shape.stamp_bits()) + 2 * f + 20_000
        } else {
            f + 2_000 + s.rng.next_u64() % (2 * f + 20_000)
        };
        s
    }

    #[inline]
    fn next_into(&mut self, g: &Np, i: &mut NpIn) {
        self.cycle += 1;
        // Reset: mid-traffic, held one to four cycles.
        if self.reset_left == 0 {
            self.reset_in = self.reset_in.saturating_sub(1);
            if self.reset_in == 0 {
                self.reset_left = 1 + if self.rng.chance(96) {
                    self.rng.upto(3)
                } else {
                    0
                };
            }
        }
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
            // (The first reset's gap is set by `new`.) One reset in four
            // is followed by a CNP storm: N = 0 and a CE packet of the hot
            // flows every cycle for longer than the wrap, then N at its
            // largest and the flows given CNPs before it revisited. The
            // scrubber must keep clearing the stale flows while CNPs are
            // written every cycle (it may skip only a flow that gets one).
            self.since_reset = 0;
            self.storm_left = 0;
            if self.reset_left == 0 && self.reset_in == 0 {
                self.storm_at = None;
                self.reset_in = self.reset_gap();
            }
        }
        self.since_reset += 1;
        // The first packets after a clearing go to the first and the last
        // flow, the ends of the clearing's sweep.
        if self.since_reset == self.shape.flows() as u64 + 2 {
            self.revisit.extend([self.flow_mask, 0]);
        }
        let storm_start = self.storm_at == Some(self.since_reset);
        if storm_start {
            // A little longer than the wrap: the flows silent through it,
            // if not cleared by the scrubber, would read as 64-odd cycles
            // old afterwards.
            self.storm_left = (1u64 << self.shape.stamp_bits()) + 64;
        }
        if self.storm_left > 0 && !i.rst {
            self.storm_left -= 1;
            i.cfg_valid = storm_start || self.storm_left == 0;
            i.cfg_interval = if self.storm_left == 0 {
                self.shape.interval_max()
            } else {
                0
            };
            i.pkt_valid = true;
            i.pkt_ecn = ecn::CE;
            i.pkt_flow = self.hot[2 + self.rng.upto(1) as usize];
            if self.storm_left == 0 {
                // Then the first and the last flows, silent through it.
                let m = self.flow_mask;
                self.revisit = vec![m - 2, m - 1, 0, m];
            }
            return;
        }
        if let Some(f) = self.revisit.pop() {
            if !i.rst {
                i.pkt_valid = true;
                i.pkt_ecn = ecn::CE;
                i.pkt_flow = f;
                return;
            }
        }
        // Interval loads.
        if self.loads_left > 0 {
            self.loads_left -= 1;
            i.cfg_valid = true;
        } else {
            self.cfg_in = self.cfg_in.saturating_sub(1);
            if self.cfg_in == 0 {
                i.cfg_valid = true;
                self.cfg_in = 20 + self.rng.upto(4_000);
                if self.rng.chance(32) {
                    self.loads_left = self.rng.range(1, 3);
                }
            }
        }
        // Loads in reset cycles (to be ignored): at random, and in every
        // cycle of the first reset and of every third one after it, so that
        // a run with few resets (wide shapes reset about every 1e5 cycles)
        // still has some.
        if i.rst && (self.resets % 3 == 0 || self.rng.chance(96)) {
            i.cfg_valid = true;
        }
        if i.cfg_valid {
            // A run of consecutive loads steps N around the forwarding
            // distances (the packets 1 to 8 cycles ahead) and the
            // saturation at 9 of the forwarding compares, so that
            // back-to-back packets of one flow see different intervals.
            i.cfg_interval = if self.loads_left > 0 || self.in_run {
                // Half the time N is put on the edge of a watched flow's CNP
                // age in the next cycle (d or d + 1), so that a packet aimed
                // there sees N cross that forwarding distance from the
                // packet before it.
                let next_age = self
                    .watched
                    .iter()
                    .filter_map(|&f| g.since_cnp(f))
                    .map(|d| d + 1)
                    .find(|d| (1..=8).contains(d));
                match next_age {
                    Some(d) if self.rng.chance(128) => (d + self.rng.upto(1) as u64) as u32,
                    _ => self.rng.range(1, 11),
                }
            } else {
                random_interval(&mut self.rng, &self.shape)
            };
        }
        self.in_run = self.loads_left > 0;
        // The packet load changes about once in 8,192 cycles.
        if self.rng.upto(8191) == 0 {
            self.load_64 = self.rng.pick(&[8, 32, 48, 60, 64]);
        }
        // Packets (always one in the cycle after a reset, refused).
        let after_reset = std::mem::replace(&mut self.after_reset, i.rst);
        if self.rng.upto(63) >= self.load_64 && !after_reset {
            return;
        }
        i.pkt_valid = true;
        i.pkt_ecn = if self.rng.chance(128) {
            ecn::CE
        } else {
            self.rng.upto(3) as u8
        };
        let n = g.interval() as u64;
        // Aim: a watched flow at N, N - 1 or 1..8 cycles after its CNP.
        let mut aimed = None;
        for &f in &self.watched {
            if let Some(d) = g.since_cnp(f) {
                if d == n || d + 1 == n || (1..=8).contains(&d) {
                    aimed = Some(f);
                    break;
                }
            }
        }
        // Aim: a flow whose CNP has just gone stale (2^interval_bits or
        // more cycles old) and which the RTL's scrubber reads within eight
        // cycles of this packet, so that its clear lands while this packet
        // is in flight (read 1 to 8 cycles before) or this packet's CNP
        // lands while the scrubber has it in flight (read 0 to 8 after).
        if aimed.is_none() && self.rng.chance(64) {
            let f = self.shape.flows() as u64;
            let ptr = (self.since_reset + f - 1) % f;
            let stale = 1u64 << self.shape.interval_bits;
            for k in 0..17u64 {
                let y = ((ptr + f + k - 8) % f) as u32;
                if g.since_cnp(y)
                    .is_some_and(|d| d >= stale && d < stale + f + 8)
                {
                    aimed = Some(y);
                    self.watched[self.rng.upto(WATCHED as u32 - 1) as usize] = y;
                    break;
                }
            }
        }
        let choice = self.rng.upto(15);
        i.pkt_flow = match (aimed, choice) {
            (Some(f), 0..=9) => {
                i.pkt_ecn = ecn::CE;
                f
            }
            (_, 0..=6) => self.hot[self.rng.upto(3) as usize],
            (_, 7..=10) => {
                let k = self.rng.upto(WATCHED as u32 - 1) as usize;
                if self.rng.chance(4) {
                    self.watched[k] = self.random_flow();
                }
                self.watched[k]
            }
            (_, 12) if self.rng.chance(128) => {
                // A flow the scrubber reads within eight cycles of this
                // one: its clear (of a stale flow) lands while this
                // packet is in flight, or this packet's CNP while the
                // scrubber has the flow in flight.
                let f = self.shape.flows() as u64;
                let ptr = (self.since_reset + f - 1) % f;
                let k = self.rng.upto(16) as u64;
                i.pkt_ecn = ecn::CE;
                let y = ((ptr + f + k - 8) % f) as u32;
                // Watched, so that the next packets of the flow come at
                // the interval's edges and show a wrong valid bit.
                self.watched[self.rng.upto(WATCHED as u32 - 1) as usize] = y;
                y
            }
            (_, 11) => {
                // A flow whose CNP is past the wrap, if there is one.
                let wrap = 1u64 << self.shape.stamp_bits();
                match self.old.first() {
                    Some(&(at, f)) if self.cycle - at > wrap => {
                        self.old.remove(0);
                        i.pkt_ecn = ecn::CE;
                        f
                    }
                    _ => self.random_flow(),
                }
            }
            // Random flows, from a quarter of the table one time in two
            // (so that some flows are left alone long enough to go stale).
            _ => {
                let f = self.random_flow();
                if self.rng.chance(128) {
                    f & (self.flow_mask >> 2)
                } else {
                    f
                }
            }
        };
        if i.pkt_ecn == ecn::CE && self.old.len() < 64 && self.rng.chance(64) && g.ready() {
            self.old.push((self.cycle, i.pkt_flow));
        }
    }
}

// ---- the params file ---------------------------------------------------------

/// NP's table: `[np]` with `flow_bits`, `interval_bits` and `[np.reset]`.
#[derive(Debug, Default, Deserialize)]
struct NpFile {
    np: Option<NpTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NpTable {
    flow_bits: Option<u32>,
    interval_bits: Option<u32>,
    reset: Option<NpReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NpReset {
    interval: Option<u32>,
}

/// Parses and validates NP's table of params text; `path` names it.
pub fn parse_config(text: &str, path: &str) -> Result<NpConfig, ParamsError> {
    let file: NpFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.np.unwrap_or_default();
    let defaults = NpShape::default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = NpShape {
        flow_bits: t.flow_bits.unwrap_or(defaults.flow_bits),
        interval_bits: t.interval_bits.unwrap_or(defaults.interval_bits),
    };
    shape.validate().map_err(perr)?;
    let base = NpParams::reset_for(&shape);
    let r = t.reset.unwrap_or_default();
    let np = NpConfig {
        shape,
        reset: NpParams {
            interval: r.interval.unwrap_or(base.interval),
        },
    };
    np.validate().map_err(perr)?;
    Ok(np)
}
