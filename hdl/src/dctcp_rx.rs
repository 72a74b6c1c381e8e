//! DCTCP_RX — the DCTCP receiver: per flow the CE state bit and the count
//! of packets not yet ACKed; which packets each ACK covers, and its ECE
//! (seed 000 §3.2). The rule and the timing contract are specified in
//! `ccrtl_golden::dctcp_rx`; `docs/dctcp_rx.md` has the port and parameter
//! tables and the design notes.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits` in {4, 8, 12, 16}: `F = 2^FB` flows;
//! - the reset value of the `m` register.
//!
//! # Flow table (block RAM)
//! One 5-bit word per flow, `{CE, P}`, in a [`PipeRam1`]: a read's word
//! comes five cycles after its address, a write is seen by reads issued
//! two cycles after it, and a read issued the cycle after a write to its
//! address gets an undefined word. Every accepted event writes its flow's
//! new word (a flush with nothing pending writes the word it read), so
//! the words an event's read does not show are exactly those of the eight
//! events accepted in the eight cycles before it: all forwarded.
//!
//! # Clearing after reset
//! The RAM's power-up contents are random. A reset cycle writes 0 to flow
//! 0; the next `F - 1` cycles (`s_evt_ready` low) write flows 1 to `F - 1`,
//! and the first event, accepted `F + 1` cycles after the reset, reads
//! two cycles after the last write.
//!
//! # Event pipeline (II = 1, latency 8)
//! An event accepted in cycle `n` (its flow's word read in `n`) is decided
//! in cycle `t = n + 7`; the events accepted in `n - 8 ..= n - 1` are
//! decided in `t - 8 ..= t - 1`, and their words are not in the one read
//! (the one of `t - 8 = n - 1` collides with the read).
//! - n (ports): stage 1 loads the event and `m` in force.
//! - n+1 (stage 1 -> 2): `k = max(m, 1) - 1` (a group is full when
//!   `P >= k` before the increment) and `lone = (k == 0)`.
//! - n+5 (stage 5 -> 6): the word; the flow compared with the events one
//!   and two ahead (stages 6, 7) and three to eight ahead (records
//!   `w1..w6`).
//! - n+6 (stage 6 -> 7): the newest word among the events two to eight
//!   ahead of the same flow (`w1..w7`), if any.
//! - n+7 (stage 7, the loop): the word = the event one ahead's (`w1`) if
//!   it is of the same flow, else the forwarded one, else the RAM's; the
//!   decision, the new word (written to the RAM and to `w1`), the output
//!   registers. The loop is one cycle through `w1`: a 3:1 multiplexer, a
//!   4-bit compare and increment, a 2:1 multiplexer.
//! - n+8: `m_flip_*`, `m_ack_*`.
//!
//! # LDCP's rule (`ldcp_rx`, hdl/src/ldcp_rx.rs)
//! The same block with the generation-time flag `ldcp`: a CE packet is
//! ACKed at once and alone (its group is complete whatever `m`), and the
//! CE bit written is always 0, so every CE packet meets a word with CE 0,
//! takes the change path (the unmarked packets pending on the flip slot,
//! itself on the ack slot) and leaves `P = 0`. Synthesis removes the
//! other rule's logic.

use ccrtl_golden::dctcp_rx::{DctcpRxConfig, DctcpRxIn, DctcpRxOut, Rule, LATENCY};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;
use crate::ram::PipeRam1;

#[derive(LogicBlock, Default)]
pub struct DctcpRx<const FB: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Events: received data packets and flushes, one per cycle.
    pub s_evt_valid: Signal<In, Bit>,
    /// Low while the flow table is cleared after a reset.
    pub s_evt_ready: Signal<Out, Bit>,
    /// Flow id.
    pub s_evt_flow: Signal<In, Bits<FB>>,
    /// 1: ACK the flow's pending packets (delayed-ACK timer); 0: a packet.
    pub s_evt_flush: Signal<In, Bit>,
    /// The packet is CE-marked; ignored for a flush.
    pub s_evt_ce: Signal<In, Bit>,
    // `m` load, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    /// Delayed-ACK count: an ACK at least every `max(m, 1)` packets.
    pub s_cfg_m: Signal<In, Bits<4>>,

    // The ACKs of an event, eight cycles after it.
    /// The packets before a CE change, with the old ECE.
    pub m_flip_valid: Signal<Out, Bit>,
    pub m_flip_flow: Signal<Out, Bits<FB>>,
    pub m_flip_count: Signal<Out, Bits<4>>,
    pub m_flip_ece: Signal<Out, Bit>,
    /// A full group, a lone packet after a change with `m <= 1`, or a flush.
    pub m_ack_valid: Signal<Out, Bit>,
    pub m_ack_flow: Signal<Out, Bits<FB>>,
    pub m_ack_count: Signal<Out, Bits<4>>,
    pub m_ack_ece: Signal<Out, Bit>,

    /// The flow table: `{CE, P}` per flow.
    flow_ram: PipeRam1<5, FB>,

    m: DFF<Bits<4>>,
    /// Clearing after reset.
    busy: DFF<Bit>,
    /// Flow the clearing writes this cycle (a counter, also when idle).
    ptr: DFF<Bits<FB>>,
    /// The clearing writes flow `ptr` this cycle.
    sweep_q: DFF<Bit>,

    // Stage 1: the event accepted, `m` in force.
    p1_valid: DFF<Bit>,
    p1_flow: DFF<Bits<FB>>,
    p1_flush: DFF<Bit>,
    p1_ce: DFF<Bit>,
    p1_m: DFF<Bits<4>>,
    // Stages 2 to 5: with `k = max(m, 1) - 1` and `lone = (k == 0)`.
    p2_valid: DFF<Bit>,
    p2_flow: DFF<Bits<FB>>,
    p2_flush: DFF<Bit>,
    p2_ce: DFF<Bit>,
    p2_k: DFF<Bits<4>>,
    p2_lone: DFF<Bit>,
    p3_valid: DFF<Bit>,
    p3_flow: DFF<Bits<FB>>,
    p3_flush: DFF<Bit>,
    p3_ce: DFF<Bit>,
    p3_k: DFF<Bits<4>>,
    p3_lone: DFF<Bit>,
    p4_valid: DFF<Bit>,
    p4_flow: DFF<Bits<FB>>,
    p4_flush: DFF<Bit>,
    p4_ce: DFF<Bit>,
    p4_k: DFF<Bits<4>>,
    p4_lone: DFF<Bit>,
    p5_valid: DFF<Bit>,
    p5_flow: DFF<Bits<FB>>,
    p5_flush: DFF<Bit>,
    p5_ce: DFF<Bit>,
    p5_k: DFF<Bits<4>>,
    p5_lone: DFF<Bit>,
    // Stage 6: the word, the matches with what is ahead.
    p6_valid: DFF<Bit>,
    p6_flow: DFF<Bits<FB>>,
    p6_flush: DFF<Bit>,
    p6_ce: DFF<Bit>,
    p6_k: DFF<Bits<4>>,
    p6_lone: DFF<Bit>,
    p6_word: DFF<Bits<5>>,
    /// Same flow as the event one (two) ahead.
    p6_e1: DFF<Bit>,
    p6_e2: DFF<Bit>,
    /// Same flow as the event three (four, ..., eight) ahead.
    p6_h3: DFF<Bit>,
    p6_h4: DFF<Bit>,
    p6_h5: DFF<Bit>,
    p6_h6: DFF<Bit>,
    p6_h7: DFF<Bit>,
    p6_h8: DFF<Bit>,
    // Stage 7: the decision.
    p7_valid: DFF<Bit>,
    p7_flow: DFF<Bits<FB>>,
    p7_flush: DFF<Bit>,
    p7_ce: DFF<Bit>,
    p7_k: DFF<Bits<4>>,
    p7_lone: DFF<Bit>,
    p7_e1: DFF<Bit>,
    /// The RAM's word.
    p7_ram: DFF<Bits<5>>,
    /// An event two to eight ahead of the same flow, and the newest one's word.
    p7_fhit: DFF<Bit>,
    p7_fword: DFF<Bits<5>>,
    // The words written in the last seven cycles (`w7`: its word only).
    w1_we: DFF<Bit>,
    w1_flow: DFF<Bits<FB>>,
    w1_word: DFF<Bits<5>>,
    w2_we: DFF<Bit>,
    w2_flow: DFF<Bits<FB>>,
    w2_word: DFF<Bits<5>>,
    w3_we: DFF<Bit>,
    w3_flow: DFF<Bits<FB>>,
    w3_word: DFF<Bits<5>>,
    w4_we: DFF<Bit>,
    w4_flow: DFF<Bits<FB>>,
    w4_word: DFF<Bits<5>>,
    w5_we: DFF<Bit>,
    w5_flow: DFF<Bits<FB>>,
    w5_word: DFF<Bits<5>>,
    w6_we: DFF<Bit>,
    w6_flow: DFF<Bits<FB>>,
    w6_word: DFF<Bits<5>>,
    w7_word: DFF<Bits<5>>,

    o_flip_valid: DFF<Bit>,
    o_flip_flow: DFF<Bits<FB>>,
    o_flip_count: DFF<Bits<4>>,
    o_flip_ece: DFF<Bit>,
    o_ack_valid: DFF<Bit>,
    o_ack_flow: DFF<Bits<FB>>,
    o_ack_count: DFF<Bits<4>>,
    o_ack_ece: DFF<Bit>,

    // Combinational.
    accept: Signal<Local, Bit>,
    hit2: Signal<Local, Bit>,
    cur: Signal<Local, Bits<5>>,
    cur_ce: Signal<Local, Bit>,
    cur_p: Signal<Local, Bits<4>>,
    inc: Signal<Local, Bits<4>>,
    new_ce: Signal<Local, Bit>,
    new_p: Signal<Local, Bits<4>>,
    flip: Signal<Local, Bit>,
    ack: Signal<Local, Bit>,
    ack_count: Signal<Local, Bits<4>>,
    ack_ece: Signal<Local, Bit>,
    word: Signal<Local, Bits<5>>,
    sweep: Signal<Local, Bit>,
    /// A packet that changes CE is ACKed at once (`m <= 1`, or LDCP).
    at_once: Signal<Local, Bit>,

    reset_m: Param<Bits<4>>,
    last_flow: Param<Bits<FB>>,
    /// LDCP's rule (see the module docs).
    ldcp: Param<Bit>,
}

impl<const FB: usize> DctcpRx<FB> {
    /// The block with the reset value of `config`, following `rule`. The
    /// caller has validated `config` and chosen `FB` equal to its shape.
    pub fn new(config: &DctcpRxConfig, rule: Rule) -> Self {
        assert_eq!(config.shape.flow_bits as usize, FB);
        Self {
            reset_m: Param::new((config.reset.m as u64).to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            ldcp: Param::new(rule == Rule::Ldcp),
            ..Default::default()
        }
    }
}

impl<const FB: usize> Logic for DctcpRx<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, m, busy, ptr, sweep_q, p1_valid, p1_flow, p1_flush, p1_ce, p1_m, p2_valid,
            p2_flow, p2_flush, p2_ce, p2_k, p2_lone, p3_valid, p3_flow, p3_flush, p3_ce, p3_k,
            p3_lone, p4_valid, p4_flow, p4_flush, p4_ce, p4_k, p4_lone, p5_valid, p5_flow,
            p5_flush, p5_ce, p5_k, p5_lone, p6_valid, p6_flow, p6_flush, p6_ce, p6_k, p6_lone,
            p6_word, p6_e1, p6_e2, p6_h3, p6_h4, p6_h5, p6_h6, p6_h7, p6_h8, p7_valid, p7_flow,
            p7_flush, p7_ce, p7_k, p7_lone, p7_e1, p7_ram, p7_fhit, p7_fword, w1_we, w1_flow,
            w1_word, w2_we, w2_flow, w2_word, w3_we, w3_flow, w3_word, w4_we, w4_flow, w4_word,
            w5_we, w5_flow, w5_word, w6_we, w6_flow, w6_word, w7_word, o_flip_valid, o_flip_flow,
            o_flip_count, o_flip_ece, o_ack_valid, o_ack_flow, o_ack_count, o_ack_ece
        );
        self.flow_ram.clock.next = self.clk.val();

        // ---- Stage 7: the word, the decision (the one-cycle loop) ---------
        self.cur.next = self.p7_ram.q.val();
        if self.p7_fhit.q.val() {
            self.cur.next = self.p7_fword.q.val();
        }
        if self.p7_e1.q.val() & self.w1_we.q.val() {
            self.cur.next = self.w1_word.q.val();
        }
        self.cur_ce.next = self.cur.val().get_bit(4);
        self.cur_p.next = self.cur.val().get_bits::<4>(0);
        self.inc.next = self.cur_p.val() + 1;
        self.at_once.next = self.p7_lone.q.val() | self.ldcp.val();
        // A flush: the pending packets, if any, on the ack slot.
        self.new_ce.next = self.cur_ce.val();
        self.new_p.next = 0.into();
        self.flip.next = false;
        self.ack.next = self.cur_p.val().any();
        self.ack_count.next = self.cur_p.val();
        self.ack_ece.next = self.cur_ce.val();
        if !self.p7_flush.q.val() {
            if self.p7_ce.q.val() == self.cur_ce.val() {
                // Same CE: the packet joins the group; a full group is ACKed.
                self.ack.next = self.cur_p.val() >= self.p7_k.q.val();
                self.ack_count.next = self.inc.val();
                if self.cur_p.val() < self.p7_k.q.val() {
                    self.new_p.next = self.inc.val();
                }
            } else {
                // A CE change: the pending packets with the old ECE on the
                // flip slot; the packet starts a group of its own, ACKed at
                // once when `m <= 1`.
                self.flip.next = self.cur_p.val().any();
                self.new_ce.next = self.p7_ce.q.val() & !self.ldcp.val();
                self.ack.next = self.at_once.val();
                self.ack_count.next = 1.into();
                self.ack_ece.next = self.p7_ce.q.val();
                if !self.at_once.val() {
                    self.new_p.next = 1.into();
                }
            }
        }
        self.word.next = bit_cast::<5, 4>(self.new_p.val())
            | (bit_cast::<5, 1>(self.new_ce.val().into()) << 4);
        self.w1_we.d.next = self.p7_valid.q.val();
        self.w1_flow.d.next = self.p7_flow.q.val();
        self.w1_word.d.next = self.word.val();
        self.w2_we.d.next = self.w1_we.q.val();
        self.w2_flow.d.next = self.w1_flow.q.val();
        self.w2_word.d.next = self.w1_word.q.val();
        self.w3_we.d.next = self.w2_we.q.val();
        self.w3_flow.d.next = self.w2_flow.q.val();
        self.w3_word.d.next = self.w2_word.q.val();
        self.w4_we.d.next = self.w3_we.q.val();
        self.w4_flow.d.next = self.w3_flow.q.val();
        self.w4_word.d.next = self.w3_word.q.val();
        self.w5_we.d.next = self.w4_we.q.val();
        self.w5_flow.d.next = self.w4_flow.q.val();
        self.w5_word.d.next = self.w4_word.q.val();
        self.w6_we.d.next = self.w5_we.q.val();
        self.w6_flow.d.next = self.w5_flow.q.val();
        self.w6_word.d.next = self.w5_word.q.val();
        self.w7_word.d.next = self.w6_word.q.val();
        // The output registers: every field 0 when its valid is low.
        self.o_flip_valid.d.next = self.p7_valid.q.val() & self.flip.val();
        self.o_flip_flow.d.next = 0.into();
        self.o_flip_count.d.next = 0.into();
        self.o_flip_ece.d.next = false;
        if self.p7_valid.q.val() & self.flip.val() {
            self.o_flip_flow.d.next = self.p7_flow.q.val();
            self.o_flip_count.d.next = self.cur_p.val();
            self.o_flip_ece.d.next = self.cur_ce.val();
        }
        self.o_ack_valid.d.next = self.p7_valid.q.val() & self.ack.val();
        self.o_ack_flow.d.next = 0.into();
        self.o_ack_count.d.next = 0.into();
        self.o_ack_ece.d.next = false;
        if self.p7_valid.q.val() & self.ack.val() {
            self.o_ack_flow.d.next = self.p7_flow.q.val();
            self.o_ack_count.d.next = self.ack_count.val();
            self.o_ack_ece.d.next = self.ack_ece.val();
        }

        // ---- The RAM write: the event's word, or the clearing -------------
        self.sweep.next = self.rst.val() | self.sweep_q.q.val();
        self.flow_ram.write_address.next = self.p7_flow.q.val();
        self.flow_ram.write_data.next = self.word.val();
        self.flow_ram.write_enable.next = self.p7_valid.q.val() | self.sweep.val();
        if self.busy.q.val() | self.rst.val() {
            self.flow_ram.write_address.next = self.ptr.q.val();
            self.flow_ram.write_data.next = 0.into();
        }
        if self.rst.val() {
            self.flow_ram.write_address.next = 0.into();
        }

        // ---- Ports into stage 1 -------------------------------------------
        self.accept.next = self.s_evt_valid.val() & !self.busy.q.val() & !self.rst.val();
        self.p1_valid.d.next = self.accept.val();
        self.p1_flow.d.next = self.s_evt_flow.val();
        self.p1_flush.d.next = self.s_evt_flush.val();
        self.p1_ce.d.next = self.s_evt_ce.val();
        self.p1_m.d.next = self.m.q.val();
        self.flow_ram.read_address_a.next = self.s_evt_flow.val();
        if self.s_cfg_valid.val() {
            self.m.d.next = self.s_cfg_m.val();
        }

        // ---- Stages 1 -> 5: k = max(m, 1) - 1 -----------------------------
        self.p2_valid.d.next = self.p1_valid.q.val();
        self.p2_flow.d.next = self.p1_flow.q.val();
        self.p2_flush.d.next = self.p1_flush.q.val();
        self.p2_ce.d.next = self.p1_ce.q.val();
        self.p2_k.d.next = self.p1_m.q.val() - 1;
        if !self.p1_m.q.val().any() {
            self.p2_k.d.next = 0.into();
        }
        self.p2_lone.d.next = self.p1_m.q.val() <= 1;
        self.p3_valid.d.next = self.p2_valid.q.val();
        self.p3_flow.d.next = self.p2_flow.q.val();
        self.p3_flush.d.next = self.p2_flush.q.val();
        self.p3_ce.d.next = self.p2_ce.q.val();
        self.p3_k.d.next = self.p2_k.q.val();
        self.p3_lone.d.next = self.p2_lone.q.val();
        self.p4_valid.d.next = self.p3_valid.q.val();
        self.p4_flow.d.next = self.p3_flow.q.val();
        self.p4_flush.d.next = self.p3_flush.q.val();
        self.p4_ce.d.next = self.p3_ce.q.val();
        self.p4_k.d.next = self.p3_k.q.val();
        self.p4_lone.d.next = self.p3_lone.q.val();
        self.p5_valid.d.next = self.p4_valid.q.val();
        self.p5_flow.d.next = self.p4_flow.q.val();
        self.p5_flush.d.next = self.p4_flush.q.val();
        self.p5_ce.d.next = self.p4_ce.q.val();
        self.p5_k.d.next = self.p4_k.q.val();
        self.p5_lone.d.next = self.p4_lone.q.val();

        // ---- Stage 5 -> 6: the word, and what is ahead --------------------
        self.p6_valid.d.next = self.p5_valid.q.val();
        self.p6_flow.d.next = self.p5_flow.q.val();
        self.p6_flush.d.next = self.p5_flush.q.val();
        self.p6_ce.d.next = self.p5_ce.q.val();
        self.p6_k.d.next = self.p5_k.q.val();
        self.p6_lone.d.next = self.p5_lone.q.val();
        self.p6_word.d.next = self.flow_ram.read_data_a.val();
        self.p6_e1.d.next = self.p6_valid.q.val() & (self.p5_flow.q.val() == self.p6_flow.q.val());
        self.p6_e2.d.next = self.p7_valid.q.val() & (self.p5_flow.q.val() == self.p7_flow.q.val());
        self.p6_h3.d.next = self.w1_we.q.val() & (self.p5_flow.q.val() == self.w1_flow.q.val());
        self.p6_h4.d.next = self.w2_we.q.val() & (self.p5_flow.q.val() == self.w2_flow.q.val());
        self.p6_h5.d.next = self.w3_we.q.val() & (self.p5_flow.q.val() == self.w3_flow.q.val());
        self.p6_h6.d.next = self.w4_we.q.val() & (self.p5_flow.q.val() == self.w4_flow.q.val());
        self.p6_h7.d.next = self.w5_we.q.val() & (self.p5_flow.q.val() == self.w5_flow.q.val());
        self.p6_h8.d.next = self.w6_we.q.val() & (self.p5_flow.q.val() == self.w6_flow.q.val());

        // ---- Stage 6 -> 7: the newest word two to eight ahead -------------
        // The event two ahead was decided in the last cycle (now `w1`).
        self.hit2.next = self.p6_e2.q.val() & self.w1_we.q.val();
        self.p7_fhit.d.next = self.hit2.val()
            | self.p6_h3.q.val()
            | self.p6_h4.q.val()
            | self.p6_h5.q.val()
            | self.p6_h6.q.val()
            | self.p6_h7.q.val()
            | self.p6_h8.q.val();
        self.p7_fword.d.next = self.w7_word.q.val();
        if self.p6_h7.q.val() {
            self.p7_fword.d.next = self.w6_word.q.val();
        }
        if self.p6_h6.q.val() {
            self.p7_fword.d.next = self.w5_word.q.val();
        }
        if self.p6_h5.q.val() {
            self.p7_fword.d.next = self.w4_word.q.val();
        }
        if self.p6_h4.q.val() {
            self.p7_fword.d.next = self.w3_word.q.val();
        }
        if self.p6_h3.q.val() {
            self.p7_fword.d.next = self.w2_word.q.val();
        }
        if self.hit2.val() {
            self.p7_fword.d.next = self.w1_word.q.val();
        }
        self.p7_valid.d.next = self.p6_valid.q.val();
        self.p7_flow.d.next = self.p6_flow.q.val();
        self.p7_flush.d.next = self.p6_flush.q.val();
        self.p7_ce.d.next = self.p6_ce.q.val();
        self.p7_k.d.next = self.p6_k.q.val();
        self.p7_lone.d.next = self.p6_lone.q.val();
        self.p7_e1.d.next = self.p6_e1.q.val();
        self.p7_ram.d.next = self.p6_word.q.val();

        // ---- The pointer, the clearing ------------------------------------
        self.ptr.d.next = self.ptr.q.val() + 1;
        if self.busy.q.val() & (self.ptr.q.val() == 0) {
            self.busy.d.next = false;
        }
        // Flows 1 to F - 1 are written in the cycles after a reset.
        self.sweep_q.d.next = self.sweep_q.q.val() & (self.ptr.q.val() != self.last_flow.val());

        // ---- Reset wins over every load -----------------------------------
        // Not reset, as they need not be: stage 1's valid (it loads
        // `accept`, low in a reset cycle) and the write records `w*_we`
        // (read only by events in stages 5 to 7, and no event is accepted
        // for 2^FB >= 16 cycles after a reset, by which time they hold the
        // pipeline's zeros). Fewer loads on the reset net.
        if self.rst.val() {
            self.m.d.next = self.reset_m.val();
            self.busy.d.next = true;
            self.ptr.d.next = 1.into();
            self.sweep_q.d.next = true;
            self.p2_valid.d.next = false;
            self.p3_valid.d.next = false;
            self.p4_valid.d.next = false;
            self.p5_valid.d.next = false;
            self.p6_valid.d.next = false;
            self.p7_valid.d.next = false;
            self.o_flip_valid.d.next = false;
            self.o_flip_flow.d.next = 0.into();
            self.o_flip_count.d.next = 0.into();
            self.o_flip_ece.d.next = false;
            self.o_ack_valid.d.next = false;
            self.o_ack_flow.d.next = 0.into();
            self.o_ack_count.d.next = 0.into();
            self.o_ack_ece.d.next = false;
        }

        self.s_evt_ready.next = !self.busy.q.val();
        self.m_flip_valid.next = self.o_flip_valid.q.val();
        self.m_flip_flow.next = self.o_flip_flow.q.val();
        self.m_flip_count.next = self.o_flip_count.q.val();
        self.m_flip_ece.next = self.o_flip_ece.q.val();
        self.m_ack_valid.next = self.o_ack_valid.q.val();
        self.m_ack_flow.next = self.o_ack_flow.q.val();
        self.m_ack_count.next = self.o_ack_count.q.val();
        self.m_ack_ece.next = self.o_ack_ece.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// The block name of a rule (the emitted module is `ccrtl_<name>`).
fn block_name(rule: Rule) -> &'static str {
    match rule {
        Rule::Dctcp => "dctcp_rx",
        Rule::Ldcp => "ldcp_rx",
    }
}

/// rust-hdl's Verilog for the receiver of `rule`, as `generate_verilog`
/// writes it.
pub fn raw_verilog_of(config: &DctcpRxConfig, rule: Rule) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($f:literal) => {{
            let mut b = DctcpRx::<$f>::new(config, rule);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_flow_shape!(config.shape, make))
}

/// The finished Verilog file of the receiver of `rule`.
pub fn verilog_of(config: &DctcpRxConfig, rule: Rule) -> Result<String, ParamError> {
    let raw = raw_verilog_of(config, rule)?;
    let params = [
        ("flow_bits", config.shape.flow_bits.to_string()),
        ("reset.m", format!("{} packets", config.reset.m)),
    ];
    let purpose = match rule {
        Rule::Dctcp => "DCTCP receiver: per flow the CE state, delayed ACKs of at most m packets, an immediate ACK when CE flips",
        Rule::Ldcp => "LDCP receiver: delayed ACKs of at most m unmarked packets, every CE packet ACKed at once with ECE",
    };
    Ok(crate::emit::finish(
        block_name(rule),
        purpose,
        &format!(
            "II = 1; ACKs {LATENCY} cycles after their event; s_evt_ready low for 2^flow_bits cycles after reset"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl block of the receiver of `rule`.
pub fn sim_of(
    config: &DctcpRxConfig,
    rule: Rule,
) -> Result<Box<dyn crate::sim::CycleSim<DctcpRxIn, DctcpRxOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($f:literal) => {{
            let mut b = DctcpRx::<$f>::new(config, rule);
            b.connect_all();
            Box::new(DctcpRxSim(b)) as Box<dyn crate::sim::CycleSim<DctcpRxIn, DctcpRxOut>>
        }};
    }
    Ok(crate::dispatch_flow_shape!(config.shape, make))
}

/// The ports of the receiver for a validated configuration, read from the
/// struct (the same for both rules).
pub fn ports(config: &DctcpRxConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($f:literal) => {{
            crate::ports::ports_of(&DctcpRx::<$f>::new(config, Rule::Dctcp))
        }};
    }
    crate::dispatch_flow_shape!(config.shape, make)
}

/// The finished Verilog file for DCTCP_RX.
pub fn verilog(config: &DctcpRxConfig) -> Result<String, ParamError> {
    verilog_of(config, Rule::Dctcp)
}

/// The rust-hdl DCTCP_RX block for a configuration.
pub fn sim(
    config: &DctcpRxConfig,
) -> Result<Box<dyn crate::sim::CycleSim<DctcpRxIn, DctcpRxOut>>, ParamError> {
    sim_of(config, Rule::Dctcp)
}

struct DctcpRxSim<const FB: usize>(DctcpRx<FB>);

impl<const FB: usize> crate::sim::CycleSim<DctcpRxIn, DctcpRxOut> for DctcpRxSim<FB> {
    fn cycle(&mut self, i: &DctcpRxIn) -> DctcpRxOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_evt_valid.next = i.evt_valid;
        b.s_evt_flow.next = (i.evt_flow as u64).to_bits();
        b.s_evt_flush.next = i.evt_flush;
        b.s_evt_ce.next = i.evt_ce;
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_m.next = (i.cfg_m as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "DCTCP_RX logic did not settle"
        );
        let out = DctcpRxOut {
            evt_ready: b.s_evt_ready.val(),
            flip_valid: b.m_flip_valid.val(),
            flip_flow: b.m_flip_flow.val().to_u32(),
            flip_count: b.m_flip_count.val().to_u32(),
            flip_ece: b.m_flip_ece.val(),
            ack_valid: b.m_ack_valid.val(),
            ack_flow: b.m_ack_flow.val().to_u32(),
            ack_count: b.m_ack_count.val().to_u32(),
            ack_ece: b.m_ack_ece.val(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "DCTCP_RX logic did not settle"
        );
        out
    }
}
