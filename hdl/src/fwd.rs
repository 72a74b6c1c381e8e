//! [`FwdTable`]: a per-flow table in block RAM that shows each read the
//! flow's word with every earlier write applied, so that a one-cycle loop
//! can update a flow in back-to-back cycles (II = 1).
//!
//! A [`PipeRam1`] gives a read's word five cycles after its address and
//! does not show writes issued in the two cycles before the read. A
//! pipeline whose loop reads a flow's word and writes it back therefore
//! needs the writes made since the read: this block keeps them and picks
//! the newest of the same flow, written once for every block (DCTCP_TX's
//! five tables use it).
//!
//! # Timing
//! - A read issued in cycle `c` (`rd_flow` during `c`) gives `view` during
//!   `c + 7` ([`VIEW_LATENCY`]): the word of that flow with every write
//!   issued in cycles up to `c + 6` applied, the newest last.
//! - A write is issued by `we`, `wflow`, `wword` during a cycle; any number
//!   of cycles may pass between a read and a write, and a write need not
//!   follow a read. Without any write to the flow since power-up the word
//!   is the RAM's (random at power-up: the user clears the table).
//!
//! So a loop that reads in `c`, uses `view` in `c + 7` and writes the new
//! word in that same cycle sees, in back-to-back cycles, the word its own
//! previous cycle wrote. A loop placed `k` cycles after `c + 7` (`view`
//! registered on the way) sees the writes up to `c + 6` only, and forwards
//! the last `k` itself (DCTCP_TX's cwnd table: `k = 3`).
//!
//! # Structure
//! - `c + 4`: the flow is compared with the writes issued in `c - 1 ..=
//!   c + 4` (records and the write port).
//! - `c + 5`: the RAM's word arrives: the newest match (records `r1 ..=
//!   r6`), else the RAM's word, and over it the write issued now (`c +
//!   5`) if of the same flow, is registered (`pre`, stage 6).
//! - `c + 6`: the write issued now (`c + 6`) if of the same flow, else
//!   `pre`, is registered.
//! - `c + 7`: `view` is that register, with no logic after it: a loop
//!   that reads `view` and writes back in the same cycle starts its carry
//!   chains at a flip-flop, and its write goes through one 2:1
//!   multiplexer (whose select is ready early) into the register. `pre`
//!   is a register too: a loop can compare the next read's word with its
//!   own candidates a cycle early.
//!
//! The compares on the write port are a path from the user's write logic
//! through an `FB`-bit compare into a register here; drive `wflow` and
//! `we` from registers (or little logic) for line rate. `wword` may be
//! late: it passes one multiplexer to a register.

use rust_hdl::prelude::*;

use crate::ram::PipeRam1;

/// Cycles from a read's flow to its `view`.
pub const VIEW_LATENCY: usize = 7;

/// Write records kept: the writes of the 6 cycles before the current one.
const RECORDS: usize = 6;

#[derive(LogicBlock, Default)]
pub struct FwdTable<const W: usize, const FB: usize> {
    pub clk: Signal<In, Clock>,
    /// The flow read this cycle.
    pub rd_flow: Signal<In, Bits<FB>>,
    /// A write this cycle.
    pub we: Signal<In, Bit>,
    pub wflow: Signal<In, Bits<FB>>,
    pub wword: Signal<In, Bits<W>>,
    /// The word of the flow read 7 cycles ago, every write before this
    /// cycle applied.
    pub view: Signal<Out, Bits<W>>,
    /// The word of the flow read 6 cycles ago, every write before this
    /// cycle applied (a register): `view` of the next cycle unless this
    /// cycle writes the same flow. A loop can compare with it a cycle
    /// early (DCTCP_TX's sequence loop).
    pub pre: Signal<Out, Bits<W>>,

    ram: PipeRam1<W, FB>,
    /// The read's flow at stages 1 to 6 (`f[k]` is stage `k + 1`).
    f: Vec<DFF<Bits<FB>>>,
    /// `r_*[k]`: the write issued `k + 1` cycles ago (the flows of the
    /// first five: the sixth's match is decided a cycle earlier).
    r_we: Vec<DFF<Bit>>,
    r_flow: Vec<DFF<Bits<FB>>>,
    r_word: Vec<DFF<Bits<W>>>,
    /// Stage 5: the read's flow matches `r_*[k]`.
    h: Vec<DFF<Bit>>,
    /// Stage 6: the word with the writes up to `c + 5`; stage 7: up to
    /// `c + 6` (the view).
    s6_pre: DFF<Bits<W>>,
    s7_view: DFF<Bits<W>>,
    /// Combinational, stage 5: the word with the writes up to `c + 4`.
    pre_d: Signal<Local, Bits<W>>,
}

impl<const W: usize, const FB: usize> FwdTable<W, FB> {
    pub fn new() -> Self {
        let bits = |n: usize| -> Vec<DFF<Bit>> { (0..n).map(|_| DFF::default()).collect() };
        Self {
            f: (0..6).map(|_| DFF::default()).collect(),
            r_we: bits(RECORDS - 1),
            r_flow: (0..RECORDS - 1).map(|_| DFF::default()).collect(),
            r_word: (0..RECORDS).map(|_| DFF::default()).collect(),
            h: bits(RECORDS),
            ..Default::default()
        }
    }
}

impl<const W: usize, const FB: usize> Logic for FwdTable<W, FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, s6_pre, s7_view);
        for k in 0..6 {
            self.f[k].clock.next = self.clk.val();
        }
        for k in 0..6 {
            self.r_word[k].clock.next = self.clk.val();
            self.h[k].clock.next = self.clk.val();
        }
        for k in 0..5 {
            self.r_we[k].clock.next = self.clk.val();
            self.r_flow[k].clock.next = self.clk.val();
        }
        self.ram.clock.next = self.clk.val();

        // The RAM: read now, write now.
        self.ram.read_address_a.next = self.rd_flow.val();
        self.ram.write_enable.next = self.we.val();
        self.ram.write_address.next = self.wflow.val();
        self.ram.write_data.next = self.wword.val();

        // The read's flow down the stages; the write records.
        self.f[0].d.next = self.rd_flow.val();
        for k in 1..6 {
            self.f[k].d.next = self.f[k - 1].q.val();
        }
        self.r_we[0].d.next = self.we.val();
        self.r_flow[0].d.next = self.wflow.val();
        self.r_word[0].d.next = self.wword.val();
        for k in 1..6 {
            self.r_word[k].d.next = self.r_word[k - 1].q.val();
        }
        for k in 1..5 {
            self.r_we[k].d.next = self.r_we[k - 1].q.val();
            self.r_flow[k].d.next = self.r_flow[k - 1].q.val();
        }

        // Stage 4 -> 5: the flow (f[3] is stage 4) compared with the
        // writes of `c + 4` (the port, `h[0]`) and `c + 3 ..= c - 1`.
        self.h[0].d.next = self.we.val() & (self.wflow.val() == self.f[3].q.val());
        for k in 1..6 {
            self.h[k].d.next =
                self.r_we[k - 1].q.val() & (self.r_flow[k - 1].q.val() == self.f[3].q.val());
        }
        // Stage 5 -> 6: the newest write of the flow among the records
        // (`h[k]` now names `r_word[k]`, the write of `c + 4 - k`), else the
        // RAM's word; the write of this cycle over all.
        self.pre_d.next = self.ram.read_data_a.val();
        for j in 0..6 {
            if self.h[5 - j].q.val() {
                self.pre_d.next = self.r_word[5 - j].q.val();
            }
        }
        self.s6_pre.d.next = self.pre_d.val();
        if self.we.val() & (self.wflow.val() == self.f[4].q.val()) {
            self.s6_pre.d.next = self.wword.val();
        }
        self.pre.next = self.s6_pre.q.val();

        // Stage 6 -> 7: the write of this cycle over the word.
        self.s7_view.d.next = self.s6_pre.q.val();
        if self.we.val() & (self.wflow.val() == self.f[5].q.val()) {
            self.s7_view.d.next = self.wword.val();
        }

        // Stage 7: the view.
        self.view.next = self.s7_view.q.val();
    }
}
