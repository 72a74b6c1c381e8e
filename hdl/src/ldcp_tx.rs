//! LDCP_TX — the LDCP sender: per flow the window `cw` by PAWA, fast start
//! and the pacing interval below one packet (seed 001 §2.2, §2.3, §3.1).
//! The rule and the timing contract are specified in
//! `ccrtl_golden::ldcp_tx`; `docs/ldcp_tx.md` has the port and register
//! tables, the number formats and the design notes.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits` in {4, 8, 12, 16}: `F = 2^FB` flows;
//! - the reset values of the five registers.
//!
//! # One loop, two tables
//! The per-flow state is 41 bits: a stage bit (1: stable) and a word, `cw`
//! in the stable stage, `{sent, acked}` (16 + 16 bits) in fast start. The
//! loop that updates it is at stage 14 and reads the flow's word from `tl`
//! ([`FwdTable`], read at stage 7, its view at 14 shows every earlier
//! write). The increase's reciprocal is of `base`, the flow's `cw` of
//! `RECIP_LAG = 8` cycles before: `tb`, a second copy of the table read at
//! stage 0, shows at stage 7 exactly the writes of the events accepted 8
//! or more cycles before (the loop of the event of cycle `m` writes in
//! `m + 14`; the view at `n + 7` shows the writes up to `n + 6`). Both
//! tables are written by the loop, with the same word, in the same cycle.
//!
//! # Pipeline (II = 1, latency 22), stage `k` is cycle `n + k`
//! - 0 (ports): `tb` read; the registers in force are taken with the event.
//! - 1: `N = n·alpha256`, `Nb = n·beta256` (8 × 9 bits), registered as
//!   their low 16 bits and bit 16 apart (the iCE40 flow's yosys 0.23).
//! - 5: `ci = clamp(iw · ONE)` (no adder: `iw = 0` gives `gamma`, `iw >
//!   cw_max` the ceiling); 6: its leading one, as the base of a flow in
//!   fast start.
//! - 7: `tl` read. `base` = `tb`'s `cw` (stable) or `ci`; the leading one
//!   `pos` of `max(base, ONE)` (bits 39 to 24, 16 positions), and `base`'s
//!   bits 38:14 (0 when `base < ONE`).
//! - 8: the normalising shift gives the table's index, the ROM's address.
//! - 9, 10: the ROM's read and output registers (`T'`, the entry less its
//!   always-set top bit 2^17).
//! - 10: `Nl × T'l` on a 16 × 16 multiplier (operands from registers,
//!   product registered); beside it `X = Nh·T' + T'h·Nl + 2N` (+1 for the
//!   rounding bit 16), so that `N·T = Nl·T'l + X·2^16`.
//! - 11: `S = Nl·T'l + X·2^16 + 2^(k−1)` (`k = pos + 2`; the rounding bit
//!   below 2^16 is or-ed in).
//! - 12: `inc = S >> k`; `gamma`, the ceiling `max(cw_max·ONE, gamma)`.
//! - 13: the loop's thresholds, each registered: the ceiling less `inc`,
//!   `n·beta + gamma`, `cw_max·ONE + n·beta + 1`, `cw_max·ONE − gamma +
//!   1`, `iw − 1`, `iw − n`.
//! - 14: the loop. Every test is one carry chain of the state word against
//!   a registered threshold (a sign bit); the candidates (`cw − n·beta`,
//!   `cw + inc`, `cw >> 1`, `cw + gamma`, the fast-start counters) are
//!   clamped by their tests and selected by the event's kind, stage and
//!   branch (`cw ≥ ONE`: bits 39:24 not all 0). The new word is written to
//!   both tables.
//! - 15: `cw` after the event (`ci` in fast start); the leading one of its
//!   bits 23:17 (`cw < ONE` is at least `2^17`).
//! - 16: the index (7 positions), the ROM's second port.
//! - 17, 18: the ROM's registers; 18: `rtt·T'` as `rl × T'l` and `rh ×
//!   T'l` (two multipliers), beside them `Z = 2 rtt + T'h·rtt`.
//! - 19: `rh·T'l + Z`, `rl·T'l + 2^(k2−1)` (`k2 = p − 6`, 11 to 17); 20:
//!   their sum; 21: the shift, 0 unless `cw < ONE`; the output registers.
//! - 22: the outputs.
//!
//! # Registers
//! A write in cycle `w` is in force from `w + 1`: the registers are taken
//! with the event at stage 0 and carried with it.
//!
//! # Clearing after reset
//! As DCTCP_TX's tables: flow 0 in the reset cycle, flows 1 to `F − 1` in
//! the next cycles (both tables, the word of fast start with zero
//! counters), `s_ev_ready` low meanwhile.

use ccrtl_golden::ldcp_tx::{
    LdcpTxConfig, LdcpTxIn, LdcpTxOut, LATENCY, RECIP_ENTRIES, RECIP_TABLE,
};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::fwd::FwdTable;
use crate::param::Param;

/// Pipeline registers carried with the event: stages 1 to 21 (index `k - 1`).
const S: usize = 21;

// ---- The reciprocal table -------------------------------------------------

/// The reciprocal table ([`RECIP_TABLE`]) as a ROM with two read ports,
/// each registered twice: an address during cycle `c` gives its entry
/// less `2^17` (17 bits) during `c + 2`. The Verilog is a `case` in a
/// function (no `initial` block): yosys turns it into a block-RAM ROM.
#[derive(LogicBlock, Default)]
pub struct RecipRom {
    pub clock: Signal<In, Clock>,
    pub addr_a: Signal<In, Bits<10>>,
    pub data_a: Signal<Out, Bits<17>>,
    pub addr_b: Signal<In, Bits<10>>,
    pub data_b: Signal<Out, Bits<17>>,
    _sim: Box<[u64; 2]>,
}

impl Logic for RecipRom {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let st = &mut *self._sim;
        self.data_a.next = st[0].to_bits();
        self.data_b.next = st[1].to_bits();
        let t = |a: u64| u64::from(RECIP_TABLE[a as usize]) - (1 << 17);
        st[0] = t(self.addr_a.val().to_u64());
        st[1] = t(self.addr_b.val().to_u64());
    }

    fn connect(&mut self) {
        self.data_a.connect();
        self.data_b.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::from(
            "// RECIP_TABLE[i] - 2^17 (every entry is in (2^17, 2^18)).\n\
             function [16:0] recip;\n   input [9:0] i;\n   case (i)\n",
        );
        for (i, &t) in RECIP_TABLE.iter().enumerate().take(RECIP_ENTRIES) {
            v += &format!("      10'd{i}: recip = 17'd{};\n", t - (1 << 17));
        }
        v += "      default: recip = 17'd0;\n   endcase\nendfunction\n";
        v += "reg [16:0] rd_a;\nreg [16:0] rd_b;\n";
        v += "always @(posedge clock) begin\n   rd_a <= recip(addr_a);\n   rd_b <= recip(addr_b);\n   \
              data_a <= rd_a;\n   data_b <= rd_b;\nend\n";
        Verilog::Custom(v)
    }
}

// ---- The block ------------------------------------------------------------

#[derive(LogicBlock, Default)]
pub struct LdcpTx<const FB: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Events, one per cycle.
    pub s_ev_valid: Signal<In, Bit>,
    /// Low while the flow table is cleared after a reset.
    pub s_ev_ready: Signal<Out, Bit>,
    pub s_ev_flow: Signal<In, Bits<FB>>,
    /// 0 SEND, 1 ACK, 2 LOSS, 3 START.
    pub s_ev_kind: Signal<In, Bits<2>>,
    /// ACK: packets acknowledged.
    pub s_ev_n: Signal<In, Bits<8>>,
    pub s_ev_ece: Signal<In, Bit>,
    /// SEND: the last packet of a message.
    pub s_ev_last: Signal<In, Bit>,
    /// The transport's smoothed RTT (unit opaque).
    pub s_ev_rtt: Signal<In, Bits<24>>,
    // Register writes, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<3>>,
    pub s_cfg_data: Signal<In, Bits<16>>,

    // The result of each event, 22 cycles after it.
    pub m_cc_valid: Signal<Out, Bit>,
    pub m_cc_flow: Signal<Out, Bits<FB>>,
    pub m_cc_kind: Signal<Out, Bits<2>>,
    /// `cw` after the event, packets × 2^24.
    pub m_cc_cw: Signal<Out, Bits<40>>,
    pub m_cc_stable: Signal<Out, Bit>,
    pub m_cc_ect: Signal<Out, Bit>,
    /// `≈ rtt / cw` when `cw < ONE`, else 0.
    pub m_cc_interval: Signal<Out, Bits<32>>,

    // ---- Tables ----------------------------------------------------------
    /// `{stable, word}` read at stage 0: the lagged base at stage 7.
    tb: FwdTable<41, FB>,
    /// `{stable, word}` read at stage 7: the loop's state at stage 14.
    tl: FwdTable<41, FB>,
    rom: RecipRom,

    // ---- Clearing --------------------------------------------------------
    busy: DFF<Bit>,
    ptr: DFF<Bits<FB>>,
    sweep_q: DFF<Bit>,

    // ---- Registers in force ----------------------------------------------
    r_alpha: DFF<Bits<9>>,
    r_beta: DFF<Bits<9>>,
    r_gs: DFF<Bits<3>>,
    r_iw: DFF<Bits<16>>,
    r_cwm: DFF<Bits<16>>,

    // ---- Carried with the event (index `k - 1` is stage `k`) --------------
    p_valid: Vec<DFF<Bit>>,
    p_flow: Vec<DFF<Bits<FB>>>,
    p_kind: Vec<DFF<Bits<2>>>,
    /// Stages 1 to 14.
    p_n: Vec<DFF<Bits<8>>>,
    p_ece: Vec<DFF<Bit>>,
    p_last: Vec<DFF<Bit>>,
    /// Stages 1 to 18.
    p_rtt: Vec<DFF<Bits<24>>>,
    /// The event's registers: `gamma_shift` (stages 1 to 12), `iw` (1 to 13),
    /// `cw_max` (1 to 14).
    p_gs: Vec<DFF<Bits<3>>>,
    p_iw: Vec<DFF<Bits<16>>>,
    p_cwm: Vec<DFF<Bits<16>>>,
    /// Stage 1: `alpha`, `beta`.
    alpha1: DFF<Bits<9>>,
    beta1: DFF<Bits<9>>,
    /// `N = n·alpha256` and `Nb = n·beta256` at stage 2, each as its low
    /// 16 bits and its bit 16 in two registers: Debian yosys 0.23's
    /// `ice40_dsp` crashes (SIGSEGV) on a multiplier whose 17-bit output
    /// register feeds another register (docs/verification.md, "Netlist
    /// equivalence").
    na2_lo: DFF<Bits<16>>,
    na2_hi: DFF<Bits<1>>,
    nb2_lo: DFF<Bits<16>>,
    nb2_hi: DFF<Bits<1>>,
    /// `N`, stages 3 to 10 (index `k - 3`).
    p_na: Vec<DFF<Bits<17>>>,
    /// `Nb`, stages 3 to 12 (index `k - 3`).
    p_nb: Vec<DFF<Bits<17>>>,
    /// `ci = clamp(iw·ONE)`, stages 6 to 15 (index `k - 6`).
    p_ci: Vec<DFF<Bits<40>>>,

    // ---- The reciprocal of the base ----------------------------------------
    /// Stage 7: `ci`'s leading one and bits 38:14 (0 if below ONE).
    ci_pos7: DFF<Bits<4>>,
    ci_bb7: DFF<Bits<25>>,
    /// Stage 8: the base's.
    pos8: DFF<Bits<4>>,
    bb8: DFF<Bits<25>>,
    /// `k = pos + 2`, the rounding bit below 2^16 and bit 16 (stages 9, 10, 11).
    k9: DFF<Bits<5>>,
    rcl9: DFF<Bits<16>>,
    cb9: DFF<Bit>,
    k10: DFF<Bits<5>>,
    rcl10: DFF<Bits<16>>,
    cb10: DFF<Bit>,
    k11: DFF<Bits<5>>,
    rcl11: DFF<Bits<16>>,
    /// Stage 11: `Nl·T'l`, `X`.
    p0_11: DFF<Bits<32>>,
    x11: DFF<Bits<20>>,
    /// Stage 12: `S`.
    s12: DFF<Bits<36>>,
    k12: DFF<Bits<5>>,
    /// Stage 13: `inc`, `gamma`, the ceiling `max(cw_max·ONE, gamma)`, the
    /// decrease `n·beta·2^16`.
    inc13: DFF<Bits<33>>,
    g13: DFF<Bits<40>>,
    cg13: DFF<Bits<40>>,
    d13: DFF<Bits<33>>,
    /// Stage 14: the loop's operands and thresholds (42-bit two's
    /// complement where a sign is read).
    inc14: DFF<Bits<33>>,
    g14: DFF<Bits<40>>,
    cg14: DFF<Bits<40>>,
    d14: DFF<Bits<33>>,
    /// `max(cw_max·ONE, gamma) − inc + 1`: `cw + inc` above the ceiling
    /// when `cw − t_inc ≥ 0`.
    t_inc: DFF<Bits<42>>,
    /// `n·beta·2^16 + gamma`: `cw ⊖ n·beta` below gamma when `cw − t_dlo < 0`.
    t_dlo: DFF<Bits<42>>,
    /// `cw_max·ONE + n·beta·2^16 + 1`: `cw − n·beta` above the ceiling when
    /// `cw − t_dhi ≥ 0`.
    t_dhi: DFF<Bits<42>>,
    /// `cw_max·ONE − gamma + 1`: `cw + gamma` above the ceiling when `cw −
    /// t_ghi ≥ 0`.
    t_ghi: DFF<Bits<42>>,
    /// `iw − 1`, `iw − n` (18-bit two's complement).
    t_iw1: DFF<Bits<18>>,
    t_iwn: DFF<Bits<18>>,

    // ---- After the loop --------------------------------------------------
    /// Stage 15: the new word, the ECT answer.
    w15: DFF<Bits<41>>,
    ect15: DFF<Bit>,
    /// Stages 16 to 21 (index `k - 16`): `cw` after the event, the stage,
    /// ECT, `cw < ONE`, `k2 = p - 6`.
    q_cw: Vec<DFF<Bits<40>>>,
    q_st: Vec<DFF<Bit>>,
    q_ect: Vec<DFF<Bit>>,
    q_lt1: Vec<DFF<Bit>>,
    q_k2: Vec<DFF<Bits<5>>>,
    /// Stage 16: the leading one of bits 23:17 and bits 22:7.
    pos2_16: DFF<Bits<3>>,
    bb2_16: DFF<Bits<16>>,
    /// The rounding bit below 2^16 and bit 16 (stages 17, 18, 19).
    rcl17: DFF<Bits<16>>,
    cb17: DFF<Bit>,
    rcl18: DFF<Bits<16>>,
    cb18: DFF<Bit>,
    rcl19: DFF<Bits<16>>,
    /// Stage 19: `rl·T'l`, `rh·T'l`, `Z`.
    p1_19: DFF<Bits<32>>,
    p2_19: DFF<Bits<32>>,
    z19: DFF<Bits<26>>,
    /// Stage 20: `rh·T'l + Z`, `rl·T'l + round`.
    qq20: DFF<Bits<27>>,
    rr20: DFF<Bits<33>>,
    /// Stage 21: the sum.
    s21: DFF<Bits<43>>,

    // ---- Outputs ---------------------------------------------------------
    o_valid: DFF<Bit>,
    o_flow: DFF<Bits<FB>>,
    o_kind: DFF<Bits<2>>,
    o_cw: DFF<Bits<40>>,
    o_stable: DFF<Bit>,
    o_ect: DFF<Bit>,
    o_interval: DFF<Bits<32>>,

    // ---- Combinational ---------------------------------------------------
    accept: Signal<Local, Bit>,
    sweep: Signal<Local, Bit>,
    prod_na: Signal<Local, Bits<32>>,
    prod_nb: Signal<Local, Bits<32>>,
    ci5: Signal<Local, Bits<40>>,
    g5: Signal<Local, Bits<40>>,
    ci_top: Signal<Local, Bits<16>>,
    ci_p: Signal<Local, Bits<4>>,
    v_top: Signal<Local, Bits<16>>,
    v_p: Signal<Local, Bits<4>>,
    idx_a: Signal<Local, Bits<25>>,
    ta: Signal<Local, Bits<17>>,
    x_sum: Signal<Local, Bits<20>>,
    s_sum: Signal<Local, Bits<36>>,
    inc_sh: Signal<Local, Bits<36>>,
    g12: Signal<Local, Bits<40>>,
    c13: Signal<Local, Bits<42>>,
    // The loop.
    l_st: Signal<Local, Bit>,
    l_cw: Signal<Local, Bits<40>>,
    l_ack: Signal<Local, Bits<16>>,
    l_sent: Signal<Local, Bits<16>>,
    l_ge1: Signal<Local, Bit>,
    c14: Signal<Local, Bits<40>>,
    x_dec: Signal<Local, Bits<42>>,
    y_dlo: Signal<Local, Bits<42>>,
    y_dhi: Signal<Local, Bits<42>>,
    x_inc: Signal<Local, Bits<42>>,
    y_inc: Signal<Local, Bits<42>>,
    y_hlo: Signal<Local, Bits<42>>,
    y_hhi: Signal<Local, Bits<42>>,
    x_g: Signal<Local, Bits<42>>,
    y_ghi: Signal<Local, Bits<42>>,
    y_done: Signal<Local, Bits<18>>,
    y_ect: Signal<Local, Bits<18>>,
    a_new: Signal<Local, Bits<16>>,
    s_new: Signal<Local, Bits<16>>,
    m1: Signal<Local, Bits<16>>,
    k_dec: Signal<Local, Bits<40>>,
    k_inc: Signal<Local, Bits<40>>,
    k_half: Signal<Local, Bits<40>>,
    k_g: Signal<Local, Bits<40>>,
    k_loss: Signal<Local, Bits<40>>,
    k_st: Signal<Local, Bits<40>>,
    n_word: Signal<Local, Bits<41>>,
    n_ect: Signal<Local, Bit>,
    // After the loop.
    cw15: Signal<Local, Bits<40>>,
    lo15: Signal<Local, Bits<7>>,
    p2: Signal<Local, Bits<3>>,
    idx_b: Signal<Local, Bits<16>>,
    tb18: Signal<Local, Bits<17>>,
    rtt18: Signal<Local, Bits<24>>,
    z_sum: Signal<Local, Bits<26>>,
    shifted: Signal<Local, Bits<43>>,

    reset_alpha: Param<Bits<9>>,
    reset_beta: Param<Bits<9>>,
    reset_gs: Param<Bits<3>>,
    reset_iw: Param<Bits<16>>,
    reset_cwm: Param<Bits<16>>,
    last_flow: Param<Bits<FB>>,
}

fn dffs<T: Synth>(n: usize) -> Vec<DFF<T>> {
    (0..n).map(|_| DFF::default()).collect()
}

impl<const FB: usize> LdcpTx<FB> {
    /// The block with the reset values of `config`. The caller has
    /// validated `config` and chosen `FB` equal to its shape.
    pub fn new(config: &LdcpTxConfig) -> Self {
        assert_eq!(config.shape.flow_bits as usize, FB);
        assert_eq!(LATENCY, 22, "the golden LATENCY is this pipeline's");
        let r = &config.reset;
        Self {
            tb: FwdTable::new(),
            tl: FwdTable::new(),
            p_valid: dffs(S),
            p_flow: dffs(S),
            p_kind: dffs(S),
            p_n: dffs(14),
            p_ece: dffs(14),
            p_last: dffs(14),
            p_rtt: dffs(18),
            p_gs: dffs(12),
            p_iw: dffs(13),
            p_cwm: dffs(14),
            p_na: dffs(8),
            p_nb: dffs(10),
            p_ci: dffs(10),
            q_cw: dffs(6),
            q_st: dffs(6),
            q_ect: dffs(6),
            q_lt1: dffs(6),
            q_k2: dffs(6),
            reset_alpha: Param::new((r.alpha as u64).to_bits()),
            reset_beta: Param::new((r.beta as u64).to_bits()),
            reset_gs: Param::new((r.gamma_shift as u64).to_bits()),
            reset_iw: Param::new((r.iw as u64).to_bits()),
            reset_cwm: Param::new((r.cw_max as u64).to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            ..Default::default()
        }
    }
}

impl<const FB: usize> Logic for LdcpTx<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, busy, ptr, sweep_q, r_alpha, r_beta, r_gs, r_iw, r_cwm, alpha1, beta1,
            na2_lo, na2_hi, nb2_lo, nb2_hi,
            ci_pos7, ci_bb7, pos8, bb8, k9, rcl9, cb9, k10, rcl10, cb10, k11, rcl11, p0_11, x11,
            s12, k12, inc13, g13, cg13, d13, inc14, g14, cg14, d14, t_inc, t_dlo, t_dhi, t_ghi,
            t_iw1, t_iwn, w15, ect15, pos2_16, bb2_16, rcl17, cb17, rcl18, cb18, rcl19, p1_19,
            p2_19, z19, qq20, rr20, s21, o_valid, o_flow, o_kind, o_cw, o_stable, o_ect,
            o_interval
        );
        for k in 0..21 {
            self.p_valid[k].clock.next = self.clk.val();
            self.p_flow[k].clock.next = self.clk.val();
            self.p_kind[k].clock.next = self.clk.val();
        }
        for k in 0..14 {
            self.p_n[k].clock.next = self.clk.val();
            self.p_ece[k].clock.next = self.clk.val();
            self.p_last[k].clock.next = self.clk.val();
            self.p_cwm[k].clock.next = self.clk.val();
        }
        for k in 0..18 {
            self.p_rtt[k].clock.next = self.clk.val();
        }
        for k in 0..13 {
            self.p_iw[k].clock.next = self.clk.val();
        }
        for k in 0..12 {
            self.p_gs[k].clock.next = self.clk.val();
        }
        for k in 0..8 {
            self.p_na[k].clock.next = self.clk.val();
        }
        for k in 0..10 {
            self.p_nb[k].clock.next = self.clk.val();
        }
        for k in 0..10 {
            self.p_ci[k].clock.next = self.clk.val();
        }
        for k in 0..6 {
            self.q_cw[k].clock.next = self.clk.val();
            self.q_st[k].clock.next = self.clk.val();
            self.q_ect[k].clock.next = self.clk.val();
            self.q_lt1[k].clock.next = self.clk.val();
            self.q_k2[k].clock.next = self.clk.val();
        }
        self.tb.clk.next = self.clk.val();
        self.tl.clk.next = self.clk.val();
        self.rom.clock.next = self.clk.val();

        // ---- Stage 0: the ports, tb read, the registers taken ----------------
        self.accept.next = self.s_ev_valid.val() & !self.busy.q.val() & !self.rst.val();
        self.tb.rd_flow.next = self.s_ev_flow.val();
        self.p_valid[0].d.next = self.accept.val();
        self.p_flow[0].d.next = self.s_ev_flow.val();
        self.p_kind[0].d.next = self.s_ev_kind.val();
        self.p_n[0].d.next = self.s_ev_n.val();
        self.p_ece[0].d.next = self.s_ev_ece.val();
        self.p_last[0].d.next = self.s_ev_last.val();
        self.p_rtt[0].d.next = self.s_ev_rtt.val();
        self.p_gs[0].d.next = self.r_gs.q.val();
        self.p_iw[0].d.next = self.r_iw.q.val();
        self.p_cwm[0].d.next = self.r_cwm.q.val();
        self.alpha1.d.next = self.r_alpha.q.val();
        self.beta1.d.next = self.r_beta.q.val();
        // Down the stages; a reset drops every event in flight.
        for k in 1..21 {
            self.p_valid[k].d.next = self.p_valid[k - 1].q.val() & !self.rst.val();
            self.p_flow[k].d.next = self.p_flow[k - 1].q.val();
            self.p_kind[k].d.next = self.p_kind[k - 1].q.val();
        }
        for k in 1..14 {
            self.p_n[k].d.next = self.p_n[k - 1].q.val();
            self.p_ece[k].d.next = self.p_ece[k - 1].q.val();
            self.p_last[k].d.next = self.p_last[k - 1].q.val();
            self.p_cwm[k].d.next = self.p_cwm[k - 1].q.val();
        }
        for k in 1..18 {
            self.p_rtt[k].d.next = self.p_rtt[k - 1].q.val();
        }
        for k in 1..13 {
            self.p_iw[k].d.next = self.p_iw[k - 1].q.val();
        }
        for k in 1..12 {
            self.p_gs[k].d.next = self.p_gs[k - 1].q.val();
        }

        // ---- Stage 1: n·alpha, n·beta ----------------------------------------
        self.prod_na.next =
            bit_cast::<16, 8>(self.p_n[0].q.val()) * bit_cast::<16, 9>(self.alpha1.q.val());
        self.prod_nb.next =
            bit_cast::<16, 8>(self.p_n[0].q.val()) * bit_cast::<16, 9>(self.beta1.q.val());
        self.na2_lo.d.next = self.prod_na.val().get_bits::<16>(0);
        self.na2_hi.d.next = self.prod_na.val().get_bits::<1>(16);
        self.nb2_lo.d.next = self.prod_nb.val().get_bits::<16>(0);
        self.nb2_hi.d.next = self.prod_nb.val().get_bits::<1>(16);
        self.p_na[0].d.next =
            bit_cast::<17, 16>(self.na2_lo.q.val()) | (bit_cast::<17, 1>(self.na2_hi.q.val()) << 16);
        self.p_nb[0].d.next =
            bit_cast::<17, 16>(self.nb2_lo.q.val()) | (bit_cast::<17, 1>(self.nb2_hi.q.val()) << 16);
        for k in 1..8 {
            self.p_na[k].d.next = self.p_na[k - 1].q.val();
        }
        for k in 1..10 {
            self.p_nb[k].d.next = self.p_nb[k - 1].q.val();
        }

        // ---- Stage 5: ci = clamp(iw·ONE) --------------------------------------
        // iw·ONE >= ONE >= gamma unless iw = 0; above cw_max·ONE iff iw >
        // cw_max, and then the ceiling is max(cw_max·ONE, gamma).
        self.g5.next = bits::<40>(1 << 24) >> self.p_gs[4].q.val();
        self.ci5.next = bit_cast::<40, 16>(self.p_iw[4].q.val()) << 24;
        if self.p_iw[4].q.val() > self.p_cwm[4].q.val() {
            self.ci5.next = bit_cast::<40, 16>(self.p_cwm[4].q.val()) << 24;
            if self.p_cwm[4].q.val() == 0 {
                self.ci5.next = self.g5.val();
            }
        }
        if self.p_iw[4].q.val() == 0 {
            self.ci5.next = self.g5.val();
        }
        self.p_ci[0].d.next = self.ci5.val();
        for k in 1..10 {
            self.p_ci[k].d.next = self.p_ci[k - 1].q.val();
        }

        // ---- Stage 6: ci's leading one (as a base) ----------------------------
        self.ci_top.next = self.p_ci[0].q.val().get_bits::<16>(24);
        self.ci_p.next = 0.into();
        if self.ci_top.val().get_bit(1) {
            self.ci_p.next = 1.into();
        }
        if self.ci_top.val().get_bit(2) {
            self.ci_p.next = 2.into();
        }
        if self.ci_top.val().get_bit(3) {
            self.ci_p.next = 3.into();
        }
        if self.ci_top.val().get_bit(4) {
            self.ci_p.next = 4.into();
        }
        if self.ci_top.val().get_bit(5) {
            self.ci_p.next = 5.into();
        }
        if self.ci_top.val().get_bit(6) {
            self.ci_p.next = 6.into();
        }
        if self.ci_top.val().get_bit(7) {
            self.ci_p.next = 7.into();
        }
        if self.ci_top.val().get_bit(8) {
            self.ci_p.next = 8.into();
        }
        if self.ci_top.val().get_bit(9) {
            self.ci_p.next = 9.into();
        }
        if self.ci_top.val().get_bit(10) {
            self.ci_p.next = 10.into();
        }
        if self.ci_top.val().get_bit(11) {
            self.ci_p.next = 11.into();
        }
        if self.ci_top.val().get_bit(12) {
            self.ci_p.next = 12.into();
        }
        if self.ci_top.val().get_bit(13) {
            self.ci_p.next = 13.into();
        }
        if self.ci_top.val().get_bit(14) {
            self.ci_p.next = 14.into();
        }
        if self.ci_top.val().get_bit(15) {
            self.ci_p.next = 15.into();
        }
        self.ci_pos7.d.next = self.ci_p.val();
        self.ci_bb7.d.next = self.p_ci[0].q.val().get_bits::<25>(14);
        if !self.ci_top.val().any() {
            self.ci_bb7.d.next = 0.into();
        }

        // ---- Stage 7: the base, its leading one; tl read ----------------------
        self.tl.rd_flow.next = self.p_flow[6].q.val();
        self.v_top.next = self.tb.view.val().get_bits::<16>(24);
        self.v_p.next = 0.into();
        if self.v_top.val().get_bit(1) {
            self.v_p.next = 1.into();
        }
        if self.v_top.val().get_bit(2) {
            self.v_p.next = 2.into();
        }
        if self.v_top.val().get_bit(3) {
            self.v_p.next = 3.into();
        }
        if self.v_top.val().get_bit(4) {
            self.v_p.next = 4.into();
        }
        if self.v_top.val().get_bit(5) {
            self.v_p.next = 5.into();
        }
        if self.v_top.val().get_bit(6) {
            self.v_p.next = 6.into();
        }
        if self.v_top.val().get_bit(7) {
            self.v_p.next = 7.into();
        }
        if self.v_top.val().get_bit(8) {
            self.v_p.next = 8.into();
        }
        if self.v_top.val().get_bit(9) {
            self.v_p.next = 9.into();
        }
        if self.v_top.val().get_bit(10) {
            self.v_p.next = 10.into();
        }
        if self.v_top.val().get_bit(11) {
            self.v_p.next = 11.into();
        }
        if self.v_top.val().get_bit(12) {
            self.v_p.next = 12.into();
        }
        if self.v_top.val().get_bit(13) {
            self.v_p.next = 13.into();
        }
        if self.v_top.val().get_bit(14) {
            self.v_p.next = 14.into();
        }
        if self.v_top.val().get_bit(15) {
            self.v_p.next = 15.into();
        }
        self.pos8.d.next = self.ci_pos7.q.val();
        self.bb8.d.next = self.ci_bb7.q.val();
        if self.tb.view.val().get_bit(40) {
            self.pos8.d.next = self.v_p.val();
            self.bb8.d.next = self.tb.view.val().get_bits::<25>(14);
            if !self.v_top.val().any() {
                self.bb8.d.next = 0.into();
            }
        }

        // ---- Stage 8: the index, into the ROM ----------------------------------
        self.idx_a.next = self.bb8.q.val() >> self.pos8.q.val();
        self.rom.addr_a.next = self.idx_a.val().get_bits::<10>(0);
        self.k9.d.next = bit_cast::<5, 4>(self.pos8.q.val()) + bits::<5>(2);
        // The rounding constant 2^(pos + 1): below 2^16 or-ed into S, bit 16
        // (pos = 15) added to X.
        self.rcl9.d.next = bits::<16>(2) << self.pos8.q.val();
        self.cb9.d.next = self.pos8.q.val() == 15;
        self.k10.d.next = self.k9.q.val();
        self.rcl10.d.next = self.rcl9.q.val();
        self.cb10.d.next = self.cb9.q.val();

        // ---- Stage 10: N·T' -----------------------------------------------------
        // N·T = N·2^17 + N·T' = Nl·T'l + (2N + Nh·T' + T'h·Nl)·2^16.
        self.ta.next = self.rom.data_a.val();
        self.p0_11.d.next =
            self.p_na[7].q.val().get_bits::<16>(0) * self.ta.val().get_bits::<16>(0);
        self.x_sum.next = (bit_cast::<20, 17>(self.p_na[7].q.val()) << 1)
            + bit_cast::<20, 1>(self.cb10.q.val().into());
        if self.p_na[7].q.val().get_bit(16) {
            self.x_sum.next = (bit_cast::<20, 17>(self.p_na[7].q.val()) << 1)
                + bit_cast::<20, 1>(self.cb10.q.val().into())
                + bit_cast::<20, 17>(self.ta.val());
        }
        self.x11.d.next = self.x_sum.val();
        if self.ta.val().get_bit(16) {
            self.x11.d.next =
                self.x_sum.val() + bit_cast::<20, 16>(self.p_na[7].q.val().get_bits::<16>(0));
        }
        self.k11.d.next = self.k10.q.val();
        self.rcl11.d.next = self.rcl10.q.val();

        // ---- Stage 11: S = N·T + 2^(k - 1) ---------------------------------------
        self.s_sum.next = bit_cast::<36, 32>(self.p0_11.q.val())
            + ((bit_cast::<36, 20>(self.x11.q.val()) << 16)
                | bit_cast::<36, 16>(self.rcl11.q.val()));
        self.s12.d.next = self.s_sum.val();
        self.k12.d.next = self.k11.q.val();

        // ---- Stage 12: inc; gamma, the ceiling, the decrease ------------------------
        self.inc_sh.next = self.s12.q.val() >> self.k12.q.val();
        self.inc13.d.next = self.inc_sh.val().get_bits::<33>(0);
        self.g12.next = bits::<40>(1 << 24) >> self.p_gs[11].q.val();
        self.g13.d.next = self.g12.val();
        self.cg13.d.next = bit_cast::<40, 16>(self.p_cwm[11].q.val()) << 24;
        if self.p_cwm[11].q.val() == 0 {
            self.cg13.d.next = self.g12.val();
        }
        self.d13.d.next = bit_cast::<33, 17>(self.p_nb[9].q.val()) << 16;

        // ---- Stage 13: the loop's thresholds ----------------------------------------
        self.c13.next = bit_cast::<42, 16>(self.p_cwm[12].q.val()) << 24;
        self.t_inc.d.next = bit_cast::<42, 40>(self.cg13.q.val())
            - bit_cast::<42, 33>(self.inc13.q.val())
            + bits::<42>(1);
        self.t_dlo.d.next =
            bit_cast::<42, 33>(self.d13.q.val()) + bit_cast::<42, 40>(self.g13.q.val());
        self.t_dhi.d.next = self.c13.val() + bit_cast::<42, 33>(self.d13.q.val()) + bits::<42>(1);
        self.t_ghi.d.next =
            self.c13.val() - bit_cast::<42, 40>(self.g13.q.val()) + bits::<42>(1);
        self.t_iw1.d.next = bit_cast::<18, 16>(self.p_iw[12].q.val()) - bits::<18>(1);
        self.t_iwn.d.next =
            bit_cast::<18, 16>(self.p_iw[12].q.val()) - bit_cast::<18, 8>(self.p_n[12].q.val());
        self.inc14.d.next = self.inc13.q.val();
        self.g14.d.next = self.g13.q.val();
        self.cg14.d.next = self.cg13.q.val();
        self.d14.d.next = self.d13.q.val();

        // ---- Stage 14: the loop -----------------------------------------------------
        self.l_st.next = self.tl.view.val().get_bit(40);
        self.l_cw.next = self.tl.view.val().get_bits::<40>(0);
        self.l_ack.next = self.tl.view.val().get_bits::<16>(0);
        self.l_sent.next = self.tl.view.val().get_bits::<16>(16);
        self.l_ge1.next = self.l_cw.val().get_bits::<16>(24).any();
        self.c14.next = bit_cast::<40, 16>(self.p_cwm[13].q.val()) << 24;
        // Each test a carry chain of the word against a register.
        self.x_dec.next =
            bit_cast::<42, 40>(self.l_cw.val()) - bit_cast::<42, 33>(self.d14.q.val());
        self.y_dlo.next = bit_cast::<42, 40>(self.l_cw.val()) - self.t_dlo.q.val();
        self.y_dhi.next = bit_cast::<42, 40>(self.l_cw.val()) - self.t_dhi.q.val();
        self.x_inc.next =
            bit_cast::<42, 40>(self.l_cw.val()) + bit_cast::<42, 33>(self.inc14.q.val());
        self.y_inc.next = bit_cast::<42, 40>(self.l_cw.val()) - self.t_inc.q.val();
        self.y_hlo.next = bit_cast::<42, 40>(self.l_cw.val())
            - (bit_cast::<42, 40>(self.g14.q.val()) << 1);
        // (cw >> 1) > cw_max·ONE: (cw >> 1) - (cw_max·ONE + 1) >= 0.
        self.y_hhi.next = (bit_cast::<42, 40>(self.l_cw.val()) >> 1)
            - (bit_cast::<42, 40>(self.c14.val()) | bits::<42>(1));
        self.x_g.next =
            bit_cast::<42, 40>(self.l_cw.val()) + bit_cast::<42, 40>(self.g14.q.val());
        self.y_ghi.next = bit_cast::<42, 40>(self.l_cw.val()) - self.t_ghi.q.val();
        self.y_done.next = bit_cast::<18, 16>(self.l_ack.val()) - self.t_iwn.q.val();
        self.y_ect.next = bit_cast::<18, 16>(self.l_sent.val()) - self.t_iw1.q.val();
        self.a_new.next = self.l_ack.val() + bit_cast::<16, 8>(self.p_n[13].q.val());
        self.s_new.next = self.l_sent.val() + bits::<16>(1);
        if self.l_sent.val() == 0xffff {
            self.s_new.next = self.l_sent.val();
        }
        self.m1.next = self.l_ack.val();
        if self.l_ack.val() == 0 {
            self.m1.next = 1.into();
        }
        // The candidates, clamped: below gamma -> gamma; above cw_max·ONE ->
        // max(cw_max·ONE, gamma).
        self.k_dec.next = self.x_dec.val().get_bits::<40>(0);
        if !self.y_dhi.val().get_bit(41) {
            self.k_dec.next = self.cg14.q.val();
        }
        if self.y_dlo.val().get_bit(41) {
            self.k_dec.next = self.g14.q.val();
        }
        self.k_inc.next = self.x_inc.val().get_bits::<40>(0);
        if !self.y_inc.val().get_bit(41) {
            self.k_inc.next = self.cg14.q.val();
        }
        self.k_half.next = self.l_cw.val() >> 1;
        if !self.y_hhi.val().get_bit(41) {
            self.k_half.next = self.cg14.q.val();
        }
        if self.y_hlo.val().get_bit(41) {
            self.k_half.next = self.g14.q.val();
        }
        self.k_g.next = self.x_g.val().get_bits::<40>(0);
        if !self.y_ghi.val().get_bit(41) {
            self.k_g.next = self.cg14.q.val();
        }
        self.k_loss.next = bit_cast::<40, 16>(self.m1.val()) << 24;
        if self.m1.val() > self.p_cwm[13].q.val() {
            self.k_loss.next = self.cg14.q.val();
        }
        // The stable stage's ACK: the branch on cw >= ONE, then ECE.
        self.k_st.next = self.k_g.val();
        if self.p_ece[13].q.val() {
            self.k_st.next = self.k_half.val();
        }
        if self.l_ge1.val() {
            self.k_st.next = self.k_inc.val();
            if self.p_ece[13].q.val() {
                self.k_st.next = self.k_dec.val();
            }
        }
        // The new word by kind and stage (unchanged unless said).
        self.n_word.next = self.tl.view.val();
        self.n_ect.next = false;
        if self.p_kind[13].q.val() == 0 {
            self.n_ect.next = true;
            if !self.l_st.val() {
                self.n_word.next = bit_cast::<41, 16>(self.l_ack.val())
                    | (bit_cast::<41, 16>(self.s_new.val()) << 16);
                self.n_ect.next = !self.y_ect.val().get_bit(17) | self.p_last[13].q.val();
            }
        }
        if (self.p_kind[13].q.val() == 1) & self.p_n[13].q.val().any() {
            if self.l_st.val() {
                self.n_word.next = bit_cast::<41, 40>(self.k_st.val()) | bits::<41>(1 << 40);
            } else {
                self.n_word.next = bit_cast::<41, 16>(self.a_new.val())
                    | (bit_cast::<41, 16>(self.l_sent.val()) << 16);
                if !self.y_done.val().get_bit(17) {
                    self.n_word.next =
                        bit_cast::<41, 40>(self.p_ci[8].q.val()) | bits::<41>(1 << 40);
                }
            }
        }
        if self.p_kind[13].q.val() == 2 {
            self.n_word.next = bit_cast::<41, 40>(self.k_half.val()) | bits::<41>(1 << 40);
            if !self.l_st.val() {
                self.n_word.next = bit_cast::<41, 40>(self.k_loss.val()) | bits::<41>(1 << 40);
            }
        }
        if self.p_kind[13].q.val() == 3 {
            self.n_word.next = 0.into();
        }
        // Both tables take the new word; the clearing writes fast start with
        // zero counters.
        self.sweep.next = self.rst.val() | self.sweep_q.q.val();
        self.tl.we.next = self.p_valid[13].q.val() | self.sweep.val();
        self.tl.wflow.next = self.p_flow[13].q.val();
        self.tl.wword.next = self.n_word.val();
        self.tb.we.next = self.p_valid[13].q.val() | self.sweep.val();
        self.tb.wflow.next = self.p_flow[13].q.val();
        self.tb.wword.next = self.n_word.val();
        if self.busy.q.val() | self.rst.val() {
            self.tl.wflow.next = self.ptr.q.val();
            self.tl.wword.next = 0.into();
            self.tb.wflow.next = self.ptr.q.val();
            self.tb.wword.next = 0.into();
        }
        if self.rst.val() {
            self.tl.wflow.next = 0.into();
            self.tb.wflow.next = 0.into();
        }
        self.w15.d.next = self.n_word.val();
        self.ect15.d.next = self.n_ect.val();

        // ---- Stage 15: cw after the event, its leading one ---------------------------
        self.cw15.next = self.p_ci[9].q.val();
        if self.w15.q.val().get_bit(40) {
            self.cw15.next = self.w15.q.val().get_bits::<40>(0);
        }
        self.lo15.next = self.cw15.val().get_bits::<7>(17);
        self.p2.next = 0.into();
        if self.lo15.val().get_bit(1) {
            self.p2.next = 1.into();
        }
        if self.lo15.val().get_bit(2) {
            self.p2.next = 2.into();
        }
        if self.lo15.val().get_bit(3) {
            self.p2.next = 3.into();
        }
        if self.lo15.val().get_bit(4) {
            self.p2.next = 4.into();
        }
        if self.lo15.val().get_bit(5) {
            self.p2.next = 5.into();
        }
        if self.lo15.val().get_bit(6) {
            self.p2.next = 6.into();
        }
        self.pos2_16.d.next = self.p2.val();
        self.bb2_16.d.next = self.cw15.val().get_bits::<16>(7);
        self.q_cw[0].d.next = self.cw15.val();
        self.q_st[0].d.next = self.w15.q.val().get_bit(40);
        self.q_ect[0].d.next = self.ect15.q.val();
        self.q_lt1[0].d.next = !self.cw15.val().get_bits::<16>(24).any();
        self.q_k2[0].d.next = bit_cast::<5, 3>(self.p2.val()) + bits::<5>(11);
        for k in 1..6 {
            self.q_cw[k].d.next = self.q_cw[k - 1].q.val();
            self.q_st[k].d.next = self.q_st[k - 1].q.val();
            self.q_ect[k].d.next = self.q_ect[k - 1].q.val();
            self.q_lt1[k].d.next = self.q_lt1[k - 1].q.val();
            self.q_k2[k].d.next = self.q_k2[k - 1].q.val();
        }

        // ---- Stage 16: the index, into the ROM's second port -------------------------
        self.idx_b.next = self.bb2_16.q.val() >> self.pos2_16.q.val();
        self.rom.addr_b.next = self.idx_b.val().get_bits::<10>(0);
        // The rounding constant 2^(k2 - 1) = 2^(pos2 + 10).
        self.rcl17.d.next = bits::<16>(1 << 10) << self.pos2_16.q.val();
        self.cb17.d.next = self.pos2_16.q.val() == 6;
        self.rcl18.d.next = self.rcl17.q.val();
        self.cb18.d.next = self.cb17.q.val();

        // ---- Stage 18: rtt·T' ------------------------------------------------------
        // rtt·T = rl·T'l + (2 rtt + T'h·rtt + rh·T'l)·2^16.
        self.tb18.next = self.rom.data_b.val();
        self.rtt18.next = self.p_rtt[17].q.val();
        self.p1_19.d.next = self.rtt18.val().get_bits::<16>(0) * self.tb18.val().get_bits::<16>(0);
        self.p2_19.d.next = bit_cast::<16, 8>(self.rtt18.val().get_bits::<8>(16))
            * self.tb18.val().get_bits::<16>(0);
        self.z_sum.next = (bit_cast::<26, 24>(self.rtt18.val()) << 1)
            + bit_cast::<26, 1>(self.cb18.q.val().into());
        if self.tb18.val().get_bit(16) {
            self.z_sum.next = (bit_cast::<26, 24>(self.rtt18.val()) << 1)
                + bit_cast::<26, 1>(self.cb18.q.val().into())
                + bit_cast::<26, 24>(self.rtt18.val());
        }
        self.z19.d.next = self.z_sum.val();
        self.rcl19.d.next = self.rcl18.q.val();

        // ---- Stages 19 to 21: the sum, the shift, the outputs ------------------------
        self.qq20.d.next = bit_cast::<27, 32>(self.p2_19.q.val()) + bit_cast::<27, 26>(self.z19.q.val());
        self.rr20.d.next =
            bit_cast::<33, 32>(self.p1_19.q.val()) + bit_cast::<33, 16>(self.rcl19.q.val());
        self.s21.d.next =
            bit_cast::<43, 33>(self.rr20.q.val()) + (bit_cast::<43, 27>(self.qq20.q.val()) << 16);
        self.shifted.next = self.s21.q.val() >> self.q_k2[5].q.val();
        self.o_valid.d.next = self.p_valid[20].q.val();
        self.o_flow.d.next = 0.into();
        self.o_kind.d.next = 0.into();
        self.o_cw.d.next = 0.into();
        self.o_stable.d.next = false;
        self.o_ect.d.next = false;
        self.o_interval.d.next = 0.into();
        if self.p_valid[20].q.val() {
            self.o_flow.d.next = self.p_flow[20].q.val();
            self.o_kind.d.next = self.p_kind[20].q.val();
            self.o_cw.d.next = self.q_cw[5].q.val();
            self.o_stable.d.next = self.q_st[5].q.val();
            self.o_ect.d.next = self.q_ect[5].q.val();
            if self.q_lt1[5].q.val() {
                self.o_interval.d.next = self.shifted.val().get_bits::<32>(0);
            }
        }

        // ---- Registers: written now, in force from the next cycle -----------------------
        if self.s_cfg_valid.val() {
            if self.s_cfg_addr.val() == 0 {
                self.r_alpha.d.next = self.s_cfg_data.val().get_bits::<9>(0);
            }
            if self.s_cfg_addr.val() == 1 {
                self.r_beta.d.next = self.s_cfg_data.val().get_bits::<9>(0);
            }
            if self.s_cfg_addr.val() == 2 {
                self.r_gs.d.next = self.s_cfg_data.val().get_bits::<3>(0);
            }
            if self.s_cfg_addr.val() == 3 {
                self.r_iw.d.next = self.s_cfg_data.val();
            }
            if self.s_cfg_addr.val() == 4 {
                self.r_cwm.d.next = self.s_cfg_data.val();
            }
        }

        // ---- The pointer, the clearing ----------------------------------------------
        self.ptr.d.next = self.ptr.q.val() + 1;
        if self.busy.q.val() & (self.ptr.q.val() == 0) {
            self.busy.d.next = false;
        }
        self.sweep_q.d.next = self.sweep_q.q.val() & (self.ptr.q.val() != self.last_flow.val());

        // ---- Reset wins over every load ---------------------------------------------
        if self.rst.val() {
            self.busy.d.next = true;
            self.ptr.d.next = 1.into();
            self.sweep_q.d.next = true;
            self.r_alpha.d.next = self.reset_alpha.val();
            self.r_beta.d.next = self.reset_beta.val();
            self.r_gs.d.next = self.reset_gs.val();
            self.r_iw.d.next = self.reset_iw.val();
            self.r_cwm.d.next = self.reset_cwm.val();
            self.o_valid.d.next = false;
            self.o_flow.d.next = 0.into();
            self.o_kind.d.next = 0.into();
            self.o_cw.d.next = 0.into();
            self.o_stable.d.next = false;
            self.o_ect.d.next = false;
            self.o_interval.d.next = 0.into();
        }

        self.s_ev_ready.next = !self.busy.q.val();
        self.m_cc_valid.next = self.o_valid.q.val();
        self.m_cc_flow.next = self.o_flow.q.val();
        self.m_cc_kind.next = self.o_kind.q.val();
        self.m_cc_cw.next = self.o_cw.q.val();
        self.m_cc_stable.next = self.o_stable.q.val();
        self.m_cc_ect.next = self.o_ect.q.val();
        self.m_cc_interval.next = self.o_interval.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

crate::flow_block_glue!("LDCP_TX", LdcpTx, LdcpTxConfig, LdcpTxSim, LdcpTxIn, LdcpTxOut);

/// Signals whose bits are left unread on purpose (docs/lint.md).
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("prod_na", "bits 31:17: n * alpha256 < 2^17 (8 x 9 bits)"),
    ("prod_nb", "bits 31:17: n * beta256 < 2^17 (8 x 9 bits)"),
    ("idx_a", "bits 24:10: the index is the 10 bits below the leading one"),
    ("inc_sh", "bits 35:33: the increase is below 2^33"),
    ("idx_b", "bits 15:10: the index is the 10 bits below the leading one"),
    ("x_dec", "bits 41:40: read only when within [gamma, cw_max * ONE] (40 bits)"),
    ("x_inc", "bits 41:40: read only when within the ceiling (40 bits)"),
    ("x_g", "bits 41:40: read only when within the ceiling (40 bits)"),
    ("y_dlo", "bits 40:0: a clamp test, its sign only"),
    ("y_dhi", "bits 40:0: a clamp test, its sign only"),
    ("y_inc", "bits 40:0: a clamp test, its sign only"),
    ("y_hlo", "bits 40:0: a clamp test, its sign only"),
    ("y_hhi", "bits 40:0: a clamp test, its sign only"),
    ("y_ghi", "bits 40:0: a clamp test, its sign only"),
    ("y_done", "bits 16:0: acked >= iw - n, the sign only"),
    ("y_ect", "bits 16:0: sent >= iw - 1, the sign only"),
    ("lo15", "bit 0: no bit above it set means the leading one is bit 17"),
    ("shifted", "bits 42:32: the interval is below 2^31"),
    ("tb$view", "bits 13:0: below the bits that index the reciprocal table"),
    ("tb$pre", "the tables' stage-6 words are not read"),
    ("tl$pre", "the tables' stage-6 words are not read"),
];

/// The finished Verilog file for LDCP_TX.
pub fn verilog(config: &LdcpTxConfig) -> Result<String, ParamError> {
    let raw = crate::emit::waive_unused(&raw_verilog(config)?, LINT_WAIVERS);
    let r = &config.reset;
    let params = [
        ("flow_bits", config.shape.flow_bits.to_string()),
        ("reset.alpha", format!("{} / 256", r.alpha)),
        ("reset.beta", format!("{} / 256", r.beta)),
        ("reset.gamma_shift", r.gamma_shift.to_string()),
        ("reset.iw", format!("{} packets", r.iw)),
        ("reset.cw_max", format!("{} packets", r.cw_max)),
    ];
    Ok(crate::emit::finish(
        "ldcp_tx",
        "LDCP sender: per-flow window by PAWA, fast start, pacing interval below one packet",
        &format!(
            "II = 1; each event's result {LATENCY} cycles after it; s_ev_ready low for 2^flow_bits cycles after reset"
        ),
        &params,
        &raw,
    ))
}

struct LdcpTxSim<const FB: usize>(LdcpTx<FB>);

impl<const FB: usize> crate::sim::CycleSim<LdcpTxIn, LdcpTxOut> for LdcpTxSim<FB> {
    fn cycle(&mut self, i: &LdcpTxIn) -> LdcpTxOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_ev_valid.next = i.ev_valid;
        b.s_ev_flow.next = (i.ev_flow as u64).to_bits();
        b.s_ev_kind.next = (i.ev_kind as u64).to_bits();
        b.s_ev_n.next = (i.ev_n as u64).to_bits();
        b.s_ev_ece.next = i.ev_ece;
        b.s_ev_last.next = i.ev_last;
        b.s_ev_rtt.next = (i.ev_rtt as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = (i.cfg_addr as u64).to_bits();
        b.s_cfg_data.next = (i.cfg_data as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "LDCP_TX logic did not settle"
        );
        let out = LdcpTxOut {
            ev_ready: b.s_ev_ready.val(),
            cc_valid: b.m_cc_valid.val(),
            cc_flow: b.m_cc_flow.val().to_u32(),
            cc_kind: b.m_cc_kind.val().to_u32(),
            cc_cw: b.m_cc_cw.val().to_u64(),
            cc_stable: b.m_cc_stable.val(),
            cc_ect: b.m_cc_ect.val(),
            cc_interval: b.m_cc_interval.val().to_u32(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "LDCP_TX logic did not settle"
        );
        out
    }
}
