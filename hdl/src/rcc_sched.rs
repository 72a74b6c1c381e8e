//! RCC_SCHED — the window scheduler at a switch output (seed 002 §3.4): two
//! classes, the congestion flows `c` and the rest `n`, share the output;
//! in window mode `c` may send `min(Wc, W)` bytes of every `W`-byte window.
//! The rule and the timing contract are specified in
//! `ccrtl_golden::rcc_sched`; `docs/rcc_sched.md` has the port, parameter
//! and register tables and the measured Fmax.
//!
//! # Generation-time parameters
//! - `WB` = `win_bits` in {16, 20, 24}: `W`, `Wc`, the byte counters and
//!   the registers; `N = WB + 2`, the width of the signed running
//!   differences below;
//! - the reset values of `window` and `wc_min`.
//!
//! # The accounting loop in one cycle, each test a sign bit
//! The grant of a cycle depends on the state at its start, and the next
//! grant on the state the grant leaves, so the accounting is a one-cycle
//! loop. A window keeps the `W` and `min(Wc, W)` in force in its first
//! cycle (the contract), so inside a window the two tests of the rule
//! move only by the packets granted. They are held as running
//! differences, each a sign bit:
//! - `nl = sent - W`: a grant of `L` bytes ends the window iff
//!   `nl + L >= 0`, and `nl + L` is the next `nl` if it does not;
//! - `cr = min(Wc, W) - sent_c - 1`: `c` is eligible iff `cr >= 0`; a
//!   counted grant leaves `cr - Lc`.
//!
//! So each next value is one two-operand sum of a register and a length,
//! computed for both classes in parallel; the grant, early, selects among
//! them last. A new window loads `-W'` and `min(Wc', W') - 1` of the cycle
//! it starts in: those are registers (`nw1`, `lim1`), loaded a cycle
//! ahead. That is why a register write is in force three cycles after it
//! (staged in `q_*`, then `w1`, then `w`) and a degree update nine cycles
//! after it is taken. The byte counters themselves are not kept.
//!
//! # Degree updates (DEGREE_LATENCY = 9)
//! A degree update is taken when none is in flight; one arriving meanwhile
//! waits in a one-deep slot, a later one replacing it.
//! - t0: taken; the operand `a` (`W/2` on entry, else `Wc`) and
//!   `512 - Fb` are registered (`k0_*`);
//! - t0+1 .. t0+5: `a * (512 - Fb)` in [`PipeMul`] (five adder levels);
//! - t0+6: `max(prod >> 9, wc_min)` registered (`k6_*`);
//! - t0+7: loaded into `wc1` (and `lim1`), the values in force from t0+9;
//!   the flags move to `k7_*`;
//! - t0+8: applied with that cycle's accounting (mode, `Wc`, an entry's new
//!   window); seen from t0+9.
//!
//! # Reset
//! `rst` restores the registers, normal mode, `Wc = W_reset / 2`, zero
//! counters, `last = c`, and drops the staged writes, the pending degree
//! and the one in flight; the other inputs of a reset cycle are ignored.

use ccrtl_golden::rcc_sched::{
    RccSchedConfig, RccSchedIn, RccSchedOut, CFG_ADDR_BITS, CFG_DATA_BITS, FB_BITS, LEN_BITS,
};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::mul::PipeMul;
use crate::param::Param;

const LW: usize = LEN_BITS as usize;
const FW: usize = FB_BITS as usize;
const AW: usize = CFG_ADDR_BITS as usize;
const CW: usize = CFG_DATA_BITS as usize;

#[derive(LogicBlock, Default)]
pub struct RccSched<const WB: usize, const N: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    /// Class `c` (the congestion flows) has a head packet.
    pub s_c_valid: Signal<In, Bit>,
    /// Its length, bytes (read in the cycle it is granted).
    pub s_c_len: Signal<In, Bits<LW>>,
    /// Class `n` (every other flow) has a head packet.
    pub s_n_valid: Signal<In, Bit>,
    pub s_n_len: Signal<In, Bits<LW>>,
    /// The output link takes a packet this cycle.
    pub s_out_ready: Signal<In, Bit>,
    /// A congestion degree of this output (crd's `Fb'`; 0 = cleared).
    pub s_fb_valid: Signal<In, Bit>,
    pub s_fb: Signal<In, Bits<FW>>,
    /// Register writes (`window` at 0, `wc_min` at 1), in force three cycles later.
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<AW>>,
    pub s_cfg_data: Signal<In, Bits<CW>>,

    /// `c`'s head packet is granted this cycle (combinational).
    pub m_c_ready: Signal<Out, Bit>,
    /// `n`'s head packet is granted this cycle (combinational).
    pub m_n_ready: Signal<Out, Bit>,
    /// Window mode is on.
    pub m_window: Signal<Out, Bit>,
    /// `min(Wc, W)` in window mode, `W` in normal mode.
    pub m_wc: Signal<Out, Bits<WB>>,
    /// `W - m_wc`.
    pub m_wnc: Signal<Out, Bits<WB>>,

    // ---- State (`x1`: the value in force next cycle) --------------------
    /// `W` in force, 0 read as 1; `w1` next cycle's, `nw1 = -w1`.
    w: DFF<Bits<WB>>,
    w1: DFF<Bits<WB>>,
    nw1: DFF<Bits<N>>,
    wc_min: DFF<Bits<WB>>,
    /// `Wc`; `wc1` next cycle's.
    wc: DFF<Bits<WB>>,
    wc1: DFF<Bits<WB>>,
    /// `min(wc1, w1)`.
    lim1: DFF<Bits<WB>>,
    /// Window mode.
    mode: DFF<Bit>,
    /// The class granted last was `c`.
    last_c: DFF<Bit>,
    /// `sent - W` of the current window (`sent` the bytes granted in it).
    nl: DFF<Bits<N>>,
    /// `min(Wc, W) - sent_c - 1` of the current window.
    cr: DFF<Bits<N>>,
    o_wc: DFF<Bits<WB>>,
    o_wnc: DFF<Bits<WB>>,

    // ---- Register writes, staged: `q_*`, then `w1` / `q2_*` ---------------
    q_wr_w: DFF<Bit>,
    q_wr_m: DFF<Bit>,
    /// The data's low `WB` bits.
    q_d: DFF<Bits<WB>>,
    /// The same, 0 read as 1.
    q_de: DFF<Bits<WB>>,
    /// `-q_de` (computed in the stage after, from the register).
    q_nde: Signal<Local, Bits<N>>,
    q2_wr_m: DFF<Bit>,
    q2_d: DFF<Bits<WB>>,
    d_in: Signal<Local, Bits<WB>>,
    d_eff: Signal<Local, Bits<WB>>,

    // ---- Degree updates ------------------------------------------------
    pend_v: DFF<Bit>,
    pend_fb: DFF<Bits<FW>>,
    /// Cycles until the pipeline is free.
    busy: DFF<Bits<4>>,
    new_v: Signal<Local, Bit>,
    new_fb: Signal<Local, Bits<FW>>,
    take: Signal<Local, Bit>,
    k0_v: DFF<Bit>,
    k0_quit: DFF<Bit>,
    k0_entry: DFF<Bit>,
    k0_a: DFF<Bits<WB>>,
    /// `512 - Fb` (257 to 512).
    k0_m: DFF<Bits<10>>,
    /// Tag bits: 0 valid, 1 quit, 2 entry.
    k0_tag: Signal<Local, Bits<3>>,
    mul: PipeMul<WB, 3>,
    prod: Signal<Local, Bits<WB>>,
    k6_v: DFF<Bit>,
    k6_quit: DFF<Bit>,
    k6_entry: DFF<Bit>,
    /// `max(prod, wc_min)`.
    k6_wcn: DFF<Bits<WB>>,
    k7_v: DFF<Bit>,
    k7_quit: DFF<Bit>,
    k7_entry: DFF<Bit>,

    // ---- The next values of w1, wc1, lim1 -----------------------------------
    w2: Signal<Local, Bits<WB>>,
    wc2: Signal<Local, Bits<WB>>,
    /// `w2 - wc2`, widened; `le2`: `wc2 <= w2`.
    u2: Signal<Local, Bits<N>>,
    sg_u2: Signal<Local, Bits<N>>,
    le2: Signal<Local, Bit>,

    // ---- The cycle's grant and next state --------------------------------
    elig: Signal<Local, Bit>,
    alt_c: Signal<Local, Bit>,
    gc: Signal<Local, Bit>,
    gn: Signal<Local, Bit>,
    acc: Signal<Local, Bit>,
    mode_n: Signal<Local, Bit>,
    lc: Signal<Local, Bits<N>>,
    ln: Signal<Local, Bits<N>>,
    /// `nl + L`: the window ends on a grant of `L` iff not negative.
    e_c: Signal<Local, Bits<N>>,
    e_n: Signal<Local, Bits<N>>,
    end_c: Signal<Local, Bit>,
    end_n: Signal<Local, Bit>,
    /// `cr - Lc`, `lim1 - 1`.
    r_c: Signal<Local, Bits<N>>,
    r_z: Signal<Local, Bits<N>>,
    /// `w1 - lim1`.
    wnc1: Signal<Local, Bits<WB>>,
    /// The next `nl`, `cr` after a grant to `c` (`g_*_c`) or to `n`
    /// (`g_*_n`) in window mode.
    g_nl_c: Signal<Local, Bits<N>>,
    g_cr_c: Signal<Local, Bits<N>>,
    g_nl_n: Signal<Local, Bits<N>>,
    g_cr_n: Signal<Local, Bits<N>>,
    /// Sign bits (`x & 2^(N-1)`).
    sg_cr: Signal<Local, Bits<N>>,
    sg_ec: Signal<Local, Bits<N>>,
    sg_en: Signal<Local, Bits<N>>,

    // ---- Constants -------------------------------------------------------
    /// `2^(N-1)`.
    c_sign: Param<Bits<N>>,
    c_one: Param<Bits<N>>,
    c_ones: Param<Bits<N>>,
    c_one_w: Param<Bits<WB>>,
    c_512: Param<Bits<10>>,
    c_eight: Param<Bits<4>>,
    c_one4: Param<Bits<4>>,
    c_addr_w: Param<Bits<AW>>,
    c_addr_m: Param<Bits<AW>>,
    reset_w: Param<Bits<WB>>,
    reset_nw: Param<Bits<N>>,
    reset_wc_min: Param<Bits<WB>>,
    reset_wc: Param<Bits<WB>>,
    reset_cr: Param<Bits<N>>,
}

impl<const WB: usize, const N: usize> RccSched<WB, N> {
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `WB` equal to its `win_bits`, `N = WB + 2`.
    pub fn new(config: &RccSchedConfig) -> Self {
        assert_eq!(config.shape.win_bits as usize, WB);
        assert_eq!(N, WB + 2);
        let nmask = (1u64 << N) - 1;
        let w = config.reset.w() as u64; // 0 read as 1
        let wc = w / 2;
        Self {
            mul: PipeMul::default(),
            c_sign: Param::new((1u64 << (N - 1)).to_bits()),
            c_one: Param::new(1u64.to_bits()),
            c_ones: Param::new(nmask.to_bits()),
            c_one_w: Param::new(1u64.to_bits()),
            c_512: Param::new(512u64.to_bits()),
            c_eight: Param::new(8u64.to_bits()),
            c_one4: Param::new(1u64.to_bits()),
            c_addr_w: Param::new(0u64.to_bits()),
            c_addr_m: Param::new(1u64.to_bits()),
            reset_w: Param::new(w.to_bits()),
            reset_nw: Param::new((w.wrapping_neg() & nmask).to_bits()),
            reset_wc_min: Param::new((config.reset.wc_min as u64).to_bits()),
            reset_wc: Param::new(wc.to_bits()),
            // min(Wc, W) - 0 - 1 with Wc = W / 2 < W.
            reset_cr: Param::new((wc.wrapping_sub(1) & nmask).to_bits()),
            ..Default::default()
        }
    }
}

impl<const WB: usize, const N: usize> Logic for RccSched<WB, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, w, w1, nw1, wc_min, wc, wc1, lim1, mode, last_c, nl, cr, o_wc, o_wnc,
            q_wr_w, q_wr_m, q_d, q_de, q2_wr_m, q2_d, pend_v, pend_fb, busy, k0_v, k0_quit,
            k0_entry, k0_a, k0_m, k6_v, k6_quit, k6_entry, k6_wcn, k7_v, k7_quit, k7_entry
        );
        self.mul.clk.next = self.clk.val();
        self.mul.rst.next = self.rst.val();

        // ---- The grant (state at the start of the cycle) -------------------
        self.sg_cr.next = self.cr.q.val() & self.c_sign.val();
        self.elig.next = !self.mode.q.val() | !self.sg_cr.val().any();
        // Both valid: c iff eligible and n was granted last.
        self.alt_c.next = self.elig.val() & !self.last_c.q.val();
        self.gc.next = !self.rst.val()
            & self.s_out_ready.val()
            & self.s_c_valid.val()
            & (!self.s_n_valid.val() | self.alt_c.val());
        self.gn.next = !self.rst.val()
            & self.s_out_ready.val()
            & self.s_n_valid.val()
            & (!self.s_c_valid.val() | !self.alt_c.val());
        // Window-mode accounting (a c grant while eligible counts in sent_c).
        // (gc | gn, written out: the load of nl and cr depends on it, and
        // the shallower form keeps it off the grant's LUT levels.)
        self.acc.next = self.mode.q.val()
            & !self.rst.val()
            & self.s_out_ready.val()
            & (self.s_c_valid.val() | self.s_n_valid.val());
        // An update applied this cycle (k7): the mode from the next.
        self.mode_n.next = self.mode.q.val();
        if self.k7_v.q.val() {
            self.mode_n.next = !self.k7_quit.q.val();
        }

        // ---- The two tests' next values, each its own adder ------------------
        self.lc.next = bit_cast::<N, LW>(self.s_c_len.val());
        self.ln.next = bit_cast::<N, LW>(self.s_n_len.val());
        // nl + L: the window ends on this grant iff it is not negative; it
        // is also the next nl if the window goes on.
        self.e_c.next = self.nl.q.val() + self.lc.val();
        self.e_n.next = self.nl.q.val() + self.ln.val();
        self.sg_ec.next = self.e_c.val() & self.c_sign.val();
        self.sg_en.next = self.e_n.val() & self.c_sign.val();
        self.end_c.next = !self.sg_ec.val().any();
        self.end_n.next = !self.sg_en.val().any();
        // cr - Lc: c's next test after a counted grant.
        self.r_c.next = self.cr.q.val() - self.lc.val();
        // A new window's: -W' and min(Wc', W') - 1.
        self.r_z.next = bit_cast::<N, WB>(self.lim1.q.val()) + self.c_ones.val();
        self.wnc1.next = self.w1.q.val() - self.lim1.q.val();

        // ---- Next state ------------------------------------------------------
        // Each class's grant, the window's end already decided (the grant,
        // early, selects last).
        self.g_nl_c.next = self.e_c.val();
        self.g_cr_c.next = self.cr.q.val();
        if self.elig.val() {
            self.g_cr_c.next = self.r_c.val();
        }
        if self.end_c.val() {
            self.g_nl_c.next = self.nw1.q.val();
            self.g_cr_c.next = self.r_z.val();
        }
        self.g_nl_n.next = self.e_n.val();
        self.g_cr_n.next = self.cr.q.val();
        if self.end_n.val() {
            self.g_nl_n.next = self.nw1.q.val();
            self.g_cr_n.next = self.r_z.val();
        }
        // A new window takes the W and min(Wc, W) in force in its first
        // cycle, and keeps them to its end.
        if self.k7_v.q.val() & self.k7_entry.q.val() {
            // An entry applies (normal mode: no accounting): a new window.
            self.nl.d.next = self.nw1.q.val();
            self.cr.d.next = self.r_z.val();
        } else if self.acc.val() & self.gc.val() {
            self.nl.d.next = self.g_nl_c.val();
            self.cr.d.next = self.g_cr_c.val();
        } else if self.acc.val() {
            self.nl.d.next = self.g_nl_n.val();
            self.cr.d.next = self.g_cr_n.val();
        }
        // The status of the next cycle, from the registers in force then:
        // W and 0 in normal mode, min(Wc, W) and W - that in window mode.
        self.o_wc.d.next = self.w1.q.val();
        self.o_wnc.d.next = 0.into();
        if self.mode_n.val() {
            self.o_wc.d.next = self.lim1.q.val();
            self.o_wnc.d.next = self.wnc1.val();
        }
        self.mode.d.next = self.mode_n.val();
        if self.gc.val() {
            self.last_c.d.next = true;
        }
        if self.gn.val() {
            self.last_c.d.next = false;
        }

        // ---- W, Wc and min(Wc, W) a cycle ahead ---------------------------------
        self.w.d.next = self.w1.q.val();
        self.wc.d.next = self.wc1.q.val();
        // -W' for nw1, from the staged (registered) value.
        self.q_nde.next = !bit_cast::<N, WB>(self.q_de.q.val()) + self.c_one.val();
        self.w2.next = self.w1.q.val();
        if self.q_wr_w.q.val() {
            self.w2.next = self.q_de.q.val();
            self.nw1.d.next = self.q_nde.val();
        }
        self.wc2.next = self.wc1.q.val();
        if self.k6_v.q.val() & !self.k6_quit.q.val() {
            self.wc2.next = self.k6_wcn.q.val();
        }
        self.w1.d.next = self.w2.val();
        self.wc1.d.next = self.wc2.val();
        self.u2.next = bit_cast::<N, WB>(self.w2.val()) - bit_cast::<N, WB>(self.wc2.val());
        self.sg_u2.next = self.u2.val() & self.c_sign.val();
        self.le2.next = !self.sg_u2.val().any();
        self.lim1.d.next = self.w2.val();
        if self.le2.val() {
            self.lim1.d.next = self.wc2.val();
        }

        // ---- Register writes, staged ------------------------------------------------
        self.d_in.next = self.s_cfg_data.val().get_bits::<WB>(0);
        self.d_eff.next = self.d_in.val();
        if !self.d_in.val().any() {
            self.d_eff.next = self.c_one_w.val();
        }
        self.q_wr_w.d.next =
            self.s_cfg_valid.val() & (self.s_cfg_addr.val() == self.c_addr_w.val());
        self.q_wr_m.d.next =
            self.s_cfg_valid.val() & (self.s_cfg_addr.val() == self.c_addr_m.val());
        self.q_d.d.next = self.d_in.val();
        self.q_de.d.next = self.d_eff.val();
        self.q2_wr_m.d.next = self.q_wr_m.q.val();
        self.q2_d.d.next = self.q_d.q.val();
        if self.q2_wr_m.q.val() {
            self.wc_min.d.next = self.q2_d.q.val();
        }

        // ---- Degree updates: take, multiply, floor, apply ----------------------
        self.new_v.next = self.s_fb_valid.val() | self.pend_v.q.val();
        self.new_fb.next = self.pend_fb.q.val();
        if self.s_fb_valid.val() {
            self.new_fb.next = self.s_fb.val();
        }
        self.take.next = self.new_v.val() & !self.busy.q.val().any();
        self.pend_v.d.next = self.new_v.val() & self.busy.q.val().any();
        self.pend_fb.d.next = self.new_fb.val();
        if self.take.val() {
            self.busy.d.next = self.c_eight.val();
        } else if self.busy.q.val().any() {
            self.busy.d.next = self.busy.q.val() - self.c_one4.val();
        }
        self.k0_v.d.next = self.take.val();
        self.k0_quit.d.next = !self.new_fb.val().any();
        self.k0_entry.d.next = self.new_fb.val().any() & !self.mode.q.val();
        self.k0_a.d.next = self.wc.q.val();
        if !self.mode.q.val() {
            self.k0_a.d.next = self.w.q.val() >> 1;
        }
        self.k0_m.d.next = self.c_512.val() - bit_cast::<10, FW>(self.new_fb.val());
        self.k0_tag.next = 0.into();
        if self.k0_v.q.val() {
            self.k0_tag.next = 1.into();
            if self.k0_quit.q.val() {
                self.k0_tag.next = 3.into();
            } else if self.k0_entry.q.val() {
                self.k0_tag.next = 5.into();
            }
        }
        self.mul.a.next = self.k0_a.q.val();
        self.mul.b.next = bit_cast::<17, 10>(self.k0_m.q.val());
        self.mul.tag.next = self.k0_tag.val();
        self.prod.next = self.mul.p.val().get_bits::<WB>(9);
        self.k6_v.d.next = self.mul.tag_out.val().get_bit(0);
        self.k6_quit.d.next = self.mul.tag_out.val().get_bit(1);
        self.k6_entry.d.next = self.mul.tag_out.val().get_bit(2);
        self.k6_wcn.d.next = self.prod.val();
        if self.prod.val() < self.wc_min.q.val() {
            self.k6_wcn.d.next = self.wc_min.q.val();
        }
        self.k7_v.d.next = self.k6_v.q.val();
        self.k7_quit.d.next = self.k6_quit.q.val();
        self.k7_entry.d.next = self.k6_entry.q.val();

        // ---- Reset (wins over every load above) --------------------------------
        if self.rst.val() {
            self.w.d.next = self.reset_w.val();
            self.w1.d.next = self.reset_w.val();
            self.nw1.d.next = self.reset_nw.val();
            self.wc_min.d.next = self.reset_wc_min.val();
            self.wc.d.next = self.reset_wc.val();
            self.wc1.d.next = self.reset_wc.val();
            self.lim1.d.next = self.reset_wc.val();
            self.mode.d.next = false;
            self.last_c.d.next = true;
            self.nl.d.next = self.reset_nw.val();
            self.cr.d.next = self.reset_cr.val();
            self.o_wc.d.next = self.reset_w.val();
            self.o_wnc.d.next = 0.into();
            self.q_wr_w.d.next = false;
            self.q_wr_m.d.next = false;
            self.q2_wr_m.d.next = false;
            self.pend_v.d.next = false;
            self.busy.d.next = 0.into();
            self.k0_v.d.next = false;
            self.k6_v.d.next = false;
            self.k7_v.d.next = false;
        }

        // ---- Outputs -------------------------------------------------------------
        self.m_c_ready.next = self.gc.val();
        self.m_n_ready.next = self.gn.val();
        self.m_window.next = self.mode.q.val();
        self.m_wc.next = self.o_wc.q.val();
        self.m_wnc.next = self.o_wnc.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// Expands `$make!(WB, N)` for the run-time shape of `$config` over every
/// window width of the menu in `ccrtl_golden::rcc_sched_shape_menu!` (the
/// one place the menu is written). The shape must be validated.
#[macro_export]
macro_rules! dispatch_rcc_sched_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::rcc_sched_shape_menu!([$crate::rcc_sched_dispatch_widths] ; $shape, $make)
    };
}

/// One match arm per window width of the menu (used by
/// `dispatch_rcc_sched_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! rcc_sched_dispatch_widths {
    (($shape:expr, $make:ident) ; [$($w:literal),*]) => {{
        let shape = $shape;
        match shape.win_bits {
            $($w => $crate::own_frame(|| $make!($w, { $w + 2 })),)*
            w => unreachable!("win_bits {w} passed validation but has no instance"),
        }
    }};
}

/// rust-hdl's Verilog for RCC_SCHED, as `generate_verilog` writes it.
pub fn raw_verilog(config: &RccSchedConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($wb:literal, $n:tt) => {{
            let mut b = RccSched::<$wb, $n>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_rcc_sched_shape!(config.shape, make))
}

/// Signals whose bits are left unread on purpose (docs/lint.md).
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    (
        "s_cfg_data",
        "bits 23:win_bits: the register port carries 24-bit words, the registers are win_bits wide",
    ),
    (
        "mul$p",
        "bits 8:0 and those above win_bits + 8: the cut is floor(Wc (512 - Fb) / 512) < 2^win_bits",
    ),
];

/// The finished Verilog file for RCC_SCHED.
pub fn verilog(config: &RccSchedConfig) -> Result<String, ParamError> {
    let raw = crate::emit::waive_unused(&raw_verilog(config)?, LINT_WAIVERS);
    let params = [
        ("win_bits", config.shape.win_bits.to_string()),
        ("reset.window", config.reset.window.to_string()),
        ("reset.wc_min", config.reset.wc_min.to_string()),
    ];
    Ok(crate::emit::finish(
        "rcc_sched",
        "the window scheduler at a switch output: congestion flows limited to Wc bytes of every W",
        "one grant per cycle (c_ready, n_ready combinational); a register write in force \
         three cycles later; a degree update in force nine cycles after it is taken",
        &params,
        &raw,
    ))
}

/// The rust-hdl RCC_SCHED block for a configuration.
pub fn sim(
    config: &RccSchedConfig,
) -> Result<Box<dyn crate::sim::CycleSim<RccSchedIn, RccSchedOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($wb:literal, $n:tt) => {{
            let mut b = RccSched::<$wb, $n>::new(config);
            b.connect_all();
            Box::new(RccSchedSim(b)) as Box<dyn crate::sim::CycleSim<RccSchedIn, RccSchedOut>>
        }};
    }
    Ok(crate::dispatch_rcc_sched_shape!(config.shape, make))
}

struct RccSchedSim<const WB: usize, const N: usize>(RccSched<WB, N>);

impl<const WB: usize, const N: usize> crate::sim::CycleSim<RccSchedIn, RccSchedOut>
    for RccSchedSim<WB, N>
{
    fn cycle(&mut self, i: &RccSchedIn) -> RccSchedOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_c_valid.next = i.c_valid;
        b.s_c_len.next = (i.c_len as u64).to_bits();
        b.s_n_valid.next = i.n_valid;
        b.s_n_len.next = (i.n_len as u64).to_bits();
        b.s_out_ready.next = i.out_ready;
        b.s_fb_valid.next = i.fb_valid;
        b.s_fb.next = (i.fb as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = (i.cfg_addr as u64).to_bits();
        b.s_cfg_data.next = (i.cfg_data as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "RCC_SCHED logic did not settle"
        );
        let out = RccSchedOut {
            c_ready: b.m_c_ready.val(),
            n_ready: b.m_n_ready.val(),
            window: b.m_window.val(),
            wc: b.m_wc.val().index() as u32,
            wnc: b.m_wnc.val().index() as u32,
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "RCC_SCHED logic did not settle"
        );
        out
    }
}

/// The ports of RCC_SCHED for a validated configuration, read from the struct.
pub fn ports(config: &RccSchedConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($wb:literal, $n:tt) => {{
            crate::ports::ports_of(&RccSched::<$wb, $n>::new(config))
        }};
    }
    crate::dispatch_rcc_sched_shape!(config.shape, make)
}
