//! NP — DCQCN notification point: one CNP request per flow per interval
//! (seed 004 §3.1). The rule and the timing contract are specified in
//! `ccrtl_golden::np`; `docs/np.md` has the port and parameter tables and
//! the design notes.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits` in {8, 12, 16}: `F = 2^FB` flows;
//! - `NB` = `interval_bits` in {12, 16, 20}: width of the interval register;
//! - `TB` = `max(FB, NB) + 2`: width of the timestamps (see "Wrap" below);
//! - the reset value of the interval register.
//!
//! # Flow table (block RAM, registered read, one read and one write port)
//! Per flow: the timestamp `s` of its last CNP (TB bits) and a valid bit
//! `v = a ^ b`, split so that each half has one writer: the packet path
//! writes `a` (a CNP makes `v` 1: `a <- !b`), the scrubber writes `b` (it
//! makes `v` 0: `b <- a`). Each is a [`TwoReadRam`]: read port A serves the
//! packet path, read port B the scrubber, so both read every cycle; its two
//! copies make 2 x (TB + 2) bits of RAM per flow.
//!
//! # Wrap
//! Ages are `now - s` modulo `2^TB`. The scrubber visits one flow per cycle
//! (every flow once in `F` cycles) and invalidates a flow whose last CNP is
//! `2^NB` or more cycles old (older than any interval the register can
//! hold, so the answer "no CNP within N" does not change). A valid entry is
//! therefore less than `2^NB + F + 4 < 2^TB` cycles old, and its age modulo
//! `2^TB` is exact: a flow silent for any time behaves as the rule says.
//! The scrubber skips a flow only if the packet path gives it a new CNP
//! while the scrubber has it in flight (then it is fresh).
//!
//! # Clearing after reset
//! The RAMs' power-up contents are random. After a reset the pointer that
//! the scrubber uses sweeps every flow once, writing `a = b = 0`; packets
//! are refused (`s_pkt_ready` low) for those `F` cycles.
//!
//! # Packet pipeline (II = 1, decision latency 4)
//! - cycle n (ports): a CE packet accepted enters stage 1 with the interval
//!   in force; the RAM copies read its flow.
//! - n+1 (1): the RAM words registered.
//! - n+2 (2): age `now - s`, `v && age < N`; the flow compared with the
//!   three packets ahead (their writes are not in the word read):
//!   the one deciding now, and the decisions of the two cycles before;
//!   `N > 1`, `N > 2`, `N > 3` for them. `now` is the packet's stamp.
//! - n+3 (3, the loop): recent = newest matching CNP ahead ? `N > d` :
//!   the RAM's answer; CNP = !recent. The decision loops back (one cycle)
//!   into the next packet's stage 3 only through a mux select.
//!   The RAM writes and the output registers are loaded.
//! - n+4: `m_cnp_valid`, `m_cnp_flow`.
//! The scrubber's stages mirror these (read, register, age test, clear).

use ccrtl_golden::np::{NpConfig, NpIn, NpOut, LATENCY};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;
use crate::ram::TwoReadRam;

#[derive(LogicBlock, Default)]
pub struct Np<const FB: usize, const NB: usize, const TB: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Received packets' metadata, one per cycle.
    pub s_pkt_valid: Signal<In, Bit>,
    /// Low while the flow table is cleared after a reset.
    pub s_pkt_ready: Signal<Out, Bit>,
    /// Flow id.
    pub s_pkt_flow: Signal<In, Bits<FB>>,
    /// ECN codepoint; 11 (CE) asks for a CNP.
    pub s_pkt_ecn: Signal<In, Bits<2>>,
    // Interval load, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    /// N: at most one CNP per flow per N cycles.
    pub s_cfg_interval: Signal<In, Bits<NB>>,

    // CNP requests, four cycles after their packet.
    pub m_cnp_valid: Signal<Out, Bit>,
    /// Flow of the CNP; 0 when not valid.
    pub m_cnp_flow: Signal<Out, Bits<FB>>,

    // The flow table: timestamps and the two halves of the valid bit; read
    // port A is the packet path's, B the scrubber's.
    s: TwoReadRam<Bits<TB>, FB>,
    a: TwoReadRam<Bit, FB>,
    b: TwoReadRam<Bit, FB>,

    interval: DFF<Bits<NB>>,
    now: DFF<Bits<TB>>,
    /// Clearing after reset.
    busy: DFF<Bit>,
    /// Flow the clearing (then the scrubber) reads and writes this cycle.
    ptr: DFF<Bits<FB>>,

    // Packet stage 1: a CE packet accepted, its flow, the interval in force.
    p1_valid: DFF<Bit>,
    p1_flow: DFF<Bits<FB>>,
    p1_n: DFF<Bits<NB>>,
    // Stage 2: with the RAM words.
    p2_valid: DFF<Bit>,
    p2_flow: DFF<Bits<FB>>,
    p2_n: DFF<Bits<NB>>,
    p2_s: DFF<Bits<TB>>,
    p2_a: DFF<Bit>,
    p2_b: DFF<Bit>,
    // Stage 3: the RAM's answer, the matches with the packets ahead.
    p3_valid: DFF<Bit>,
    p3_flow: DFF<Bits<FB>>,
    p3_stamp: DFF<Bits<TB>>,
    p3_b: DFF<Bit>,
    p3_ram_recent: DFF<Bit>,
    /// Same flow as the packet one ahead (its decision is `w1_we` here).
    p3_m1: DFF<Bit>,
    /// A CNP two (three) ahead for the same flow.
    p3_m2: DFF<Bit>,
    p3_m3: DFF<Bit>,
    p3_gt1: DFF<Bit>,
    p3_gt2: DFF<Bit>,
    p3_gt3: DFF<Bit>,
    // The packet path's decisions of the last two cycles.
    w1_we: DFF<Bit>,
    w1_flow: DFF<Bits<FB>>,
    w2_we: DFF<Bit>,
    w2_flow: DFF<Bits<FB>>,

    // Scrubber stages (the flow `y` read in cycle r is cleared in r+3).
    c1_valid: DFF<Bit>,
    c1_y: DFF<Bits<FB>>,
    c1_dirty: DFF<Bit>,
    c2_valid: DFF<Bit>,
    c2_y: DFF<Bits<FB>>,
    c2_dirty: DFF<Bit>,
    c2_s: DFF<Bits<TB>>,
    c2_a: DFF<Bit>,
    c2_b: DFF<Bit>,
    c3_valid: DFF<Bit>,
    c3_y: DFF<Bits<FB>>,
    c3_dirty: DFF<Bit>,
    c3_a: DFF<Bit>,
    c3_stale: DFF<Bit>,
    // The scrubber's clears of the last three cycles (flow, value of `b`).
    sw1_we: DFF<Bit>,
    sw1_y: DFF<Bits<FB>>,
    sw1_v: DFF<Bit>,
    sw2_we: DFF<Bit>,
    sw2_y: DFF<Bits<FB>>,
    sw2_v: DFF<Bit>,
    sw3_we: DFF<Bit>,
    sw3_y: DFF<Bits<FB>>,
    sw3_v: DFF<Bit>,

    o_valid: DFF<Bit>,
    o_flow: DFF<Bits<FB>>,

    // Combinational.
    accept: Signal<Local, Bit>,
    age_p: Signal<Local, Bits<TB>>,
    age_c: Signal<Local, Bits<TB>>,
    recent: Signal<Local, Bit>,
    cnp: Signal<Local, Bit>,
    b_eff: Signal<Local, Bit>,
    clear: Signal<Local, Bit>,

    reset_interval: Param<Bits<NB>>,
    one_n: Param<Bits<NB>>,
    two_n: Param<Bits<NB>>,
    three_n: Param<Bits<NB>>,
    /// `2^NB`: the scrubber invalidates at this age.
    stale_age: Param<Bits<TB>>,
    last_flow: Param<Bits<FB>>,
}

impl<const FB: usize, const NB: usize, const TB: usize> Np<FB, NB, TB> {
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `FB`, `NB` equal to its shape and
    /// `TB = stamp_bits`.
    pub fn new(config: &NpConfig) -> Self {
        assert_eq!(config.shape.flow_bits as usize, FB);
        assert_eq!(config.shape.interval_bits as usize, NB);
        assert_eq!(config.shape.stamp_bits() as usize, TB);
        Self {
            reset_interval: Param::new((config.reset.interval as u64).to_bits()),
            one_n: Param::new(1u64.to_bits()),
            two_n: Param::new(2u64.to_bits()),
            three_n: Param::new(3u64.to_bits()),
            stale_age: Param::new((1u64 << NB).to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            ..Default::default()
        }
    }
}

impl<const FB: usize, const NB: usize, const TB: usize> Logic for Np<FB, NB, TB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            interval,
            now,
            busy,
            ptr,
            p1_valid,
            p1_flow,
            p1_n,
            p2_valid,
            p2_flow,
            p2_n,
            p2_s,
            p2_a,
            p2_b,
            p3_valid,
            p3_flow,
            p3_stamp,
            p3_b,
            p3_ram_recent,
            p3_m1,
            p3_m2,
            p3_m3,
            p3_gt1,
            p3_gt2,
            p3_gt3,
            w1_we,
            w1_flow,
            w2_we,
            w2_flow,
            c1_valid,
            c1_y,
            c1_dirty,
            c2_valid,
            c2_y,
            c2_dirty,
            c2_s,
            c2_a,
            c2_b,
            c3_valid,
            c3_y,
            c3_dirty,
            c3_a,
            c3_stale,
            sw1_we,
            sw1_y,
            sw1_v,
            sw2_we,
            sw2_y,
            sw2_v,
            sw3_we,
            sw3_y,
            sw3_v,
            o_valid,
            o_flow
        );
        self.s.clock.next = self.clk.val();
        self.a.clock.next = self.clk.val();
        self.b.clock.next = self.clk.val();

        // ---- Stage 3: the decision (the one-cycle loop) ------------------
        self.recent.next = self.p3_ram_recent.q.val();
        if self.p3_m3.q.val() {
            self.recent.next = self.p3_gt3.q.val();
        }
        if self.p3_m2.q.val() {
            self.recent.next = self.p3_gt2.q.val();
        }
        if self.p3_m1.q.val() & self.w1_we.q.val() {
            self.recent.next = self.p3_gt1.q.val();
        }
        self.cnp.next = self.p3_valid.q.val() & !self.recent.val();
        // `b` as it is when this write lands: the scrubber's clears of the
        // last three cycles are not in the word read (a clear in this cycle
        // cannot hit a flow that gets a CNP: see `clear`).
        self.b_eff.next = self.p3_b.q.val();
        if self.sw3_we.q.val() & (self.sw3_y.q.val() == self.p3_flow.q.val()) {
            self.b_eff.next = self.sw3_v.q.val();
        }
        if self.sw2_we.q.val() & (self.sw2_y.q.val() == self.p3_flow.q.val()) {
            self.b_eff.next = self.sw2_v.q.val();
        }
        if self.sw1_we.q.val() & (self.sw1_y.q.val() == self.p3_flow.q.val()) {
            self.b_eff.next = self.sw1_v.q.val();
        }
        self.w1_we.d.next = self.cnp.val();
        self.w1_flow.d.next = self.p3_flow.q.val();
        self.w2_we.d.next = self.w1_we.q.val();
        self.w2_flow.d.next = self.w1_flow.q.val();
        self.o_valid.d.next = self.cnp.val();
        self.o_flow.d.next = 0.into();
        if self.cnp.val() {
            self.o_flow.d.next = self.p3_flow.q.val();
        }

        // ---- Scrubber stage 3: clear a stale flow ----------------------------
        self.clear.next = self.c3_valid.q.val()
            & self.c3_stale.q.val()
            & !self.c3_dirty.q.val()
            & !(self.cnp.val() & (self.p3_flow.q.val() == self.c3_y.q.val()));
        self.sw1_we.d.next = self.clear.val();
        self.sw1_y.d.next = self.c3_y.q.val();
        self.sw1_v.d.next = self.c3_a.q.val();
        self.sw2_we.d.next = self.sw1_we.q.val();
        self.sw2_y.d.next = self.sw1_y.q.val();
        self.sw2_v.d.next = self.sw1_v.q.val();
        self.sw3_we.d.next = self.sw2_we.q.val();
        self.sw3_y.d.next = self.sw2_y.q.val();
        self.sw3_v.d.next = self.sw2_v.q.val();

        // ---- RAM writes: the clearing sweep, or the two paths -------------
        self.s.write_address.next = self.p3_flow.q.val();
        self.s.write_data.next = self.p3_stamp.q.val();
        self.s.write_enable.next = self.cnp.val();
        self.a.write_address.next = self.p3_flow.q.val();
        self.a.write_data.next = !self.b_eff.val();
        self.a.write_enable.next = self.cnp.val();
        self.b.write_address.next = self.c3_y.q.val();
        self.b.write_data.next = self.c3_a.q.val();
        self.b.write_enable.next = self.clear.val();
        if self.busy.q.val() {
            self.a.write_address.next = self.ptr.q.val();
            self.a.write_data.next = false;
            self.a.write_enable.next = true;
            self.b.write_address.next = self.ptr.q.val();
            self.b.write_data.next = false;
            self.b.write_enable.next = true;
        }

        // ---- Ports into stage 1 ----------------------------------------------
        self.accept.next = self.s_pkt_valid.val() & !self.busy.q.val() & !self.rst.val();
        self.p1_valid.d.next = self.accept.val() & (self.s_pkt_ecn.val() == 3);
        self.p1_flow.d.next = self.s_pkt_flow.val();
        self.p1_n.d.next = self.interval.q.val();
        self.s.read_address_a.next = self.s_pkt_flow.val();
        self.a.read_address_a.next = self.s_pkt_flow.val();
        self.b.read_address_a.next = self.s_pkt_flow.val();
        if self.s_cfg_valid.val() {
            self.interval.d.next = self.s_cfg_interval.val();
        }

        // ---- Stage 1 -> 2: the RAM words ---------------------------------------
        self.p2_valid.d.next = self.p1_valid.q.val();
        self.p2_flow.d.next = self.p1_flow.q.val();
        self.p2_n.d.next = self.p1_n.q.val();
        self.p2_s.d.next = self.s.read_data_a.val();
        self.p2_a.d.next = self.a.read_data_a.val();
        self.p2_b.d.next = self.b.read_data_a.val();

        // ---- Stage 2 -> 3: the RAM's answer and the packets ahead ----------
        self.age_p.next = self.now.q.val() - self.p2_s.q.val();
        self.p3_valid.d.next = self.p2_valid.q.val();
        self.p3_flow.d.next = self.p2_flow.q.val();
        self.p3_stamp.d.next = self.now.q.val();
        self.p3_b.d.next = self.p2_b.q.val();
        self.p3_ram_recent.d.next = (self.p2_a.q.val() ^ self.p2_b.q.val())
            & (self.age_p.val() < bit_cast::<TB, NB>(self.p2_n.q.val()));
        self.p3_m1.d.next = self.p3_valid.q.val() & (self.p2_flow.q.val() == self.p3_flow.q.val());
        self.p3_m2.d.next = self.w1_we.q.val() & (self.p2_flow.q.val() == self.w1_flow.q.val());
        self.p3_m3.d.next = self.w2_we.q.val() & (self.p2_flow.q.val() == self.w2_flow.q.val());
        self.p3_gt1.d.next = self.p2_n.q.val() > self.one_n.val();
        self.p3_gt2.d.next = self.p2_n.q.val() > self.two_n.val();
        self.p3_gt3.d.next = self.p2_n.q.val() > self.three_n.val();

        // ---- Scrubber: read `ptr`; track CNPs written to the flow in flight ---
        self.s.read_address_b.next = self.ptr.q.val();
        self.a.read_address_b.next = self.ptr.q.val();
        self.b.read_address_b.next = self.ptr.q.val();
        self.c1_valid.d.next = !self.busy.q.val();
        self.c1_y.d.next = self.ptr.q.val();
        self.c1_dirty.d.next = self.cnp.val() & (self.p3_flow.q.val() == self.ptr.q.val());
        self.c2_valid.d.next = self.c1_valid.q.val();
        self.c2_y.d.next = self.c1_y.q.val();
        self.c2_dirty.d.next =
            self.c1_dirty.q.val() | (self.cnp.val() & (self.p3_flow.q.val() == self.c1_y.q.val()));
        self.c2_s.d.next = self.s.read_data_b.val();
        self.c2_a.d.next = self.a.read_data_b.val();
        self.c2_b.d.next = self.b.read_data_b.val();
        self.age_c.next = self.now.q.val() - self.c2_s.q.val();
        self.c3_valid.d.next = self.c2_valid.q.val();
        self.c3_y.d.next = self.c2_y.q.val();
        self.c3_dirty.d.next =
            self.c2_dirty.q.val() | (self.cnp.val() & (self.p3_flow.q.val() == self.c2_y.q.val()));
        self.c3_a.d.next = self.c2_a.q.val();
        self.c3_stale.d.next =
            (self.c2_a.q.val() ^ self.c2_b.q.val()) & (self.age_c.val() >= self.stale_age.val());

        // ---- Time, the pointer, the clearing ------------------------------------
        self.now.d.next = self.now.q.val() + 1;
        self.ptr.d.next = self.ptr.q.val() + 1;
        if self.busy.q.val() & (self.ptr.q.val() == self.last_flow.val()) {
            self.busy.d.next = false;
        }

        // ---- Reset wins over every load -------------------------------------------
        if self.rst.val() {
            self.interval.d.next = self.reset_interval.val();
            self.now.d.next = 0.into();
            self.busy.d.next = true;
            self.ptr.d.next = 0.into();
            self.p1_valid.d.next = false;
            self.p2_valid.d.next = false;
            self.p3_valid.d.next = false;
            self.w1_we.d.next = false;
            self.w2_we.d.next = false;
            self.c1_valid.d.next = false;
            self.c2_valid.d.next = false;
            self.c3_valid.d.next = false;
            self.sw1_we.d.next = false;
            self.sw2_we.d.next = false;
            self.sw3_we.d.next = false;
            self.o_valid.d.next = false;
            self.o_flow.d.next = 0.into();
        }

        self.s_pkt_ready.next = !self.busy.q.val();
        self.m_cnp_valid.next = self.o_valid.q.val();
        self.m_cnp_flow.next = self.o_flow.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// rust-hdl's Verilog for NP, as `generate_verilog` writes it.
pub fn raw_verilog(config: &NpConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($f:literal, $n:literal, $t:tt) => {{
            let mut b = Np::<$f, $n, $t>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_np_shape!(config.shape, make))
}

/// The finished Verilog file for NP.
pub fn verilog(config: &NpConfig) -> Result<String, ParamError> {
    let raw = raw_verilog(config)?;
    let s = &config.shape;
    let params = [
        ("flow_bits", s.flow_bits.to_string()),
        ("interval_bits", s.interval_bits.to_string()),
        ("stamp_bits", format!("{} (derived)", s.stamp_bits())),
        (
            "reset.interval",
            format!("{} cycles", config.reset.interval),
        ),
    ];
    Ok(crate::emit::finish(
        "np",
        "DCQCN notification point: at most one CNP request per flow per interval",
        &format!(
            "II = 1; CNP request {LATENCY} cycles after its packet; s_pkt_ready low for 2^flow_bits cycles after reset"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl NP block for a configuration.
pub fn sim(config: &NpConfig) -> Result<Box<dyn crate::sim::CycleSim<NpIn, NpOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($f:literal, $n:literal, $t:tt) => {{
            let mut b = Np::<$f, $n, $t>::new(config);
            b.connect_all();
            Box::new(NpSim(b)) as Box<dyn crate::sim::CycleSim<NpIn, NpOut>>
        }};
    }
    Ok(crate::dispatch_np_shape!(config.shape, make))
}

struct NpSim<const FB: usize, const NB: usize, const TB: usize>(Np<FB, NB, TB>);

impl<const FB: usize, const NB: usize, const TB: usize> crate::sim::CycleSim<NpIn, NpOut>
    for NpSim<FB, NB, TB>
{
    fn cycle(&mut self, i: &NpIn) -> NpOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_pkt_valid.next = i.pkt_valid;
        b.s_pkt_flow.next = (i.pkt_flow as u64).to_bits();
        b.s_pkt_ecn.next = (i.pkt_ecn as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_interval.next = (i.cfg_interval as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "NP logic did not settle"
        );
        let out = NpOut {
            pkt_ready: b.s_pkt_ready.val(),
            cnp_valid: b.m_cnp_valid.val(),
            cnp_flow: b.m_cnp_flow.val().to_u32(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "NP logic did not settle"
        );
        out
    }
}

/// The ports of NP for a validated configuration, read from the struct.
pub fn ports(config: &NpConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($f:literal, $n:literal, $t:tt) => {{
            crate::ports::ports_of(&Np::<$f, $n, $t>::new(config))
        }};
    }
    crate::dispatch_np_shape!(config.shape, make)
}

/// Expands `$make!(FB, NB, TB)` for the run-time shape `$shape`, over every
/// (flow_bits, interval_bits) of the menu in `ccrtl_golden::np_shape_menu!`
/// (the one place the menu is written). The shape must be validated.
#[macro_export]
macro_rules! dispatch_np_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::np_shape_menu!([$crate::np_dispatch_flows] ; $shape, $make)
    };
}

/// One match arm per flow width of the menu (used by `dispatch_np_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! np_dispatch_flows {
    (($shape:expr, $make:ident) ; [$($f:literal),*] ; $intervals:tt) => {{
        let shape = $shape;
        match shape.flow_bits {
            $($f => $crate::np_dispatch_intervals!(shape, $make, $f, $intervals),)*
            f => unreachable!("flow_bits {f} passed validation but has no instance"),
        }
    }};
}

/// One match arm per interval width of the menu (used by `dispatch_np_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! np_dispatch_intervals {
    ($shape:ident, $make:ident, $f:literal, [$($n:literal),*]) => {
        match $shape.interval_bits {
            $($n => $make!($f, $n, { if $f > $n { $f + 2 } else { $n + 2 } }),)*
            n => unreachable!("interval_bits {n} passed validation but has no instance"),
        }
    };
}
