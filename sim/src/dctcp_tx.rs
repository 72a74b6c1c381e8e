//! DCTCP_TX in the generic machinery: ports, value encoding, random
//! stimulus and the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's flow states
//! (`SND.UNA`, `WindowEnd`, `cwnd`, the cut flag) and the flows of the last
//! ACKs, and plays a transport per flow: `SND.NXT` moves ahead by sends of
//! random size (now and then by up to 2^30 bytes at once), and most ACKs
//! acknowledge part or all of what is in flight, so windows end, flows cut
//! and grow. The rest aim at the rule's edges: duplicates, old ACKs, ACKs
//! beyond `SND.NXT`, exactly `2^31` and `2^31 - 1` ahead, exactly at and one
//! past `WindowEnd`, and sequence numbers that wrap around `2^32` (flows
//! start near `2^32`). A flow's first ACK comes with any `SND.NXT`, before
//! its `SEG.ACK` too. ECE moods (no marks, all, a share) change per flow.
//! Traffic comes from a hot set of four flows (the first and the last
//! flow among them), from the flow of one of the last twelve ACKs (every
//! forwarding distance of the three loops, and every lag of the cut's
//! operand), and from random flows. Register writes come now and then, in
//! runs too, to any address (5 to 7 are ignored) with extreme values often:
//! `gshift` 0 and 15, `mss` 0, `cwnd_max` below `cwnd_min`, a small
//! `cwnd_max` or a large `cwnd_min` (clamps), `init_cwnd` out of bounds.
//! A write is followed in the next cycle (the first whose ACK sees it) by
//! an ACK that depends on it: a flow's first ACK after a write of
//! `init_cwnd`, `cwnd_min` or `cwnd_max` (such writes come more often
//! after a reset, while most flows are not seen yet), an ACK of all in
//! flight after a write of `gshift`, of a flow in slow start or (with a
//! step) in byte counting after a write of `mss`. Slow start ends at a
//! flow's first cut, so few flows are in it at a random write: the ACK in
//! the cycle of a write of `mss` is a flow's first ACK, and the next ACK
//! that flow's slow-start step. Every other reset writes `mss` once the
//! clearing and its visits are over, then `mss = 0` (the other resets keep
//! its reset value in force); the other resets write `gshift = 0`, in
//! force until the next random write of it. Every fourth reset sets
//! windows of `2^23` bytes and more (`cwnd_max` at its ceiling,
//! `init_cwnd` above `2^23`), so slow start runs against `ssthresh`'s top
//! bit.
//! Resets as DCTCP_RX's stimulus: mid-traffic, during the clearing, held,
//! with ACKs and writes in the reset cycles.
//!
//! Payloads whose valid is low (and `SND.NXT` of an ACK that is ignored)
//! are random, not 0.

use ccrtl_golden::dctcp_tx::{
    after, DctcpTx, DctcpTxConfig, DctcpTxIn, DctcpTxOut, DctcpTxParams, DctcpTxShape, FlowState,
    CUT_LAG, CWND_MAX, SUPPORTED_FLOW_BITS,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Front, FrontPoints, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct DctcpTxBlock;

impl Block for DctcpTxBlock {
    const NAME: &'static str = "dctcp_tx";
    type Config = DctcpTxConfig;
    type In = DctcpTxIn;
    type Out = DctcpTxOut;
    type Golden = DctcpTx;
    type Stimulus = DctcpTxStimulus;

    fn ports(c: &DctcpTxConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::dctcp_tx::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &DctcpTxIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.ack_valid as u128;
        v[2] = i.ack_flow as u128;
        v[3] = i.ack_seq as u128;
        v[4] = i.ack_ece as u128;
        v[5] = i.ack_snd_nxt as u128;
        v[6] = i.cfg_valid as u128;
        v[7] = i.cfg_addr as u128;
        v[8] = i.cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> DctcpTxIn {
        // Values were checked against the port widths by the caller.
        DctcpTxIn {
            rst: v[0] != 0,
            ack_valid: v[1] != 0,
            ack_flow: v[2] as u32,
            ack_seq: v[3] as u32,
            ack_ece: v[4] != 0,
            ack_snd_nxt: v[5] as u32,
            cfg_valid: v[6] != 0,
            cfg_addr: v[7] as u32,
            cfg_data: v[8] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &DctcpTxOut, v: &mut [u128]) {
        v[0] = o.ack_ready as u128;
        v[1] = o.cc_valid as u128;
        v[2] = o.cc_flow as u128;
        v[3] = o.cc_cwnd as u128;
        v[4] = o.cc_alpha as u128;
        v[5] = o.cc_cut as u128;
        v[6] = o.cc_window_ended as u128;
    }

    fn golden(c: &DctcpTxConfig) -> DctcpTx {
        DctcpTx::new(*c).expect("DCTCP_TX configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut DctcpTx, i: &DctcpTxIn) -> DctcpTxOut {
        g.step(i)
    }

    fn verilog(c: &DctcpTxConfig) -> String {
        ccrtl_hdl::dctcp_tx::verilog(c).expect("DCTCP_TX configuration must be validated before use")
    }

    fn hdl_sim(c: &DctcpTxConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<DctcpTxIn, DctcpTxOut>> {
        ccrtl_hdl::dctcp_tx::sim(c).expect("DCTCP_TX configuration must be validated before use")
    }

    fn default_config() -> DctcpTxConfig {
        DctcpTxConfig::default()
    }

    /// 16 flows (a 16-cycle clearing; the generic netlist of 256 flows,
    /// its tables flattened to flip-flops, took 5 to 10 minutes to build
    /// and simulate), small windows (mss 1000, init 10,000, floor 2,000,
    /// ceiling 100,000): flows meet the clamps soon.
    const SHORT_PARAMS: &'static str = "[dctcp_tx]\nflow_bits = 4\n[dctcp_tx.reset]\n\
        gshift = 3\nmss = 1000\ninit_cwnd = 10000\ncwnd_min = 2000\ncwnd_max = 100000\n";

    fn parse_config(text: &str, path: &str) -> Result<DctcpTxConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<DctcpTxConfig> {
        SUPPORTED_FLOW_BITS
            .iter()
            .map(|&flow_bits| DctcpTxConfig {
                shape: DctcpTxShape { flow_bits },
                reset: DctcpTxParams::default(),
            })
            .collect()
    }

    fn random_reset(c: &DctcpTxConfig, r: &mut Rng) -> DctcpTxConfig {
        let cwnd_min = random_cwnd(r) >> r.upto(6);
        let cwnd_max = cwnd_min.max(random_cwnd(r));
        DctcpTxConfig {
            shape: c.shape,
            reset: DctcpTxParams {
                gshift: random_gshift(r),
                mss: r.range(1, 0xffff),
                init_cwnd: r.range(cwnd_min, cwnd_max),
                cwnd_min,
                cwnd_max,
            },
        }
    }

    fn describe(c: &DctcpTxConfig) -> String {
        let r = &c.reset;
        format!(
            "flow_bits={} reset: gshift={} mss={} init_cwnd={} cwnd_min={} cwnd_max={}",
            c.shape.flow_bits, r.gshift, r.mss, r.init_cwnd, r.cwnd_min, r.cwnd_max
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &DctcpTx, prev: &DctcpTxIn, i: &DctcpTxIn, cov: &mut Coverage) {
        cover(g, prev, i, cov)
    }
}

/// The corner-case points the cycle about to run hits.
fn cover(g: &DctcpTx, prev: &DctcpTxIn, i: &DctcpTxIn, cov: &mut Coverage) {
    let front = |x: &DctcpTxIn| Front {
        rst: x.rst,
        event: x.ack_valid,
        cfg: x.cfg_valid,
        cfg_unused: x.cfg_addr & 7 >= 5,
    };
    if !FRONT.cover(cov, g.ready(), front(prev), front(i)) {
        return;
    }
    if let Some(d) = g.since_event(i.ack_flow) {
        if d <= SINCE {
            cov.hit(SINCE_1 + d - 1);
        }
    }
    let p = *g.regs();
    let wrote = (prev.cfg_valid && !prev.rst).then_some(prev.cfg_addr & 7);
    let Some(st) = g.flow(i.ack_flow) else {
        cov.hit(FIRST);
        if matches!(wrote, Some(2..=4)) {
            cov.hit(FIRST_AFTER_WINDOW_WRITE);
        }
        if after(i.ack_seq, i.ack_snd_nxt) {
            cov.hit(FIRST_PAST_NXT);
        }
        return;
    };
    let (a, una) = (i.ack_seq, st.snd_una);
    let d = a.wrapping_sub(una);
    if d == 0 {
        cov.hit(DUPLICATE);
    } else if d == 1 << 31 {
        cov.hit(HALF_AHEAD);
    } else if d > 1 << 31 {
        cov.hit(OLD);
    } else if after(a, i.ack_snd_nxt) {
        cov.hit(PAST_NXT);
    }
    let base = g.cut_base(i.ack_flow).unwrap_or(st.cwnd);
    let mut after_ack = st;
    let r = after_ack.ack(&p, a, i.ack_ece, i.ack_snd_nxt, base);
    if !r.acceptable {
        return;
    }
    if d == (1 << 31) - 1 {
        cov.hit(HALF_AHEAD_LESS_1);
    }
    if a < una {
        cov.hit(WRAP);
    }
    if a == st.window_end {
        cov.hit(AT_WINDOW_END);
    }
    if r.window_ended {
        cov.hit(WINDOW_END);
        let marked = st.marked.saturating_add(if i.ack_ece { d } else { 0 });
        if !i.ack_ece && st.marked >= 1 << 31 {
            cov.hit(WINDOW_MARKED_2_31);
        }
        if marked == 0 {
            cov.hit(WINDOW_NONE_MARKED);
        } else if marked == st.acked.saturating_add(d) {
            cov.hit(WINDOW_ALL_MARKED);
        }
        // M = marked 2^10 / acked exact, its lowest 1 at bit 2, 1 or 0:
        // the divider's last three tests meet 2 rem = acked.
        let acked = u64::from(st.acked.saturating_add(d));
        let num = u64::from(marked) << 10;
        if marked > 0 && num % acked == 0 {
            match (num / acked).trailing_zeros() {
                2 => cov.hit(WINDOW_EXACT_BIT_2),
                1 => cov.hit(WINDOW_EXACT_BIT_1),
                0 => cov.hit(WINDOW_EXACT_BIT_0),
                _ => {}
            }
        }
        if p.gshift == 0 {
            cov.hit(GSHIFT_0);
        } else if p.gshift >= 10 {
            cov.hit(GSHIFT_LARGE);
        }
    }
    if r.cut {
        cov.hit(CUT);
        if r.window_ended && st.cut_done {
            cov.hit(CUT_AGAIN_AT_WINDOW_END);
        }
        if base != st.cwnd {
            cov.hit(CUT_BASE_LAGS);
        }
        if g.since_event(i.ack_flow).is_some_and(|s| s < CUT_LAG as usize)
            && base == p.clamp(p.init_cwnd)
            && base != st.cwnd
        {
            cov.hit(CUT_BASE_INIT);
        }
        if after_ack.cwnd == p.cwnd_min && p.cwnd_min <= p.cwnd_max {
            cov.hit(CLAMP_MIN);
        }
        if st.cwnd > p.cwnd_max && p.cwnd_min <= p.cwnd_max {
            cov.hit(CUT_ABOVE_MAX);
        }
    } else if i.ack_ece && st.cut_done && !r.window_ended {
        cov.hit(ECE_ALREADY_CUT);
    }
    if !after_ack.cut_done {
        let b = d;
        if st.cwnd < st.ssthresh {
            cov.hit(SLOW_START);
            if b >= 2 * p.mss {
                cov.hit(SLOW_START_2MSS);
                if wrote == Some(1) {
                    cov.hit(SLOW_START_2MSS_AFTER_MSS_WRITE);
                }
            }
            if st.cwnd >= 1 << 23 {
                cov.hit(SLOW_START_ABOVE_2_23);
            }
        } else if after_ack.ca_acc < st.ca_acc.saturating_add(b.min(CWND_MAX)).min(CWND_MAX) {
            cov.hit(CA_STEP);
            if after_ack.ca_acc == 0 && st.ca_acc.saturating_add(b) == st.cwnd {
                cov.hit(CA_STEP_EXACT);
            }
            if st.ca_acc + b.min(CWND_MAX) > CWND_MAX {
                cov.hit(CA_SATURATED);
            }
        } else {
            cov.hit(CA_NO_STEP);
            if Some(st.ca_acc.saturating_add(b)) == st.cwnd.checked_sub(1) {
                cov.hit(CA_SHORT_BY_1);
            }
        }
    } else if !r.cut {
        cov.hit(NO_INCREASE_AFTER_CUT);
    }
    if after_ack.cwnd == p.cwnd_max && st.cwnd != p.cwnd_max {
        cov.hit(CLAMP_MAX);
    }
    if p.cwnd_min > p.cwnd_max {
        cov.hit(MIN_ABOVE_MAX);
    }
    if p.mss == 0 {
        cov.hit(MSS_0);
    }
}

/// Cycles-since points: 1 to 12 (T1's forwarding is 8 deep, the cwnd
/// table's 11).
const SINCE: usize = 12;

const COVER: &[&str] = &[
    "first ACK of a flow",
    "first ACK of a flow with SEG.ACK after its SND.NXT",
    "duplicate ACK (SEG.ACK = SND.UNA)",
    "old ACK (before SND.UNA)",
    "ACK beyond SND.NXT",
    "ACK exactly 2^31 after SND.UNA (not acceptable)",
    "acceptable ACK 2^31 - 1 after SND.UNA",
    "acceptable ACK wrapping around 2^32",
    "acceptable ACK exactly at WindowEnd (the window goes on)",
    "window end",
    "window end with nothing marked",
    "window end with every byte marked",
    "window end with gshift = 0",
    "window end with gshift >= 10",
    "cut",
    "cut by the ACK that ends the window, after a cut in it",
    "ECE ACK with the window's cut done (no cut)",
    "cut whose operand lags (the flow's ACK 1 to 3 cycles before)",
    "cut whose operand is clamp(init_cwnd) (the flow's first ACK 1 to 3 cycles before)",
    "slow-start increase",
    "slow-start increase of 2 mss",
    "byte-counting step (cwnd + mss)",
    "byte-counting step with the accumulator saturated",
    "byte counting without a step",
    "no increase after a cut in the window",
    "cwnd clamped to cwnd_max",
    "cut clamped to cwnd_min",
    "cut of a cwnd above cwnd_max (lowered since the flow's last ACK)",
    "acceptable ACK with cwnd_min > cwnd_max",
    "acceptable ACK with mss = 0",
    "ACK 1 cycle after its flow's last ACK",
    "ACK 2 cycles after its flow's last ACK",
    "ACK 3 cycles after its flow's last ACK",
    "ACK 4 cycles after its flow's last ACK",
    "ACK 5 cycles after its flow's last ACK",
    "ACK 6 cycles after its flow's last ACK",
    "ACK 7 cycles after its flow's last ACK",
    "ACK 8 cycles after its flow's last ACK",
    "ACK 9 cycles after its flow's last ACK",
    "ACK 10 cycles after its flow's last ACK",
    "ACK 11 cycles after its flow's last ACK",
    "ACK 12 cycles after its flow's last ACK",
    "ACK refused while the table is cleared",
    "ACK in the cycle after a reset (refused)",
    "reset mid-traffic",
    "reset during the clearing",
    "reset held for several cycles",
    "ACK in a reset cycle",
    "register write in a reset cycle",
    "register writes in consecutive cycles",
    "register write with an ACK in the same cycle",
    "register write to an unused address (5 to 7)",
    "first ACK of a flow in the cycle after a write of init_cwnd, cwnd_min or cwnd_max",
    "slow-start increase of 2 mss in the cycle after a write of mss",
    "slow-start increase of a cwnd of 2^23 bytes or more",
    "window end with marked / acked = odd / 2^8 (M exact, its lowest 1 at bit 2)",
    "window end with marked / acked = odd / 2^9 (M exact, its lowest 1 at bit 1)",
    "window end with marked / acked = odd / 2^10 (M exact, its lowest 1 at bit 0)",
    "byte-counting step with ca + b = cwnd exactly (remainder 0)",
    "byte counting without a step, ca + b = cwnd - 1",
    "window end by an unmarked ACK with 2^31 bytes or more marked",
];
const FIRST: usize = 0;
const FIRST_PAST_NXT: usize = 1;
const DUPLICATE: usize = 2;
const OLD: usize = 3;
const PAST_NXT: usize = 4;
const HALF_AHEAD: usize = 5;
const HALF_AHEAD_LESS_1: usize = 6;
const WRAP: usize = 7;
const AT_WINDOW_END: usize = 8;
const WINDOW_END: usize = 9;
const WINDOW_NONE_MARKED: usize = 10;
const WINDOW_ALL_MARKED: usize = 11;
const GSHIFT_0: usize = 12;
const GSHIFT_LARGE: usize = 13;
const CUT: usize = 14;
const CUT_AGAIN_AT_WINDOW_END: usize = 15;
const ECE_ALREADY_CUT: usize = 16;
const CUT_BASE_LAGS: usize = 17;
const CUT_BASE_INIT: usize = 18;
const SLOW_START: usize = 19;
const SLOW_START_2MSS: usize = 20;
const CA_STEP: usize = 21;
const CA_SATURATED: usize = 22;
const CA_NO_STEP: usize = 23;
const NO_INCREASE_AFTER_CUT: usize = 24;
const CLAMP_MAX: usize = 25;
const CLAMP_MIN: usize = 26;
const CUT_ABOVE_MAX: usize = 27;
const MIN_ABOVE_MAX: usize = 28;
const MSS_0: usize = 29;
const SINCE_1: usize = 30;
const REFUSED_WHILE_CLEARING: usize = 42;
const RIGHT_AFTER_RESET: usize = 43;
const RESET_MID_RUN: usize = 44;
const RESET_WHILE_CLEARING: usize = 45;
const RESET_HELD: usize = 46;
const ACK_IN_RESET: usize = 47;
const CFG_IN_RESET: usize = 48;
const CFG_BACK_TO_BACK: usize = 49;
const CFG_WITH_ACK: usize = 50;
const CFG_IGNORED: usize = 51;
const FIRST_AFTER_WINDOW_WRITE: usize = 52;
const SLOW_START_2MSS_AFTER_MSS_WRITE: usize = 53;
const SLOW_START_ABOVE_2_23: usize = 54;
const WINDOW_EXACT_BIT_2: usize = 55;
const WINDOW_EXACT_BIT_1: usize = 56;
const WINDOW_EXACT_BIT_0: usize = 57;
const CA_STEP_EXACT: usize = 58;
const CA_SHORT_BY_1: usize = 59;
const WINDOW_MARKED_2_31: usize = 60;

/// The front-end points ([`FrontPoints`]).
const FRONT: FrontPoints = FrontPoints {
    reset_mid_run: RESET_MID_RUN,
    reset_while_clearing: RESET_WHILE_CLEARING,
    reset_held: RESET_HELD,
    event_in_reset: ACK_IN_RESET,
    cfg_in_reset: CFG_IN_RESET,
    cfg_back_to_back: CFG_BACK_TO_BACK,
    cfg_with_event: CFG_WITH_ACK,
    cfg_ignored: Some(CFG_IGNORED),
    refused_while_clearing: REFUSED_WHILE_CLEARING,
    right_after_reset: RIGHT_AFTER_RESET,
};

/// A random `gshift`, the ends often.
fn random_gshift(r: &mut Rng) -> u32 {
    match r.upto(5) {
        0 => 0,
        1 => 15,
        2 => 4,
        _ => r.upto(15),
    }
}

/// A random window size in bytes: small, medium or up to 2^24 - 1.
fn random_cwnd(r: &mut Rng) -> u32 {
    match r.upto(5) {
        0 => r.upto(20_000),
        1 => CWND_MAX,
        2 => r.range(1_000, 1_000_000),
        _ => r.upto(CWND_MAX),
    }
}

/// Random valid DCTCP_TX stimulus (see the module comment).
pub struct DctcpTxStimulus {
    rng: Rng,
    flows: u32,
    flow_mask: u32,
    hot: [u32; 4],
    /// Per flow: the transport's `SND.NXT` and its ECE share (of 8).
    nxt: Vec<u32>,
    ece_8: Vec<u8>,
    reset_in: u64,
    reset_left: u32,
    resets: u64,
    cfg_in: u32,
    writes_left: u32,
    /// Share of cycles with an ACK, in 64ths.
    load_64: u32,
    /// Flows to visit next (popped from the end), and whether that ACK
    /// is an ECE ACK that cuts.
    revisit: Vec<(u32, bool)>,
    since_reset: u64,
    after_reset: bool,
    /// The register the last cycle wrote (outside reset): the ACK of
    /// this cycle is the first to see the new value, so it comes, and it
    /// depends on that register (a first ACK after a write of init_cwnd,
    /// cwnd_min or cwnd_max; a slow-start step after a write of mss; a
    /// window end after a write of gshift).
    last_write: Option<u32>,
    /// Writes to do next, one per cycle: `(address, data)`.
    queued: Vec<(u32, u32)>,
    /// A flow whose first ACK came in the cycle of a write of mss: in
    /// slow start for the next ACK, the first to see the new mss.
    ss_next: Option<u32>,
    /// The write of mss after the clearing is still to come.
    mss_fresh: bool,
    /// A flow whose first ACK, this cycle, came after its SND.NXT: its
    /// next ACK, in the next cycle, is 2^31 - 1 ahead.
    far_next: Option<u32>,
    /// A window of 2^31 marked bytes under way: its flow, its first
    /// SEG.ACK `a0` and the step of it next (1 to 4).
    long: Option<(u32, u32, u8)>,
}

impl DctcpTxStimulus {
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
    fn write(&mut self, g: &DctcpTx, i: &mut DctcpTxIn) {
        let addr = if self.rng.chance(16) {
            self.rng.range(5, 7)
        } else {
            self.rng.upto(4)
        };
        self.write_at(g, i, addr);
    }

    /// A register write to `addr`.
    fn write_at(&mut self, g: &DctcpTx, i: &mut DctcpTxIn, addr: u32) {
        i.cfg_valid = true;
        i.cfg_addr = addr;
        let p = g.regs();
        i.cfg_data = match i.cfg_addr & 7 {
            0 => random_gshift(&mut self.rng) | (self.rng.upto(0xf_ffff) << 4),
            1 => match self.rng.upto(5) {
                0 => 0,
                1 => 0xffff,
                2 => 1460,
                _ => self.rng.upto(9000),
            },
            2 => random_cwnd(&mut self.rng),
            // cwnd_min: small mostly; now and then above cwnd_max.
            3 => match self.rng.upto(4) {
                0 => p.cwnd_max.saturating_add(self.rng.upto(10_000)).min(CWND_MAX),
                1 => 0,
                _ => self.rng.upto(30_000),
            },
            // cwnd_max: now and then just below a hot flow's cwnd, so that
            // its next ACKs meet a cwnd above the ceiling (a cut among them).
            4 => match self.rng.upto(5) {
                0 => CWND_MAX,
                1 => p.cwnd_min.saturating_sub(self.rng.upto(5_000)),
                2 => self.rng.range(5_000, 60_000),
                3 => {
                    let f = self.hot[self.rng.upto(3) as usize];
                    let c = g.flow(f).map_or(20_000, |st| st.cwnd);
                    c.saturating_sub(1 + self.rng.upto(c / 3))
                }
                _ => random_cwnd(&mut self.rng),
            },
            _ => self.rng.next_u32() & 0xff_ffff,
        };
    }
}

impl Stimulus<DctcpTxBlock> for DctcpTxStimulus {
    fn new(config: &DctcpTxConfig, seed: u64) -> DctcpTxStimulus {
        let mut rng = Rng::new(seed);
        let flows = config.shape.flows();
        let flow_mask = flows - 1;
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = DctcpTxStimulus {
            rng,
            flows,
            flow_mask,
            hot,
            nxt: vec![0; flows as usize],
            ece_8: vec![0; flows as usize],
            reset_in: 0,
            reset_left: 0,
            resets: 0,
            cfg_in: 200,
            writes_left: 0,
            load_64: 48,
            revisit: Vec::new(),
            since_reset: 0,
            after_reset: false,
            last_write: None,
            queued: Vec::new(),
            ss_next: None,
            far_next: None,
            long: None,
            mss_fresh: false,
        };
        for f in 0..flows as usize {
            s.ece_8[f] = s.rng.upto(8) as u8;
        }
        s.reset_left = 2 + s.rng.upto(2);
        s.reset_in = flows as u64 + 5_000 + s.rng.next_u64() % (2 * flows as u64 + 40_000);
        s
    }

    fn next_into(&mut self, g: &DctcpTx, i: &mut DctcpTxIn) {
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
            self.since_reset = 0;
            self.revisit.clear();
            self.long = None;
            if self.reset_left == 0 && self.reset_in == 0 {
                self.reset_in = self.reset_gap();
            }
        }
        self.since_reset += 1;
        if self.since_reset == self.flows as u64 + 2 {
            // The first and the last flow, each twice: the second ACK, 1
            // and 3 cycles after the first, cuts (its operand is
            // clamp(init_cwnd): the flow was not seen 4 cycles before).
            self.revisit.extend([
                (0, true),
                (self.flow_mask, true),
                (self.flow_mask, false),
                (0, false),
            ]);
        }
        // Register writes (random payload when none).
        i.cfg_addr = self.rng.upto(7);
        i.cfg_data = self.rng.next_u32() & 0xff_ffff;
        // After the clearing, while most flows are not seen yet: writes of
        // the window registers (each followed by a first ACK, which uses
        // them), and every fourth reset windows of 2^23 bytes and more
        // (slow start far above 2^23 against ssthresh 2^24 - 1).
        let fresh = self.since_reset > self.flows as u64 + 2
            && self.since_reset < 4 * self.flows as u64 + 2_000;
        if fresh && self.since_reset == self.flows as u64 + 3 {
            if self.resets % 4 == 2 {
                let big = self.rng.range(1 << 23, CWND_MAX);
                self.queued.extend([(4, CWND_MAX), (2, big)]);
            }
            // Every other reset (the others keep mss's reset value).
            self.mss_fresh = self.resets % 2 == 0;
        }
        // A write of mss once the clearing and the visits after it are
        // over, while most flows are not seen yet (its cycle's ACK is a
        // first ACK, the next a slow-start step).
        if fresh && self.mss_fresh && self.queued.is_empty() && self.revisit.is_empty() && g.ready()
        {
            self.mss_fresh = false;
            self.queued.push((1, self.rng.range(1, 9_000)));
        }
        // Then mss = 0 (with 2^16 flows the clearings take most of a run's
        // cycles, and random writes of 0 seldom meet an ACK).
        if fresh && self.since_reset == self.flows as u64 + 70 && self.resets % 2 == 0 {
            self.queued.push((1, 0));
        }
        // And at the other resets gshift = 0 (g = 1), in force until the
        // next random write of gshift: with 2^16 flows random writes of 0
        // came too seldom to meet a window end (CCRTL_TEST_SEED=29936365
        // missed it).
        if fresh && self.since_reset == self.flows as u64 + 40 && self.resets % 2 == 1 {
            self.queued.push((0, 0));
        }
        if let Some((addr, data)) = self.queued.pop() {
            i.cfg_valid = true;
            i.cfg_addr = addr;
            i.cfg_data = data;
        } else if fresh && self.rng.chance(512) {
            let addr = self.rng.range(2, 4);
            self.write_at(g, i, addr);
        } else if self.writes_left > 0 {
            self.writes_left -= 1;
            self.write(g, i);
        } else {
            self.cfg_in = self.cfg_in.saturating_sub(1);
            if self.cfg_in == 0 {
                self.write(g, i);
                self.cfg_in = 20 + self.rng.upto(4_000);
                if self.rng.chance(32) {
                    self.writes_left = self.rng.range(1, 3);
                }
            }
        }
        if i.rst && (self.resets % 3 == 0 || self.rng.chance(96)) {
            self.write(g, i);
        }
        // Writes in the cycles before a reset, still on their way down the
        // pipeline when it comes (the reset must drop them).
        if self.reset_left == 0 && self.reset_in <= 24 && self.rng.chance(64) {
            self.write(g, i);
        }
        if self.rng.upto(8191) == 0 {
            self.load_64 = self.rng.pick(&[8, 32, 48, 60, 64]);
        }
        // The ACK (random payload when none; always one in the cycle
        // after a reset, refused).
        let after_reset = std::mem::replace(&mut self.after_reset, i.rst);
        i.ack_flow = self.random_flow();
        i.ack_seq = self.rng.next_u32();
        i.ack_ece = self.rng.chance(128);
        i.ack_snd_nxt = self.rng.next_u32();
        let last_write = std::mem::replace(
            &mut self.last_write,
            (i.cfg_valid && !i.rst).then_some(i.cfg_addr & 7),
        );
        let (mut revisit, force_cut) = match self.revisit.pop() {
            Some((f, c)) if !i.rst => (Some(f), c),
            _ => (None, false),
        };
        // The ACK after a first ACK past SND.NXT (its window ends at its
        // SEG.ACK, the sequence loop's forwarded test against it), one
        // cycle later and 2^31 - 1 ahead of it: the distances past
        // SND.NXT sum to 2^31 or more, so a test against SND.NXT instead
        // of SEG.ACK would differ (a survivor of the mutant run).
        let mut far = false;
        if let Some(f) = self.far_next.take() {
            if revisit.is_none() && !i.rst {
                revisit = Some(f);
                far = true;
            }
        }
        let mut long = None;
        if let Some((f, a0, k)) = self.long.take() {
            if revisit.is_none() && !i.rst {
                revisit = Some(f);
                long = Some((a0, k));
            } else {
                self.long = Some((f, a0, k));
            }
        }
        // After a write of a window register: a flow not seen yet, if one
        // of a few random ones is; after mss, a flow in slow start; after
        // gshift, a hot flow.
        let mut big_ack = false;
        // The slow-start step after a write of mss: an ACK that does not cut.
        let mut no_ece = false;
        if revisit.is_none() && !i.rst {
            match last_write {
                Some(2..=4) => {
                    revisit = (0..8)
                        .map(|_| self.random_flow())
                        .find(|&f| g.flow(f).is_none());
                }
                Some(a @ 0..=1) => {
                    // mss: a slow-start step or a byte-counting one.
                    let ss = self.ss_next.is_some() || self.rng.chance(2);
                    let any = self.random_flow();
                    let wanted = |f: u32| {
                        a == 0 || g.flow(f).is_some_and(|st| (st.cwnd < st.ssthresh) == ss)
                    };
                    revisit = self
                        .ss_next
                        .into_iter()
                        .chain(self.hot.iter().copied())
                        .chain(std::iter::once(any))
                        .find(|&f| wanted(f));
                    // Slow start ends at a flow's first cut: with few
                    // flows left in it, look among more of them.
                    if revisit.is_none() && a == 1 {
                        revisit = (0..16).map(|_| self.random_flow()).find(|&f| wanted(f));
                    }
                    big_ack = revisit.is_some();
                    no_ece = big_ack && a == 1 && ss;
                }
                _ => {}
            }
        }
        // A write of mss: a first ACK of a flow not seen yet, so that a
        // flow is in slow start for the ACK after it (slow start ends at a
        // flow's first cut, and few flows are in it for long).
        self.ss_next = None;
        if !i.rst && g.ready() && i.cfg_valid && i.cfg_addr & 7 == 1 {
            match revisit {
                // Already a first ACK (after a write of a window register).
                Some(f) if g.flow(f).is_none() => self.ss_next = Some(f),
                Some(_) => {}
                None => {
                    self.ss_next =
                        (0..8).map(|_| self.random_flow()).find(|&f| g.flow(f).is_none());
                    revisit = self.ss_next;
                }
            }
        }
        if revisit.is_none() && self.rng.upto(63) >= self.load_64 && !after_reset {
            return;
        }
        i.ack_valid = true;
        let f = match (revisit, self.rng.upto(15)) {
            (Some(f), _) => f,
            (None, 0..=7) => self.hot[self.rng.upto(3) as usize],
            // The flow of one of the last twelve ACKs.
            (None, 8..=11) => {
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
            _ => {
                let f = self.random_flow();
                if self.rng.chance(128) {
                    f & (self.flow_mask >> 4)
                } else {
                    f
                }
            }
        };
        i.ack_flow = f;
        let fi = f as usize;
        if self.rng.upto(4095) == 0 {
            self.ece_8[fi] = self.rng.pick(&[0, 0, 1, 2, 4, 8, 8]);
        }
        i.ack_ece = self.rng.upto(7) < self.ece_8[fi] as u32;
        let Some(st) = g.flow(f) else {
            // A first ACK: near 2^32 often; SND.NXT anywhere around it.
            i.ack_seq = if self.rng.chance(128) {
                0u32.wrapping_sub(self.rng.upto(200_000))
            } else {
                self.rng.next_u32()
            };
            i.ack_snd_nxt = match self.rng.upto(7) {
                0 => i.ack_seq.wrapping_sub(self.rng.upto(5_000)),
                1 => i.ack_seq,
                _ => i.ack_seq.wrapping_add(self.rng.upto(100_000)),
            };
            if self.long.is_none() && self.rng.chance(64) {
                // The start of a window of 2^31 marked bytes (SND.NXT
                // 2^31 ahead, still acceptable).
                i.ack_snd_nxt = i.ack_seq.wrapping_add(1 << 31);
                self.long = Some((f, i.ack_seq, 1));
            }
            self.nxt[fi] = i.ack_snd_nxt;
            if after(i.ack_seq, i.ack_snd_nxt) && self.rng.chance(32) {
                self.far_next = Some(f);
            }
            return;
        };
        // A window of 2^31 marked bytes: an ECE ACK 2^31 - 1 past its
        // start, one of 1 byte at its end (2^31 marked), an unmarked ACK
        // past it that ends the window (the plain marked count's bit 31
        // at the divider), then an ECE ACK in the next window that cuts
        // with the alpha it gave.
        if let Some((a0, k)) = long {
            let una = st.snd_una;
            let (a, nxt, ece) = match k {
                1 => (a0.wrapping_add((1 << 31) - 1), a0.wrapping_add(1 << 31), true),
                2 => (a0.wrapping_add(1 << 31), a0.wrapping_add(1 << 31), true),
                3 => {
                    let a = una.wrapping_add(self.rng.range(1, 5_000));
                    (a, a.wrapping_add(10_000), false)
                }
                _ => (una.wrapping_add(self.rng.range(1, 5_000)), self.nxt[fi], true),
            };
            i.ack_seq = a;
            i.ack_snd_nxt = nxt;
            i.ack_ece = ece;
            self.nxt[fi] = nxt;
            if k < 4 {
                self.long = Some((f, a0, k + 1));
            }
            return;
        }
        // The transport sends: SND.NXT moves ahead of SND.UNA.
        let una = st.snd_una;
        let mut nxt = self.nxt[fi];
        if !after(nxt, una) && nxt != una {
            nxt = una;
        }
        nxt = nxt.wrapping_add(match self.rng.upto(63) {
            0 => self.rng.upto(1 << 30),
            1..=3 => 0,
            _ => self.rng.upto(6_000),
        });
        self.nxt[fi] = nxt;
        let flight = nxt.wrapping_sub(una);
        i.ack_snd_nxt = nxt;
        i.ack_seq = match self.rng.upto(39) {
            0 => una,
            1 => una.wrapping_sub(self.rng.range(1, 100_000)),
            2 => nxt.wrapping_add(self.rng.range(1, 5_000)),
            3 => una.wrapping_add(1 << 31),
            4 => {
                // 2^31 - 1 ahead, SND.NXT there too.
                let a = una.wrapping_add((1 << 31) - 1);
                i.ack_snd_nxt = a;
                self.nxt[fi] = a;
                a
            }
            5 | 6 => st.window_end,
            7 | 8 => st.window_end.wrapping_add(1),
            9..=14 => nxt,
            // Part of what is in flight, small steps often (byte counting).
            _ => una.wrapping_add(if self.rng.chance(128) {
                1 + self.rng.upto(flight.clamp(1, 3_000) - 1)
            } else {
                1 + self.rng.upto(flight.max(1) - 1)
            }),
        };
        // All that is in flight and more sent: an increase of 2 mss, a
        // byte-counting step (at least cwnd - ca more), a window end.
        if no_ece {
            i.ack_ece = false;
        }
        if big_ack {
            let nxt = nxt.wrapping_add(st.cwnd.saturating_sub(st.ca_acc) + self.rng.upto(20_000));
            self.nxt[fi] = nxt;
            i.ack_snd_nxt = nxt;
            i.ack_seq = nxt;
        }
        // Now and then the transport's SND.NXT behind what it sent (the
        // ACK is then unacceptable, or acceptable up to it).
        if force_cut && flight > 0 {
            i.ack_seq = una.wrapping_add(1 + self.rng.upto(flight - 1));
            i.ack_ece = true;
        }
        if far {
            let a = una.wrapping_add((1 << 31) - 1);
            i.ack_seq = a;
            i.ack_snd_nxt = a;
            self.nxt[fi] = a;
            return;
        }
        // Now and then a byte-counting ACK that brings ca + b to cwnd - 1
        // or cwnd exactly: the step's test ca + b >= cwnd and its
        // remainder ca + b - cwnd are off by one there only (a reset of ca
        // to 1 instead of 0 survived a CI sample, and a +1 of the step's
        // carry as +2 the full run).
        if !big_ack
            && !force_cut
            && !st.cut_done
            && st.cwnd >= st.ssthresh
            && self.rng.chance(16)
        {
            let b = st.cwnd.saturating_sub(st.ca_acc).saturating_sub(self.rng.upto(1));
            if (1..1 << 30).contains(&b) {
                let a = una.wrapping_add(b);
                i.ack_seq = a;
                i.ack_ece = false;
                if after(a, nxt) {
                    self.nxt[fi] = a;
                }
                i.ack_snd_nxt = self.nxt[fi];
                return;
            }
        }
        // Now and then a window end whose fraction is exact: marked /
        // acked = o / 2^j, o odd, j in 1..=10. The divider's test at
        // quotient bit 10 - j then meets 2 rem = acked, which random byte
        // counts almost never give for j >= 8 (a survivor of `>=` -> `>`
        // at bit 2 failed CI).
        if !big_ack && !force_cut && st.marked > 0 && self.rng.chance(16) {
            if let Some(b) = self.exact_window_end(&st) {
                let a = una.wrapping_add(b);
                i.ack_seq = a;
                i.ack_ece = false;
                if after(a, nxt) {
                    self.nxt[fi] = a;
                }
                i.ack_snd_nxt = self.nxt[fi];
                return;
            }
        }
        if !big_ack && !force_cut && self.rng.upto(255) == 0 {
            i.ack_snd_nxt = i.ack_seq.wrapping_sub(self.rng.upto(3));
        }
    }
}

impl DctcpTxStimulus {
    /// The bytes `b` of an unmarked ACK that ends `st`'s window with
    /// `marked / (acked + b) = o / 2^j` (o odd, j in 1..=10): `acked + b =
    /// (marked / o) 2^j` with o 1 or marked's odd part; `None` when no `b`
    /// in `1..=2^30` both gives that and passes the window's end.
    fn exact_window_end(&mut self, st: &FlowState) -> Option<u32> {
        let (mk, ac) = (u64::from(st.marked), u64::from(st.acked));
        let odd = mk >> mk.trailing_zeros();
        let j0 = self.rng.range(1, 10);
        for t in 0..10 {
            let j = (j0 - 1 + t) % 10 + 1;
            for o in [odd, 1] {
                let total = (mk / o) << j;
                if total <= ac || total - ac > 1 << 30 {
                    continue;
                }
                let b = (total - ac) as u32;
                if after(st.snd_una.wrapping_add(b), st.window_end) {
                    return Some(b);
                }
            }
        }
        None
    }
}

// ---- the params file ---------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
struct DctcpTxFile {
    dctcp_tx: Option<DctcpTxTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DctcpTxTable {
    flow_bits: Option<u32>,
    reset: Option<DctcpTxReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DctcpTxReset {
    gshift: Option<u32>,
    mss: Option<u32>,
    init_cwnd: Option<u32>,
    cwnd_min: Option<u32>,
    cwnd_max: Option<u32>,
}

/// Parses and validates the `[dctcp_tx]` table of params text; `path`
/// names it.
pub fn parse_config(text: &str, path: &str) -> Result<DctcpTxConfig, ParamsError> {
    let file: DctcpTxFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.dctcp_tx.unwrap_or_default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = DctcpTxShape {
        flow_bits: t.flow_bits.unwrap_or(DctcpTxShape::default().flow_bits),
    };
    shape.validate().map_err(perr)?;
    let r = t.reset.unwrap_or_default();
    let d = DctcpTxParams::default();
    let config = DctcpTxConfig {
        shape,
        reset: DctcpTxParams {
            gshift: r.gshift.unwrap_or(d.gshift),
            mss: r.mss.unwrap_or(d.mss),
            init_cwnd: r.init_cwnd.unwrap_or(d.init_cwnd),
            cwnd_min: r.cwnd_min.unwrap_or(d.cwnd_min),
            cwnd_max: r.cwnd_max.unwrap_or(d.cwnd_max),
        },
    };
    config.validate().map_err(perr)?;
    Ok(config)
}
