//! CP — switch egress-queue congestion point: RED/ECN marking, WRED drop,
//! tail drop (seed 001 §2.1 and §2.3, seed 000 §3.1, seed 004 §3.1 Fig. 5).
//! The behaviour, fixed-point formats and timing are specified in
//! `ccrtl_golden::cp`; `docs/cp.md` has the port and parameter tables.
//!
//! # Generation-time parameters
//! - `D` = `depth_bits` in {16, 20, 24, 28}: width of the depth and thresholds;
//! - `L` = `len_bits` in {12, 14, 16}: width of a packet length, `L <= D`;
//! - reset values of the runtime registers (`CpConfig::reset`).
//!
//! # Pipeline (II = 1, decision latency 11; see docs/cp.md "Pipeline")
//! Built for 200 MHz on ECP5-85 speed 8: the depth loop holds one carry
//! chain and one select, nothing else, and no multiplier block is used
//! (yosys maps `*` to MULT18X18D without its registers on ECP5, about 7.5 ns
//! from register to register).
//! - cycle n (ports): per-event constants `ca = len - deq`, `cn = -deq`,
//!   `t = buf_max - len` and the draw `u`, with the parameters in force;
//!   registered as stage A.
//! - n+1 (A): copied into stage B.
//! - n+2 (B): the constants of the loop, each the difference of this
//!   event's delta and the next event's threshold (`ca - kdrop'`,
//!   `ca + ~t'`, ...), so that the tests of the next event are sign bits.
//! - n+3 (C, the loop): from the depth `q` six sums in parallel (the depth
//!   after the event if admitted or not, and the next event's WRED and
//!   tail tests for both cases), selected late by `admit`, which comes from
//!   two registered test bits. Underflow selects 0 and precomputed tests.
//!   Off the loop, `q - kmin` and the compares with `kmin` and `kmax`.
//! - n+4..n+8: the two products `(q - kmin) * pmax` and `u * (kmax - kmin)`
//!   in [`PipeMul`] (adder trees, one level per cycle).
//! - n+9: their compare; n+10: the decision, into the output registers,
//!   seen during cycle n+11.
//!
//! Signed quantities of the loop are `S = D + 3` bits, two's complement:
//! every sum is below `2^D + 2^(L+1) <= 3 * 2^D` in magnitude, so a sign bit
//! is exact.

use ccrtl_golden::cp::{CpConfig, CpIn, CpOut, DEPTH_LAG, LATENCY, RESET_SEED};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::mul::PipeMul;
use crate::param::Param;

#[derive(LogicBlock, Default)]
pub struct Cp<const D: usize, const L: usize, const S: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Enqueue events (valid only: one per cycle is always accepted).
    pub s_enq_valid: Signal<In, Bit>,
    /// Packet length, bytes.
    pub s_enq_len: Signal<In, Bits<L>>,
    /// ECN codepoint: 00 not-ECT, 01 ECT(1), 10 ECT(0), 11 CE.
    pub s_enq_ecn: Signal<In, Bits<2>>,
    // Dequeue events.
    pub s_deq_valid: Signal<In, Bit>,
    /// Bytes leaving the queue.
    pub s_deq_len: Signal<In, Bits<L>>,
    // Parameter load: all registers at once, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
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
    /// New xorshift32 state; 0 selects RESET_SEED.
    pub s_cfg_seed: Signal<In, Bits<32>>,

    // Decisions, seven cycles after their enqueue.
    pub m_dec_valid: Signal<Out, Bit>,
    /// 0 admit, 1 admit and mark CE, 2 WRED drop, 3 tail drop; 0 when not valid.
    pub m_dec_action: Signal<Out, Bits<2>>,
    /// ECN the packet leaves with; 0 when dropped or not valid.
    pub m_dec_ecn: Signal<Out, Bits<2>>,
    // Status.
    /// The depth an enqueue of three cycles ago saw, bytes.
    pub q_depth: Signal<Out, Bits<D>>,
    /// Sticky: a dequeue was longer than the queue; cleared by rst only.
    pub err_underflow: Signal<Out, Bit>,

    // Parameters in force, and the random state.
    kmin: DFF<Bits<D>>,
    kmax: DFF<Bits<D>>,
    pmax: DFF<Bits<17>>,
    kdrop: DFF<Bits<D>>,
    buf_max: DFF<Bits<D>>,
    /// `kmax - kmin` (wrapping; used only on the ramp, where it is >= 1).
    span: DFF<Bits<D>>,
    rng: DFF<Bits<32>>,

    // Stage A: one event with its constants and the parameters of its cycle.
    a_valid: DFF<Bit>,
    a_notect: DFF<Bit>,
    a_ect: DFF<Bit>,
    a_ecn: DFF<Bits<2>>,
    /// Depth change if admitted: `len - deq` (S-bit two's complement).
    a_ca: DFF<Bits<S>>,
    /// Depth change if not admitted: `-deq`.
    a_cn: DFF<Bits<S>>,
    /// Tail threshold: admitted iff `q <= t = buf_max - len`.
    a_t: DFF<Bits<S>>,
    a_kdrop: DFF<Bits<D>>,
    a_kmin: DFF<Bits<D>>,
    a_kmax: DFF<Bits<D>>,
    a_pmax: DFF<Bits<17>>,
    a_span: DFF<Bits<D>>,
    a_u: DFF<Bits<16>>,

    // Stage B.
    b_valid: DFF<Bit>,
    b_notect: DFF<Bit>,
    b_ect: DFF<Bit>,
    b_ecn: DFF<Bits<2>>,
    b_ca: DFF<Bits<S>>,
    b_cn: DFF<Bits<S>>,
    b_kmin: DFF<Bits<D>>,
    b_kmax: DFF<Bits<D>>,
    b_pmax: DFF<Bits<17>>,
    b_span: DFF<Bits<D>>,
    b_u: DFF<Bits<16>>,

    // Stage C: the event in the depth loop.
    c_valid: DFF<Bit>,
    c_notect: DFF<Bit>,
    c_ect: DFF<Bit>,
    c_ecn: DFF<Bits<2>>,
    c_ca: DFF<Bits<S>>,
    c_cn: DFF<Bits<S>>,
    /// Next event's WRED test if this one is admitted: `q + wa >= 0`.
    c_wa: DFF<Bits<S>>,
    /// ... if it is not admitted: `q + wn >= 0`.
    c_wn: DFF<Bits<S>>,
    /// Next event's tail test if this one is admitted: `q + ta >= 0`.
    c_ta: DFF<Bits<S>>,
    c_tn: DFF<Bits<S>>,
    /// The next event's tests on an empty queue (after an underflow).
    c_wz: DFF<Bit>,
    c_tz: DFF<Bit>,
    c_kmin: DFF<Bits<D>>,
    c_kmax: DFF<Bits<D>>,
    c_pmax: DFF<Bits<17>>,
    c_span: DFF<Bits<D>>,
    c_u: DFF<Bits<16>>,

    // The loop's state: the depth, and the tests of the event in stage C.
    depth: DFF<Bits<D>>,
    underflow: DFF<Bit>,
    /// `q >= kdrop` for the event in stage C.
    ge_kdrop: DFF<Bit>,
    /// `q + len > buf_max` for the event in stage C.
    tail_hit: DFF<Bit>,

    // Mark stage 1: compares with the ramp, `q - kmin`, the operands of
    // the two products.
    m1_flags: DFF<Bits<8>>,
    m1_over: DFF<Bits<D>>,
    m1_pmax: DFF<Bits<17>>,
    m1_span: DFF<Bits<D>>,
    m1_u: DFF<Bits<17>>,
    /// `(q - kmin) * pmax`, with flags [6:0] of stage 1 as its tag.
    rhs_mul: PipeMul<D, 7>,
    /// `u * (kmax - kmin)`, with flag [7] as its tag.
    lhs_mul: PipeMul<D, 1>,

    // The compare of the products, registered apart from the decision.
    d_flags: DFF<Bits<8>>,
    d_lt: DFF<Bit>,

    // Output registers.
    o_valid: DFF<Bit>,
    o_action: DFF<Bits<2>>,
    o_ecn: DFF<Bits<2>>,

    // Combinational intermediates.
    enq_s: Signal<Local, Bits<S>>,
    deq_s: Signal<Local, Bits<S>>,
    q_s: Signal<Local, Bits<S>>,
    sum_a: Signal<Local, Bits<S>>,
    sum_n: Signal<Local, Bits<S>>,
    test_wa: Signal<Local, Bits<S>>,
    test_wn: Signal<Local, Bits<S>>,
    test_ta: Signal<Local, Bits<S>>,
    test_tn: Signal<Local, Bits<S>>,
    wred: Signal<Local, Bit>,
    tail: Signal<Local, Bit>,
    admit: Signal<Local, Bit>,
    x1: Signal<Local, Bits<32>>,
    x2: Signal<Local, Bits<32>>,
    x3: Signal<Local, Bits<32>>,
    ge_kmin: Signal<Local, Bit>,
    ge_kmax: Signal<Local, Bit>,
    flags: Signal<Local, Bits<8>>,
    f_valid: Signal<Local, Bit>,
    f_action: Signal<Local, Bits<2>>,
    f_ecn: Signal<Local, Bits<2>>,
    f_ect: Signal<Local, Bit>,
    f_ge_kmin: Signal<Local, Bit>,
    f_ge_kmax: Signal<Local, Bit>,
    mark: Signal<Local, Bit>,

    // Reset values (generation-time).
    reset_kmin: Param<Bits<D>>,
    reset_kmax: Param<Bits<D>>,
    reset_pmax: Param<Bits<17>>,
    reset_kdrop: Param<Bits<D>>,
    reset_buf_max: Param<Bits<D>>,
    reset_span: Param<Bits<D>>,
    reset_seed: Param<Bits<32>>,
    fallback_seed: Param<Bits<32>>,
    /// The sign bit of an S-bit quantity, `1 << (S - 1)`.
    sign_s: Param<Bits<S>>,
}

impl<const D: usize, const L: usize, const S: usize> Cp<D, L, S> {
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `D` and `L` equal to its shape, `S = D + 3`.
    pub fn new(config: &CpConfig) -> Self {
        assert_eq!(config.shape.depth_bits as usize, D);
        assert_eq!(config.shape.len_bits as usize, L);
        assert_eq!(S, D + 3);
        let r = &config.reset;
        let seed = if r.seed == 0 { RESET_SEED } else { r.seed };
        let span = r.kmax.wrapping_sub(r.kmin) as u64 & ((1u64 << D) - 1);
        Self {
            reset_kmin: Param::new((r.kmin as u64).to_bits()),
            reset_kmax: Param::new((r.kmax as u64).to_bits()),
            reset_pmax: Param::new((r.pmax as u64).to_bits()),
            reset_kdrop: Param::new((r.kdrop as u64).to_bits()),
            reset_buf_max: Param::new((r.buf_max as u64).to_bits()),
            reset_span: Param::new(span.to_bits()),
            reset_seed: Param::new((seed as u64).to_bits()),
            fallback_seed: Param::new((RESET_SEED as u64).to_bits()),
            sign_s: Param::new((1u64 << (S - 1)).to_bits()),
            ..Default::default()
        }
    }
}

impl<const D: usize, const L: usize, const S: usize> Logic for Cp<D, L, S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, kmin, kmax, pmax, kdrop, buf_max, span, rng, a_valid, a_notect, a_ect,
            a_ecn, a_ca, a_cn, a_t, a_kdrop, a_kmin, a_kmax, a_pmax, a_span, a_u, b_valid,
            b_notect, b_ect, b_ecn, b_ca, b_cn, b_kmin, b_kmax, b_pmax, b_span, b_u, c_valid,
            c_notect, c_ect, c_ecn, c_ca, c_cn, c_wa, c_wn, c_ta, c_tn, c_wz, c_tz, c_kmin, c_kmax,
            c_pmax, c_span, c_u, depth, underflow, ge_kdrop, tail_hit, m1_flags, m1_over, m1_pmax,
            m1_span, m1_u, d_flags, d_lt, o_valid, o_action, o_ecn
        );

        // ---- Ports into stage A: the event's constants -----------------------
        // A dequeue's length counts only with its valid. An enqueue's `ca`
        // is used only if the enqueue is admitted, so only with its valid.
        self.enq_s.next = bit_cast::<S, L>(self.s_enq_len.val());
        self.deq_s.next = 0.into();
        if self.s_deq_valid.val() {
            self.deq_s.next = bit_cast::<S, L>(self.s_deq_len.val());
        }
        self.a_valid.d.next = self.s_enq_valid.val();
        self.a_notect.d.next = self.s_enq_ecn.val() == 0;
        self.a_ect.d.next = (self.s_enq_ecn.val() == 1) | (self.s_enq_ecn.val() == 2);
        self.a_ecn.d.next = self.s_enq_ecn.val();
        self.a_ca.d.next = self.enq_s.val() - self.deq_s.val();
        self.a_cn.d.next = Bits::<S>::from(0) - self.deq_s.val();
        self.a_t.d.next =
            bit_cast::<S, D>(self.buf_max.q.val()) - bit_cast::<S, L>(self.s_enq_len.val());
        self.a_kdrop.d.next = self.kdrop.q.val();
        self.a_kmin.d.next = self.kmin.q.val();
        self.a_kmax.d.next = self.kmax.q.val();
        self.a_pmax.d.next = self.pmax.q.val();
        self.a_span.d.next = self.span.q.val();
        self.a_u.d.next = self.rng.q.val().get_bits::<16>(16);

        // Random source: xorshift32 (13, 17, 5), one step per cycle.
        self.x1.next = self.rng.q.val() ^ (self.rng.q.val() << 13);
        self.x2.next = self.x1.val() ^ (self.x1.val() >> 17);
        self.x3.next = self.x2.val() ^ (self.x2.val() << 5);
        self.rng.d.next = self.x3.val();

        // Parameter load.
        if self.s_cfg_valid.val() {
            self.kmin.d.next = self.s_cfg_kmin.val();
            self.kmax.d.next = self.s_cfg_kmax.val();
            self.pmax.d.next = self.s_cfg_pmax.val();
            self.kdrop.d.next = self.s_cfg_kdrop.val();
            self.buf_max.d.next = self.s_cfg_buf_max.val();
            self.span.d.next = self.s_cfg_kmax.val() - self.s_cfg_kmin.val();
            self.rng.d.next = self.s_cfg_seed.val();
            if self.s_cfg_seed.val() == 0 {
                self.rng.d.next = self.fallback_seed.val();
            }
        }

        // ---- Stage A into B --------------------------------------------------
        self.b_valid.d.next = self.a_valid.q.val();
        self.b_notect.d.next = self.a_notect.q.val();
        self.b_ect.d.next = self.a_ect.q.val();
        self.b_ecn.d.next = self.a_ecn.q.val();
        self.b_ca.d.next = self.a_ca.q.val();
        self.b_cn.d.next = self.a_cn.q.val();
        self.b_kmin.d.next = self.a_kmin.q.val();
        self.b_kmax.d.next = self.a_kmax.q.val();
        self.b_pmax.d.next = self.a_pmax.q.val();
        self.b_span.d.next = self.a_span.q.val();
        self.b_u.d.next = self.a_u.q.val();

        // ---- Stage B into C: the loop's constants ----------------------------
        // This event (B) changes the depth by ca or cn; the next event (A)
        // is WRED-dropped at q' >= kdrop' and tail-dropped at q' > t', with
        // q' = q + ca or q + cn. As sign tests on q:
        //   q + (c - kdrop') >= 0   and   q + (c + ~t') >= 0   (~t' = -t' - 1).
        self.c_wa.d.next = self.b_ca.q.val() - bit_cast::<S, D>(self.a_kdrop.q.val());
        self.c_wn.d.next = self.b_cn.q.val() - bit_cast::<S, D>(self.a_kdrop.q.val());
        self.c_ta.d.next = self.b_ca.q.val() + !self.a_t.q.val();
        self.c_tn.d.next = self.b_cn.q.val() + !self.a_t.q.val();
        // On an empty queue: 0 >= kdrop', and 0 > t' (t' negative).
        self.c_wz.d.next = self.a_kdrop.q.val() == 0;
        self.c_tz.d.next = (self.a_t.q.val() & self.sign_s.val()) != 0;
        self.c_valid.d.next = self.b_valid.q.val();
        self.c_notect.d.next = self.b_notect.q.val();
        self.c_ect.d.next = self.b_ect.q.val();
        self.c_ecn.d.next = self.b_ecn.q.val();
        self.c_ca.d.next = self.b_ca.q.val();
        self.c_cn.d.next = self.b_cn.q.val();
        self.c_kmin.d.next = self.b_kmin.q.val();
        self.c_kmax.d.next = self.b_kmax.q.val();
        self.c_pmax.d.next = self.b_pmax.q.val();
        self.c_span.d.next = self.b_span.q.val();
        self.c_u.d.next = self.b_u.q.val();

        // ---- Stage C: the depth loop -----------------------------------------
        self.wred.next = self.c_valid.q.val() & self.c_notect.q.val() & self.ge_kdrop.q.val();
        self.tail.next = self.c_valid.q.val() & !self.wred.val() & self.tail_hit.q.val();
        self.admit.next = self.c_valid.q.val() & !self.wred.val() & !self.tail.val();
        self.q_s.next = bit_cast::<S, D>(self.depth.q.val());
        // Each sum its own wire, all in parallel, selected late.
        self.sum_a.next = self.q_s.val() + self.c_ca.q.val();
        self.sum_n.next = self.q_s.val() + self.c_cn.q.val();
        self.test_wa.next = self.q_s.val() + self.c_wa.q.val();
        self.test_wn.next = self.q_s.val() + self.c_wn.q.val();
        self.test_ta.next = self.q_s.val() + self.c_ta.q.val();
        self.test_tn.next = self.q_s.val() + self.c_tn.q.val();
        if self.admit.val() {
            self.depth.d.next = bit_cast::<D, S>(self.sum_a.val());
            self.ge_kdrop.d.next = (self.test_wa.val() & self.sign_s.val()) == 0;
            self.tail_hit.d.next = (self.test_ta.val() & self.sign_s.val()) == 0;
            if (self.sum_a.val() & self.sign_s.val()) != 0 {
                self.depth.d.next = 0.into();
                self.underflow.d.next = true;
                self.ge_kdrop.d.next = self.c_wz.q.val();
                self.tail_hit.d.next = self.c_tz.q.val();
            }
        } else {
            self.depth.d.next = bit_cast::<D, S>(self.sum_n.val());
            self.ge_kdrop.d.next = (self.test_wn.val() & self.sign_s.val()) == 0;
            self.tail_hit.d.next = (self.test_tn.val() & self.sign_s.val()) == 0;
            if (self.sum_n.val() & self.sign_s.val()) != 0 {
                self.depth.d.next = 0.into();
                self.underflow.d.next = true;
                self.ge_kdrop.d.next = self.c_wz.q.val();
                self.tail_hit.d.next = self.c_tz.q.val();
            }
        }

        // ---- Stage C into mark stage 1 (off the loop) -------------------------
        // Flags: [0] valid, [2:1] action, [4:3] ECN out, [5] ECT and admitted,
        // [6] q >= kmin, [7] q >= kmax.
        self.ge_kmin.next = self.depth.q.val() >= self.c_kmin.q.val();
        self.ge_kmax.next = self.depth.q.val() >= self.c_kmax.q.val();
        self.f_action.next = 0.into();
        if self.wred.val() {
            self.f_action.next = 2.into();
        }
        if self.tail.val() {
            self.f_action.next = 3.into();
        }
        self.f_ecn.next = 0.into();
        if self.admit.val() {
            self.f_ecn.next = self.c_ecn.q.val();
        }
        self.flags.next = bit_cast::<8, 1>(self.c_valid.q.val().into())
            | (bit_cast::<8, 2>(self.f_action.val()) << 1)
            | (bit_cast::<8, 2>(self.f_ecn.val()) << 3)
            | (bit_cast::<8, 1>((self.admit.val() & self.c_ect.q.val()).into()) << 5)
            | (bit_cast::<8, 1>(self.ge_kmin.val().into()) << 6)
            | (bit_cast::<8, 1>(self.ge_kmax.val().into()) << 7);
        self.m1_flags.d.next = self.flags.val();
        self.m1_over.d.next = self.depth.q.val() - self.c_kmin.q.val();
        self.m1_pmax.d.next = self.c_pmax.q.val();
        self.m1_span.d.next = self.c_span.q.val();
        self.m1_u.d.next = bit_cast::<17, 16>(self.c_u.q.val());

        // ---- Mark stage 1 into the products (five cycles) -----------------------
        self.rhs_mul.clk.next = self.clk.val();
        self.rhs_mul.rst.next = self.rst.val();
        self.rhs_mul.a.next = self.m1_over.q.val();
        self.rhs_mul.b.next = self.m1_pmax.q.val();
        self.rhs_mul.tag.next = self.m1_flags.q.val().get_bits::<7>(0);
        self.lhs_mul.clk.next = self.clk.val();
        self.lhs_mul.rst.next = self.rst.val();
        self.lhs_mul.a.next = self.m1_span.q.val();
        self.lhs_mul.b.next = self.m1_u.q.val();
        self.lhs_mul.tag.next = self.m1_flags.q.val().get_bits::<1>(7);

        // ---- The decision: u * (kmax - kmin) < (q - kmin) * pmax ----------------
        // The 45-bit compare alone in its cycle; the decision in the next.
        self.d_lt.d.next = self.lhs_mul.p.val() < self.rhs_mul.p.val();
        self.d_flags.d.next = bit_cast::<8, 7>(self.rhs_mul.tag_out.val())
            | (bit_cast::<8, 1>(self.lhs_mul.tag_out.val()) << 7);
        self.f_valid.next = self.d_flags.q.val().get_bit(0);
        self.f_ect.next = self.d_flags.q.val().get_bit(5);
        self.f_ge_kmin.next = self.d_flags.q.val().get_bit(6);
        self.f_ge_kmax.next = self.d_flags.q.val().get_bit(7);
        self.mark.next =
            self.f_ect.val() & (self.f_ge_kmax.val() | (self.f_ge_kmin.val() & self.d_lt.q.val()));
        self.o_valid.d.next = self.f_valid.val();
        self.o_action.d.next = self.d_flags.q.val().get_bits::<2>(1);
        self.o_ecn.d.next = self.d_flags.q.val().get_bits::<2>(3);
        if self.mark.val() {
            self.o_action.d.next = 1.into();
            self.o_ecn.d.next = 3.into();
        }

        // ---- Synchronous reset ---------------------------------------------
        if self.rst.val() {
            self.kmin.d.next = self.reset_kmin.val();
            self.kmax.d.next = self.reset_kmax.val();
            self.pmax.d.next = self.reset_pmax.val();
            self.kdrop.d.next = self.reset_kdrop.val();
            self.buf_max.d.next = self.reset_buf_max.val();
            self.span.d.next = self.reset_span.val();
            self.rng.d.next = self.reset_seed.val();
            // The stages before the loop become bubbles: no enqueue, no
            // dequeue (`cn = 0`). Their other fields are used only with an
            // enqueue, and the loop's test bits are recomputed every cycle
            // before the first enqueue after reset reaches it.
            self.a_valid.d.next = false;
            self.a_cn.d.next = 0.into();
            self.b_valid.d.next = false;
            self.b_cn.d.next = 0.into();
            self.c_valid.d.next = false;
            self.c_cn.d.next = 0.into();
            self.depth.d.next = 0.into();
            self.underflow.d.next = false;
            self.m1_flags.d.next = 0.into();
            self.d_flags.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_action.d.next = 0.into();
            self.o_ecn.d.next = 0.into();
        }

        // ---- Outputs ---------------------------------------------------------
        self.m_dec_valid.next = self.o_valid.q.val();
        self.m_dec_action.next = self.o_action.q.val();
        self.m_dec_ecn.next = self.o_ecn.q.val();
        self.q_depth.next = self.depth.q.val();
        self.err_underflow.next = self.underflow.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// rust-hdl's Verilog for CP, as `generate_verilog` writes it.
pub fn raw_verilog(config: &CpConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($d:literal, $l:literal) => {{
            let mut b = Cp::<$d, $l, { $d + 3 }>::new(config);
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
        ($d:literal, $l:literal) => {{
            let mut b = Cp::<$d, $l, { $d + 3 }>::new(config);
            b.connect_all();
            Box::new(CpSim(b)) as Box<dyn crate::sim::CycleSim<CpIn, CpOut>>
        }};
    }
    Ok(crate::dispatch_cp_shape!(config.shape, make))
}

struct CpSim<const D: usize, const L: usize, const S: usize>(Cp<D, L, S>);

impl<const D: usize, const L: usize, const S: usize> crate::sim::CycleSim<CpIn, CpOut>
    for CpSim<D, L, S>
{
    fn cycle(&mut self, i: &CpIn) -> CpOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_enq_valid.next = i.enq_valid;
        b.s_enq_len.next = (i.enq_len as u64).to_bits();
        b.s_enq_ecn.next = (i.enq_ecn as u64).to_bits();
        b.s_deq_valid.next = i.deq_valid;
        b.s_deq_len.next = (i.deq_len as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
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
            depth: b.q_depth.val().to_u32(),
            underflow: b.err_underflow.val(),
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
        ($d:literal, $l:literal) => {{
            crate::ports::ports_of(&Cp::<$d, $l, { $d + 3 }>::new(config))
        }};
    }
    crate::dispatch_cp_shape!(config.shape, make)
}

/// Expands `$make!(D, L)` for the run-time shape `$shape`, over every
/// (depth_bits, len_bits) pair of the menu in `ccrtl_golden::cp_shape_menu!`
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
    (($shape:expr, $make:ident) ; [$($d:literal),*] ; $lens:tt) => {{
        let shape = $shape;
        match shape.depth_bits {
            $($d => $crate::cp_dispatch_len!(shape, $make, $d, $lens),)*
            d => unreachable!("depth_bits {d} passed validation but has no instance"),
        }
    }};
}

/// One match arm per length width of the menu (used by `dispatch_cp_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! cp_dispatch_len {
    ($shape:ident, $make:ident, $d:literal, [$($l:literal),*]) => {
        match $shape.len_bits {
            $($l => $make!($d, $l),)*
            l => unreachable!("len_bits {l} passed validation but has no instance"),
        }
    };
}
