//! A pipelined multiplier from adders only, for the paths that must run at
//! 200 MHz on ECP5: yosys maps `*` to MULT18X18D there without its internal
//! registers, and the multiplier's own delay (about 4 ns at speed 8) plus
//! the routing into and out of it does not fit a 5 ns cycle.
//!
//! `p = a * b` for a `W`-bit `a` (at most 31 bits) and a 17-bit `b`, five
//! cycles after the operands: 17 rows `b[j] ? a : 0` summed in a binary tree
//! of adders, one level per cycle (17 -> 9 -> 5 -> 3 -> 2 -> 1), each adder
//! on operands already aligned so that no adder has more than `W + 17` bits.
//! A tag of `T` bits travels with the operands (the stage's flags); `rst`
//! clears the tag, not the sums.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PipeMul<const W: usize, const T: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high: clears the tag pipeline.
    pub rst: Signal<In, Bit>,
    pub a: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<17>>,
    pub tag: Signal<In, Bits<T>>,
    /// `a * b` of five cycles ago.
    pub p: Signal<Out, Bits<48>>,
    /// `tag` of five cycles ago.
    pub tag_out: Signal<Out, Bits<T>>,
    // Level 1.
    s1_0: DFF<Bits<48>>,
    s1_1: DFF<Bits<48>>,
    s1_2: DFF<Bits<48>>,
    s1_3: DFF<Bits<48>>,
    s1_4: DFF<Bits<48>>,
    s1_5: DFF<Bits<48>>,
    s1_6: DFF<Bits<48>>,
    s1_7: DFF<Bits<48>>,
    s1_8: DFF<Bits<48>>,
    // Level 2.
    s2_0: DFF<Bits<48>>,
    s2_1: DFF<Bits<48>>,
    s2_2: DFF<Bits<48>>,
    s2_3: DFF<Bits<48>>,
    s2_4: DFF<Bits<48>>,
    // Level 3.
    s3_0: DFF<Bits<48>>,
    s3_1: DFF<Bits<48>>,
    s3_2: DFF<Bits<48>>,
    // Level 4.
    s4_0: DFF<Bits<48>>,
    s4_1: DFF<Bits<48>>,
    s5: DFF<Bits<48>>,
    t1: DFF<Bits<T>>,
    t2: DFF<Bits<T>>,
    t3: DFF<Bits<T>>,
    t4: DFF<Bits<T>>,
    t5: DFF<Bits<T>>,
    a48: Signal<Local, Bits<48>>,
    r0: Signal<Local, Bits<48>>,
    r1: Signal<Local, Bits<48>>,
    r2: Signal<Local, Bits<48>>,
    r3: Signal<Local, Bits<48>>,
    r4: Signal<Local, Bits<48>>,
    r5: Signal<Local, Bits<48>>,
    r6: Signal<Local, Bits<48>>,
    r7: Signal<Local, Bits<48>>,
    r8: Signal<Local, Bits<48>>,
    r9: Signal<Local, Bits<48>>,
    r10: Signal<Local, Bits<48>>,
    r11: Signal<Local, Bits<48>>,
    r12: Signal<Local, Bits<48>>,
    r13: Signal<Local, Bits<48>>,
    r14: Signal<Local, Bits<48>>,
    r15: Signal<Local, Bits<48>>,
    r16: Signal<Local, Bits<48>>,
}

impl<const W: usize, const T: usize> Logic for PipeMul<W, T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, s1_0, s1_1, s1_2, s1_3, s1_4, s1_5, s1_6, s1_7, s1_8, s2_0, s2_1, s2_2,
            s2_3, s2_4, s3_0, s3_1, s3_2, s4_0, s4_1, s5, t1, t2, t3, t4, t5
        );
        self.a48.next = bit_cast::<48, W>(self.a.val());
        self.r0.next = 0.into();
        if self.b.val().get_bit(0) {
            self.r0.next = self.a48.val();
        }
        self.r1.next = 0.into();
        if self.b.val().get_bit(1) {
            self.r1.next = self.a48.val();
        }
        self.r2.next = 0.into();
        if self.b.val().get_bit(2) {
            self.r2.next = self.a48.val();
        }
        self.r3.next = 0.into();
        if self.b.val().get_bit(3) {
            self.r3.next = self.a48.val();
        }
        self.r4.next = 0.into();
        if self.b.val().get_bit(4) {
            self.r4.next = self.a48.val();
        }
        self.r5.next = 0.into();
        if self.b.val().get_bit(5) {
            self.r5.next = self.a48.val();
        }
        self.r6.next = 0.into();
        if self.b.val().get_bit(6) {
            self.r6.next = self.a48.val();
        }
        self.r7.next = 0.into();
        if self.b.val().get_bit(7) {
            self.r7.next = self.a48.val();
        }
        self.r8.next = 0.into();
        if self.b.val().get_bit(8) {
            self.r8.next = self.a48.val();
        }
        self.r9.next = 0.into();
        if self.b.val().get_bit(9) {
            self.r9.next = self.a48.val();
        }
        self.r10.next = 0.into();
        if self.b.val().get_bit(10) {
            self.r10.next = self.a48.val();
        }
        self.r11.next = 0.into();
        if self.b.val().get_bit(11) {
            self.r11.next = self.a48.val();
        }
        self.r12.next = 0.into();
        if self.b.val().get_bit(12) {
            self.r12.next = self.a48.val();
        }
        self.r13.next = 0.into();
        if self.b.val().get_bit(13) {
            self.r13.next = self.a48.val();
        }
        self.r14.next = 0.into();
        if self.b.val().get_bit(14) {
            self.r14.next = self.a48.val();
        }
        self.r15.next = 0.into();
        if self.b.val().get_bit(15) {
            self.r15.next = self.a48.val();
        }
        self.r16.next = 0.into();
        if self.b.val().get_bit(16) {
            self.r16.next = self.a48.val();
        }
        // Level 1: s1_i = (b[2i] + 2 b[2i+1]) a, weight 2^(2i); s1_8 = b[16] a, weight 2^16.
        self.s1_0.d.next = self.r0.val() + (self.r1.val() << 1);
        self.s1_1.d.next = self.r2.val() + (self.r3.val() << 1);
        self.s1_2.d.next = self.r4.val() + (self.r5.val() << 1);
        self.s1_3.d.next = self.r6.val() + (self.r7.val() << 1);
        self.s1_4.d.next = self.r8.val() + (self.r9.val() << 1);
        self.s1_5.d.next = self.r10.val() + (self.r11.val() << 1);
        self.s1_6.d.next = self.r12.val() + (self.r13.val() << 1);
        self.s1_7.d.next = self.r14.val() + (self.r15.val() << 1);
        self.s1_8.d.next = self.r16.val();
        // Level 2: weights 2^(4i); s2_4 carries s1_8 (weight 2^16).
        self.s2_0.d.next = self.s1_0.q.val() + (self.s1_1.q.val() << 2);
        self.s2_1.d.next = self.s1_2.q.val() + (self.s1_3.q.val() << 2);
        self.s2_2.d.next = self.s1_4.q.val() + (self.s1_5.q.val() << 2);
        self.s2_3.d.next = self.s1_6.q.val() + (self.s1_7.q.val() << 2);
        self.s2_4.d.next = self.s1_8.q.val();
        // Level 3: weights 2^(8i); s3_2 carries the 2^16 row.
        self.s3_0.d.next = self.s2_0.q.val() + (self.s2_1.q.val() << 4);
        self.s3_1.d.next = self.s2_2.q.val() + (self.s2_3.q.val() << 4);
        self.s3_2.d.next = self.s2_4.q.val();
        // Level 4: s4_0 weight 1, s4_1 the 2^16 row (already at weight 1 after the shift).
        self.s4_0.d.next = self.s3_0.q.val() + (self.s3_1.q.val() << 8);
        self.s4_1.d.next = self.s3_2.q.val() << 16;
        self.s5.d.next = self.s4_0.q.val() + self.s4_1.q.val();
        self.p.next = self.s5.q.val();
        // The tag, aligned with the product.
        self.t1.d.next = self.tag.val();
        self.t2.d.next = self.t1.q.val();
        self.t3.d.next = self.t2.q.val();
        self.t4.d.next = self.t3.q.val();
        self.t5.d.next = self.t4.q.val();
        if self.rst.val() {
            self.t1.d.next = 0.into();
            self.t2.d.next = 0.into();
            self.t3.d.next = 0.into();
            self.t4.d.next = 0.into();
            self.t5.d.next = 0.into();
        }
        self.tag_out.next = self.t5.q.val();
    }
}
