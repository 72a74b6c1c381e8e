//! [`TwoReadRam`]: a block RAM with one write port and two registered read
//! ports, built as two copies of rust-hdl's [`RAM`] (one read and one write
//! port each, the form yosys infers as block RAM) that take every write
//! together. Two copies written from one port cannot drift apart, which two
//! RAMs written by separate assignments could.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct TwoReadRam<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    /// Read port A: `read_data_a` is the word at `read_address_a` of the
    /// cycle before (a write in that cycle is not seen).
    pub read_address_a: Signal<In, Bits<N>>,
    pub read_data_a: Signal<Out, D>,
    /// Read port B, as A.
    pub read_address_b: Signal<In, Bits<N>>,
    pub read_data_b: Signal<Out, D>,
    copy_a: RAM<D, N>,
    copy_b: RAM<D, N>,
}

impl<D: Synth, const N: usize> Logic for TwoReadRam<D, N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.copy_a.read_clock.next = self.clock.val();
        self.copy_a.write_clock.next = self.clock.val();
        self.copy_b.read_clock.next = self.clock.val();
        self.copy_b.write_clock.next = self.clock.val();
        self.copy_a.write_address.next = self.write_address.val();
        self.copy_b.write_address.next = self.write_address.val();
        self.copy_a.write_data.next = self.write_data.val();
        self.copy_b.write_data.next = self.write_data.val();
        self.copy_a.write_enable.next = self.write_enable.val();
        self.copy_b.write_enable.next = self.write_enable.val();
        self.copy_a.read_address.next = self.read_address_a.val();
        self.copy_b.read_address.next = self.read_address_b.val();
        self.read_data_a.next = self.copy_a.read_data.val();
        self.read_data_b.next = self.copy_b.read_data.val();
    }
}
