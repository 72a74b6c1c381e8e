//! CP in the generic machinery: ports, value encoding, random stimulus and
//! the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's depth and
//! parameters to aim packet lengths so that an enqueue arrives with the
//! depth exactly at (or one below) `kmin`, `kmax` and `kdrop`, so that a
//! packet fills the buffer exactly or overflows it by one byte, and so that
//! a dequeue empties the queue or lands on a threshold from above. It moves
//! through phases (fill, drain, hover, burst, idle), loads a new random valid
//! parameter set every 20 to 3,000 cycles (sometimes DCTCP step marking,
//! `pmax` 0 or 1, seed 0, tiny buffers; one load in four puts the current
//! depth on the ramp with a seed whose draw lands exactly on the marking
//! boundary, and enqueues ECT in the next cycle), resets the block about
//! every 8,000 cycles with random traffic on the other inputs, and rarely
//! dequeues more than the queue holds.
//!
//! Control corners: the reset is held for one to four cycles, mid-traffic,
//! with random traffic and sometimes a parameter load on the other inputs
//! (reset wins); parameter loads come now and then in runs of two to four
//! consecutive cycles; one load in eight is out of range (values the
//! parameter checks would refuse: `kmin > kmax`, thresholds beyond
//! `buf_max`, `pmax > 1.0`), whose behaviour docs/cp.md defines.
//! Queues: the aimed traffic, the loads and most events go to a focus
//! queue, which changes with the phase, so that back-to-back events on one
//! queue are the rule; one enqueue in eight, one dequeue in four and one
//! load in eight go to a random queue, and `depth_sel` names any queue
//! (index bits above log2 Q, with one queue the whole index, are random).
//! With marking at dequeue, the aimed enqueues at `kmin`/`kmax` and at the
//! marking boundary come with an ECT dequeue from the focus queue, which
//! sees the same depth and draw.
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::cp::{
    ecn, Cp, CpConfig, CpIn, CpOut, CpParams, CpParamsPort, CpShape, MarkAt, PMAX_BITS, PMAX_ONE,
    SUPPORTED_DEPTH_BITS, SUPPORTED_LEN_BITS, SUPPORTED_QUEUES,
};

use crate::block::{Block, Coverage, Stimulus};
use ccrtl_golden::cp::reference::pmax_q16;
use serde::Deserialize;

use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct CpBlock;

impl Block for CpBlock {
    const NAME: &'static str = "cp";
    type Config = CpConfig;
    type In = CpIn;
    type Out = CpOut;
    type Golden = Cp;
    type Stimulus = CpStimulus;

    fn ports(c: &CpConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::cp::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &CpIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.enq_valid as u128;
        v[2] = i.enq_len as u128;
        v[3] = i.enq_ecn as u128;
        v[4] = i.enq_queue as u128;
        v[5] = i.deq_valid as u128;
        v[6] = i.deq_len as u128;
        v[7] = i.deq_ecn as u128;
        v[8] = i.deq_queue as u128;
        v[9] = i.cfg_valid as u128;
        v[10] = i.cfg_queue as u128;
        v[11] = i.cfg.kmin as u128;
        v[12] = i.cfg.kmax as u128;
        v[13] = i.cfg.pmax as u128;
        v[14] = i.cfg.kdrop as u128;
        v[15] = i.cfg.buf_max as u128;
        v[16] = i.cfg.seed as u128;
        v[17] = i.depth_sel as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> CpIn {
        // Values were checked against the port widths by the caller.
        CpIn {
            rst: v[0] != 0,
            enq_valid: v[1] != 0,
            enq_len: v[2] as u32,
            enq_ecn: v[3] as u8,
            enq_queue: v[4] as u8,
            deq_valid: v[5] != 0,
            deq_len: v[6] as u32,
            deq_ecn: v[7] as u8,
            deq_queue: v[8] as u8,
            cfg_valid: v[9] != 0,
            cfg_queue: v[10] as u8,
            cfg: CpParamsPort {
                kmin: v[11] as u32,
                kmax: v[12] as u32,
                pmax: v[13] as u32,
                kdrop: v[14] as u32,
                buf_max: v[15] as u32,
                seed: v[16] as u32,
            },
            depth_sel: v[17] as u8,
        }
    }

    #[inline]
    fn encode_out(o: &CpOut, v: &mut [u128]) {
        v[0] = o.dec_valid as u128;
        v[1] = o.dec_action as u128;
        v[2] = o.dec_ecn as u128;
        v[3] = o.deq_valid as u128;
        v[4] = o.deq_mark as u128;
        v[5] = o.deq_ecn as u128;
        v[6] = o.depth as u128;
        v[7] = o.underflow as u128;
    }

    fn golden(c: &CpConfig) -> Cp {
        Cp::new(*c).expect("CP configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut Cp, i: &CpIn) -> CpOut {
        g.step(i)
    }

    fn verilog(c: &CpConfig) -> String {
        ccrtl_hdl::cp::verilog(c).expect("CP configuration must be validated before use")
    }

    fn hdl_sim(c: &CpConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<CpIn, CpOut>> {
        ccrtl_hdl::cp::sim(c).expect("CP configuration must be validated before use")
    }

    fn default_config() -> CpConfig {
        CpConfig::default()
    }

    fn parse_config(text: &str, path: &str) -> Result<CpConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<CpConfig> {
        // Every (depth, length, queues) of the menu; where marking happens
        // alternates, so that both places meet every width and queue count.
        let mut v = vec![];
        for &depth_bits in SUPPORTED_DEPTH_BITS {
            for &len_bits in SUPPORTED_LEN_BITS {
                for &queues in SUPPORTED_QUEUES {
                    let mark_at = if v.len() % 2 == 0 {
                        MarkAt::Enqueue
                    } else {
                        MarkAt::Dequeue
                    };
                    let shape = CpShape {
                        depth_bits,
                        len_bits,
                        queues,
                        mark_at,
                    };
                    if shape.validate().is_ok() {
                        v.push(CpConfig {
                            shape,
                            reset: CpParams::reset_for(&shape),
                        });
                    }
                }
            }
        }
        v
    }

    fn random_reset(c: &CpConfig, r: &mut Rng) -> CpConfig {
        CpConfig {
            shape: c.shape,
            reset: random_params(r, &c.shape),
        }
    }

    fn describe(c: &CpConfig) -> String {
        let p = &c.reset;
        format!(
            "depth_bits={} len_bits={} queues={} mark_at={} reset: kmin={} kmax={} pmax={} kdrop={} buf_max={} seed={:#x}",
            c.shape.depth_bits,
            c.shape.len_bits,
            c.shape.queues,
            c.shape.mark_at.name(),
            p.kmin,
            p.kmax,
            p.pmax,
            p.kdrop,
            p.buf_max,
            p.seed
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    fn coverage_applies(c: &CpConfig) -> Vec<bool> {
        let many = c.shape.queues > 1;
        let deq = c.shape.mark_at == MarkAt::Dequeue;
        (0..COVER.len())
            .map(|k| match k {
                Q_SWITCH | Q_ENQ_DEQ_APART | Q_LOAD_OTHER | Q_WRED_NOT_0 | Q_UNDERFLOW_NOT_0 => {
                    many
                }
                Q_IGNORED_BITS => !many,
                DQ_AT_KMIN..=DQ_PASS_NOT_ECT => deq,
                _ => true,
            })
            .collect()
    }

    #[inline]
    fn cover(g: &Cp, prev: &CpIn, i: &CpIn, cov: &mut Coverage) {
        let shape = &g.config().shape;
        let qe = shape.queue_of(i.enq_queue);
        let q = g.queue_depth(qe) as u64;
        let p = g.queue_params(qe);
        if i.rst {
            if q > 0 {
                cov.hit(RESET_MID_RUN);
            }
            if i.enq_valid || i.cfg_valid {
                cov.hit(TRAFFIC_IN_RESET);
            }
            if i.cfg_valid {
                cov.hit(CFG_IN_RESET);
            }
            if prev.rst {
                cov.hit(RESET_HELD);
            }
            return;
        }
        if i.enq_valid {
            let len = i.enq_len as u64;
            let ect = i.enq_ecn == ecn::ECT0 || i.enq_ecn == ecn::ECT1;
            cov.hit(ECN_00 + i.enq_ecn as usize);
            // The previous cycle's dequeue on this queue took more than it
            // held: this enqueue's tests are the ones the hardware prepared
            // for an empty queue, on the path of an admitted enqueue (of the
            // same queue, in that cycle) or not.
            let admitted = prev.enq_valid
                && shape.queue_of(prev.enq_queue) == qe
                && matches!(g.previous_action(), Some(a) if a <= 1);
            let after_underflow = !prev.rst && g.previous_underflows() >> qe & 1 == 1;
            if after_underflow {
                let k = if admitted { 2 } else { 0 };
                if i.enq_ecn == ecn::NOT_ECT && p.kdrop == 0 {
                    cov.hit(UF_THEN_WRED + k);
                } else if len > p.buf_max as u64 {
                    cov.hit(UF_THEN_TAIL + k);
                }
            }
            if !prev.rst && prev.enq_valid {
                if shape.queue_of(prev.enq_queue) == qe {
                    cov.hit(Q_BACK_TO_BACK);
                } else {
                    cov.hit(Q_SWITCH);
                }
            }
            if i.enq_queue as u32 >= shape.queues {
                cov.hit(Q_IGNORED_BITS);
            }
            let wred = i.enq_ecn == ecn::NOT_ECT && q >= p.kdrop as u64;
            if ect && q == p.kmin as u64 {
                cov.hit(AT_KMIN);
            }
            if ect && q + 1 == p.kmin as u64 {
                cov.hit(BELOW_KMIN);
            }
            if ect && q == p.kmax as u64 {
                cov.hit(AT_KMAX);
            }
            if ect && q + 1 == p.kmax as u64 {
                cov.hit(BELOW_KMAX);
            }
            if i.enq_ecn == ecn::NOT_ECT && q == p.kdrop as u64 {
                cov.hit(AT_KDROP);
            }
            if i.enq_ecn == ecn::NOT_ECT && q + 1 == p.kdrop as u64 {
                cov.hit(BELOW_KDROP);
            }
            if !wred && q + len == p.buf_max as u64 {
                cov.hit(FILLS_EXACTLY);
            }
            if !wred && q + len == p.buf_max as u64 + 1 {
                cov.hit(OVER_BY_ONE);
            }
            if wred {
                cov.hit(WRED_DROP);
                if qe != 0 {
                    cov.hit(Q_WRED_NOT_0);
                }
            } else if q + len > p.buf_max as u64 {
                cov.hit(TAIL_DROP);
            } else if ect && q >= p.kmin as u64 && q < p.kmax as u64 {
                cov.hit(RAMP);
                let top = g.config().shape.depth_bits - 1;
                if q >> top == 1 {
                    cov.hit(RAMP_TOP_BIT);
                }
                if p.pmax > PMAX_ONE && (q - p.kmin as u64) >> top == 1 {
                    cov.hit(RAMP_WIDEST);
                }
                let span = (p.kmax - p.kmin) as u64;
                if g.draw() as u64 * span == (q - p.kmin as u64) * p.pmax as u64 {
                    cov.hit(RAMP_BOUNDARY);
                }
                if p.pmax == 0 {
                    cov.hit(RAMP_PMAX_ZERO);
                }
                if p.pmax == PMAX_ONE {
                    cov.hit(RAMP_PMAX_ONE);
                }
            }
            if q == p.buf_max as u64 {
                cov.hit(FULL_BUFFER);
            }
            if i.deq_valid {
                cov.hit(ENQ_AND_DEQ);
                if shape.queue_of(i.deq_queue) != qe {
                    cov.hit(Q_ENQ_DEQ_APART);
                }
            }
        }
        if i.deq_valid {
            let qd = shape.queue_of(i.deq_queue);
            let q = g.queue_depth(qd) as u64;
            let same = i.enq_valid && qe == qd;
            if i.deq_len as u64 == q {
                cov.hit(DEQ_EMPTIES);
            }
            if i.deq_len as u64 > q + if same { i.enq_len as u64 } else { 0 } {
                cov.hit(UNDERFLOW);
                if qd != 0 {
                    cov.hit(Q_UNDERFLOW_NOT_0);
                }
            }
            if shape.mark_at == MarkAt::Dequeue {
                let p = g.queue_params(qd);
                let ect = i.deq_ecn == ecn::ECT0 || i.deq_ecn == ecn::ECT1;
                if ect && q == p.kmin as u64 {
                    cov.hit(DQ_AT_KMIN);
                }
                if ect && q + 1 == p.kmin as u64 {
                    cov.hit(DQ_BELOW_KMIN);
                }
                if ect && q == p.kmax as u64 {
                    cov.hit(DQ_AT_KMAX);
                }
                if ect && q + 1 == p.kmax as u64 {
                    cov.hit(DQ_BELOW_KMAX);
                }
                if ect && q >= p.kmin as u64 && q < p.kmax as u64 {
                    cov.hit(DQ_RAMP);
                    let span = (p.kmax - p.kmin) as u64;
                    if g.draw() as u64 * span == (q - p.kmin as u64) * p.pmax as u64 {
                        cov.hit(DQ_RAMP_BOUNDARY);
                    }
                }
                if same && i.enq_ecn != ecn::NOT_ECT && ect {
                    cov.hit(DQ_WITH_ENQ_SAME_QUEUE);
                }
                if i.deq_ecn == ecn::CE {
                    cov.hit(DQ_PASS_CE);
                }
                if i.deq_ecn == ecn::NOT_ECT && q >= p.kmax as u64 {
                    cov.hit(DQ_PASS_NOT_ECT);
                }
            }
        }
        if i.cfg_valid {
            if q > 0 {
                cov.hit(PARAMS_MID_RUN);
            }
            if i.cfg.kmin == i.cfg.kmax && i.cfg.pmax == PMAX_ONE {
                cov.hit(STEP_MARKING);
            }
            if i.cfg.seed == 0 {
                cov.hit(SEED_ZERO);
            } else if i.cfg.seed >> 16 == 0 || i.cfg.seed & 0xffff == 0 {
                cov.hit(SEED_HALF_ZERO);
            }
            if i.enq_valid {
                cov.hit(CFG_WITH_ENQ);
                let ect = i.enq_ecn == ecn::ECT0 || i.enq_ecn == ecn::ECT1;
                if ect && p.kmin as u64 <= q && q < p.kmax as u64 && i.cfg.pmax != p.pmax {
                    cov.hit(LOAD_WITH_RAMP_ENQ);
                }
            }
            if prev.cfg_valid && !prev.rst {
                cov.hit(CFG_BACK_TO_BACK);
            }
            if i.enq_valid && shape.queue_of(i.cfg_queue) != qe {
                cov.hit(Q_LOAD_OTHER);
            }
            let loaded = CpParams {
                kmin: i.cfg.kmin,
                kmax: i.cfg.kmax,
                pmax: i.cfg.pmax,
                kdrop: i.cfg.kdrop,
                buf_max: i.cfg.buf_max,
                seed: i.cfg.seed,
            };
            if loaded.validate(&g.config().shape).is_err() {
                cov.hit(CFG_OUT_OF_RANGE);
            }
        }
    }
}

const COVER: &[&str] = &[
    "enqueue ECT at q == kmin",
    "enqueue ECT at q == kmin - 1",
    "enqueue ECT at q == kmax",
    "enqueue ECT at q == kmax - 1",
    "enqueue not-ECT at q == kdrop",
    "enqueue not-ECT at q == kdrop - 1",
    "enqueue fills the buffer exactly",
    "enqueue overflows the buffer by one byte",
    "WRED drop",
    "tail drop",
    "ECT enqueue on the marking ramp",
    "ramp with pmax = 0",
    "ramp with pmax = 1.0",
    "enqueue while the buffer is full",
    "enqueue and dequeue in the same cycle",
    "ECN 00 enqueued",
    "ECN 01 enqueued",
    "ECN 10 enqueued",
    "ECN 11 enqueued",
    "dequeue empties the queue",
    "dequeue longer than the queue (underflow)",
    "parameters loaded with a non-empty queue",
    "parameters loaded with an enqueue in the same cycle",
    "DCTCP step marking loaded (kmin == kmax, pmax = 1)",
    "seed 0 loaded",
    "reset with a non-empty queue",
    "enqueue or parameter load during reset",
    "ECT draw exactly on the marking boundary",
    "parameter load during reset (reset wins)",
    "reset held for more than one cycle",
    "parameter loads in consecutive cycles",
    "out-of-range parameter load (one the checks refuse)",
    "ECT enqueue on the ramp with the depth's top bit set",
    "ECT enqueue on the ramp, pmax > 1.0 and q - kmin with the top bit set",
    "parameter seed with a zero half (the 0 fallback must see all 32 bits)",
    "load swinging pmax in the cycle of an ECT enqueue on the ramp",
    "WRED drop (kdrop = 0) on the queue an underflow just emptied",
    "tail drop (len > buf_max) on the queue an underflow just emptied",
    "WRED drop (kdrop = 0) after an underflow in the cycle of an admitted enqueue",
    "tail drop (len > buf_max) after an underflow in the cycle of an admitted enqueue",
    "enqueues to the same queue in consecutive cycles",
    "enqueue to another queue than the previous cycle's enqueue",
    "enqueue and dequeue on different queues in one cycle",
    "load of another queue's profile in the cycle of an enqueue",
    "WRED drop on a queue other than queue 0",
    "underflow on a queue other than queue 0",
    "enqueue whose queue index has ignored bits set (one queue)",
    "dequeue ECT at q == kmin (marking at dequeue)",
    "dequeue ECT at q == kmin - 1 (marking at dequeue)",
    "dequeue ECT at q == kmax (marking at dequeue)",
    "dequeue ECT at q == kmax - 1 (marking at dequeue)",
    "dequeue ECT on the marking ramp",
    "dequeue ECT draw exactly on the marking boundary",
    "ECT dequeue with an ECN-capable enqueue on its queue in the same cycle",
    "CE dequeue (passes unchanged)",
    "not-ECT dequeue at q >= kmax (passes unchanged)",
];
const AT_KMIN: usize = 0;
const BELOW_KMIN: usize = 1;
const AT_KMAX: usize = 2;
const BELOW_KMAX: usize = 3;
const AT_KDROP: usize = 4;
const BELOW_KDROP: usize = 5;
const FILLS_EXACTLY: usize = 6;
const OVER_BY_ONE: usize = 7;
const WRED_DROP: usize = 8;
const TAIL_DROP: usize = 9;
const RAMP: usize = 10;
const RAMP_PMAX_ZERO: usize = 11;
const RAMP_PMAX_ONE: usize = 12;
const FULL_BUFFER: usize = 13;
const ENQ_AND_DEQ: usize = 14;
const ECN_00: usize = 15;
const DEQ_EMPTIES: usize = 19;
const UNDERFLOW: usize = 20;
const PARAMS_MID_RUN: usize = 21;
const CFG_WITH_ENQ: usize = 22;
const STEP_MARKING: usize = 23;
const SEED_ZERO: usize = 24;
const RESET_MID_RUN: usize = 25;
const TRAFFIC_IN_RESET: usize = 26;
const RAMP_BOUNDARY: usize = 27;
const CFG_IN_RESET: usize = 28;
const RESET_HELD: usize = 29;
const CFG_BACK_TO_BACK: usize = 30;
const CFG_OUT_OF_RANGE: usize = 31;
const RAMP_TOP_BIT: usize = 32;
const RAMP_WIDEST: usize = 33;
const SEED_HALF_ZERO: usize = 34;
const LOAD_WITH_RAMP_ENQ: usize = 35;
const UF_THEN_WRED: usize = 36;
const UF_THEN_TAIL: usize = 37;
const Q_BACK_TO_BACK: usize = 40;
const Q_SWITCH: usize = 41;
const Q_ENQ_DEQ_APART: usize = 42;
const Q_LOAD_OTHER: usize = 43;
const Q_WRED_NOT_0: usize = 44;
const Q_UNDERFLOW_NOT_0: usize = 45;
const Q_IGNORED_BITS: usize = 46;
const DQ_AT_KMIN: usize = 47;
const DQ_BELOW_KMIN: usize = 48;
const DQ_AT_KMAX: usize = 49;
const DQ_BELOW_KMAX: usize = 50;
const DQ_RAMP: usize = 51;
const DQ_RAMP_BOUNDARY: usize = 52;
const DQ_WITH_ENQ_SAME_QUEUE: usize = 53;
const DQ_PASS_CE: usize = 54;
const DQ_PASS_NOT_ECT: usize = 55;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Fill,
    Drain,
    Hover,
    Burst,
    Idle,
    /// Largest packets every cycle, no dequeue: the way up to thresholds in
    /// the top half of the counter's range.
    DeepFill,
}

/// Random valid CP stimulus (see the module comment).
pub struct CpStimulus {
    rng: Rng,
    shape: CpShape,
    cycle: u64,
    phase: Phase,
    phase_left: u32,
    cfg_in: u32,
    /// The previous cycle loaded an aimed seed: enqueue ECT now.
    aimed_enqueue: bool,
    /// Reset cycles still to come in the current reset.
    reset_left: u32,
    /// Parameter loads still to come in a run of consecutive loads.
    loads_left: u32,
    /// Cycle from which the next load is a deep one.
    next_deep: u64,
    /// Deep loads so far (every second one is the out-of-range wide ramp).
    deep_count: u64,
    /// Cycles to the next mid-traffic reset.
    reset_in: u32,
    /// Cycles to the next underflow probe.
    probe_in: u32,
    /// The previous cycle underflowed on purpose: enqueue now.
    probe_enqueue: bool,
    /// The queue the aimed traffic, the loads and most events go to (it
    /// changes with the phase).
    focus: usize,
    /// The ECT dequeues are marked (`mark_at = "dequeue"`): aim them too.
    mark_deq: bool,
    /// The previous cycle loaded a kdrop on the other side of the depth:
    /// enqueue not-ECT now.
    wred_next: bool,
}

impl Stimulus<CpBlock> for CpStimulus {
    fn new(config: &CpConfig, seed: u64) -> CpStimulus {
        CpStimulus {
            rng: Rng::new(seed),
            shape: config.shape,
            cycle: 0,
            phase: Phase::Fill,
            phase_left: 0,
            cfg_in: 1,
            aimed_enqueue: false,
            reset_left: 0,
            loads_left: 0,
            next_deep: 5_000 + Rng::new(seed ^ 0xdee9).upto(20_000) as u64,
            reset_in: 0,
            deep_count: 0,
            probe_in: 1000,
            probe_enqueue: false,
            focus: 0,
            mark_deq: config.shape.mark_at == MarkAt::Dequeue,
            wred_next: false,
        }
    }

    #[inline]
    fn next_into(&mut self, g: &Cp, i: &mut CpIn) {
        self.fill(g, i);
        self.queues(g, i);
    }
}

impl CpStimulus {
    /// The events of the next cycle as if the focus queue were the only
    /// one ([`Self::queues`] then spreads them).
    #[inline]
    fn fill(&mut self, g: &Cp, i: &mut CpIn) {
        let c = self.cycle;
        self.cycle += 1;
        let r = &mut self.rng;
        let q = g.queue_depth(self.focus);
        let p = g.queue_params(self.focus);
        let len_max = self.shape.len_max();
        if std::mem::take(&mut self.aimed_enqueue) {
            // The draw of this cycle was set by last cycle's seed.
            i.enq_valid = true;
            i.enq_ecn = r.pick(&[ecn::ECT0, ecn::ECT1]);
            i.enq_len = r.upto(len_max);
            if self.mark_deq {
                self.aimed_dequeue(q, i);
            }
            return;
        }
        // The registers have no power-up value: reset first, then now and
        // then for one to four cycles, with random traffic and sometimes a
        // parameter load on the other inputs (which reset must override),
        // followed by a stretch under the reset parameters.
        // Every 8,000 cycles on average (not while climbing to deep
        // thresholds: a reset would undo it).
        if self.phase != Phase::DeepFill {
            self.reset_in = self.reset_in.saturating_sub(1);
        }
        if c == 0 || self.reset_in == 0 {
            self.reset_in = r.range(1, 16_000);
            self.reset_left = if r.chance(96) { r.range(1, 3) } else { 0 };
            self.reset_cycle(q, &p, i);
            return;
        }
        if self.reset_left > 0 {
            self.reset_left -= 1;
            self.reset_cycle(q, &p, i);
            return;
        }
        if std::mem::take(&mut self.probe_enqueue) {
            self.probe_enqueue(&p, i);
            return;
        }
        if self.phase != Phase::DeepFill {
            self.probe_in = self.probe_in.saturating_sub(1);
        }
        if self.probe_in == 0 && q < len_max {
            self.probe_in = self.rng.range(300, 4000);
            self.underflow_probe(q, &p, i);
            return;
        }
        // The depth sits on a threshold or one below it: most of the time
        // enqueue the kind of packet that threshold is about, now.
        let on = |t: u32| q == t || q.wrapping_add(1) == t;
        // (The comparisons first: a draw only when the depth is there.)
        let at_kdrop = on(p.kdrop);
        if (at_kdrop || on(p.kmin) || on(p.kmax)) && self.rng.chance(160) {
            self.random_traffic(q, &p, i);
            i.enq_valid = true;
            i.enq_ecn = if at_kdrop {
                ecn::NOT_ECT
            } else {
                self.rng.pick(&[ecn::ECT0, ecn::ECT1])
            };
            if self.mark_deq && !at_kdrop {
                self.aimed_dequeue(q, i);
            }
            return;
        }
        // On the ramp, now and then an ECT enqueue in the same cycle as a
        // load that swings pmax (0 <-> 1.0) and moves kmin and kmax: the
        // decision must use the parameters of the enqueue's own cycle in
        // every stage of the pipeline.
        let on_ramp = p.kmin <= q && q < p.kmax;
        if on_ramp && self.phase != Phase::DeepFill && self.rng.chance(6) {
            self.random_traffic(q, &p, i);
            i.enq_valid = true;
            i.enq_ecn = self.rng.pick(&[ecn::ECT0, ecn::ECT1]);
            let mut n = p;
            n.pmax = if p.pmax == 0 { PMAX_ONE } else { 0 };
            n.kmin = self.rng.upto(p.kmin);
            n.kmax = self.rng.range(p.kmax, p.buf_max.max(p.kmax));
            n.seed = random_seed(&mut self.rng);
            // Half the time kdrop moves to the other side of the depth too,
            // and the next cycle enqueues not-ECT: its WRED test must use
            // the kdrop of its own cycle (the new one), not the one before.
            if self.rng.chance(128) && q < p.buf_max {
                n.kdrop = if p.kdrop <= q {
                    self.rng.range(q + 1, p.buf_max)
                } else {
                    self.rng.upto(q)
                };
                self.wred_next = true;
            }
            i.cfg_valid = true;
            i.cfg = n;
            return;
        }
        if std::mem::take(&mut self.wred_next) {
            self.random_traffic(q, &p, i);
            i.enq_valid = true;
            i.enq_ecn = ecn::NOT_ECT;
            return;
        }
        if self.loads_left > 0 {
            // A run of back-to-back loads, with traffic.
            self.loads_left -= 1;
            self.random_traffic(q, &p, i);
            i.cfg_valid = true;
            i.cfg = self.load(q);
            return;
        }
        let r = &mut self.rng;
        if self.phase_left == 0 {
            self.phase = match self.phase {
                // Stay around the deep thresholds for a while.
                Phase::DeepFill => Phase::Hover,
                _ => r.pick(&[
                    Phase::Fill,
                    Phase::Drain,
                    Phase::Hover,
                    Phase::Burst,
                    Phase::Idle,
                ]),
            };
            self.phase_left = r.range(8, 3000);
            // A new phase, often on another queue (not while climbing).
            if self.phase != Phase::Hover && r.chance(128) {
                self.focus = r.upto(self.shape.queues - 1) as usize;
            }
        }
        self.phase_left -= 1;
        self.cfg_in -= 1;
        if self.cfg_in == 0 {
            self.cfg_in = r.range(20, 3000);
            if r.chance(96) && q < self.shape.depth_max() {
                // Aim the next enqueue's draw at the marking boundary.
                i.cfg_valid = true;
                i.cfg = aimed_params(r, &self.shape, q).into();
                self.aimed_enqueue = true;
                return;
            }
            if c >= self.next_deep {
                // Deep, every 40,000 to 80,000 cycles plus four times the
                // climb: thresholds in the top half of the counter's range
                // (or, every second time, an out-of-range ramp with pmax > 1.0
                // from near 0 to the top), the whole range as buffer, the
                // largest packets back to back until the depth is there,
                // then ordinary traffic around it, so the top bit of the
                // depth, of every threshold and of the ramp's products is
                // exercised on every shape (the way up takes 2^(D-1) /
                // len_max cycles: 33,000 for D = 28, L = 12).
                self.deep_count += 1;
                let (deep, target) = deep_params(r, &self.shape, self.deep_count & 1 == 0);
                let len_max = self.shape.len_max();
                let climb = target.saturating_sub(q) / len_max + 1;
                // Often where the climb is short, less often where it is
                // long (so it takes at most about a fifth of the cycles).
                self.next_deep = c + r.range(40_000, 80_000) as u64 + 4 * climb as u64;
                i.cfg_valid = true;
                i.cfg = deep;
                self.phase = Phase::DeepFill;
                self.phase_left = climb;
                self.cfg_in = climb + r.range(2000, 6000);
                self.random_traffic(q, &p, i);
                return;
            }
            if r.chance(24) {
                self.loads_left = r.range(1, 3);
            }
            i.cfg_valid = true;
            i.cfg = self.load(q);
        }
        self.random_traffic(q, &p, i);
    }
}

impl CpStimulus {
    /// An ECT dequeue from the focus queue (marking at dequeue: its
    /// decision is taken on the depth `q` the aimed enqueue also sees), of
    /// at most `q` bytes.
    fn aimed_dequeue(&mut self, q: u32, i: &mut CpIn) {
        let r = &mut self.rng;
        i.deq_valid = true;
        i.deq_ecn = r.pick(&[ecn::ECT0, ecn::ECT1]);
        i.deq_len = r.upto(q.min(self.shape.len_max()).min(64));
    }

    /// Queue indices for the cycle's events, filled by [`Self::fill`] for
    /// the focus queue: most events stay on it (back-to-back events on one
    /// queue), one enqueue in eight, one dequeue in four and one load in
    /// eight go to a random queue (a dequeue there mostly within its
    /// depth), `depth_sel` names any queue. Index bits above log2(Q) (one
    /// queue: the whole index) are random. The dequeue's ECN is random.
    #[inline]
    fn queues(&mut self, g: &Cp, i: &mut CpIn) {
        let n = self.shape.queues;
        let r = &mut self.rng;
        let mut b = Bits::new(r);
        let span = 1u32 << self.shape.queue_bits();
        // An index naming queue `k`, with random ignored bits.
        let index = |b: &mut Bits, k: usize| -> u8 {
            (k as u32 + n * (b.take(3) as u32 % (span / n))) as u8
        };
        let f = self.focus;
        let other = |b: &mut Bits| (b.take(3) as u32 % n) as usize;
        let qe = if n > 1 && b.chance(32) {
            other(&mut b)
        } else {
            f
        };
        i.enq_queue = index(&mut b, qe);
        let qd = if n > 1 && b.chance(64) {
            let k = other(&mut b);
            if k != f && i.deq_valid && b.take(6) != 0 {
                i.deq_len = i.deq_len.min(g.queue_depth(k));
            }
            k
        } else {
            f
        };
        i.deq_queue = index(&mut b, qd);
        if i.deq_valid && !self.mark_deq {
            i.deq_ecn = b.take(2) as u8;
        } else if i.deq_valid && i.deq_ecn == 0 {
            // (Aimed dequeues set their ECN; others get a random one.)
            i.deq_ecn = b.take(2) as u8;
        }
        let qc = if n > 1 && b.chance(32) {
            other(&mut b)
        } else {
            f
        };
        i.cfg_queue = index(&mut b, qc);
        let qs = if b.chance(128) { f } else { other(&mut b) };
        i.depth_sel = index(&mut b, qs);
    }

    /// A dequeue longer than the queue, alone or with a load that makes the
    /// buffer small and `kdrop` zero or not; the next cycle enqueues
    /// ([`Self::probe_enqueue`]). After an underflow the hardware takes the
    /// next enqueue's WRED and tail tests from values prepared for an
    /// empty queue, not from sums: this aims at them.
    fn underflow_probe(&mut self, q: u32, p: &CpParamsPort, i: &mut CpIn) {
        let r = &mut self.rng;
        let len_max = self.shape.len_max();
        i.deq_valid = true;
        i.deq_len = r.range(q + 1, len_max);
        // Half the time with an enqueue the parameters in force admit (ECT
        // or CE, never WRED-dropped), the dequeue longer than both.
        if r.chance(128) && q < len_max - 1 && q <= p.buf_max {
            let len = r.range(1, (p.buf_max - q).min(len_max - q - 1));
            if q + len <= p.buf_max {
                i.enq_valid = true;
                i.enq_ecn = r.pick(&[ecn::ECT0, ecn::ECT1, ecn::CE]);
                i.enq_len = len;
                i.deq_len = r.range(q + len + 1, len_max);
            }
        }
        if r.chance(160) {
            let mut p = random_params(r, &self.shape);
            p.buf_max = r.upto(2 * len_max).min(self.shape.depth_max());
            p.kmin = p.kmin.min(p.buf_max);
            p.kmax = p.kmax.min(p.buf_max).max(p.kmin);
            p.kdrop = if r.chance(128) {
                0
            } else {
                r.range(1, p.buf_max.max(1)).min(p.buf_max)
            };
            debug_assert!(p.validate(&self.shape).is_ok(), "{p:?}");
            i.cfg_valid = true;
            i.cfg = p.into();
        }
        self.probe_enqueue = true;
    }

    /// The enqueue after an underflow probe: not-ECT or ECT, a length just
    /// over the buffer, exactly the buffer, or any.
    fn probe_enqueue(&mut self, p: &CpParamsPort, i: &mut CpIn) {
        let r = &mut self.rng;
        let len_max = self.shape.len_max();
        i.enq_valid = true;
        i.enq_ecn = r.pick(&[ecn::NOT_ECT, ecn::NOT_ECT, ecn::ECT0, ecn::ECT1, ecn::CE]);
        i.enq_len = match r.upto(3) {
            0 | 1 if p.buf_max < len_max => p.buf_max + 1,
            2 => p.buf_max.min(len_max),
            _ => r.upto(len_max),
        };
    }

    /// A reset cycle: random traffic, and a parameter load one time in four.
    fn reset_cycle(&mut self, q: u32, p: &CpParamsPort, i: &mut CpIn) {
        self.random_traffic(q, p, i);
        i.rst = true;
        // Half the time an ECT enqueue, which a pipeline stage that reset
        // does not clear would carry out as a decision (or a mark).
        if self.rng.chance(128) {
            i.enq_valid = true;
            i.enq_ecn = self.rng.pick(&[ecn::ECT0, ecn::ECT1]);
            i.enq_len = self.rng.upto(self.shape.len_max());
        }
        if self.rng.chance(64) {
            i.cfg_valid = true;
            i.cfg = self.load(q);
        }
        // Now and then a long stretch under the reset values, filling the
        // queue, so that every reset value is reached before the next load.
        if self.rng.chance(64) {
            self.cfg_in = self.rng.range(3000, 40_000);
            self.phase = self.rng.pick(&[Phase::Burst, Phase::Fill]);
            self.phase_left = self.rng.range(2000, 8000);
        } else {
            self.cfg_in = self.rng.range(1, 3000);
        }
    }

    /// A parameter set to load: valid, or one time in eight out of range
    /// (any value the ports can carry).
    fn load(&mut self, _q: u32) -> CpParamsPort {
        let r = &mut self.rng;
        if r.chance(32) {
            let d = self.shape.depth_max();
            let mut p = CpParamsPort {
                kmin: r.upto(d),
                kmax: r.upto(d),
                pmax: r.upto((1 << PMAX_BITS) - 1),
                kdrop: r.upto(d),
                buf_max: r.upto(d),
                seed: random_seed(r),
            };
            // Keep the thresholds within reach of the traffic half the time.
            if r.chance(128) {
                let len_max = self.shape.len_max();
                p.buf_max = r.upto(40 * len_max).min(d);
                p.kmin = r.upto(p.buf_max.saturating_add(len_max).min(d));
                p.kmax = r.upto(p.buf_max.saturating_add(len_max).min(d));
                p.kdrop = r.upto(p.buf_max.saturating_add(len_max).min(d));
            }
            return p;
        }
        random_params(r, &self.shape).into()
    }

    /// Enqueue and dequeue for one cycle, by the current phase (into `i`,
    /// whose enqueue and dequeue fields are at their defaults).
    #[inline]
    fn random_traffic(&mut self, q: u32, p: &CpParamsPort, i: &mut CpIn) {
        let r = &mut self.rng;
        let len_max = self.shape.len_max();
        let (enq_p, deq_p) = match self.phase {
            Phase::Fill => (230, 40),
            Phase::Drain => (40, 230),
            Phase::Hover => (150, 150),
            Phase::Burst => (256, 0),
            Phase::DeepFill => {
                i.enq_valid = true;
                i.enq_ecn = self.rng.upto(3) as u8;
                i.enq_len = len_max;
                return;
            }
            Phase::Idle => (15, 15),
        };
        // The small decisions of the cycle come from one reservoir of bits.
        let mut bits = Bits::new(r);
        if bits.chance(enq_p) {
            i.enq_valid = true;
            i.enq_ecn = bits.take(2) as u8;
            i.enq_len = enq_len(&mut bits, q, p, len_max);
        }
        if bits.chance(deq_p) {
            i.deq_valid = true;
            i.deq_len = deq_len(&mut bits, q, p, len_max);
        }
    }
}

/// Parameters that put depth `q` (< depth_max) on the marking ramp, with a
/// seed whose draw (its top 16 bits, used by the next cycle's enqueue) lies
/// exactly on the marking boundary `u * (kmax - kmin) = (q - kmin) * pmax`
/// or just below it: the comparison's equality case.
fn aimed_params(r: &mut Rng, shape: &CpShape, q: u32) -> CpParams {
    let mut p = random_params(r, shape);
    p.buf_max = p.buf_max.max(q + 1);
    p.kmin = r.upto(q);
    p.kmax = r.range(q + 1, p.buf_max);
    p.kdrop = p.kdrop.min(p.buf_max);
    if r.chance(64) {
        p.pmax = 0;
    }
    // Half the time the exact equality: kmin = q - x, kmax = kmin + span and
    // pmax = span (at most 1.0), so the boundary draw is u = x itself.
    if r.chance(128) && q >= 1 && p.buf_max > q {
        let span = r.range(2, PMAX_ONE.min(p.buf_max));
        let x = r.upto((span - 1).min(q).min(0xffff));
        if (q - x) as u64 + span as u64 <= p.buf_max as u64 {
            p.kmin = q - x;
            p.kmax = p.kmin + span;
            p.pmax = span;
        }
    }
    // A quarter of the time a margin of one: q = kmin + 1 and
    // pmax = u * span + 1, so `u * span < (q - kmin) * pmax` holds by
    // exactly 1 and the draw u is marked (an error of any size in either
    // product shows).
    if r.chance(64) && q >= 1 {
        let span = r.range(2, 65_535.min(p.buf_max.max(2)));
        if (q - 1) as u64 + span as u64 <= p.buf_max as u64 {
            let u = r.upto(65_535 / span);
            p.kmin = q - 1;
            p.kmax = p.kmin + span;
            p.pmax = u * span + 1;
            let low = r.next_u32() & 0xffff;
            p.seed = (u << 16) | if u == 0 && low == 0 { 1 } else { low };
            debug_assert!(p.validate(shape).is_ok(), "{p:?}");
            return p;
        }
    }
    let span = (p.kmax - p.kmin) as u64;
    let num = (q - p.kmin) as u64 * p.pmax as u64;
    // Smallest draw that is not marked; one below it is the largest marked.
    let boundary = num.div_ceil(span);
    let u = (boundary - r.upto(1).min(boundary as u32) as u64).min(0xffff) as u32;
    let low = r.next_u32() & 0xffff;
    p.seed = (u << 16) | if u == 0 && low == 0 { 1 } else { low };
    debug_assert!(p.validate(shape).is_ok(), "{p:?}");
    p
}

/// A packet length, aimed at a corner one time in four.
#[inline]
fn enq_len(b: &mut Bits, q: u32, p: &CpParamsPort, len_max: u32) -> u32 {
    if b.chance(64) {
        // Land on (or next to) a threshold with this packet.
        let target = [p.kmin, p.kmax, p.kdrop, p.buf_max][b.take(2) as usize] as i64
            + [-1i64, 0, 0, 1][b.take(2) as usize];
        let need = target - q as i64;
        if (0..=len_max as i64).contains(&need) {
            return need as u32;
        }
    }
    match b.take(3) {
        0 => 64.min(len_max),
        1 | 2 => 1500.min(len_max),
        3 => 9000.min(len_max),
        4 => len_max,
        5 => b.take(2) as u32,
        _ => b.rng().upto(len_max),
    }
}

/// A dequeue length: mostly at most the depth, sometimes exactly the depth
/// or landing on a threshold, rarely more than the queue holds.
#[inline]
fn deq_len(b: &mut Bits, q: u32, p: &CpParamsPort, len_max: u32) -> u32 {
    if b.take(11) == 0 {
        return b.rng().upto(len_max);
    }
    if b.chance(32) && q <= len_max {
        return q;
    }
    if b.chance(48) {
        let target = [p.kmin, p.kmax, p.kdrop, p.buf_max][b.take(2) as usize] as i64
            + b.rng().pick(&[-1i64, 0, 1]);
        let need = q as i64 - target;
        if (0..=len_max as i64).contains(&need) {
            return need as u32;
        }
    }
    let len = match b.take(2) {
        0 => 64,
        1 => 1500,
        _ => b.rng().upto(len_max),
    };
    len.min(len_max).min(q)
}

/// Random bits drawn 64 at a time, for the many small decisions of a
/// cycle's traffic (one draw instead of one per decision).
struct Bits<'a> {
    r: &'a mut Rng,
    word: u64,
    left: u32,
}

impl<'a> Bits<'a> {
    #[inline]
    fn new(r: &'a mut Rng) -> Bits<'a> {
        Bits {
            r,
            word: 0,
            left: 0,
        }
    }

    /// `n` (at most 32) uniform bits.
    #[inline]
    fn take(&mut self, n: u32) -> u64 {
        if self.left < n {
            self.word = self.r.next_u64();
            self.left = 64;
        }
        let v = self.word & ((1u64 << n) - 1);
        self.word >>= n;
        self.left -= n;
        v
    }

    /// True with probability `num / 256`.
    #[inline]
    fn chance(&mut self, num: u32) -> bool {
        self.take(8) < num as u64
    }

    /// The generator itself, for values wider than a few bits.
    #[inline]
    fn rng(&mut self) -> &mut Rng {
        self.r
    }
}

/// A parameter set for a deep climb and the depth to climb to: a valid set
/// with `kmin`, `kmax` and `kdrop` in the top half of the counter's range
/// and the whole range as buffer (climb to the middle of the ramp), or with
/// `wide` an out-of-range one with `pmax > 1.0` on a ramp from near 0 to the
/// top (climb to where `q - kmin` has the counter's top bit).
fn deep_params(r: &mut Rng, shape: &CpShape, wide: bool) -> (CpParamsPort, u32) {
    let max = shape.depth_max();
    let half = max / 2 + 1;
    if wide {
        // Out of range: pmax above 1.0 on a ramp from near 0 to the top, and
        // a climb to where q - kmin has the counter's top bit: the widest
        // products the ramp can form.
        let kmin = r.upto(half / 4);
        let kmax = r.range(max - max / 16, max);
        let p = CpParamsPort {
            kmin,
            kmax,
            pmax: r.range(PMAX_ONE + 1, (1 << PMAX_BITS) - 1),
            kdrop: max,
            buf_max: max,
            seed: random_seed(r),
        };
        let target = kmin + half + (kmax - kmin - half) / 2;
        return (p, target);
    }
    let a = r.range(half, max);
    let b = r.range(half, max);
    let p = CpParams {
        kmin: a.min(b),
        kmax: a.max(b),
        pmax: r.upto(PMAX_ONE),
        kdrop: r.range(half, max),
        buf_max: max,
        seed: random_seed(r),
    };
    debug_assert!(p.validate(shape).is_ok(), "{p:?}");
    // Up to the middle of the marking ramp.
    (p.into(), p.kmin + (p.kmax - p.kmin) / 2)
}

/// A non-zero seed, often with a zero half or a single bit set (the seed-0
/// fallback must look at all 32 bits).
fn random_seed(r: &mut Rng) -> u32 {
    let x = r.next_u32() | 1 << r.upto(31);
    match r.upto(7) {
        0 => x << 16 | 1 << (16 + r.upto(15)),
        1 => (x & 0xffff) | 1 << r.upto(15),
        2 => 1 << r.upto(31),
        _ => x,
    }
}

/// A random parameter set that passes `CpParams::validate`, drawn so that
/// the thresholds are reachable and the extreme settings appear often.
pub fn random_params(r: &mut Rng, shape: &CpShape) -> CpParams {
    let max = shape.depth_max();
    let len_max = shape.len_max();
    let buf_max = match r.upto(7) {
        0 => r.upto(4 * len_max).min(max),
        1..=4 => r.range(len_max, 40 * len_max).min(max),
        5 => max,
        _ => r.upto(max),
    };
    let a = r.upto(buf_max);
    let b = r.upto(buf_max);
    let (mut kmin, mut kmax) = (a.min(b), a.max(b));
    match r.upto(5) {
        0 => kmin = kmax, // DCTCP step marking
        1 => kmin = 0,
        2 => kmax = buf_max,
        3 => kmin = kmax.saturating_sub(1),
        _ => {}
    }
    let pmax = match r.upto(7) {
        0 => 0,
        1 | 2 => PMAX_ONE,
        3 => PMAX_ONE - 1,
        4 => 1,
        _ => r.upto(PMAX_ONE),
    };
    let step = kmin == kmax && r.chance(192);
    let kdrop = match r.upto(5) {
        0 => 0,
        1 => buf_max,
        _ => r.upto(buf_max),
    };
    let seed = if r.chance(32) { 0 } else { random_seed(r) };
    let params = CpParams {
        kmin,
        kmax,
        pmax: if step { PMAX_ONE } else { pmax },
        kdrop,
        buf_max,
        seed,
    };
    debug_assert!(params.validate(shape).is_ok(), "{params:?}");
    params
}

// ---- the params file ---------------------------------------------------------

/// CP's table: `[cp]` with `depth_bits`, `len_bits`, `queues`, `mark_at`
/// and `[cp.reset]`.
#[derive(Debug, Default, Deserialize)]
struct CpFile {
    cp: Option<CpTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CpTable {
    depth_bits: Option<u32>,
    len_bits: Option<u32>,
    queues: Option<u32>,
    mark_at: Option<String>,
    reset: Option<CpReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CpReset {
    kmin: Option<u32>,
    kmax: Option<u32>,
    pmax: Option<toml::Value>,
    kdrop: Option<u32>,
    buf_max: Option<u32>,
    seed: Option<u32>,
}

/// Parses and validates CP's table of params text; `path` names it.
pub fn parse_config(text: &str, path: &str) -> Result<CpConfig, ParamsError> {
    let file: CpFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.cp.unwrap_or_default();
    let defaults = CpShape::default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let mark_at = match t.mark_at.as_deref() {
        None => defaults.mark_at,
        Some(name) => MarkAt::from_name(name).ok_or_else(|| {
            perr(ccrtl_golden::ParamError::new(
                "mark_at",
                format!("\"{name}\" is not a place to mark; choose \"enqueue\" or \"dequeue\""),
            ))
        })?,
    };
    let shape = CpShape {
        depth_bits: t.depth_bits.unwrap_or(defaults.depth_bits),
        len_bits: t.len_bits.unwrap_or(defaults.len_bits),
        queues: t.queues.unwrap_or(defaults.queues),
        mark_at,
    };
    shape.validate().map_err(perr)?;
    let base = CpParams::reset_for(&shape);
    let r = t.reset.unwrap_or_default();
    let pmax = match r.pmax {
        None => base.pmax,
        Some(v) => {
            let p = match v {
                toml::Value::Float(f) => f,
                toml::Value::Integer(i) => i as f64,
                other => {
                    return Err(ParamsError::File {
                        path: path.to_string(),
                        message: format!(
                            "cp.reset.pmax: expected a probability between 0 and 1, found {other}"
                        ),
                    })
                }
            };
            pmax_q16(p).ok_or_else(|| {
                perr(ccrtl_golden::ParamError::new(
                    "pmax",
                    format!("{p} is not a probability between 0 and 1"),
                ))
            })?
        }
    };
    let reset = CpParams {
        kmin: r.kmin.unwrap_or(base.kmin),
        kmax: r.kmax.unwrap_or(base.kmax),
        pmax,
        kdrop: r.kdrop.unwrap_or(base.kdrop),
        buf_max: r.buf_max.unwrap_or(base.buf_max),
        seed: r.seed.unwrap_or(base.seed),
    };
    let cp = CpConfig { shape, reset };
    cp.validate().map_err(perr)?;
    Ok(cp)
}
