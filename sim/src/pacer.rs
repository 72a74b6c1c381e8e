//! PACER in the generic machinery: ports, value encoding, random stimulus and
//! the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's buckets, so that
//! requests come
//! - 1 to 18 cycles after their flow's last touch (every forwarding distance
//!   of the RTL's read-modify-write, 1 to 16, and the first two read from
//!   the RAM), from hot flows and from requests echoed a chosen number of
//!   cycles later;
//! - for exactly the bytes the bucket holds, or one byte more (with a
//!   `byte_time` of 1 that is one token short), so that the grant's compare
//!   is met on its edge;
//! - for the flow the block refreshes within 20 cycles of the request
//!   (before and after), and in refresh cycles (refused);
//! - for the first and the last flow right after a clearing;
//! - for a flow that earned `2^31` tokens or more since its last touch with
//!   its bucket below its depth (the refill's saturation), and for a flow
//!   holding `2^30` tokens or more in a deep bucket, 3 to 16 cycles apart
//!   (the tokens' top bits through the forwarding records);
//! - for a flow with no rate update in the cycle of an `init_rate` write and
//!   the next.
//!
//! Rate updates come for the requested flow in the same cycle (not yet in
//! force), in the cycle before (forwarded) and two before (read from the
//! RAM), with their two high bits set now and then (the multiplier's top
//! rows). Every register is written at the values that make a bucket free
//! (`byte_time` 0), empty (`bucket` 0), one byte deep or as deep as it goes,
//! in runs of consecutive cycles and with data bits above the register's
//! width. The block is reset mid-traffic, during its clearing and held for
//! a few cycles, with traffic and writes in the reset cycles.
//!
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::pacer::{
    Pacer, PacerConfig, PacerIn, PacerOut, PacerParams, PacerShape, REGISTERS, SUPPORTED_FLOW_BITS,
    SUPPORTED_REFRESH_BITS,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct PacerBlock;

/// The distances (cycles since the flow's last touch) the coverage counts
/// one by one: the RTL forwards 1 to 16 and reads 17 on from its RAM.
const DISTANCES: u64 = 18;

impl Block for PacerBlock {
    const NAME: &'static str = "pacer";
    type Config = PacerConfig;
    type In = PacerIn;
    type Out = PacerOut;
    type Golden = Pacer;
    type Stimulus = PacerStimulus;

    fn ports(c: &PacerConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::pacer::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &PacerIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.req_valid as u128;
        v[2] = i.req_flow as u128;
        v[3] = i.req_bytes as u128;
        v[4] = i.rate_valid as u128;
        v[5] = i.rate_flow as u128;
        v[6] = i.rate_rc as u128;
        v[7] = i.cfg_valid as u128;
        v[8] = i.cfg_addr as u128;
        v[9] = i.cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> PacerIn {
        // Values were checked against the port widths by the caller.
        PacerIn {
            rst: v[0] != 0,
            req_valid: v[1] != 0,
            req_flow: v[2] as u32,
            req_bytes: v[3] as u32,
            rate_valid: v[4] != 0,
            rate_flow: v[5] as u32,
            rate_rc: v[6] as u32,
            cfg_valid: v[7] != 0,
            cfg_addr: v[8] as u32,
            cfg_data: v[9] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &PacerOut, v: &mut [u128]) {
        v[0] = o.req_ready as u128;
        v[1] = o.rate_ready as u128;
        v[2] = o.dec_valid as u128;
        v[3] = o.dec_flow as u128;
        v[4] = o.dec_grant as u128;
    }

    fn golden(c: &PacerConfig) -> Pacer {
        Pacer::new(*c).expect("PACER configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut Pacer, i: &PacerIn) -> PacerOut {
        g.step(i)
    }

    fn verilog(c: &PacerConfig) -> String {
        ccrtl_hdl::pacer::verilog(c).expect("PACER configuration must be validated before use")
    }

    fn hdl_sim(c: &PacerConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<PacerIn, PacerOut>> {
        ccrtl_hdl::pacer::sim(c).expect("PACER configuration must be validated before use")
    }

    fn default_config() -> PacerConfig {
        PacerConfig::default()
    }

    /// 256 flows (a 256-cycle clearing), a refresh every 64 cycles (every
    /// flow every 16,384), a 3,000-byte bucket at 150 MHz.
    const SHORT_PARAMS: &'static str =
        "[pacer]\nflow_bits = 8\nrefresh_bits = 6\n[pacer.reset]\nbucket = 3000\n";

    fn parse_config(text: &str, path: &str) -> Result<PacerConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<PacerConfig> {
        let mut v = vec![];
        for &flow_bits in SUPPORTED_FLOW_BITS {
            for &refresh_bits in SUPPORTED_REFRESH_BITS {
                let shape = PacerShape {
                    flow_bits,
                    refresh_bits,
                };
                if shape.validate().is_ok() {
                    v.push(PacerConfig {
                        shape,
                        reset: PacerParams::reset_for(&shape),
                    });
                }
            }
        }
        v
    }

    fn random_reset(c: &PacerConfig, r: &mut Rng) -> PacerConfig {
        PacerConfig {
            shape: c.shape,
            reset: PacerParams {
                bucket: random_value(r, 0),
                byte_time: random_value(r, 1),
                init_rate: random_value(r, 2),
            },
        }
    }

    fn describe(c: &PacerConfig) -> String {
        let regs: Vec<String> = REGISTERS
            .iter()
            .map(|reg| format!("{}={}", reg.name, c.reset.read(reg.addr).unwrap_or(0)))
            .collect();
        format!(
            "flow_bits={} refresh_bits={} reset: {}",
            c.shape.flow_bits,
            c.shape.refresh_bits,
            regs.join(" ")
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    /// `R x Δ` reaches `2^31` only where a flow can be left untouched for
    /// 4,096 cycles or more (`2^31 / (2^19 - 1)`): not where the refresh
    /// comes round sooner.
    fn coverage_applies(c: &PacerConfig) -> Vec<bool> {
        let period = 1u64 << (c.shape.flow_bits + c.shape.refresh_bits);
        (0..COVER.len())
            .map(|k| !(k == SATURATED && period < 4_200))
            .collect()
    }

    #[inline]
    fn cover(g: &Pacer, prev: &PacerIn, i: &PacerIn, cov: &mut Coverage) {
        if i.rst {
            if prev.rst {
                cov.hit(RESET_HELD);
            } else if g.busy_left() > 0 {
                cov.hit(RESET_WHILE_CLEARING);
            } else {
                cov.hit(RESET_MID_RUN);
            }
            if i.req_valid {
                cov.hit(REQ_IN_RESET);
            }
            if i.rate_valid {
                cov.hit(RATE_IN_RESET);
            }
            if i.cfg_valid {
                cov.hit(CFG_IN_RESET);
            }
            return;
        }
        if i.cfg_valid {
            if prev.cfg_valid && !prev.rst {
                cov.hit(CFG_BACK_TO_BACK);
            }
            if i.req_valid {
                cov.hit(CFG_WITH_REQ);
            }
        }
        if g.byte_time() == 0 && i.req_valid && g.ready() {
            cov.hit(FREE_PACKETS);
        }
        if g.bucket() == 0 && i.req_valid && g.ready() {
            cov.hit(EMPTY_BUCKETS);
        }
        let rate_ok = i.rate_valid && g.busy_left() == 0;
        if i.rate_valid && !rate_ok {
            cov.hit(RATE_REFUSED);
        }
        if !i.req_valid {
            return;
        }
        if !g.ready() {
            if g.busy_left() > 0 {
                cov.hit(REFUSED_WHILE_CLEARING);
            } else {
                cov.hit(REFUSED_IN_REFRESH);
            }
            return;
        }
        let mask = g.config().shape.flows() - 1;
        let flow = i.req_flow & mask;
        if rate_ok && i.rate_flow & mask == flow {
            cov.hit(RATE_SAME_CYCLE);
        }
        if prev.rate_valid && !prev.rst && prev.rate_flow & mask == flow {
            cov.hit(RATE_CYCLE_BEFORE);
        }
        if let Some((k, y)) = g.next_refresh() {
            if y == flow && k <= 20 {
                cov.hit(REFRESH_SOON);
            }
        }
        if g.last_refresh().is_some_and(|(k, y)| y == flow && k <= 20) {
            cov.hit(REFRESH_JUST_DONE);
        }
        if g.rate(flow) >= 1 << 17 {
            cov.hit(RATE_HIGH_BITS);
        }
        if !g.has_rate(flow) {
            cov.hit(INIT_RATE);
            if prev.cfg_valid && !prev.rst && prev.cfg_addr & 31 == 2 {
                cov.hit(INIT_WRITTEN);
            }
        }
        if (flow == 0 || flow == mask) && g.tokens(flow).is_none() {
            cov.hit(AFTER_CLEARING);
        }
        let bytes = i.req_bytes & 0xffff;
        if bytes == 0 {
            cov.hit(ZERO_BYTES);
        }
        if bytes > g.bucket() {
            cov.hit(MORE_THAN_BUCKET);
        }
        let cost = bytes as u64 * g.byte_time() as u64;
        let avail = g.avail(flow);
        match g.since_touch(flow) {
            None => cov.hit(NEVER_TOUCHED),
            Some(d) => {
                if (1..=DISTANCES).contains(&d) {
                    cov.hit(DIST_1 + d as usize - 1);
                }
                let earned = g.tokens(flow).unwrap_or(0) as u128 + g.rate(flow) as u128 * d as u128;
                if g.rate(flow) as u128 * d as u128 >= 1 << 31
                    && g.tokens(flow).is_some_and(|t| t < g.depth())
                {
                    cov.hit(SATURATED);
                }
                if earned > g.depth() as u128 {
                    cov.hit(CAPPED);
                    if d == 1 {
                        cov.hit(CAPPED_BACK_TO_BACK);
                    }
                }
                if (3..=16).contains(&d) && g.tokens(flow).is_some_and(|t| t >= 1 << 30) {
                    cov.hit(DEEP_FORWARD);
                }
                if d == 1 && avail < cost {
                    cov.hit(DEFERRED_BACK_TO_BACK);
                }
            }
        }
        if avail == cost && cost > 0 {
            cov.hit(EXACT_COST);
        }
        if avail + 1 == cost {
            cov.hit(ONE_SHORT);
        }
    }
}

const COVER: &[&str] = &[
    "request of a flow not touched since the reset",
    "request 1 cycle after its flow's last touch",
    "request 2 cycles after its flow's last touch",
    "request 3 cycles after its flow's last touch",
    "request 4 cycles after its flow's last touch",
    "request 5 cycles after its flow's last touch",
    "request 6 cycles after its flow's last touch",
    "request 7 cycles after its flow's last touch",
    "request 8 cycles after its flow's last touch",
    "request 9 cycles after its flow's last touch",
    "request 10 cycles after its flow's last touch",
    "request 11 cycles after its flow's last touch",
    "request 12 cycles after its flow's last touch",
    "request 13 cycles after its flow's last touch",
    "request 14 cycles after its flow's last touch",
    "request 15 cycles after its flow's last touch",
    "request 16 cycles after its flow's last touch",
    "request 17 cycles after its flow's last touch",
    "request 18 cycles after its flow's last touch",
    "request granted with exactly its cost in the bucket",
    "request deferred one token short",
    "bucket capped at its depth",
    "bucket capped at its depth, 1 cycle after the last touch",
    "request deferred 1 cycle after the last touch",
    "R x (cycles since the last touch) of 2^31 or more, the bucket not full before",
    "rate update of the flow in the cycle of its request (not yet in force)",
    "rate update of the flow in the cycle before its request",
    "request of a flow with a rate of 2^17 Mb/s or more",
    "request of a flow with no rate update since the reset (init_rate)",
    "request within 20 cycles before its flow's refresh",
    "request within 20 cycles after its flow's refresh",
    "request of 0 bytes",
    "request of more bytes than the bucket holds",
    "request with byte_time 0 (free packets)",
    "request with bucket 0",
    "request refused in a refresh cycle",
    "request refused while the table is cleared",
    "rate update refused while the table is cleared",
    "reset mid-traffic",
    "reset during the clearing",
    "reset held for several cycles",
    "request in a reset cycle",
    "rate update in a reset cycle",
    "register write in a reset cycle",
    "register writes in consecutive cycles",
    "register write with a request in the same cycle",
    "request 3 to 16 cycles after a touch that left 2^30 tokens or more",
    "request of a flow with no rate update in the cycle after an init_rate write",
    "request of the first or last flow after a clearing, before its refresh",
];
const NEVER_TOUCHED: usize = 0;
const DIST_1: usize = 1;
const EXACT_COST: usize = 19;
const ONE_SHORT: usize = 20;
const CAPPED: usize = 21;
const CAPPED_BACK_TO_BACK: usize = 22;
const DEFERRED_BACK_TO_BACK: usize = 23;
const SATURATED: usize = 24;
const RATE_SAME_CYCLE: usize = 25;
const RATE_CYCLE_BEFORE: usize = 26;
const RATE_HIGH_BITS: usize = 27;
const INIT_RATE: usize = 28;
const REFRESH_SOON: usize = 29;
const REFRESH_JUST_DONE: usize = 30;
const ZERO_BYTES: usize = 31;
const MORE_THAN_BUCKET: usize = 32;
const FREE_PACKETS: usize = 33;
const EMPTY_BUCKETS: usize = 34;
const REFUSED_IN_REFRESH: usize = 35;
const REFUSED_WHILE_CLEARING: usize = 36;
const RATE_REFUSED: usize = 37;
const RESET_MID_RUN: usize = 38;
const RESET_WHILE_CLEARING: usize = 39;
const RESET_HELD: usize = 40;
const REQ_IN_RESET: usize = 41;
const RATE_IN_RESET: usize = 42;
const CFG_IN_RESET: usize = 43;
const CFG_BACK_TO_BACK: usize = 44;
const CFG_WITH_REQ: usize = 45;
const DEEP_FORWARD: usize = 46;
const INIT_WRITTEN: usize = 47;
const AFTER_CLEARING: usize = 48;

/// A random value of register `addr`, extreme values often.
pub fn random_value(r: &mut Rng, addr: u32) -> u32 {
    match addr {
        // bucket: empty, a byte or a few, a jumbo frame or two, the deepest.
        0 => match r.upto(9) {
            0 => 0,
            1 => r.range(1, 4),
            2 | 3 => r.range(1_500, 20_000),
            4 => (1 << 17) - 1,
            5 => (1 << 17) - 1 - r.upto(100),
            _ => r.upto((1 << 17) - 1),
        },
        // byte_time: free, one token a byte (exact compares), small, the
        // clocks of real NICs, the largest.
        1 => match r.upto(9) {
            0 => 0,
            1 | 2 => 1,
            3 => r.range(2, 17),
            4 => r.pick(&[1_200, 2_000, 2_578, 2_500]),
            5 => (1 << 14) - 1,
            _ => r.upto((1 << 14) - 1),
        },
        // rates: stopped, slow, line rates, the two high bits set.
        _ => random_rate(r),
    }
}

/// A random rate, Mb/s (19 bits), extreme values often.
pub fn random_rate(r: &mut Rng) -> u32 {
    match r.upto(9) {
        0 => 0,
        1 => r.range(1, 100),
        2 => r.range(100, 10_000),
        3 => r.pick(&[10_000, 25_000, 40_000, 100_000, 200_000, 400_000]),
        4 => (1 << 19) - 1,
        5 => r.range(1 << 17, (1 << 19) - 1),
        _ => r.upto((1 << 19) - 1),
    }
}

/// How many flows the stimulus watches (requests echoed after a chosen
/// number of cycles).
const WATCHED: usize = 8;

/// Random valid PACER stimulus (see the module comment).
pub struct PacerStimulus {
    rng: Rng,
    shape: PacerShape,
    flow_mask: u32,
    /// A few flows traffic returns to all the time.
    hot: [u32; 4],
    watched: [u32; WATCHED],
    /// Requests to repeat: (the cycle to repeat at, the flow).
    echo: Vec<(u64, u32)>,
    cycle: u64,
    /// Cycles to the next mid-traffic reset.
    reset_in: u64,
    /// Reset cycles still to come in the current reset.
    reset_left: u32,
    /// Resets so far (their gaps cycle through kinds).
    resets: u64,
    /// Cycles to the next register write.
    cfg_in: u32,
    /// Writes still to come in a run of consecutive writes.
    writes_left: u32,
    /// Share of cycles with a request, and with a rate update, in 64ths.
    load_64: u32,
    rate_64: u32,
    /// The flow requested in the last cycle (its rate updated now, the
    /// cycle after, or two after).
    last_req: Option<u32>,
    /// A rate update of this flow is due next cycle.
    rate_next: Option<u32>,
    /// Flows left with less than a full bucket, to come back to when they
    /// have earned `2^31` tokens or more (`R x` the gap saturates), before
    /// the refresh does.
    old: Vec<u32>,
    /// Cycles since the last reset cycle (0 in it).
    since_reset: u64,
    /// Flows to request first after a clearing: the first and the last,
    /// the ends of its sweep, before the refresh comes to them.
    first: Vec<u32>,
    /// The next cycle writes `byte_time` near its largest: with a deep
    /// `bucket` just written, a depth of 2^30 tokens or more.
    deep_next: bool,
    /// Rate updates to send, one a cycle, before any other: the hot flows
    /// at the largest rate after a deep bucket is set up, so that they
    /// fill to 2^30 tokens and more in a few thousand cycles.
    rate_queue: Vec<u32>,
    /// A flow filling to 2^30 tokens or more in a deep bucket, the touches
    /// of 0 bytes still to make of it (3 to 16 cycles apart, so each is
    /// forwarded the last one's tokens), then one of 65,535 bytes, and the
    /// cycle of the next.
    deep: Option<(u32, u32)>,
    deep_at: u64,
    /// Flows whose next request's bytes are on the edge of their bucket
    /// for sure (exactly what it holds, or one byte more).
    aim: Vec<u32>,
}

impl PacerStimulus {
    fn random_flow(&mut self) -> u32 {
        self.rng.next_u32() & self.flow_mask
    }

    /// Cycles from the end of a reset to the next one: soon (in the
    /// clearing that follows, or just after), or one to three clearing
    /// periods and some traffic, or past a few refresh rounds of every flow
    /// where those are short.
    fn reset_gap(&mut self) -> u64 {
        let f = self.shape.flows() as u64;
        let round = f << self.shape.refresh_bits;
        self.resets += 1;
        match self.resets % 4 {
            1 if self.rng.chance(192) => f + 4 + self.rng.upto(16) as u64,
            1 => self.rng.upto(f as u32) as u64 + 1,
            3 if round < 200_000 => f + 3 * round + self.rng.upto(5_000) as u64,
            _ => f + 2_000 + self.rng.next_u64() % (2 * f + 30_000),
        }
    }

    /// Bytes for a request of `flow`: on the edge of what its bucket holds
    /// (exactly, or one byte more) one time in three, else at random.
    fn bytes(&mut self, g: &Pacer, flow: u32) -> u32 {
        let bt = g.byte_time() as u64;
        let aimed = match self.aim.iter().position(|&f| f == flow) {
            Some(k) => {
                self.aim.swap_remove(k);
                true
            }
            None => false,
        };
        if bt > 0 && (aimed || self.rng.chance(85)) {
            let avail = g.avail(flow);
            let exact = avail / bt;
            let b = if self.rng.chance(128) {
                exact
            } else {
                exact + 1
            };
            if b <= 0xffff {
                return b as u32;
            }
        }
        match self.rng.upto(15) {
            0 => 0,
            1 => 0xffff,
            2..=4 => self.rng.range(1, 64),
            5..=10 => self.rng.range(64, 1_501),
            11..=13 => self.rng.range(1_500, 9_001),
            _ => self.rng.upto(0xffff),
        }
    }
}

impl Stimulus<PacerBlock> for PacerStimulus {
    fn new(config: &PacerConfig, seed: u64) -> PacerStimulus {
        let mut rng = Rng::new(seed);
        let flow_mask = config.shape.flows() - 1;
        // The first and the last flow are hot: the clearing after a reset
        // and each refresh round start and end with them.
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = PacerStimulus {
            rng,
            shape: config.shape,
            flow_mask,
            hot,
            watched: [0; WATCHED],
            echo: Vec::new(),
            cycle: 0,
            reset_in: 0,
            reset_left: 0,
            resets: 0,
            cfg_in: 50,
            writes_left: 0,
            load_64: 48,
            rate_64: 8,
            last_req: None,
            rate_next: None,
            old: Vec::new(),
            since_reset: 0,
            first: Vec::new(),
            deep_next: false,
            rate_queue: Vec::new(),
            deep: None,
            deep_at: 0,
            aim: Vec::new(),
        };
        for k in 0..WATCHED {
            s.watched[k] = s.random_flow();
        }
        s.reset_left = 2 + s.rng.upto(2);
        let f = config.shape.flows() as u64;
        s.reset_in = f + 2_000 + s.rng.next_u64() % (2 * f + 30_000);
        s
    }

    #[inline]
    fn next_into(&mut self, g: &Pacer, i: &mut PacerIn) {
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
        self.since_reset += 1;
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
            self.since_reset = 0;
            if self.reset_left == 0 && self.reset_in == 0 {
                self.reset_in = self.reset_gap();
            }
        }
        // Loads change about once in 4,096 cycles.
        if self.rng.upto(4095) == 0 {
            self.load_64 = self.rng.pick(&[4, 16, 32, 48, 60, 64]);
            self.rate_64 = self.rng.pick(&[0, 2, 8, 16, 40]);
        }

        // Register writes.
        if self.writes_left > 0 {
            self.writes_left -= 1;
            i.cfg_valid = true;
        } else {
            self.cfg_in = self.cfg_in.saturating_sub(1);
            if self.cfg_in == 0 {
                i.cfg_valid = true;
                self.cfg_in = 20 + self.rng.upto(3_000);
                if self.rng.chance(32) {
                    self.writes_left = self.rng.range(1, 4);
                }
            }
        }
        if i.rst && self.rng.chance(64) {
            i.cfg_valid = true;
        }
        let deep = std::mem::take(&mut self.deep_next);
        if deep && !i.rst {
            i.cfg_valid = true;
            i.cfg_addr = 1;
            i.cfg_data = (1 << 14) - 1 - self.rng.upto(3);
            let f = self.random_flow();
            self.rate_queue = vec![f];
            self.deep = Some((f, 4));
        } else if i.cfg_valid {
            // byte_time 1 a third of the time, so that a bucket can hold
            // exactly a request's cost, and hold one token short of it.
            i.cfg_addr = match self.rng.upto(31) {
                0 => self.rng.range(3, 31),
                a => a % 3,
            };
            let data = if i.cfg_addr == 1 && self.rng.chance(85) {
                1
            } else {
                random_value(&mut self.rng, i.cfg_addr)
            };
            // Bits above the register's width, which it ignores.
            let width = REGISTERS
                .iter()
                .find(|r| r.addr == i.cfg_addr)
                .map_or(32, |r| r.bits);
            let high = if width < 32 && self.rng.chance(64) {
                self.rng.next_u32() << width
            } else {
                0
            };
            i.cfg_data = data | high;
            // A deep bucket, then (next cycle) the largest byte_time: the
            // tokens' top bits.
            if i.cfg_addr == 0 && data >= 70_000 {
                self.deep_next = true;
            }
            // A new init_rate: a flow with no rate update, asked about in
            // this cycle (the old rate: its bucket emptied to less than a
            // byte) and the next (the new one, three times in four one to two
            // bytes a cycle, with bytes on the edge of what it holds), so
            // that the bucket shows which rate it earned at.
            if i.cfg_addr == 2 && !i.rst && self.echo.len() < 16 {
                if let Some(f) = (0..8).map(|_| self.random_flow()).find(|&f| !g.has_rate(f)) {
                    self.echo.push((self.cycle, f));
                    self.echo.push((self.cycle + 1, f));
                    self.aim = vec![f, f];
                    let bt = g.byte_time();
                    if self.rng.chance(192) {
                        i.cfg_data = self.rng.range(bt, 2 * bt + 1) | high;
                    }
                }
            }
        }

        // Rate updates: of the flow requested in the last cycle (forwarded
        // to its next request), of the flow requested now (not yet in force
        // for it), or of any flow.
        if g.rate_ready() && !i.rst {
            if let Some(f) = self.rate_queue.pop() {
                i.rate_valid = true;
                i.rate_flow = f;
                i.rate_rc = (1 << 19) - 1;
            }
        }
        let mut rate_flow = if i.rate_valid {
            None
        } else {
            self.rate_next.take()
        };
        if rate_flow.is_none() && !i.rate_valid && self.rng.upto(63) < self.rate_64 {
            rate_flow = Some(match self.rng.upto(7) {
                0 | 1 => self.last_req.unwrap_or(0),
                2 | 3 => self.hot[self.rng.upto(3) as usize],
                4 => self.watched[self.rng.upto(WATCHED as u32 - 1) as usize],
                _ => self.random_flow(),
            });
        }
        if let Some(f) = rate_flow {
            i.rate_valid = true;
            i.rate_flow = f;
            i.rate_rc = random_rate(&mut self.rng);
        }

        // Requests (one in the cycle after a reset too, refused).
        let f_all = self.shape.flows() as u64;
        if self.since_reset == f_all + 1 {
            self.first = vec![self.flow_mask, 0];
        }
        let due = self.echo.iter().position(|&(at, _)| at == self.cycle);
        let mut bytes = None;
        let deep_now = self
            .deep
            .filter(|&(f, left)| self.cycle >= self.deep_at && (left < 4 || g.avail(f) >= 1 << 30));
        let flow = if let Some(f) = self.first.pop().filter(|_| !i.rst) {
            Some(f)
        } else if let Some((f, left)) = deep_now {
            bytes = Some(if left == 0 { 0xffff } else { 0 });
            self.deep = (left > 0).then_some((f, left - 1));
            self.deep_at = self.cycle + 3 + self.rng.upto(13) as u64;
            Some(f)
        } else if let Some(k) = due {
            Some(self.echo.swap_remove(k).1)
        } else if self.rng.upto(63) < self.load_64 {
            let refresh = g.next_refresh();
            // A flow whose earnings since its last touch reach 2^31 (its
            // bucket was not full then): the saturation of `R x` the gap.
            let saturated = self.old.iter().position(|&f| {
                g.since_touch(f)
                    .is_some_and(|d| d * g.rate(f) as u64 >= 1 << 31)
            });
            if let Some(k) = saturated.filter(|_| self.rng.chance(128)) {
                Some(self.old.swap_remove(k))
            } else {
                Some(match (self.rng.upto(15), refresh) {
                    // The flow refreshed soon, or just now.
                    (0, Some((k, y))) if k <= 20 => y,
                    (1, _) if g.last_refresh().is_some_and(|(k, _)| k <= 20) => {
                        g.last_refresh().unwrap().1
                    }
                    (2..=7, _) => self.hot[self.rng.upto(3) as usize],
                    (8..=11, _) => {
                        let k = self.rng.upto(WATCHED as u32 - 1) as usize;
                        if self.rng.chance(8) {
                            self.watched[k] = self.random_flow();
                        }
                        self.watched[k]
                    }
                    _ => self.random_flow(),
                })
            }
        } else {
            None
        };
        self.echo.retain(|&(at, _)| at > self.cycle);
        // Other requests leave the filling deep flow alone (one costing
        // 9,000 bytes of a deep bucket takes 2^27 tokens).
        let flow = match (flow, self.deep) {
            (Some(f), Some((d, _))) if f == d && deep_now.is_none() => Some(f ^ 1),
            _ => flow,
        };
        if let Some(f) = flow {
            i.req_valid = true;
            i.req_flow = f;
            i.req_bytes = match bytes {
                Some(b) => b,
                None => self.bytes(g, f),
            };
            // A flow left below its depth (now and then with a new rate), to
            // be asked about again once `R x` the gap saturates.
            if self.old.len() < 32
                && self.rng.chance(16)
                && g.avail(f) < g.depth() + g.byte_time() as u64
            {
                self.old.push(f);
                if !i.rate_valid && self.rng.chance(128) {
                    self.rate_next = Some(f);
                }
            }
            // Ask again 1 to 18 cycles later, now and then.
            if self.echo.len() < 16 && self.rng.chance(24) {
                let d = 1 + self.rng.upto(DISTANCES as u32 - 1) as u64;
                self.echo.push((self.cycle + d, f));
            }
            // A rate update of this flow now, or in the next cycle.
            if !i.rate_valid && self.rng.chance(6) {
                i.rate_valid = true;
                i.rate_flow = f;
                i.rate_rc = random_rate(&mut self.rng);
            } else if self.rng.chance(6) {
                self.rate_next = Some(f);
            }
        }
        self.last_req = flow;
    }
}

// ---- the params file ---------------------------------------------------------

/// PACER's table: `[pacer]` with `flow_bits`, `refresh_bits` and
/// `[pacer.reset]`.
#[derive(Debug, Default, Deserialize)]
struct PacerFile {
    pacer: Option<PacerTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PacerTable {
    flow_bits: Option<u32>,
    refresh_bits: Option<u32>,
    reset: Option<PacerReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PacerReset {
    bucket: Option<u32>,
    byte_time: Option<u32>,
    init_rate: Option<u32>,
}

/// Parses and validates PACER's table of params text; `path` names it.
pub fn parse_config(text: &str, path: &str) -> Result<PacerConfig, ParamsError> {
    let file: PacerFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.pacer.unwrap_or_default();
    let defaults = PacerShape::default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = PacerShape {
        flow_bits: t.flow_bits.unwrap_or(defaults.flow_bits),
        refresh_bits: t.refresh_bits.unwrap_or(defaults.refresh_bits),
    };
    shape.validate().map_err(perr)?;
    let base = PacerParams::reset_for(&shape);
    let r = t.reset.unwrap_or_default();
    let config = PacerConfig {
        shape,
        reset: PacerParams {
            bucket: r.bucket.unwrap_or(base.bucket),
            byte_time: r.byte_time.unwrap_or(base.byte_time),
            init_rate: r.init_rate.unwrap_or(base.init_rate),
        },
    };
    config.validate().map_err(perr)?;
    Ok(config)
}
