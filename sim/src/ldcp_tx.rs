//! LDCP_TX in the generic machinery: ports, value encoding, random
//! stimulus and the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's flow states
//! (stage, `sent`, `acked`, `cw`), the flows of the last events and the
//! lagged `base`, and plays a transport per flow. A flow in fast start gets
//! SENDs (the `iw`-th among them; now and then the last of a message) and
//! ACKs that count towards `iw` (often exactly the rest of it), now and then
//! a LOSS (with nothing acknowledged too). A stable flow gets ACKs of `n`
//! packets (1 mostly; 0, 2 to 15, 255), marked by the flow's ECE mood (no
//! marks, all, a share), which changes now and then: windows climb to the
//! ceiling, fall below one packet to the floor `gamma` and climb back.
//! LOSSes and STARTs come now and then. Traffic comes from a hot set of four
//! flows (the first and the last flow among them), from the flow of one of
//! the last twelve events (every forwarding distance of the loop and both
//! sides of the reciprocal's lag of 8), and from random flows.
//! Register writes come now and then, in runs too, to any address (5 to 7
//! are ignored), with extreme values often: `alpha` and `beta` 0, 1/256,
//! 1 and 511/256, every `gamma_shift` 0 to 7, `iw` 0, 1, small, 65,535,
//! `cw_max` 0, 1, small, 65,535 and just below a hot flow's window (its
//! next events meet a `cw` above the ceiling), or 2^15 above that (the
//! ceiling's bit 15 alone keeps them from clamping). Resets come mid-traffic,
//! during the clearing and held, with events and writes in the reset
//! cycles. In the cycle after a write of `gamma_shift` a marked ACK of a
//! stable flow near the floor is sized to land between the old and the
//! new floor (the clamp must use the new one). Now and then (one cycle in
//! 65,536) a phase of 8,000 cycles without writes or resets sets `iw` to
//! 2^15 or more, restarts hot stable flows and acknowledges 255 packets at
//! a time (the exact rest at the end), so that fast start ends at an `iw`
//! of 16 bits, or on a loss once 2^15 packets are acknowledged. Now and then an ACK that ends fast start is followed by a
//! write of `iw` or `cw_max` and then an unmarked ACK of the flow, whose
//! increase takes the new initial window as its lagged base. Payloads
//! whose valid is low (and `n`, `ece`, `last` of kinds
//! that ignore them) are random, not 0.

use ccrtl_golden::ldcp_tx::{
    EvKind, Event, FlowState, LdcpTx, LdcpTxConfig, LdcpTxIn, LdcpTxOut, LdcpTxParams,
    LdcpTxShape, CW_ONE, GAIN_ONE, PKT_MAX, RECIP_LAG, SUPPORTED_FLOW_BITS,
};
use ccrtl_golden::ldcp_tx::decrease;
use serde::Deserialize;

use crate::block::{Block, Coverage, Front, FrontPoints, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct LdcpTxBlock;

impl Block for LdcpTxBlock {
    const NAME: &'static str = "ldcp_tx";
    type Config = LdcpTxConfig;
    type In = LdcpTxIn;
    type Out = LdcpTxOut;
    type Golden = LdcpTx;
    type Stimulus = LdcpTxStimulus;

    fn ports(c: &LdcpTxConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::ldcp_tx::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &LdcpTxIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.ev_valid as u128;
        v[2] = i.ev_flow as u128;
        v[3] = i.ev_kind as u128;
        v[4] = i.ev_n as u128;
        v[5] = i.ev_ece as u128;
        v[6] = i.ev_last as u128;
        v[7] = i.ev_rtt as u128;
        v[8] = i.cfg_valid as u128;
        v[9] = i.cfg_addr as u128;
        v[10] = i.cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> LdcpTxIn {
        // Values were checked against the port widths by the caller.
        LdcpTxIn {
            rst: v[0] != 0,
            ev_valid: v[1] != 0,
            ev_flow: v[2] as u32,
            ev_kind: v[3] as u32,
            ev_n: v[4] as u32,
            ev_ece: v[5] != 0,
            ev_last: v[6] != 0,
            ev_rtt: v[7] as u32,
            cfg_valid: v[8] != 0,
            cfg_addr: v[9] as u32,
            cfg_data: v[10] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &LdcpTxOut, v: &mut [u128]) {
        v[0] = o.ev_ready as u128;
        v[1] = o.cc_valid as u128;
        v[2] = o.cc_flow as u128;
        v[3] = o.cc_kind as u128;
        v[4] = o.cc_cw as u128;
        v[5] = o.cc_stable as u128;
        v[6] = o.cc_ect as u128;
        v[7] = o.cc_interval as u128;
    }

    fn golden(c: &LdcpTxConfig) -> LdcpTx {
        LdcpTx::new(*c).expect("LDCP_TX configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut LdcpTx, i: &LdcpTxIn) -> LdcpTxOut {
        g.step(i)
    }

    fn verilog(c: &LdcpTxConfig) -> String {
        ccrtl_hdl::ldcp_tx::verilog(c).expect("LDCP_TX configuration must be validated before use")
    }

    fn hdl_sim(c: &LdcpTxConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<LdcpTxIn, LdcpTxOut>> {
        ccrtl_hdl::ldcp_tx::sim(c).expect("LDCP_TX configuration must be validated before use")
    }

    fn default_config() -> LdcpTxConfig {
        LdcpTxConfig::default()
    }

    /// 16 flows (a 16-cycle clearing), small windows (`iw = 4`, ceiling 40
    /// packets), `gamma = 1/4`: flows leave fast start, meet the ceiling
    /// and the floor within a few hundred cycles.
    const SHORT_PARAMS: &'static str = "[ldcp_tx]\nflow_bits = 4\n[ldcp_tx.reset]\n\
        alpha = 256\nbeta = 128\ngamma_shift = 2\niw = 4\ncw_max = 40\n";

    fn parse_config(text: &str, path: &str) -> Result<LdcpTxConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<LdcpTxConfig> {
        SUPPORTED_FLOW_BITS
            .iter()
            .map(|&flow_bits| LdcpTxConfig {
                shape: LdcpTxShape { flow_bits },
                reset: LdcpTxParams::default(),
            })
            .collect()
    }

    fn random_reset(c: &LdcpTxConfig, r: &mut Rng) -> LdcpTxConfig {
        let gain = |r: &mut Rng| match r.upto(4) {
            0 => 1,
            1 => GAIN_ONE,
            2 => GAIN_ONE / 2,
            _ => r.range(1, GAIN_ONE),
        };
        let cw_max = match r.upto(4) {
            0 => r.range(1, 10),
            1 => PKT_MAX,
            2 => r.range(10, 1000),
            _ => r.range(1, PKT_MAX),
        };
        let iw = match r.upto(3) {
            0 => 1,
            1 => cw_max,
            _ => r.range(1, cw_max.min(200)),
        };
        LdcpTxConfig {
            shape: c.shape,
            reset: LdcpTxParams {
                alpha: gain(r),
                beta: gain(r),
                gamma_shift: r.range(2, 4),
                iw,
                cw_max,
            },
        }
    }

    fn describe(c: &LdcpTxConfig) -> String {
        let r = &c.reset;
        format!(
            "flow_bits={} reset: alpha={} beta={} gamma_shift={} iw={} cw_max={}",
            c.shape.flow_bits, r.alpha, r.beta, r.gamma_shift, r.iw, r.cw_max
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &LdcpTx, prev: &LdcpTxIn, i: &LdcpTxIn, cov: &mut Coverage) {
        cover(g, prev, i, cov)
    }
}

/// The corner-case points the cycle about to run hits.
fn cover(g: &LdcpTx, prev: &LdcpTxIn, i: &LdcpTxIn, cov: &mut Coverage) {
    let front = |x: &LdcpTxIn| Front {
        rst: x.rst,
        event: x.ev_valid,
        cfg: x.cfg_valid,
        cfg_unused: x.cfg_addr & 7 >= 5,
    };
    if !FRONT.cover(cov, g.ready(), front(prev), front(i)) {
        return;
    }
    let since = g.since_event(i.ev_flow);
    if let Some(d) = since {
        if d <= SINCE {
            cov.hit(SINCE_1 + d - 1);
        }
    }
    let p = *g.regs();
    let wrote = (prev.cfg_valid && !prev.rst).then_some(prev.cfg_addr & 7);
    let st = g.flow(i.ev_flow);
    let base = g.recip_base(i.ev_flow);
    let ev = Event {
        kind: EvKind::from_bits(i.ev_kind),
        n: i.ev_n & 0xff,
        ece: i.ev_ece,
        last: i.ev_last,
    };
    let mut after = st;
    let ect = after.event(&p, &ev, base);
    let cw = st.cw(&p);
    let new = after.cw(&p);
    if new < CW_ONE {
        cov.hit(INTERVAL);
    }
    if p.cw_max == 0 {
        cov.hit(CW_MAX_0);
    }
    if p.gamma_shift == 0 {
        cov.hit(GAMMA_1);
    } else if p.gamma_shift == 7 {
        cov.hit(GAMMA_128TH);
    }
    match (st, ev.kind) {
        (_, EvKind::Start) => {
            if st.stable() {
                cov.hit(START_STABLE);
            }
        }
        (FlowState::FastStart { sent, .. }, EvKind::Send) => {
            if !ect {
                cov.hit(SEND_NOT_ECT);
            } else if sent + 1 == p.iw {
                cov.hit(SEND_IW_TH);
            } else if sent + 1 < p.iw {
                cov.hit(SEND_LAST);
            }
        }
        (FlowState::Stable { .. }, EvKind::Send) => cov.hit(SEND_STABLE),
        (_, EvKind::Ack) if ev.n == 0 => cov.hit(ACK_0),
        (FlowState::FastStart { acked, .. }, EvKind::Ack) => {
            if after.stable() {
                cov.hit(FAST_START_DONE);
                if acked + ev.n == p.iw {
                    cov.hit(FAST_START_DONE_EXACTLY);
                }
                if ev.ece {
                    cov.hit(DONE_WITH_ECE);
                }
                if matches!(wrote, Some(3 | 4)) {
                    cov.hit(DONE_AFTER_WINDOW_WRITE);
                }
                if p.iw >= 1 << 15 {
                    cov.hit(DONE_BIG_IW);
                }
            } else {
                cov.hit(FAST_START_ACK);
            }
        }
        (FlowState::Stable { cw: c }, EvKind::Ack) => {
            if ev.n == 255 {
                cov.hit(ACK_255);
            }
            if c > p.ceiling().max(p.gamma()) {
                cov.hit(ABOVE_CEILING);
            }
            match (c >= CW_ONE, ev.ece) {
                (true, false) => {
                    cov.hit(INCREASE);
                    if base.max(CW_ONE) != c.max(CW_ONE) {
                        cov.hit(INCREASE_LAGS);
                        if since.is_some_and(|s| s < RECIP_LAG as usize)
                            && base == p.initial_cw()
                        {
                            cov.hit(INCREASE_BASE_INIT);
                            if matches!(wrote, Some(3 | 4)) {
                                cov.hit(INCREASE_BASE_INIT_WRITTEN);
                            }
                        }
                    }
                    if since == Some(RECIP_LAG as usize) {
                        cov.hit(INCREASE_AT_LAG);
                    }
                    if new == p.ceiling() && c != new {
                        cov.hit(INCREASE_CLAMPED);
                    }
                    if p.alpha == 0 {
                        cov.hit(ALPHA_0);
                    } else if p.alpha > GAIN_ONE {
                        cov.hit(ALPHA_ABOVE_1);
                    }
                }
                (true, true) => {
                    cov.hit(DECREASE);
                    if new < CW_ONE {
                        cov.hit(DECREASE_BELOW_ONE);
                    }
                    if new == p.gamma() {
                        cov.hit(DECREASE_TO_FLOOR);
                    }
                    if p.beta == 0 {
                        cov.hit(BETA_0);
                    }
                    if new < CW_ONE && wrote == Some(2) {
                        cov.hit(DECREASE_AFTER_GAMMA_WRITE);
                    }
                }
                (false, true) => {
                    cov.hit(HALVING);
                    if new == p.gamma() {
                        cov.hit(HALVING_TO_FLOOR);
                    }
                }
                (false, false) => {
                    cov.hit(PLUS_GAMMA);
                    if new >= CW_ONE {
                        cov.hit(PLUS_GAMMA_TO_ONE);
                    }
                }
            }
        }
        (FlowState::FastStart { acked, .. }, EvKind::Loss) => {
            cov.hit(if acked == 0 {
                LOSS_FAST_START_NONE
            } else {
                LOSS_FAST_START
            });
            if new == p.ceiling().max(p.gamma()) && acked > p.cw_max {
                cov.hit(LOSS_FAST_START_CLAMPED);
            }
        }
        (FlowState::Stable { .. }, EvKind::Loss) => cov.hit(LOSS_STABLE),
    }
    if !st.stable() && matches!(wrote, Some(3 | 4)) {
        cov.hit(WINDOW_WRITE_FAST_START);
    }
    if !st.stable() && p.iw == 0 {
        cov.hit(IW_0);
    }
    if cw != new && new == p.gamma() {
        cov.hit(AT_FLOOR);
    }
}

/// Cycles-since points: 1 to 12 (the loop's forwarding is 7 deep, the
/// reciprocal's lag 8).
const SINCE: usize = 12;

const COVER: &[&str] = &[
    "SEND in fast start, not ECT",
    "SEND of the iw-th packet (ECT)",
    "SEND of the last packet of a message before iw (ECT)",
    "event of a flow in fast start in the cycle after a write of iw or cw_max",
    "ACK ending fast start with ECE (not applied)",
    "SEND in the stable stage",
    "ACK of 0 packets",
    "ACK in fast start (counting)",
    "ACK ending fast start",
    "ACK ending fast start with exactly iw acknowledged",
    "ACK ending fast start in the cycle after a write of iw or cw_max",
    "ACK of 255 packets in the stable stage",
    "ACK of a stable flow whose cw is above the ceiling",
    "PAWA increase",
    "PAWA increase whose base lags",
    "PAWA increase whose base is the fast-start window (the flow left it less than 8 cycles before)",
    "PAWA increase exactly 8 cycles after its flow's last event",
    "PAWA increase clamped at cw_max",
    "PAWA increase with alpha = 0",
    "PAWA increase with alpha above 1",
    "PAWA decrease",
    "PAWA decrease below one packet",
    "PAWA decrease to the floor gamma",
    "PAWA decrease with beta = 0",
    "halving below one packet",
    "halving to the floor gamma",
    "+gamma below one packet",
    "+gamma reaching one packet",
    "LOSS in fast start",
    "LOSS in fast start with nothing acknowledged",
    "LOSS in fast start clamped at the ceiling",
    "LOSS in the stable stage",
    "START of a stable flow",
    "event with cw_max = 0",
    "event with gamma = 1 (gamma_shift 0)",
    "event with gamma = 1/128 (gamma_shift 7)",
    "event of a flow in fast start with iw = 0",
    "event taking cw to the floor",
    "result with a pacing interval (cw below one packet)",
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
    "register write to an unused address (5 to 7)",
    "ACK ending fast start with iw at least 2^15",
    "PAWA decrease below one packet in the cycle after a write of gamma_shift",
    "PAWA increase whose base is the fast-start window, in the cycle after a write of iw or cw_max",
];
const SEND_NOT_ECT: usize = 0;
const SEND_IW_TH: usize = 1;
const SEND_LAST: usize = 2;
const WINDOW_WRITE_FAST_START: usize = 3;
const DONE_WITH_ECE: usize = 4;
const SEND_STABLE: usize = 5;
const ACK_0: usize = 6;
const FAST_START_ACK: usize = 7;
const FAST_START_DONE: usize = 8;
const FAST_START_DONE_EXACTLY: usize = 9;
const DONE_AFTER_WINDOW_WRITE: usize = 10;
const ACK_255: usize = 11;
const ABOVE_CEILING: usize = 12;
const INCREASE: usize = 13;
const INCREASE_LAGS: usize = 14;
const INCREASE_BASE_INIT: usize = 15;
const INCREASE_AT_LAG: usize = 16;
const INCREASE_CLAMPED: usize = 17;
const ALPHA_0: usize = 18;
const ALPHA_ABOVE_1: usize = 19;
const DECREASE: usize = 20;
const DECREASE_BELOW_ONE: usize = 21;
const DECREASE_TO_FLOOR: usize = 22;
const BETA_0: usize = 23;
const HALVING: usize = 24;
const HALVING_TO_FLOOR: usize = 25;
const PLUS_GAMMA: usize = 26;
const PLUS_GAMMA_TO_ONE: usize = 27;
const LOSS_FAST_START: usize = 28;
const LOSS_FAST_START_NONE: usize = 29;
const LOSS_FAST_START_CLAMPED: usize = 30;
const LOSS_STABLE: usize = 31;
const START_STABLE: usize = 32;
const CW_MAX_0: usize = 33;
const GAMMA_1: usize = 34;
const GAMMA_128TH: usize = 35;
const IW_0: usize = 36;
const AT_FLOOR: usize = 37;
const INTERVAL: usize = 38;
const SINCE_1: usize = 39;
const REFUSED_WHILE_CLEARING: usize = 51;
const RIGHT_AFTER_RESET: usize = 52;
const RESET_MID_RUN: usize = 53;
const RESET_WHILE_CLEARING: usize = 54;
const RESET_HELD: usize = 55;
const EV_IN_RESET: usize = 56;
const CFG_IN_RESET: usize = 57;
const CFG_BACK_TO_BACK: usize = 58;
const CFG_WITH_EV: usize = 59;
const CFG_IGNORED: usize = 60;
const DONE_BIG_IW: usize = 61;
const DECREASE_AFTER_GAMMA_WRITE: usize = 62;
const INCREASE_BASE_INIT_WRITTEN: usize = 63;

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

/// A random gain (`alpha` or `beta`, 9 bits), the ends often.
fn random_gain(r: &mut Rng) -> u32 {
    match r.upto(7) {
        0 => 0,
        1 => 1,
        2 => 511,
        3 | 4 => GAIN_ONE,
        5 => GAIN_ONE / 2,
        _ => r.upto(511),
    }
}

/// Random valid LDCP_TX stimulus (see the module comment).
pub struct LdcpTxStimulus {
    rng: Rng,
    flows: u32,
    flow_mask: u32,
    hot: [u32; 4],
    /// Per flow: the ECE share (of 16) of its ACKs, its RTT.
    ece_16: Vec<u8>,
    rtt: Vec<u32>,
    reset_in: u64,
    reset_left: u32,
    resets: u64,
    cfg_in: u32,
    writes_left: u32,
    /// Share of cycles with an event, in 64ths.
    load_64: u32,
    after_reset: bool,
    /// The register the last cycle wrote (outside reset): after a write of
    /// `iw` or `cw_max` this cycle's event is of a flow in fast start,
    /// which sees the new window (an ACK of the rest of `iw`, or a SEND).
    last_write: Option<u32>,
    /// Set by a reset: when the clearing is over, the first and the last
    /// flow each get a LOSS (fast start ends at one packet) and, two
    /// cycles later, an unmarked ACK, whose increase's base is the fast
    /// start window of its lagged view (the base table's clearing).
    visit: bool,
    revisit: Vec<(u32, EvKind)>,
    /// `gamma` before the last write of `gamma_shift`.
    gamma_before: u64,
    /// Cycles left of a phase with `iw >= 2^15` (no writes, no resets).
    big_iw: u32,
    /// A flow whose ACK just ended fast start: step 0, a write of `iw` or
    /// `cw_max` (a new initial window; step 1 its cycle); step 2, an
    /// unmarked ACK of it, whose base (its lagged view, still in fast
    /// start) is the new window.
    probe: Option<(u32, u8)>,
}

impl LdcpTxStimulus {
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
    fn write(&mut self, g: &LdcpTx, i: &mut LdcpTxIn) {
        i.cfg_valid = true;
        i.cfg_addr = if self.rng.chance(16) {
            self.rng.range(5, 7)
        } else {
            self.rng.upto(4)
        };
        // Bits above a register's width are ignored: random.
        let high = |r: &mut Rng, bits: u32| (r.next_u32() << bits) & 0xffff;
        i.cfg_data = match i.cfg_addr {
                0 | 1 => random_gain(&mut self.rng) | high(&mut self.rng, 9),
                2 => {
                    let v = match self.rng.upto(5) {
                        0 => 0,
                        1 => 7,
                        _ => self.rng.range(2, 4),
                    };
                    v | high(&mut self.rng, 3)
                }
                3 => match self.rng.upto(6) {
                    0 => 0,
                    1 => 1,
                    2 => PKT_MAX,
                    3 => self.rng.range(2, 300),
                    _ => self.rng.range(1, 30),
                },
                4 => match self.rng.upto(7) {
                    0 => 0,
                    1 => 1,
                    2 | 3 => PKT_MAX,
                    4 => self.rng.range(2, 100),
                    5 => {
                        // Just below a hot flow's window; half the time
                        // 2^15 above that (a window below 2^15 meets a
                        // ceiling whose bit 15 alone keeps it from
                        // clamping: with only PKT_MAX there, a pipeline
                        // copy of cw_max that lost bit 15 survived 5e5
                        // cycles, CCRTL_TEST_SEED=29938600).
                        let f = self.hot[self.rng.upto(3) as usize];
                        let c = (g.flow(f).cw(g.regs()) >> 24) as u32;
                        let below = c.saturating_sub(self.rng.upto(3));
                        if below < 1 << 15 && self.rng.chance(128) {
                            below | 1 << 15
                        } else {
                            below
                        }
                    }
                    _ => self.rng.range(1, 5000),
                },
                _ => self.rng.next_u32() & 0xffff,
            };
    }
}

/// Length of a phase with `iw >= 2^15`: a hot flow (one event in eight or
/// so) gets its 129 ACKs of 255 packets in about 2,000 cycles.
const BIG_IW_CYCLES: u32 = 8_000;

impl LdcpTxStimulus {
    /// Of the hot flows and eight random ones, the stable flow of at least
    /// one packet with the smallest window, and its window.
    fn near_floor(&mut self, g: &LdcpTx) -> Option<(u32, u64)> {
        let any: Vec<u32> = (0..8).map(|_| self.random_flow()).collect();
        self.hot
            .iter()
            .chain(&any)
            .filter_map(|&f| match g.flow(f) {
                FlowState::Stable { cw } if cw >= CW_ONE => Some((f, cw)),
                _ => None,
            })
            .min_by_key(|&(_, cw)| cw)
    }
}

impl Stimulus<LdcpTxBlock> for LdcpTxStimulus {
    fn new(config: &LdcpTxConfig, seed: u64) -> LdcpTxStimulus {
        let mut rng = Rng::new(seed);
        let flows = config.shape.flows();
        let flow_mask = flows - 1;
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = LdcpTxStimulus {
            rng,
            flows,
            flow_mask,
            hot,
            ece_16: vec![0; flows as usize],
            rtt: vec![0; flows as usize],
            reset_in: 0,
            reset_left: 0,
            resets: 0,
            cfg_in: 200,
            writes_left: 0,
            load_64: 48,
            after_reset: false,
            last_write: None,
            visit: false,
            revisit: Vec::new(),
            gamma_before: 0,
            big_iw: 0,
            probe: None,
        };
        for f in 0..flows as usize {
            s.ece_16[f] = s.rng.pick(&[0, 0, 1, 2, 4, 8, 16]);
            s.rtt[f] = s.rng.next_u32() & 0xff_ffff;
        }
        s.reset_left = 2 + s.rng.upto(2);
        s.reset_in = flows as u64 + 5_000 + s.rng.next_u64() % (2 * flows as u64 + 40_000);
        s
    }

    fn next_into(&mut self, g: &LdcpTx, i: &mut LdcpTxIn) {
        // A phase with a 16-bit `iw` starts (not in a reset), and holds the
        // next reset off while it lasts.
        let big_iw_starts = self.big_iw == 0 && self.reset_left == 0 && self.rng.upto(65535) == 0;
        if big_iw_starts {
            self.big_iw = BIG_IW_CYCLES;
        }
        let big_iw = self.big_iw > 0;
        if big_iw {
            self.big_iw -= 1;
            self.reset_in = self.reset_in.max(30);
        }
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
            if self.reset_left == 0 && self.reset_in == 0 {
                self.reset_in = self.reset_gap();
            }
        }
        // Register writes (random payload when none).
        i.cfg_addr = self.rng.upto(7);
        i.cfg_data = self.rng.next_u32() & 0xffff;
        if i.rst {
            self.probe = None;
        }
        if big_iw_starts {
            i.cfg_valid = true;
            i.cfg_addr = 3;
            i.cfg_data = self.rng.range(1 << 15, PKT_MAX);
        } else if let (Some((f, 0)), false) = (self.probe, i.rst) {
            self.probe = Some((f, 1));
            i.cfg_valid = true;
            i.cfg_addr = self.rng.range(3, 4);
            i.cfg_data = if i.cfg_addr == 3 {
                self.rng.range(1, 300)
            } else {
                self.rng.range(1, 5000)
            };
        } else if big_iw {
            // No writes while the phase lasts (a write of `iw` would end it).
        } else if self.writes_left > 0 {
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
        if i.rst {
            self.visit = true;
            self.revisit.clear();
        } else if self.visit && g.ready() {
            self.visit = false;
            let last = self.flow_mask;
            // Popped from the end.
            self.revisit = vec![
                (last, EvKind::Ack),
                (0, EvKind::Ack),
                (last, EvKind::Loss),
                (0, EvKind::Loss),
            ];
        }
        if i.rst && (self.resets % 3 == 0 || self.rng.chance(96)) {
            self.write(g, i);
        }
        // Writes in the cycles before a reset (the reset must drop them).
        if self.reset_left == 0 && self.reset_in <= 24 && self.rng.chance(64) {
            self.write(g, i);
        }
        if self.rng.upto(8191) == 0 {
            self.load_64 = self.rng.pick(&[8, 32, 48, 60, 64]);
        }
        // The event (random payload when none; always one in the cycle
        // after a reset, refused).
        if i.cfg_valid && !i.rst && i.cfg_addr & 7 == 2 {
            self.gamma_before = g.regs().gamma();
        }
        let after_reset = std::mem::replace(&mut self.after_reset, i.rst);
        let last_write = std::mem::replace(
            &mut self.last_write,
            (i.cfg_valid && !i.rst).then_some(i.cfg_addr & 7),
        );
        i.ev_flow = self.random_flow();
        i.ev_kind = self.rng.upto(3);
        i.ev_n = self.rng.upto(255);
        i.ev_ece = self.rng.chance(128);
        i.ev_last = self.rng.chance(128);
        i.ev_rtt = self.rng.next_u32() & 0xff_ffff;
        if !i.rst && g.ready() {
            if let Some((f, kind)) = self.revisit.pop() {
                i.ev_valid = true;
                i.ev_flow = f;
                i.ev_kind = kind as u32;
                i.ev_n = 1;
                i.ev_ece = false;
                return;
            }
        }
        // (Step 1 is the write's cycle: the ACK comes in the next.)
        if let Some((f, 1)) = self.probe {
            self.probe = Some((f, 2));
        } else if let Some((f, 2)) = self.probe {
            self.probe = None;
            if !i.rst && g.ready() && matches!(g.flow(f), FlowState::Stable { cw } if cw >= CW_ONE) {
                i.ev_valid = true;
                i.ev_flow = f;
                i.ev_kind = EvKind::Ack as u32;
                i.ev_n = self.rng.range(1, 255);
                i.ev_ece = false;
                return;
            }
        }
        if last_write == Some(2) && !i.rst && g.ready() {
            if let Some((f, cw)) = self.near_floor(g) {
                // The smallest `n` taking `cw - n beta` below the higher of
                // the two floors: it lands between them when `beta` is no
                // wider than their gap (or by chance).
                let p = *g.regs();
                let hi = p.gamma().max(self.gamma_before);
                let step = decrease(p.beta & 511);
                i.ev_valid = true;
                i.ev_flow = f;
                i.ev_kind = EvKind::Ack as u32;
                i.ev_ece = true;
                i.ev_n = match step {
                    0 => self.rng.range(1, 255),
                    _ => ((cw.saturating_sub(hi) / step + 1).min(255)) as u32,
                };
                return;
            }
        }
        let follow = if matches!(last_write, Some(3 | 4)) && !i.rst {
            let any: Vec<u32> = (0..8).map(|_| self.random_flow()).collect();
            self.hot
                .iter()
                .chain(&any)
                .copied()
                .find(|&f| !g.flow(f).stable())
        } else {
            None
        };
        if follow.is_none() && self.rng.upto(63) >= self.load_64 && !after_reset {
            return;
        }
        i.ev_valid = true;
        let f = match self.rng.upto(15) {
            _ if follow.is_some() => follow.unwrap_or(0),
            0..=7 => self.hot[self.rng.upto(3) as usize],
            // The flow of one of the last twelve events.
            8..=11 => {
                let d = self.rng.range(1, SINCE as u32) as usize;
                let any = self.random_flow();
                let hit = self
                    .hot
                    .iter()
                    .copied()
                    .chain(std::iter::once(any))
                    .find(|&f| g.since_event(f) == Some(d));
                hit.unwrap_or(self.hot[self.rng.upto(3) as usize])
            }
            _ => self.random_flow(),
        };
        i.ev_flow = f;
        let fi = f as usize;
        if self.rng.upto(2047) == 0 {
            self.ece_16[fi] = self.rng.pick(&[0, 0, 1, 2, 4, 8, 12, 16]);
        }
        if self.rng.upto(1023) == 0 {
            self.rtt[fi] = match self.rng.upto(3) {
                0 => 0xff_ffff,
                1 => self.rng.upto(5000),
                _ => self.rng.next_u32() & 0xff_ffff,
            };
        }
        i.ev_rtt = self.rtt[fi];
        let p = *g.regs();
        let n = match self.rng.upto(19) {
            0 => 0,
            1 => 255,
            2..=4 => self.rng.range(2, 15),
            5 => self.rng.upto(255),
            _ => 1,
        };
        i.ev_n = n;
        i.ev_ece = self.rng.upto(15) < self.ece_16[fi] as u32;
        let x = self.rng.upto(255);
        if big_iw {
            match g.flow(f) {
                FlowState::FastStart { acked, .. } => {
                    i.ev_kind = if x < 77 { EvKind::Send } else { EvKind::Ack } as u32;
                    i.ev_n = 255;
                    if acked < p.iw && p.iw - acked <= 255 && self.rng.chance(2) {
                        i.ev_n = p.iw - acked;
                    }
                    // Now and then a loss once 2^15 packets are acknowledged:
                    // the window it gives, acked packets, has its bit 15 set.
                    if acked >= 1 << 15 && self.rng.chance(16) {
                        i.ev_kind = EvKind::Loss as u32;
                    }
                    return;
                }
                FlowState::Stable { .. } if self.hot.contains(&f) && self.rng.chance(4) => {
                    i.ev_kind = EvKind::Start as u32;
                    return;
                }
                FlowState::Stable { .. } => {}
            }
        }
        match g.flow(f) {
            FlowState::FastStart { acked, .. } => {
                i.ev_kind = match x {
                    0..=3 => EvKind::Loss,
                    4 => EvKind::Start,
                    5..=120 => EvKind::Send,
                    _ => EvKind::Ack,
                } as u32;
                if i.ev_kind == EvKind::Send as u32 {
                    i.ev_last = self.rng.chance(16);
                }
                // Often exactly the rest of the initial window.
                if i.ev_kind == EvKind::Ack as u32 && self.rng.chance(48) && acked < p.iw {
                    i.ev_n = (p.iw - acked).min(255);
                }
                if follow.is_some() {
                    i.ev_kind = EvKind::Send as u32;
                    if acked < p.iw && p.iw - acked <= 255 && self.rng.chance(160) {
                        i.ev_kind = EvKind::Ack as u32;
                        i.ev_n = p.iw - acked;
                    }
                }
                let ends = i.ev_kind == EvKind::Ack as u32
                    && i.ev_n & 0xff > 0
                    && acked + (i.ev_n & 0xff) >= p.iw;
                if ends && self.probe.is_none() && !i.rst && self.rng.chance(4) {
                    self.probe = Some((f, 0));
                }
            }
            FlowState::Stable { .. } => {
                i.ev_kind = match x {
                    0 => EvKind::Start,
                    1..=3 => EvKind::Loss,
                    4..=40 => EvKind::Send,
                    _ => EvKind::Ack,
                } as u32;
            }
        }
    }
}

// ---- the params file ---------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
struct LdcpTxFile {
    ldcp_tx: Option<LdcpTxTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LdcpTxTable {
    flow_bits: Option<u32>,
    reset: Option<LdcpTxReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LdcpTxReset {
    alpha: Option<u32>,
    beta: Option<u32>,
    gamma_shift: Option<u32>,
    iw: Option<u32>,
    cw_max: Option<u32>,
}

/// Parses and validates the `[ldcp_tx]` table of params text; `path`
/// names it.
pub fn parse_config(text: &str, path: &str) -> Result<LdcpTxConfig, ParamsError> {
    let file: LdcpTxFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.ldcp_tx.unwrap_or_default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = LdcpTxShape {
        flow_bits: t.flow_bits.unwrap_or(LdcpTxShape::default().flow_bits),
    };
    shape.validate().map_err(perr)?;
    let r = t.reset.unwrap_or_default();
    let d = LdcpTxParams::default();
    let config = LdcpTxConfig {
        shape,
        reset: LdcpTxParams {
            alpha: r.alpha.unwrap_or(d.alpha),
            beta: r.beta.unwrap_or(d.beta),
            gamma_shift: r.gamma_shift.unwrap_or(d.gamma_shift),
            iw: r.iw.unwrap_or(d.iw),
            cw_max: r.cw_max.unwrap_or(d.cw_max),
        },
    };
    config.validate().map_err(perr)?;
    Ok(config)
}
