//! SAR — switch-level adaptive routing (seed 002 §3.4): for a request that
//! missed the CAM, the equal-cost port with the least regional congestion
//! degree, if it beats the original port by more than a margin. The rule
//! and the timing contract are specified in `ccrtl_golden::sar`;
//! `docs/sar.md` has the port, parameter and register tables and the
//! measured Fmax.
//!
//! # Generation-time parameters
//! - `PB` = `port_bits` in {2, 3, 4}, `P = 2^PB` output ports;
//! - `GB` = `group_bits` in {1, 2, 3, 4}, `G = 2^GB` equal-cost groups,
//!   `GB1 = GB + 1` (the width of `cfg_addr`);
//! - the reset values of the masks and of `margin`.
//!
//! # The decision, restated for hardware
//! The contract's `best` breaks ties towards the original port `o`. A tie
//! with `o` never detours (`deg[o] + margin < deg[o]` is false), so the
//! decision is the same with `best'`, the least-degree candidate with ties
//! to the lowest-numbered port: detour iff `deg[best'] + margin < deg[o]`,
//! `dec_port = best'` then, else `o`. `best'` is found with all pairs
//! compared at once (no comparator chain): each degree is read as a key
//! `deg[p] * 16 + p`, so that keys are distinct and the least key is the
//! least degree with ties to the lowest port; port `p` wins iff it is a
//! candidate and no candidate's key is below its own.
//!
//! # State and wiring
//! Only what changes is held in flip-flops: the 8-bit degrees, the masks
//! and the 8-bit `margin`. The keys are wiring: a small module per port
//! (`SarKey`) forms `deg[p] * 16 + p` and the 9-bit `{0, deg[p]}` from the
//! degree register (rust-hdl's casts take no loop variable, so the
//! widening sits in a module of its own).
//!
//! # Pipeline (II = 1, LATENCY 3)
//! - t (ports; the degrees, masks and margin as held at the start of `t`):
//!   the pair compares `key[q] < key[p]` for every ordered pair `p != q`
//!   (`bt`, `P (P - 1)` bits, straight from the degree registers), the sums
//!   `deg[p] + margin` (9 bits), `deg[o]` and the candidates
//!   `mask[g] | 1 << o` are registered (`a_*`, `bt`) with the request.
//!   An update or write of the same cycle lands after the request.
//! - t+1: `win[p]` (`w`: a candidate that no candidate of lower key beats;
//!   one-hot) and `lt[p] = deg[p] + margin < deg[o]` are registered
//!   (`w`, `b_*`).
//! - t+2: `detour = valid & !hit & OR(win[p] & lt[p])`; `dec_port` is the
//!   winner's number if detoured, else `o`; registered (`o_*`).
//! - t+3: `m_dec_valid`, `m_dec_port`, `m_dec_detour`.
//!
//! The pair bit of `p` against `q = (p + j) mod P` (`j` in `1 .. P`) is
//! `bt[p (P - 1) + j - 1]`. In the loops, `n` runs over the single value
//! `P`, so that these indices are written with loop variables only (what
//! rust-hdl's Verilog generator evaluates).
//!
//! # Reset
//! `rst` zeroes the degrees, restores the masks and `margin`, and drops the
//! requests in flight; the other inputs of a reset cycle are ignored.

use ccrtl_golden::sar::{SarConfig, SarIn, SarOut, CFG_DATA_BITS, DEG_BITS, LATENCY};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;

const DW: usize = DEG_BITS as usize;
const CW: usize = CFG_DATA_BITS as usize;
/// Width of a key `deg * 16 + port` (an 8-bit degree over four bits of
/// port: `P` at most 16).
const KB: usize = 12;
/// Width of `deg + margin`.
const SW: usize = 9;

/// Port `p`'s degree read as its key `deg * 16 + p` and as the 9-bit
/// `{0, deg}` (wiring only; `SarKey::new(p)`).
#[derive(LogicBlock, Default)]
pub struct SarKey {
    /// The degree register of port `p`.
    pub deg: Signal<In, Bits<DW>>,
    /// `deg * 16 + p`.
    pub key: Signal<Out, Bits<KB>>,
    /// `deg`, nine bits wide.
    pub deg9: Signal<Out, Bits<SW>>,
    /// `p`.
    pid: Param<Bits<KB>>,
}

impl SarKey {
    fn new(p: usize) -> Self {
        Self {
            pid: Param::new((p as u64).to_bits()),
            ..Default::default()
        }
    }
}

impl Logic for SarKey {
    #[hdl_gen]
    fn update(&mut self) {
        self.key.next = (bit_cast::<KB, DW>(self.deg.val()) << 4) | self.pid.val();
        self.deg9.next = bit_cast::<SW, DW>(self.deg.val());
    }
}

#[derive(LogicBlock, Default)]
pub struct Sar<
    const PB: usize,
    const P: usize,
    const GB: usize,
    const GB1: usize,
    const G: usize,
> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Degree updates (crd's Fb' of an output port), in force from the next cycle.
    pub s_deg_valid: Signal<In, Bit>,
    pub s_deg_port: Signal<In, Bits<PB>>,
    pub s_deg: Signal<In, Bits<DW>>,
    // Requests, one per cycle (always accepted).
    pub s_req_valid: Signal<In, Bit>,
    /// The original output port, from routing.
    pub s_req_port: Signal<In, Bits<PB>>,
    /// The flow's equal-cost group.
    pub s_req_group: Signal<In, Bits<GB>>,
    /// The flow hit the CAM (a congestion flow: never detoured).
    pub s_req_hit: Signal<In, Bit>,
    // Register writes (`mask[g]` at `g < G`, `margin` at `G`), in force from
    // the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<GB1>>,
    pub s_cfg_data: Signal<In, Bits<CW>>,

    // Decisions, LATENCY cycles after their requests.
    pub m_dec_valid: Signal<Out, Bit>,
    /// The port to send the flow to; 0 when not valid.
    pub m_dec_port: Signal<Out, Bits<PB>>,
    /// `m_dec_port` is not the request's port; 0 when not valid.
    pub m_dec_detour: Signal<Out, Bit>,

    /// The degrees.
    deg: Vec<DFF<Bits<DW>>>,
    mask: Vec<DFF<Bits<P>>>,
    margin: DFF<Bits<DW>>,
    /// Each port's key and 9-bit degree (wiring).
    kmod: Vec<SarKey>,
    /// `margin`, nine bits wide.
    margin9: Signal<Local, Bits<SW>>,
    /// `mask[g]` of the request's group.
    msel: Signal<Local, Bits<P>>,
    /// `deg[o]` of the request's port.
    odeg: Signal<Local, Bits<DW>>,

    // Stage a (registered at the end of t).
    a_valid: DFF<Bit>,
    a_hit: DFF<Bit>,
    a_port: DFF<Bits<PB>>,
    a_cand: DFF<Bits<P>>,
    /// `bt[p (P - 1) + j - 1]`: port `(p + j) mod P` has a lower key than
    /// port `p` (it beats `p` if it is a candidate).
    bt: Vec<DFF<Bit>>,
    /// `deg[p] + margin`.
    a_sum: Vec<DFF<Bits<SW>>>,
    a_odeg: DFF<Bits<DW>>,

    // Stage b (end of t+1).
    /// `cb[p]`: bit `p` of `a_cand`.
    cb: Vec<Signal<Local, Bit>>,
    b_valid: DFF<Bit>,
    b_hit: DFF<Bit>,
    b_port: DFF<Bits<PB>>,
    /// One-hot: the least-degree candidate, ties to the lowest port.
    w: Vec<DFF<Bit>>,
    /// `deg[p] + margin < deg[o]`.
    b_lt: Vec<DFF<Bit>>,

    // Stage t+2.
    /// `go[p]`: port `p` wins and beats `o` by more than the margin.
    go: Vec<Signal<Local, Bit>>,
    /// `det[k]`: one of ports `0 .. k` goes.
    det: Vec<Signal<Local, Bit>>,
    /// `enc[k]`: the number of the winner among ports `0 .. k` (0 if none).
    enc: Vec<Signal<Local, Bits<PB>>>,
    o_valid: DFF<Bit>,
    o_port: DFF<Bits<PB>>,
    o_detour: DFF<Bit>,

    /// `pidx[p] = p`, `gidx[g] = gsel[g] = g` (the masks' addresses, the
    /// groups), `margin_addr = G`.
    pidx: Vec<Param<Bits<PB>>>,
    gidx: Vec<Param<Bits<GB1>>>,
    gsel: Vec<Param<Bits<GB>>>,
    margin_addr: Param<Bits<GB1>>,
    one: Param<Bits<P>>,
    reset_mask: Param<Bits<P>>,
    reset_margin: Param<Bits<DW>>,
}

impl<const PB: usize, const P: usize, const GB: usize, const GB1: usize, const G: usize>
    Sar<PB, P, GB, GB1, G>
{
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `PB`, `GB` equal to its shape, `P = 2^PB`,
    /// `GB1 = GB + 1` and `G = 2^GB`.
    pub fn new(config: &SarConfig) -> Self {
        assert_eq!(config.shape.port_bits as usize, PB);
        assert_eq!(config.shape.group_bits as usize, GB);
        assert_eq!(1 << PB, P);
        assert_eq!(1 << GB, G);
        assert_eq!(GB1, GB + 1);
        assert!((2..=16).contains(&P));
        Self {
            deg: (0..P).map(|_| DFF::default()).collect(),
            mask: (0..G).map(|_| DFF::default()).collect(),
            kmod: (0..P).map(SarKey::new).collect(),
            bt: (0..P * (P - 1)).map(|_| DFF::default()).collect(),
            a_sum: (0..P).map(|_| DFF::default()).collect(),
            cb: (0..P).map(|_| Signal::default()).collect(),
            w: (0..P).map(|_| DFF::default()).collect(),
            b_lt: (0..P).map(|_| DFF::default()).collect(),
            go: (0..P).map(|_| Signal::default()).collect(),
            det: (0..P + 1).map(|_| Signal::default()).collect(),
            enc: (0..P + 1).map(|_| Signal::default()).collect(),
            pidx: (0..P).map(|p| Param::new((p as u64).to_bits())).collect(),
            gidx: (0..G).map(|g| Param::new((g as u64).to_bits())).collect(),
            gsel: (0..G).map(|g| Param::new((g as u64).to_bits())).collect(),
            margin_addr: Param::new((G as u64).to_bits()),
            one: Param::new(1u64.to_bits()),
            reset_mask: Param::new((config.reset.mask as u64).to_bits()),
            reset_margin: Param::new((config.reset.margin as u64).to_bits()),
            ..Default::default()
        }
    }
}

impl<const PB: usize, const P: usize, const GB: usize, const GB1: usize, const G: usize> Logic
    for Sar<PB, P, GB, GB1, G>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, margin, a_valid, a_hit, a_port, a_cand, a_odeg, b_valid, b_hit, b_port,
            o_valid, o_port, o_detour
        );
        for p in 0..P {
            self.deg[p].clock.next = self.clk.val();
            self.a_sum[p].clock.next = self.clk.val();
            self.w[p].clock.next = self.clk.val();
            self.b_lt[p].clock.next = self.clk.val();
        }
        for k in 0..(P * (P - 1)) {
            self.bt[k].clock.next = self.clk.val();
        }
        for g in 0..G {
            self.mask[g].clock.next = self.clk.val();
        }

        // ---- t: the keys (wiring) ---------------------------------------------
        for p in 0..P {
            self.kmod[p].deg.next = self.deg[p].q.val();
        }
        self.margin9.next = bit_cast::<SW, DW>(self.margin.q.val());

        // ---- t: the request against the state at the start of the cycle ----
        self.msel.next = 0.into();
        for g in 0..G {
            if self.s_req_group.val() == self.gsel[g].val() {
                self.msel.next = self.mask[g].q.val();
            }
        }
        self.odeg.next = 0.into();
        for p in 0..P {
            if self.s_req_port.val() == self.pidx[p].val() {
                self.odeg.next = self.deg[p].q.val();
            }
        }
        self.a_valid.d.next = self.s_req_valid.val() & !self.rst.val();
        self.a_hit.d.next = self.s_req_hit.val();
        self.a_port.d.next = self.s_req_port.val();
        self.a_cand.d.next =
            self.msel.val() | (self.one.val() << bit_cast::<P, PB>(self.s_req_port.val()));
        self.a_odeg.d.next = self.odeg.val();
        for p in 0..P {
            self.a_sum[p].d.next = self.kmod[p].deg9.val() + self.margin9.val();
        }
        // The pair compares: q = (p + j) mod P against p.
        for p in 0..P {
            for j in 1..P {
                for n in P..(P + 1) {
                    self.bt[p * (n - 1) + j - 1].d.next =
                        self.kmod[(p + j) % n].key.val() < self.kmod[p].key.val();
                }
            }
        }

        // ---- t: degree updates and register writes (after the request) ----
        for p in 0..P {
            if self.s_deg_valid.val() & (self.s_deg_port.val() == self.pidx[p].val()) {
                self.deg[p].d.next = self.s_deg.val();
            } else {
                self.deg[p].d.next = self.deg[p].q.val();
            }
        }
        for g in 0..G {
            if self.s_cfg_valid.val() & (self.s_cfg_addr.val() == self.gidx[g].val()) {
                self.mask[g].d.next = bit_cast::<P, CW>(self.s_cfg_data.val());
            } else {
                self.mask[g].d.next = self.mask[g].q.val();
            }
        }
        if self.s_cfg_valid.val() & (self.s_cfg_addr.val() == self.margin_addr.val()) {
            self.margin.d.next = bit_cast::<DW, CW>(self.s_cfg_data.val());
        }

        // ---- t+1: the winner, and who beats o by more than the margin -------
        self.b_valid.d.next = self.a_valid.q.val();
        self.b_hit.d.next = self.a_hit.q.val();
        self.b_port.d.next = self.a_port.q.val();
        for p in 0..P {
            self.cb[p].next = self.a_cand.q.val().get_bit(p);
        }
        for p in 0..P {
            self.b_lt[p].d.next = self.a_sum[p].q.val() < bit_cast::<SW, DW>(self.a_odeg.q.val());
            self.w[p].d.next = self.cb[p].val();
            for j in 1..P {
                for n in P..(P + 1) {
                    // A candidate of lower key beats p.
                    if self.cb[(p + j) % n].val() & self.bt[p * (n - 1) + j - 1].q.val() {
                        self.w[p].d.next = false;
                    }
                }
            }
        }

        // ---- t+2: the decision -----------------------------------------------
        for p in 0..P {
            self.go[p].next = self.w[p].q.val() & self.b_lt[p].q.val();
        }
        self.det[0].next = false;
        self.enc[0].next = 0.into();
        for p in 0..P {
            self.det[p + 1].next = self.det[p].val() | self.go[p].val();
            if self.w[p].q.val() {
                self.enc[p + 1].next = self.enc[p].val() | self.pidx[p].val();
            } else {
                self.enc[p + 1].next = self.enc[p].val();
            }
        }
        self.o_valid.d.next = self.b_valid.q.val();
        self.o_port.d.next = 0.into();
        self.o_detour.d.next = false;
        if self.b_valid.q.val() {
            self.o_port.d.next = self.b_port.q.val();
            // (The last assignment stands: `det[P]`, `enc[P]`.)
            for k in 0..P {
                if !self.b_hit.q.val() & self.det[k + 1].val() {
                    self.o_port.d.next = self.enc[k + 1].val();
                    self.o_detour.d.next = true;
                } else {
                    self.o_port.d.next = self.b_port.q.val();
                    self.o_detour.d.next = false;
                }
            }
        }

        // ---- Reset (wins over every load above) --------------------------------
        if self.rst.val() {
            for p in 0..P {
                self.deg[p].d.next = 0.into();
            }
            for g in 0..G {
                self.mask[g].d.next = self.reset_mask.val();
            }
            self.margin.d.next = self.reset_margin.val();
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.o_valid.d.next = false;
            self.o_port.d.next = 0.into();
            self.o_detour.d.next = false;
        }

        // ---- Outputs (last, after every register's next value) ----------------
        self.m_dec_valid.next = self.o_valid.q.val();
        self.m_dec_port.next = self.o_port.q.val();
        self.m_dec_detour.next = self.o_detour.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// Expands `$make!(PB, P, GB, GB1, G)` for the run-time shape of `$config`
/// over every (port_bits, group_bits) of the menu in
/// `ccrtl_golden::sar_shape_menu!` (the one place the menu is written). The
/// shape must be validated.
#[macro_export]
macro_rules! dispatch_sar_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::sar_shape_menu!([$crate::sar_dispatch_ports] ; $shape, $make)
    };
}

/// One match arm per port width of the menu (used by `dispatch_sar_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! sar_dispatch_ports {
    (($shape:expr, $make:ident) ; [$($p:literal),*] ; $groups:tt) => {{
        let shape = $shape;
        match shape.port_bits {
            $($p => $crate::sar_dispatch_groups!(shape, $make, $p, $groups),)*
            p => unreachable!("port_bits {p} passed validation but has no instance"),
        }
    }};
}

/// One match arm per group width of the menu (used by `dispatch_sar_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! sar_dispatch_groups {
    ($shape:ident, $make:ident, $p:literal, [$($g:literal),*]) => {
        match $shape.group_bits {
            $($g => $crate::own_frame(|| $make!($p, { 1 << $p }, $g, { $g + 1 }, { 1 << $g })),)*
            g => unreachable!("group_bits {g} passed validation but has no instance"),
        }
    };
}

/// rust-hdl's Verilog for SAR, as `generate_verilog` writes it.
pub fn raw_verilog(config: &SarConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($pb:literal, $p:tt, $gb:literal, $gb1:tt, $g:tt) => {{
            let mut b = Sar::<$pb, $p, $gb, $gb1, $g>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_sar_shape!(config.shape, make))
}

/// The finished Verilog file for SAR.
pub fn verilog(config: &SarConfig) -> Result<String, ParamError> {
    let raw = raw_verilog(config)?;
    let s = &config.shape;
    let params = [
        ("port_bits", s.port_bits.to_string()),
        ("group_bits", s.group_bits.to_string()),
        ("reset.mask", config.reset.mask.to_string()),
        ("reset.margin", config.reset.margin.to_string()),
    ];
    Ok(crate::emit::finish(
        "sar",
        "switch-level adaptive routing: the least congested equal-cost port for a flow that missed the CAM",
        &format!(
            "II = 1 (one request per cycle); decision {LATENCY} cycles after its request; \
             a request sees the degrees and registers of the start of its cycle"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl SAR block for a configuration.
pub fn sim(
    config: &SarConfig,
) -> Result<Box<dyn crate::sim::CycleSim<SarIn, SarOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($pb:literal, $p:tt, $gb:literal, $gb1:tt, $g:tt) => {{
            let mut b = Sar::<$pb, $p, $gb, $gb1, $g>::new(config);
            b.connect_all();
            Box::new(SarSim(b)) as Box<dyn crate::sim::CycleSim<SarIn, SarOut>>
        }};
    }
    Ok(crate::dispatch_sar_shape!(config.shape, make))
}

struct SarSim<const PB: usize, const P: usize, const GB: usize, const GB1: usize, const G: usize>(
    Sar<PB, P, GB, GB1, G>,
);

impl<const PB: usize, const P: usize, const GB: usize, const GB1: usize, const G: usize>
    crate::sim::CycleSim<SarIn, SarOut> for SarSim<PB, P, GB, GB1, G>
{
    fn cycle(&mut self, i: &SarIn) -> SarOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_deg_valid.next = i.deg_valid;
        b.s_deg_port.next = (i.deg_port as u64).to_bits();
        b.s_deg.next = (i.deg as u64).to_bits();
        b.s_req_valid.next = i.req_valid;
        b.s_req_port.next = (i.req_port as u64).to_bits();
        b.s_req_group.next = (i.req_group as u64).to_bits();
        b.s_req_hit.next = i.req_hit;
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = (i.cfg_addr as u64).to_bits();
        b.s_cfg_data.next = (i.cfg_data as u64).to_bits();
        assert!(simulate(b, crate::sim::MAX_ITERS), "SAR logic did not settle");
        let out = SarOut {
            dec_valid: b.m_dec_valid.val(),
            dec_port: b.m_dec_port.val().index() as u32,
            dec_detour: b.m_dec_detour.val(),
        };
        b.clk.next = Clock { clk: true };
        assert!(simulate(b, crate::sim::MAX_ITERS), "SAR logic did not settle");
        out
    }
}

/// The ports of SAR for a validated configuration, read from the struct.
pub fn ports(config: &SarConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($pb:literal, $p:tt, $gb:literal, $gb1:tt, $g:tt) => {{
            crate::ports::ports_of(&Sar::<$pb, $p, $gb, $gb1, $g>::new(config))
        }};
    }
    crate::dispatch_sar_shape!(config.shape, make)
}
