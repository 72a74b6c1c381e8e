//! CP — switch egress-queue congestion point: RED/ECN marking, WRED drop,
//! tail drop (seed 001 §2.1 and §2.3, seed 000 §3.1, seed 004 §3.1 Fig. 5).
//! The behaviour, fixed-point formats and timing are specified in
//! `ccrtl_golden::cp`; `docs/cp.md` has the port and parameter tables.
//!
//! # Generation-time parameters
//! - `D` = `depth_bits` in {16, 20, 24, 28}: width of the depth and thresholds;
//! - `L` = `len_bits` in {12, 14, 16}: width of a packet length, `L <= D`;
//! - `Q` = `queues` in {1, 2, 4, 8}, `QB = max(1, log2 Q)` the index width;
//! - `mark_at` (a constant: which event the marking unit serves);
//! - reset values of the runtime registers (`CpConfig::reset`).
//!
//! # Pipeline (II = 1, decision latency 12; see docs/cp.md "Pipeline")
//! Built for 200 MHz on ECP5-85 speed 8: each queue's depth loop holds one
//! carry chain and one select, nothing else, and no multiplier block is
//! used (yosys maps `*` to MULT18X18D without its registers on ECP5, about
//! 7.5 ns from register to register).
//! - cycle n (ports): the queues of the events as one-hots, the profiles of
//!   their queues (drop thresholds of the enqueue's, the ramp of the
//!   markable event's), `len`, `-deq`, `len - deq` and the draw `u`;
//!   registered as stage A.
//! - n+1 (A): each queue's depth change if the enqueue is admitted (`ca_i`)
//!   and if not (`cn_i`), from the one-hots: selects only.
//! - n+2 (B): each queue's loop constants, the difference of this event's
//!   change and the next event's thresholds (`ca_i - kdrop'`,
//!   `ca_i + len' + ~buf_max'`, ...), so that the tests of the next event
//!   are sign bits.
//! - n+3 (C, the loops): per queue, from its depth `q_i` six sums in
//!   parallel (the depth after the event if admitted or not, and the next
//!   event's WRED and tail tests for both cases), selected late by the
//!   queue's own `admit`, which comes from its two registered test bits and
//!   its one-hot bit. A test bit is its sum's sign OR'd with the test on an
//!   empty queue (precomputed), so it does not wait for the underflow
//!   clamp. Off the loops, the test bits of the enqueue's queue and the
//!   markable event's depth, selected from its queue's copy `depth_o` (the
//!   selected sum unclamped, read as 0 when negative).
//! - n+4 (mark stage 0): the decision from those test bits, `q - kmin` and
//!   the compares with `kmin`, `kmax`.
//! - n+5..n+9: the two products `(q - kmin) * pmax` and `u * (kmax - kmin)`
//!   in [`PipeMul`] (adder trees, one level per cycle).
//! - n+10: their compare; n+11: the decisions, into the output registers,
//!   seen during cycle n+12.
//!
//! Signed quantities of the loop are `S = D + 3` bits, two's complement:
//! every sum is below `2^D + 2^(L+1) <= 3 * 2^D` in magnitude, so a sign bit
//! is exact.

use ccrtl_golden::cp::{CpConfig, CpIn, CpOut, MarkAt, DEPTH_LAG, LATENCY, MAX_QUEUES, RESET_SEED};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::mul::PipeMul;

use crate::param::Param;

#[derive(LogicBlock, Default)]
pub struct Cp<const D: usize, const L: usize, const S: usize, const Q: usize, const QB: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Enqueue events (valid only: one per cycle is always accepted).
    pub s_enq_valid: Signal<In, Bit>,
    /// Packet length, bytes.
    pub s_enq_len: Signal<In, Bits<L>>,
    /// ECN codepoint: 00 not-ECT, 01 ECT(1), 10 ECT(0), 11 CE.
    pub s_enq_ecn: Signal<In, Bits<2>>,
    /// Queue (its low log2(Q) bits; ignored with one queue).
    pub s_enq_queue: Signal<In, Bits<QB>>,
    // Dequeue events.
    pub s_deq_valid: Signal<In, Bit>,
    /// Bytes leaving the queue.
    pub s_deq_len: Signal<In, Bits<L>>,
    /// ECN codepoint of the departing packet.
    pub s_deq_ecn: Signal<In, Bits<2>>,
    /// Queue of the departing packet.
    pub s_deq_queue: Signal<In, Bits<QB>>,
    // Parameter load: one queue's profile at once, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    /// Queue whose profile is replaced.
    pub s_cfg_queue: Signal<In, Bits<QB>>,
    /// Marking starts at this depth, bytes.
    pub s_cfg_kmin: Signal<In, Bits<D>>,
    /// Every ECT packet is marked at and above this depth, bytes.
    pub s_cfg_kmax: Signal<In, Bits<D>>,
    /// Marking probability just below kmax, unsigned Q1.16 (65536 = 1.0).
    pub s_cfg_pmax: Signal<In, Bits<17>>,
    /// Not-ECT packets are dropped at and above this depth, bytes.
    pub s_cfg_kdrop: Signal<In, Bits<D>>,
    /// Buffer of the queue, bytes.
    pub s_cfg_buf_max: Signal<In, Bits<D>>,
    /// New xorshift32 state (shared by the queues); 0 selects RESET_SEED.
    pub s_cfg_seed: Signal<In, Bits<32>>,
    /// Queue whose depth `q_depth` shows, three cycles later.
    pub depth_sel: Signal<In, Bits<QB>>,

    // Enqueue decisions, twelve cycles after their enqueue.
    pub m_dec_valid: Signal<Out, Bit>,
    /// 0 admit, 1 admit and mark CE, 2 WRED drop, 3 tail drop; 0 when not valid.
    pub m_dec_action: Signal<Out, Bits<2>>,
    /// ECN the packet leaves with; 0 when dropped or not valid.
    pub m_dec_ecn: Signal<Out, Bits<2>>,
    // Dequeue decisions, twelve cycles after their dequeue.
    pub m_deq_valid: Signal<Out, Bit>,
    /// Marked CE at departure (marking at dequeue only); 0 when not valid.
    pub m_deq_mark: Signal<Out, Bit>,
    /// ECN the departing packet leaves with; 0 when not valid.
    pub m_deq_ecn: Signal<Out, Bits<2>>,
    // Status.
    /// The depth of queue `depth_sel` (of three cycles ago) that an enqueue
    /// of three cycles ago saw, bytes.
    pub q_depth: Signal<Out, Bits<D>>,
    /// Sticky, bit i for queue i: a dequeue was longer than the queue;
    /// cleared by rst only.
    pub err_underflow: Signal<Out, Bits<Q>>,

    // Each queue's profile in force, and the shared random state.
    kmin: Vec<DFF<Bits<D>>>,
    kmax: Vec<DFF<Bits<D>>>,
    pmax: Vec<DFF<Bits<17>>>,
    /// `kdrop` and `buf_max` are held S bits wide (top three bits 0): each
    /// queue's loop constants subtract them, and a width cast cannot take a
    /// loop index in rust-hdl's HDL kernels.
    kdrop: Vec<DFF<Bits<S>>>,
    buf_max: Vec<DFF<Bits<S>>>,
    rng: DFF<Bits<32>>,

    // Stage A: one cycle's events with their constants and the profiles of
    // their queues in that cycle. Queues are one-hot, one register per
    // queue (`a_eq[i]`: the enqueue is queue i's; 0 without an enqueue):
    // rust-hdl declares a 1-bit vector without a range, which a bit select
    // cannot take, so a one-hot of Q = 1 cannot be a vector.
    a_valid: DFF<Bit>,
    a_eq: Vec<DFF<Bit>>,
    a_dq: Vec<DFF<Bit>>,
    /// The queue of the event that can be marked (enqueue or dequeue).
    a_mq: Vec<DFF<Bit>>,
    a_dsel: Vec<DFF<Bit>>,
    a_notect: DFF<Bit>,
    a_ect: DFF<Bit>,
    a_ecn: DFF<Bits<2>>,
    a_deq_valid: DFF<Bit>,
    a_deq_ecn: DFF<Bits<2>>,
    /// The enqueue's length (S-bit two's complement).
    a_len: DFF<Bits<S>>,
    /// `-deq` (counted only on the dequeue's queue, `a_dq`).
    a_nd: DFF<Bits<S>>,
    /// `len - deq`.
    a_lmd: DFF<Bits<S>>,
    /// Per queue, the thresholds of an enqueue to it in this cycle: its
    /// profile's `kdrop` and `buf_max`, and the length (0 unless the
    /// enqueue's index names the queue). Admitted iff `q <= buf_max - len`.
    /// One copy per queue, next to that queue's loop (one shared copy
    /// fanned out to every loop was the critical path with Q = 8).
    a_kd: Vec<DFF<Bits<S>>>,
    a_bm: Vec<DFF<Bits<S>>>,
    a_lq: Vec<DFF<Bits<S>>>,
    a_kmin: DFF<Bits<D>>,
    a_kmax: DFF<Bits<D>>,
    a_pmax: DFF<Bits<17>>,
    a_u: DFF<Bits<16>>,

    // Stage B: each queue's depth change if the enqueue is admitted (`ca`)
    // and if it is not (`cn`).
    b_valid: DFF<Bit>,
    b_eq: Vec<DFF<Bit>>,
    b_mq: Vec<DFF<Bit>>,
    b_dsel: Vec<DFF<Bit>>,
    b_notect: DFF<Bit>,
    b_ect: DFF<Bit>,
    b_ecn: DFF<Bits<2>>,
    b_deq_valid: DFF<Bit>,
    b_deq_ecn: DFF<Bits<2>>,
    b_ca: Vec<DFF<Bits<S>>>,
    b_cn: Vec<DFF<Bits<S>>>,
    b_kmin: DFF<Bits<D>>,
    b_kmax: DFF<Bits<D>>,
    b_pmax: DFF<Bits<17>>,
    /// `kmax - kmin` of the markable event's queue (wrapping; used only
    /// on the ramp, where it is >= 1): formed here from the registered
    /// profile, not at the load (a subtraction of the load ports fanned out
    /// to every queue's register was a critical path with Q = 8).
    b_span: DFF<Bits<D>>,
    b_u: DFF<Bits<16>>,

    // Stage C: the events in the depth loops (one loop per queue).
    c_eq: Vec<DFF<Bit>>,
    c_mq: Vec<DFF<Bit>>,
    c_dsel: Vec<DFF<Bit>>,
    c_valid: DFF<Bit>,
    c_notect: DFF<Bit>,
    c_ect: DFF<Bit>,
    c_ecn: DFF<Bits<2>>,
    c_deq_valid: DFF<Bit>,
    c_deq_ecn: DFF<Bits<2>>,
    c_ca: Vec<DFF<Bits<S>>>,
    c_cn: Vec<DFF<Bits<S>>>,
    /// Next event's WRED test on queue i if this one is admitted: `q + wa >= 0`.
    c_wa: Vec<DFF<Bits<S>>>,
    /// ... if it is not admitted: `q + wn >= 0`.
    c_wn: Vec<DFF<Bits<S>>>,
    /// Next event's tail test on queue i if this one is admitted: `q + ta >= 0`.
    c_ta: Vec<DFF<Bits<S>>>,
    c_tn: Vec<DFF<Bits<S>>>,
    /// The next event's tests on an empty queue i (after an underflow).
    c_wz: Vec<DFF<Bit>>,
    c_tz: Vec<DFF<Bit>>,
    c_kmin: DFF<Bits<D>>,
    c_kmax: DFF<Bits<D>>,
    c_pmax: DFF<Bits<17>>,
    c_span: DFF<Bits<D>>,
    c_u: DFF<Bits<16>>,

    // The loops' state: each queue's depth, and the tests of the event in
    // stage C against each queue (used for the queue it enqueues to).
    /// Queue i's depth, S bits wide (the loop's sums are; the top three
    /// bits are 0 from the first reset on): a width cast cannot take a
    /// loop index in rust-hdl's HDL kernels.
    depth: Vec<DFF<Bits<S>>>,
    /// Queue i's depth for the markable event's select, so that the loop's
    /// register feeds only its six adders and `q_show`: the selected sum
    /// before the underflow clamp and the reset (a register of its own: two
    /// registers with the same input would be merged into one by
    /// synthesis), read as 0 when it is negative (an underflow). In the
    /// cycle after a reset it holds a stale value, when no event is
    /// markable (stage C holds bubbles).
    depth_o: Vec<DFF<Bits<S>>>,
    /// Queue i's sticky underflow.
    underflow: Vec<DFF<Bit>>,
    /// `q_i >= kdrop` for the event in stage C.
    ge_kdrop: Vec<DFF<Bit>>,
    /// `q_i + len > buf_max` for the event in stage C.
    tail_hit: Vec<DFF<Bit>>,

    // Mark stage 0: the depth the markable event saw (selected from its
    // queue's), the enqueue's and dequeue's fields and the test bits of the
    // enqueue's queue (the decision is formed from them in the next
    // cycle), the ramp's parameters.
    m0_valid: DFF<Bit>,
    m0_notect: DFF<Bit>,
    m0_ect: DFF<Bit>,
    m0_ecn: DFF<Bits<2>>,
    m0_deq_valid: DFF<Bit>,
    m0_deq_ecn: DFF<Bits<2>>,
    /// `ge_kdrop` and `tail_hit` of the enqueue's queue.
    m0_wh: DFF<Bit>,
    m0_th: DFF<Bit>,
    m0_q: DFF<Bits<D>>,
    m0_kmin: DFF<Bits<D>>,
    m0_kmax: DFF<Bits<D>>,
    m0_pmax: DFF<Bits<17>>,
    m0_span: DFF<Bits<D>>,
    m0_u: DFF<Bits<16>>,

    // Mark stage 1: compares with the ramp, `q - kmin`, the operands of
    // the two products.
    m1_flags: DFF<Bits<11>>,
    m1_over: DFF<Bits<D>>,
    m1_pmax: DFF<Bits<17>>,
    m1_span: DFF<Bits<D>>,
    m1_u: DFF<Bits<17>>,
    /// `(q - kmin) * pmax`, with flags [9:0] of stage 1 as its tag.
    rhs_mul: PipeMul<D, 10>,
    /// `u * (kmax - kmin)`, with flag [10] as its tag.
    lhs_mul: PipeMul<D, 1>,

    // The compare of the products, registered apart from the decision.
    d_flags: DFF<Bits<11>>,
    d_lt: DFF<Bit>,

    // Output registers.
    o_valid: DFF<Bit>,
    o_action: DFF<Bits<2>>,
    o_ecn: DFF<Bits<2>>,
    o_deq_valid: DFF<Bit>,
    o_deq_mark: DFF<Bit>,
    o_deq_ecn: DFF<Bits<2>>,

    // Combinational intermediates.
    /// Per queue: the enqueue's, dequeue's, load's index names queue i.
    eq_hit: Vec<Signal<Local, Bit>>,
    dq_hit: Vec<Signal<Local, Bit>>,
    cfg_hit: Vec<Signal<Local, Bit>>,
    /// ... the event that can be marked is queue i's.
    mq_hit: Vec<Signal<Local, Bit>>,
    p_kmin: Signal<Local, Bits<D>>,
    p_kmax: Signal<Local, Bits<D>>,
    p_pmax: Signal<Local, Bits<17>>,
    enq_s: Signal<Local, Bits<S>>,
    deq_s: Signal<Local, Bits<S>>,
    // Per queue (one signal each: a signal is assigned once).
    q_s: Vec<Signal<Local, Bits<S>>>,
    sum_a: Vec<Signal<Local, Bits<S>>>,
    sum_n: Vec<Signal<Local, Bits<S>>>,
    test_wa: Vec<Signal<Local, Bits<S>>>,
    test_wn: Vec<Signal<Local, Bits<S>>>,
    test_ta: Vec<Signal<Local, Bits<S>>>,
    test_tn: Vec<Signal<Local, Bits<S>>>,
    admit_q: Vec<Signal<Local, Bit>>,
    /// The selected sum is negative (an underflow: the depth becomes 0).
    uf_now: Vec<Signal<Local, Bit>>,
    /// Queue i's selected sum: its next depth before the underflow clamp.
    nd: Vec<Signal<Local, Bits<S>>>,
    /// The carry-save form of `c + len' + ~buf_max'` (admitted, not).
    xa: Vec<Signal<Local, Bits<S>>>,
    ka: Vec<Signal<Local, Bits<S>>>,
    xn: Vec<Signal<Local, Bits<S>>>,
    kn: Vec<Signal<Local, Bits<S>>>,
    /// `~buf_max'` of queue i's copy in stage A.
    nbm: Vec<Signal<Local, Bits<S>>>,
    wred: Signal<Local, Bit>,
    tail: Signal<Local, Bit>,
    admit: Signal<Local, Bit>,
    q_mark_s: Signal<Local, Bits<S>>,
    q_mark: Signal<Local, Bits<D>>,
    x1: Signal<Local, Bits<32>>,
    x2: Signal<Local, Bits<32>>,
    x3: Signal<Local, Bits<32>>,
    ge_kmin: Signal<Local, Bit>,
    ge_kmax: Signal<Local, Bit>,
    cand: Signal<Local, Bit>,
    f_action: Signal<Local, Bits<2>>,
    f_ecn: Signal<Local, Bits<2>>,
    f_deq_ecn: Signal<Local, Bits<2>>,
    flags: Signal<Local, Bits<11>>,
    f_ect: Signal<Local, Bit>,
    f_ge_kmin: Signal<Local, Bit>,
    f_ge_kmax: Signal<Local, Bit>,
    mark: Signal<Local, Bit>,
    q_show: Signal<Local, Bits<S>>,
    /// `oh[i]` if queue i's underflow bit is set, else 0 (MAX_QUEUES long,
    /// so that the output is one OR written out).
    uf_part: Vec<Signal<Local, Bits<Q>>>,
    wred_hit: Signal<Local, Bit>,
    tail_hit_c: Signal<Local, Bit>,

    // Generation-time constants.
    reset_kmin: Param<Bits<D>>,
    reset_kmax: Param<Bits<D>>,
    reset_pmax: Param<Bits<17>>,
    reset_kdrop: Param<Bits<D>>,
    reset_buf_max: Param<Bits<D>>,
    reset_seed: Param<Bits<32>>,
    fallback_seed: Param<Bits<32>>,
    /// The sign bit of an S-bit quantity, `1 << (S - 1)`.
    sign_s: Param<Bits<S>>,
    /// `oh[i]`: queue i as a one-hot.
    oh: Vec<Param<Bits<Q>>>,
    /// `qidx[i] = i`, the index of queue i.
    qidx: Vec<Param<Bits<QB>>>,
    /// `Q - 1`: the index bits that name a queue.
    qmask: Param<Bits<QB>>,
    /// Marking is applied to the dequeue (`mark_at = "dequeue"`).
    mark_deq: Param<Bit>,
}

impl<const D: usize, const L: usize, const S: usize, const Q: usize, const QB: usize>
    Cp<D, L, S, Q, QB>
{
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `D`, `L` and `Q` equal to its shape, `S = D + 3`
    /// and `QB = queue_bits`.
    pub fn new(config: &CpConfig) -> Self {
        assert_eq!(config.shape.depth_bits as usize, D);
        assert_eq!(config.shape.len_bits as usize, L);
        assert_eq!(config.shape.queues as usize, Q);
        assert_eq!(config.shape.queue_bits() as usize, QB);
        assert_eq!(S, D + 3);
        let r = &config.reset;
        let seed = if r.seed == 0 { RESET_SEED } else { r.seed };
        fn per_queue<T: Default>(q: usize) -> Vec<T> {
            (0..q).map(|_| T::default()).collect()
        }
        Self {
            kmin: per_queue(Q),
            kmax: per_queue(Q),
            pmax: per_queue(Q),
            kdrop: per_queue(Q),
            buf_max: per_queue(Q),
            b_ca: per_queue(Q),
            b_cn: per_queue(Q),
            c_ca: per_queue(Q),
            c_cn: per_queue(Q),
            c_wa: per_queue(Q),
            c_wn: per_queue(Q),
            c_ta: per_queue(Q),
            c_tn: per_queue(Q),
            depth: per_queue(Q),
            depth_o: per_queue(Q),
            uf_now: per_queue(Q),
            nd: per_queue(Q),
            underflow: per_queue(Q),
            ge_kdrop: per_queue(Q),
            tail_hit: per_queue(Q),
            uf_part: per_queue(MAX_QUEUES),
            oh: (0..Q).map(|i| Param::new((1u64 << i).to_bits())).collect(),
            q_s: per_queue(Q),
            sum_a: per_queue(Q),
            sum_n: per_queue(Q),
            test_wa: per_queue(Q),
            test_wn: per_queue(Q),
            test_ta: per_queue(Q),
            test_tn: per_queue(Q),
            admit_q: per_queue(Q),
            a_kd: per_queue(Q),
            a_bm: per_queue(Q),
            a_lq: per_queue(Q),
            c_wz: per_queue(Q),
            c_tz: per_queue(Q),
            nbm: per_queue(Q),
            xa: per_queue(Q),
            ka: per_queue(Q),
            xn: per_queue(Q),
            kn: per_queue(Q),
            reset_kmin: Param::new((r.kmin as u64).to_bits()),
            reset_kmax: Param::new((r.kmax as u64).to_bits()),
            reset_pmax: Param::new((r.pmax as u64).to_bits()),
            reset_kdrop: Param::new((r.kdrop as u64).to_bits()),
            reset_buf_max: Param::new((r.buf_max as u64).to_bits()),
            reset_seed: Param::new((seed as u64).to_bits()),
            fallback_seed: Param::new((RESET_SEED as u64).to_bits()),
            sign_s: Param::new((1u64 << (S - 1)).to_bits()),
            qidx: (0..Q).map(|i| Param::new((i as u64).to_bits())).collect(),
            a_eq: per_queue(Q),
            a_dq: per_queue(Q),
            a_mq: per_queue(Q),
            a_dsel: per_queue(Q),
            b_eq: per_queue(Q),
            b_mq: per_queue(Q),
            b_dsel: per_queue(Q),
            c_eq: per_queue(Q),
            c_mq: per_queue(Q),
            c_dsel: per_queue(Q),
            eq_hit: per_queue(Q),
            dq_hit: per_queue(Q),
            cfg_hit: per_queue(Q),
            mq_hit: per_queue(Q),
            qmask: Param::new(((Q - 1) as u64).to_bits()),
            mark_deq: Param::new(config.shape.mark_at == MarkAt::Dequeue),
            ..Default::default()
        }
    }
}

impl<const D: usize, const L: usize, const S: usize, const Q: usize, const QB: usize> Logic
    for Cp<D, L, S, Q, QB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            rng,
            a_valid,
            a_notect,
            a_ect,
            a_ecn,
            a_deq_valid,
            a_deq_ecn,
            a_len,
            a_nd,
            a_lmd,
            a_kmin,
            a_kmax,
            a_pmax,
            a_u,
            b_valid,
            b_notect,
            b_ect,
            b_ecn,
            b_deq_valid,
            b_deq_ecn,
            b_kmin,
            b_kmax,
            b_pmax,
            b_span,
            b_u,
            c_valid,
            c_notect,
            c_ect,
            c_ecn,
            c_deq_valid,
            c_deq_ecn,
            c_kmin,
            c_kmax,
            c_pmax,
            c_span,
            c_u,
            m0_valid,
            m0_notect,
            m0_ect,
            m0_ecn,
            m0_deq_valid,
            m0_deq_ecn,
            m0_wh,
            m0_th,
            m0_q,
            m0_kmin,
            m0_kmax,
            m0_pmax,
            m0_span,
            m0_u,
            m1_flags,
            m1_over,
            m1_pmax,
            m1_span,
            m1_u,
            d_flags,
            d_lt,
            o_valid,
            o_action,
            o_ecn,
            o_deq_valid,
            o_deq_mark,
            o_deq_ecn
        );
        for i in 0..Q {
            self.kmin[i].clock.next = self.clk.val();
            self.kmax[i].clock.next = self.clk.val();
            self.pmax[i].clock.next = self.clk.val();
            self.kdrop[i].clock.next = self.clk.val();
            self.buf_max[i].clock.next = self.clk.val();
            self.b_ca[i].clock.next = self.clk.val();
            self.b_cn[i].clock.next = self.clk.val();
            self.c_ca[i].clock.next = self.clk.val();
            self.c_cn[i].clock.next = self.clk.val();
            self.c_wa[i].clock.next = self.clk.val();
            self.c_wn[i].clock.next = self.clk.val();
            self.c_ta[i].clock.next = self.clk.val();
            self.c_tn[i].clock.next = self.clk.val();
            self.depth[i].clock.next = self.clk.val();
            self.depth_o[i].clock.next = self.clk.val();
            self.underflow[i].clock.next = self.clk.val();
            self.ge_kdrop[i].clock.next = self.clk.val();
            self.tail_hit[i].clock.next = self.clk.val();
            self.a_kd[i].clock.next = self.clk.val();
            self.a_bm[i].clock.next = self.clk.val();
            self.a_lq[i].clock.next = self.clk.val();
            self.c_wz[i].clock.next = self.clk.val();
            self.c_tz[i].clock.next = self.clk.val();
            self.a_eq[i].clock.next = self.clk.val();
            self.a_dq[i].clock.next = self.clk.val();
            self.a_mq[i].clock.next = self.clk.val();
            self.a_dsel[i].clock.next = self.clk.val();
            self.b_eq[i].clock.next = self.clk.val();
            self.b_mq[i].clock.next = self.clk.val();
            self.b_dsel[i].clock.next = self.clk.val();
            self.c_eq[i].clock.next = self.clk.val();
            self.c_mq[i].clock.next = self.clk.val();
            self.c_dsel[i].clock.next = self.clk.val();
            self.underflow[i].d.next = self.underflow[i].q.val();
            self.ge_kdrop[i].d.next = self.ge_kdrop[i].q.val();
            self.tail_hit[i].d.next = self.tail_hit[i].q.val();
            self.kmin[i].d.next = self.kmin[i].q.val();
            self.kmax[i].d.next = self.kmax[i].q.val();
            self.pmax[i].d.next = self.pmax[i].q.val();
            self.kdrop[i].d.next = self.kdrop[i].q.val();
            self.buf_max[i].d.next = self.buf_max[i].q.val();
            self.b_ca[i].d.next = self.b_ca[i].q.val();
            self.b_cn[i].d.next = self.b_cn[i].q.val();
            self.c_ca[i].d.next = self.c_ca[i].q.val();
            self.c_cn[i].d.next = self.c_cn[i].q.val();
            self.c_wa[i].d.next = self.c_wa[i].q.val();
            self.c_wn[i].d.next = self.c_wn[i].q.val();
            self.c_ta[i].d.next = self.c_ta[i].q.val();
            self.c_tn[i].d.next = self.c_tn[i].q.val();
            self.depth[i].d.next = self.depth[i].q.val();
        }

        // ---- Ports into stage A: the events and their queues' profiles -------
        // The lengths count only through `a_eq` and `a_dq`, which carry
        // the valids: a dequeue's length only on its queue, an enqueue's
        // only if it is admitted.
        self.enq_s.next = bit_cast::<S, L>(self.s_enq_len.val());
        self.deq_s.next = bit_cast::<S, L>(self.s_deq_len.val());
        // Queues one-hot; an index's bits above log2(Q) are ignored. The
        // drop thresholds of the enqueue's queue, the ramp of the queue of
        // the event that can be marked.
        self.p_kmin.next = 0.into();
        self.p_kmax.next = 0.into();
        self.p_pmax.next = 0.into();
        for i in 0..Q {
            self.eq_hit[i].next = (self.s_enq_queue.val() & self.qmask.val()) == self.qidx[i].val();
            self.dq_hit[i].next = (self.s_deq_queue.val() & self.qmask.val()) == self.qidx[i].val();
            self.cfg_hit[i].next =
                (self.s_cfg_queue.val() & self.qmask.val()) == self.qidx[i].val();
            self.a_dsel[i].d.next = (self.depth_sel.val() & self.qmask.val()) == self.qidx[i].val();
            self.a_eq[i].d.next = self.s_enq_valid.val() & self.eq_hit[i].val();
            self.a_dq[i].d.next = self.s_deq_valid.val() & self.dq_hit[i].val();
            self.mq_hit[i].next = self.eq_hit[i].val();
            if self.mark_deq.val() {
                self.mq_hit[i].next = self.dq_hit[i].val();
            }
            self.a_mq[i].d.next = self.mq_hit[i].val();
            self.a_kd[i].d.next = self.kdrop[i].q.val();
            self.a_bm[i].d.next = self.buf_max[i].q.val();
            self.a_lq[i].d.next = 0.into();
            if self.eq_hit[i].val() {
                self.a_lq[i].d.next = self.enq_s.val();
            }
            if self.mq_hit[i].val() {
                self.p_kmin.next = self.kmin[i].q.val();
                self.p_kmax.next = self.kmax[i].q.val();
                self.p_pmax.next = self.pmax[i].q.val();
            }
        }
        self.a_valid.d.next = self.s_enq_valid.val();
        self.a_notect.d.next = self.s_enq_ecn.val() == 0;
        self.a_ect.d.next = (self.s_enq_ecn.val() == 1) | (self.s_enq_ecn.val() == 2);
        self.a_ecn.d.next = self.s_enq_ecn.val();
        self.a_deq_valid.d.next = self.s_deq_valid.val();
        self.a_deq_ecn.d.next = self.s_deq_ecn.val();
        self.a_len.d.next = self.enq_s.val();
        self.a_nd.d.next = Bits::<S>::from(0) - self.deq_s.val();
        self.a_lmd.d.next = self.enq_s.val() - self.deq_s.val();
        self.a_kmin.d.next = self.p_kmin.val();
        self.a_kmax.d.next = self.p_kmax.val();
        self.a_pmax.d.next = self.p_pmax.val();
        self.a_u.d.next = self.rng.q.val().get_bits::<16>(16);

        // Random source: xorshift32 (13, 17, 5), one step per cycle.
        self.x1.next = self.rng.q.val() ^ (self.rng.q.val() << 13);
        self.x2.next = self.x1.val() ^ (self.x1.val() >> 17);
        self.x3.next = self.x2.val() ^ (self.x2.val() << 5);
        self.rng.d.next = self.x3.val();

        // Parameter load: one queue's profile, and the shared seed.
        if self.s_cfg_valid.val() {
            for i in 0..Q {
                if self.cfg_hit[i].val() {
                    self.kmin[i].d.next = self.s_cfg_kmin.val();
                    self.kmax[i].d.next = self.s_cfg_kmax.val();
                    self.pmax[i].d.next = self.s_cfg_pmax.val();
                    self.kdrop[i].d.next = bit_cast::<S, D>(self.s_cfg_kdrop.val());
                    self.buf_max[i].d.next = bit_cast::<S, D>(self.s_cfg_buf_max.val());
                }
            }
            self.rng.d.next = self.s_cfg_seed.val();
            if self.s_cfg_seed.val() == 0 {
                self.rng.d.next = self.fallback_seed.val();
            }
        }

        // ---- Stage A into B: each queue's depth change -------------------------
        for i in 0..Q {
            self.b_cn[i].d.next = 0.into();
            self.b_ca[i].d.next = 0.into();
            if self.a_dq[i].q.val() {
                self.b_cn[i].d.next = self.a_nd.q.val();
                self.b_ca[i].d.next = self.a_nd.q.val();
            }
            if self.a_eq[i].q.val() {
                self.b_ca[i].d.next = self.a_len.q.val();
                if self.a_dq[i].q.val() {
                    self.b_ca[i].d.next = self.a_lmd.q.val();
                }
            }
        }
        self.b_valid.d.next = self.a_valid.q.val();
        for i in 0..Q {
            self.b_eq[i].d.next = self.a_eq[i].q.val();
            self.b_mq[i].d.next = self.a_mq[i].q.val();
            self.b_dsel[i].d.next = self.a_dsel[i].q.val();
        }
        self.b_notect.d.next = self.a_notect.q.val();
        self.b_ect.d.next = self.a_ect.q.val();
        self.b_ecn.d.next = self.a_ecn.q.val();
        self.b_deq_valid.d.next = self.a_deq_valid.q.val();
        self.b_deq_ecn.d.next = self.a_deq_ecn.q.val();
        self.b_kmin.d.next = self.a_kmin.q.val();
        self.b_kmax.d.next = self.a_kmax.q.val();
        self.b_pmax.d.next = self.a_pmax.q.val();
        self.b_span.d.next = self.a_kmax.q.val() - self.a_kmin.q.val();
        self.b_u.d.next = self.a_u.q.val();

        // ---- Stage B into C: the loops' constants ------------------------------
        // This event (B) changes queue i's depth by ca_i or cn_i; the next
        // event (A) is WRED-dropped at q' >= kdrop' and tail-dropped at
        // q' > t' = buf_max' - len', with q' = q_i + ca_i or q_i + cn_i for
        // its queue i. As sign tests on q_i, for every queue:
        //   q_i + (c_i - kdrop') >= 0   and   q_i + (c_i + len' + ~buf_max') >= 0
        // (c + len' + ~buf_max' = c + ~t'). The three-operand sum is one
        // carry-save level (a LUT per bit) and one carry chain: `buf_max'`
        // comes from the queue's profile through a select, and a subtraction
        // after the select would not fit the port cycle.
        for i in 0..Q {
            self.nbm[i].next = !self.a_bm[i].q.val();
            self.c_wa[i].d.next = self.b_ca[i].q.val() - self.a_kd[i].q.val();
            self.c_wn[i].d.next = self.b_cn[i].q.val() - self.a_kd[i].q.val();
            self.xa[i].next = self.b_ca[i].q.val() ^ self.a_lq[i].q.val() ^ self.nbm[i].val();
            self.ka[i].next = ((self.b_ca[i].q.val() & self.a_lq[i].q.val())
                | (self.b_ca[i].q.val() & self.nbm[i].val())
                | (self.a_lq[i].q.val() & self.nbm[i].val()))
                << 1;
            self.xn[i].next = self.b_cn[i].q.val() ^ self.a_lq[i].q.val() ^ self.nbm[i].val();
            self.kn[i].next = ((self.b_cn[i].q.val() & self.a_lq[i].q.val())
                | (self.b_cn[i].q.val() & self.nbm[i].val())
                | (self.a_lq[i].q.val() & self.nbm[i].val()))
                << 1;
            self.c_ta[i].d.next = self.xa[i].val() + self.ka[i].val();
            self.c_tn[i].d.next = self.xn[i].val() + self.kn[i].val();
            self.c_ca[i].d.next = self.b_ca[i].q.val();
            self.c_cn[i].d.next = self.b_cn[i].q.val();
            // On an empty queue: 0 >= kdrop', and 0 > t' (len' > buf_max').
            self.c_wz[i].d.next = self.a_kd[i].q.val() == 0;
            self.c_tz[i].d.next = self.a_lq[i].q.val() > self.a_bm[i].q.val();
        }
        for i in 0..Q {
            self.c_eq[i].d.next = self.b_eq[i].q.val();
            self.c_mq[i].d.next = self.b_mq[i].q.val();
            self.c_dsel[i].d.next = self.b_dsel[i].q.val();
        }
        self.c_valid.d.next = self.b_valid.q.val();
        self.c_notect.d.next = self.b_notect.q.val();
        self.c_ect.d.next = self.b_ect.q.val();
        self.c_ecn.d.next = self.b_ecn.q.val();
        self.c_deq_valid.d.next = self.b_deq_valid.q.val();
        self.c_deq_ecn.d.next = self.b_deq_ecn.q.val();
        self.c_kmin.d.next = self.b_kmin.q.val();
        self.c_kmax.d.next = self.b_kmax.q.val();
        self.c_pmax.d.next = self.b_pmax.q.val();
        self.c_span.d.next = self.b_span.q.val();
        self.c_u.d.next = self.b_u.q.val();

        // ---- Stage C: one depth loop per queue ---------------------------------
        // Queue i admits the enqueue only if it is queue i's (c_eq one-hot,
        // zero without an enqueue) and its own two test bits pass: the loop
        // of each queue is the one-queue loop, on the events of its queue.
        for i in 0..Q {
            self.admit_q[i].next = self.c_eq[i].q.val()
                & !(self.c_notect.q.val() & self.ge_kdrop[i].q.val())
                & !self.tail_hit[i].q.val();
            self.q_s[i].next = self.depth[i].q.val();
            // Each sum its own wire, all in parallel, selected late.
            self.sum_a[i].next = self.q_s[i].val() + self.c_ca[i].q.val();
            self.sum_n[i].next = self.q_s[i].val() + self.c_cn[i].q.val();
            self.test_wa[i].next = self.q_s[i].val() + self.c_wa[i].q.val();
            self.test_wn[i].next = self.q_s[i].val() + self.c_wn[i].q.val();
            self.test_ta[i].next = self.q_s[i].val() + self.c_ta[i].q.val();
            self.test_tn[i].next = self.q_s[i].val() + self.c_tn[i].q.val();
            // The next event's tests do not depend on the clamp: with
            // q' = max(0, sum), `q' >= kdrop'` is `sum >= kdrop' or
            // 0 >= kdrop'` and `q' > t'` is `sum > t' or 0 > t'`, so each
            // test bit is its own sum's sign OR'd with a registered bit
            // (c_wz, c_tz), selected by admit_q: after the carry chains a
            // test bit takes two signs and two registered inputs.
            // The depth: the selected sum, or 0 on an underflow (its sign
            // set), clamped in each case before the late select (a LUT5 per
            // bit: admit_q, the two sums' bit and their signs). The copy for
            // the readers off the loop takes the selected sum unclamped.
            if self.admit_q[i].val() {
                self.ge_kdrop[i].d.next =
                    self.c_wz[i].q.val() | ((self.test_wa[i].val() & self.sign_s.val()) == 0);
                self.tail_hit[i].d.next =
                    self.c_tz[i].q.val() | ((self.test_ta[i].val() & self.sign_s.val()) == 0);
                self.uf_now[i].next = (self.sum_a[i].val() & self.sign_s.val()) != 0;
                self.nd[i].next = self.sum_a[i].val();
                self.depth[i].d.next = self.sum_a[i].val();
                if (self.sum_a[i].val() & self.sign_s.val()) != 0 {
                    self.depth[i].d.next = 0.into();
                }
            } else {
                self.ge_kdrop[i].d.next =
                    self.c_wz[i].q.val() | ((self.test_wn[i].val() & self.sign_s.val()) == 0);
                self.tail_hit[i].d.next =
                    self.c_tz[i].q.val() | ((self.test_tn[i].val() & self.sign_s.val()) == 0);
                self.uf_now[i].next = (self.sum_n[i].val() & self.sign_s.val()) != 0;
                self.nd[i].next = self.sum_n[i].val();
                self.depth[i].d.next = self.sum_n[i].val();
                if (self.sum_n[i].val() & self.sign_s.val()) != 0 {
                    self.depth[i].d.next = 0.into();
                }
            }
            self.depth_o[i].d.next = self.nd[i].val();
            if self.uf_now[i].val() {
                self.underflow[i].d.next = true;
            }
        }

        // ---- Stage C into mark stage 0 (off the loops) ------------------------
        // The test bits of the enqueue's queue, selected by the one-hot; the
        // depth the event that can be marked sees, selected from its
        // queue's. Registered with the events' fields: the decision is formed
        // in the next cycle, so a select over the queues and the decision's
        // few LUTs are not in one cycle.
        self.wred_hit.next = false;
        self.tail_hit_c.next = false;
        for i in 0..Q {
            if self.c_eq[i].q.val() {
                self.wred_hit.next = self.ge_kdrop[i].q.val();
                self.tail_hit_c.next = self.tail_hit[i].q.val();
            }
        }
        self.m0_wh.d.next = self.wred_hit.val();
        self.m0_th.d.next = self.tail_hit_c.val();
        self.m0_valid.d.next = self.c_valid.q.val();
        self.m0_notect.d.next = self.c_notect.q.val();
        self.m0_ect.d.next = self.c_ect.q.val();
        self.m0_ecn.d.next = self.c_ecn.q.val();
        self.m0_deq_valid.d.next = self.c_deq_valid.q.val();
        self.m0_deq_ecn.d.next = self.c_deq_ecn.q.val();
        self.q_mark_s.next = 0.into();
        for i in 0..Q {
            if self.c_mq[i].q.val() {
                self.q_mark_s.next = self.depth_o[i].q.val();
                if (self.depth_o[i].q.val() & self.sign_s.val()) != 0 {
                    self.q_mark_s.next = 0.into();
                }
            }
        }
        self.q_mark.next = bit_cast::<D, S>(self.q_mark_s.val());
        self.m0_q.d.next = self.q_mark.val();
        self.m0_kmin.d.next = self.c_kmin.q.val();
        self.m0_kmax.d.next = self.c_kmax.q.val();
        self.m0_pmax.d.next = self.c_pmax.q.val();
        self.m0_span.d.next = self.c_span.q.val();
        self.m0_u.d.next = self.c_u.q.val();

        // ---- Mark stage 0 into 1: the decision, the compares with the ramp,
        // `q - kmin` ----------------------------------------------------------
        self.wred.next = self.m0_notect.q.val() & self.m0_wh.q.val();
        self.tail.next = !self.wred.val() & self.m0_th.q.val();
        self.admit.next = self.m0_valid.q.val() & !self.wred.val() & !self.tail.val();
        self.cand.next = self.admit.val() & self.m0_ect.q.val();
        if self.mark_deq.val() {
            self.cand.next = self.m0_deq_valid.q.val()
                & ((self.m0_deq_ecn.q.val() == 1) | (self.m0_deq_ecn.q.val() == 2));
        }
        // Flags: [0] enqueue valid, [2:1] its action, [4:3] its ECN out,
        // [5] the markable event is ECT (and admitted), [6] q >= kmin,
        // [7] dequeue valid, [9:8] its ECN, [10] q >= kmax.
        self.f_action.next = 0.into();
        if self.wred.val() {
            self.f_action.next = 2.into();
        }
        if self.tail.val() {
            self.f_action.next = 3.into();
        }
        self.f_ecn.next = 0.into();
        if self.admit.val() {
            self.f_ecn.next = self.m0_ecn.q.val();
        }
        self.f_deq_ecn.next = 0.into();
        if self.m0_deq_valid.q.val() {
            self.f_deq_ecn.next = self.m0_deq_ecn.q.val();
        }
        self.flags.next = bit_cast::<11, 1>(self.m0_valid.q.val().into())
            | (bit_cast::<11, 2>(self.f_action.val()) << 1)
            | (bit_cast::<11, 2>(self.f_ecn.val()) << 3)
            | (bit_cast::<11, 1>(self.cand.val().into()) << 5)
            | (bit_cast::<11, 1>(self.m0_deq_valid.q.val().into()) << 7)
            | (bit_cast::<11, 2>(self.f_deq_ecn.val()) << 8);
        self.ge_kmin.next = self.m0_q.q.val() >= self.m0_kmin.q.val();
        self.ge_kmax.next = self.m0_q.q.val() >= self.m0_kmax.q.val();
        self.m1_flags.d.next = self.flags.val()
            | (bit_cast::<11, 1>(self.ge_kmin.val().into()) << 6)
            | (bit_cast::<11, 1>(self.ge_kmax.val().into()) << 10);
        self.m1_over.d.next = self.m0_q.q.val() - self.m0_kmin.q.val();
        self.m1_pmax.d.next = self.m0_pmax.q.val();
        self.m1_span.d.next = self.m0_span.q.val();
        self.m1_u.d.next = bit_cast::<17, 16>(self.m0_u.q.val());

        // ---- Mark stage 1 into the products (five cycles) -----------------------
        self.rhs_mul.clk.next = self.clk.val();
        self.rhs_mul.rst.next = self.rst.val();
        self.rhs_mul.a.next = self.m1_over.q.val();
        self.rhs_mul.b.next = self.m1_pmax.q.val();
        self.rhs_mul.tag.next = self.m1_flags.q.val().get_bits::<10>(0);
        self.lhs_mul.clk.next = self.clk.val();
        self.lhs_mul.rst.next = self.rst.val();
        self.lhs_mul.a.next = self.m1_span.q.val();
        self.lhs_mul.b.next = self.m1_u.q.val();
        self.lhs_mul.tag.next = self.m1_flags.q.val().get_bits::<1>(10);

        // ---- The decision: u * (kmax - kmin) < (q - kmin) * pmax ----------------
        // The 45-bit compare alone in its cycle; the decision in the next.
        self.d_lt.d.next = self.lhs_mul.p.val() < self.rhs_mul.p.val();
        self.d_flags.d.next = bit_cast::<11, 10>(self.rhs_mul.tag_out.val())
            | (bit_cast::<11, 1>(self.lhs_mul.tag_out.val()) << 10);
        self.f_ect.next = self.d_flags.q.val().get_bit(5);
        self.f_ge_kmin.next = self.d_flags.q.val().get_bit(6);
        self.f_ge_kmax.next = self.d_flags.q.val().get_bit(10);
        self.mark.next =
            self.f_ect.val() & (self.f_ge_kmax.val() | (self.f_ge_kmin.val() & self.d_lt.q.val()));
        self.o_valid.d.next = self.d_flags.q.val().get_bit(0);
        self.o_action.d.next = self.d_flags.q.val().get_bits::<2>(1);
        self.o_ecn.d.next = self.d_flags.q.val().get_bits::<2>(3);
        self.o_deq_valid.d.next = self.d_flags.q.val().get_bit(7);
        self.o_deq_mark.d.next = false;
        self.o_deq_ecn.d.next = self.d_flags.q.val().get_bits::<2>(8);
        if self.mark.val() {
            if self.mark_deq.val() {
                self.o_deq_mark.d.next = true;
                self.o_deq_ecn.d.next = 3.into();
            } else {
                self.o_action.d.next = 1.into();
                self.o_ecn.d.next = 3.into();
            }
        }

        // ---- Synchronous reset ---------------------------------------------
        if self.rst.val() {
            for i in 0..Q {
                self.kmin[i].d.next = self.reset_kmin.val();
                self.kmax[i].d.next = self.reset_kmax.val();
                self.pmax[i].d.next = self.reset_pmax.val();
                self.kdrop[i].d.next = bit_cast::<S, D>(self.reset_kdrop.val());
                self.buf_max[i].d.next = bit_cast::<S, D>(self.reset_buf_max.val());
                self.b_cn[i].d.next = 0.into();
                self.c_cn[i].d.next = 0.into();
                self.depth[i].d.next = 0.into();
            }
            self.rng.d.next = self.reset_seed.val();
            // The stages before the loops become bubbles: no enqueue, no
            // dequeue (`cn = 0`). Their other fields are used only with an
            // event, and the loops' test bits are recomputed every cycle
            // before the first enqueue after reset reaches them.
            self.a_valid.d.next = false;
            for i in 0..Q {
                self.a_eq[i].d.next = false;
                self.a_dq[i].d.next = false;
                self.b_eq[i].d.next = false;
                self.c_eq[i].d.next = false;
            }
            self.a_deq_valid.d.next = false;
            self.b_valid.d.next = false;
            self.b_deq_valid.d.next = false;
            self.c_valid.d.next = false;
            self.c_deq_valid.d.next = false;
            for i in 0..Q {
                self.underflow[i].d.next = false;
            }
            // Mark stage 0 holds no event (the enqueue's test bits too: the
            // decision's action is formed from them with or without a valid).
            self.m0_valid.d.next = false;
            self.m0_deq_valid.d.next = false;
            self.m0_wh.d.next = false;
            self.m0_th.d.next = false;
            self.m1_flags.d.next = 0.into();
            self.d_flags.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_action.d.next = 0.into();
            self.o_ecn.d.next = 0.into();
            self.o_deq_valid.d.next = false;
            self.o_deq_mark.d.next = false;
            self.o_deq_ecn.d.next = 0.into();
        }

        // ---- Outputs ---------------------------------------------------------
        self.q_show.next = 0.into();
        for i in 0..Q {
            if self.c_dsel[i].q.val() {
                self.q_show.next = self.depth[i].q.val();
            }
        }
        self.m_dec_valid.next = self.o_valid.q.val();
        self.m_dec_action.next = self.o_action.q.val();
        self.m_dec_ecn.next = self.o_ecn.q.val();
        self.m_deq_valid.next = self.o_deq_valid.q.val();
        self.m_deq_mark.next = self.o_deq_mark.q.val();
        self.m_deq_ecn.next = self.o_deq_ecn.q.val();
        self.q_depth.next = bit_cast::<D, S>(self.q_show.val());
        for i in 0..MAX_QUEUES {
            self.uf_part[i].next = 0.into();
        }
        for i in 0..Q {
            if self.underflow[i].q.val() {
                self.uf_part[i].next = self.oh[i].val();
            }
        }
        self.err_underflow.next = self.uf_part[0].val()
            | self.uf_part[1].val()
            | self.uf_part[2].val()
            | self.uf_part[3].val()
            | self.uf_part[4].val()
            | self.uf_part[5].val()
            | self.uf_part[6].val()
            | self.uf_part[7].val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// rust-hdl's Verilog for CP, as `generate_verilog` writes it.
pub fn raw_verilog(config: &CpConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($d:literal, $l:literal, $q:literal, $qb:literal) => {{
            let mut b = Cp::<$d, $l, { $d + 3 }, $q, $qb>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_cp_shape!(config.shape, make))
}

/// The finished Verilog file for CP.
pub fn verilog(config: &CpConfig) -> Result<String, ParamError> {
    let raw = raw_verilog(config)?;
    let r = &config.reset;
    let params = [
        ("depth_bits", config.shape.depth_bits.to_string()),
        ("len_bits", config.shape.len_bits.to_string()),
        ("queues", config.shape.queues.to_string()),
        ("mark_at", config.shape.mark_at.name().to_string()),
        ("reset.kmin", r.kmin.to_string()),
        ("reset.kmax", r.kmax.to_string()),
        (
            "reset.pmax",
            format!("{} (Q1.16, = {})", r.pmax, r.pmax as f64 / 65536.0),
        ),
        ("reset.kdrop", r.kdrop.to_string()),
        ("reset.buf_max", r.buf_max.to_string()),
        (
            "reset.seed",
            if r.seed == 0 {
                format!("0x{RESET_SEED:08x} (0 in the params selects it)")
            } else {
                format!("0x{:08x}", r.seed)
            },
        ),
    ];
    Ok(crate::emit::finish(
        "cp",
        "switch egress-queue congestion point: RED/ECN marking, WRED drop, tail drop",
        &format!(
            "II = 1; decision {LATENCY} cycles after its enqueue; q_depth {DEPTH_LAG} cycles behind"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl CP block for a configuration, behind a trait object so that
/// the structural sizes can be chosen at run time.
pub fn sim(config: &CpConfig) -> Result<Box<dyn crate::sim::CycleSim<CpIn, CpOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($d:literal, $l:literal, $q:literal, $qb:literal) => {{
            let mut b = Cp::<$d, $l, { $d + 3 }, $q, $qb>::new(config);
            b.connect_all();
            Box::new(CpSim(b)) as Box<dyn crate::sim::CycleSim<CpIn, CpOut>>
        }};
    }
    Ok(crate::dispatch_cp_shape!(config.shape, make))
}

struct CpSim<const D: usize, const L: usize, const S: usize, const Q: usize, const QB: usize>(
    Cp<D, L, S, Q, QB>,
);

impl<const D: usize, const L: usize, const S: usize, const Q: usize, const QB: usize>
    crate::sim::CycleSim<CpIn, CpOut> for CpSim<D, L, S, Q, QB>
{
    fn cycle(&mut self, i: &CpIn) -> CpOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_enq_valid.next = i.enq_valid;
        b.s_enq_len.next = (i.enq_len as u64).to_bits();
        b.s_enq_ecn.next = (i.enq_ecn as u64).to_bits();
        b.s_enq_queue.next = (i.enq_queue as u64).to_bits();
        b.s_deq_valid.next = i.deq_valid;
        b.s_deq_len.next = (i.deq_len as u64).to_bits();
        b.s_deq_ecn.next = (i.deq_ecn as u64).to_bits();
        b.s_deq_queue.next = (i.deq_queue as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_queue.next = (i.cfg_queue as u64).to_bits();
        b.depth_sel.next = (i.depth_sel as u64).to_bits();
        b.s_cfg_kmin.next = (i.cfg.kmin as u64).to_bits();
        b.s_cfg_kmax.next = (i.cfg.kmax as u64).to_bits();
        b.s_cfg_pmax.next = (i.cfg.pmax as u64).to_bits();
        b.s_cfg_kdrop.next = (i.cfg.kdrop as u64).to_bits();
        b.s_cfg_buf_max.next = (i.cfg.buf_max as u64).to_bits();
        b.s_cfg_seed.next = (i.cfg.seed as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "CP logic did not settle"
        );
        let out = CpOut {
            dec_valid: b.m_dec_valid.val(),
            dec_action: b.m_dec_action.val().to_u8(),
            dec_ecn: b.m_dec_ecn.val().to_u8(),
            deq_valid: b.m_deq_valid.val(),
            deq_mark: b.m_deq_mark.val(),
            deq_ecn: b.m_deq_ecn.val().to_u8(),
            depth: b.q_depth.val().to_u32(),
            underflow: b.err_underflow.val().to_u8(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "CP logic did not settle"
        );
        out
    }
}

/// The ports of CP for a validated configuration, read from the struct.
pub fn ports(config: &CpConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($d:literal, $l:literal, $q:literal, $qb:literal) => {{
            crate::ports::ports_of(&Cp::<$d, $l, { $d + 3 }, $q, $qb>::new(config))
        }};
    }
    crate::dispatch_cp_shape!(config.shape, make)
}

/// Expands `$make!(D, L, Q, QB)` for the run-time shape `$shape`, over every
/// (depth_bits, len_bits, queues) of the menu in `ccrtl_golden::cp_shape_menu!`
/// (the one place the menu is written). The shape must be validated.
#[macro_export]
macro_rules! dispatch_cp_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::cp_shape_menu!([$crate::cp_dispatch_depth] ; $shape, $make)
    };
}

/// One match arm per depth width of the menu (used by `dispatch_cp_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! cp_dispatch_depth {
    (($shape:expr, $make:ident) ; [$($d:literal),*] ; $lens:tt ; $queues:tt) => {{
        let shape = $shape;
        match shape.depth_bits {
            $($d => $crate::cp_dispatch_len!(shape, $make, $d, $lens, $queues),)*
            d => unreachable!("depth_bits {d} passed validation but has no instance"),
        }
    }};
}

/// One match arm per length width of the menu (used by `dispatch_cp_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! cp_dispatch_len {
    ($shape:ident, $make:ident, $d:literal, [$($l:literal),*], $queues:tt) => {
        match $shape.len_bits {
            $($l => $crate::cp_dispatch_queues!($shape, $make, $d, $l, $queues),)*
            l => unreachable!("len_bits {l} passed validation but has no instance"),
        }
    };
}

/// One match arm per queue count of the menu (used by `dispatch_cp_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! cp_dispatch_queues {
    ($shape:ident, $make:ident, $d:literal, $l:literal, [$(($q:literal, $qb:literal)),*]) => {
        match $shape.queues {
            $($q => $crate::own_frame(|| $make!($d, $l, $q, $qb)),)*
            q => unreachable!("queues {q} passed validation but has no instance"),
        }
    };
}
