//! PACER — per-flow rate enforcement: a token bucket per flow, refilled
//! lazily at each touch. The rule and the timing contract are specified in
//! `ccrtl_golden::pacer`; `docs/pacer.md` has the port, parameter and
//! register tables and the design notes.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits` in {4, 8, 12, 14}: `F = 2^FB` flows;
//! - `RS` = `refresh_bits` in {2, 6, 10}: one refresh cycle in `2^RS`;
//! - `TB` = `FB + RS + 1`: width of the stamps (every flow is touched at
//!   least every `2^(FB + RS)` cycles, so `now - stamp` modulo `2^TB` is
//!   exact);
//! - the reset values of the registers `bucket`, `byte_time`, `init_rate`.
//!
//! # Numbers
//! Tokens are Mb/s-cycles: a flow at `R` Mb/s earns `R` per cycle, a byte
//! costs `byte_time` (`8 x` the clock in MHz). A bucket holds at most
//! `D = bucket x byte_time < 2^31`; a flow's word keeps `T` in 31 bits, and
//! the clearing writes `2^31 - 1` (more than any `D`), so that a flow not
//! touched since the reset finds `min(D, T + earned) = D`, a full bucket.
//!
//! # Flow table (block RAM, [`PipeRam1`]: one read port)
//! `tok` (31 bits: `T`), `stm` (`TB` bits: the cycle of the loop stage of
//! the flow's last touch) and `rate` (20 bits: a valid bit and `R`). A read's
//! word comes five cycles after its address; a write is seen by reads
//! issued two cycles after it; a read issued the cycle after a write to its
//! address gets an undefined word. `tok`/`stm` are written by the loop (one
//! touch per cycle) and the clearing; `rate` by rate updates and the
//! clearing. `31 + TB + 20` bits of RAM per flow (76 with the defaults).
//!
//! # Touch pipeline (II = 1; a decision 16 cycles after its request)
//! A touch (an accepted request, or the refresh of a flow in a refresh
//! cycle, a request of 0 bytes with no decision) accepted in cycle `n` is
//! at stage `k` in cycle `n + k`; its tokens are decided at stage 15 (the
//! loop), where the RAM writes and the output registers are loaded.
//! - 0 (ports): the flow's words are read; `L x byte_time` and
//!   `bucket x byte_time` start in [`PipeMul`]s `ml`, `mb` (ready at 5);
//!   the rate update of the last cycle (which collides with the read) is
//!   compared with the flow.
//! - 1: the flow is compared with the 16 touches ahead of it: those at
//!   stages 2 to 15 (distance `d` = 1 to 14) and the records of the last
//!   two loops (`w1`, `w2`: `d` = 15, 16). A touch `d <= 16` ahead writes
//!   its word at or after the cycle before this read (`n + 15 - d >= n -
//!   1`), so the word read does not show it: its tokens are forwarded.
//! - 2: the newest such touch (smallest `d`): one-hot `h` and `d`.
//! - 5 (the words): `R` (forwarded, the RAM's, or `init_rate`), the age
//!   `n - m` of the RAM's stamp.
//! - 6: `Δ = d` if a touch is ahead, else the age; `R x Δ` starts in
//!   [`PipeMul`] `ma` (its low 17 bits of `R`; the two high bits here).
//! - 11: `a = R x Δ`, saturated at `2^31` (more than any `D`).
//! - 12: `T_ram + a`, and `D - a`, `a - C`, `C - a` for the loop (`C = L x
//!   byte_time`).
//! - 13: `min(D, T_ram + a)`; the tokens left by the touch `d >= 3` ahead,
//!   from record `w(d-2)` (AND-OR, one-hot).
//! - 14: `Y = min(D, X + a)` with `X` those tokens, or `w1` for `d = 2`; or
//!   the RAM's `min(D, T_ram + a)`.
//! - 14 also folds the signs of `D - a` and `C - a` into the bounds the
//!   loop compares with (0 for a negative bound), and makes the first 0
//!   unless `d = 1`.
//! - 15 (the loop): for `d = 1`, `X` is the last cycle's result (`w1`):
//!   `avail = min(D, X + a)` and `avail >= C` are found from `X` by four
//!   carry chains side by side (`X + a`, `X + (a - C)`, `X >= D - a`, `X >=
//!   C - a`) and one mux; otherwise `X >= 0` selects what the registers
//!   give, `Y >= C` (`Y - C`, off the loop). The result loops back only
//!   through `w1`.
//! - 16: `m_dec_*`.
//!
//! # Clearing and refresh
//! A reset writes flow 0 in its cycle and flows 1 to `F - 1` in the next
//! (`ready` low for `F` cycles): `T = 2^31 - 1`, rate invalid. Then, with
//! `j` counting cycles from 0, cycle `j` with `j mod 2^RS = 2^RS - 1` is a
//! refresh cycle (`s_req_ready` low) that touches flow `ptr`, which then
//! advances.

use ccrtl_golden::pacer::{PacerConfig, PacerIn, PacerOut, LATENCY};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::mul::PipeMul;
use crate::param::Param;
use crate::ram::PipeRam1;

#[derive(LogicBlock, Default)]
pub struct Pacer<const FB: usize, const RS: usize, const TB: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Transmit requests, one per cycle.
    pub s_req_valid: Signal<In, Bit>,
    /// Low while the flow table is cleared after a reset, and in refresh cycles.
    pub s_req_ready: Signal<Out, Bit>,
    pub s_req_flow: Signal<In, Bits<FB>>,
    /// The packet's length, bytes.
    pub s_req_bytes: Signal<In, Bits<16>>,
    // Rate updates (rp's m_rate_*).
    pub s_rate_valid: Signal<In, Bit>,
    /// Low while the flow table is cleared after a reset.
    pub s_rate_ready: Signal<Out, Bit>,
    pub s_rate_flow: Signal<In, Bits<FB>>,
    /// Mb/s.
    pub s_rate_rc: Signal<In, Bits<19>>,
    // Register writes, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<5>>,
    pub s_cfg_data: Signal<In, Bits<32>>,

    // Decisions, LATENCY cycles after their request.
    pub m_dec_valid: Signal<Out, Bit>,
    /// 0 when not valid.
    pub m_dec_flow: Signal<Out, Bits<FB>>,
    /// Send the packet now (0 when not valid).
    pub m_dec_grant: Signal<Out, Bit>,

    tok: PipeRam1<31, FB>,
    stm: PipeRam1<TB, FB>,
    rate: PipeRam1<20, FB>,
    // The products; their tags carry the touch's flags alongside (`ml`:
    // valid, `mb`: a request's, `ma`: valid again).
    ml: PipeMul<16, 1>,
    mb: PipeMul<17, 1>,
    ma: PipeMul<26, 1>,

    // Registers.
    bucket: DFF<Bits<17>>,
    byte_time: DFF<Bits<14>>,
    init_rate: DFF<Bits<19>>,
    // Time, the clearing, the refresh.
    now: DFF<Bits<TB>>,
    busy: DFF<Bit>,
    ptr: DFF<Bits<FB>>,
    sweep_q: DFF<Bit>,
    rc: DFF<Bits<RS>>,
    // The rate update of the last cycle.
    rw_valid: DFF<Bit>,
    rw_flow: DFF<Bits<FB>>,
    rw_rc: DFF<Bits<19>>,
    // Outputs.
    o_valid: DFF<Bit>,
    o_flow: DFF<Bits<FB>>,
    o_grant: DFF<Bit>,

    // Stages and records.
    p1_valid: DFF<Bit>,
    p1_flow: DFF<Bits<FB>>,
    p1_fr: DFF<Bit>,
    p1_frv: DFF<Bits<19>>,
    p1_init: DFF<Bits<19>>,
    p2_valid: DFF<Bit>,
    p2_flow: DFF<Bits<FB>>,
    p2_fr: DFF<Bit>,
    p2_frv: DFF<Bits<19>>,
    p2_init: DFF<Bits<19>>,
    p2_e: DFF<Bits<16>>,
    p3_valid: DFF<Bit>,
    p3_flow: DFF<Bits<FB>>,
    p3_fr: DFF<Bit>,
    p3_frv: DFF<Bits<19>>,
    p3_init: DFF<Bits<19>>,
    p3_hit: DFF<Bit>,
    p3_h: DFF<Bits<16>>,
    p3_d: DFF<Bits<5>>,
    p4_valid: DFF<Bit>,
    p4_flow: DFF<Bits<FB>>,
    p4_fr: DFF<Bit>,
    p4_frv: DFF<Bits<19>>,
    p4_init: DFF<Bits<19>>,
    p4_hit: DFF<Bit>,
    p4_h: DFF<Bits<16>>,
    p4_d: DFF<Bits<5>>,
    p5_valid: DFF<Bit>,
    p5_flow: DFF<Bits<FB>>,
    p5_fr: DFF<Bit>,
    p5_frv: DFF<Bits<19>>,
    p5_init: DFF<Bits<19>>,
    p5_hit: DFF<Bit>,
    p5_h: DFF<Bits<16>>,
    p5_d: DFF<Bits<5>>,
    p6_valid: DFF<Bit>,
    p6_out: DFF<Bit>,
    p6_flow: DFF<Bits<FB>>,
    p6_hit: DFF<Bit>,
    p6_h: DFF<Bits<16>>,
    p6_d: DFF<Bits<5>>,
    p6_rate: DFF<Bits<19>>,
    p6_age: DFF<Bits<TB>>,
    p6_tram: DFF<Bits<31>>,
    p6_lu: DFF<Bits<30>>,
    p6_bu: DFF<Bits<31>>,
    p7_valid: DFF<Bit>,
    p7_out: DFF<Bit>,
    p7_flow: DFF<Bits<FB>>,
    p7_hit: DFF<Bit>,
    p7_h: DFF<Bits<16>>,
    p7_d1: DFF<Bit>,
    p7_d2: DFF<Bit>,
    p7_tram: DFF<Bits<31>>,
    p7_lu: DFF<Bits<30>>,
    p7_bu: DFF<Bits<31>>,
    p7_hi: DFF<Bits<28>>,
    p8_valid: DFF<Bit>,
    p8_out: DFF<Bit>,
    p8_flow: DFF<Bits<FB>>,
    p8_hit: DFF<Bit>,
    p8_h: DFF<Bits<16>>,
    p8_d1: DFF<Bit>,
    p8_d2: DFF<Bit>,
    p8_tram: DFF<Bits<31>>,
    p8_lu: DFF<Bits<30>>,
    p8_bu: DFF<Bits<31>>,
    p8_hi: DFF<Bits<28>>,
    p9_valid: DFF<Bit>,
    p9_out: DFF<Bit>,
    p9_flow: DFF<Bits<FB>>,
    p9_hit: DFF<Bit>,
    p9_h: DFF<Bits<16>>,
    p9_d1: DFF<Bit>,
    p9_d2: DFF<Bit>,
    p9_tram: DFF<Bits<31>>,
    p9_lu: DFF<Bits<30>>,
    p9_bu: DFF<Bits<31>>,
    p9_hi: DFF<Bits<28>>,
    p10_valid: DFF<Bit>,
    p10_out: DFF<Bit>,
    p10_flow: DFF<Bits<FB>>,
    p10_hit: DFF<Bit>,
    p10_h: DFF<Bits<16>>,
    p10_d1: DFF<Bit>,
    p10_d2: DFF<Bit>,
    p10_tram: DFF<Bits<31>>,
    p10_lu: DFF<Bits<30>>,
    p10_bu: DFF<Bits<31>>,
    p10_hi: DFF<Bits<28>>,
    p11_valid: DFF<Bit>,
    p11_out: DFF<Bit>,
    p11_flow: DFF<Bits<FB>>,
    p11_hit: DFF<Bit>,
    p11_h: DFF<Bits<16>>,
    p11_d1: DFF<Bit>,
    p11_d2: DFF<Bit>,
    p11_tram: DFF<Bits<31>>,
    p11_lu: DFF<Bits<30>>,
    p11_bu: DFF<Bits<31>>,
    p11_hi: DFF<Bits<28>>,
    p12_valid: DFF<Bit>,
    p12_out: DFF<Bit>,
    p12_flow: DFF<Bits<FB>>,
    p12_hit: DFF<Bit>,
    p12_h: DFF<Bits<16>>,
    p12_d1: DFF<Bit>,
    p12_d2: DFF<Bit>,
    p12_tram: DFF<Bits<31>>,
    p12_lu: DFF<Bits<30>>,
    p12_bu: DFF<Bits<31>>,
    p12_a: DFF<Bits<32>>,
    p13_valid: DFF<Bit>,
    p13_out: DFF<Bit>,
    p13_flow: DFF<Bits<FB>>,
    p13_hit: DFF<Bit>,
    p13_h: DFF<Bits<16>>,
    p13_d1: DFF<Bit>,
    p13_d2: DFF<Bit>,
    p13_lu: DFF<Bits<30>>,
    p13_bu: DFF<Bits<31>>,
    p13_a: DFF<Bits<32>>,
    p13_sum: DFF<Bits<33>>,
    p13_bma: DFF<Bits<33>>,
    p13_aml: DFF<Bits<33>>,
    p13_lma: DFF<Bits<33>>,
    p14_valid: DFF<Bit>,
    p14_out: DFF<Bit>,
    p14_flow: DFF<Bits<FB>>,
    p14_hit: DFF<Bit>,
    p14_d1: DFF<Bit>,
    p14_d2: DFF<Bit>,
    p14_lu: DFF<Bits<30>>,
    p14_bu: DFF<Bits<31>>,
    p14_a: DFF<Bits<32>>,
    p14_bma: DFF<Bits<33>>,
    p14_aml: DFF<Bits<33>>,
    p14_lma: DFF<Bits<33>>,
    p14_aram: DFF<Bits<31>>,
    p14_xf: DFF<Bits<31>>,
    p14_bml: DFF<Bits<31>>,
    p14_gbl: DFF<Bit>,
    p15_valid: DFF<Bit>,
    p15_out: DFF<Bit>,
    p15_flow: DFF<Bits<FB>>,
    p15_d1: DFF<Bit>,
    p15_lu: DFF<Bits<30>>,
    p15_bu: DFF<Bits<31>>,
    p15_a: DFF<Bits<32>>,
    p15_bmc: DFF<Bits<31>>,
    p15_aml: DFF<Bits<33>>,
    p15_lmc: DFF<Bits<31>>,
    p15_bml: DFF<Bits<31>>,
    p15_gbl: DFF<Bit>,
    p15_y: DFF<Bits<31>>,
    w1: DFF<Bits<31>>,
    w2: DFF<Bits<31>>,
    w3: DFF<Bits<31>>,
    w4: DFF<Bits<31>>,
    w5: DFF<Bits<31>>,
    w6: DFF<Bits<31>>,
    w7: DFF<Bits<31>>,
    w8: DFF<Bits<31>>,
    w9: DFF<Bits<31>>,
    w10: DFF<Bits<31>>,
    w11: DFF<Bits<31>>,
    w12: DFF<Bits<31>>,
    w13: DFF<Bits<31>>,
    w14: DFF<Bits<31>>,
    w1_valid: DFF<Bit>,
    w1_flow: DFF<Bits<FB>>,
    w2_valid: DFF<Bit>,
    w2_flow: DFF<Bits<FB>>,

    // Combinational.
    refresh: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    rate_accept: Signal<Local, Bit>,
    flow0: Signal<Local, Bits<FB>>,
    bytes0: Signal<Local, Bits<16>>,
    delta: Signal<Local, Bits<26>>,
    afull: Signal<Local, Bits<48>>,
    x2: Signal<Local, Bits<31>>,
    cb2: Signal<Local, Bit>,
    s2sum: Signal<Local, Bits<31>>,
    yhit: Signal<Local, Bits<31>>,
    x1: Signal<Local, Bits<31>>,
    l_s1: Signal<Local, Bits<31>>,
    l_s2: Signal<Local, Bits<31>>,
    l_cb: Signal<Local, Bit>,
    l_cl: Signal<Local, Bit>,
    l_ym: Signal<Local, Bits<32>>,
    ynt: Signal<Local, Bits<31>>,
    yg: Signal<Local, Bit>,
    kk: Signal<Local, Bits<31>>,
    kg: Signal<Local, Bit>,
    grant: Signal<Local, Bit>,
    tnew: Signal<Local, Bits<31>>,
    sweep: Signal<Local, Bit>,

    reset_bucket: Param<Bits<17>>,
    reset_byte_time: Param<Bits<14>>,
    reset_init_rate: Param<Bits<19>>,
    rc_last: Param<Bits<RS>>,
    last_flow: Param<Bits<FB>>,
    /// The loop is 10 cycles after the words: age = now - stamp + 10.
    ten: Param<Bits<TB>>,
    full: Param<Bits<31>>,
    sat: Param<Bits<32>>,
    /// The rate word's valid bit.
    rate_set: Param<Bits<20>>,
}

impl<const FB: usize, const RS: usize, const TB: usize> Pacer<FB, RS, TB> {
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `FB`, `RS` equal to its shape and `TB = FB + RS + 1`.
    pub fn new(config: &PacerConfig) -> Self {
        assert_eq!(config.shape.flow_bits as usize, FB);
        assert_eq!(config.shape.refresh_bits as usize, RS);
        assert_eq!(config.shape.stamp_bits() as usize, TB);
        let r = &config.reset;
        Self {
            reset_bucket: Param::new((r.bucket as u64).to_bits()),
            reset_byte_time: Param::new((r.byte_time as u64).to_bits()),
            reset_init_rate: Param::new((r.init_rate as u64).to_bits()),
            rc_last: Param::new(((1u64 << RS) - 1).to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            ten: Param::new(10u64.to_bits()),
            full: Param::new(((1u64 << 31) - 1).to_bits()),
            sat: Param::new((1u64 << 31).to_bits()),
            rate_set: Param::new((1u64 << 19).to_bits()),
            ..Default::default()
        }
    }
}

impl<const FB: usize, const RS: usize, const TB: usize> Logic for Pacer<FB, RS, TB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, bucket, byte_time, init_rate, now, busy, ptr, sweep_q, rc, rw_valid,
            rw_flow, rw_rc, o_valid, o_flow, o_grant, p1_valid, p1_flow, p1_fr, p1_frv, p1_init,
            p2_valid, p2_flow, p2_fr, p2_frv, p2_init, p2_e, p3_valid, p3_flow, p3_fr, p3_frv,
            p3_init, p3_hit, p3_h, p3_d, p4_valid, p4_flow, p4_fr, p4_frv, p4_init, p4_hit, p4_h,
            p4_d, p5_valid, p5_flow, p5_fr, p5_frv, p5_init, p5_hit, p5_h, p5_d, p6_valid, p6_out,
            p6_flow, p6_hit, p6_h, p6_d, p6_rate, p6_age, p6_tram, p6_lu, p6_bu, p7_valid, p7_out,
            p7_flow, p7_hit, p7_h, p7_d1, p7_d2, p7_tram, p7_lu, p7_bu, p7_hi, p8_valid, p8_out,
            p8_flow, p8_hit, p8_h, p8_d1, p8_d2, p8_tram, p8_lu, p8_bu, p8_hi, p9_valid, p9_out,
            p9_flow, p9_hit, p9_h, p9_d1, p9_d2, p9_tram, p9_lu, p9_bu, p9_hi, p10_valid, p10_out,
            p10_flow, p10_hit, p10_h, p10_d1, p10_d2, p10_tram, p10_lu, p10_bu, p10_hi, p11_valid,
            p11_out, p11_flow, p11_hit, p11_h, p11_d1, p11_d2, p11_tram, p11_lu, p11_bu, p11_hi,
            p12_valid, p12_out, p12_flow, p12_hit, p12_h, p12_d1, p12_d2, p12_tram, p12_lu, p12_bu,
            p12_a, p13_valid, p13_out, p13_flow, p13_hit, p13_h, p13_d1, p13_d2, p13_lu, p13_bu,
            p13_a, p13_sum, p13_bma, p13_aml, p13_lma, p14_valid, p14_out, p14_flow, p14_hit,
            p14_d1, p14_d2, p14_lu, p14_bu, p14_a, p14_bma, p14_aml, p14_lma, p14_aram, p14_xf,
            p14_bml, p14_gbl, p15_valid, p15_out, p15_flow, p15_d1, p15_lu, p15_bu, p15_a, p15_bmc,
            p15_aml, p15_lmc, p15_bml, p15_gbl, p15_y, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10,
            w11, w12, w13, w14, w1_valid, w1_flow, w2_valid, w2_flow
        );
        self.tok.clock.next = self.clk.val();
        self.stm.clock.next = self.clk.val();
        self.rate.clock.next = self.clk.val();
        self.ml.clk.next = self.clk.val();
        self.mb.clk.next = self.clk.val();
        self.ma.clk.next = self.clk.val();
        self.ml.rst.next = self.rst.val();
        self.mb.rst.next = self.rst.val();
        self.ma.rst.next = self.rst.val();

        // ---- Stage 0: the ports -------------------------------------------------
        self.refresh.next = !self.busy.q.val() & (self.rc.q.val() == self.rc_last.val());
        self.accept.next =
            self.s_req_valid.val() & !self.busy.q.val() & !self.refresh.val() & !self.rst.val();
        self.rate_accept.next = self.s_rate_valid.val() & !self.busy.q.val() & !self.rst.val();
        self.flow0.next = self.s_req_flow.val();
        self.bytes0.next = self.s_req_bytes.val();
        if self.refresh.val() {
            self.flow0.next = self.ptr.q.val();
            self.bytes0.next = 0.into();
        }
        self.p1_valid.d.next = self.accept.val() | self.refresh.val();
        self.p1_flow.d.next = self.flow0.val();
        self.p1_fr.d.next = self.rw_valid.q.val() & (self.rw_flow.q.val() == self.flow0.val());
        self.p1_frv.d.next = self.rw_rc.q.val();
        self.p1_init.d.next = self.init_rate.q.val();
        self.tok.read_address_a.next = self.flow0.val();
        self.stm.read_address_a.next = self.flow0.val();
        self.rate.read_address_a.next = self.flow0.val();
        self.ml.a.next = self.bytes0.val();
        self.ml.b.next = bit_cast::<17, 14>(self.byte_time.q.val());
        self.ml.tag.next = (self.accept.val() | self.refresh.val()).into();
        self.mb.a.next = self.bucket.q.val();
        self.mb.b.next = bit_cast::<17, 14>(self.byte_time.q.val());
        self.mb.tag.next = self.accept.val().into();
        self.rw_valid.d.next = self.rate_accept.val();
        self.rw_flow.d.next = self.s_rate_flow.val();
        self.rw_rc.d.next = self.s_rate_rc.val();
        if self.s_cfg_valid.val() {
            if self.s_cfg_addr.val() == 0 {
                self.bucket.d.next = self.s_cfg_data.val().get_bits::<17>(0);
            }
            if self.s_cfg_addr.val() == 1 {
                self.byte_time.d.next = self.s_cfg_data.val().get_bits::<14>(0);
            }
            if self.s_cfg_addr.val() == 2 {
                self.init_rate.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
        }

        // ---- Stage 1: the flow against the 16 touches ahead ----------------------
        self.p2_valid.d.next = self.p1_valid.q.val();
        self.p2_flow.d.next = self.p1_flow.q.val();
        self.p2_fr.d.next = self.p1_fr.q.val();
        self.p2_frv.d.next = self.p1_frv.q.val();
        self.p2_init.d.next = self.p1_init.q.val();
        self.p2_e.d.next = (bit_cast::<16, 1>(
            (self.p2_valid.q.val() & (self.p2_flow.q.val() == self.p1_flow.q.val())).into(),
        ) << 0)
            | (bit_cast::<16, 1>(
                (self.p3_valid.q.val() & (self.p3_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 1)
            | (bit_cast::<16, 1>(
                (self.p4_valid.q.val() & (self.p4_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 2)
            | (bit_cast::<16, 1>(
                (self.p5_valid.q.val() & (self.p5_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 3)
            | (bit_cast::<16, 1>(
                (self.p6_valid.q.val() & (self.p6_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 4)
            | (bit_cast::<16, 1>(
                (self.p7_valid.q.val() & (self.p7_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 5)
            | (bit_cast::<16, 1>(
                (self.p8_valid.q.val() & (self.p8_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 6)
            | (bit_cast::<16, 1>(
                (self.p9_valid.q.val() & (self.p9_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 7)
            | (bit_cast::<16, 1>(
                (self.p10_valid.q.val() & (self.p10_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 8)
            | (bit_cast::<16, 1>(
                (self.p11_valid.q.val() & (self.p11_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 9)
            | (bit_cast::<16, 1>(
                (self.p12_valid.q.val() & (self.p12_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 10)
            | (bit_cast::<16, 1>(
                (self.p13_valid.q.val() & (self.p13_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 11)
            | (bit_cast::<16, 1>(
                (self.p14_valid.q.val() & (self.p14_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 12)
            | (bit_cast::<16, 1>(
                (self.p15_valid.q.val() & (self.p15_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 13)
            | (bit_cast::<16, 1>(
                (self.w1_valid.q.val() & (self.w1_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 14)
            | (bit_cast::<16, 1>(
                (self.w2_valid.q.val() & (self.w2_flow.q.val() == self.p1_flow.q.val())).into(),
            ) << 15);

        // ---- Stage 2: the newest touch ahead ---------------------------------------
        self.p3_valid.d.next = self.p2_valid.q.val();
        self.p3_flow.d.next = self.p2_flow.q.val();
        self.p3_fr.d.next = self.p2_fr.q.val();
        self.p3_frv.d.next = self.p2_frv.q.val();
        self.p3_init.d.next = self.p2_init.q.val();
        self.p3_hit.d.next = self.p2_e.q.val().any();
        self.p3_h.d.next = self.p2_e.q.val() & (!self.p2_e.q.val() + 1);
        self.p3_d.d.next = 0.into();
        if self.p2_e.q.val().get_bit(15) {
            self.p3_d.d.next = 16.into();
        }
        if self.p2_e.q.val().get_bit(14) {
            self.p3_d.d.next = 15.into();
        }
        if self.p2_e.q.val().get_bit(13) {
            self.p3_d.d.next = 14.into();
        }
        if self.p2_e.q.val().get_bit(12) {
            self.p3_d.d.next = 13.into();
        }
        if self.p2_e.q.val().get_bit(11) {
            self.p3_d.d.next = 12.into();
        }
        if self.p2_e.q.val().get_bit(10) {
            self.p3_d.d.next = 11.into();
        }
        if self.p2_e.q.val().get_bit(9) {
            self.p3_d.d.next = 10.into();
        }
        if self.p2_e.q.val().get_bit(8) {
            self.p3_d.d.next = 9.into();
        }
        if self.p2_e.q.val().get_bit(7) {
            self.p3_d.d.next = 8.into();
        }
        if self.p2_e.q.val().get_bit(6) {
            self.p3_d.d.next = 7.into();
        }
        if self.p2_e.q.val().get_bit(5) {
            self.p3_d.d.next = 6.into();
        }
        if self.p2_e.q.val().get_bit(4) {
            self.p3_d.d.next = 5.into();
        }
        if self.p2_e.q.val().get_bit(3) {
            self.p3_d.d.next = 4.into();
        }
        if self.p2_e.q.val().get_bit(2) {
            self.p3_d.d.next = 3.into();
        }
        if self.p2_e.q.val().get_bit(1) {
            self.p3_d.d.next = 2.into();
        }
        if self.p2_e.q.val().get_bit(0) {
            self.p3_d.d.next = 1.into();
        }
        self.p4_valid.d.next = self.p3_valid.q.val();
        self.p4_flow.d.next = self.p3_flow.q.val();
        self.p4_fr.d.next = self.p3_fr.q.val();
        self.p4_frv.d.next = self.p3_frv.q.val();
        self.p4_init.d.next = self.p3_init.q.val();
        self.p4_hit.d.next = self.p3_hit.q.val();
        self.p4_h.d.next = self.p3_h.q.val();
        self.p4_d.d.next = self.p3_d.q.val();
        self.p5_valid.d.next = self.p4_valid.q.val();
        self.p5_flow.d.next = self.p4_flow.q.val();
        self.p5_fr.d.next = self.p4_fr.q.val();
        self.p5_frv.d.next = self.p4_frv.q.val();
        self.p5_init.d.next = self.p4_init.q.val();
        self.p5_hit.d.next = self.p4_hit.q.val();
        self.p5_h.d.next = self.p4_h.q.val();
        self.p5_d.d.next = self.p4_d.q.val();

        // ---- Stage 5: the words ------------------------------------------------------
        self.p6_flow.d.next = self.p5_flow.q.val();
        self.p6_hit.d.next = self.p5_hit.q.val();
        self.p6_h.d.next = self.p5_h.q.val();
        self.p6_d.d.next = self.p5_d.q.val();
        // The touch's flags from the products' tags (they left stage 0 with it).
        self.p6_valid.d.next = self.ml.tag_out.val().any();
        self.p6_out.d.next = self.mb.tag_out.val().any();
        self.p6_rate.d.next = self.p5_init.q.val();
        if self.rate.read_data_a.val().get_bit(19) {
            self.p6_rate.d.next = self.rate.read_data_a.val().get_bits::<19>(0);
        }
        if self.p5_fr.q.val() {
            self.p6_rate.d.next = self.p5_frv.q.val();
        }
        self.p6_age.d.next = self.now.q.val() - self.stm.read_data_a.val() + self.ten.val();
        self.p6_tram.d.next = self.tok.read_data_a.val();
        self.p6_lu.d.next = self.ml.p.val().get_bits::<30>(0);
        self.p6_bu.d.next = self.mb.p.val().get_bits::<31>(0);

        // ---- Stage 6: R x Δ starts -----------------------------------------------------
        self.p7_valid.d.next = self.p6_valid.q.val();
        self.p7_out.d.next = self.p6_out.q.val();
        self.p7_flow.d.next = self.p6_flow.q.val();
        self.p7_hit.d.next = self.p6_hit.q.val();
        self.p7_h.d.next = self.p6_h.q.val();
        self.p7_tram.d.next = self.p6_tram.q.val();
        self.p7_lu.d.next = self.p6_lu.q.val();
        self.p7_bu.d.next = self.p6_bu.q.val();
        self.delta.next = bit_cast::<26, TB>(self.p6_age.q.val());
        if self.p6_hit.q.val() {
            self.delta.next = bit_cast::<26, 5>(self.p6_d.q.val());
        }
        self.ma.a.next = self.delta.val();
        self.ma.b.next = self.p6_rate.q.val().get_bits::<17>(0);
        self.ma.tag.next = self.p6_valid.q.val().into();
        self.p7_d1.d.next = self.p6_hit.q.val() & (self.p6_d.q.val() == 1);
        self.p7_d2.d.next = self.p6_hit.q.val() & (self.p6_d.q.val() == 2);
        self.p7_hi.d.next = 0.into();
        if self.p6_rate.q.val().get_bit(17) & !self.p6_rate.q.val().get_bit(18) {
            self.p7_hi.d.next = bit_cast::<28, 26>(self.delta.val());
        }
        if !self.p6_rate.q.val().get_bit(17) & self.p6_rate.q.val().get_bit(18) {
            self.p7_hi.d.next = bit_cast::<28, 26>(self.delta.val()) << 1;
        }
        if self.p6_rate.q.val().get_bit(17) & self.p6_rate.q.val().get_bit(18) {
            self.p7_hi.d.next =
                bit_cast::<28, 26>(self.delta.val()) + (bit_cast::<28, 26>(self.delta.val()) << 1);
        }
        self.p8_valid.d.next = self.p7_valid.q.val();
        self.p8_out.d.next = self.p7_out.q.val();
        self.p8_flow.d.next = self.p7_flow.q.val();
        self.p8_hit.d.next = self.p7_hit.q.val();
        self.p8_h.d.next = self.p7_h.q.val();
        self.p8_d1.d.next = self.p7_d1.q.val();
        self.p8_d2.d.next = self.p7_d2.q.val();
        self.p8_tram.d.next = self.p7_tram.q.val();
        self.p8_lu.d.next = self.p7_lu.q.val();
        self.p8_bu.d.next = self.p7_bu.q.val();
        self.p8_hi.d.next = self.p7_hi.q.val();
        self.p9_valid.d.next = self.p8_valid.q.val();
        self.p9_out.d.next = self.p8_out.q.val();
        self.p9_flow.d.next = self.p8_flow.q.val();
        self.p9_hit.d.next = self.p8_hit.q.val();
        self.p9_h.d.next = self.p8_h.q.val();
        self.p9_d1.d.next = self.p8_d1.q.val();
        self.p9_d2.d.next = self.p8_d2.q.val();
        self.p9_tram.d.next = self.p8_tram.q.val();
        self.p9_lu.d.next = self.p8_lu.q.val();
        self.p9_bu.d.next = self.p8_bu.q.val();
        self.p9_hi.d.next = self.p8_hi.q.val();
        self.p10_valid.d.next = self.p9_valid.q.val();
        self.p10_out.d.next = self.p9_out.q.val();
        self.p10_flow.d.next = self.p9_flow.q.val();
        self.p10_hit.d.next = self.p9_hit.q.val();
        self.p10_h.d.next = self.p9_h.q.val();
        self.p10_d1.d.next = self.p9_d1.q.val();
        self.p10_d2.d.next = self.p9_d2.q.val();
        self.p10_tram.d.next = self.p9_tram.q.val();
        self.p10_lu.d.next = self.p9_lu.q.val();
        self.p10_bu.d.next = self.p9_bu.q.val();
        self.p10_hi.d.next = self.p9_hi.q.val();
        self.p11_valid.d.next = self.p10_valid.q.val();
        self.p11_out.d.next = self.p10_out.q.val();
        self.p11_flow.d.next = self.p10_flow.q.val();
        self.p11_hit.d.next = self.p10_hit.q.val();
        self.p11_h.d.next = self.p10_h.q.val();
        self.p11_d1.d.next = self.p10_d1.q.val();
        self.p11_d2.d.next = self.p10_d2.q.val();
        self.p11_tram.d.next = self.p10_tram.q.val();
        self.p11_lu.d.next = self.p10_lu.q.val();
        self.p11_bu.d.next = self.p10_bu.q.val();
        self.p11_hi.d.next = self.p10_hi.q.val();

        // ---- Stage 11: a = R x Δ, saturated ---------------------------------------------
        self.p12_out.d.next = self.p11_out.q.val();
        self.p12_flow.d.next = self.p11_flow.q.val();
        self.p12_hit.d.next = self.p11_hit.q.val();
        self.p12_h.d.next = self.p11_h.q.val();
        self.p12_d1.d.next = self.p11_d1.q.val();
        self.p12_d2.d.next = self.p11_d2.q.val();
        self.p12_tram.d.next = self.p11_tram.q.val();
        self.p12_lu.d.next = self.p11_lu.q.val();
        self.p12_bu.d.next = self.p11_bu.q.val();
        self.p12_valid.d.next = self.ma.tag_out.val().any();
        self.afull.next = self.ma.p.val() + (bit_cast::<48, 28>(self.p11_hi.q.val()) << 17);
        self.p12_a.d.next = self.afull.val().get_bits::<32>(0);
        if self.afull.val().get_bits::<17>(31).any() {
            self.p12_a.d.next = self.sat.val();
        }

        // ---- Stage 12: sums for the RAM's path and the loop -------------------------------
        self.p13_valid.d.next = self.p12_valid.q.val();
        self.p13_out.d.next = self.p12_out.q.val();
        self.p13_flow.d.next = self.p12_flow.q.val();
        self.p13_hit.d.next = self.p12_hit.q.val();
        self.p13_h.d.next = self.p12_h.q.val();
        self.p13_d1.d.next = self.p12_d1.q.val();
        self.p13_d2.d.next = self.p12_d2.q.val();
        self.p13_lu.d.next = self.p12_lu.q.val();
        self.p13_bu.d.next = self.p12_bu.q.val();
        self.p13_a.d.next = self.p12_a.q.val();
        self.p13_sum.d.next =
            bit_cast::<33, 31>(self.p12_tram.q.val()) + bit_cast::<33, 32>(self.p12_a.q.val());
        self.p13_bma.d.next =
            bit_cast::<33, 31>(self.p12_bu.q.val()) - bit_cast::<33, 32>(self.p12_a.q.val());
        self.p13_aml.d.next =
            bit_cast::<33, 32>(self.p12_a.q.val()) - bit_cast::<33, 30>(self.p12_lu.q.val());
        self.p13_lma.d.next =
            bit_cast::<33, 30>(self.p12_lu.q.val()) - bit_cast::<33, 32>(self.p12_a.q.val());

        // ---- Stage 13: the RAM's avail; the tokens of the touch d >= 3 ahead ---------------
        self.p14_valid.d.next = self.p13_valid.q.val();
        self.p14_out.d.next = self.p13_out.q.val();
        self.p14_flow.d.next = self.p13_flow.q.val();
        self.p14_hit.d.next = self.p13_hit.q.val();
        self.p14_d1.d.next = self.p13_d1.q.val();
        self.p14_d2.d.next = self.p13_d2.q.val();
        self.p14_lu.d.next = self.p13_lu.q.val();
        self.p14_bu.d.next = self.p13_bu.q.val();
        self.p14_a.d.next = self.p13_a.q.val();
        self.p14_bma.d.next = self.p13_bma.q.val();
        self.p14_aml.d.next = self.p13_aml.q.val();
        self.p14_lma.d.next = self.p13_lma.q.val();
        self.p14_aram.d.next = self.p13_sum.q.val().get_bits::<31>(0);
        if self.p13_sum.q.val() >= bit_cast::<33, 31>(self.p13_bu.q.val()) {
            self.p14_aram.d.next = self.p13_bu.q.val();
        }
        self.p14_xf.d.next = (self.w1.q.val()
            & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(2).into())))
            | (self.w2.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(3).into())))
            | (self.w3.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(4).into())))
            | (self.w4.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(5).into())))
            | (self.w5.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(6).into())))
            | (self.w6.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(7).into())))
            | (self.w7.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(8).into())))
            | (self.w8.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(9).into())))
            | (self.w9.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(10).into())))
            | (self.w10.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(11).into())))
            | (self.w11.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(12).into())))
            | (self.w12.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(13).into())))
            | (self.w13.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(14).into())))
            | (self.w14.q.val()
                & (Bits::<31>::from(0) - bit_cast::<31, 1>(self.p13_h.q.val().get_bit(15).into())));
        self.p14_bml.d.next = self.p13_bu.q.val() - bit_cast::<31, 30>(self.p13_lu.q.val());
        self.p14_gbl.d.next = self.p13_bu.q.val() >= bit_cast::<31, 30>(self.p13_lu.q.val());

        // ---- Stage 14: Y = avail unless the touch one ahead decides it ---------------------
        self.p15_valid.d.next = self.p14_valid.q.val();
        self.p15_out.d.next = self.p14_out.q.val();
        self.p15_flow.d.next = self.p14_flow.q.val();
        self.p15_d1.d.next = self.p14_d1.q.val();
        self.p15_lu.d.next = self.p14_lu.q.val();
        self.p15_bu.d.next = self.p14_bu.q.val();
        self.p15_a.d.next = self.p14_a.q.val();
        self.p15_aml.d.next = self.p14_aml.q.val();
        // The loop's two compares with their signs folded in (a negative
        // bound is passed by any tokens: 0), so that each is one carry
        // chain: `D - a` for `d = 1` (< 2^31 when not negative), and 0
        // otherwise, so that `l_cb` is high and the loop takes the tokens
        // decided from `Y` (`kk`); `C - a` (< 2^30 when not negative).
        self.p15_bmc.d.next = self.p14_bma.q.val().get_bits::<31>(0);
        if self.p14_bma.q.val().get_bit(32) | !self.p14_d1.q.val() {
            self.p15_bmc.d.next = 0.into();
        }
        self.p15_lmc.d.next = self.p14_lma.q.val().get_bits::<31>(0);
        if self.p14_lma.q.val().get_bit(32) {
            self.p15_lmc.d.next = 0.into();
        }
        self.p15_bml.d.next = self.p14_bml.q.val();
        self.p15_gbl.d.next = self.p14_gbl.q.val();
        self.x2.next = self.p14_xf.q.val();
        if self.p14_d2.q.val() {
            self.x2.next = self.w1.q.val();
        }
        self.cb2.next = self.p14_bma.q.val().get_bit(32)
            | (bit_cast::<33, 31>(self.x2.val()) >= self.p14_bma.q.val());
        // Read only below the depth (< 2^31): the sum modulo 2^31.
        self.s2sum.next = self.x2.val() + self.p14_a.q.val().get_bits::<31>(0);
        self.yhit.next = self.s2sum.val();
        if self.cb2.val() {
            self.yhit.next = self.p14_bu.q.val();
        }
        self.p15_y.d.next = self.p14_aram.q.val();
        if self.p14_hit.q.val() {
            self.p15_y.d.next = self.yhit.val();
        }

        // ---- Stage 15: the loop -----------------------------------------------------------------
        // Off the loop (from registers): the decision from `Y`, and the
        // tokens `l_cb` selects, `Y`'s or, for `d = 1`, the capped bucket's.
        self.l_ym.next =
            bit_cast::<32, 31>(self.p15_y.q.val()) - bit_cast::<32, 30>(self.p15_lu.q.val());
        self.yg.next = !self.l_ym.val().get_bit(31);
        self.ynt.next = self.p15_y.q.val();
        if self.yg.val() {
            self.ynt.next = self.l_ym.val().get_bits::<31>(0);
        }
        self.kg.next = self.yg.val();
        self.kk.next = self.ynt.val();
        if self.p15_d1.q.val() {
            self.kg.next = self.p15_gbl.q.val();
            self.kk.next = self.p15_bu.q.val();
            if self.p15_gbl.q.val() {
                self.kk.next = self.p15_bml.q.val();
            }
        }
        // The loop: the last cycle's tokens `X` into four carry chains side
        // by side and a mux. Read only below the depth (< 2^31): the sums
        // modulo 2^31.
        self.x1.next = self.w1.q.val();
        self.l_s1.next = self.x1.val() + self.p15_a.q.val().get_bits::<31>(0);
        self.l_s2.next = self.x1.val() + self.p15_aml.q.val().get_bits::<31>(0);
        self.l_cb.next = self.x1.val() >= self.p15_bmc.q.val();
        self.l_cl.next = self.x1.val() >= self.p15_lmc.q.val();
        self.grant.next = self.l_cl.val();
        self.tnew.next = self.l_s1.val();
        if self.l_cl.val() {
            self.tnew.next = self.l_s2.val();
        }
        if self.l_cb.val() {
            self.grant.next = self.kg.val();
            self.tnew.next = self.kk.val();
        }
        self.w1.d.next = self.tnew.val();
        self.w1_valid.d.next = self.p15_valid.q.val();
        self.w1_flow.d.next = self.p15_flow.q.val();
        self.w2.d.next = self.w1.q.val();
        self.w3.d.next = self.w2.q.val();
        self.w4.d.next = self.w3.q.val();
        self.w5.d.next = self.w4.q.val();
        self.w6.d.next = self.w5.q.val();
        self.w7.d.next = self.w6.q.val();
        self.w8.d.next = self.w7.q.val();
        self.w9.d.next = self.w8.q.val();
        self.w10.d.next = self.w9.q.val();
        self.w11.d.next = self.w10.q.val();
        self.w12.d.next = self.w11.q.val();
        self.w13.d.next = self.w12.q.val();
        self.w14.d.next = self.w13.q.val();
        self.w2_valid.d.next = self.w1_valid.q.val();
        self.w2_flow.d.next = self.w1_flow.q.val();
        self.o_valid.d.next = self.p15_valid.q.val() & self.p15_out.q.val();
        self.o_flow.d.next = 0.into();
        self.o_grant.d.next = false;
        if self.p15_valid.q.val() & self.p15_out.q.val() {
            self.o_flow.d.next = self.p15_flow.q.val();
            self.o_grant.d.next = self.grant.val();
        }

        // ---- RAM writes: the loop, rate updates, or the clearing ------------------------------
        self.sweep.next = self.rst.val() | self.sweep_q.q.val();
        self.tok.write_address.next = self.p15_flow.q.val();
        self.tok.write_data.next = self.tnew.val();
        self.tok.write_enable.next = self.p15_valid.q.val() | self.sweep.val();
        self.stm.write_address.next = self.p15_flow.q.val();
        self.stm.write_data.next = self.now.q.val();
        self.stm.write_enable.next = self.p15_valid.q.val() | self.sweep.val();
        self.rate.write_address.next = self.s_rate_flow.val();
        self.rate.write_data.next = bit_cast::<20, 19>(self.s_rate_rc.val()) | self.rate_set.val();
        self.rate.write_enable.next = self.rate_accept.val() | self.sweep.val();
        if self.sweep.val() {
            self.tok.write_address.next = self.ptr.q.val();
            self.tok.write_data.next = self.full.val();
            self.stm.write_address.next = self.ptr.q.val();
            self.stm.write_data.next = 0.into();
            self.rate.write_address.next = self.ptr.q.val();
            self.rate.write_data.next = 0.into();
        }
        if self.rst.val() {
            self.tok.write_address.next = 0.into();
            self.stm.write_address.next = 0.into();
            self.rate.write_address.next = 0.into();
        }

        // ---- Time, the clearing, the refresh --------------------------------------------------
        self.now.d.next = self.now.q.val() + 1;
        self.rc.d.next = self.rc.q.val() + 1;
        if self.busy.q.val() {
            self.rc.d.next = 0.into();
            if self.ptr.q.val() == 0 {
                self.busy.d.next = false;
            } else {
                self.ptr.d.next = self.ptr.q.val() + 1;
            }
        }
        if self.refresh.val() {
            self.ptr.d.next = self.ptr.q.val() + 1;
        }
        self.sweep_q.d.next = self.sweep_q.q.val() & (self.ptr.q.val() != self.last_flow.val());

        // ---- Reset wins over every load --------------------------------------------------------
        if self.rst.val() {
            self.bucket.d.next = self.reset_bucket.val();
            self.byte_time.d.next = self.reset_byte_time.val();
            self.init_rate.d.next = self.reset_init_rate.val();
            self.now.d.next = 0.into();
            self.busy.d.next = true;
            self.ptr.d.next = 1.into();
            self.sweep_q.d.next = true;
            self.o_valid.d.next = false;
            self.o_flow.d.next = 0.into();
            self.o_grant.d.next = false;
            // The touches in flight: the products' tags are cleared, so no
            // touch leaves stage 5 or stage 11 after this cycle; stages 6
            // and 12 (loaded from the tags in this cycle) and 13 to 15 are
            // cleared here. (Stages 1 to 5 and 7 to 11 and the records feed
            // only the compares of later touches, and the first touch after
            // the clearing comes F >= 16 cycles later, when they are gone;
            // the rate update of a reset cycle is not accepted.)
            self.p6_valid.d.next = false;
            self.p12_valid.d.next = false;
            self.p13_valid.d.next = false;
            self.p14_valid.d.next = false;
            self.p15_valid.d.next = false;
        }

        self.s_req_ready.next = !self.busy.q.val() & (self.rc.q.val() != self.rc_last.val());
        self.s_rate_ready.next = !self.busy.q.val();
        self.m_dec_valid.next = self.o_valid.q.val();
        self.m_dec_flow.next = self.o_flow.q.val();
        self.m_dec_grant.next = self.o_grant.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// rust-hdl's Verilog for PACER, as `generate_verilog` writes it.
pub fn raw_verilog(config: &PacerConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($f:literal, $r:literal, $t:tt) => {{
            let mut b = Pacer::<$f, $r, $t>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_pacer_shape!(config.shape, make))
}

/// The signals of PACER's top module left unread on purpose, with the
/// reasons (docs/lint.md), waived wherever the module is emitted.
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("ml$p", "bits 47:30: L x byte_time < 2^30 (16 x 14 bits)"),
    (
        "mb$p",
        "bits 47:31: bucket x byte_time < 2^31 (17 x 14 bits)",
    ),
    (
        "s_cfg_data",
        "bits 31:19: the register port carries 32-bit words, PACER's widest register is 19 bits",
    ),
];

/// The finished Verilog file for PACER.
pub fn verilog(config: &PacerConfig) -> Result<String, ParamError> {
    let raw = crate::emit::waive_unused(&raw_verilog(config)?, LINT_WAIVERS);
    let s = &config.shape;
    let r = &config.reset;
    let params = [
        ("flow_bits", s.flow_bits.to_string()),
        ("refresh_bits", s.refresh_bits.to_string()),
        ("stamp_bits", format!("{} (derived)", s.stamp_bits())),
        ("reset.bucket", format!("{} bytes", r.bucket)),
        (
            "reset.byte_time",
            format!("{} cycles per byte at 1 Mb/s", r.byte_time),
        ),
        ("reset.init_rate", format!("{} Mb/s", r.init_rate)),
    ];
    Ok(crate::emit::finish(
        "pacer",
        "per-flow rate enforcement: a token bucket per flow, refilled lazily",
        &format!(
            "II = 1 (but one refresh cycle in 2^refresh_bits); a decision {LATENCY} cycles after its request; ready low for 2^flow_bits cycles after reset"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl PACER block for a configuration.
pub fn sim(
    config: &PacerConfig,
) -> Result<Box<dyn crate::sim::CycleSim<PacerIn, PacerOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($f:literal, $r:literal, $t:tt) => {{
            let mut b = Pacer::<$f, $r, $t>::new(config);
            b.connect_all();
            Box::new(PacerSim(b)) as Box<dyn crate::sim::CycleSim<PacerIn, PacerOut>>
        }};
    }
    Ok(crate::dispatch_pacer_shape!(config.shape, make))
}

struct PacerSim<const FB: usize, const RS: usize, const TB: usize>(Pacer<FB, RS, TB>);

impl<const FB: usize, const RS: usize, const TB: usize> crate::sim::CycleSim<PacerIn, PacerOut>
    for PacerSim<FB, RS, TB>
{
    fn cycle(&mut self, i: &PacerIn) -> PacerOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_req_valid.next = i.req_valid;
        b.s_req_flow.next = (i.req_flow as u64).to_bits();
        b.s_req_bytes.next = (i.req_bytes as u64).to_bits();
        b.s_rate_valid.next = i.rate_valid;
        b.s_rate_flow.next = (i.rate_flow as u64).to_bits();
        b.s_rate_rc.next = (i.rate_rc as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = (i.cfg_addr as u64).to_bits();
        b.s_cfg_data.next = (i.cfg_data as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "PACER logic did not settle"
        );
        let out = PacerOut {
            req_ready: b.s_req_ready.val(),
            rate_ready: b.s_rate_ready.val(),
            dec_valid: b.m_dec_valid.val(),
            dec_flow: b.m_dec_flow.val().to_u32(),
            dec_grant: b.m_dec_grant.val(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "PACER logic did not settle"
        );
        out
    }
}

/// The ports of PACER for a validated configuration, read from the struct.
pub fn ports(config: &PacerConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($f:literal, $r:literal, $t:tt) => {{
            crate::ports::ports_of(&Pacer::<$f, $r, $t>::new(config))
        }};
    }
    crate::dispatch_pacer_shape!(config.shape, make)
}

/// Expands `$make!(FB, RS, TB)` for the run-time shape `$shape`, over every
/// (flow_bits, refresh_bits) of the menu in `ccrtl_golden::pacer_shape_menu!`
/// (the one place the menu is written). The shape must be validated.
#[macro_export]
macro_rules! dispatch_pacer_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::pacer_shape_menu!([$crate::pacer_dispatch_flows] ; $shape, $make)
    };
}

/// One match arm per flow width of the menu (used by `dispatch_pacer_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! pacer_dispatch_flows {
    (($shape:expr, $make:ident) ; [$($f:literal),*] ; $refresh:tt) => {{
        let shape = $shape;
        match shape.flow_bits {
            $($f => $crate::pacer_dispatch_refresh!(shape, $make, $f, $refresh),)*
            f => unreachable!("flow_bits {f} passed validation but has no instance"),
        }
    }};
}

/// One match arm per refresh width of the menu (used by `dispatch_pacer_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! pacer_dispatch_refresh {
    ($shape:ident, $make:ident, $f:literal, [$($r:literal),*]) => {
        match $shape.refresh_bits {
            $($r => $crate::own_frame(|| $make!($f, $r, { $f + $r + 1 })),)*
            r => unreachable!("refresh_bits {r} passed validation but has no instance"),
        }
    };
}
