//! CRD — congestion region detection (seed 002 §3.2): per queue, on a
//! sample timer, `Fb = Qoff + wq * Qdelta`, quantized to 8 bits and mixed
//! with a neighbour's `Fbr`, with the local and remote flags and the
//! point's role. The rule and the timing contract are specified in
//! `ccrtl_golden::crd`; `docs/crd.md` has the port, parameter and register
//! tables and the measured Fmax.
//!
//! # Generation-time parameters
//! - `QB` = `queue_bits` in {1, 2, 3, 4}, `Q = 2^QB` queues;
//! - `L` = `len_bits` in {16, 20, 24}, and `SW = L + 7`, the width of the
//!   sums (`|8 Qoff + wq Qdelta| < 39 * 2^L < 2^(L+6)`, plus a sign bit);
//! - the reset values of the six registers.
//!
//! # The rule, restated for hardware
//! - `Fb = Qoff + floor(wq Qdelta / 8) = floor(S / 8)` with
//!   `S = 8 Qoff + wq Qdelta` (`8 Qoff` is a multiple of 8), so `S` is a
//!   sum of six rows: `8 Qoff` and `wq[i] ? Qdelta << i : 0` for the five
//!   bits of `wq`, exact in `SW`-bit two's complement.
//! - `local = Fb > 0` iff `S >= 8`; then `Fb >> s = S >> (s + 3)`, and
//!   `Fbq` saturates iff `S >= 2^(s + 11)`. The registers hold the
//!   effective values: `shx = min(fb_shift, L) + 3` and
//!   `e = min(fb_shift + 11, L + 6)` (`2^(L+6)` is above every positive
//!   `S`, so `e = L + 6` never saturates, as `s = L` cannot).
//! - `Fb' = ((256 - w_e) Fbq + w_e rem) >> 8`: the first product has eight
//!   rows (the bits of `Fbq`), the second eight (the bits of `rem`), summed
//!   in trees of 17-bit adders; the registers hold `w_e = min(w, 256)` and
//!   `nw = 256 - w_e`.
//! - `P_eff - 1 = max(period, 16) - 1` is held (`pm1`), so the timer's
//!   wrap is one compare: `T >= pm1`.
//! - `hot[q]` is `T == q`, kept as a shift register beside `T` (`hot[0]`
//!   is set by the wrap, `hot[q]` follows `hot[q - 1]`: `T = q - 1 < 15`
//!   never wraps since `P_eff >= 16`), so the sampled queue's state is an
//!   AND-OR of one-hot selects.
//!
//! # Pipeline (II = 1, LATENCY 10; every stage one carry chain deep)
//! - t: the sampled queue's `len`, `old`, `rem`, `age > 0` and the
//!   registers in force (`a_*`). The queue's `old` and `age` are updated,
//!   then any notification, report and register write of `t`.
//! - t+1: `Qoff`, `Qdelta` (`b_*`); `w_e rem`, level 1 (four pairs of rows).
//! - t+2: the six rows of `S` summed in pairs (`c_*`); `w_e rem`, level 2.
//! - t+3: `S`, level 2 (`d_*`); `w_e rem`.
//! - t+4: `S`; `2^e` decoded (`e_*`).
//! - t+5: `local`, `S >= 2^e`, `(S >> shx)[7:0]` (`f_*`).
//! - t+6: `Fbq`; `nw Fbq`, level 1 (four pairs of rows) (`g_*`).
//! - t+7, t+8: `nw Fbq`, levels 2 and 3 (`h_*`, `i_*`).
//! - t+9: `Fb'` (or `Fbq` without a valid notification), the flags and
//!   the role, all 0 unless valid (`o_*`); on the outputs during t+10.
//!
//! # Reset
//! `rst` zeroes every queue's state and the timer, restores the registers
//! and drops the samples in flight; the other inputs of a reset cycle are
//! ignored.

use ccrtl_golden::crd::{
    CrdConfig, CrdIn, CrdOut, CFG_ADDR_BITS, CFG_DATA_BITS, FB_BITS, HOLD_BITS, LATENCY,
    PERIOD_BITS, PERIOD_MIN, WQ_BITS, W_BITS, W_ONE,
};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;

const FW: usize = FB_BITS as usize;
const AW: usize = CFG_ADDR_BITS as usize;
const CW: usize = CFG_DATA_BITS as usize;
const PW: usize = PERIOD_BITS as usize;
const HW: usize = HOLD_BITS as usize;
const WQW: usize = WQ_BITS as usize;
const WW: usize = W_BITS as usize;
/// Width of `shx` and `e` (at most 27 and 30).
const XW: usize = 5;
/// Width of the mix's sums (at most `256 * 255`).
const MW: usize = 17;

#[derive(LogicBlock, Default)]
pub struct Crd<const QB: usize, const Q: usize, const L: usize, const SW: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Length reports, in force from the next cycle.
    pub s_len_valid: Signal<In, Bit>,
    pub s_len_queue: Signal<In, Bits<QB>>,
    pub s_len_bytes: Signal<In, Bits<L>>,
    // A neighbour's notifications, in force from the next cycle.
    pub s_cn_valid: Signal<In, Bit>,
    pub s_cn_queue: Signal<In, Bits<QB>>,
    pub s_cn_fb: Signal<In, Bits<FW>>,
    // Register writes, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<AW>>,
    pub s_cfg_data: Signal<In, Bits<CW>>,

    // The result of the sample of LATENCY cycles ago; every field 0 when
    // `m_fb_valid` is low.
    pub m_fb_valid: Signal<Out, Bit>,
    pub m_fb_queue: Signal<Out, Bits<QB>>,
    pub m_fb: Signal<Out, Bits<FW>>,
    pub m_fb_local: Signal<Out, Bit>,
    pub m_fb_remote: Signal<Out, Bit>,
    pub m_fb_role: Signal<Out, Bits<2>>,

    // ---- State ----
    len: Vec<DFF<Bits<L>>>,
    old: Vec<DFF<Bits<L>>>,
    rem: Vec<DFF<Bits<FW>>>,
    age: Vec<DFF<Bits<HW>>>,
    timer: DFF<Bits<PW>>,
    /// `hot[q]`: `timer == q`.
    hot: Vec<DFF<Bit>>,
    // The registers, as their effective values.
    pm1: DFF<Bits<PW>>,
    qeq: DFF<Bits<L>>,
    wq: DFF<Bits<WQW>>,
    shx: DFF<Bits<XW>>,
    e: DFF<Bits<XW>>,
    we: DFF<Bits<WW>>,
    nw: DFF<Bits<WW>>,
    hold: DFF<Bits<HW>>,

    // ---- t ----
    smp: Vec<Signal<Local, Bit>>,
    sel_len: Vec<Signal<Local, Bits<L>>>,
    sel_old: Vec<Signal<Local, Bits<L>>>,
    sel_rem: Vec<Signal<Local, Bits<FW>>>,
    sel_rv: Vec<Signal<Local, Bit>>,
    /// The selects' last elements (a sample now, and its queue's state).
    smp_all: Signal<Local, Bit>,
    len_all: Signal<Local, Bits<L>>,
    old_all: Signal<Local, Bits<L>>,
    rem_all: Signal<Local, Bits<FW>>,
    rv_all: Signal<Local, Bit>,
    // Register writes.
    d_period: Signal<Local, Bits<PW>>,
    d_f5: Signal<Local, Bits<XW>>,
    d_shift: Signal<Local, Bits<XW>>,
    d_e6raw: Signal<Local, Bits<6>>,
    d_e6: Signal<Local, Bits<6>>,
    d_w: Signal<Local, Bits<WW>>,
    d_we: Signal<Local, Bits<WW>>,
    a_v: DFF<Bit>,
    a_q: DFF<Bits<QB>>,
    a_len: DFF<Bits<L>>,
    a_old: DFF<Bits<L>>,
    a_rem: DFF<Bits<FW>>,
    a_rv: DFF<Bit>,
    a_qeq: DFF<Bits<L>>,
    a_wq: DFF<Bits<WQW>>,
    a_shx: DFF<Bits<XW>>,
    a_e: DFF<Bits<XW>>,
    a_we: DFF<Bits<WW>>,
    a_nw: DFF<Bits<WW>>,

    // ---- t+1 ----
    a_we17: Signal<Local, Bits<MW>>,
    /// Row `i` of `w_e rem`: `rem[i] ? w_e << i : 0`.
    wrow: Vec<Signal<Local, Bits<MW>>>,
    b_v: DFF<Bit>,
    b_q: DFF<Bits<QB>>,
    b_qoff: DFF<Bits<SW>>,
    b_d: DFF<Bits<SW>>,
    b_rv: DFF<Bit>,
    b_remote: DFF<Bit>,
    b_wq: DFF<Bits<WQW>>,
    b_shx: DFF<Bits<XW>>,
    b_e: DFF<Bits<XW>>,
    b_nw: DFF<Bits<WW>>,
    b_wr: Vec<DFF<Bits<MW>>>,

    // ---- t+2 ----
    /// Row `i` of `wq Qdelta`: `wq[i] ? Qdelta << i : 0`.
    prow: Vec<Signal<Local, Bits<SW>>>,
    c_v: DFF<Bit>,
    c_q: DFF<Bits<QB>>,
    c_p: Vec<DFF<Bits<SW>>>,
    c_rv: DFF<Bit>,
    c_remote: DFF<Bit>,
    c_shx: DFF<Bits<XW>>,
    c_e: DFF<Bits<XW>>,
    c_nw: DFF<Bits<WW>>,
    c_wr: Vec<DFF<Bits<MW>>>,

    // ---- t+3 ----
    d_v: DFF<Bit>,
    d_q: DFF<Bits<QB>>,
    d_s01: DFF<Bits<SW>>,
    d_p2: DFF<Bits<SW>>,
    d_rv: DFF<Bit>,
    d_remote: DFF<Bit>,
    d_shx: DFF<Bits<XW>>,
    d_e: DFF<Bits<XW>>,
    d_nw: DFF<Bits<WW>>,
    d_wr: DFF<Bits<MW>>,

    // ---- t+4 ----
    e_v: DFF<Bit>,
    e_q: DFF<Bits<QB>>,
    /// `S = 8 Qoff + wq Qdelta`.
    e_s: DFF<Bits<SW>>,
    /// `2^e`: `S` at or above it saturates `Fbq`.
    e_thr: DFF<Bits<SW>>,
    e_rv: DFF<Bit>,
    e_remote: DFF<Bit>,
    e_shx: DFF<Bits<XW>>,
    e_nw: DFF<Bits<WW>>,
    e_wr: DFF<Bits<MW>>,

    // ---- t+5 ----
    xs: Signal<Local, Bits<SW>>,
    f_v: DFF<Bit>,
    f_q: DFF<Bits<QB>>,
    f_local: DFF<Bit>,
    f_sat: DFF<Bit>,
    f_x: DFF<Bits<FW>>,
    f_rv: DFF<Bit>,
    f_remote: DFF<Bit>,
    f_nw: DFF<Bits<WW>>,
    f_wr: DFF<Bits<MW>>,

    // ---- t+6 ----
    fbq: Signal<Local, Bits<FW>>,
    nw17: Signal<Local, Bits<MW>>,
    /// Row `i` of `nw Fbq`: `Fbq[i] ? nw << i : 0`.
    nrow: Vec<Signal<Local, Bits<MW>>>,
    g_v: DFF<Bit>,
    g_q: DFF<Bits<QB>>,
    g_local: DFF<Bit>,
    g_fbq: DFF<Bits<FW>>,
    g_rv: DFF<Bit>,
    g_remote: DFF<Bit>,
    g_m: Vec<DFF<Bits<MW>>>,
    g_wr: DFF<Bits<MW>>,

    // ---- t+7 ----
    h_v: DFF<Bit>,
    h_q: DFF<Bits<QB>>,
    h_local: DFF<Bit>,
    h_fbq: DFF<Bits<FW>>,
    h_rv: DFF<Bit>,
    h_remote: DFF<Bit>,
    h_n0: DFF<Bits<MW>>,
    h_n1: DFF<Bits<MW>>,
    h_wr: DFF<Bits<MW>>,

    // ---- t+8 ----
    i_v: DFF<Bit>,
    i_q: DFF<Bits<QB>>,
    i_local: DFF<Bit>,
    i_fbq: DFF<Bits<FW>>,
    i_rv: DFF<Bit>,
    i_remote: DFF<Bit>,
    i_o: DFF<Bits<MW>>,
    i_wr: DFF<Bits<MW>>,

    // ---- t+9 ----
    mix: Signal<Local, Bits<MW>>,
    o_v: DFF<Bit>,
    o_q: DFF<Bits<QB>>,
    o_fb: DFF<Bits<FW>>,
    o_local: DFF<Bit>,
    o_remote: DFF<Bit>,
    o_role: DFF<Bits<2>>,

    // ---- Constants ----
    /// `qidx[q] = q`.
    qidx: Vec<Param<Bits<QB>>>,
    /// `idx8[i] = i`, a shift amount.
    idx8: Vec<Param<Bits<8>>>,
    c_pmin: Param<Bits<PW>>,
    c_one16: Param<Bits<PW>>,
    c_len5: Param<Bits<XW>>,
    c_three: Param<Bits<XW>>,
    c_eleven: Param<Bits<6>>,
    c_emax: Param<Bits<6>>,
    c_wone: Param<Bits<WW>>,
    c_eight: Param<Bits<SW>>,
    c_one_sw: Param<Bits<SW>>,
    /// `2^(SW-1)`: an `S` at or above it (as unsigned) is negative.
    c_half: Param<Bits<SW>>,
    c_fbmax: Param<Bits<FW>>,
    reset_pm1: Param<Bits<PW>>,
    reset_qeq: Param<Bits<L>>,
    reset_wq: Param<Bits<WQW>>,
    reset_shx: Param<Bits<XW>>,
    reset_e: Param<Bits<XW>>,
    reset_we: Param<Bits<WW>>,
    reset_nw: Param<Bits<WW>>,
    reset_hold: Param<Bits<HW>>,
}

/// The registers' effective values for `regs` (what the RTL holds):
/// `(pm1, shx, e, w_e, nw)`.
fn effective(
    shape: &ccrtl_golden::crd::CrdShape,
    regs: &ccrtl_golden::crd::CrdParams,
) -> (u64, u64, u64, u64, u64) {
    let l = shape.len_bits as u64;
    let pm1 = regs.period.max(PERIOD_MIN) as u64 - 1;
    let f = regs.fb_shift as u64;
    let shx = f.min(l) + 3;
    let e = (f + 11).min(l + 6);
    let we = (regs.w as u64).min(W_ONE as u64);
    (pm1, shx, e, we, W_ONE as u64 - we)
}

impl<const QB: usize, const Q: usize, const L: usize, const SW: usize> Crd<QB, Q, L, SW> {
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `QB`, `L` equal to its shape, `Q = 2^QB` and
    /// `SW = L + 7`.
    pub fn new(config: &CrdConfig) -> Self {
        assert_eq!(config.shape.queue_bits as usize, QB);
        assert_eq!(config.shape.len_bits as usize, L);
        assert_eq!(1 << QB, Q);
        assert_eq!(SW, L + 7);
        assert!(Q <= PERIOD_MIN as usize && L + 6 < 32);
        let r = &config.reset;
        let (pm1, shx, e, we, nw) = effective(&config.shape, r);
        Self {
            len: (0..Q).map(|_| DFF::default()).collect(),
            old: (0..Q).map(|_| DFF::default()).collect(),
            rem: (0..Q).map(|_| DFF::default()).collect(),
            age: (0..Q).map(|_| DFF::default()).collect(),
            hot: (0..Q).map(|_| DFF::default()).collect(),
            smp: (0..=Q).map(|_| Signal::default()).collect(),
            sel_len: (0..=Q).map(|_| Signal::default()).collect(),
            sel_old: (0..=Q).map(|_| Signal::default()).collect(),
            sel_rem: (0..=Q).map(|_| Signal::default()).collect(),
            sel_rv: (0..=Q).map(|_| Signal::default()).collect(),
            wrow: (0..8).map(|_| Signal::default()).collect(),
            b_wr: (0..4).map(|_| DFF::default()).collect(),
            prow: (0..WQW).map(|_| Signal::default()).collect(),
            c_p: (0..3).map(|_| DFF::default()).collect(),
            c_wr: (0..2).map(|_| DFF::default()).collect(),
            nrow: (0..8).map(|_| Signal::default()).collect(),
            g_m: (0..4).map(|_| DFF::default()).collect(),
            qidx: (0..Q).map(|q| Param::new((q as u64).to_bits())).collect(),
            idx8: (0..8).map(|i| Param::new((i as u64).to_bits())).collect(),
            c_pmin: Param::new((PERIOD_MIN as u64).to_bits()),
            c_one16: Param::new(1u64.to_bits()),
            c_len5: Param::new((L as u64).to_bits()),
            c_three: Param::new(3u64.to_bits()),
            c_eleven: Param::new(11u64.to_bits()),
            c_emax: Param::new(((L + 6) as u64).to_bits()),
            c_wone: Param::new((W_ONE as u64).to_bits()),
            c_eight: Param::new(8u64.to_bits()),
            c_one_sw: Param::new(1u64.to_bits()),
            c_half: Param::new((1u64 << (SW - 1)).to_bits()),
            c_fbmax: Param::new(255u64.to_bits()),
            reset_pm1: Param::new(pm1.to_bits()),
            reset_qeq: Param::new((r.qeq as u64).to_bits()),
            reset_wq: Param::new((r.wq as u64).to_bits()),
            reset_shx: Param::new(shx.to_bits()),
            reset_e: Param::new(e.to_bits()),
            reset_we: Param::new(we.to_bits()),
            reset_nw: Param::new(nw.to_bits()),
            reset_hold: Param::new((r.hold as u64).to_bits()),
            ..Default::default()
        }
    }
}

impl<const QB: usize, const Q: usize, const L: usize, const SW: usize> Logic for Crd<QB, Q, L, SW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, timer, pm1, qeq, wq, shx, e, we, nw, hold, a_v, a_q, a_len, a_old, a_rem,
            a_rv, a_qeq, a_wq, a_shx, a_e, a_we, a_nw, b_v, b_q, b_qoff, b_d, b_rv, b_remote, b_wq,
            b_shx, b_e, b_nw, c_v, c_q, c_rv, c_remote, c_shx, c_e, c_nw, d_v, d_q, d_s01, d_p2,
            d_rv, d_remote, d_shx, d_e, d_nw, d_wr, e_v, e_q, e_s, e_thr, e_rv, e_remote, e_shx,
            e_nw, e_wr, f_v, f_q, f_local, f_sat, f_x, f_rv, f_remote, f_nw, f_wr, g_v, g_q,
            g_local, g_fbq, g_rv, g_remote, g_wr, h_v, h_q, h_local, h_fbq, h_rv, h_remote, h_n0,
            h_n1, h_wr, i_v, i_q, i_local, i_fbq, i_rv, i_remote, i_o, i_wr, o_v, o_q, o_fb,
            o_local, o_remote, o_role
        );
        for q in 0..Q {
            self.len[q].clock.next = self.clk.val();
            self.old[q].clock.next = self.clk.val();
            self.rem[q].clock.next = self.clk.val();
            self.age[q].clock.next = self.clk.val();
            self.hot[q].clock.next = self.clk.val();
        }
        for k in 0..4 {
            self.b_wr[k].clock.next = self.clk.val();
            self.g_m[k].clock.next = self.clk.val();
        }
        for k in 0..3 {
            self.c_p[k].clock.next = self.clk.val();
        }
        for k in 0..2 {
            self.c_wr[k].clock.next = self.clk.val();
        }

        // ---- t: the sampled queue's state (one-hot AND-OR select) ---------
        // `x[k + 1]` is the OR of queues `0 ..= k`'s values where `hot`.
        self.smp[0].next = false;
        self.sel_len[0].next = 0.into();
        self.sel_old[0].next = 0.into();
        self.sel_rem[0].next = 0.into();
        self.sel_rv[0].next = false;
        for q in 0..Q {
            if self.hot[q].q.val() {
                self.smp[q + 1].next = true;
                self.sel_len[q + 1].next = self.sel_len[q].val() | self.len[q].q.val();
                self.sel_old[q + 1].next = self.sel_old[q].val() | self.old[q].q.val();
                self.sel_rem[q + 1].next = self.sel_rem[q].val() | self.rem[q].q.val();
                self.sel_rv[q + 1].next = self.sel_rv[q].val() | self.age[q].q.val().any();
            } else {
                self.smp[q + 1].next = self.smp[q].val();
                self.sel_len[q + 1].next = self.sel_len[q].val();
                self.sel_old[q + 1].next = self.sel_old[q].val();
                self.sel_rem[q + 1].next = self.sel_rem[q].val();
                self.sel_rv[q + 1].next = self.sel_rv[q].val();
            }
        }
        // (The last assignment stands: `x[Q]`.)
        for q in 0..Q {
            self.smp_all.next = self.smp[q + 1].val();
            self.len_all.next = self.sel_len[q + 1].val();
            self.old_all.next = self.sel_old[q + 1].val();
            self.rem_all.next = self.sel_rem[q + 1].val();
            self.rv_all.next = self.sel_rv[q + 1].val();
        }
        self.a_v.d.next = self.smp_all.val() & !self.rst.val();
        self.a_q.d.next = self.timer.q.val().get_bits::<QB>(0);
        self.a_len.d.next = self.len_all.val();
        self.a_old.d.next = self.old_all.val();
        self.a_rem.d.next = self.rem_all.val();
        self.a_rv.d.next = self.rv_all.val();
        self.a_qeq.d.next = self.qeq.q.val();
        self.a_wq.d.next = self.wq.q.val();
        self.a_shx.d.next = self.shx.q.val();
        self.a_e.d.next = self.e.q.val();
        self.a_we.d.next = self.we.q.val();
        self.a_nw.d.next = self.nw.q.val();

        // ---- t: the timer --------------------------------------------------
        if self.timer.q.val() >= self.pm1.q.val() {
            self.timer.d.next = 0.into();
            self.hot[0].d.next = true;
        } else {
            self.timer.d.next = self.timer.q.val() + self.c_one16.val();
            self.hot[0].d.next = false;
        }
        for q in 1..Q {
            self.hot[q].d.next = self.hot[q - 1].q.val();
        }

        // ---- t: the queues: the sample's update, then notification, report --
        for q in 0..Q {
            self.len[q].d.next = self.len[q].q.val();
            self.old[q].d.next = self.old[q].q.val();
            self.rem[q].d.next = self.rem[q].q.val();
            self.age[q].d.next = self.age[q].q.val();
            if self.hot[q].q.val() {
                self.old[q].d.next = self.len[q].q.val();
                if self.age[q].q.val().any() {
                    self.age[q].d.next = self.age[q].q.val() - 1;
                }
            }
            if self.s_cn_valid.val() & (self.s_cn_queue.val() == self.qidx[q].val()) {
                self.rem[q].d.next = self.s_cn_fb.val();
                self.age[q].d.next = self.hold.q.val();
            }
            if self.s_len_valid.val() & (self.s_len_queue.val() == self.qidx[q].val()) {
                self.len[q].d.next = self.s_len_bytes.val();
            }
        }

        // ---- t: register writes (their effective values) ------------------
        self.d_period.next = self.s_cfg_data.val().get_bits::<PW>(0);
        self.d_f5.next = self.s_cfg_data.val().get_bits::<XW>(0);
        if self.d_f5.val() > self.c_len5.val() {
            self.d_shift.next = self.c_len5.val();
        } else {
            self.d_shift.next = self.d_f5.val();
        }
        self.d_e6raw.next = bit_cast::<6, XW>(self.d_f5.val()) + self.c_eleven.val();
        if self.d_e6raw.val() > self.c_emax.val() {
            self.d_e6.next = self.c_emax.val();
        } else {
            self.d_e6.next = self.d_e6raw.val();
        }
        self.d_w.next = self.s_cfg_data.val().get_bits::<WW>(0);
        if self.d_w.val() > self.c_wone.val() {
            self.d_we.next = self.c_wone.val();
        } else {
            self.d_we.next = self.d_w.val();
        }
        if self.s_cfg_valid.val() {
            if self.s_cfg_addr.val() == 0 {
                if self.d_period.val() < self.c_pmin.val() {
                    self.pm1.d.next = self.c_pmin.val() - self.c_one16.val();
                } else {
                    self.pm1.d.next = self.d_period.val() - self.c_one16.val();
                }
            }
            if self.s_cfg_addr.val() == 1 {
                self.qeq.d.next = self.s_cfg_data.val().get_bits::<L>(0);
            }
            if self.s_cfg_addr.val() == 2 {
                self.wq.d.next = self.s_cfg_data.val().get_bits::<WQW>(0);
            }
            if self.s_cfg_addr.val() == 3 {
                self.shx.d.next = self.d_shift.val() + self.c_three.val();
                self.e.d.next = self.d_e6.val().get_bits::<XW>(0);
            }
            if self.s_cfg_addr.val() == 4 {
                self.we.d.next = self.d_we.val();
                self.nw.d.next = self.c_wone.val() - self.d_we.val();
            }
            if self.s_cfg_addr.val() == 5 {
                self.hold.d.next = self.s_cfg_data.val().get_bits::<HW>(0);
            }
        }

        // ---- t+1: Qoff, Qdelta; w_e rem, level 1 ----------------------------
        self.b_v.d.next = self.a_v.q.val();
        self.b_q.d.next = self.a_q.q.val();
        self.b_qoff.d.next =
            bit_cast::<SW, L>(self.a_len.q.val()) - bit_cast::<SW, L>(self.a_qeq.q.val());
        self.b_d.d.next =
            bit_cast::<SW, L>(self.a_len.q.val()) - bit_cast::<SW, L>(self.a_old.q.val());
        self.b_rv.d.next = self.a_rv.q.val();
        self.b_remote.d.next = self.a_rv.q.val() & self.a_rem.q.val().any();
        self.b_wq.d.next = self.a_wq.q.val();
        self.b_shx.d.next = self.a_shx.q.val();
        self.b_e.d.next = self.a_e.q.val();
        self.b_nw.d.next = self.a_nw.q.val();
        self.a_we17.next = bit_cast::<MW, WW>(self.a_we.q.val());
        for i in 0..8 {
            self.wrow[i].next = 0.into();
            if self.a_rem.q.val().get_bit(i) {
                self.wrow[i].next = self.a_we17.val() << self.idx8[i].val();
            }
        }
        for k in 0..4 {
            self.b_wr[k].d.next = self.wrow[2 * k].val() + self.wrow[2 * k + 1].val();
        }

        // ---- t+2: the rows of S in pairs; w_e rem, level 2 ------------------
        self.c_v.d.next = self.b_v.q.val();
        self.c_q.d.next = self.b_q.q.val();
        for i in 0..WQW {
            self.prow[i].next = 0.into();
            if self.b_wq.q.val().get_bit(i) {
                self.prow[i].next = self.b_d.q.val() << self.idx8[i].val();
            }
        }
        self.c_p[0].d.next = (self.b_qoff.q.val() << 3) + self.prow[0].val();
        self.c_p[1].d.next = self.prow[1].val() + self.prow[2].val();
        self.c_p[2].d.next = self.prow[3].val() + self.prow[4].val();
        self.c_rv.d.next = self.b_rv.q.val();
        self.c_remote.d.next = self.b_remote.q.val();
        self.c_shx.d.next = self.b_shx.q.val();
        self.c_e.d.next = self.b_e.q.val();
        self.c_nw.d.next = self.b_nw.q.val();
        self.c_wr[0].d.next = self.b_wr[0].q.val() + self.b_wr[1].q.val();
        self.c_wr[1].d.next = self.b_wr[2].q.val() + self.b_wr[3].q.val();

        // ---- t+3 -------------------------------------------------------------
        self.d_v.d.next = self.c_v.q.val();
        self.d_q.d.next = self.c_q.q.val();
        self.d_s01.d.next = self.c_p[0].q.val() + self.c_p[1].q.val();
        self.d_p2.d.next = self.c_p[2].q.val();
        self.d_rv.d.next = self.c_rv.q.val();
        self.d_remote.d.next = self.c_remote.q.val();
        self.d_shx.d.next = self.c_shx.q.val();
        self.d_e.d.next = self.c_e.q.val();
        self.d_nw.d.next = self.c_nw.q.val();
        self.d_wr.d.next = self.c_wr[0].q.val() + self.c_wr[1].q.val();

        // ---- t+4: S ------------------------------------------------------------
        self.e_v.d.next = self.d_v.q.val();
        self.e_q.d.next = self.d_q.q.val();
        self.e_s.d.next = self.d_s01.q.val() + self.d_p2.q.val();
        self.e_thr.d.next = self.c_one_sw.val() << self.d_e.q.val();
        self.e_rv.d.next = self.d_rv.q.val();
        self.e_remote.d.next = self.d_remote.q.val();
        self.e_shx.d.next = self.d_shx.q.val();
        self.e_nw.d.next = self.d_nw.q.val();
        self.e_wr.d.next = self.d_wr.q.val();

        // ---- t+5: local, saturation, the shifted measure ----------------------
        self.xs.next = self.e_s.q.val() >> self.e_shx.q.val();
        self.f_v.d.next = self.e_v.q.val();
        self.f_q.d.next = self.e_q.q.val();
        // S >= 8 and not negative (below 2^(SW-1) as unsigned).
        self.f_local.d.next =
            (self.e_s.q.val() >= self.c_eight.val()) & (self.e_s.q.val() < self.c_half.val());
        self.f_sat.d.next = self.e_s.q.val() >= self.e_thr.q.val();
        self.f_x.d.next = self.xs.val().get_bits::<FW>(0);
        self.f_rv.d.next = self.e_rv.q.val();
        self.f_remote.d.next = self.e_remote.q.val();
        self.f_nw.d.next = self.e_nw.q.val();
        self.f_wr.d.next = self.e_wr.q.val();

        // ---- t+6: Fbq; nw Fbq, level 1 ----------------------------------------
        self.fbq.next = 0.into();
        if self.f_local.q.val() {
            if self.f_sat.q.val() {
                self.fbq.next = self.c_fbmax.val();
            } else {
                self.fbq.next = self.f_x.q.val();
            }
        }
        self.nw17.next = bit_cast::<MW, WW>(self.f_nw.q.val());
        for i in 0..8 {
            self.nrow[i].next = 0.into();
            if self.fbq.val().get_bit(i) {
                self.nrow[i].next = self.nw17.val() << self.idx8[i].val();
            }
        }
        for k in 0..4 {
            self.g_m[k].d.next = self.nrow[2 * k].val() + self.nrow[2 * k + 1].val();
        }
        self.g_v.d.next = self.f_v.q.val();
        self.g_q.d.next = self.f_q.q.val();
        self.g_local.d.next = self.f_local.q.val();
        self.g_fbq.d.next = self.fbq.val();
        self.g_rv.d.next = self.f_rv.q.val();
        self.g_remote.d.next = self.f_remote.q.val();
        self.g_wr.d.next = self.f_wr.q.val();

        // ---- t+7, t+8: nw Fbq, levels 2 and 3 ---------------------------------
        self.h_v.d.next = self.g_v.q.val();
        self.h_q.d.next = self.g_q.q.val();
        self.h_local.d.next = self.g_local.q.val();
        self.h_fbq.d.next = self.g_fbq.q.val();
        self.h_rv.d.next = self.g_rv.q.val();
        self.h_remote.d.next = self.g_remote.q.val();
        self.h_n0.d.next = self.g_m[0].q.val() + self.g_m[1].q.val();
        self.h_n1.d.next = self.g_m[2].q.val() + self.g_m[3].q.val();
        self.h_wr.d.next = self.g_wr.q.val();
        self.i_v.d.next = self.h_v.q.val();
        self.i_q.d.next = self.h_q.q.val();
        self.i_local.d.next = self.h_local.q.val();
        self.i_fbq.d.next = self.h_fbq.q.val();
        self.i_rv.d.next = self.h_rv.q.val();
        self.i_remote.d.next = self.h_remote.q.val();
        self.i_o.d.next = self.h_n0.q.val() + self.h_n1.q.val();
        self.i_wr.d.next = self.h_wr.q.val();

        // ---- t+9: Fb', the flags and the role (0 unless valid) ---------------
        self.mix.next = self.i_o.q.val() + self.i_wr.q.val();
        self.o_v.d.next = self.i_v.q.val();
        self.o_q.d.next = 0.into();
        self.o_fb.d.next = 0.into();
        self.o_local.d.next = false;
        self.o_remote.d.next = false;
        self.o_role.d.next = 0.into();
        if self.i_v.q.val() {
            self.o_q.d.next = self.i_q.q.val();
            if self.i_rv.q.val() {
                self.o_fb.d.next = self.mix.val().get_bits::<FW>(8);
            } else {
                self.o_fb.d.next = self.i_fbq.q.val();
            }
            self.o_local.d.next = self.i_local.q.val();
            self.o_remote.d.next = self.i_remote.q.val();
            if self.i_remote.q.val() {
                if self.i_local.q.val() {
                    self.o_role.d.next = 3.into();
                } else {
                    self.o_role.d.next = 2.into();
                }
            } else {
                if self.i_local.q.val() {
                    self.o_role.d.next = 1.into();
                }
            }
        }

        // ---- Reset: state, registers, the samples in flight -------------------
        if self.rst.val() {
            for q in 0..Q {
                self.len[q].d.next = 0.into();
                self.old[q].d.next = 0.into();
                self.rem[q].d.next = 0.into();
                self.age[q].d.next = 0.into();
                self.hot[q].d.next = false;
            }
            self.hot[0].d.next = true;
            self.timer.d.next = 0.into();
            self.pm1.d.next = self.reset_pm1.val();
            self.qeq.d.next = self.reset_qeq.val();
            self.wq.d.next = self.reset_wq.val();
            self.shx.d.next = self.reset_shx.val();
            self.e.d.next = self.reset_e.val();
            self.we.d.next = self.reset_we.val();
            self.nw.d.next = self.reset_nw.val();
            self.hold.d.next = self.reset_hold.val();
            self.b_v.d.next = false;
            self.c_v.d.next = false;
            self.d_v.d.next = false;
            self.e_v.d.next = false;
            self.f_v.d.next = false;
            self.g_v.d.next = false;
            self.h_v.d.next = false;
            self.i_v.d.next = false;
            self.o_v.d.next = false;
            self.o_q.d.next = 0.into();
            self.o_fb.d.next = 0.into();
            self.o_local.d.next = false;
            self.o_remote.d.next = false;
            self.o_role.d.next = 0.into();
        }

        // ---- Outputs (last, after every register's next value) ----------------
        self.m_fb_valid.next = self.o_v.q.val();
        self.m_fb_queue.next = self.o_q.q.val();
        self.m_fb.next = self.o_fb.q.val();
        self.m_fb_local.next = self.o_local.q.val();
        self.m_fb_remote.next = self.o_remote.q.val();
        self.m_fb_role.next = self.o_role.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// Expands `$make!(QB, Q, L, SW)` for the run-time shape of `$config` over
/// every (queue_bits, len_bits) of the menu in
/// `ccrtl_golden::crd_shape_menu!` (the one place the menu is written). The
/// shape must be validated.
#[macro_export]
macro_rules! dispatch_crd_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::crd_shape_menu!([$crate::crd_dispatch_queues] ; $shape, $make)
    };
}

/// One match arm per queue width of the menu (used by `dispatch_crd_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! crd_dispatch_queues {
    (($shape:expr, $make:ident) ; [$($q:literal),*] ; $lens:tt) => {{
        let shape = $shape;
        match shape.queue_bits {
            $($q => $crate::crd_dispatch_lens!(shape, $make, $q, $lens),)*
            q => unreachable!("queue_bits {q} passed validation but has no instance"),
        }
    }};
}

/// One match arm per length width of the menu (used by `dispatch_crd_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! crd_dispatch_lens {
    ($shape:ident, $make:ident, $q:literal, [$($l:literal),*]) => {
        match $shape.len_bits {
            $($l => $crate::own_frame(|| $make!($q, { 1 << $q }, $l, { $l + 7 })),)*
            l => unreachable!("len_bits {l} passed validation but has no instance"),
        }
    };
}

/// rust-hdl's Verilog for CRD, as `generate_verilog` writes it.
pub fn raw_verilog(config: &CrdConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($qb:literal, $q:tt, $l:literal, $sw:tt) => {{
            let mut b = Crd::<$qb, $q, $l, $sw>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_crd_shape!(config.shape, make))
}

/// Signals whose bits are left unread on purpose (docs/lint.md).
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    (
        "s_cfg_data",
        "bits 23:len_bits: the register port carries 24-bit words; qeq is len_bits wide, \
         the other registers 16 bits at most",
    ),
    (
        "d_e6",
        "bit 5: min(fb_shift + 11, len_bits + 6) is at most 30",
    ),
    (
        "xs",
        "bits above 7 of S >> (s + 3): the saturation is decided by S >= 2^e instead",
    ),
    (
        "mix",
        "bits 16 and 7:0: Fb' is bits 15:8 of a sum at most 256 * 255",
    ),
];

/// The finished Verilog file for CRD.
pub fn verilog(config: &CrdConfig) -> Result<String, ParamError> {
    let raw = crate::emit::waive_unused(&raw_verilog(config)?, LINT_WAIVERS);
    let s = &config.shape;
    let r = &config.reset;
    let params = [
        ("queue_bits", s.queue_bits.to_string()),
        ("len_bits", s.len_bits.to_string()),
        ("reset.period", r.period.to_string()),
        ("reset.qeq", r.qeq.to_string()),
        ("reset.wq", r.wq.to_string()),
        ("reset.fb_shift", r.fb_shift.to_string()),
        ("reset.w", r.w.to_string()),
        ("reset.hold", r.hold.to_string()),
    ];
    Ok(crate::emit::finish(
        "crd",
        "congestion region detection: per-queue congestion degree Fb', local and remote flags and role",
        &format!(
            "II = 1 (one report, one notification, one register write per cycle); \
             a sample's result {LATENCY} cycles after it; queue q sampled when the timer is q"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl CRD block for a configuration.
pub fn sim(config: &CrdConfig) -> Result<Box<dyn crate::sim::CycleSim<CrdIn, CrdOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($qb:literal, $q:tt, $l:literal, $sw:tt) => {{
            let mut b = Crd::<$qb, $q, $l, $sw>::new(config);
            b.connect_all();
            Box::new(CrdSim(b)) as Box<dyn crate::sim::CycleSim<CrdIn, CrdOut>>
        }};
    }
    Ok(crate::dispatch_crd_shape!(config.shape, make))
}

struct CrdSim<const QB: usize, const Q: usize, const L: usize, const SW: usize>(Crd<QB, Q, L, SW>);

impl<const QB: usize, const Q: usize, const L: usize, const SW: usize>
    crate::sim::CycleSim<CrdIn, CrdOut> for CrdSim<QB, Q, L, SW>
{
    fn cycle(&mut self, i: &CrdIn) -> CrdOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_len_valid.next = i.len_valid;
        b.s_len_queue.next = (i.len_queue as u64).to_bits();
        b.s_len_bytes.next = (i.len_bytes as u64).to_bits();
        b.s_cn_valid.next = i.cn_valid;
        b.s_cn_queue.next = (i.cn_queue as u64).to_bits();
        b.s_cn_fb.next = (i.cn_fb as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = (i.cfg_addr as u64).to_bits();
        b.s_cfg_data.next = (i.cfg_data as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "CRD logic did not settle"
        );
        let out = CrdOut {
            fb_valid: b.m_fb_valid.val(),
            fb_queue: b.m_fb_queue.val().index() as u32,
            fb: b.m_fb.val().index() as u32,
            fb_local: b.m_fb_local.val(),
            fb_remote: b.m_fb_remote.val(),
            fb_role: b.m_fb_role.val().index() as u8,
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "CRD logic did not settle"
        );
        out
    }
}

/// The ports of CRD for a validated configuration, read from the struct.
pub fn ports(config: &CrdConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($qb:literal, $q:tt, $l:literal, $sw:tt) => {{
            crate::ports::ports_of(&Crd::<$qb, $q, $l, $sw>::new(config))
        }};
    }
    crate::dispatch_crd_shape!(config.shape, make)
}
