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
//! # Pipeline (II = 1, decision latency 3)
//! - cycle n (stage 0, from the ports and the state registers): WRED and
//!   tail-drop tests on the depth `q`, the depth update (one adder, one
//!   subtractor and three comparators in the loop: `q >= kdrop`,
//!   `q + len > buf_max`, `deq_len > q'`), `q >= kmin`, `q >= kmax`,
//!   `q - kmin`, `kmax - kmin`, the draw `u`; registered into stage 1.
//! - cycle n+1: the two products `u * (kmax - kmin)` and `(q - kmin) * pmax`,
//!   each from 16x16 partial products (44 and 45 significant bits, held in 48);
//!   registered into stage 2.
//! - cycle n+2: comparison and the decision; registered into the outputs,
//!   which the user sees during cycle n+3.
//!
//! Internally the depth arithmetic is 32 bits wide (`q + len < 2^28 + 2^16`),
//! which yosys trims to the significant bits.

use ccrtl_golden::cp::{CpConfig, CpIn, CpOut, RESET_SEED};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;

#[derive(LogicBlock, Default)]
pub struct Cp<const D: usize, const L: usize> {
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

    // Decisions, three cycles after their enqueue.
    pub m_dec_valid: Signal<Out, Bit>,
    /// 0 admit, 1 admit and mark CE, 2 WRED drop, 3 tail drop; 0 when not valid.
    pub m_dec_action: Signal<Out, Bits<2>>,
    /// ECN the packet leaves with; 0 when dropped or not valid.
    pub m_dec_ecn: Signal<Out, Bits<2>>,
    // Status.
    /// Queue depth at the start of the cycle, bytes.
    pub q_depth: Signal<Out, Bits<D>>,
    /// Sticky: a dequeue was longer than the queue; cleared by rst only.
    pub err_underflow: Signal<Out, Bit>,

    // State.
    depth: DFF<Bits<D>>,
    underflow: DFF<Bit>,
    kmin: DFF<Bits<D>>,
    kmax: DFF<Bits<D>>,
    pmax: DFF<Bits<17>>,
    kdrop: DFF<Bits<D>>,
    buf_max: DFF<Bits<D>>,
    rng: DFF<Bits<32>>,

    // Stage 1.
    s1_valid: DFF<Bit>,
    s1_action: DFF<Bits<2>>,
    s1_ecn: DFF<Bits<2>>,
    s1_ect: DFF<Bit>,
    s1_ge_kmin: DFF<Bit>,
    s1_ge_kmax: DFF<Bit>,
    s1_over: DFF<Bits<32>>,
    s1_span: DFF<Bits<32>>,
    s1_pmax: DFF<Bits<17>>,
    s1_u: DFF<Bits<16>>,

    // Stage 2.
    s2_valid: DFF<Bit>,
    s2_action: DFF<Bits<2>>,
    s2_ecn: DFF<Bits<2>>,
    s2_ect: DFF<Bit>,
    s2_ge_kmin: DFF<Bit>,
    s2_ge_kmax: DFF<Bit>,
    s2_lhs: DFF<Bits<48>>,
    s2_rhs: DFF<Bits<48>>,

    // Output registers.
    o_valid: DFF<Bit>,
    o_action: DFF<Bits<2>>,
    o_ecn: DFF<Bits<2>>,

    // Combinational intermediates (32-bit depth arithmetic).
    q32: Signal<Local, Bits<32>>,
    sum: Signal<Local, Bits<32>>,
    after_enq: Signal<Local, Bits<32>>,
    deq32: Signal<Local, Bits<32>>,
    wred: Signal<Local, Bit>,
    tail: Signal<Local, Bit>,
    admit: Signal<Local, Bit>,
    x1: Signal<Local, Bits<32>>,
    x2: Signal<Local, Bits<32>>,
    x3: Signal<Local, Bits<32>>,
    lhs_lo: Signal<Local, Bits<32>>,
    lhs_hi: Signal<Local, Bits<32>>,
    rhs_lo: Signal<Local, Bits<32>>,
    rhs_hi: Signal<Local, Bits<32>>,
    rhs_one: Signal<Local, Bits<48>>,
    mark: Signal<Local, Bit>,

    // Reset values (generation-time).
    reset_kmin: Param<Bits<D>>,
    reset_kmax: Param<Bits<D>>,
    reset_pmax: Param<Bits<17>>,
    reset_kdrop: Param<Bits<D>>,
    reset_buf_max: Param<Bits<D>>,
    reset_seed: Param<Bits<32>>,
    fallback_seed: Param<Bits<32>>,
}

impl<const D: usize, const L: usize> Cp<D, L> {
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `D` and `L` equal to its shape.
    pub fn new(config: &CpConfig) -> Self {
        assert_eq!(config.shape.depth_bits as usize, D);
        assert_eq!(config.shape.len_bits as usize, L);
        let r = &config.reset;
        let seed = if r.seed == 0 { RESET_SEED } else { r.seed };
        Self {
            reset_kmin: Param::new((r.kmin as u64).to_bits()),
            reset_kmax: Param::new((r.kmax as u64).to_bits()),
            reset_pmax: Param::new((r.pmax as u64).to_bits()),
            reset_kdrop: Param::new((r.kdrop as u64).to_bits()),
            reset_buf_max: Param::new((r.buf_max as u64).to_bits()),
            reset_seed: Param::new((seed as u64).to_bits()),
            fallback_seed: Param::new((RESET_SEED as u64).to_bits()),
            ..Default::default()
        }
    }
}

impl<const D: usize, const L: usize> Logic for Cp<D, L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, depth, underflow, kmin, kmax, pmax, kdrop, buf_max, rng, s1_valid,
            s1_action, s1_ecn, s1_ect, s1_ge_kmin, s1_ge_kmax, s1_over, s1_span, s1_pmax, s1_u,
            s2_valid, s2_action, s2_ecn, s2_ect, s2_ge_kmin, s2_ge_kmax, s2_lhs, s2_rhs, o_valid,
            o_action, o_ecn
        );

        // ---- Stage 0: admission and the depth loop -------------------------
        self.q32.next = bit_cast::<32, D>(self.depth.q.val());
        self.sum.next = self.q32.val() + bit_cast::<32, L>(self.s_enq_len.val());
        self.deq32.next = bit_cast::<32, L>(self.s_deq_len.val());
        self.wred.next = self.s_enq_valid.val()
            & (self.s_enq_ecn.val() == 0)
            & (self.depth.q.val() >= self.kdrop.q.val());
        self.tail.next = self.s_enq_valid.val()
            & !self.wred.val()
            & (self.sum.val() > bit_cast::<32, D>(self.buf_max.q.val()));
        self.admit.next = self.s_enq_valid.val() & !self.wred.val() & !self.tail.val();

        self.after_enq.next = self.q32.val();
        if self.admit.val() {
            self.after_enq.next = self.sum.val();
        }
        self.depth.d.next = bit_cast::<D, 32>(self.after_enq.val());
        if self.s_deq_valid.val() {
            if self.deq32.val() > self.after_enq.val() {
                self.depth.d.next = 0.into();
                self.underflow.d.next = true;
            } else {
                self.depth.d.next = bit_cast::<D, 32>(self.after_enq.val() - self.deq32.val());
            }
        }

        // Stage 0 into stage 1: everything the mark decision needs.
        self.s1_valid.d.next = self.s_enq_valid.val();
        self.s1_action.d.next = 0.into();
        self.s1_ecn.d.next = 0.into();
        if self.wred.val() {
            self.s1_action.d.next = 2.into();
        }
        if self.tail.val() {
            self.s1_action.d.next = 3.into();
        }
        if self.admit.val() {
            self.s1_ecn.d.next = self.s_enq_ecn.val();
        }
        self.s1_ect.d.next =
            self.admit.val() & (self.s_enq_ecn.val() != 0) & (self.s_enq_ecn.val() != 3);
        self.s1_ge_kmin.d.next = self.depth.q.val() >= self.kmin.q.val();
        self.s1_ge_kmax.d.next = self.depth.q.val() >= self.kmax.q.val();
        self.s1_over.d.next = self.q32.val() - bit_cast::<32, D>(self.kmin.q.val());
        self.s1_span.d.next =
            bit_cast::<32, D>(self.kmax.q.val()) - bit_cast::<32, D>(self.kmin.q.val());
        self.s1_pmax.d.next = self.pmax.q.val();
        self.s1_u.d.next = self.rng.q.val().get_bits::<16>(16);

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
            self.rng.d.next = self.s_cfg_seed.val();
            if self.s_cfg_seed.val() == 0 {
                self.rng.d.next = self.fallback_seed.val();
            }
        }

        // ---- Stage 1: products from 16x16 partial products -----------------
        // u * span, span < 2^28: 44 significant bits.
        self.lhs_lo.next = self.s1_u.q.val() * self.s1_span.q.val().get_bits::<16>(0);
        self.lhs_hi.next = self.s1_u.q.val() * self.s1_span.q.val().get_bits::<16>(16);
        // over * pmax, pmax in Q1.16 = pmax[16] * 2^16 + pmax[15:0]: 45 bits.
        self.rhs_lo.next =
            self.s1_over.q.val().get_bits::<16>(0) * self.s1_pmax.q.val().get_bits::<16>(0);
        self.rhs_hi.next =
            self.s1_over.q.val().get_bits::<16>(16) * self.s1_pmax.q.val().get_bits::<16>(0);
        self.rhs_one.next = 0.into();
        if self.s1_pmax.q.val().get_bit(16) {
            self.rhs_one.next = bit_cast::<48, 32>(self.s1_over.q.val()) << 16;
        }
        self.s2_lhs.d.next =
            bit_cast::<48, 32>(self.lhs_lo.val()) + (bit_cast::<48, 32>(self.lhs_hi.val()) << 16);
        self.s2_rhs.d.next = bit_cast::<48, 32>(self.rhs_lo.val())
            + (bit_cast::<48, 32>(self.rhs_hi.val()) << 16)
            + self.rhs_one.val();
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_action.d.next = self.s1_action.q.val();
        self.s2_ecn.d.next = self.s1_ecn.q.val();
        self.s2_ect.d.next = self.s1_ect.q.val();
        self.s2_ge_kmin.d.next = self.s1_ge_kmin.q.val();
        self.s2_ge_kmax.d.next = self.s1_ge_kmax.q.val();

        // ---- Stage 2: the decision -----------------------------------------
        self.mark.next = self.s2_ect.q.val()
            & (self.s2_ge_kmax.q.val()
                | (self.s2_ge_kmin.q.val() & (self.s2_lhs.q.val() < self.s2_rhs.q.val())));
        self.o_valid.d.next = self.s2_valid.q.val();
        self.o_action.d.next = self.s2_action.q.val();
        self.o_ecn.d.next = self.s2_ecn.q.val();
        if self.mark.val() {
            self.o_action.d.next = 1.into();
            self.o_ecn.d.next = 3.into();
        }

        // ---- Synchronous reset ---------------------------------------------
        if self.rst.val() {
            self.depth.d.next = 0.into();
            self.underflow.d.next = false;
            self.kmin.d.next = self.reset_kmin.val();
            self.kmax.d.next = self.reset_kmax.val();
            self.pmax.d.next = self.reset_pmax.val();
            self.kdrop.d.next = self.reset_kdrop.val();
            self.buf_max.d.next = self.reset_buf_max.val();
            self.rng.d.next = self.reset_seed.val();
            self.s1_valid.d.next = false;
            self.s1_action.d.next = 0.into();
            self.s1_ecn.d.next = 0.into();
            self.s1_ect.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_action.d.next = 0.into();
            self.s2_ecn.d.next = 0.into();
            self.s2_ect.d.next = false;
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
            let mut b = Cp::<$d, $l>::new(config);
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
        "II = 1; decision 3 cycles after its enqueue",
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
            let mut b = Cp::<$d, $l>::new(config);
            b.connect_all();
            Box::new(CpSim(b)) as Box<dyn crate::sim::CycleSim<CpIn, CpOut>>
        }};
    }
    Ok(crate::dispatch_cp_shape!(config.shape, make))
}

struct CpSim<const D: usize, const L: usize>(Cp<D, L>);

impl<const D: usize, const L: usize> crate::sim::CycleSim<CpIn, CpOut> for CpSim<D, L> {
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
            crate::ports::ports_of(&Cp::<$d, $l>::new(config))
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
