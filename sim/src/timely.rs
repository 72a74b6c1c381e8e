//! TIMELY in the generic machinery: ports, value encoding, random stimulus
//! and the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's registers, flow
//! states and the flows of the last events, and plays a transport per flow.
//! Each flow's RTTs come in regimes of a few to a few hundred events:
//! below `t_low`, above `t_high` (up to `2^24 - 1`), rising, falling, flat
//! with noise and exactly constant, with the thresholds themselves and
//! their neighbours (`t_low - 1`, `t_high + 1`) and RTTs of 0 now and then.
//! A global clock advances 0 to 300 units a cycle, with idle stretches and
//! jumps; a flow's timestamp is the clock, or its last event's time plus
//! `min_rtt`, `min_rtt - 1`, 0, or a time before it (the difference
//! wraps). Traffic comes from a hot set of four flows (the first and the
//! last among them), from the flow of one of the last twelve events (every
//! forwarding distance of the loops and every lag of the decrease's
//! operand, in bursts of one flow back to back), and from random flows.
//! Register writes come now and then, in runs too, to any address (11 to 15
//! are ignored) with extreme values often: `min_rtt` 0 or 1, `t_low >
//! t_high`, `beta` 0 or above 1, `ewma_shift` above 12, `hai_n` 0,
//! `min_rate > max_rate`, `max_rate` below a hot flow's rate, `init_rate`
//! out of bounds. Writes of `min_rate`, `max_rate` or `init_rate` are
//! followed by an event that uses them (a first event of a flow after
//! `init_rate`); a write of `ai` by an RTT below `t_low` (an increase) and
//! of `beta` by one above `t_high` or a rising one of a flow in the
//! gradient branch (a decrease either way); a write of
//! `hai_n` by an event that takes it (a falling RTT of a flow whose count
//! reaches `hai_thresh`); `ai` is now and then above `2^18` and `hai_n`
//! often 15 (`hai_n * ai` of 23 bits, and just above `2^22`, followed
//! by an HAI event); `min_rate` now and then at least `2^18` (under a
//! `max_rate` of `RATE_MAX`), `min_rtt` just above a power of two (the
//! reciprocal's ROM word 0); a write of `hai_thresh` by a falling RTT of a flow in the
//! gradient branch whose count of negative differences lies between the
//! old and the new threshold (the HAI decision must use the new one).
//! Resets: mid-traffic, during the clearing, held, with
//! events and writes in the reset cycles. Payloads whose valid is low are
//! random, not 0.

use ccrtl_golden::timely::{
    branch, Timely, TimelyConfig, TimelyIn, TimelyOut, TimelyParams, TimelyShape, LAG, NEG_MAX,
    SUPPORTED_FLOW_BITS, X_MAX,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Front, FrontPoints, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct TimelyBlock;

impl Block for TimelyBlock {
    const NAME: &'static str = "timely";
    type Config = TimelyConfig;
    type In = TimelyIn;
    type Out = TimelyOut;
    type Golden = Timely;
    type Stimulus = TimelyStimulus;

    fn ports(c: &TimelyConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::timely::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &TimelyIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.ev_valid as u128;
        v[2] = i.ev_flow as u128;
        v[3] = i.ev_rtt as u128;
        v[4] = i.ev_time as u128;
        v[5] = i.cfg_valid as u128;
        v[6] = i.cfg_addr as u128;
        v[7] = i.cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> TimelyIn {
        // Values were checked against the port widths by the caller.
        TimelyIn {
            rst: v[0] != 0,
            ev_valid: v[1] != 0,
            ev_flow: v[2] as u32,
            ev_rtt: v[3] as u32,
            ev_time: v[4] as u32,
            cfg_valid: v[5] != 0,
            cfg_addr: v[6] as u32,
            cfg_data: v[7] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &TimelyOut, v: &mut [u128]) {
        v[0] = o.ev_ready as u128;
        v[1] = o.cc_valid as u128;
        v[2] = o.cc_flow as u128;
        v[3] = o.cc_rate as u128;
        v[4] = o.cc_branch as u128;
        v[5] = o.cc_hai as u128;
        v[6] = (o.cc_grad as u32 & ((1 << 29) - 1)) as u128;
    }

    fn golden(c: &TimelyConfig) -> Timely {
        Timely::new(*c).expect("TIMELY configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut Timely, i: &TimelyIn) -> TimelyOut {
        g.step(i)
    }

    fn verilog(c: &TimelyConfig) -> String {
        ccrtl_hdl::timely::verilog(c).expect("TIMELY configuration must be validated before use")
    }

    fn hdl_sim(c: &TimelyConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<TimelyIn, TimelyOut>> {
        ccrtl_hdl::timely::sim(c).expect("TIMELY configuration must be validated before use")
    }

    fn default_config() -> TimelyConfig {
        TimelyConfig::default()
    }

    /// 16 flows (a 16-cycle clearing), a small RTT scale (`min_rtt` 2,000,
    /// `t_low` 5,000, `t_high` 100,000) and a fast EWMA (`k = 3`), rates
    /// 10 to 10,000: every branch and clamp within a few hundred cycles.
    const SHORT_PARAMS: &'static str = "[timely]\nflow_bits = 4\n[timely.reset]\n\
        min_rtt = 2000\nt_low = 5000\nt_high = 100000\newma_shift = 3\nhai_thresh = 3\n\
        init_rate = 5000\n";

    fn parse_config(text: &str, path: &str) -> Result<TimelyConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<TimelyConfig> {
        SUPPORTED_FLOW_BITS
            .iter()
            .map(|&flow_bits| TimelyConfig {
                shape: TimelyShape { flow_bits },
                reset: TimelyParams::default(),
            })
            .collect()
    }

    fn random_reset(c: &TimelyConfig, r: &mut Rng) -> TimelyConfig {
        let min_rtt = random_rtt_scale(r).max(1);
        let t_high = match r.upto(3) {
            0 => r.range(1, 0xff_ffff),
            _ => min_rtt.saturating_mul(r.range(2, 60)).min(0xff_ffff),
        };
        let t_low = match r.upto(4) {
            0 => 0,
            1 => t_high,
            _ => r.upto(t_high),
        };
        let max_rate = match r.upto(3) {
            0 => RATE_MAX,
            1 => r.range(1, 100),
            _ => r.range(1, RATE_MAX),
        };
        let min_rate = match r.upto(3) {
            0 => 0,
            1 => max_rate,
            _ => r.upto(max_rate),
        };
        TimelyConfig {
            shape: c.shape,
            reset: TimelyParams {
                min_rtt,
                t_low,
                t_high,
                ai: match r.upto(3) {
                    0 => 1,
                    1 => RATE_MAX,
                    _ => r.range(1, 1000),
                },
                beta: match r.upto(3) {
                    0 => 1 << 16,
                    1 => 1,
                    _ => r.range(1, 1 << 16),
                },
                ewma_shift: r.upto(12),
                hai_thresh: r.upto(15),
                hai_n: r.range(1, 15),
                min_rate,
                max_rate,
                init_rate: r.range(min_rate, max_rate),
            },
        }
    }

    fn describe(c: &TimelyConfig) -> String {
        let r = &c.reset;
        format!(
            "flow_bits={} reset: min_rtt={} t_low={} t_high={} ai={} beta={} ewma_shift={} \
             hai_thresh={} hai_n={} min_rate={} max_rate={} init_rate={}",
            c.shape.flow_bits,
            r.min_rtt,
            r.t_low,
            r.t_high,
            r.ai,
            r.beta,
            r.ewma_shift,
            r.hai_thresh,
            r.hai_n,
            r.min_rate,
            r.max_rate,
            r.init_rate
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &Timely, prev: &TimelyIn, i: &TimelyIn, cov: &mut Coverage) {
        cover(g, prev, i, cov)
    }
}

const RATE_MAX: u32 = (1 << 19) - 1;
const RTT_MAX: u32 = (1 << 24) - 1;

/// A random RTT scale (a `min_rtt`): tiny, typical, or large, powers of two
/// often (exact reciprocals).
fn random_rtt_scale(r: &mut Rng) -> u32 {
    match r.upto(6) {
        0 => r.range(1, 64),
        1 => 1 << r.upto(20),
        // The top bits of a 24-bit min_rtt.
        6 => r.range(1 << 22, RTT_MAX),
        2 => r.range(1_000, 30_000),
        3 => r.range(1, 200_000),
        _ => r.range(1, RTT_MAX >> 4),
    }
}

/// The corner-case points the cycle about to run hits.
fn cover(g: &Timely, prev: &TimelyIn, i: &TimelyIn, cov: &mut Coverage) {
    let front = |x: &TimelyIn| Front {
        rst: x.rst,
        event: x.ev_valid,
        cfg: x.cfg_valid,
        cfg_unused: x.cfg_addr & 15 >= 11,
    };
    if !FRONT.cover(cov, g.ready(), front(prev), front(i)) {
        return;
    }
    if let Some(d) = g.since_event(i.ev_flow) {
        if d <= SINCE {
            cov.hit(SINCE_1 + d - 1);
        }
    }
    let p = *g.regs();
    let wrote = (prev.cfg_valid && !prev.rst).then_some(prev.cfg_addr & 15);
    let flow = g.flow(i.ev_flow);
    let first = flow.is_none();
    let mut st = flow.unwrap_or_else(|| ccrtl_golden::timely::FlowState::fresh(&p));
    let before = st;
    let lag = g.rate_lag(i.ev_flow);
    let rtt = i.ev_rtt & RTT_MAX;
    let r = st.event(&p, rtt, i.ev_time, first, lag);
    if first {
        cov.hit(FIRST);
        if wrote == Some(10) {
            cov.hit(FIRST_AFTER_INIT_WRITE);
        }
    } else {
        let dt = i.ev_time.wrapping_sub(before.last_time);
        if dt >= 1 << 31 {
            cov.hit(TIME_BACKWARDS);
        }
        if dt == p.min_rtt {
            cov.hit(DT_MIN_RTT);
        } else if dt.wrapping_add(1) == p.min_rtt {
            cov.hit(DT_MIN_RTT_LESS_1);
        }
        if r.delta < ccrtl_golden::timely::ONE {
            cov.hit(DELTA_FRACTION);
        }
        if before.prev_rtt != 0 && rtt < before.prev_rtt {
            cov.hit(NEGATIVE_DIFF);
        }
    }
    if rtt == 0 {
        cov.hit(RTT_0);
    }
    if rtt == RTT_MAX {
        cov.hit(RTT_SATURATED);
    }
    if rtt == p.t_low {
        cov.hit(RTT_AT_T_LOW);
    }
    if rtt == p.t_high {
        cov.hit(RTT_AT_T_HIGH);
    }
    match r.branch {
        branch::BELOW_T_LOW => cov.hit(BRANCH_0),
        branch::ABOVE_T_HIGH => {
            cov.hit(BRANCH_1);
            if wrote == Some(4) {
                cov.hit(BETA_WRITTEN_DECREASE);
            }
            if r.x == X_MAX {
                cov.hit(X_HIGH_CAPPED);
            }
        }
        branch::GRADIENT_NOT_POSITIVE => {
            cov.hit(BRANCH_2);
            if r.hai {
                cov.hit(HAI);
            }
            if wrote == Some(6) && st.neg > 0 {
                cov.hit(HAI_THRESH_WRITTEN);
            }
            // (An HAI increase that bit 22 of hai_n * ai alone clamps to
            // max_rate is aimed at by the writes of ai, but is no point:
            // under some reset values it came fewer than once in 10^6
            // cycles.)
            if r.hai && u64::from(p.hai_n) * u64::from(p.ai) >= 1 << 22 {
                cov.hit(HAI_WIDE);
            }
        }
        _ => {
            cov.hit(BRANCH_3);
            if wrote == Some(4) {
                cov.hit(BETA_WRITTEN_GRADIENT);
            }
            if r.x == X_MAX {
                cov.hit(X_GRAD_CAPPED);
            }
        }
    }
    if r.grad.unsigned_abs() == ccrtl_golden::timely::GRAD_MAX {
        cov.hit(GRAD_SATURATED);
    }
    if st.neg == 15 && before.neg == 15 {
        cov.hit(NEG_SATURATED);
    }
    let decrease = r.branch == branch::ABOVE_T_HIGH || r.branch == branch::GRADIENT_POSITIVE;
    if decrease && !first {
        if lag != before.rate {
            cov.hit(LAG_DIFFERS);
        }
        let sin = g.since_event(i.ev_flow).unwrap_or(usize::MAX);
        if sin < LAG as usize && lag == ccrtl_golden::timely::rate_q(p.init_rate) as u32 {
            cov.hit(LAG_INIT);
        }
    }
    let old = before.rate as u64;
    let half = old.div_ceil(2);
    let max_q = ccrtl_golden::timely::rate_q(p.max_rate);
    let min_q = ccrtl_golden::timely::rate_q(p.min_rate);
    if p.min_rate > p.max_rate {
        cov.hit(MIN_ABOVE_MAX);
    } else {
        if decrease && st.rate as u64 == half && half < max_q && half > min_q {
            cov.hit(HALF_CLAMP);
        }
        if st.rate as u64 == max_q && old != max_q {
            cov.hit(CLAMP_MAX);
            if matches!(wrote, Some(9)) {
                cov.hit(CLAMP_MAX_AFTER_WRITE);
            }
        }
        if st.rate as u64 == min_q && old != min_q {
            cov.hit(CLAMP_MIN);
            if p.min_rate >= 1 << 18 {
                cov.hit(CLAMP_MIN_HIGH);
            }
        }
        if old > 2 * max_q {
            cov.hit(BELOW_HALF_BY_MAX);
        }
    }
    if p.min_rtt == 0 {
        cov.hit(MIN_RTT_0);
    } else if let Some(up) = 23u32.checked_sub(31 - p.min_rtt.leading_zeros()) {
        // min_rtt's mantissa normalised to bit 23: ROM word 0 (bits 22:14)
        // with t (bits 13:0) above 0.
        let m = p.min_rtt << up;
        if (m >> 14) & 511 == 0 && m & 0x3fff != 0 {
            cov.hit(MIN_RTT_WORD_0);
        }
    }
    if p.ewma_shift > 12 {
        cov.hit(EWMA_SHIFT_ABOVE_12);
    }
    if p.ewma_shift == 0 {
        cov.hit(EWMA_SHIFT_0);
    }
    if p.t_low > p.t_high {
        cov.hit(T_LOW_ABOVE_T_HIGH);
    }
    if p.beta > 1 << 16 {
        cov.hit(BETA_ABOVE_1);
    }
}

/// Cycles-since points: 1 to 12 (t1's forwarding is 7 deep, the lag 4, the
/// rate tables' 10).
const SINCE: usize = 12;

const COVER: &[&str] = &[
    "first event of a flow",
    "first event of a flow in the cycle after a write of init_rate",
    "timestamp before the flow's last (dt wraps)",
    "dt exactly min_rtt (delta = 1)",
    "dt = min_rtt - 1",
    "delta below 1",
    "negative RTT difference",
    "RTT of 0",
    "RTT of 2^24 - 1",
    "RTT exactly t_low",
    "RTT exactly t_high",
    "branch 0: below t_low",
    "branch 1: above t_high",
    "branch 1 with x capped at 1/2",
    "branch 2: gradient <= 0",
    "branch 2 hyper-additive (HAI)",
    "branch 3: gradient > 0",
    "branch 3 with x capped at 1/2",
    "grad saturated",
    "neg saturated at 15",
    "decrease whose operand lags (rate_lag != rate)",
    "decrease whose operand is init_rate (the flow's first event 1 to 3 cycles before)",
    "half clamp",
    "rate clamped to max_rate",
    "rate clamped to max_rate in the cycle after a write of it",
    "rate clamped to min_rate",
    "event of a flow above twice max_rate (lowered)",
    "event with min_rate > max_rate",
    "event with min_rtt = 0",
    "event with ewma_shift > 12",
    "event with ewma_shift = 0",
    "event with t_low > t_high",
    "event with beta > 1",
    "event 1 cycle after its flow's last event",
    "event 2 cycles after its flow's last event",
    "event 3 cycles after its flow's last event",
    "event 4 cycles after its flow's last event",
    "event 5 cycles after its flow's last event",
    "event 6 cycles after its flow's last event",
    "event 7 cycles after its flow's last event",
    "event 8 cycles after its flow's last event",
    "event 9 cycles after its flow's last event",
    "event 10 cycles after its flow's last event",
    "event 11 cycles after its flow's last event",
    "event 12 cycles after its flow's last event",
    "event refused while the table is cleared",
    "event in the cycle after a reset (refused)",
    "reset mid-traffic",
    "reset during the clearing",
    "reset held for several cycles",
    "event in a reset cycle",
    "register write in a reset cycle",
    "register writes in consecutive cycles",
    "register write with an event in the same cycle",
    "register write to an unused address (11 to 15)",
    "branch 2 after a negative difference in the cycle after a write of hai_thresh",
    "branch 2 hyper-additive with hai_n * ai at least 2^22",
    "branch 1 in the cycle after a write of beta",
    "branch 3 in the cycle after a write of beta",
    "rate clamped to a min_rate of at least 2^18",
    "event with min_rtt's reciprocal from ROM word 0 (slope 256) and t > 0",
];
const FIRST: usize = 0;
const FIRST_AFTER_INIT_WRITE: usize = 1;
const TIME_BACKWARDS: usize = 2;
const DT_MIN_RTT: usize = 3;
const DT_MIN_RTT_LESS_1: usize = 4;
const DELTA_FRACTION: usize = 5;
const NEGATIVE_DIFF: usize = 6;
const RTT_0: usize = 7;
const RTT_SATURATED: usize = 8;
const RTT_AT_T_LOW: usize = 9;
const RTT_AT_T_HIGH: usize = 10;
const BRANCH_0: usize = 11;
const BRANCH_1: usize = 12;
const X_HIGH_CAPPED: usize = 13;
const BRANCH_2: usize = 14;
const HAI: usize = 15;
const BRANCH_3: usize = 16;
const X_GRAD_CAPPED: usize = 17;
const GRAD_SATURATED: usize = 18;
const NEG_SATURATED: usize = 19;
const LAG_DIFFERS: usize = 20;
const LAG_INIT: usize = 21;
const HALF_CLAMP: usize = 22;
const CLAMP_MAX: usize = 23;
const CLAMP_MAX_AFTER_WRITE: usize = 24;
const CLAMP_MIN: usize = 25;
const BELOW_HALF_BY_MAX: usize = 26;
const MIN_ABOVE_MAX: usize = 27;
const MIN_RTT_0: usize = 28;
const EWMA_SHIFT_ABOVE_12: usize = 29;
const EWMA_SHIFT_0: usize = 30;
const T_LOW_ABOVE_T_HIGH: usize = 31;
const BETA_ABOVE_1: usize = 32;
const SINCE_1: usize = 33;
const REFUSED_WHILE_CLEARING: usize = 45;
const RIGHT_AFTER_RESET: usize = 46;
const RESET_MID_RUN: usize = 47;
const RESET_WHILE_CLEARING: usize = 48;
const RESET_HELD: usize = 49;
const EV_IN_RESET: usize = 50;
const CFG_IN_RESET: usize = 51;
const CFG_BACK_TO_BACK: usize = 52;
const CFG_WITH_EV: usize = 53;
const CFG_IGNORED: usize = 54;
const HAI_THRESH_WRITTEN: usize = 55;
const HAI_WIDE: usize = 56;
const BETA_WRITTEN_DECREASE: usize = 57;
const BETA_WRITTEN_GRADIENT: usize = 58;
const CLAMP_MIN_HIGH: usize = 59;
const MIN_RTT_WORD_0: usize = 60;

/// The front-end points ([`FrontPoints`]).
const FRONT: FrontPoints = FrontPoints {
    reset_mid_run: RESET_MID_RUN,
    reset_while_clearing: RESET_WHILE_CLEARING,
    reset_held: RESET_HELD,
    event_in_reset: EV_IN_RESET,
    cfg_in_reset: CFG_IN_RESET,
    cfg_back_to_back: CFG_BACK_TO_BACK,
    cfg_with_event: CFG_WITH_EV,
    cfg_ignored: Some(CFG_IGNORED),
    refused_while_clearing: REFUSED_WHILE_CLEARING,
    right_after_reset: RIGHT_AFTER_RESET,
};

/// A flow's RTT regime.
#[derive(Clone, Copy)]
enum Regime {
    Low,
    High,
    Rising,
    Falling,
    Noisy,
    Flat,
    Edges,
}

/// Random valid TIMELY stimulus (see the module comment).
pub struct TimelyStimulus {
    rng: Rng,
    flows: u32,
    flow_mask: u32,
    hot: [u32; 4],
    /// Per flow: its regime, events left in it, the last RTT given.
    regime: Vec<Regime>,
    left: Vec<u32>,
    last_rtt: Vec<u32>,
    clock: u32,
    reset_in: u64,
    reset_left: u32,
    resets: u64,
    cfg_in: u32,
    writes_left: u32,
    /// Share of cycles with an event, in 64ths.
    load_64: u32,
    /// A burst of events of one flow: the flow, events left.
    burst: Option<(u32, u32)>,
    after_reset: bool,
    /// The register the last cycle wrote (outside reset).
    last_write: Option<u32>,
    /// `hai_thresh` before the last write of it.
    ht_before: u32,
    /// A reset since the last write of init_rate on a cleared table.
    init_fresh: bool,
}

impl TimelyStimulus {
    fn reset_gap(&mut self) -> u64 {
        let f = self.flows as u64;
        self.resets += 1;
        if self.resets % 4 == 1 {
            self.rng.upto(self.flows) as u64 + 1
        } else {
            f + 5_000 + self.rng.next_u64() % (2 * f + 40_000)
        }
    }

    fn random_flow(&mut self) -> u32 {
        self.rng.next_u32() & self.flow_mask
    }

    /// A register write: any address, extreme values often.
    fn write(&mut self, g: &Timely, i: &mut TimelyIn) {
        let addr = if self.rng.chance(16) {
            self.rng.range(11, 15)
        } else {
            self.rng.upto(10)
        };
        self.write_at(g, i, addr);
    }

    fn write_at(&mut self, g: &Timely, i: &mut TimelyIn, addr: u32) {
        i.cfg_valid = true;
        i.cfg_addr = addr;
        let p = *g.regs();
        let junk = self.rng.next_u32() & 0xff_ffff;
        i.cfg_data = match addr {
            0 => match self.rng.upto(7) {
                0 => 0,
                1 => 1,
                // Just above a power of two: the reciprocal's ROM word 0,
                // whose slope (256) alone has its top bit set.
                2 => {
                    let k = self.rng.range(10, 23);
                    (1 << k) + self.rng.range(1, (1 << k) >> 9)
                }
                _ => random_rtt_scale(&mut self.rng),
            },
            1 => match self.rng.upto(5) {
                0 => p.t_high.saturating_add(self.rng.upto(1000)).min(RTT_MAX),
                1 => 0,
                _ => self.rng.upto(p.t_high),
            },
            2 => match self.rng.upto(5) {
                0 => RTT_MAX,
                1 => p.t_low.saturating_sub(self.rng.upto(100)),
                _ => p.min_rtt.saturating_mul(self.rng.range(1, 50)).min(RTT_MAX),
            },
            // Junk above the register's width (written, then masked).
            // Large ai with a large hai_n: hai_n * ai of 23 bits.
            3 => match self.rng.upto(7) {
                0 => 0,
                1 => junk,
                2 => self.rng.range(1 << 18, (1 << 19) - 1),
                // hai_n * ai just above 2^22 (by less than max_rate / 8):
                // its bit 22 alone keeps an HAI increase from landing
                // below max_rate.
                // (hai_n of 15 written first when below 9).
                3 | 4 if p.hai_n < 9 => {
                    i.cfg_addr = 7;
                    15
                }
                3 | 4 => {
                    let lo = (1u32 << 22).div_ceil(p.hai_n);
                    let hi = (((1u32 << 22) + p.max_rate / 8) / p.hai_n).clamp(lo, (1 << 19) - 1);
                    self.rng.range(lo, hi)
                }
                _ => self.rng.range(1, 2000),
            },
            4 => match self.rng.upto(5) {
                0 => 0,
                1 => (1 << 17) - 1,
                2 => 1 << 16,
                _ => self.rng.upto(1 << 16) | (junk & !0x1ffff),
            },
            5 => match self.rng.upto(4) {
                0 => 0,
                1 => self.rng.range(13, 15),
                _ => self.rng.upto(12) | (junk & !0xf),
            },
            6 => self.rng.upto(15) | (junk & !0xf),
            7 => {
                let n = match self.rng.upto(3) {
                    0 => 15,
                    _ => self.rng.upto(15),
                };
                n | (junk & !0xf)
            }
            8 => match self.rng.upto(5) {
                0 => p.max_rate.saturating_add(self.rng.upto(1000)).min(RATE_MAX),
                1 => 0,
                // min_rate's top bit set (under a max_rate of RATE_MAX,
                // written first when lower): the next event of a flow
                // below it is clamped to it.
                2 if p.max_rate < RATE_MAX => {
                    i.cfg_addr = 9;
                    RATE_MAX
                }
                2 => self.rng.range(1 << 18, RATE_MAX),
                _ => self.rng.upto(p.max_rate),
            },
            9 => match self.rng.upto(5) {
                0 => RATE_MAX,
                1 => p.min_rate.saturating_sub(self.rng.upto(50)),
                2 => {
                    // Below half a hot flow's rate now and then.
                    let f = self.hot[self.rng.upto(3) as usize];
                    let c = g.flow(f).map_or(5000, |st| st.rate >> 12);
                    c >> self.rng.range(0, 3)
                }
                _ => self.rng.range(1, RATE_MAX),
            },
            10 => match self.rng.upto(4) {
                0 => p.max_rate.saturating_add(self.rng.upto(100)).min(RATE_MAX),
                1 => p.min_rate.saturating_sub(self.rng.upto(100)),
                _ => self.rng.range(p.min_rate.min(p.max_rate), p.max_rate.max(p.min_rate)),
            },
            _ => junk,
        };
    }

    /// Of the hot flows and eight random ones, a flow whose RTT can fall
    /// by one within `[t_low, t_high]` with `avg <= 0` (the gradient
    /// branch) and whose count of negative differences, one more, is in
    /// `[lo, hi)` (after a write of `hai_thresh`: between the old and the
    /// new threshold); the flow and that RTT.
    fn hai_edge(&mut self, g: &Timely, lo: u32, hi: u32) -> Option<(u32, u32)> {
        let p = *g.regs();
        let any: Vec<u32> = (0..8).map(|_| self.random_flow()).collect();
        self.hot.iter().chain(&any).find_map(|&f| {
            let st = g.flow(f)?;
            let rtt = st.prev_rtt.checked_sub(1)?;
            let neg = (st.neg + 1).min(NEG_MAX);
            (st.avg <= 0 && rtt >= p.t_low && rtt <= p.t_high && neg >= lo && neg < hi)
                .then_some((f, rtt))
        })
    }

    /// Of the hot flows and sixteen random ones, the flow with the smallest
    /// `avg > 0` whose RTT can rise by one within `[t_low, t_high]` (the
    /// gradient branch, a decrease by `beta * grad`, capped at 1/2 less
    /// often the smaller `avg`); the flow and that RTT.
    fn rising_in_band(&mut self, g: &Timely) -> Option<(u32, u32)> {
        let p = *g.regs();
        let any: Vec<u32> = (0..16).map(|_| self.random_flow()).collect();
        self.hot
            .iter()
            .chain(&any)
            .filter_map(|&f| {
                let st = g.flow(f)?;
                let rtt = st.prev_rtt.checked_add(1)?;
                (st.avg > 0 && st.prev_rtt > 0 && rtt >= p.t_low && rtt <= p.t_high)
                    .then_some((st.avg, f, rtt))
            })
            .min()
            .map(|(_, f, rtt)| (f, rtt))
    }

    /// The next RTT of flow `f` under registers `p`.
    fn rtt(&mut self, f: usize, p: &TimelyParams) -> u32 {
        if self.left[f] == 0 {
            self.regime[f] = match self.rng.upto(6) {
                0 => Regime::Low,
                1 => Regime::High,
                2 => Regime::Rising,
                3 => Regime::Falling,
                4 => Regime::Noisy,
                5 => Regime::Flat,
                _ => Regime::Edges,
            };
            self.left[f] = match self.rng.upto(3) {
                0 => self.rng.range(1, 4),
                _ => self.rng.range(5, 300),
            };
        }
        self.left[f] -= 1;
        let last = self.last_rtt[f];
        let scale = (p.min_rtt / 8).max(1);
        let mid = |r: &mut Rng| {
            let (lo, hi) = (p.t_low.min(p.t_high), p.t_high.max(p.t_low));
            r.range(lo, hi)
        };
        let rtt = match self.regime[f] {
            Regime::Low => {
                if p.t_low == 0 {
                    0
                } else {
                    self.rng.upto(p.t_low - 1)
                }
            }
            Regime::High => match self.rng.upto(7) {
                0 => RTT_MAX,
                1 => p.t_high.saturating_add(1).min(RTT_MAX),
                _ => {
                    let lo = p.t_high.min(RTT_MAX - 1) + 1;
                    let hi = p.t_high.saturating_mul(4).min(RTT_MAX).max(lo);
                    self.rng.range(lo, hi)
                }
            },
            Regime::Rising => last.saturating_add(self.rng.upto(scale)).min(RTT_MAX),
            Regime::Falling => last.saturating_sub(self.rng.upto(scale)),
            Regime::Noisy => {
                if self.rng.chance(8) {
                    mid(&mut self.rng)
                } else {
                    let n = self.rng.upto(scale / 4 + 1);
                    if self.rng.chance(128) {
                        last.saturating_add(n).min(RTT_MAX)
                    } else {
                        last.saturating_sub(n)
                    }
                }
            }
            Regime::Flat => {
                if last == 0 {
                    mid(&mut self.rng)
                } else {
                    last
                }
            }
            Regime::Edges => match self.rng.upto(6) {
                0 => p.t_low,
                1 => p.t_low.saturating_sub(1),
                2 => p.t_high,
                3 => p.t_high.saturating_add(1).min(RTT_MAX),
                4 => 0,
                5 => RTT_MAX,
                _ => mid(&mut self.rng),
            },
        };
        self.last_rtt[f] = rtt;
        rtt
    }
}

impl Stimulus<TimelyBlock> for TimelyStimulus {
    fn new(config: &TimelyConfig, seed: u64) -> TimelyStimulus {
        let mut rng = Rng::new(seed);
        let flows = config.shape.flows();
        let flow_mask = flows - 1;
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = TimelyStimulus {
            rng,
            flows,
            flow_mask,
            hot,
            regime: vec![Regime::Noisy; flows as usize],
            left: vec![0; flows as usize],
            last_rtt: vec![0; flows as usize],
            clock: 0,
            reset_in: 0,
            reset_left: 0,
            resets: 0,
            cfg_in: 200,
            writes_left: 0,
            load_64: 48,
            burst: None,
            after_reset: false,
            last_write: None,
            ht_before: 0,
            init_fresh: false,
        };
        s.clock = s.rng.next_u32();
        s.reset_left = 2 + s.rng.upto(2);
        s.reset_in = flows as u64 + 5_000 + s.rng.next_u64() % (2 * flows as u64 + 40_000);
        s
    }

    fn next_into(&mut self, g: &Timely, i: &mut TimelyIn) {
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
            self.burst = None;
            self.init_fresh = true;
            if self.reset_left == 0 && self.reset_in == 0 {
                self.reset_in = self.reset_gap();
            }
        }
        // The clock: 0 to 300 units a cycle, idle stretches, jumps.
        self.clock = self.clock.wrapping_add(match self.rng.upto(255) {
            0 => self.rng.next_u32() >> self.rng.upto(31),
            1..=40 => 0,
            _ => self.rng.upto(300),
        });
        // Register writes (random payload when none).
        i.cfg_addr = self.rng.upto(15);
        i.cfg_data = self.rng.next_u32() & 0xff_ffff;
        if self.writes_left > 0 {
            self.writes_left -= 1;
            self.write(g, i);
        } else {
            self.cfg_in = self.cfg_in.saturating_sub(1);
            if self.cfg_in == 0 {
                self.write(g, i);
                self.cfg_in = 20 + self.rng.upto(3_000);
                if self.rng.chance(32) {
                    self.writes_left = self.rng.range(1, 3);
                }
            }
        }
        if i.rst && (self.resets % 3 == 0 || self.rng.chance(96)) {
            self.write(g, i);
        }
        if self.reset_left == 0 && self.reset_in <= 24 && self.rng.chance(64) {
            self.write(g, i);
        }
        // Once the table is cleared after a reset, a write of init_rate
        // (the next cycle's event is then a flow's first: with 16 flows
        // every flow was seen before a random write of it came, and the
        // point was missed, CCRTL_TEST_SEED=29938803).
        if self.init_fresh && !i.rst && g.ready() {
            self.init_fresh = false;
            self.write_at(g, i, 10);
        }
        if self.rng.upto(8191) == 0 {
            self.load_64 = self.rng.pick(&[8, 32, 48, 60, 64]);
        }
        if i.cfg_valid && !i.rst && i.cfg_addr & 15 == 6 {
            self.ht_before = g.regs().hai_thresh;
        }
        let after_reset = std::mem::replace(&mut self.after_reset, i.rst);
        let last_write = std::mem::replace(
            &mut self.last_write,
            (i.cfg_valid && !i.rst).then_some(i.cfg_addr & 15),
        );
        // The event (random payload when none; always one in the cycle
        // after a reset, refused).
        i.ev_flow = self.random_flow();
        i.ev_rtt = self.rng.next_u32() & RTT_MAX;
        i.ev_time = self.rng.next_u32();
        // After a write of init_rate: a flow not seen yet; of min_rate or
        // max_rate: a hot flow.
        let mut forced = None;
        let mut aimed = None;
        let mut steer = None;
        if !i.rst {
            match last_write {
                Some(6) => {
                    let ht = g.regs().hai_thresh;
                    aimed = self.hai_edge(g, ht.min(self.ht_before), ht.max(self.ht_before));
                    forced = aimed.map(|(f, _)| f);
                }
                // hai_n: an event that takes it (neg reaches hai_thresh).
                Some(7) => {
                    aimed = self.hai_edge(g, g.regs().hai_thresh, NEG_MAX + 1);
                    forced = aimed.map(|(f, _)| f);
                }
                // ai, 2 writes in 256 and always when hai_n * ai >= 2^22: an
                // HAI increase by hai_n * ai.
                Some(3)
                    if self.rng.chance(2)
                        || u64::from(g.regs().ai) * u64::from(g.regs().hai_n) >= 1 << 22 =>
                {
                    aimed = self.hai_edge(g, g.regs().hai_thresh, NEG_MAX + 1);
                    forced = aimed.map(|(f, _)| f);
                }
                // beta, half the writes: a rising RTT of a flow in the
                // gradient branch (avg > 0), a decrease by beta * grad
                // (beta's pipeline copies are read there, at stage 14 and
                // later: with 2 writes in 256, a copy loaded a cycle late
                // survived 5e5 cycles, CCRTL_TEST_SEED=29938224).
                Some(4) if self.rng.chance(128) => {
                    aimed = self.rising_in_band(g);
                    forced = aimed.map(|(f, _)| f);
                }
                // ai and beta otherwise: an increase below t_low, a
                // decrease above t_high, of a hot flow.
                Some(3 | 4) => {
                    steer = last_write;
                    forced = Some(self.hot[self.rng.upto(3) as usize]);
                }
                Some(10) => {
                    forced = (0..8)
                        .map(|_| self.random_flow())
                        .find(|&f| g.flow(f).is_none());
                }
                Some(8 | 9) => forced = Some(self.hot[self.rng.upto(3) as usize]),
                _ => {}
            }
        }
        let in_burst = self.burst.is_some();
        if forced.is_none() && !in_burst && self.rng.upto(63) >= self.load_64 && !after_reset {
            return;
        }
        let f = if let Some(f) = forced {
            f
        } else if let Some((f, n)) = self.burst {
            self.burst = (n > 1).then_some((f, n - 1));
            if self.rng.chance(64) {
                // A gap inside the burst.
                return;
            }
            f
        } else {
            match self.rng.upto(15) {
                0..=6 => self.hot[self.rng.upto(3) as usize],
                7..=10 => {
                    let d = self.rng.range(1, SINCE as u32) as usize;
                    let any = self.random_flow();
                    self.hot
                        .iter()
                        .copied()
                        .chain(std::iter::once(any))
                        .find(|&f| g.since_event(f) == Some(d))
                        .unwrap_or(self.hot[self.rng.upto(3) as usize])
                }
                11 => {
                    let f = self.hot[self.rng.upto(3) as usize];
                    self.burst = Some((f, self.rng.range(1, 8)));
                    f
                }
                _ => self.random_flow(),
            }
        };
        i.ev_valid = true;
        i.ev_flow = f;
        let p = *g.regs();
        i.ev_rtt = self.rtt(f as usize, &p);
        if let Some((_, rtt)) = aimed {
            i.ev_rtt = rtt;
        }
        match steer {
            Some(3) if p.t_low > 0 => i.ev_rtt = self.rng.upto(p.t_low - 1),
            Some(4) if p.t_high < RTT_MAX => {
                let lo = p.t_high + 1;
                i.ev_rtt = self.rng.range(lo, p.t_high.saturating_mul(4).min(RTT_MAX).max(lo));
            }
            _ => {}
        }
        self.last_rtt[f as usize] = i.ev_rtt;
        i.ev_time = match (g.flow(f), self.rng.upto(31)) {
            (Some(st), 0) => st.last_time.wrapping_add(p.min_rtt),
            (Some(st), 1) => st.last_time.wrapping_add(p.min_rtt.wrapping_sub(1)),
            (Some(st), 2) => st.last_time,
            (Some(st), 3) => st.last_time.wrapping_sub(self.rng.range(1, 1000)),
            (Some(st), 4..=7) => st.last_time.wrapping_add(self.rng.upto(p.min_rtt.max(1))),
            _ => self.clock,
        };
    }
}

// ---- the params file ---------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
struct TimelyFile {
    timely: Option<TimelyTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimelyTable {
    flow_bits: Option<u32>,
    reset: Option<TimelyReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimelyReset {
    min_rtt: Option<u32>,
    t_low: Option<u32>,
    t_high: Option<u32>,
    ai: Option<u32>,
    beta: Option<u32>,
    ewma_shift: Option<u32>,
    hai_thresh: Option<u32>,
    hai_n: Option<u32>,
    min_rate: Option<u32>,
    max_rate: Option<u32>,
    init_rate: Option<u32>,
}

/// Parses and validates the `[timely]` table of params text; `path` names
/// it.
pub fn parse_config(text: &str, path: &str) -> Result<TimelyConfig, ParamsError> {
    let file: TimelyFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.timely.unwrap_or_default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = TimelyShape {
        flow_bits: t.flow_bits.unwrap_or(TimelyShape::default().flow_bits),
    };
    shape.validate().map_err(perr)?;
    let r = t.reset.unwrap_or_default();
    let d = TimelyParams::default();
    let config = TimelyConfig {
        shape,
        reset: TimelyParams {
            min_rtt: r.min_rtt.unwrap_or(d.min_rtt),
            t_low: r.t_low.unwrap_or(d.t_low),
            t_high: r.t_high.unwrap_or(d.t_high),
            ai: r.ai.unwrap_or(d.ai),
            beta: r.beta.unwrap_or(d.beta),
            ewma_shift: r.ewma_shift.unwrap_or(d.ewma_shift),
            hai_thresh: r.hai_thresh.unwrap_or(d.hai_thresh),
            hai_n: r.hai_n.unwrap_or(d.hai_n),
            min_rate: r.min_rate.unwrap_or(d.min_rate),
            max_rate: r.max_rate.unwrap_or(d.max_rate),
            init_rate: r.init_rate.unwrap_or(d.init_rate),
        },
    };
    config.validate().map_err(perr)?;
    Ok(config)
}
