//! NP — DCQCN notification point: one CNP request per flow per interval
//! (seed 004 §3.1). The rule and the timing contract are specified in
//! `ccrtl_golden::np`; `docs/np.md` has the port and parameter tables and
//! the design notes.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits` in {4, 8, 12, 16}: `F = 2^FB` flows;
//! - `NB` = `interval_bits` in {4, 12, 16, 20}: width of the interval register;
//! - `TB` = `max(FB, NB) + 2`: width of the timestamps (see "Wrap" below);
//! - the reset value of the interval register.
//!
//! # Flow table (block RAM)
//! Per flow: the timestamp `s` of its last CNP (TB bits) and a valid bit
//! `v = a ^ b`, split so that each half has one writer: the packet path
//! writes `a` (a CNP makes `v` 1: `a <- !b`), the scrubber writes `b` (it
//! makes `v` 0: `b <- a`). Each is a [`PipeRam`]: read port A serves the
//! packet path, read port B the scrubber, both every cycle; a read's word
//! comes five cycles after its address, a write is seen by reads issued
//! two cycles after it, and a read issued the cycle after a write to its
//! address gets an undefined word. Every write a word does not show, and
//! every undefined word, is made up for by forwarding. Two copies:
//! 2 x (TB + 2) bits of RAM per flow.
//!
//! # Wrap
//! Ages are `now - s` modulo `2^TB`. The scrubber visits one flow per cycle
//! (every flow once in `F` cycles) and invalidates a flow whose last CNP is
//! `2^NB` or more cycles old (older than any interval the register can
//! hold, so the answer "no CNP within N" does not change). A valid entry is
//! therefore less than `2^NB + F + 8 < 2^TB` cycles old, and its age modulo
//! `2^TB` is exact: a flow silent for any time behaves as the rule says.
//! The scrubber skips a flow that the packet path gives a CNP while the
//! scrubber has it in flight (then it is fresh).
//!
//! # Clearing after reset
//! The RAMs' power-up contents are random. A reset cycle writes `a = b = 0`
//! for flow 0; the next `F` cycles (`s_pkt_ready` low) write flows 1 to
//! `F - 1` and then nothing, so the last write is seen by the first packet.
//!
//! # Packet pipeline (II = 1, decision latency 8)
//! A CE packet accepted in cycle `n` (its flow's words read in `n`) is
//! decided in cycle `t = n + 7`. The CNPs decided in cycles `t - 8 ..= t - 1`
//! (the eight packets ahead of it) are not in the words it read (the one of
//! `t - 8` collides with its read), nor are the scrubber's clears of those
//! cycles: both are forwarded.
//! - n (ports): stage 1 loads the packet and the interval in force.
//! - n+1 .. n+4 (stages 1 to 4): `min(N, 9)` for the forwarding compares.
//! - n+5 (stage 5, the words): age `now - s`, `v = a ^ b`; the flow compared
//!   with the packets one and two ahead (stages 6, 7), the CNPs three to
//!   eight ahead (records `w1..w6`), the scrubber's clears one and two
//!   cycles ahead (its stages 6, 7) and of the last six cycles
//!   (`sw1..sw6`).
//! - n+6 (stage 6): `v && age < N`; the newest CNP two to eight ahead (the
//!   one two ahead decided in the last cycle: `w1`) gives `N > d` in place
//!   of the RAM's answer; likewise the newest clear two to eight cycles
//!   ahead gives `b`.
//! - n+7 (stage 7, the loop): recent = the packet one ahead has the same
//!   flow and got a CNP (`w1`) ? `N > 1` : the forwarded answer of stage 6,
//!   if any, else the RAM's (kept apart so that the age compare's carry
//!   chain ends in a register);
//!   CNP = !recent. The decision loops back (one cycle) only through `w1`.
//!   The RAM writes and the output registers are loaded.
//! - n+8: `m_cnp_valid`, `m_cnp_flow`.
//!
//! # Scrubber pipeline
//! Flow `y = ptr` read in cycle `r`; words in `r + 5` (age, `v`); stale
//! (`v` and age `>= 2^NB`) in `r + 6`; cleared in `r + 7` unless a CNP for
//! `y` was decided in any of the cycles `r - 1 ..= r + 7` (`dirty`, gathered
//! stage by stage from the record of the last cycle's CNP, `w1`, so that
//! no flow compare waits for the decision; the CNPs of `r + 5` and `r + 6`
//! by flow compares made a cycle early).

use ccrtl_golden::np::{NpConfig, NpIn, NpOut, LATENCY};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;
use crate::ram::PipeRam;

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

    // CNP requests, eight cycles after their packet.
    pub m_cnp_valid: Signal<Out, Bit>,
    /// Flow of the CNP; 0 when not valid.
    pub m_cnp_flow: Signal<Out, Bits<FB>>,

    // The flow table: timestamps and the two halves of the valid bit; read
    // port A is the packet path's, B the scrubber's.
    s: PipeRam<TB, FB>,
    a: PipeRam<1, FB>,
    b: PipeRam<1, FB>,

    interval: DFF<Bits<NB>>,
    now: DFF<Bits<TB>>,
    /// Clearing after reset.
    busy: DFF<Bit>,
    /// Flow the clearing (then the scrubber) writes (reads) this cycle.
    ptr: DFF<Bits<FB>>,
    /// The clearing writes flow `ptr` this cycle.
    sweep_q: DFF<Bit>,

    // Stage 1: a CE packet accepted, its flow, the interval in force.
    p1_valid: DFF<Bit>,
    p1_flow: DFF<Bits<FB>>,
    p1_n: DFF<Bits<NB>>,
    // Stages 2 to 5: with min(N, 9).
    p2_valid: DFF<Bit>,
    p2_flow: DFF<Bits<FB>>,
    p2_n: DFF<Bits<NB>>,
    p2_ns: DFF<Bits<4>>,
    p3_valid: DFF<Bit>,
    p3_flow: DFF<Bits<FB>>,
    p3_n: DFF<Bits<NB>>,
    p3_ns: DFF<Bits<4>>,
    p4_valid: DFF<Bit>,
    p4_flow: DFF<Bits<FB>>,
    p4_n: DFF<Bits<NB>>,
    p4_ns: DFF<Bits<4>>,
    p5_valid: DFF<Bit>,
    p5_flow: DFF<Bits<FB>>,
    p5_n: DFF<Bits<NB>>,
    p5_ns: DFF<Bits<4>>,
    // Stage 6: the words, the matches with what is ahead.
    p6_valid: DFF<Bit>,
    p6_flow: DFF<Bits<FB>>,
    p6_n: DFF<Bits<NB>>,
    p6_ns: DFF<Bits<4>>,
    p6_stamp: DFF<Bits<TB>>,
    p6_age: DFF<Bits<TB>>,
    p6_v: DFF<Bit>,
    p6_b: DFF<Bit>,
    /// Same flow as the packet one (two) ahead.
    p6_e1: DFF<Bit>,
    p6_e2: DFF<Bit>,
    /// A CNP three (four, ..., eight) ahead for the same flow.
    p6_h3: DFF<Bit>,
    p6_h4: DFF<Bit>,
    p6_h5: DFF<Bit>,
    p6_h6: DFF<Bit>,
    p6_h7: DFF<Bit>,
    p6_h8: DFF<Bit>,
    /// Same flow as the scrubber's clear one (two) cycles ahead, with the
    /// value it writes.
    p6_be1: DFF<Bit>,
    p6_bv1: DFF<Bit>,
    p6_be2: DFF<Bit>,
    p6_bv2: DFF<Bit>,
    /// A clear of the same flow three (four, ..., eight) cycles ahead.
    p6_bh3: DFF<Bit>,
    p6_bv3: DFF<Bit>,
    p6_bh4: DFF<Bit>,
    p6_bv4: DFF<Bit>,
    p6_bh5: DFF<Bit>,
    p6_bv5: DFF<Bit>,
    p6_bh6: DFF<Bit>,
    p6_bv6: DFF<Bit>,
    p6_bh7: DFF<Bit>,
    p6_bv7: DFF<Bit>,
    p6_bh8: DFF<Bit>,
    p6_bv8: DFF<Bit>,
    // Stage 7: the decision.
    p7_valid: DFF<Bit>,
    p7_flow: DFF<Bits<FB>>,
    p7_stamp: DFF<Bits<TB>>,
    p7_gt1: DFF<Bit>,
    p7_e1: DFF<Bit>,
    /// The RAM's answer (`v && age < N`).
    p7_ram: DFF<Bit>,
    /// A CNP two to eight ahead for the same flow, and the newest one's
    /// answer (`N > d`).
    p7_fhit: DFF<Bit>,
    p7_fval: DFF<Bit>,
    p7_b: DFF<Bit>,
    p7_be1: DFF<Bit>,
    p7_bv1: DFF<Bit>,
    p7_bhit: DFF<Bit>,
    p7_bval: DFF<Bit>,
    // The packet path's decisions of the last five cycles.
    w1_we: DFF<Bit>,
    w1_flow: DFF<Bits<FB>>,
    w2_we: DFF<Bit>,
    w2_flow: DFF<Bits<FB>>,
    w3_we: DFF<Bit>,
    w3_flow: DFF<Bits<FB>>,
    w4_we: DFF<Bit>,
    w4_flow: DFF<Bits<FB>>,
    w5_we: DFF<Bit>,
    w5_flow: DFF<Bits<FB>>,
    w6_we: DFF<Bit>,
    w6_flow: DFF<Bits<FB>>,

    // Scrubber stages (the flow `y` read in cycle r is cleared in r + 7).
    c1_valid: DFF<Bit>,
    c1_y: DFF<Bits<FB>>,
    c1_dirty: DFF<Bit>,
    c2_valid: DFF<Bit>,
    c2_y: DFF<Bits<FB>>,
    c2_dirty: DFF<Bit>,
    c3_valid: DFF<Bit>,
    c3_y: DFF<Bits<FB>>,
    c3_dirty: DFF<Bit>,
    c4_valid: DFF<Bit>,
    c4_y: DFF<Bits<FB>>,
    c4_dirty: DFF<Bit>,
    c5_valid: DFF<Bit>,
    c5_y: DFF<Bits<FB>>,
    c5_dirty: DFF<Bit>,
    c6_valid: DFF<Bit>,
    c6_y: DFF<Bits<FB>>,
    c6_dirty: DFF<Bit>,
    c6_age: DFF<Bits<TB>>,
    c6_v: DFF<Bit>,
    c6_a: DFF<Bit>,
    c7_valid: DFF<Bit>,
    c7_y: DFF<Bits<FB>>,
    c7_dirty: DFF<Bit>,
    c7_stale: DFF<Bit>,
    c7_a: DFF<Bit>,
    /// The flow of the CNP decided in the last cycle (`w1`) is `c7_y`.
    c7_pw: DFF<Bit>,
    /// The flow of the packet deciding now (stage 7) is `c7_y`.
    c7_pe: DFF<Bit>,
    // The scrubber's clears of the last five cycles (flow, value of `b`).
    sw1_we: DFF<Bit>,
    sw1_y: DFF<Bits<FB>>,
    sw1_v: DFF<Bit>,
    sw2_we: DFF<Bit>,
    sw2_y: DFF<Bits<FB>>,
    sw2_v: DFF<Bit>,
    sw3_we: DFF<Bit>,
    sw3_y: DFF<Bits<FB>>,
    sw3_v: DFF<Bit>,
    sw4_we: DFF<Bit>,
    sw4_y: DFF<Bits<FB>>,
    sw4_v: DFF<Bit>,
    sw5_we: DFF<Bit>,
    sw5_y: DFF<Bits<FB>>,
    sw5_v: DFF<Bit>,
    sw6_we: DFF<Bit>,
    sw6_y: DFF<Bits<FB>>,
    sw6_v: DFF<Bit>,

    o_valid: DFF<Bit>,
    o_flow: DFF<Bits<FB>>,

    // Combinational.
    accept: Signal<Local, Bit>,
    hit2: Signal<Local, Bit>,
    ram_recent: Signal<Local, Bit>,
    bhit2: Signal<Local, Bit>,
    recent: Signal<Local, Bit>,
    cnp: Signal<Local, Bit>,
    b_eff: Signal<Local, Bit>,
    clear: Signal<Local, Bit>,
    sweep: Signal<Local, Bit>,

    reset_interval: Param<Bits<NB>>,
    nine: Param<Bits<NB>>,
    last_flow: Param<Bits<FB>>,
    /// `2^NB`: the scrubber invalidates at this age.
    stale_age: Param<Bits<TB>>,
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
            nine: Param::new(9u64.to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            stale_age: Param::new((1u64 << NB).to_bits()),
            ..Default::default()
        }
    }
}

impl<const FB: usize, const NB: usize, const TB: usize> Logic for Np<FB, NB, TB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, interval, now, busy, ptr, sweep_q, p1_valid, p1_flow, p1_n, p2_valid,
            p2_flow, p2_n, p2_ns, p3_valid, p3_flow, p3_n, p3_ns, p4_valid, p4_flow, p4_n, p4_ns,
            p5_valid, p5_flow, p5_n, p5_ns, p6_valid, p6_flow, p6_n, p6_ns, p6_stamp, p6_age, p6_v,
            p6_b, p6_e1, p6_e2, p6_h3, p6_h4, p6_h5, p6_h6, p6_h7, p6_h8, p6_be1, p6_bv1, p6_be2,
            p6_bv2, p6_bh3, p6_bv3, p6_bh4, p6_bv4, p6_bh5, p6_bv5, p6_bh6, p6_bv6, p6_bh7, p6_bv7,
            p6_bh8, p6_bv8, p7_valid, p7_flow, p7_stamp, p7_gt1, p7_e1, p7_ram, p7_fhit, p7_fval,
            p7_b, p7_be1, p7_bv1, p7_bhit, p7_bval, w1_we, w1_flow, w2_we, w2_flow, w3_we, w3_flow,
            w4_we, w4_flow, w5_we, w5_flow, w6_we, w6_flow, c1_valid, c1_y, c1_dirty, c2_valid,
            c2_y, c2_dirty, c3_valid, c3_y, c3_dirty, c4_valid, c4_y, c4_dirty, c5_valid, c5_y,
            c5_dirty, c6_valid, c6_y, c6_dirty, c6_age, c6_v, c6_a, c7_valid, c7_y, c7_dirty,
            c7_stale, c7_a, c7_pw, c7_pe, sw1_we, sw1_y, sw1_v, sw2_we, sw2_y, sw2_v, sw3_we,
            sw3_y, sw3_v, sw4_we, sw4_y, sw4_v, sw5_we, sw5_y, sw5_v, sw6_we, sw6_y, sw6_v,
            o_valid, o_flow
        );
        self.s.clock.next = self.clk.val();
        self.a.clock.next = self.clk.val();
        self.b.clock.next = self.clk.val();

        // ---- Stage 7: the decision (the one-cycle loop) ------------------
        self.recent.next = self.p7_ram.q.val();
        if self.p7_fhit.q.val() {
            self.recent.next = self.p7_fval.q.val();
        }
        if self.p7_e1.q.val() & self.w1_we.q.val() {
            self.recent.next = self.p7_gt1.q.val();
        }
        self.cnp.next = self.p7_valid.q.val() & !self.recent.val();
        // `b` as it is when this write lands: the scrubber's clears of the
        // last eight cycles are not in the word read (a clear in this cycle
        // cannot hit a flow that gets a CNP: see `clear`).
        self.b_eff.next = self.p7_b.q.val();
        if self.p7_bhit.q.val() {
            self.b_eff.next = self.p7_bval.q.val();
        }
        if self.p7_be1.q.val() & self.sw1_we.q.val() {
            self.b_eff.next = self.p7_bv1.q.val();
        }
        self.w1_we.d.next = self.cnp.val();
        self.w1_flow.d.next = self.p7_flow.q.val();
        self.w2_we.d.next = self.w1_we.q.val();
        self.w2_flow.d.next = self.w1_flow.q.val();
        self.w3_we.d.next = self.w2_we.q.val();
        self.w3_flow.d.next = self.w2_flow.q.val();
        self.w4_we.d.next = self.w3_we.q.val();
        self.w4_flow.d.next = self.w3_flow.q.val();
        self.w5_we.d.next = self.w4_we.q.val();
        self.w5_flow.d.next = self.w4_flow.q.val();
        self.w6_we.d.next = self.w5_we.q.val();
        self.w6_flow.d.next = self.w5_flow.q.val();
        self.o_valid.d.next = self.cnp.val();
        self.o_flow.d.next = 0.into();
        if self.cnp.val() {
            self.o_flow.d.next = self.p7_flow.q.val();
        }

        // ---- Scrubber stage 7: clear a stale flow ----------------------------
        self.clear.next = self.c7_valid.q.val()
            & self.c7_stale.q.val()
            & !self.c7_dirty.q.val()
            & !(self.w1_we.q.val() & self.c7_pw.q.val())
            & !self.rst.val()
            & !(self.cnp.val() & self.c7_pe.q.val());
        self.sw1_we.d.next = self.clear.val();
        self.sw1_y.d.next = self.c7_y.q.val();
        self.sw1_v.d.next = self.c7_a.q.val();
        self.sw2_we.d.next = self.sw1_we.q.val();
        self.sw2_y.d.next = self.sw1_y.q.val();
        self.sw2_v.d.next = self.sw1_v.q.val();
        self.sw3_we.d.next = self.sw2_we.q.val();
        self.sw3_y.d.next = self.sw2_y.q.val();
        self.sw3_v.d.next = self.sw2_v.q.val();
        self.sw4_we.d.next = self.sw3_we.q.val();
        self.sw4_y.d.next = self.sw3_y.q.val();
        self.sw4_v.d.next = self.sw3_v.q.val();
        self.sw5_we.d.next = self.sw4_we.q.val();
        self.sw5_y.d.next = self.sw4_y.q.val();
        self.sw5_v.d.next = self.sw4_v.q.val();
        self.sw6_we.d.next = self.sw5_we.q.val();
        self.sw6_y.d.next = self.sw5_y.q.val();
        self.sw6_v.d.next = self.sw5_v.q.val();

        // ---- RAM writes: the two paths, or the clearing --------------------
        self.sweep.next = self.rst.val() | self.sweep_q.q.val();
        self.s.write_address.next = self.p7_flow.q.val();
        self.s.write_data.next = self.p7_stamp.q.val();
        self.s.write_enable.next = self.cnp.val();
        self.a.write_address.next = self.p7_flow.q.val();
        self.a.write_data.next = (!self.b_eff.val()).into();
        // (No CNP and no clear while the table is cleared; in a reset
        // cycle there is no clear, and the CNP's write goes to the sweep.)
        self.a.write_enable.next = self.cnp.val() | self.sweep.val();
        self.b.write_address.next = self.c7_y.q.val();
        self.b.write_data.next = self.c7_a.q.val().into();
        self.b.write_enable.next = self.clear.val() | self.sweep.val();
        if self.busy.q.val() | self.rst.val() {
            self.a.write_address.next = self.ptr.q.val();
            self.a.write_data.next = 0.into();
            self.b.write_address.next = self.ptr.q.val();
            self.b.write_data.next = 0.into();
        }
        if self.rst.val() {
            self.a.write_address.next = 0.into();
            self.b.write_address.next = 0.into();
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

        // ---- Stages 1 -> 5: min(N, 9) ---------------------------------------------
        self.p2_valid.d.next = self.p1_valid.q.val();
        self.p2_flow.d.next = self.p1_flow.q.val();
        self.p2_n.d.next = self.p1_n.q.val();
        self.p2_ns.d.next = self.p1_n.q.val().get_bits::<4>(0);
        if self.p1_n.q.val() > self.nine.val() {
            self.p2_ns.d.next = 9.into();
        }
        self.p3_valid.d.next = self.p2_valid.q.val();
        self.p3_flow.d.next = self.p2_flow.q.val();
        self.p3_n.d.next = self.p2_n.q.val();
        self.p3_ns.d.next = self.p2_ns.q.val();
        self.p4_valid.d.next = self.p3_valid.q.val();
        self.p4_flow.d.next = self.p3_flow.q.val();
        self.p4_n.d.next = self.p3_n.q.val();
        self.p4_ns.d.next = self.p3_ns.q.val();
        self.p5_valid.d.next = self.p4_valid.q.val();
        self.p5_flow.d.next = self.p4_flow.q.val();
        self.p5_n.d.next = self.p4_n.q.val();
        self.p5_ns.d.next = self.p4_ns.q.val();

        // ---- Stage 5 -> 6: the words, and what is ahead --------------------------
        self.p6_valid.d.next = self.p5_valid.q.val();
        self.p6_flow.d.next = self.p5_flow.q.val();
        self.p6_n.d.next = self.p5_n.q.val();
        self.p6_ns.d.next = self.p5_ns.q.val();
        self.p6_stamp.d.next = self.now.q.val();
        self.p6_age.d.next = self.now.q.val() - self.s.read_data_a.val();
        self.p6_v.d.next = self.a.read_data_a.val().any() ^ self.b.read_data_a.val().any();
        self.p6_b.d.next = self.b.read_data_a.val().any();
        self.p6_e1.d.next = self.p5_flow.q.val() == self.p6_flow.q.val();
        self.p6_e2.d.next = self.p5_flow.q.val() == self.p7_flow.q.val();
        self.p6_h3.d.next = self.w1_we.q.val() & (self.p5_flow.q.val() == self.w1_flow.q.val());
        self.p6_h4.d.next = self.w2_we.q.val() & (self.p5_flow.q.val() == self.w2_flow.q.val());
        self.p6_h5.d.next = self.w3_we.q.val() & (self.p5_flow.q.val() == self.w3_flow.q.val());
        self.p6_h6.d.next = self.w4_we.q.val() & (self.p5_flow.q.val() == self.w4_flow.q.val());
        self.p6_h7.d.next = self.w5_we.q.val() & (self.p5_flow.q.val() == self.w5_flow.q.val());
        self.p6_h8.d.next = self.w6_we.q.val() & (self.p5_flow.q.val() == self.w6_flow.q.val());
        self.p6_be1.d.next = self.p5_flow.q.val() == self.c6_y.q.val();
        self.p6_bv1.d.next = self.c6_a.q.val();
        self.p6_be2.d.next = self.p5_flow.q.val() == self.c7_y.q.val();
        self.p6_bv2.d.next = self.c7_a.q.val();
        self.p6_bh3.d.next = self.sw1_we.q.val() & (self.p5_flow.q.val() == self.sw1_y.q.val());
        self.p6_bv3.d.next = self.sw1_v.q.val();
        self.p6_bh4.d.next = self.sw2_we.q.val() & (self.p5_flow.q.val() == self.sw2_y.q.val());
        self.p6_bv4.d.next = self.sw2_v.q.val();
        self.p6_bh5.d.next = self.sw3_we.q.val() & (self.p5_flow.q.val() == self.sw3_y.q.val());
        self.p6_bv5.d.next = self.sw3_v.q.val();
        self.p6_bh6.d.next = self.sw4_we.q.val() & (self.p5_flow.q.val() == self.sw4_y.q.val());
        self.p6_bv6.d.next = self.sw4_v.q.val();
        self.p6_bh7.d.next = self.sw5_we.q.val() & (self.p5_flow.q.val() == self.sw5_y.q.val());
        self.p6_bv7.d.next = self.sw5_v.q.val();
        self.p6_bh8.d.next = self.sw6_we.q.val() & (self.p5_flow.q.val() == self.sw6_y.q.val());
        self.p6_bv8.d.next = self.sw6_v.q.val();

        // ---- Stage 6 -> 7: the answer without the packet one ahead ---------------
        self.ram_recent.next =
            self.p6_v.q.val() & (self.p6_age.q.val() < bit_cast::<TB, NB>(self.p6_n.q.val()));
        // The packet two ahead was decided in the last cycle.
        self.hit2.next = self.p6_e2.q.val() & self.w1_we.q.val();
        self.p7_ram.d.next = self.ram_recent.val();
        self.p7_fhit.d.next = self.hit2.val()
            | self.p6_h3.q.val()
            | self.p6_h4.q.val()
            | self.p6_h5.q.val()
            | self.p6_h6.q.val()
            | self.p6_h7.q.val()
            | self.p6_h8.q.val();
        self.p7_fval.d.next = self.p6_ns.q.val() > 8;
        if self.p6_h7.q.val() {
            self.p7_fval.d.next = self.p6_ns.q.val() > 7;
        }
        if self.p6_h6.q.val() {
            self.p7_fval.d.next = self.p6_ns.q.val() > 6;
        }
        if self.p6_h5.q.val() {
            self.p7_fval.d.next = self.p6_ns.q.val() > 5;
        }
        if self.p6_h4.q.val() {
            self.p7_fval.d.next = self.p6_ns.q.val() > 4;
        }
        if self.p6_h3.q.val() {
            self.p7_fval.d.next = self.p6_ns.q.val() > 3;
        }
        if self.hit2.val() {
            self.p7_fval.d.next = self.p6_ns.q.val() > 2;
        }
        self.p7_gt1.d.next = self.p6_ns.q.val() > 1;
        self.p7_valid.d.next = self.p6_valid.q.val();
        self.p7_flow.d.next = self.p6_flow.q.val();
        self.p7_stamp.d.next = self.p6_stamp.q.val();
        self.p7_e1.d.next = self.p6_e1.q.val();
        self.p7_b.d.next = self.p6_b.q.val();
        self.p7_be1.d.next = self.p6_be1.q.val();
        self.p7_bv1.d.next = self.p6_bv1.q.val();
        // The clear two cycles ahead was decided in the last cycle.
        self.bhit2.next = self.p6_be2.q.val() & self.sw1_we.q.val();
        self.p7_bhit.d.next = self.bhit2.val()
            | self.p6_bh3.q.val()
            | self.p6_bh4.q.val()
            | self.p6_bh5.q.val()
            | self.p6_bh6.q.val()
            | self.p6_bh7.q.val()
            | self.p6_bh8.q.val();
        self.p7_bval.d.next = self.p6_bv8.q.val();
        if self.p6_bh7.q.val() {
            self.p7_bval.d.next = self.p6_bv7.q.val();
        }
        if self.p6_bh6.q.val() {
            self.p7_bval.d.next = self.p6_bv6.q.val();
        }
        if self.p6_bh5.q.val() {
            self.p7_bval.d.next = self.p6_bv5.q.val();
        }
        if self.p6_bh4.q.val() {
            self.p7_bval.d.next = self.p6_bv4.q.val();
        }
        if self.p6_bh3.q.val() {
            self.p7_bval.d.next = self.p6_bv3.q.val();
        }
        if self.bhit2.val() {
            self.p7_bval.d.next = self.p6_bv2.q.val();
        }

        // ---- Scrubber: read `ptr`; gather the CNPs written to the flow in flight --
        self.s.read_address_b.next = self.ptr.q.val();
        self.a.read_address_b.next = self.ptr.q.val();
        self.b.read_address_b.next = self.ptr.q.val();
        self.c1_valid.d.next = !self.busy.q.val();
        self.c1_y.d.next = self.ptr.q.val();
        self.c1_dirty.d.next = self.w1_we.q.val() & (self.w1_flow.q.val() == self.ptr.q.val());
        // A read issued in cycle r sees the CNPs decided before r - 1 (the
        // one of r - 1 collides with it). A CNP decided in cycle u is seen
        // here in u + 1 (`w1`): stage k gathers the CNPs of cycles
        // r - 1 ..= r + k - 2 for its flow; the clear checks those of
        // r + 6 and r + 7 (`c7_pw`, `c7_pe`).
        self.c2_valid.d.next = self.c1_valid.q.val();
        self.c2_y.d.next = self.c1_y.q.val();
        self.c2_dirty.d.next = self.c1_dirty.q.val()
            | (self.w1_we.q.val() & (self.w1_flow.q.val() == self.c1_y.q.val()));
        self.c3_valid.d.next = self.c2_valid.q.val();
        self.c3_y.d.next = self.c2_y.q.val();
        self.c3_dirty.d.next = self.c2_dirty.q.val()
            | (self.w1_we.q.val() & (self.w1_flow.q.val() == self.c2_y.q.val()));
        self.c4_valid.d.next = self.c3_valid.q.val();
        self.c4_y.d.next = self.c3_y.q.val();
        self.c4_dirty.d.next = self.c3_dirty.q.val()
            | (self.w1_we.q.val() & (self.w1_flow.q.val() == self.c3_y.q.val()));
        self.c5_valid.d.next = self.c4_valid.q.val();
        self.c5_y.d.next = self.c4_y.q.val();
        self.c5_dirty.d.next = self.c4_dirty.q.val()
            | (self.w1_we.q.val() & (self.w1_flow.q.val() == self.c4_y.q.val()));
        self.c6_valid.d.next = self.c5_valid.q.val();
        self.c6_y.d.next = self.c5_y.q.val();
        self.c6_dirty.d.next = self.c5_dirty.q.val()
            | (self.w1_we.q.val() & (self.w1_flow.q.val() == self.c5_y.q.val()));
        self.c6_age.d.next = self.now.q.val() - self.s.read_data_b.val();
        self.c6_v.d.next = self.a.read_data_b.val().any() ^ self.b.read_data_b.val().any();
        self.c6_a.d.next = self.a.read_data_b.val().any();
        self.c7_valid.d.next = self.c6_valid.q.val();
        self.c7_y.d.next = self.c6_y.q.val();
        self.c7_dirty.d.next = self.c6_dirty.q.val()
            | (self.w1_we.q.val() & (self.w1_flow.q.val() == self.c6_y.q.val()));
        self.c7_pw.d.next = self.p7_flow.q.val() == self.c6_y.q.val();
        self.c7_pe.d.next = self.p6_flow.q.val() == self.c6_y.q.val();
        self.c7_stale.d.next = self.c6_v.q.val() & (self.c6_age.q.val() >= self.stale_age.val());
        self.c7_a.d.next = self.c6_a.q.val();

        // ---- Time, the pointer, the clearing ------------------------------------
        self.now.d.next = self.now.q.val() + 1;
        self.ptr.d.next = self.ptr.q.val() + 1;
        if self.busy.q.val() & (self.ptr.q.val() == 0) {
            self.busy.d.next = false;
        }
        // Flows 1 to F - 1 are written in the cycles after a reset.
        self.sweep_q.d.next = self.sweep_q.q.val() & (self.ptr.q.val() != self.last_flow.val());

        // ---- Reset wins over every load -------------------------------------------
        if self.rst.val() {
            self.interval.d.next = self.reset_interval.val();
            self.now.d.next = 0.into();
            self.busy.d.next = true;
            self.ptr.d.next = 1.into();
            self.sweep_q.d.next = true;
            self.p1_valid.d.next = false;
            self.p2_valid.d.next = false;
            self.p3_valid.d.next = false;
            self.p4_valid.d.next = false;
            self.p5_valid.d.next = false;
            self.p6_valid.d.next = false;
            self.p7_valid.d.next = false;
            self.w1_we.d.next = false;
            self.w2_we.d.next = false;
            self.w3_we.d.next = false;
            self.w4_we.d.next = false;
            self.w5_we.d.next = false;
            self.w6_we.d.next = false;
            self.c1_valid.d.next = false;
            self.c2_valid.d.next = false;
            self.c3_valid.d.next = false;
            self.c4_valid.d.next = false;
            self.c5_valid.d.next = false;
            self.c6_valid.d.next = false;
            self.c7_valid.d.next = false;
            self.sw1_we.d.next = false;
            self.sw2_we.d.next = false;
            self.sw3_we.d.next = false;
            self.sw4_we.d.next = false;
            self.sw5_we.d.next = false;
            self.sw6_we.d.next = false;
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
            $($n => $crate::own_frame(|| $make!($f, $n, { if $f > $n { $f + 2 } else { $n + 2 } })),)*
            n => unreachable!("interval_bits {n} passed validation but has no instance"),
        }
    };
}
