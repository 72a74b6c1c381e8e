//! TIMELY — per-flow rate control from RTT samples (seed 003). The rule and
//! the timing contract are specified in `ccrtl_golden::timely`;
//! `docs/timely.md` has the port and register tables and the design notes.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits` in {4, 8, 12, 16}: `F = 2^FB` flows;
//! - the reset values of the eleven registers.
//!
//! # Three loops, four tables
//! Only `avg`, `neg` and the rate loop from one event of a flow to the
//! next; `prev_rtt` and `last_time` are the previous event's inputs. Every
//! product feeds forward. The tables are [`FwdTable`]s (a block RAM whose
//! read, seven cycles later, shows every earlier write):
//! - `t1`: `{last_time, prev_rtt, seen}` (57 bits), read at stage 0, its
//!   "loop" (the previous event's inputs) at stage 7;
//! - `t2`: `{neg, avg}` (41 bits), read at 2, the `avg` and `neg` loops at 9;
//! - `ra`: the rate (31 bits), read at 12: its view at 19, with the write of
//!   the event 4 ahead taken from the loop's write register, is the rate
//!   after the flow's events up to 4 cycles before, the decrease's operand
//!   (`LAG = 4`: operand select at 19, partial products at 20, their sum at
//!   21, the loop at 22);
//! - `rb`: the rate again, read at 14: at 21 its view (every write issued
//!   before that cycle), the new rate of the event then at 22 or of the one
//!   before it (its write register), or `init_rate` for a first event, is
//!   registered as the loop's start value (`l_old`), so that the loop
//!   starts at a flip-flop with no multiplexer before its carry chains.
//!   Both tables are written at 23 from the loop's registered new rate.
//!
//! # Pipeline (II = 1, latency 23), stage `k` is cycle `n + k`
//! - 0: the ports; `t1` read; the registers in force captured.
//! - 1: `rtt < t_low`, `rtt > t_high`, `rtt - t_high`; the two reciprocals
//!   start (`recip(rtt)`, `recip(min_rtt)`: normalise 1-2, ROM 3-4,
//!   interpolation 5-7, out at 8); `hai_n * ai` (1-2).
//! - 7: `t1`'s view: first event, `diff`, `dt`; `t1` written.
//! - 8: `(diff << 12) >> k`; `dt >= min_rtt`; products `dt * y_m` and
//!   `(rtt - t_high) * y_r` (8 to 10, out at 11).
//! - 9: the `avg` and `neg` loops; `t2` written.
//! - 10: the branch, HAI, `m * ai`, `|avg|`.
//! - 11: `|avg| * y_m` (11 to 13); the shifts of `delta` and `u`.
//! - 12: `delta`, `u` saturated. 13: `u * beta`, `m ai * delta` (13 to 15).
//! - 14, 15: `grad`'s shift and saturation. 16: `v * delta`, `grad * beta`
//!   (16 to 18); `inc`.
//! - 19: `x_high`, `x_grad` saturated and selected; the decrease's
//!   operand (`ra`'s view, or `init_rate` for a flow whose first event since
//!   the reset is one of the last three).
//! - 20: `rate_lag * x`'s partial products; 21: their sum, rounded: `dec`.
//! - 21: the loop's start value of the next event (`l_old`).
//! - 22: the rate loop: seven carry chains from `old` and registers chosen
//!   at 21 by the branch (the new value, the half, the half's test, four
//!   clamp tests), then one of four terms selected; the outputs
//!   registered. 23: `ra`, `rb` written.
//!
//! # Registers
//! The registers in force in the acceptance cycle are captured with the
//! event at stage 1 and carried as far as each is used.
//!
//! # Clearing after reset
//! The seen bits (`t1`) are cleared as DCTCP_TX's: flow 0 in the reset
//! cycle, flows 1 to `F - 1` in the next cycles, `s_ev_ready` low
//! meanwhile. The other tables need no clearing: a flow's first event
//! writes them without reading.

use ccrtl_golden::timely::{
    TimelyConfig, TimelyIn, TimelyOut, LATENCY, RECIP_TABLE,
};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::fwd::FwdTable;
use crate::param::Param;

/// Stages carried: index `k - 1` for stage `k` (1 ..= 22).
const S: usize = 22;

// ---- the reciprocal ROM -------------------------------------------------------

/// The reciprocal table's ROM: word `i` (`0 ..= 511`) holds `T[i]` (18 bits)
/// and the slope `T[i] - T[i + 1]` (9 bits, above). Registered read: an
/// address during cycle `c` gives its word during `c + 1`.
#[derive(LogicBlock, Default)]
pub struct RecipRom {
    pub clock: Signal<In, Clock>,
    pub address: Signal<In, Bits<9>>,
    pub data: Signal<Out, Bits<27>>,
}

/// The ROM's word `i`.
pub fn rom_word(i: usize) -> u64 {
    let t = RECIP_TABLE[i] as u64;
    let slope = (RECIP_TABLE[i] - RECIP_TABLE[i + 1]) as u64;
    t | (slope << 18)
}

impl Logic for RecipRom {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.data.next = rom_word(self.address.val().to_u64() as usize).to_bits();
        }
    }
    fn connect(&mut self) {
        self.data.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(posedge clock) begin\n   case (address)\n");
        for i in 0..512 {
            v += &format!("      9'd{i}: data <= 27'h{:07x};\n", rom_word(i));
        }
        v += "   endcase\nend\n";
        Verilog::Custom(v)
    }
}

// ---- the reciprocal pipeline -----------------------------------------------

/// `recip(x)` (`ccrtl_golden::timely::recip`) of an `x` presented in cycle
/// `c`, out during `c + 7`: `max(x, 1)` (`c + 1`), the leading-zero
/// normalisation in two steps (`c + 2`, `c + 3`), the ROM (address from a
/// register, word at `c + 5` after its own and an output register), the
/// interpolation's `9 x 14` product (`c + 6`) and the difference (`c + 7`).
#[derive(LogicBlock, Default)]
pub struct Recip {
    pub clk: Signal<In, Clock>,
    pub x: Signal<In, Bits<24>>,
    /// The mantissa, `2^16 ..= 2^17`.
    pub y: Signal<Out, Bits<18>>,
    /// The exponent `floor(log2 max(x, 1))`.
    pub e: Signal<Out, Bits<5>>,
    rom: RecipRom,
    x1: DFF<Bits<24>>,
    m2: DFF<Bits<24>>,
    z2: DFF<Bits<5>>,
    m3: DFF<Bits<24>>,
    e3: DFF<Bits<5>>,
    t4: DFF<Bits<14>>,
    e4: DFF<Bits<5>>,
    d5: DFF<Bits<27>>,
    t5: DFF<Bits<14>>,
    e5: DFF<Bits<5>>,
    p6: DFF<Bits<32>>,
    w6: DFF<Bits<18>>,
    e6: DFF<Bits<5>>,
    y7: DFF<Bits<18>>,
    e7: DFF<Bits<5>>,
    n16: Signal<Local, Bits<24>>,
    n8: Signal<Local, Bits<24>>,
    k16: Signal<Local, Bits<5>>,
    k8: Signal<Local, Bits<5>>,
    n4: Signal<Local, Bits<24>>,
    n2: Signal<Local, Bits<24>>,
    n1: Signal<Local, Bits<24>>,
    k4: Signal<Local, Bits<5>>,
    k2: Signal<Local, Bits<5>>,
    k1: Signal<Local, Bits<5>>,
    rnd: Signal<Local, Bits<32>>,
}

impl Logic for Recip {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, x1, m2, z2, m3, e3, t4, e4, d5, t5, e5, p6, w6, e6, y7, e7);
        self.rom.clock.next = self.clk.val();
        // c + 1: 0 is read as 1.
        self.x1.d.next = self.x.val();
        if self.x.val() == 0 {
            self.x1.d.next = 1.into();
        }
        // c + 2: shifts by 16 and 8 (z2 counts the leading zeros).
        self.n16.next = self.x1.q.val();
        self.k16.next = 0.into();
        if self.x1.q.val().get_bits::<16>(8) == 0 {
            self.n16.next = self.x1.q.val() << 16;
            self.k16.next = 16.into();
        }
        self.n8.next = self.n16.val();
        self.k8.next = self.k16.val();
        if self.n16.val().get_bits::<8>(16) == 0 {
            self.n8.next = self.n16.val() << 8;
            self.k8.next = self.k16.val() + 8;
        }
        self.m2.d.next = self.n8.val();
        self.z2.d.next = self.k8.val();
        // c + 3: shifts by 4, 2 and 1; e = 23 - zeros.
        self.n4.next = self.m2.q.val();
        self.k4.next = self.z2.q.val();
        if self.m2.q.val().get_bits::<4>(20) == 0 {
            self.n4.next = self.m2.q.val() << 4;
            self.k4.next = self.z2.q.val() + 4;
        }
        self.n2.next = self.n4.val();
        self.k2.next = self.k4.val();
        if self.n4.val().get_bits::<2>(22) == 0 {
            self.n2.next = self.n4.val() << 2;
            self.k2.next = self.k4.val() + 2;
        }
        self.n1.next = self.n2.val();
        self.k1.next = self.k2.val();
        if !self.n2.val().get_bit(23) {
            self.n1.next = self.n2.val() << 1;
            self.k1.next = self.k2.val() + 1;
        }
        self.m3.d.next = self.n1.val();
        self.e3.d.next = bits::<5>(23) - self.k1.val();
        // c + 4: the ROM's address from a register.
        self.rom.address.next = self.m3.q.val().get_bits::<9>(14);
        self.t4.d.next = self.m3.q.val().get_bits::<14>(0);
        self.e4.d.next = self.e3.q.val();
        // c + 5: the word registered.
        self.d5.d.next = self.rom.data.val();
        self.t5.d.next = self.t4.q.val();
        self.e5.d.next = self.e4.q.val();
        // c + 6: slope * t.
        self.p6.d.next =
            bit_cast::<16, 9>(self.d5.q.val().get_bits::<9>(18)) * bit_cast::<16, 14>(self.t5.q.val());
        self.w6.d.next = self.d5.q.val().get_bits::<18>(0);
        self.e6.d.next = self.e5.q.val();
        // c + 7: T[i] - round(slope * t / 2^14).
        self.rnd.next = (self.p6.q.val() + bits::<32>(1 << 13)) >> 14;
        self.y7.d.next = self.w6.q.val() - self.rnd.val().get_bits::<18>(0);
        self.e7.d.next = self.e6.q.val();
        self.y.next = self.y7.q.val();
        self.e.next = self.e7.q.val();
    }
}

// ---- the multiplier --------------------------------------------------------

/// `p = a * b + c` of the operands presented in cycle `c`, during `c + 3`
/// (`a` below `2^48`, `b` below `2^18`, the sum below `2^64`): the three
/// `16 x 16` partial products of `a` and `b`'s low 16 bits and the rows of
/// `b[16]`, `b[17]` (`c + 1`), three sums of two (`c + 2`), a carry-save
/// level and one sum (`c + 3`). `c` is the rounding constant.
#[derive(LogicBlock, Default)]
pub struct Mul48x18 {
    pub clk: Signal<In, Clock>,
    pub a: Signal<In, Bits<48>>,
    pub b: Signal<In, Bits<18>>,
    pub c: Signal<In, Bits<64>>,
    pub p: Signal<Out, Bits<64>>,
    p0: DFF<Bits<32>>,
    p1: DFF<Bits<32>>,
    p2: DFF<Bits<32>>,
    h0: DFF<Bits<48>>,
    h1: DFF<Bits<48>>,
    c1: DFF<Bits<64>>,
    sa: DFF<Bits<64>>,
    sb: DFF<Bits<64>>,
    sc: DFF<Bits<64>>,
    s3: DFF<Bits<64>>,
    xs: Signal<Local, Bits<64>>,
    xc: Signal<Local, Bits<64>>,
}

impl Logic for Mul48x18 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, p0, p1, p2, h0, h1, c1, sa, sb, sc, s3);
        self.p0.d.next = self.a.val().get_bits::<16>(0) * self.b.val().get_bits::<16>(0);
        self.p1.d.next = self.a.val().get_bits::<16>(16) * self.b.val().get_bits::<16>(0);
        self.p2.d.next = self.a.val().get_bits::<16>(32) * self.b.val().get_bits::<16>(0);
        self.h0.d.next = 0.into();
        if self.b.val().get_bit(16) {
            self.h0.d.next = self.a.val();
        }
        self.h1.d.next = 0.into();
        if self.b.val().get_bit(17) {
            self.h1.d.next = self.a.val();
        }
        self.c1.d.next = self.c.val();
        self.sa.d.next =
            bit_cast::<64, 32>(self.p0.q.val()) + (bit_cast::<64, 32>(self.p1.q.val()) << 16);
        self.sb.d.next =
            (bit_cast::<64, 32>(self.p2.q.val()) << 32) + (bit_cast::<64, 48>(self.h0.q.val()) << 16);
        self.sc.d.next = (bit_cast::<64, 48>(self.h1.q.val()) << 17) + self.c1.q.val();
        self.xs.next = self.sa.q.val() ^ self.sb.q.val() ^ self.sc.q.val();
        self.xc.next = ((self.sa.q.val() & self.sb.q.val())
            | (self.sa.q.val() & self.sc.q.val())
            | (self.sb.q.val() & self.sc.q.val()))
            << 1;
        self.s3.d.next = self.xs.val() + self.xc.val();
        self.p.next = self.s3.q.val();
    }
}

// ---- the block -----------------------------------------------------------------

#[derive(LogicBlock, Default)]
pub struct Timely<const FB: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Completion events, one per cycle.
    pub s_ev_valid: Signal<In, Bit>,
    /// Low while the flow table is cleared after a reset.
    pub s_ev_ready: Signal<Out, Bit>,
    pub s_ev_flow: Signal<In, Bits<FB>>,
    pub s_ev_rtt: Signal<In, Bits<24>>,
    pub s_ev_time: Signal<In, Bits<32>>,
    // Register writes, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<4>>,
    pub s_cfg_data: Signal<In, Bits<24>>,

    // The result of each event, 23 cycles after it.
    pub m_cc_valid: Signal<Out, Bit>,
    pub m_cc_flow: Signal<Out, Bits<FB>>,
    /// The rate after the event, 12 fraction bits.
    pub m_cc_rate: Signal<Out, Bits<31>>,
    pub m_cc_branch: Signal<Out, Bits<2>>,
    pub m_cc_hai: Signal<Out, Bit>,
    /// `grad`, two's complement, 20 fraction bits.
    pub m_cc_grad: Signal<Out, Bits<29>>,

    // ---- Tables ------------------------------------------------------------
    /// `{last_time, prev_rtt, seen}`.
    t1: FwdTable<57, FB>,
    /// `{neg, avg}`.
    t2: FwdTable<41, FB>,
    /// The rate, for the decrease's lagged operand.
    ra: FwdTable<31, FB>,
    /// The rate, for the loop.
    rb: FwdTable<31, FB>,

    // ---- Arithmetic --------------------------------------------------------
    rr: Recip,
    rm: Recip,
    /// `dt * y_m` (8 -> 11), `(rtt - t_high) * y_r` (8 -> 11), `|avg| * y_m`
    /// (11 -> 14), `u * beta` (13 -> 16), `m ai * delta` (13 -> 16), `v *
    /// delta` (16 -> 19), `grad * beta` (16 -> 19).
    mdel: Mul48x18,
    mu: Mul48x18,
    mg: Mul48x18,
    mv: Mul48x18,
    minc: Mul48x18,
    mxh: Mul48x18,
    mxg: Mul48x18,

    // ---- Registers -----------------------------------------------------------
    r_min_rtt: DFF<Bits<24>>,
    r_t_low: DFF<Bits<24>>,
    r_t_high: DFF<Bits<24>>,
    r_ai: DFF<Bits<19>>,
    r_beta: DFF<Bits<17>>,
    r_k: DFF<Bits<4>>,
    r_ht: DFF<Bits<4>>,
    r_hn: DFF<Bits<4>>,
    r_min: DFF<Bits<19>>,
    r_max: DFF<Bits<19>>,
    r_init: DFF<Bits<19>>,

    // ---- Clearing --------------------------------------------------------------
    busy: DFF<Bit>,
    ptr: DFF<Bits<FB>>,
    sweep_q: DFF<Bit>,

    // ---- The event down the stages (index: see each) ---------------------------
    /// Stages 1 ..= 22 (index `k - 1`).
    pv: Vec<DFF<Bit>>,
    pf: Vec<DFF<Bits<FB>>>,
    pmin: Vec<DFF<Bits<19>>>,
    pmax: Vec<DFF<Bits<19>>>,
    /// Stages 1 ..= 21.
    pinit: Vec<DFF<Bits<19>>>,
    /// Stages 1 ..= 7.
    prtt: Vec<DFF<Bits<24>>>,
    ptime: Vec<DFF<Bits<32>>>,
    pmr: Vec<DFF<Bits<24>>>,
    /// Stages 1 ..= 16.
    pbeta: Vec<DFF<Bits<17>>>,
    /// Stages 1 ..= 9.
    pk: Vec<DFF<Bits<4>>>,
    /// Stages 1 ..= 10.
    pht: Vec<DFF<Bits<4>>>,
    pai: Vec<DFF<Bits<19>>>,
    /// `t_low`, `t_high`, `hai_n` at stage 1.
    tl1: DFF<Bits<24>>,
    th1: DFF<Bits<24>>,
    hn1: DFF<Bits<4>>,
    /// `hai_n * ai`'s two partial products at 2, the sum at 3 ..= 10
    /// (index `k - 3`).
    hlo2: DFF<Bits<32>>,
    hhi2: DFF<Bits<32>>,
    phai: Vec<DFF<Bits<23>>>,
    /// `rtt < t_low`, `rtt > t_high`, stages 2 ..= 10 (index `k - 2`).
    plt: Vec<DFF<Bit>>,
    pgt: Vec<DFF<Bit>>,
    /// `rtt - t_high`, stages 2 ..= 8 (index `k - 2`).
    pdh: Vec<DFF<Bits<24>>>,
    /// First event since the reset, stages 8 ..= 21 (index `k - 8`).
    pfirst: Vec<DFF<Bit>>,
    /// Stage 8.
    diff8: DFF<Bits<25>>,
    dt8: DFF<Bits<32>>,
    /// `dt >= min_rtt`, stages 8 ..= 12 (index `k - 8`).
    pge: Vec<DFF<Bit>>,
    /// Stage 9: `diff < 0`, `(diff << 12) >> k`.
    negd9: DFF<Bit>,
    c9: DFF<Bits<37>>,
    /// `recip(min_rtt)`'s `y` at 9 ..= 11, `e` at 9 ..= 14; `recip(rtt)`'s
    /// `e` at 9 ..= 11 (index `k - 9`).
    pym: Vec<DFF<Bits<18>>>,
    pem: Vec<DFF<Bits<5>>>,
    per: Vec<DFF<Bits<5>>>,
    /// The flow's decrease operand is `init_rate` (its first event since
    /// the reset is this one or one of the three before), 9 ..= 19 (index
    /// `k - 9`).
    plag: Vec<DFF<Bit>>,
    /// Stage 10: `avg`, `neg` after the event.
    a10: DFF<Bits<37>>,
    n10: DFF<Bits<4>>,
    /// The branch and HAI, 11 ..= 22 (index `k - 11`).
    pbr: Vec<DFF<Bits<2>>>,
    phf: Vec<DFF<Bit>>,
    /// `m * ai`, 11 ..= 13 (index `k - 11`).
    pmai: Vec<DFF<Bits<23>>>,
    /// `|avg|` at 11; `avg < 0` at 11 ..= 16 (index `k - 11`).
    mag11: DFF<Bits<36>>,
    pgn: Vec<DFF<Bit>>,
    /// Stage 12: `dt y_m >> e_m`, `(rtt - t_high) y_r >> e_r`.
    dsh12: DFF<Bits<20>>,
    ush12: DFF<Bits<20>>,
    /// `delta`, 13 ..= 16 (index `k - 13`); `u` at 13.
    pdelta: Vec<DFF<Bits<18>>>,
    u13: DFF<Bits<18>>,
    /// `|avg| y_m >> (9 + e_m)` at 15, saturated at 16.
    gsh15: DFF<Bits<48>>,
    gmag16: DFF<Bits<28>>,
    /// `grad` (signed), 17 ..= 22, and `inc`, 17 ..= 21 (index `k - 17`).
    pgrad: Vec<DFF<Bits<29>>>,
    pinc: Vec<DFF<Bits<35>>>,
    /// Stage 20: the decrease's fraction and operand.
    x20: DFF<Bits<18>>,
    op20: DFF<Bits<31>>,
    /// Stage 21: its partial products.
    dp0: DFF<Bits<32>>,
    dp1: DFF<Bits<32>>,
    dq: DFF<Bits<33>>,
    /// Stage 22, chosen at 21 by the event's branch (docs/timely.md,
    /// "The rate loop"): the loop's subtrahend (`dec`, or `-inc` mod
    /// 2^31), the half's operand (`dec`, or 0 for an increase), the clamp
    /// tests' thresholds (39-bit two's complement: `old > thi`, `old <
    /// tlo`, `old > th`, `old < thl`) and the value of the upper clamp
    /// (`max_rate`, or `min_rate` when `max_rate < min_rate`).
    sub22: DFF<Bits<31>>,
    dc22: DFF<Bits<31>>,
    thi22: DFF<Bits<39>>,
    tlo22: DFF<Bits<39>>,
    th22: DFF<Bits<39>>,
    thl22: DFF<Bits<39>>,
    mq22: DFF<Bits<31>>,
    /// The rate loop's start value for the event at 22 (`old`), chosen a
    /// cycle early: the new rate of the event before it if of the same
    /// flow (`e1`), else that of the event two before (`e2`, its write
    /// still in `w_*`), else `init_rate` for a first event, else `rb`'s
    /// view.
    l_old: DFF<Bits<31>>,
    e1: DFF<Bit>,
    e2: DFF<Bit>,
    /// The event at 19 and the one whose write is in `w_*` (4 ahead) are
    /// of the same flow.
    e4: DFF<Bit>,
    /// Stage 23: the loop's new rate, written into `ra` and `rb` from
    /// these registers (the loop's adders do not reach the tables'
    /// forwarding multiplexers).
    w_v: DFF<Bit>,
    w_f: DFF<Bits<FB>>,
    w_r: DFF<Bits<31>>,

    // ---- Outputs ---------------------------------------------------------------
    o_valid: DFF<Bit>,
    o_flow: DFF<Bits<FB>>,
    o_rate: DFF<Bits<31>>,
    o_branch: DFF<Bits<2>>,
    o_hai: DFF<Bit>,
    o_grad: DFF<Bits<29>>,

    // ---- Combinational -----------------------------------------------------------
    accept: Signal<Local, Bit>,
    hsum: Signal<Local, Bits<32>>,
    aneg: Signal<Local, Bits<37>>,
    dshw: Signal<Local, Bits<64>>,
    ushw: Signal<Local, Bits<64>>,
    gshw: Signal<Local, Bits<64>>,
    vw: Signal<Local, Bits<64>>,
    incw: Signal<Local, Bits<64>>,
    xhw: Signal<Local, Bits<64>>,
    xgw: Signal<Local, Bits<64>>,
    decw: Signal<Local, Bits<64>>,
    sweep: Signal<Local, Bit>,
    first7: Signal<Local, Bit>,
    prev7: Signal<Local, Bits<24>>,
    diff7: Signal<Local, Bits<25>>,
    d37: Signal<Local, Bits<37>>,
    av: Signal<Local, Bits<37>>,
    ash: Signal<Local, Bits<37>>,
    anew: Signal<Local, Bits<37>>,
    nv: Signal<Local, Bits<4>>,
    nnew: Signal<Local, Bits<4>>,
    br: Signal<Local, Bits<2>>,
    hai10: Signal<Local, Bit>,
    xh: Signal<Local, Bits<18>>,
    xg: Signal<Local, Bits<18>>,
    dsum: Signal<Local, Bits<64>>,
    old: Signal<Local, Bits<31>>,
    q_old: Signal<Local, Bits<31>>,
    half: Signal<Local, Bits<32>>,
    nav: Signal<Local, Bits<37>>,
    avx: Signal<Local, Bits<74>>,
    avs: Signal<Local, Bits<74>>,
    axs: Signal<Local, Bits<37>>,
    anr: Signal<Local, Bits<37>>,
    axc: Signal<Local, Bits<37>>,
    dqm: Signal<Local, Bits<33>>,
    dxs: Signal<Local, Bits<64>>,
    dxc: Signal<Local, Bits<64>>,
    dmx: Signal<Local, Bits<64>>,
    dmn: Signal<Local, Bits<64>>,
    hxs: Signal<Local, Bits<64>>,
    hxc: Signal<Local, Bits<64>>,
    hsm: Signal<Local, Bits<64>>,
    lxs: Signal<Local, Bits<64>>,
    lxc: Signal<Local, Bits<64>>,
    lsm: Signal<Local, Bits<64>>,
    o39: Signal<Local, Bits<39>>,
    s_r: Signal<Local, Bits<31>>,
    c_half: Signal<Local, Bit>,
    h_d: Signal<Local, Bits<32>>,
    g_hi: Signal<Local, Bits<39>>,
    l_lo: Signal<Local, Bits<39>>,
    g_h: Signal<Local, Bits<39>>,
    l_h: Signal<Local, Bits<39>>,
    gt: Signal<Local, Bit>,
    lt: Signal<Local, Bit>,
    v_max: Signal<Local, Bits<31>>,
    v_min: Signal<Local, Bits<31>>,
    v_half: Signal<Local, Bits<31>>,
    v_s: Signal<Local, Bits<31>>,
    r3: Signal<Local, Bits<31>>,
    minq: Signal<Local, Bits<31>>,

    reset_min_rtt: Param<Bits<24>>,
    reset_t_low: Param<Bits<24>>,
    reset_t_high: Param<Bits<24>>,
    reset_ai: Param<Bits<19>>,
    reset_beta: Param<Bits<17>>,
    reset_k: Param<Bits<4>>,
    reset_ht: Param<Bits<4>>,
    reset_hn: Param<Bits<4>>,
    reset_min: Param<Bits<19>>,
    reset_max: Param<Bits<19>>,
    reset_init: Param<Bits<19>>,
    last_flow: Param<Bits<FB>>,
}

fn dffs<T: Synth>(n: usize) -> Vec<DFF<T>> {
    (0..n).map(|_| DFF::default()).collect()
}

impl<const FB: usize> Timely<FB> {
    /// The block with the reset values of `config`. The caller has
    /// validated `config` and chosen `FB` equal to its shape.
    pub fn new(config: &TimelyConfig) -> Self {
        assert_eq!(config.shape.flow_bits as usize, FB);
        let r = &config.reset;
        Self {
            t1: FwdTable::new(),
            t2: FwdTable::new(),
            ra: FwdTable::new(),
            rb: FwdTable::new(),
            pv: dffs(S),
            pf: dffs(S),
            pmin: dffs(S),
            pmax: dffs(S),
            pinit: dffs(S - 1),
            prtt: dffs(7),
            ptime: dffs(7),
            pmr: dffs(7),
            pbeta: dffs(16),
            pk: dffs(9),
            pht: dffs(10),
            pai: dffs(10),
            phai: dffs(8),
            plt: dffs(9),
            pgt: dffs(9),
            pdh: dffs(7),
            pfirst: dffs(14),
            pge: dffs(5),
            pym: dffs(3),
            pem: dffs(6),
            per: dffs(3),
            plag: dffs(11),
            pbr: dffs(12),
            phf: dffs(12),
            pmai: dffs(3),
            pgn: dffs(6),
            pdelta: dffs(4),
            pgrad: dffs(6),
            pinc: dffs(5),
            reset_min_rtt: Param::new((r.min_rtt as u64).to_bits()),
            reset_t_low: Param::new((r.t_low as u64).to_bits()),
            reset_t_high: Param::new((r.t_high as u64).to_bits()),
            reset_ai: Param::new((r.ai as u64).to_bits()),
            reset_beta: Param::new((r.beta as u64).to_bits()),
            reset_k: Param::new((r.ewma_shift as u64).to_bits()),
            reset_ht: Param::new((r.hai_thresh as u64).to_bits()),
            reset_hn: Param::new((r.hai_n as u64).to_bits()),
            reset_min: Param::new((r.min_rate as u64).to_bits()),
            reset_max: Param::new((r.max_rate as u64).to_bits()),
            reset_init: Param::new((r.init_rate as u64).to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            ..Default::default()
        }
    }
}

impl<const FB: usize> Logic for Timely<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, r_min_rtt, r_t_low, r_t_high, r_ai, r_beta, r_k, r_ht, r_hn, r_min, r_max,
            r_init, busy, ptr, sweep_q, tl1, th1, hn1, hlo2, hhi2, diff8, dt8, negd9, c9, a10, n10,
            mag11, dsh12, ush12, u13, gsh15, gmag16, x20, op20, dp0, dp1, dq, sub22, dc22,
            thi22, tlo22, th22, thl22, mq22, l_old, e1, e2, e4, w_v, w_f, w_r, o_valid,
            o_flow, o_rate, o_branch, o_hai, o_grad
        );
        for k in 0..22 {
            self.pv[k].clock.next = self.clk.val();
            self.pf[k].clock.next = self.clk.val();
            self.pmin[k].clock.next = self.clk.val();
            self.pmax[k].clock.next = self.clk.val();
        }
        for k in 0..7 {
            self.prtt[k].clock.next = self.clk.val();
            self.ptime[k].clock.next = self.clk.val();
            self.pmr[k].clock.next = self.clk.val();
            self.pdh[k].clock.next = self.clk.val();
        }
        for k in 0..16 {
            self.pbeta[k].clock.next = self.clk.val();
        }
        for k in 0..9 {
            self.pk[k].clock.next = self.clk.val();
            self.plt[k].clock.next = self.clk.val();
            self.pgt[k].clock.next = self.clk.val();
        }
        for k in 0..10 {
            self.pht[k].clock.next = self.clk.val();
            self.pai[k].clock.next = self.clk.val();
        }
        for k in 0..8 {
            self.phai[k].clock.next = self.clk.val();
        }
        for k in 0..14 {
            self.pfirst[k].clock.next = self.clk.val();
        }
        for k in 0..21 {
            self.pinit[k].clock.next = self.clk.val();
        }
        for k in 0..5 {
            self.pge[k].clock.next = self.clk.val();
        }
        for k in 0..3 {
            self.pym[k].clock.next = self.clk.val();
            self.per[k].clock.next = self.clk.val();
            self.pmai[k].clock.next = self.clk.val();
        }
        for k in 0..6 {
            self.pem[k].clock.next = self.clk.val();
            self.pgn[k].clock.next = self.clk.val();
            self.pgrad[k].clock.next = self.clk.val();
        }
        for k in 0..5 {
            self.pinc[k].clock.next = self.clk.val();
        }
        for k in 0..11 {
            self.plag[k].clock.next = self.clk.val();
        }
        for k in 0..12 {
            self.pbr[k].clock.next = self.clk.val();
            self.phf[k].clock.next = self.clk.val();
        }
        for k in 0..4 {
            self.pdelta[k].clock.next = self.clk.val();
        }
        self.t1.clk.next = self.clk.val();
        self.t2.clk.next = self.clk.val();
        self.ra.clk.next = self.clk.val();
        self.rb.clk.next = self.clk.val();
        self.rr.clk.next = self.clk.val();
        self.rm.clk.next = self.clk.val();
        self.mdel.clk.next = self.clk.val();
        self.mu.clk.next = self.clk.val();
        self.mg.clk.next = self.clk.val();
        self.mv.clk.next = self.clk.val();
        self.minc.clk.next = self.clk.val();
        self.mxh.clk.next = self.clk.val();
        self.mxg.clk.next = self.clk.val();

        // ---- Stage 0: the ports; t1 read; the registers captured ---------------
        self.accept.next = self.s_ev_valid.val() & !self.busy.q.val() & !self.rst.val();
        self.t1.rd_flow.next = self.s_ev_flow.val();
        self.pv[0].d.next = self.accept.val();
        self.pf[0].d.next = self.s_ev_flow.val();
        self.prtt[0].d.next = self.s_ev_rtt.val();
        self.ptime[0].d.next = self.s_ev_time.val();
        self.pmr[0].d.next = self.r_min_rtt.q.val();
        self.pmin[0].d.next = self.r_min.q.val();
        self.pmax[0].d.next = self.r_max.q.val();
        self.pinit[0].d.next = self.r_init.q.val();
        self.pbeta[0].d.next = self.r_beta.q.val();
        self.pk[0].d.next = self.r_k.q.val();
        self.pht[0].d.next = self.r_ht.q.val();
        self.pai[0].d.next = self.r_ai.q.val();
        self.tl1.d.next = self.r_t_low.q.val();
        self.th1.d.next = self.r_t_high.q.val();
        self.hn1.d.next = self.r_hn.q.val();
        // The valids are dropped by a reset.
        for k in 1..22 {
            self.pv[k].d.next = self.pv[k - 1].q.val() & !self.rst.val();
            self.pf[k].d.next = self.pf[k - 1].q.val();
            self.pmin[k].d.next = self.pmin[k - 1].q.val();
            self.pmax[k].d.next = self.pmax[k - 1].q.val();
        }
        for k in 1..7 {
            self.prtt[k].d.next = self.prtt[k - 1].q.val();
            self.ptime[k].d.next = self.ptime[k - 1].q.val();
            self.pmr[k].d.next = self.pmr[k - 1].q.val();
            self.pdh[k].d.next = self.pdh[k - 1].q.val();
        }
        for k in 1..16 {
            self.pbeta[k].d.next = self.pbeta[k - 1].q.val();
        }
        for k in 1..9 {
            self.pk[k].d.next = self.pk[k - 1].q.val();
            self.plt[k].d.next = self.plt[k - 1].q.val();
            self.pgt[k].d.next = self.pgt[k - 1].q.val();
        }
        for k in 1..10 {
            self.pht[k].d.next = self.pht[k - 1].q.val();
            self.pai[k].d.next = self.pai[k - 1].q.val();
        }
        for k in 1..8 {
            self.phai[k].d.next = self.phai[k - 1].q.val();
        }
        for k in 1..14 {
            self.pfirst[k].d.next = self.pfirst[k - 1].q.val();
        }
        for k in 1..21 {
            self.pinit[k].d.next = self.pinit[k - 1].q.val();
        }
        for k in 1..5 {
            self.pge[k].d.next = self.pge[k - 1].q.val();
        }
        for k in 1..3 {
            self.pym[k].d.next = self.pym[k - 1].q.val();
            self.per[k].d.next = self.per[k - 1].q.val();
            self.pmai[k].d.next = self.pmai[k - 1].q.val();
        }
        for k in 1..6 {
            self.pem[k].d.next = self.pem[k - 1].q.val();
            self.pgn[k].d.next = self.pgn[k - 1].q.val();
            self.pgrad[k].d.next = self.pgrad[k - 1].q.val();
        }
        for k in 1..5 {
            self.pinc[k].d.next = self.pinc[k - 1].q.val();
        }
        for k in 1..11 {
            self.plag[k].d.next = self.plag[k - 1].q.val();
        }
        for k in 1..12 {
            self.pbr[k].d.next = self.pbr[k - 1].q.val();
            self.phf[k].d.next = self.phf[k - 1].q.val();
        }
        for k in 1..4 {
            self.pdelta[k].d.next = self.pdelta[k - 1].q.val();
        }

        // ---- Stage 1: thresholds; the reciprocals start; hai_n * ai ------------
        self.plt[0].d.next = self.prtt[0].q.val() < self.tl1.q.val();
        self.pgt[0].d.next = self.prtt[0].q.val() > self.th1.q.val();
        self.pdh[0].d.next = self.prtt[0].q.val() - self.th1.q.val();
        self.rr.x.next = self.prtt[0].q.val();
        self.rm.x.next = self.pmr[0].q.val();
        self.hlo2.d.next = self.pai[0].q.val().get_bits::<16>(0) * bit_cast::<16, 4>(self.hn1.q.val());
        self.hhi2.d.next = bit_cast::<16, 3>(self.pai[0].q.val().get_bits::<3>(16))
            * bit_cast::<16, 4>(self.hn1.q.val());
        // Stage 2.
        self.hsum.next = self.hlo2.q.val() + (self.hhi2.q.val() << 16);
        self.phai[0].d.next = self.hsum.val().get_bits::<23>(0);
        self.t2.rd_flow.next = self.pf[1].q.val();

        // ---- Stage 7: t1's view; the previous event's inputs ---------------------
        self.first7.next = !self.t1.view.val().get_bit(0);
        self.prev7.next = self.t1.view.val().get_bits::<24>(1);
        self.diff7.next =
            bit_cast::<25, 24>(self.prtt[6].q.val()) - bit_cast::<25, 24>(self.prev7.val());
        if self.first7.val() | (self.prev7.val() == 0) {
            self.diff7.next = 0.into();
        }
        self.diff8.d.next = self.diff7.val();
        self.dt8.d.next = self.ptime[6].q.val() - self.t1.view.val().get_bits::<32>(25);
        self.pge[0].d.next = (self.ptime[6].q.val() - self.t1.view.val().get_bits::<32>(25))
            >= bit_cast::<32, 24>(self.pmr[6].q.val());
        self.pfirst[0].d.next = self.first7.val();
        self.sweep.next = self.rst.val() | self.sweep_q.q.val();
        self.t1.we.next = self.pv[6].q.val() | self.sweep.val();
        self.t1.wflow.next = self.pf[6].q.val();
        self.t1.wword.next = bits::<57>(1)
            | (bit_cast::<57, 24>(self.prtt[6].q.val()) << 1)
            | (bit_cast::<57, 32>(self.ptime[6].q.val()) << 25);
        if self.busy.q.val() | self.rst.val() {
            self.t1.wflow.next = self.ptr.q.val();
            self.t1.wword.next = 0.into();
        }
        if self.rst.val() {
            self.t1.wflow.next = 0.into();
        }

        // ---- Stage 8 -----------------------------------------------------------------
        // The decrease's operand is init_rate if the flow's first event is
        // this one or one of the three before it (at 9, 10, 11).
        self.plag[0].d.next = self.pfirst[0].q.val()
            | (self.pv[8].q.val() & (self.pf[8].q.val() == self.pf[7].q.val()) & self.pfirst[1].q.val())
            | (self.pv[9].q.val() & (self.pf[9].q.val() == self.pf[7].q.val()) & self.pfirst[2].q.val())
            | (self.pv[10].q.val()
                & (self.pf[10].q.val() == self.pf[7].q.val())
                & self.pfirst[3].q.val());
        self.negd9.d.next = self.diff8.q.val().get_bit(24);
        // (diff << 12) >> k, arithmetic: diff << 12 fills the 37 bits, its
        // sign (bit 24) at bit 36.
        self.d37.next = bit_cast::<37, 25>(self.diff8.q.val()) << 12;
        self.c9.d.next = self.d37.val() >> self.pk[7].q.val();
        if self.d37.val().get_bit(36) {
            self.c9.d.next = !((!self.d37.val()) >> self.pk[7].q.val());
        }
        self.mdel.a.next = bit_cast::<48, 24>(self.dt8.q.val().get_bits::<24>(0));
        self.mdel.b.next = self.rm.y.val();
        self.mdel.c.next = (bits::<64>(1) << self.rm.e.val()) >> 1;
        self.mu.a.next = bit_cast::<48, 24>(self.pdh[6].q.val());
        self.mu.b.next = self.rr.y.val();
        self.mu.c.next = (bits::<64>(1) << self.rr.e.val()) >> 1;
        self.pym[0].d.next = self.rm.y.val();
        self.pem[0].d.next = self.rm.e.val();
        self.per[0].d.next = self.rr.e.val();

        // ---- Stage 9: the avg and neg loops ---------------------------------------
        // A flow's first event starts from avg = 0: then avg - (avg >> k) +
        // c is c, taken after the sum (not a mask before the shifter).
        // (Its diff is 0, so neg stays 0 whatever the word.)
        self.av.next = self.t2.view.val().get_bits::<37>(0);
        self.nv.next = self.t2.view.val().get_bits::<4>(37);
        // avg >> k, arithmetic: one shifter whose fill is the sign (a data
        // input of its multiplexers, no select after it).
        self.nav.next = !self.av.val();
        self.avx.next = bit_cast::<74, 37>(self.av.val());
        if self.av.val().get_bit(36) {
            self.avx.next = !bit_cast::<74, 37>(self.nav.val());
        }
        self.avs.next = self.avx.val() >> self.pk[8].q.val();
        self.ash.next = self.avs.val().get_bits::<37>(0);
        // avg - ash + c = avg + ~ash + 1 + c: one carry-save level, the +1
        // in the carry vector's free bit 0, one adder.
        self.axs.next = self.av.val() ^ !self.ash.val() ^ self.c9.q.val();
        self.axc.next = (((self.av.val() & !self.ash.val())
            | (self.av.val() & self.c9.q.val())
            | (!self.ash.val() & self.c9.q.val()))
            << 1)
            | bits::<37>(1);
        self.anr.next = self.axs.val() + self.axc.val();
        self.anew.next = self.anr.val();
        if self.pfirst[1].q.val() {
            self.anew.next = self.c9.q.val();
        }
        self.nnew.next = 0.into();
        if self.negd9.q.val() {
            self.nnew.next = self.nv.val() + 1;
            if self.nv.val() == 15 {
                self.nnew.next = 15.into();
            }
        }
        self.t2.we.next = self.pv[8].q.val();
        self.t2.wflow.next = self.pf[8].q.val();
        self.t2.wword.next =
            bit_cast::<41, 37>(self.anew.val()) | (bit_cast::<41, 4>(self.nnew.val()) << 37);
        self.a10.d.next = self.anew.val();
        self.n10.d.next = self.nnew.val();

        // ---- Stage 10: the branch, HAI, m * ai, |avg| -------------------------------
        self.br.next = 3.into();
        if self.a10.q.val().get_bit(36) | (self.a10.q.val() == 0) {
            self.br.next = 2.into();
        }
        if self.pgt[8].q.val() {
            self.br.next = 1.into();
        }
        if self.plt[8].q.val() {
            self.br.next = 0.into();
        }
        self.hai10.next = (self.br.val() == 2) & (self.n10.q.val() >= self.pht[9].q.val());
        self.pbr[0].d.next = self.br.val();
        self.phf[0].d.next = self.hai10.val();
        self.pmai[0].d.next = bit_cast::<23, 19>(self.pai[9].q.val());
        if self.hai10.val() {
            self.pmai[0].d.next = self.phai[7].q.val();
        }
        self.aneg.next = bits::<37>(0) - self.a10.q.val();
        self.mag11.d.next = self.a10.q.val().get_bits::<36>(0);
        if self.a10.q.val().get_bit(36) {
            self.mag11.d.next = self.aneg.val().get_bits::<36>(0);
        }
        self.pgn[0].d.next = self.a10.q.val().get_bit(36);

        // ---- Stage 11: |avg| * y_m; the shifts of delta and u ------------------------
        self.mg.a.next = bit_cast::<48, 36>(self.mag11.q.val());
        self.mg.b.next = self.pym[2].q.val();
        self.mg.c.next = (bits::<64>(1) << (bit_cast::<6, 5>(self.pem[2].q.val()) + 9)) >> 1;
        self.dshw.next = self.mdel.p.val() >> self.pem[2].q.val();
        self.dsh12.d.next = self.dshw.val().get_bits::<20>(0);
        self.ushw.next = self.mu.p.val() >> self.per[2].q.val();
        self.ush12.d.next = self.ushw.val().get_bits::<20>(0);

        // ---- Stage 12: delta and u ---------------------------------------------------
        self.pdelta[0].d.next = self.dsh12.q.val().get_bits::<18>(0);
        if (self.dsh12.q.val() > bits::<20>(1 << 17)) | self.pfirst[4].q.val() | self.pge[4].q.val()
        {
            self.pdelta[0].d.next = bits::<18>(1 << 17);
        }
        self.u13.d.next = self.ush12.q.val().get_bits::<18>(0);
        if self.ush12.q.val() > bits::<20>(1 << 17) {
            self.u13.d.next = bits::<18>(1 << 17);
        }

        // ---- Stage 13: u * beta, m ai * delta ------------------------------------------
        self.mv.a.next = bit_cast::<48, 18>(self.u13.q.val());
        self.mv.b.next = bit_cast::<18, 17>(self.pbeta[12].q.val());
        self.mv.c.next = bits::<64>(1 << 15);
        self.minc.a.next = bit_cast::<48, 23>(self.pmai[2].q.val());
        self.minc.b.next = self.pdelta[0].q.val();
        self.minc.c.next = bits::<64>(1 << 4);

        // ---- Stages 14, 15: grad ---------------------------------------------------------
        self.gshw.next = self.mg.p.val() >> (bit_cast::<6, 5>(self.pem[5].q.val()) + 9);
        self.gsh15.d.next = self.gshw.val().get_bits::<48>(0);
        self.gmag16.d.next = self.gsh15.q.val().get_bits::<28>(0);
        if self.gsh15.q.val() > bits::<48>((1 << 28) - 1) {
            self.gmag16.d.next = bits::<28>((1 << 28) - 1);
        }

        // ---- Stage 16: v * delta, grad * beta; inc ----------------------------------------
        self.vw.next = self.mv.p.val() >> 16;
        self.mxh.a.next = bit_cast::<48, 18>(self.vw.val().get_bits::<18>(0));
        self.mxh.b.next = self.pdelta[3].q.val();
        self.mxh.c.next = bits::<64>(1 << 15);
        self.mxg.a.next = bit_cast::<48, 28>(self.gmag16.q.val());
        self.mxg.b.next = bit_cast::<18, 17>(self.pbeta[15].q.val());
        self.mxg.c.next = bits::<64>(1 << 17);
        self.pgrad[0].d.next = bit_cast::<29, 28>(self.gmag16.q.val());
        if self.pgn[5].q.val() {
            self.pgrad[0].d.next = bits::<29>(0) - bit_cast::<29, 28>(self.gmag16.q.val());
        }
        self.incw.next = self.minc.p.val() >> 5;
        self.pinc[0].d.next = self.incw.val().get_bits::<35>(0);

        // ---- Stage 19: x; the decrease's operand ----------------------------------------
        self.ra.rd_flow.next = self.pf[11].q.val();
        self.xhw.next = self.mxh.p.val() >> 16;
        self.xh.next = self.xhw.val().get_bits::<18>(0);
        if self.xhw.val() > bits::<64>(1 << 17) {
            self.xh.next = bits::<18>(1 << 17);
        }
        self.xgw.next = self.mxg.p.val() >> 18;
        self.xg.next = self.xgw.val().get_bits::<18>(0);
        if self.xgw.val() > bits::<64>(1 << 17) {
            self.xg.next = bits::<18>(1 << 17);
        }
        self.x20.d.next = self.xg.val();
        if self.pbr[8].q.val() == 1 {
            self.x20.d.next = self.xh.val();
        }
        self.op20.d.next = self.ra.view.val();
        if self.e4.q.val() {
            self.op20.d.next = self.w_r.q.val();
        }
        if self.plag[10].q.val() {
            self.op20.d.next = bit_cast::<31, 19>(self.pinit[18].q.val()) << 12;
        }

        // ---- Stage 20: rate_lag * x, partial products -------------------------------------
        self.dp0.d.next = self.op20.q.val().get_bits::<16>(0) * self.x20.q.val().get_bits::<16>(0);
        self.dp1.d.next = bit_cast::<16, 15>(self.op20.q.val().get_bits::<15>(16))
            * self.x20.q.val().get_bits::<16>(0);
        // The rows of x[16], x[17] (x <= 2^17: at most one is set), plus 2:
        // the rounding constant 2^17 at weight 2^16.
        self.dqm.next = 0.into();
        if self.x20.q.val().get_bit(16) {
            self.dqm.next = bit_cast::<33, 31>(self.op20.q.val());
        }
        if self.x20.q.val().get_bit(17) {
            self.dqm.next = bit_cast::<33, 31>(self.op20.q.val()) << 1;
        }
        self.dq.d.next = self.dqm.val() + 2;
        // ---- Stage 21: dec = round(rate_lag * x / 2^18) -----------------------------------
        // P + 2^17 = dp0 + (dp1 + dq) 2^16: one carry-save level; beside it
        // the same plus max_rate 2^30 and min_rate 2^30, so that the
        // decrease's clamp thresholds max_rate + dec and min_rate + dec
        // come out with dec (summed before the shift).
        self.dxs.next = bit_cast::<64, 32>(self.dp0.q.val())
            ^ (bit_cast::<64, 32>(self.dp1.q.val()) << 16)
            ^ (bit_cast::<64, 33>(self.dq.q.val()) << 16);
        self.dxc.next = ((bit_cast::<64, 32>(self.dp0.q.val())
            & (bit_cast::<64, 32>(self.dp1.q.val()) << 16))
            | (bit_cast::<64, 32>(self.dp0.q.val()) & (bit_cast::<64, 33>(self.dq.q.val()) << 16))
            | ((bit_cast::<64, 32>(self.dp1.q.val()) << 16)
                & (bit_cast::<64, 33>(self.dq.q.val()) << 16)))
            << 1;
        self.dsum.next = self.dxs.val() + self.dxc.val();
        self.decw.next = self.dsum.val() >> 18;
        self.dmx.next = bit_cast::<64, 19>(self.pmax[20].q.val()) << 30;
        self.dmn.next = bit_cast::<64, 19>(self.pmin[20].q.val()) << 30;
        self.hxs.next = self.dxs.val() ^ self.dxc.val() ^ self.dmx.val();
        self.hxc.next = ((self.dxs.val() & self.dxc.val())
            | (self.dxs.val() & self.dmx.val())
            | (self.dxc.val() & self.dmx.val()))
            << 1;
        self.hsm.next = self.hxs.val() + self.hxc.val();
        self.lxs.next = self.dxs.val() ^ self.dxc.val() ^ self.dmn.val();
        self.lxc.next = ((self.dxs.val() & self.dxc.val())
            | (self.dxs.val() & self.dmn.val())
            | (self.dxc.val() & self.dmn.val()))
            << 1;
        self.lsm.next = self.lxs.val() + self.lxc.val();
        // The loop's operands, chosen by the branch. A decrease: `old - dec`
        // with the tests `old - dec > max_rate`, `< min_rate` as `old >
        // max_rate + dec`, `old < min_rate + dec` (summed above, before the
        // shift), its half `ceil(old / 2)` tested as `old > 2 max_rate`,
        // `old < 2 min_rate - 1`, and the half taken when `dec > old / 2`.
        // An increase: `old + inc` as `old - (-inc)` (mod 2^31: a sum at or
        // above 2^31 is above max_rate, clamped), tested as `old > max_rate
        // - inc`, `old < min_rate - inc`; the half never taken.
        self.thi22.d.next = self.hsm.val().get_bits::<39>(18);
        self.tlo22.d.next = self.lsm.val().get_bits::<39>(18);
        self.sub22.d.next = self.decw.val().get_bits::<31>(0);
        self.dc22.d.next = self.decw.val().get_bits::<31>(0);
        if !self.pbr[10].q.val().get_bit(0) {
            self.thi22.d.next = (bit_cast::<39, 19>(self.pmax[20].q.val()) << 12)
                - bit_cast::<39, 35>(self.pinc[4].q.val());
            self.tlo22.d.next = (bit_cast::<39, 19>(self.pmin[20].q.val()) << 12)
                - bit_cast::<39, 35>(self.pinc[4].q.val());
            self.sub22.d.next = bits::<31>(0) - self.pinc[4].q.val().get_bits::<31>(0);
            self.dc22.d.next = bits::<31>(0);
        }
        self.th22.d.next = bit_cast::<39, 19>(self.pmax[20].q.val()) << 13;
        self.thl22.d.next = (bit_cast::<39, 19>(self.pmin[20].q.val()) << 13) - bits::<39>(1);
        // The upper clamp's value: min_rate wins when max_rate < min_rate.
        self.mq22.d.next = bit_cast::<31, 19>(self.pmax[20].q.val()) << 12;
        if self.pmax[20].q.val() < self.pmin[20].q.val() {
            self.mq22.d.next = bit_cast::<31, 19>(self.pmin[20].q.val()) << 12;
        }

        // ---- Stage 22: the rate loop -------------------------------------------------------
        self.rb.rd_flow.next = self.pf[13].q.val();
        self.old.next = self.l_old.q.val();
        // Every chain starts at `old` and a register: the new value, the
        // half, the half's test and four clamp tests (each the sign of a
        // 39-bit difference), side by side. The half's test chooses which
        // pair of clamp tests applies (`gt`, `lt`); the result is then one
        // of four terms, exactly one selected.
        self.o39.next = bit_cast::<39, 31>(self.old.val());
        self.s_r.next = self.old.val() - self.sub22.q.val();
        self.half.next = (bit_cast::<32, 31>(self.old.val()) + 1) >> 1;
        // dec > old / 2 as the sign of old / 2 - dec (a carry chain, like
        // the clamp tests beside it; as a compare it mapped to eight LUT
        // levels, the loop's critical path).
        self.h_d.next =
            bit_cast::<32, 31>(self.old.val() >> 1) - bit_cast::<32, 31>(self.dc22.q.val());
        self.c_half.next = self.h_d.val().get_bit(31);
        self.g_hi.next = self.thi22.q.val() - self.o39.val();
        self.l_lo.next = self.o39.val() - self.tlo22.q.val();
        self.g_h.next = self.th22.q.val() - self.o39.val();
        self.l_h.next = self.o39.val() - self.thl22.q.val();
        self.gt.next = self.g_hi.val().get_bit(38);
        self.lt.next = self.l_lo.val().get_bit(38);
        if self.c_half.val() {
            self.gt.next = self.g_h.val().get_bit(38);
            self.lt.next = self.l_h.val().get_bit(38);
        }
        self.minq.next = bit_cast::<31, 19>(self.pmin[21].q.val()) << 12;
        self.v_max.next = 0.into();
        if self.gt.val() {
            self.v_max.next = self.mq22.q.val();
        }
        self.v_min.next = 0.into();
        if !self.gt.val() & self.lt.val() {
            self.v_min.next = self.minq.val();
        }
        self.v_half.next = 0.into();
        if !self.gt.val() & !self.lt.val() & self.c_half.val() {
            self.v_half.next = self.half.val().get_bits::<31>(0);
        }
        self.v_s.next = 0.into();
        if !self.gt.val() & !self.lt.val() & !self.c_half.val() {
            self.v_s.next = self.s_r.val();
        }
        self.r3.next = self.v_max.val() | self.v_min.val() | self.v_half.val() | self.v_s.val();
        // The next event's start value (it is at 21): rb's view shows
        // the writes issued before this cycle, so the writes of the events
        // at 22 now (`r3`) and a cycle ago (`w_r`, issued now) are taken
        // here. A flow's first event since the reset has no earlier event
        // of its flow in the pipeline.
        self.q_old.next = self.rb.view.val();
        if self.pfirst[13].q.val() {
            self.q_old.next = bit_cast::<31, 19>(self.pinit[20].q.val()) << 12;
        }
        if self.e2.q.val() {
            self.q_old.next = self.w_r.q.val();
        }
        self.l_old.d.next = self.q_old.val();
        if self.e1.q.val() {
            self.l_old.d.next = self.r3.val();
        }
        // Of the events a cycle from now: at 21 and 22 (e1), at 21 and
        // the one whose write is then in `w_*` (e2), at 19 and that one (e4).
        self.e1.d.next = self.pv[19].q.val()
            & self.pv[20].q.val()
            & (self.pf[19].q.val() == self.pf[20].q.val())
            & !self.rst.val();
        self.e2.d.next = self.pv[19].q.val()
            & self.pv[21].q.val()
            & (self.pf[19].q.val() == self.pf[21].q.val())
            & !self.rst.val();
        self.e4.d.next = self.pv[17].q.val()
            & self.pv[21].q.val()
            & (self.pf[17].q.val() == self.pf[21].q.val())
            & !self.rst.val();
        // The tables are written a cycle after the loop, from registers.
        self.w_v.d.next = self.pv[21].q.val();
        self.w_f.d.next = self.pf[21].q.val();
        self.w_r.d.next = self.r3.val();
        self.ra.we.next = self.w_v.q.val();
        self.ra.wflow.next = self.w_f.q.val();
        self.ra.wword.next = self.w_r.q.val();
        self.rb.we.next = self.w_v.q.val();
        self.rb.wflow.next = self.w_f.q.val();
        self.rb.wword.next = self.w_r.q.val();
        // The outputs: every field 0 when no result.
        self.o_valid.d.next = self.pv[21].q.val();
        self.o_flow.d.next = 0.into();
        self.o_rate.d.next = 0.into();
        self.o_branch.d.next = 0.into();
        self.o_hai.d.next = false;
        self.o_grad.d.next = 0.into();
        if self.pv[21].q.val() {
            self.o_flow.d.next = self.pf[21].q.val();
            self.o_rate.d.next = self.r3.val();
            self.o_branch.d.next = self.pbr[11].q.val();
            self.o_hai.d.next = self.phf[11].q.val();
            self.o_grad.d.next = self.pgrad[5].q.val();
        }

        // ---- Registers: written now, in force from the next cycle ------------------------
        if self.s_cfg_valid.val() {
            if self.s_cfg_addr.val() == 0 {
                self.r_min_rtt.d.next = self.s_cfg_data.val();
            }
            if self.s_cfg_addr.val() == 1 {
                self.r_t_low.d.next = self.s_cfg_data.val();
            }
            if self.s_cfg_addr.val() == 2 {
                self.r_t_high.d.next = self.s_cfg_data.val();
            }
            if self.s_cfg_addr.val() == 3 {
                self.r_ai.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 4 {
                self.r_beta.d.next = self.s_cfg_data.val().get_bits::<17>(0);
            }
            if self.s_cfg_addr.val() == 5 {
                self.r_k.d.next = self.s_cfg_data.val().get_bits::<4>(0);
            }
            if self.s_cfg_addr.val() == 6 {
                self.r_ht.d.next = self.s_cfg_data.val().get_bits::<4>(0);
            }
            if self.s_cfg_addr.val() == 7 {
                self.r_hn.d.next = self.s_cfg_data.val().get_bits::<4>(0);
            }
            if self.s_cfg_addr.val() == 8 {
                self.r_min.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 9 {
                self.r_max.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 10 {
                self.r_init.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
        }

        // ---- The pointer, the clearing ---------------------------------------------------
        self.ptr.d.next = self.ptr.q.val() + 1;
        if self.busy.q.val() & (self.ptr.q.val() == 0) {
            self.busy.d.next = false;
        }
        self.sweep_q.d.next = self.sweep_q.q.val() & (self.ptr.q.val() != self.last_flow.val());

        // ---- Reset wins over every load --------------------------------------------------
        if self.rst.val() {
            self.busy.d.next = true;
            self.ptr.d.next = 1.into();
            self.sweep_q.d.next = true;
            self.r_min_rtt.d.next = self.reset_min_rtt.val();
            self.r_t_low.d.next = self.reset_t_low.val();
            self.r_t_high.d.next = self.reset_t_high.val();
            self.r_ai.d.next = self.reset_ai.val();
            self.r_beta.d.next = self.reset_beta.val();
            self.r_k.d.next = self.reset_k.val();
            self.r_ht.d.next = self.reset_ht.val();
            self.r_hn.d.next = self.reset_hn.val();
            self.r_min.d.next = self.reset_min.val();
            self.r_max.d.next = self.reset_max.val();
            self.r_init.d.next = self.reset_init.val();
            self.o_valid.d.next = false;
            self.o_flow.d.next = 0.into();
            self.o_rate.d.next = 0.into();
            self.o_branch.d.next = 0.into();
            self.o_hai.d.next = false;
            self.o_grad.d.next = 0.into();
        }

        self.s_ev_ready.next = !self.busy.q.val();
        self.m_cc_valid.next = self.o_valid.q.val();
        self.m_cc_flow.next = self.o_flow.q.val();
        self.m_cc_rate.next = self.o_rate.q.val();
        self.m_cc_branch.next = self.o_branch.q.val();
        self.m_cc_hai.next = self.o_hai.q.val();
        self.m_cc_grad.next = self.o_grad.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------------

crate::flow_block_glue!("TIMELY", Timely, TimelyConfig, TimelySim, TimelyIn, TimelyOut);

/// Signals whose bits are left unread on purpose (docs/lint.md).
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("hsum", "bits 31:23: hai_n * ai < 15 * 2^19 < 2^23"),
    ("aneg", "bit 36: |avg| < 2^36"),
    ("dshw", "bits 63:20: dt < min_rtt < 2^(e + 1), so dt * y / 2^e < 2^18 + 1"),
    ("ushw", "bits 63:20: rtt - t_high < rtt < 2^(e + 1), so the quotient < 2^18 + 1"),
    ("gshw", "bits 63:48: |avg| * y / 2^(9 + e) < 2^36 * 2^17 / 2^9 = 2^44"),
    ("vw", "bits 63:18: v = round(u * beta / 2^16) < 2^18 (u <= 2^17, beta < 2^17)"),
    ("incw", "bits 63:35: m * ai * delta / 2^5 < 2^23 * 2^17 / 2^5 = 2^35"),
    ("decw", "bits 63:31: rate_lag * x / 2^18 <= rate_lag / 2 < 2^30"),
    ("g_hi", "bits 37:0: a clamp test, its sign only"),
    ("h_d", "bits 30:0: the half's test, its sign only"),
    ("l_lo", "bits 37:0: a clamp test, its sign only"),
    ("g_h", "bits 37:0: a clamp test, its sign only"),
    ("l_h", "bits 37:0: a clamp test, its sign only"),
    ("hsm", "bits 17:0 and 63:57: max_rate + dec = hsm >> 18 < 2^32"),
    ("lsm", "bits 17:0 and 63:57: min_rate + dec = lsm >> 18 < 2^32"),
    ("half", "bit 31: ceil(old / 2) < 2^30"),
    ("pmax$21$q", "the event's max_rate at stage 22: read by the formal wrapper only (formal/timely)"),
    ("avs", "bits 73:37: the shifted word's low 37 bits are ash"),
    ("t1$pre", "no loop compares a table's stage-6 word a cycle early"),
    ("t2$pre", "no loop compares a table's stage-6 word a cycle early"),
    ("ra$pre", "no loop compares a table's stage-6 word a cycle early"),
    ("rb$pre", "no loop compares a table's stage-6 word a cycle early"),
];

/// The reciprocal pipelines' waivers (modules `top$rr`, `top$rm`).
pub const RECIP_LINT_WAIVERS: &[(&str, &str)] = &[(
    "rnd",
    "bits 31:18: round(slope * t / 2^14) <= 256 (slope <= 256, t < 2^14)",
)];

/// The finished Verilog file for TIMELY.
pub fn verilog(config: &TimelyConfig) -> Result<String, ParamError> {
    let mut raw = crate::emit::waive_unused(&raw_verilog(config)?, LINT_WAIVERS);
    for m in ["top$rr", "top$rm"] {
        raw = crate::emit::waive_in(&raw, m, "UNUSEDSIGNAL", RECIP_LINT_WAIVERS);
    }
    let r = &config.reset;
    let params = [
        ("flow_bits", config.shape.flow_bits.to_string()),
        ("reset.min_rtt", r.min_rtt.to_string()),
        ("reset.t_low", r.t_low.to_string()),
        ("reset.t_high", r.t_high.to_string()),
        ("reset.ai", r.ai.to_string()),
        ("reset.beta", format!("{} / 2^16", r.beta)),
        ("reset.ewma_shift", r.ewma_shift.to_string()),
        ("reset.hai_thresh", r.hai_thresh.to_string()),
        ("reset.hai_n", r.hai_n.to_string()),
        ("reset.min_rate", r.min_rate.to_string()),
        ("reset.max_rate", r.max_rate.to_string()),
        ("reset.init_rate", r.init_rate.to_string()),
    ];
    Ok(crate::emit::finish(
        "timely",
        "TIMELY rate control: per flow the rate from RTT samples",
        &format!(
            "II = 1; each event's result {LATENCY} cycles after it; s_ev_ready low for 2^flow_bits cycles after reset"
        ),
        &params,
        &raw,
    ))
}

struct TimelySim<const FB: usize>(Timely<FB>);

impl<const FB: usize> crate::sim::CycleSim<TimelyIn, TimelyOut> for TimelySim<FB> {
    fn cycle(&mut self, i: &TimelyIn) -> TimelyOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_ev_valid.next = i.ev_valid;
        b.s_ev_flow.next = ((i.ev_flow as u64) & ((1 << FB) - 1)).to_bits();
        b.s_ev_rtt.next = ((i.ev_rtt as u64) & 0xff_ffff).to_bits();
        b.s_ev_time.next = (i.ev_time as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = ((i.cfg_addr as u64) & 0xf).to_bits();
        b.s_cfg_data.next = ((i.cfg_data as u64) & 0xff_ffff).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "TIMELY logic did not settle"
        );
        let g = b.m_cc_grad.val().to_u32();
        let out = TimelyOut {
            ev_ready: b.s_ev_ready.val(),
            cc_valid: b.m_cc_valid.val(),
            cc_flow: b.m_cc_flow.val().to_u32(),
            cc_rate: b.m_cc_rate.val().to_u32(),
            cc_branch: b.m_cc_branch.val().to_u32() as u8,
            cc_hai: b.m_cc_hai.val(),
            cc_grad: ((g << 3) as i32) >> 3,
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "TIMELY logic did not settle"
        );
        out
    }
}
