//! CFR_CAM in the generic machinery: ports, value encoding, random stimulus
//! and the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the keys the golden model holds and
//! looks up, besides random keys, a key in the CAM, the newest one (written
//! in the last cycle), the oldest one in the cycle a sample overwrites it,
//! the key being sampled in the same cycle, and near misses: a key in the
//! CAM with one random bit flipped (so every chunk compare of the RTL, and
//! every bit of it, is seen to matter), and the keys the CAM held before
//! the last reset and of the packets of reset cycles (which must miss
//! after it: looked up mostly in the cycles right after the reset, packets
//! held off then one time in two), and keys whose count of entries is at
//! the threshold `T` or one off it. Packets come from a few hot flows
//! (each a large share, so they hold several entries each; now and then
//! one of them sends every packet for a while, filling the CAM; in half of
//! those floods `T = D` is loaded once the CAM holds only that key)
//! and from random ones; keys have their top bit set one time in two. The period is loaded now and then (0, 1,
//! 2, small, the largest, any), with a threshold (1 most often, 0, small,
//! `D`, `D + 1`, the largest, 256 plus a small count, any), in runs of
//! consecutive loads, with packets
//! in the same cycle, and 0 or 1 just before a reset half of the time (the
//! reset must restore the flags kept beside the period); one large period
//! in eight is kept, with a packet every cycle and no reset, until two
//! samples are taken at it (so that the count runs through its top bits).
//! The packet after a load of period 0 (not to be sampled) carries a key
//! held by `T - 1` entries, looked up for the next LATENCY + 4 cycles: one
//! sample too many would make it hit.
//! Resets come after 5 to 40, a few hundred or a few thousand cycles, or
//! (half of them, once the CAM has had `20 D` cycles to fill) one cycle
//! long, 0 to LATENCY - 1 cycles after a lookup that hits, each distance
//! in turn, so that a reset finds hit answers at every stage of the
//! pipeline; the others held one to three cycles, with packets, lookups and
//! loads in the reset cycles.
//!
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::cfr_cam::{
    CfrCam, CfrCamConfig, CfrCamIn, CfrCamOut, CfrCamParams, CfrCamShape, LATENCY, PERIOD_BITS,
    SUPPORTED_DEPTHS, SUPPORTED_KEY_BITS, THRESH_BITS,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct CfrCamBlock;

impl Block for CfrCamBlock {
    const NAME: &'static str = "cfr_cam";
    type Config = CfrCamConfig;
    type In = CfrCamIn;
    type Out = CfrCamOut;
    type Golden = CfrCam;
    type Stimulus = CfrCamStimulus;

    fn ports(c: &CfrCamConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::cfr_cam::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &CfrCamIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.pkt_valid as u128;
        v[2] = i.pkt_key;
        v[3] = i.look_valid as u128;
        v[4] = i.look_key;
        v[5] = i.cfg_valid as u128;
        v[6] = i.cfg_period as u128;
        v[7] = i.cfg_thresh as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> CfrCamIn {
        // Values were checked against the port widths by the caller.
        CfrCamIn {
            rst: v[0] != 0,
            pkt_valid: v[1] != 0,
            pkt_key: v[2],
            look_valid: v[3] != 0,
            look_key: v[4],
            cfg_valid: v[5] != 0,
            cfg_period: v[6] as u32,
            cfg_thresh: v[7] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &CfrCamOut, v: &mut [u128]) {
        v[0] = o.hit_valid as u128;
        v[1] = o.hit as u128;
    }

    fn golden(c: &CfrCamConfig) -> CfrCam {
        CfrCam::new(*c).expect("CFR_CAM configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut CfrCam, i: &CfrCamIn) -> CfrCamOut {
        g.step(i)
    }

    fn verilog(c: &CfrCamConfig) -> String {
        ccrtl_hdl::cfr_cam::verilog(c).expect("CFR_CAM configuration must be validated before use")
    }

    fn hdl_sim(c: &CfrCamConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<CfrCamIn, CfrCamOut>> {
        ccrtl_hdl::cfr_cam::sim(c).expect("CFR_CAM configuration must be validated before use")
    }

    fn default_config() -> CfrCamConfig {
        CfrCamConfig::default()
    }

    /// 104-bit keys (rust-hdl simulates them bit by bit), 8 entries, one
    /// packet in 3 sampled.
    const SHORT_PARAMS: &'static str = "[cfr_cam]\ndepth = 8\n[cfr_cam.reset]\nperiod = 3\n";

    fn parse_config(text: &str, path: &str) -> Result<CfrCamConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<CfrCamConfig> {
        let mut v = vec![];
        for &key_bits in SUPPORTED_KEY_BITS {
            for &depth in SUPPORTED_DEPTHS {
                v.push(CfrCamConfig {
                    shape: CfrCamShape { key_bits, depth },
                    reset: CfrCamParams::default(),
                });
            }
        }
        v
    }

    fn random_reset(c: &CfrCamConfig, r: &mut Rng) -> CfrCamConfig {
        CfrCamConfig {
            shape: c.shape,
            reset: CfrCamParams {
                period: random_period(r),
                thresh: random_thresh(r, c.shape.depth),
            },
        }
    }

    fn describe(c: &CfrCamConfig) -> String {
        format!(
            "key_bits={} depth={} reset: period={} thresh={}",
            c.shape.key_bits, c.shape.depth, c.reset.period, c.reset.thresh
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &CfrCam, prev: &CfrCamIn, i: &CfrCamIn, cov: &mut Coverage) {
        if i.rst {
            cov.hit(if prev.rst { RESET_HELD } else { RESET_MID_RUN });
            if g.hit_in_flight() {
                cov.hit(RESET_WITH_HIT_IN_FLIGHT);
            }
            if i.pkt_valid || i.look_valid || i.cfg_valid {
                cov.hit(TRAFFIC_IN_RESET);
            }
            return;
        }
        let sampled = i.pkt_valid && g.period() != 0 && g.skip() == 0;
        let mask = g.config().shape.key_mask();
        if i.pkt_valid {
            match g.period() {
                0 => cov.hit(PERIOD_ZERO),
                1 => cov.hit(PERIOD_ONE),
                p if p == (1 << PERIOD_BITS) - 1 => cov.hit(PERIOD_MAX),
                _ => {}
            }
            if sampled && g.oldest().is_some() {
                cov.hit(OVERWRITE);
            }
            if sampled && g.period() > 1 << (PERIOD_BITS - 1) {
                cov.hit(LONG_COUNT);
            }
        }
        if i.cfg_valid {
            if i.pkt_valid {
                cov.hit(LOAD_WITH_PACKET);
            }
            if i.look_valid && g.thresh() != i.cfg_thresh & ((1 << THRESH_BITS) - 1) {
                cov.hit(LOOKUP_WITH_THRESH_LOAD);
            }
            if prev.cfg_valid && !prev.rst {
                cov.hit(LOADS_BACK_TO_BACK);
            }
        }
        if !i.look_valid {
            return;
        }
        if prev.rst {
            cov.hit(LOOKUP_AFTER_RESET);
        }
        let key = i.look_key & mask;
        let (c, t) = (g.count(key), g.thresh());
        let top = 1 << (THRESH_BITS - 1);
        if t >= top && t & (top - 1) <= c && c < t {
            cov.hit(THRESH_TOP_BIT);
        }
        match t {
            0 => cov.hit(THRESH_ZERO),
            t if t > g.config().shape.depth => cov.hit(THRESH_ABOVE_DEPTH),
            t if t >= 2 && c == t => cov.hit(COUNT_AT_THRESH),
            t if t >= 2 && c + 1 == t && c > 0 => cov.hit(COUNT_BELOW_THRESH),
            _ => {}
        }
        if c == g.config().shape.depth && t == c {
            cov.hit(COUNT_FULL);
        }
        if g.contains(key) {
            cov.hit(HIT);
            if g.keys().last() == Some(&key) {
                cov.hit(HIT_NEWEST);
            }
        } else {
            cov.hit(MISS);
            if g.keys().any(|&k| (k ^ key).count_ones() == 1) {
                cov.hit(NEAR_MISS);
            }
        }
        if sampled && i.pkt_key & mask == key && g.keys().all(|&k| k != key) {
            cov.hit(SAME_CYCLE_WRITE);
        }
        if sampled && g.oldest() == Some(key) && g.keys().filter(|&&k| k == key).count() == 1 {
            cov.hit(SAME_CYCLE_OVERWRITE);
        }
    }
}

const COVER: &[&str] = &[
    "lookup that hits",
    "lookup that misses",
    "lookup of the key sampled in the last cycle (hit)",
    "lookup missing a key in the CAM by one bit",
    "lookup of a key sampled in the same cycle, not yet in the CAM (miss)",
    "lookup of the only copy of the key overwritten in the same cycle (hit)",
    "lookup in the cycle after a reset",
    "sample overwriting the oldest entry (CAM full)",
    "packet with period 0 (not sampled)",
    "packet with period 1 (every packet sampled)",
    "packet with period at its largest value",
    "sample after a count of 2^15 packets or more",
    "period load with a packet in the same cycle",
    "period loads in consecutive cycles",
    "reset mid-run",
    "reset held for several cycles",
    "packet, lookup or load in a reset cycle",
    "lookup with T = 0 (hits)",
    "lookup with T above the depth (misses)",
    "lookup of a key held by exactly T >= 2 entries (hit)",
    "lookup of a key held by T - 1 >= 1 entries (miss)",
    "lookup of a key held by every entry, T = D (hit)",
    "lookup in the cycle of a load changing T (old T)",
    "lookup with T >= 256 whose low bits the count reaches (a miss; T cut to 8 bits would hit)",
    "reset with a hit answer in flight",
];
const HIT: usize = 0;
const MISS: usize = 1;
const HIT_NEWEST: usize = 2;
const NEAR_MISS: usize = 3;
const SAME_CYCLE_WRITE: usize = 4;
const SAME_CYCLE_OVERWRITE: usize = 5;
const LOOKUP_AFTER_RESET: usize = 6;
const OVERWRITE: usize = 7;
const PERIOD_ZERO: usize = 8;
const PERIOD_ONE: usize = 9;
const PERIOD_MAX: usize = 10;
const LONG_COUNT: usize = 11;
const LOAD_WITH_PACKET: usize = 12;
const LOADS_BACK_TO_BACK: usize = 13;
const RESET_MID_RUN: usize = 14;
const RESET_HELD: usize = 15;
const TRAFFIC_IN_RESET: usize = 16;
const THRESH_ZERO: usize = 17;
const THRESH_ABOVE_DEPTH: usize = 18;
const COUNT_AT_THRESH: usize = 19;
const COUNT_BELOW_THRESH: usize = 20;
const COUNT_FULL: usize = 21;
const LOOKUP_WITH_THRESH_LOAD: usize = 22;
const THRESH_TOP_BIT: usize = 23;
const RESET_WITH_HIT_IN_FLIGHT: usize = 24;

/// A random threshold: 1 (the seed's rule) most often, then small counts
/// (what hot flows hold), 0, `depth`, `depth + 1`, the largest, the top
/// bit over a small count (a register or delay line a bit too narrow turns
/// that miss into a hit; drawn from any value it came once in 8,000
/// loads), any.
pub fn random_thresh(r: &mut Rng, depth: u32) -> u32 {
    let max = (1 << THRESH_BITS) - 1;
    match r.upto(17) {
        0 => 0,
        1..=5 => 1,
        6..=9 => r.range(2, 4),
        10..=11 => r.range(5, 12),
        12..=13 => depth,
        14 => depth + 1,
        15 => max - r.upto(2),
        16 => (1 << (THRESH_BITS - 1)) + r.upto(4),
        _ => r.upto(max),
    }
}

/// A random period, extreme values often; small ones most often, so that
/// the CAM churns.
pub fn random_period(r: &mut Rng) -> u32 {
    let max = (1 << PERIOD_BITS) - 1;
    match r.upto(15) {
        0 => 0,
        1..=4 => 1,
        5..=7 => 2,
        8..=11 => r.range(3, 8),
        12 => r.range(9, 100),
        13 => max,
        14 => max - r.upto(3),
        _ => r.upto(max),
    }
}

/// Random valid CFR_CAM stimulus (see the module comment).
pub struct CfrCamStimulus {
    rng: Rng,
    key_bits: u32,
    /// Flows that send most packets.
    hot: [u128; 6],
    /// Cycles to the next reset; reset cycles still to come.
    reset_in: u32,
    reset_left: u32,
    /// The next reset comes 1 to LATENCY cycles after the next lookup that
    /// hits, once the CAM has had `20 D` cycles to fill and not while one
    /// key floods it (a quarter of the resets): a reset must clear a hit
    /// answer at any stage of the pipeline, which resets at random times
    /// meet rarely. The distances take every value in turn
    /// (`hit_resets`), not at random: each stage of the pipeline is met.
    reset_on_hit: bool,
    hit_resets: u32,
    reset_on_hit_now: bool,
    /// Cycles to the next load; loads still to come in a run.
    cfg_in: u32,
    loads_left: u32,
    /// Share of cycles with a packet and with a lookup, in 256ths.
    pkt_256: u32,
    look_256: u32,
    /// Cycles to the next change of the shares.
    mood_in: u32,
    /// Every packet of the mood is of `hot[0]` (the CAM fills with one key).
    flood: bool,
    /// Once a flood has filled the CAM with `hot[0]`, load `T = D` (half
    /// of the floods): a run of a million cycles met a full CAM at
    /// `T = D` by chance too rarely at 256 entries (2 runs in 12 missed).
    full_load: bool,
    /// Keys the CAM held at the last reset (forgotten by it): looked up
    /// after it, they must miss.
    ghosts: Vec<u128>,
    /// Cycles since the last reset cycle; whether packets are held off
    /// after it (so that the forgotten entries stay unwritten a while).
    since_reset: u32,
    quiet_after_reset: bool,
    /// The key of the packet of the last reset cycle, if any.
    reset_pkt: Option<u128>,
    /// This cycle follows a load of period 0: its packet must not be
    /// sampled. It carries a key held by T - 1 entries (one more sample
    /// would make it hit), looked up for the next cycles (`aim_key`).
    after_zero_load: bool,
    aim_key: Option<(u128, u32)>,
    /// Loads and resets are held off until the model has taken this many
    /// samples: a large period is kept for two samples now and then, so
    /// that the count reaches its top bits.
    hold_until: u64,
}

impl CfrCamStimulus {
    /// A large period is being kept until two samples are taken at it
    /// (loads and resets held off): a composition that drives the CAM's
    /// reset from its own stimulus holds that off too (switch_port).
    pub fn holding(&self, g: &CfrCam) -> bool {
        g.samples() < self.hold_until && g.period() != 0
    }

    /// A random key of the port's width, its top bit set one time in two.
    fn random_key(&mut self) -> u128 {
        let k = ((self.rng.next_u64() as u128) << 64) | self.rng.next_u64() as u128;
        let top = 1u128 << (self.key_bits - 1);
        let k = k & ((top << 1) - 1);
        if self.rng.chance(128) {
            k | top
        } else {
            k & !top
        }
    }
}

impl Stimulus<CfrCamBlock> for CfrCamStimulus {
    fn new(config: &CfrCamConfig, seed: u64) -> CfrCamStimulus {
        let mut s = CfrCamStimulus {
            rng: Rng::new(seed),
            key_bits: config.shape.key_bits,
            hot: [0; 6],
            // The run starts with a reset held one to three cycles.
            reset_in: 0,
            reset_left: 0,
            reset_on_hit: false,
            hit_resets: 0,
            reset_on_hit_now: false,
            cfg_in: 30,
            loads_left: 0,
            pkt_256: 200,
            look_256: 220,
            mood_in: 500,
            flood: false,
            full_load: false,
            ghosts: Vec::new(),
            since_reset: 0,
            quiet_after_reset: false,
            reset_pkt: None,
            after_zero_load: false,
            aim_key: None,
            hold_until: 0,
        };
        for k in 0..6 {
            s.hot[k] = s.random_key();
        }
        s
    }

    fn next_into(&mut self, g: &CfrCam, i: &mut CfrCamIn) {
        let depth = g.config().shape.depth;
        let holding = self.holding(g);
        // Resets.
        if holding {
            // (Held off.)
        } else if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
        } else if self.reset_in == 0 {
            i.rst = true;
            self.ghosts = g.keys().copied().collect();
            self.quiet_after_reset = self.rng.chance(128);
            // A reset after a hit is one cycle long (a held one would
            // clear the stage after too).
            self.reset_left = if self.reset_on_hit_now {
                0
            } else {
                self.rng.upto(2)
            };
            self.reset_on_hit_now = false;
            self.reset_on_hit = self.rng.chance(2);
            self.reset_in = match self.rng.upto(3) {
                0 => self.rng.range(5, 40),
                1 => self.rng.range(200, 1_500) + 20 * depth,
                _ => self.rng.range(2_000, 12_000) + 20 * depth,
            };
        } else {
            self.reset_in -= 1;
        }
        // Shares of busy cycles change now and then.
        self.mood_in = self.mood_in.saturating_sub(1);
        if self.mood_in == 0 {
            self.mood_in = self.rng.range(100, 3_000);
            self.pkt_256 = self.rng.pick(&[256, 250, 200, 128, 30]);
            self.look_256 = self.rng.pick(&[256, 240, 160, 60]);
            self.flood = self.rng.chance(24);
            self.full_load = self.flood && self.rng.chance(128);
            if self.rng.chance(32) {
                let k = self.rng.upto(5) as usize;
                self.hot[k] = self.random_key();
            }
        }
        self.since_reset = if i.rst {
            0
        } else {
            self.since_reset.saturating_add(1)
        };
        let just_reset = self.since_reset <= 12;
        // Packets: hot flows most often.
        i.pkt_valid = (self.rng.chance(self.pkt_256) || self.pkt_256 == 256)
            && !(just_reset && self.quiet_after_reset && self.since_reset < 8);
        let pkt = if self.flood {
            self.hot[0]
        } else if self.rng.chance(180) {
            self.hot[self.rng.upto(5) as usize]
        } else {
            self.random_key()
        };
        let mut pkt = pkt;
        if std::mem::take(&mut self.after_zero_load) && !i.rst {
            let t = g.thresh();
            let n = g.len();
            if let Some(k) = (0..6)
                .filter(|_| n > 0)
                .map(|_| *g.keys().nth(self.rng.upto(n as u32 - 1) as usize).unwrap())
                .find(|&k| g.count(k) + 1 == t)
            {
                pkt = k;
                i.pkt_valid = true;
                self.aim_key = Some((k, LATENCY as u32 + 4));
            }
        }
        i.pkt_key = pkt;
        // Lookups, aimed.
        i.look_valid = self.rng.chance(self.look_256) || self.look_256 == 256;
        let n = g.len();
        let sampled = i.pkt_valid && g.period() != 0 && g.skip() == 0;
        let aim = if just_reset && !self.ghosts.is_empty() && self.rng.chance(192) {
            10
        } else {
            self.rng.upto(15)
        };
        // Right after a reset, the key of the packet of its last cycle (a
        // write it must not leave in flight).
        let look_reset_pkt = self.since_reset <= 3 && self.rng.chance(128);
        let look = match aim {
            // A key held by T or T - 1 entries, if one of a few tried is.
            3 if n > 0 => {
                let t = g.thresh();
                let mut best = *g.keys().nth(self.rng.upto(n as u32 - 1) as usize).unwrap();
                for _ in 0..4 {
                    let k = *g.keys().nth(self.rng.upto(n as u32 - 1) as usize).unwrap();
                    if g.count(k).abs_diff(t) < g.count(best).abs_diff(t) {
                        best = k;
                    }
                }
                best
            }
            // A key in the CAM.
            0..=3 if n > 0 => *g.keys().nth(self.rng.upto(n as u32 - 1) as usize).unwrap(),
            // The newest.
            4 if n > 0 => *g.keys().last().unwrap(),
            // The oldest, overwritten now if a sample comes.
            5 if n > 0 => *g.keys().next().unwrap(),
            // The key sampled in this cycle.
            6 if sampled => pkt,
            // A near miss: one bit flipped.
            7..=9 if n > 0 => {
                let k = *g.keys().nth(self.rng.upto(n as u32 - 1) as usize).unwrap();
                k ^ (1u128 << self.rng.upto(self.key_bits - 1))
            }
            _ if look_reset_pkt && self.reset_pkt.is_some() => self.reset_pkt.unwrap(),
            10 if !self.ghosts.is_empty() => {
                self.ghosts[self.rng.upto(self.ghosts.len() as u32 - 1) as usize]
            }
            11 => self.hot[self.rng.upto(5) as usize],
            _ => self.random_key(),
        };
        i.look_key = look;
        // (Not across a reset: the lookups after a reset aim at ghosts.)
        if i.rst || just_reset {
            self.aim_key = None;
        }
        if let Some((k, left)) = self.aim_key {
            i.look_valid = true;
            i.look_key = k;
            self.aim_key = (left > 1).then_some((k, left - 1));
        }
        let look = i.look_key;
        if self.reset_on_hit
            && !self.flood
            && self.since_reset > 20 * depth
            && i.look_valid
            && !i.rst
            && !holding
            && g.hits(look)
        {
            self.reset_on_hit = false;
            self.reset_in = self.hit_resets % LATENCY as u32;
            self.hit_resets += 1;
            self.reset_on_hit_now = true;
        }
        // A packet of a reset cycle is ignored: its key is a ghost too.
        if i.rst {
            self.reset_pkt = i.pkt_valid.then_some(pkt);
            if i.pkt_valid && self.ghosts.len() < 512 {
                self.ghosts.push(pkt);
            }
        }
        // Period loads.
        if holding {
            // (Held off.)
        } else if self.loads_left > 0 {
            self.loads_left -= 1;
            i.cfg_valid = true;
        } else {
            self.cfg_in = self.cfg_in.saturating_sub(1);
            if self.cfg_in == 0 {
                i.cfg_valid = true;
                self.cfg_in = 20 + self.rng.upto(3_000);
                if self.rng.chance(32) {
                    self.loads_left = self.rng.range(1, 3);
                }
            }
        }
        if i.rst && self.rng.chance(64) {
            i.cfg_valid = true;
        }
        let load_full = self.full_load
            && !holding
            && !i.rst
            && g.thresh() != depth
            && g.count(self.hot[0] & g.config().shape.key_mask()) == depth;
        if load_full {
            self.full_load = false;
            i.cfg_valid = true;
        }
        // A period of 0 or 1 loaded just before a reset: the reset must
        // restore the flags kept beside the period, not only the period.
        let load_before_reset = !holding && self.reset_in == 1 && self.rng.chance(128);
        if load_before_reset {
            i.cfg_valid = true;
        }
        // A period of 0 or a large one holds the CAM still: left soon,
        // but one load of a large period in eight is kept for two samples.
        if !holding
            && (i.cfg_valid || ((g.period() == 0 || g.period() > 100) && self.rng.chance(2)))
        {
            i.cfg_valid = true;
            i.cfg_period = if load_before_reset {
                self.rng.upto(1)
            } else {
                random_period(&mut self.rng)
            };
            i.cfg_thresh = if load_full {
                depth
            } else {
                random_thresh(&mut self.rng, depth)
            };
            if i.cfg_period > 100 && !i.rst && self.rng.chance(32) {
                self.hold_until = g.samples() + 2;
            }
        }
        self.after_zero_load = i.cfg_valid && i.cfg_period == 0 && !i.rst;
    }
}

// ---- the params file ---------------------------------------------------------

/// CFR_CAM's table: `[cfr_cam]` with `key_bits`, `depth` and `[cfr_cam.reset]`.
#[derive(Debug, Default, Deserialize)]
struct CfrCamFile {
    cfr_cam: Option<CfrCamTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CfrCamTable {
    key_bits: Option<u32>,
    depth: Option<u32>,
    reset: Option<CfrCamReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CfrCamReset {
    period: Option<u32>,
    thresh: Option<u32>,
}

/// Parses and validates CFR_CAM's table of params text; `path` names it.
pub fn parse_config(text: &str, path: &str) -> Result<CfrCamConfig, ParamsError> {
    let file: CfrCamFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.cfr_cam.unwrap_or_default();
    let defaults = CfrCamConfig::default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = CfrCamShape {
        key_bits: t.key_bits.unwrap_or(defaults.shape.key_bits),
        depth: t.depth.unwrap_or(defaults.shape.depth),
    };
    shape.validate().map_err(perr)?;
    let r = t.reset.unwrap_or_default();
    let c = CfrCamConfig {
        shape,
        reset: CfrCamParams {
            period: r.period.unwrap_or(defaults.reset.period),
            thresh: r.thresh.unwrap_or(defaults.reset.thresh),
        },
    };
    c.validate().map_err(perr)?;
    Ok(c)
}
