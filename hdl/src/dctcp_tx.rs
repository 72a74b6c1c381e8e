//! DCTCP_TX — the DCTCP sender: per flow the sequence window, `alpha` and
//! `cwnd`, updated by every ACK (seed 000 §3.3). The rule and the timing
//! contract are specified in `ccrtl_golden::dctcp_tx`; `docs/dctcp_tx.md`
//! has the port and register tables and the design notes.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits` in {4, 8, 12, 16}: `F = 2^FB` flows;
//! - the reset values of the five registers.
//!
//! # Three loops, six tables
//! Nothing in the sequence logic depends on `alpha` or `cwnd`, and `alpha`
//! never depends on `cwnd`, so the per-flow work is three one-cycle loops
//! that feed only forward, each with its own tables ([`FwdTable`]: a
//! block RAM whose read, seven cycles later, shows every earlier write):
//! 1. *sequence loop*, stage 7: `SND.UNA` and `WindowEnd` (table `t1a`),
//!    the window's start `ws` and `D = marked - SND.UNA` (`t1b`), the seen
//!    and cut flags (`t1c`): 130 bits. The window's byte counts are
//!    differences of these (`acked = SEG.ACK - ws`; `marked = D + SEG.ACK`
//!    with ECE, `D + SND.UNA` without), so the loop has one 32-bit carry
//!    chain per field, side by side, and no sum of sums. A window never
//!    holds `2^32` bytes or more (docs/dctcp_tx.md, "Number formats"), so
//!    the counters' saturation never binds and the differences are exact.
//! 2. *alpha loop*, stage 19: `alpha` (`t2`, 17 bits), after an 11-stage
//!    divider (stages 8 to 18, one quotient bit each) gives `M`.
//! 3. *cwnd loop*, stage 23: `cwnd`, `ssthresh` (`t3a`), the byte-counting
//!    accumulator and a seen bit (`t3b`): 73 bits. The cut's product is
//!    computed before it (stages 20 to 22) from the flow's `cwnd` of 4
//!    cycles before ([`ccrtl_golden::dctcp_tx::CUT_LAG`]). `t3*` are
//!    written a cycle after the loop, from its registered new words, so
//!    that its adders do not reach the tables' forwarding multiplexers:
//!    `t3`'s view at stage 20 shows the writes of the ACKs 5 and more
//!    cycles ahead, the one 4 ahead is taken from its write register at
//!    20, and the loop forwards the last 3 itself.
//!
//! # Pipeline (II = 1, latency 24), stage `k` is cycle `n + k`
//! - 0 (ports): `t1*` read.
//! - 1: `after(SEG.ACK, SND.NXT)` (stage 2).
//! - 6: the sequence loop's tests of the next ACK, a cycle early:
//!   `after(SEG.ACK, c)` for each value `c` of `SND.UNA` and `WindowEnd`
//!   at stage 7 (registered).
//! - 7: the sequence loop, selecting among those tests; `t1*` written.
//! - 8 to 18: the divider: `M = floor(marked * 1024 / acked)`; at 18
//!   also `(M << 6) >> gshift`, for both values of its last bit.
//! - 12: `t2` read; 13: `t3*` read.
//! - 19: the alpha loop; `t2` written.
//! - 20: the cut's operand: `t3`'s `cwnd`, or `clamp(init_cwnd)` for a flow
//!   not seen 4 cycles before.
//! - 21: the product on two 16 x 16 multipliers; 22: their sum, shifted:
//!   `R = floor(base * alpha10 / 2048)`; the forwarding of the ACKs two and
//!   three ahead.
//! - 23: the cwnd loop; the outputs registered.
//! - 24: `t3*` written.
//!
//! # Registers
//! A write in cycle `w` is in force for the ACKs accepted from `w + 1`: the
//! write travels down a pipeline (`c_*`) and each stage that reads a
//! register has its own copy, loaded when the write reaches that stage
//! (`gshift` at 18 and 19; the cwnd registers at 20, carried with the ACK to
//! 23).
//!
//! # Clearing after reset
//! The seen bits (`t1c`, `t3b`) are cleared as DCTCP_RX's table: flow 0 in
//! the reset cycle, flows 1 to `F - 1` in the next cycles, `s_ack_ready`
//! low meanwhile. The other tables need no clearing: a flow's first ACK
//! writes them without reading.

use ccrtl_golden::dctcp_tx::{DctcpTxConfig, DctcpTxIn, DctcpTxOut, LATENCY};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::fwd::FwdTable;
use crate::param::Param;

/// Stages 1 to 7 (index `k - 1`).
const A: usize = 7;
/// Stages 8 to 23 (index `k - 8`).
const B: usize = 16;
/// Divider stages 8 to 18.
const DIV: usize = 11;
/// Register-write pipeline: the write of cycle `w` at index `j` in `w + 1 + j`.
const CFG: usize = 20;

#[derive(LogicBlock, Default)]
pub struct DctcpTx<const FB: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // ACKs, one per cycle.
    pub s_ack_valid: Signal<In, Bit>,
    /// Low while the flow table is cleared after a reset.
    pub s_ack_ready: Signal<Out, Bit>,
    pub s_ack_flow: Signal<In, Bits<FB>>,
    /// `SEG.ACK`.
    pub s_ack_seq: Signal<In, Bits<32>>,
    pub s_ack_ece: Signal<In, Bit>,
    /// The transport's `SND.NXT` for the flow.
    pub s_ack_snd_nxt: Signal<In, Bits<32>>,
    // Register writes, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<3>>,
    pub s_cfg_data: Signal<In, Bits<24>>,

    // The result of each ACK, 24 cycles after it.
    pub m_cc_valid: Signal<Out, Bit>,
    pub m_cc_flow: Signal<Out, Bits<FB>>,
    /// `cwnd` after the ACK, bytes.
    pub m_cc_cwnd: Signal<Out, Bits<24>>,
    /// `alpha10` after the ACK (1.0 = 1024).
    pub m_cc_alpha: Signal<Out, Bits<11>>,
    pub m_cc_cut: Signal<Out, Bit>,
    pub m_cc_window_ended: Signal<Out, Bit>,

    // ---- Tables ----------------------------------------------------------
    /// `{WindowEnd, SND.UNA}`.
    t1a: FwdTable<64, FB>,
    /// `{D, ws}`.
    t1b: FwdTable<64, FB>,
    /// `{cut flag, seen}`.
    t1c: FwdTable<2, FB>,
    /// `alpha`.
    t2: FwdTable<17, FB>,
    /// `{ssthresh, cwnd}`.
    t3a: FwdTable<48, FB>,
    /// `{seen, ca}`.
    t3b: FwdTable<25, FB>,

    // ---- Clearing --------------------------------------------------------
    busy: DFF<Bit>,
    ptr: DFF<Bits<FB>>,
    sweep_q: DFF<Bit>,

    // ---- Stages 1 to 7 ---------------------------------------------------
    a_valid: Vec<DFF<Bit>>,
    a_flow: Vec<DFF<Bits<FB>>>,
    a_seq: Vec<DFF<Bits<32>>>,
    a_ece: Vec<DFF<Bit>>,
    a_nxt: Vec<DFF<Bits<32>>>,
    /// `after(SEG.ACK, SND.NXT)`, stages 2 to 7 (index `k - 2`).
    a_pnxt: Vec<DFF<Bit>>,
    /// `-SEG.ACK` (stage 7, from 6).
    a_neg: DFF<Bits<32>>,
    /// The sequence loop's tests, made a cycle early (stage 6 -> 7):
    /// `SEG.ACK` after each value the flow's `SND.UNA` (`au_*`) and
    /// `WindowEnd` (`aw_*`) can have at stage 7. If the ACK at stage 7 is
    /// of the same flow (`s_e1`), its new `SND.UNA` is its `SEG.ACK`
    /// (`au_seq`) or its `SND.UNA` (`au_una`), its new `WindowEnd` its
    /// `SEG.ACK`, its `SND.NXT` (`aw_nxt`) or its `WindowEnd` (`aw_wend`),
    /// as its selects say (`q_*`, registered from the loop); else the
    /// table's word (`au_pre`, `aw_pre`).
    s_e1: DFF<Bit>,
    au_seq: DFF<Bit>,
    au_una: DFF<Bit>,
    au_pre: DFF<Bit>,
    aw_nxt: DFF<Bit>,
    aw_wend: DFF<Bit>,
    aw_pre: DFF<Bit>,
    q_una: DFF<Bit>,
    q_wend: DFF<Bit>,
    q_wseq: DFF<Bit>,

    // ---- Stages 8 to 23: the sequence loop's results -------------------
    b_valid: Vec<DFF<Bit>>,
    b_flow: Vec<DFF<Bits<FB>>>,
    b_first: Vec<DFF<Bit>>,
    b_acc: Vec<DFF<Bit>>,
    b_we: Vec<DFF<Bit>>,
    b_cut: Vec<DFF<Bit>>,
    /// The cut flag after the ACK (no increase while set).
    b_cdn: Vec<DFF<Bit>>,
    /// Bytes acknowledged (`SEG.ACK - SND.UNA`; meaningful when
    /// acceptable), stages 8 to 21 (the increments are made at 21).
    /// `min(b, 2^24 - 1)`: both increments (`min(b, 2 mss)`, `min(b, 2^24
    /// - 1)`) saturate below it.
    b_b: Vec<DFF<Bits<24>>>,

    // ---- The divider, stages 8 to 18 -------------------------------------
    d_rem: Vec<DFF<Bits<33>>>,
    /// The divisor (`acked`), 33 bits wide to compare with the remainder.
    d_div: Vec<DFF<Bits<33>>>,
    /// The quotient's bits so far, stages 9 to 18 (index `k - 9`).
    d_q: Vec<DFF<Bits<11>>>,
    /// `(M << 6) >> gshift` (stage 19), made at 18 from both values of
    /// `M`'s last bit, so that no shift by `gshift` of a late operand is
    /// in the alpha loop's cycle but its state's own.
    k19: DFF<Bits<17>>,

    // ---- Stages 20 to 23 -------------------------------------------------
    /// `alpha10` after the ACK (index `k - 20`).
    al: Vec<DFF<Bits<11>>>,
    /// The cut's operand (stage 21).
    base: DFF<Bits<24>>,
    /// Its partial products (stage 22).
    plo: DFF<Bits<32>>,
    phi: DFF<Bits<32>>,
    /// `R` (stage 23).
    r: DFF<Bits<24>>,
    /// Stage 20: the ACK four ahead (at 24 now, its word in `w_*[0]`, being
    /// written) is valid and of the same flow (compared at 19).
    h20: DFF<Bit>,
    /// `t3`'s view at stage 20 with the write of the ACK four ahead over
    /// it, carried to stages 21 and 22.
    v21_a: DFF<Bits<48>>,
    v21_c: DFF<Bits<24>>,
    v22_a: DFF<Bits<48>>,
    v22_c: DFF<Bits<24>>,
    /// The cwnd loop's state of the ACK at stage 23 (`{ssthresh, cwnd}`,
    /// `ca`), chosen at the end of the cycle before: the new state of the
    /// ACK then at 23 when of the same flow (`e1`), else the forwarded
    /// word (`pre_*`). So the loop's carry chains start at registers.
    l_a: DFF<Bits<48>>,
    l_c: DFF<Bits<24>>,
    /// The ACKs at stages 22 and 23 are valid and of the same flow.
    e1: DFF<Bit>,
    /// The cwnd loop's new words of the last two cycles (the ACKs at 24
    /// and 25); `t3*` are written from `w_*[0]`, a cycle after the loop.
    w_valid: Vec<DFF<Bit>>,
    w_flow: Vec<DFF<Bits<FB>>>,
    w_a: Vec<DFF<Bits<48>>>,
    w_c: Vec<DFF<Bits<24>>>,

    // ---- Registers -------------------------------------------------------
    c_valid: Vec<DFF<Bit>>,
    c_addr: Vec<DFF<Bits<3>>>,
    c_data: Vec<DFF<Bits<24>>>,
    g19: DFF<Bits<4>>,
    /// `gshift` of the ACK at stage 18.
    g18: DFF<Bits<4>>,
    init20: DFF<Bits<24>>,
    min20: DFF<Bits<24>>,
    max20: DFF<Bits<24>>,
    mss20: DFF<Bits<16>>,
    /// The cwnd registers of the ACK, carried from stage 20: stage 21
    /// (`p21_*`), 22 (`p22_*`), 23 (`p23_*`). `lo = min(cwnd_min,
    /// cwnd_max)` (where a value below `cwnd_min` goes), `ci =
    /// clamp(init_cwnd)`.
    p21_mss: DFF<Bits<16>>,
    p21_min: DFF<Bits<24>>,
    p21_max: DFF<Bits<24>>,
    p21_lo: DFF<Bits<24>>,
    p21_ci: DFF<Bits<24>>,
    p22_mss: DFF<Bits<16>>,
    p22_min: DFF<Bits<24>>,
    p22_max: DFF<Bits<24>>,
    p22_lo: DFF<Bits<24>>,
    p22_ci: DFF<Bits<24>>,
    /// `min(b, 2 mss)`, `min(b, 2^24 - 1)` (stage 22, from 21).
    p22_ssinc: DFF<Bits<26>>,
    p22_b24: DFF<Bits<26>>,
    p23_mss: DFF<Bits<16>>,
    p23_max: DFF<Bits<24>>,
    p23_lo: DFF<Bits<24>>,
    p23_ci: DFF<Bits<24>>,
    p23_ssinc: DFF<Bits<26>>,
    p23_b24: DFF<Bits<26>>,
    /// The clamp tests' thresholds for each candidate (stage 23): a
    /// candidate `cwnd + d` is above `cwnd_max` when `cwnd - hi >= 0`
    /// (`hi = cwnd_max + 1 - d`) and below `cwnd_min` when `cwnd - lo < 0`
    /// (`lo = cwnd_min - d`); 26-bit two's complement. The cut's `d` is
    /// `-R`, summed before the shift: `hi = floor((P + (cwnd_max + 1) 2^11)
    /// / 2^11)` with `P = base * alpha10`.
    t_hi_cut: DFF<Bits<26>>,
    t_lo_cut: DFF<Bits<26>>,
    t_hi_ss: DFF<Bits<26>>,
    t_lo_ss: DFF<Bits<26>>,
    t_hi_ca: DFF<Bits<26>>,
    t_lo_ca: DFF<Bits<26>>,
    t_hi_0: DFF<Bits<26>>,
    t_lo_0: DFF<Bits<26>>,

    // ---- Outputs ---------------------------------------------------------
    o_valid: DFF<Bit>,
    o_flow: DFF<Bits<FB>>,
    o_cwnd: DFF<Bits<24>>,
    o_alpha: DFF<Bits<11>>,
    o_cut: DFF<Bit>,
    o_we: DFF<Bit>,

    // ---- Combinational ---------------------------------------------------
    accept: Signal<Local, Bit>,
    sweep: Signal<Local, Bit>,
    dn: Signal<Local, Bits<32>>,
    // The sequence loop.
    v_una: Signal<Local, Bits<32>>,
    v_wend: Signal<Local, Bits<32>>,
    v_ws: Signal<Local, Bits<32>>,
    v_d: Signal<Local, Bits<32>>,
    v_seen: Signal<Local, Bit>,
    v_cd: Signal<Local, Bit>,
    du: Signal<Local, Bits<32>>,
    // SEG.ACK of the ACK at stage 6 minus each candidate, and back.
    y_seq: Signal<Local, Bits<33>>,
    y_una: Signal<Local, Bits<33>>,
    y_pre: Signal<Local, Bits<33>>,
    y_nxt: Signal<Local, Bits<33>>,
    y_wend: Signal<Local, Bits<33>>,
    y_prew: Signal<Local, Bits<33>>,
    z_seq: Signal<Local, Bits<33>>,
    z_una: Signal<Local, Bits<33>>,
    z_pre: Signal<Local, Bits<33>>,
    z_nxt: Signal<Local, Bits<33>>,
    z_wend: Signal<Local, Bits<33>>,
    z_prew: Signal<Local, Bits<33>>,
    ahead_una: Signal<Local, Bit>,
    ahead_wend: Signal<Local, Bit>,
    k_s: Signal<Local, Bits<32>>,
    k_c: Signal<Local, Bits<32>>,
    d_keep: Signal<Local, Bits<32>>,
    mk_ece: Signal<Local, Bits<32>>,
    mk_plain: Signal<Local, Bits<32>>,
    acked_sum: Signal<Local, Bits<32>>,
    first: Signal<Local, Bit>,
    acc: Signal<Local, Bit>,
    wend: Signal<Local, Bit>,
    cut: Signal<Local, Bit>,
    cdn: Signal<Local, Bit>,
    n_una: Signal<Local, Bits<32>>,
    n_wend: Signal<Local, Bits<32>>,
    n_ws: Signal<Local, Bits<32>>,
    n_d: Signal<Local, Bits<32>>,
    // The alpha loop.
    /// `M` with its last bit 0 (stage 18).
    m_0: Signal<Local, Bits<11>>,
    /// `(M << 6) >> gshift` for `M`'s last bit 0 and 1 (stage 18).
    ka_0: Signal<Local, Bits<17>>,
    ka_1: Signal<Local, Bits<17>>,
    a_cur: Signal<Local, Bits<17>>,
    a_upd: Signal<Local, Bits<17>>,
    a_new: Signal<Local, Bits<17>>,
    // The cut's operand and product.
    ci_lo: Signal<Local, Bits<24>>,
    r_sum: Signal<Local, Bits<40>>,
    ci20: Signal<Local, Bits<24>>,
    // The cwnd loop.
    pre_a: Signal<Local, Bits<48>>,
    pre_c: Signal<Local, Bits<24>>,
    c_ss: Signal<Local, Bit>,
    m_inc: Signal<Local, Bit>,
    m_cut: Signal<Local, Bit>,
    m_cdn: Signal<Local, Bit>,
    sat: Signal<Local, Bit>,
    // The new cwnd (`_n`) and the next ACK's (`_l`): early candidate,
    // then the cut's or no increase's, then each value of the step.
    e_n: Signal<Local, Bits<24>>,
    u_n: Signal<Local, Bits<24>>,
    a1_n: Signal<Local, Bits<24>>,
    a0_n: Signal<Local, Bits<24>>,
    e_l: Signal<Local, Bits<24>>,
    u_l: Signal<Local, Bits<24>>,
    a1_l: Signal<Local, Bits<24>>,
    a0_l: Signal<Local, Bits<24>>,
    l_ss: Signal<Local, Bits<24>>,
    l_cw: Signal<Local, Bits<24>>,
    // The new ca and the next ACK's.
    g_n: Signal<Local, Bit>,
    p_n: Signal<Local, Bit>,
    keep_n: Signal<Local, Bits<24>>,
    z_n: Signal<Local, Bits<24>>,
    g_l: Signal<Local, Bit>,
    p_l: Signal<Local, Bit>,
    keep_l: Signal<Local, Bits<24>>,
    z_l: Signal<Local, Bits<24>>,
    cw: Signal<Local, Bits<24>>,
    ss: Signal<Local, Bits<24>>,
    ca: Signal<Local, Bits<24>>,
    max1_22: Signal<Local, Bits<26>>,
    s_hi_cut: Signal<Local, Bits<40>>,
    s_lo_cut: Signal<Local, Bits<40>>,
    x_cut: Signal<Local, Bits<26>>,
    x_cut_hi: Signal<Local, Bits<26>>,
    x_cut_lo: Signal<Local, Bits<26>>,
    x_ss: Signal<Local, Bits<26>>,
    x_ss_hi: Signal<Local, Bits<26>>,
    x_ss_lo: Signal<Local, Bits<26>>,
    x_ca: Signal<Local, Bits<26>>,
    x_ca_hi: Signal<Local, Bits<26>>,
    x_ca_lo: Signal<Local, Bits<26>>,
    x_0_hi: Signal<Local, Bits<26>>,
    x_0_lo: Signal<Local, Bits<26>>,
    k_cut: Signal<Local, Bits<24>>,
    k_ss: Signal<Local, Bits<24>>,
    k_ca: Signal<Local, Bits<24>>,
    k_0: Signal<Local, Bits<24>>,
    lt_ss: Signal<Local, Bits<26>>,
    ca_sum: Signal<Local, Bits<26>>,
    ca_diff: Signal<Local, Bits<26>>,
    ncw: Signal<Local, Bits<26>>,
    csa_s: Signal<Local, Bits<26>>,
    csa_c: Signal<Local, Bits<26>>,
    ca_step: Signal<Local, Bit>,
    n_cw: Signal<Local, Bits<24>>,
    n_ss: Signal<Local, Bits<24>>,
    n_ca: Signal<Local, Bits<24>>,

    reset_g: Param<Bits<4>>,
    reset_mss: Param<Bits<16>>,
    reset_init: Param<Bits<24>>,
    reset_min: Param<Bits<24>>,
    reset_max: Param<Bits<24>>,
    last_flow: Param<Bits<FB>>,
}

fn dffs<T: Synth>(n: usize) -> Vec<DFF<T>> {
    (0..n).map(|_| DFF::default()).collect()
}

impl<const FB: usize> DctcpTx<FB> {
    /// The block with the reset values of `config`. The caller has
    /// validated `config` and chosen `FB` equal to its shape.
    pub fn new(config: &DctcpTxConfig) -> Self {
        assert_eq!(config.shape.flow_bits as usize, FB);
        let r = &config.reset;
        Self {
            t1a: FwdTable::new(),
            t1b: FwdTable::new(),
            t1c: FwdTable::new(),
            t2: FwdTable::new(),
            t3a: FwdTable::new(),
            t3b: FwdTable::new(),
            a_valid: dffs(A),
            a_flow: dffs(A),
            a_seq: dffs(A),
            a_ece: dffs(A),
            a_nxt: dffs(A),
            a_pnxt: dffs(A - 1),
            b_valid: dffs(B),
            b_flow: dffs(B),
            b_first: dffs(B),
            b_acc: dffs(B),
            b_we: dffs(B),
            b_cut: dffs(B),
            b_cdn: dffs(B),
            b_b: dffs(B - 2),
            d_rem: dffs(DIV),
            d_div: dffs(DIV),
            d_q: dffs(DIV - 1),
            al: dffs(4),
            w_valid: dffs(2),
            w_flow: dffs(2),
            w_a: dffs(2),
            w_c: dffs(2),
            c_valid: dffs(CFG),
            c_addr: dffs(CFG),
            c_data: dffs(CFG),
            reset_g: Param::new((r.gshift as u64).to_bits()),
            reset_mss: Param::new((r.mss as u64).to_bits()),
            reset_init: Param::new((r.init_cwnd as u64).to_bits()),
            reset_min: Param::new((r.cwnd_min as u64).to_bits()),
            reset_max: Param::new((r.cwnd_max as u64).to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            ..Default::default()
        }
    }
}

impl<const FB: usize> Logic for DctcpTx<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, busy, ptr, sweep_q, a_neg, s_e1, au_seq, au_una, au_pre, aw_nxt, aw_wend,
            aw_pre, q_una, q_wend, q_wseq, k19, base, plo, phi, r, h20, v21_a, v21_c, v22_a, v22_c,
            l_a, l_c, e1, g19, g18, init20, min20, max20, mss20, p21_mss, p21_min, p21_max, p21_lo,
            p21_ci, p22_mss, p22_min, p22_max, p22_lo, p22_ci, p22_ssinc, p22_b24, p23_mss,
            p23_max, p23_lo, p23_ci, p23_ssinc, p23_b24, t_hi_cut, t_lo_cut, t_hi_ss, t_lo_ss,
            t_hi_ca, t_lo_ca, t_hi_0, t_lo_0, o_valid, o_flow, o_cwnd, o_alpha, o_cut, o_we
        );
        for k in 0..7 {
            self.a_valid[k].clock.next = self.clk.val();
            self.a_flow[k].clock.next = self.clk.val();
            self.a_seq[k].clock.next = self.clk.val();
            self.a_ece[k].clock.next = self.clk.val();
            self.a_nxt[k].clock.next = self.clk.val();
        }
        for k in 0..6 {
            self.a_pnxt[k].clock.next = self.clk.val();
        }
        for k in 0..16 {
            self.b_valid[k].clock.next = self.clk.val();
            self.b_flow[k].clock.next = self.clk.val();
            self.b_first[k].clock.next = self.clk.val();
            self.b_acc[k].clock.next = self.clk.val();
            self.b_we[k].clock.next = self.clk.val();
            self.b_cut[k].clock.next = self.clk.val();
            self.b_cdn[k].clock.next = self.clk.val();
        }
        for k in 0..14 {
            self.b_b[k].clock.next = self.clk.val();
        }
        for k in 0..11 {
            self.d_rem[k].clock.next = self.clk.val();
            self.d_div[k].clock.next = self.clk.val();
        }
        for k in 0..10 {
            self.d_q[k].clock.next = self.clk.val();
        }
        for k in 0..4 {
            self.al[k].clock.next = self.clk.val();
        }
        for k in 0..2 {
            self.w_valid[k].clock.next = self.clk.val();
            self.w_flow[k].clock.next = self.clk.val();
            self.w_a[k].clock.next = self.clk.val();
            self.w_c[k].clock.next = self.clk.val();
        }
        for k in 0..20 {
            self.c_valid[k].clock.next = self.clk.val();
            self.c_addr[k].clock.next = self.clk.val();
            self.c_data[k].clock.next = self.clk.val();
        }
        self.t1a.clk.next = self.clk.val();
        self.t1b.clk.next = self.clk.val();
        self.t1c.clk.next = self.clk.val();
        self.t2.clk.next = self.clk.val();
        self.t3a.clk.next = self.clk.val();
        self.t3b.clk.next = self.clk.val();

        // ---- Ports into stage 1; the tables of loop 1 read -----------------
        self.accept.next = self.s_ack_valid.val() & !self.busy.q.val() & !self.rst.val();
        self.a_valid[0].d.next = self.accept.val();
        self.a_flow[0].d.next = self.s_ack_flow.val();
        self.a_seq[0].d.next = self.s_ack_seq.val();
        self.a_ece[0].d.next = self.s_ack_ece.val();
        self.a_nxt[0].d.next = self.s_ack_snd_nxt.val();
        self.t1a.rd_flow.next = self.s_ack_flow.val();
        self.t1b.rd_flow.next = self.s_ack_flow.val();
        self.t1c.rd_flow.next = self.s_ack_flow.val();
        // The valids of stages 2 to 7 and 8 to 23, and of the register
        // writes in flight, are dropped by a reset.
        for k in 1..7 {
            self.a_valid[k].d.next = self.a_valid[k - 1].q.val() & !self.rst.val();
            self.a_flow[k].d.next = self.a_flow[k - 1].q.val();
            self.a_seq[k].d.next = self.a_seq[k - 1].q.val();
            self.a_ece[k].d.next = self.a_ece[k - 1].q.val();
            self.a_nxt[k].d.next = self.a_nxt[k - 1].q.val();
        }
        // Stage 1: SEG.ACK after SND.NXT (the ACK is then unacceptable).
        self.dn.next = self.a_seq[0].q.val() - self.a_nxt[0].q.val();
        self.a_pnxt[0].d.next =
            !self.dn.val().get_bit(31) & (self.a_seq[0].q.val() != self.a_nxt[0].q.val());
        for k in 1..6 {
            self.a_pnxt[k].d.next = self.a_pnxt[k - 1].q.val();
        }
        // Stage 6: -SEG.ACK (the window's D after a first ACK or a window
        // end; a term of D + SND.UNA - SEG.ACK).
        self.a_neg.d.next = bits::<32>(0) - self.a_seq[5].q.val();

        // ---- Stage 7: the sequence loop ------------------------------------
        self.v_una.next = self.t1a.view.val().get_bits::<32>(0);
        self.v_wend.next = self.t1a.view.val().get_bits::<32>(32);
        self.v_ws.next = self.t1b.view.val().get_bits::<32>(0);
        self.v_d.next = self.t1b.view.val().get_bits::<32>(32);
        self.v_seen.next = self.t1c.view.val().get_bit(0);
        self.v_cd.next = self.t1c.view.val().get_bit(1);
        // Stage 6: the next ACK's tests (`after(SEG.ACK, c)`: the
        // difference's sign 0, and not equal, i.e. a borrow one way or the
        // other), each candidate's two carry chains side by side.
        self.y_seq.next =
            bit_cast::<33, 32>(self.a_seq[5].q.val()) - bit_cast::<33, 32>(self.a_seq[6].q.val());
        self.z_seq.next =
            bit_cast::<33, 32>(self.a_seq[6].q.val()) - bit_cast::<33, 32>(self.a_seq[5].q.val());
        self.y_una.next =
            bit_cast::<33, 32>(self.a_seq[5].q.val()) - bit_cast::<33, 32>(self.v_una.val());
        self.z_una.next =
            bit_cast::<33, 32>(self.v_una.val()) - bit_cast::<33, 32>(self.a_seq[5].q.val());
        self.y_nxt.next =
            bit_cast::<33, 32>(self.a_seq[5].q.val()) - bit_cast::<33, 32>(self.a_nxt[6].q.val());
        self.z_nxt.next =
            bit_cast::<33, 32>(self.a_nxt[6].q.val()) - bit_cast::<33, 32>(self.a_seq[5].q.val());
        self.y_wend.next =
            bit_cast::<33, 32>(self.a_seq[5].q.val()) - bit_cast::<33, 32>(self.v_wend.val());
        self.z_wend.next =
            bit_cast::<33, 32>(self.v_wend.val()) - bit_cast::<33, 32>(self.a_seq[5].q.val());
        self.y_pre.next = bit_cast::<33, 32>(self.a_seq[5].q.val())
            - bit_cast::<33, 32>(self.t1a.pre.val().get_bits::<32>(0));
        self.z_pre.next = bit_cast::<33, 32>(self.t1a.pre.val().get_bits::<32>(0))
            - bit_cast::<33, 32>(self.a_seq[5].q.val());
        self.y_prew.next = bit_cast::<33, 32>(self.a_seq[5].q.val())
            - bit_cast::<33, 32>(self.t1a.pre.val().get_bits::<32>(32));
        self.z_prew.next = bit_cast::<33, 32>(self.t1a.pre.val().get_bits::<32>(32))
            - bit_cast::<33, 32>(self.a_seq[5].q.val());
        self.au_seq.d.next = !self.y_seq.val().get_bit(31)
            & (self.y_seq.val().get_bit(32) | self.z_seq.val().get_bit(32));
        self.au_una.d.next = !self.y_una.val().get_bit(31)
            & (self.y_una.val().get_bit(32) | self.z_una.val().get_bit(32));
        self.au_pre.d.next = !self.y_pre.val().get_bit(31)
            & (self.y_pre.val().get_bit(32) | self.z_pre.val().get_bit(32));
        self.aw_nxt.d.next = !self.y_nxt.val().get_bit(31)
            & (self.y_nxt.val().get_bit(32) | self.z_nxt.val().get_bit(32));
        self.aw_wend.d.next = !self.y_wend.val().get_bit(31)
            & (self.y_wend.val().get_bit(32) | self.z_wend.val().get_bit(32));
        self.aw_pre.d.next = !self.y_prew.val().get_bit(31)
            & (self.y_prew.val().get_bit(32) | self.z_prew.val().get_bit(32));
        // The ACK at 6 sees the write of the one at 7 (the table's own
        // test: t1a's write port is the ACK at 7's).
        self.s_e1.d.next =
            self.a_valid[6].q.val() & (self.a_flow[6].q.val() == self.a_flow[5].q.val());

        // Stage 7: b, the window's counts (carry chains off the loop).
        self.du.next = self.a_seq[6].q.val() - self.v_una.val();
        // D + SND.UNA - SEG.ACK: one carry-save level, one chain.
        self.k_s.next = self.v_d.val() ^ self.v_una.val() ^ self.a_neg.q.val();
        self.k_c.next = ((self.v_d.val() & self.v_una.val())
            | (self.v_d.val() & self.a_neg.q.val())
            | (self.v_una.val() & self.a_neg.q.val()))
            << 1;
        self.d_keep.next = self.k_s.val() + self.k_c.val();
        self.mk_ece.next = self.v_d.val() + self.a_seq[6].q.val();
        self.mk_plain.next = self.v_d.val() + self.v_una.val();
        self.acked_sum.next = self.a_seq[6].q.val() - self.v_ws.val();
        // The loop: its tests are registers, selected.
        self.ahead_una.next = self.au_pre.q.val();
        self.ahead_wend.next = self.aw_pre.q.val();
        if self.s_e1.q.val() {
            self.ahead_una.next = self.au_una.q.val();
            if self.q_una.q.val() {
                self.ahead_una.next = self.au_seq.q.val();
            }
            self.ahead_wend.next = self.aw_wend.q.val();
            if self.q_wend.q.val() {
                self.ahead_wend.next = self.aw_nxt.q.val();
                if self.q_wseq.q.val() {
                    self.ahead_wend.next = self.au_seq.q.val();
                }
            }
        }
        self.first.next = !self.v_seen.val();
        self.acc.next = self.v_seen.val() & self.ahead_una.val() & !self.a_pnxt[5].q.val();
        self.wend.next = self.acc.val() & self.ahead_wend.val();
        // This ACK's selects, for the next one (`au_*`, `aw_*` above).
        self.q_una.d.next = self.first.val() | self.acc.val();
        self.q_wend.d.next = self.first.val() | self.wend.val();
        self.q_wseq.d.next = self.first.val() & self.a_pnxt[5].q.val();
        self.cut.next =
            self.acc.val() & self.a_ece[6].q.val() & (!self.v_cd.val() | self.wend.val());
        self.cdn.next = self.v_cd.val();
        if self.acc.val() {
            self.cdn.next = self.cut.val() | (self.v_cd.val() & !self.wend.val());
        }
        if self.first.val() {
            self.cdn.next = false;
        }
        self.n_una.next = self.v_una.val();
        if self.first.val() | self.acc.val() {
            self.n_una.next = self.a_seq[6].q.val();
        }
        self.n_wend.next = self.v_wend.val();
        self.n_ws.next = self.v_ws.val();
        self.n_d.next = self.v_d.val();
        if self.acc.val() & !self.a_ece[6].q.val() {
            self.n_d.next = self.d_keep.val();
        }
        if self.first.val() | self.wend.val() {
            // A first ACK after SND.NXT: WindowEnd = SEG.ACK (the rule).
            self.n_wend.next = self.a_nxt[6].q.val();
            if self.first.val() & self.a_pnxt[5].q.val() {
                self.n_wend.next = self.a_seq[6].q.val();
            }
            self.n_ws.next = self.a_seq[6].q.val();
            self.n_d.next = self.a_neg.q.val();
        }
        // Every ACK writes its flow's words (unchanged when unacceptable);
        // the clearing writes the seen bits.
        self.sweep.next = self.rst.val() | self.sweep_q.q.val();
        self.t1a.we.next = self.a_valid[6].q.val();
        self.t1a.wflow.next = self.a_flow[6].q.val();
        self.t1a.wword.next =
            bit_cast::<64, 32>(self.n_una.val()) | (bit_cast::<64, 32>(self.n_wend.val()) << 32);
        self.t1b.we.next = self.a_valid[6].q.val();
        self.t1b.wflow.next = self.a_flow[6].q.val();
        self.t1b.wword.next =
            bit_cast::<64, 32>(self.n_ws.val()) | (bit_cast::<64, 32>(self.n_d.val()) << 32);
        self.t1c.we.next = self.a_valid[6].q.val() | self.sweep.val();
        self.t1c.wflow.next = self.a_flow[6].q.val();
        self.t1c.wword.next = bits::<2>(1) | (bit_cast::<2, 1>(self.cdn.val().into()) << 1);
        if self.busy.q.val() | self.rst.val() {
            self.t1c.wflow.next = self.ptr.q.val();
            self.t1c.wword.next = 0.into();
        }
        if self.rst.val() {
            self.t1c.wflow.next = 0.into();
        }
        // Into stage 8 and the divider.
        self.b_valid[0].d.next = self.a_valid[6].q.val() & !self.rst.val();
        self.b_flow[0].d.next = self.a_flow[6].q.val();
        self.b_first[0].d.next = self.first.val();
        self.b_acc[0].d.next = self.acc.val();
        self.b_we[0].d.next = self.wend.val();
        self.b_cut[0].d.next = self.cut.val();
        self.b_cdn[0].d.next = self.cdn.val();
        self.b_b[0].d.next = self.du.val().get_bits::<24>(0);
        if self.du.val().get_bits::<8>(24).any() {
            self.b_b[0].d.next = bits::<24>(0xff_ffff);
        }
        self.d_rem[0].d.next = bit_cast::<33, 32>(self.mk_plain.val());
        if self.a_ece[6].q.val() {
            self.d_rem[0].d.next = bit_cast::<33, 32>(self.mk_ece.val());
        }
        self.d_div[0].d.next = bit_cast::<33, 32>(self.acked_sum.val());
        for k in 1..16 {
            self.b_valid[k].d.next = self.b_valid[k - 1].q.val() & !self.rst.val();
            self.b_flow[k].d.next = self.b_flow[k - 1].q.val();
            self.b_first[k].d.next = self.b_first[k - 1].q.val();
            self.b_acc[k].d.next = self.b_acc[k - 1].q.val();
            self.b_we[k].d.next = self.b_we[k - 1].q.val();
            self.b_cut[k].d.next = self.b_cut[k - 1].q.val();
            self.b_cdn[k].d.next = self.b_cdn[k - 1].q.val();
        }
        for k in 1..14 {
            self.b_b[k].d.next = self.b_b[k - 1].q.val();
        }

        // ---- Stages 8 to 18: the divider, one quotient bit each -------------
        // Stage 8: bit 10 (marked == acked); then 2 rem against acked.
        self.d_div[1].d.next = self.d_div[0].q.val();
        self.d_rem[1].d.next = self.d_rem[0].q.val();
        self.d_q[0].d.next = 0.into();
        if self.d_rem[0].q.val() >= self.d_div[0].q.val() {
            self.d_rem[1].d.next = self.d_rem[0].q.val() - self.d_div[0].q.val();
            self.d_q[0].d.next = 1.into();
        }
        for k in 1..10 {
            self.d_div[k + 1].d.next = self.d_div[k].q.val();
            self.d_rem[k + 1].d.next = self.d_rem[k].q.val() << 1;
            self.d_q[k].d.next = self.d_q[k - 1].q.val() << 1;
            if (self.d_rem[k].q.val() << 1) >= self.d_div[k].q.val() {
                self.d_rem[k + 1].d.next = (self.d_rem[k].q.val() << 1) - self.d_div[k].q.val();
                self.d_q[k].d.next = (self.d_q[k - 1].q.val() << 1) | bits::<11>(1);
            }
        }
        self.m_0.next = self.d_q[9].q.val() << 1;
        self.ka_0.next = (bit_cast::<17, 11>(self.m_0.val()) << 6) >> self.g18.q.val();
        self.ka_1.next =
            (bit_cast::<17, 11>(self.m_0.val() | bits::<11>(1)) << 6) >> self.g18.q.val();
        self.k19.d.next = self.ka_0.val();
        if (self.d_rem[10].q.val() << 1) >= self.d_div[10].q.val() {
            self.k19.d.next = self.ka_1.val();
        }

        // ---- Stage 19: the alpha loop ----------------------------------------
        self.t2.rd_flow.next = self.b_flow[4].q.val();
        self.a_cur.next = self.t2.view.val();
        self.a_upd.next =
            self.a_cur.val() - (self.a_cur.val() >> self.g19.q.val()) + self.k19.q.val();
        self.a_new.next = self.a_cur.val();
        if self.b_acc[11].q.val() & self.b_we[11].q.val() {
            self.a_new.next = self.a_upd.val();
        }
        if self.b_first[11].q.val() {
            self.a_new.next = bits::<17>(1 << 16);
        }
        self.t2.we.next = self.b_valid[11].q.val();
        self.t2.wflow.next = self.b_flow[11].q.val();
        self.t2.wword.next = self.a_new.val();
        self.al[0].d.next = self.a_new.val().get_bits::<11>(6);
        for k in 1..4 {
            self.al[k].d.next = self.al[k - 1].q.val();
        }

        // ---- Stage 20: the cut's operand ----------------------------------
        self.t3a.rd_flow.next = self.b_flow[5].q.val();
        self.t3b.rd_flow.next = self.b_flow[5].q.val();
        // clamp(init_cwnd) with the registers of the ACK's cycle.
        self.ci_lo.next = self.min20.q.val();
        if self.max20.q.val() < self.min20.q.val() {
            self.ci_lo.next = self.max20.q.val();
        }
        self.ci20.next = self.init20.q.val();
        if self.init20.q.val() < self.min20.q.val() {
            self.ci20.next = self.ci_lo.val();
        }
        if self.init20.q.val() > self.max20.q.val() {
            self.ci20.next = self.max20.q.val();
        }
        // The view shows the writes of the ACKs five and more ahead; the
        // one four ahead is written now, from `w_*[0]`.
        self.h20.d.next =
            self.b_valid[15].q.val() & (self.b_flow[15].q.val() == self.b_flow[11].q.val());
        self.base.d.next = self.ci20.val();
        if self.t3b.view.val().get_bit(24) {
            self.base.d.next = self.t3a.view.val().get_bits::<24>(0);
        }
        self.v21_a.d.next = self.t3a.view.val();
        self.v21_c.d.next = self.t3b.view.val().get_bits::<24>(0);
        if self.h20.q.val() {
            self.base.d.next = self.w_a[0].q.val().get_bits::<24>(0);
            self.v21_a.d.next = self.w_a[0].q.val();
            self.v21_c.d.next = self.w_c[0].q.val();
        }
        self.p21_mss.d.next = self.mss20.q.val();
        self.p21_min.d.next = self.min20.q.val();
        self.p21_max.d.next = self.max20.q.val();
        self.p21_lo.d.next = self.ci_lo.val();
        self.p21_ci.d.next = self.ci20.val();

        // ---- Stage 21: the partial products -------------------------------
        self.plo.d.next =
            self.base.q.val().get_bits::<16>(0) * bit_cast::<16, 11>(self.al[1].q.val());
        self.phi.d.next = bit_cast::<16, 8>(self.base.q.val().get_bits::<8>(16))
            * bit_cast::<16, 11>(self.al[1].q.val());
        self.v22_a.d.next = self.v21_a.q.val();
        self.v22_c.d.next = self.v21_c.q.val();
        self.p22_mss.d.next = self.p21_mss.q.val();
        self.p22_min.d.next = self.p21_min.q.val();
        self.p22_max.d.next = self.p21_max.q.val();
        self.p22_lo.d.next = self.p21_lo.q.val();
        self.p22_ci.d.next = self.p21_ci.q.val();
        // b (stage 21 is b_b[13]): the increments.
        self.p22_ssinc.d.next = bit_cast::<26, 17>(bit_cast::<17, 16>(self.p21_mss.q.val()) << 1);
        if self.b_b[13].q.val() < bit_cast::<24, 17>(bit_cast::<17, 16>(self.p21_mss.q.val()) << 1)
        {
            self.p22_ssinc.d.next = bit_cast::<26, 24>(self.b_b[13].q.val());
        }
        self.p22_b24.d.next = bit_cast::<26, 24>(self.b_b[13].q.val());

        // ---- Stage 22: R; the ACKs two and three ahead ----------------------
        self.r_sum.next =
            bit_cast::<40, 32>(self.plo.q.val()) + (bit_cast::<40, 32>(self.phi.q.val()) << 16);
        self.r.d.next = self.r_sum.val().get_bits::<24>(11);
        self.max1_22.next = bit_cast::<26, 24>(self.p22_max.q.val()) + bits::<26>(1);
        self.s_hi_cut.next = bit_cast::<40, 32>(self.plo.q.val())
            + (bit_cast::<40, 32>(self.phi.q.val()) << 16)
            + (bit_cast::<40, 26>(self.max1_22.val()) << 11);
        self.s_lo_cut.next = bit_cast::<40, 32>(self.plo.q.val())
            + (bit_cast::<40, 32>(self.phi.q.val()) << 16)
            + (bit_cast::<40, 24>(self.p22_min.q.val()) << 11);
        self.t_hi_cut.d.next = self.s_hi_cut.val().get_bits::<26>(11);
        self.t_lo_cut.d.next = self.s_lo_cut.val().get_bits::<26>(11);
        self.t_hi_ss.d.next = self.max1_22.val() - self.p22_ssinc.q.val();
        self.t_lo_ss.d.next = bit_cast::<26, 24>(self.p22_min.q.val()) - self.p22_ssinc.q.val();
        self.t_hi_ca.d.next = self.max1_22.val() - bit_cast::<26, 16>(self.p22_mss.q.val());
        self.t_lo_ca.d.next =
            bit_cast::<26, 24>(self.p22_min.q.val()) - bit_cast::<26, 16>(self.p22_mss.q.val());
        self.t_hi_0.d.next = self.max1_22.val();
        self.t_lo_0.d.next = bit_cast::<26, 24>(self.p22_min.q.val());
        self.p23_mss.d.next = self.p22_mss.q.val();
        self.p23_max.d.next = self.p22_max.q.val();
        self.p23_lo.d.next = self.p22_lo.q.val();
        self.p23_ci.d.next = self.p22_ci.q.val();
        self.p23_ssinc.d.next = self.p22_ssinc.q.val();
        self.p23_b24.d.next = self.p22_b24.q.val();
        // The ACK at 22: its word with the writes of the ACKs two and three
        // ahead (the one ahead, at 23 now, is `e1`'s case).
        self.e1.d.next = self.b_valid[13].q.val()
            & self.b_valid[14].q.val()
            & (self.b_flow[13].q.val() == self.b_flow[14].q.val());
        self.pre_a.next = self.v22_a.q.val();
        self.pre_c.next = self.v22_c.q.val();
        if self.w_valid[1].q.val() & (self.w_flow[1].q.val() == self.b_flow[14].q.val()) {
            self.pre_a.next = self.w_a[1].q.val();
            self.pre_c.next = self.w_c[1].q.val();
        }
        if self.w_valid[0].q.val() & (self.w_flow[0].q.val() == self.b_flow[14].q.val()) {
            self.pre_a.next = self.w_a[0].q.val();
            self.pre_c.next = self.w_c[0].q.val();
        }

        // ---- Stage 23: the cwnd loop ----------------------------------------
        self.cw.next = self.l_a.q.val().get_bits::<24>(0);
        self.ss.next = self.l_a.q.val().get_bits::<24>(24);
        self.ca.next = self.l_c.q.val();
        // The candidates and their clamp tests, each a two-input carry
        // chain on cwnd (26-bit two's complement: bit 25 is the sign).
        self.x_cut.next = bit_cast::<26, 24>(self.cw.val()) - bit_cast::<26, 24>(self.r.q.val());
        self.x_cut_hi.next = bit_cast::<26, 24>(self.cw.val()) - self.t_hi_cut.q.val();
        self.x_cut_lo.next = bit_cast::<26, 24>(self.cw.val()) - self.t_lo_cut.q.val();
        self.x_ss.next = bit_cast::<26, 24>(self.cw.val()) + self.p23_ssinc.q.val();
        self.x_ss_hi.next = bit_cast::<26, 24>(self.cw.val()) - self.t_hi_ss.q.val();
        self.x_ss_lo.next = bit_cast::<26, 24>(self.cw.val()) - self.t_lo_ss.q.val();
        self.x_ca.next =
            bit_cast::<26, 24>(self.cw.val()) + bit_cast::<26, 16>(self.p23_mss.q.val());
        self.x_ca_hi.next = bit_cast::<26, 24>(self.cw.val()) - self.t_hi_ca.q.val();
        self.x_ca_lo.next = bit_cast::<26, 24>(self.cw.val()) - self.t_lo_ca.q.val();
        self.x_0_hi.next = bit_cast::<26, 24>(self.cw.val()) - self.t_hi_0.q.val();
        self.x_0_lo.next = bit_cast::<26, 24>(self.cw.val()) - self.t_lo_0.q.val();
        // clamp(x): above cwnd_max -> cwnd_max; below cwnd_min -> min(cwnd_min,
        // cwnd_max); else x.
        self.k_cut.next = self.x_cut.val().get_bits::<24>(0);
        if self.x_cut_lo.val().get_bit(25) {
            self.k_cut.next = self.p23_lo.q.val();
        }
        if !self.x_cut_hi.val().get_bit(25) {
            self.k_cut.next = self.p23_max.q.val();
        }
        self.k_ss.next = self.x_ss.val().get_bits::<24>(0);
        if self.x_ss_lo.val().get_bit(25) {
            self.k_ss.next = self.p23_lo.q.val();
        }
        if !self.x_ss_hi.val().get_bit(25) {
            self.k_ss.next = self.p23_max.q.val();
        }
        self.k_ca.next = self.x_ca.val().get_bits::<24>(0);
        if self.x_ca_lo.val().get_bit(25) {
            self.k_ca.next = self.p23_lo.q.val();
        }
        if !self.x_ca_hi.val().get_bit(25) {
            self.k_ca.next = self.p23_max.q.val();
        }
        self.k_0.next = self.cw.val();
        if self.x_0_lo.val().get_bit(25) {
            self.k_0.next = self.p23_lo.q.val();
        }
        if !self.x_0_hi.val().get_bit(25) {
            self.k_0.next = self.p23_max.q.val();
        }
        // Slow start while cwnd < ssthresh; byte counting otherwise.
        self.lt_ss.next = bit_cast::<26, 24>(self.cw.val()) - bit_cast::<26, 24>(self.ss.val());
        self.ca_sum.next = bit_cast::<26, 24>(self.ca.val()) + self.p23_b24.q.val();
        // ca + b24 - cwnd as one carry-save level and one carry chain
        // (yosys would chain two adders): -cwnd = ~cwnd + 1, the +1 in the
        // carry word's free bit 0.
        self.ncw.next = !bit_cast::<26, 24>(self.cw.val());
        self.csa_s.next = bit_cast::<26, 24>(self.ca.val()) ^ self.p23_b24.q.val() ^ self.ncw.val();
        self.csa_c.next = (((bit_cast::<26, 24>(self.ca.val()) & self.p23_b24.q.val())
            | (bit_cast::<26, 24>(self.ca.val()) & self.ncw.val())
            | (self.p23_b24.q.val() & self.ncw.val()))
            << 1)
            | bits::<26>(1);
        self.ca_diff.next = self.csa_s.val() + self.csa_c.val();
        // Saturated at 2^24 - 1 (>= any cwnd): step, leaving ~cwnd.
        self.sat.next = self.ca_sum.val().get_bit(24);
        self.ca_step.next = !self.ca_diff.val().get_bit(25) | self.sat.val();
        // The new state, as a tree whose latest inputs enter last. At the
        // clock edge the mode is known (first, not acceptable, cut, no
        // increase, increase) and whether the next ACK is of this flow
        // (`e1`); out of carry chains come the clamp tests, cwnd < ssthresh
        // and the candidates (level 1: `k_*`), and last, after its
        // carry-save level, the byte-counting step. So: the early
        // candidate (`e_*`), the cut's or no increase's (`u_*`), the
        // increase's for each value of the step (`a1_*`, `a0_*`), and the
        // step selects. `_n`: this ACK's new state (table, outputs);
        // `_l`: the next ACK's state (this one's if `e1`, else `pre_*`).
        self.c_ss.next = self.lt_ss.val().get_bit(25);
        self.m_inc.next = self.b_acc[15].q.val()
            & !self.b_first[15].q.val()
            & !self.b_cut[15].q.val()
            & !self.b_cdn[15].q.val();
        self.m_cut.next = self.b_cut[15].q.val();
        self.m_cdn.next = self.b_acc[15].q.val() & !self.b_cut[15].q.val() & self.b_cdn[15].q.val();
        self.e_n.next = self.cw.val();
        if self.b_first[15].q.val() {
            self.e_n.next = self.p23_ci.q.val();
        }
        self.e_l.next = self.pre_a.val().get_bits::<24>(0);
        if self.e1.q.val() {
            self.e_l.next = self.e_n.val();
        }
        self.u_n.next = self.e_n.val();
        self.u_l.next = self.e_l.val();
        if self.m_cdn.val() {
            self.u_n.next = self.k_0.val();
            if self.e1.q.val() {
                self.u_l.next = self.k_0.val();
            }
        }
        if self.m_cut.val() {
            self.u_n.next = self.k_cut.val();
            if self.e1.q.val() {
                self.u_l.next = self.k_cut.val();
            }
        }
        self.a1_n.next = self.u_n.val();
        self.a0_n.next = self.u_n.val();
        self.a1_l.next = self.u_l.val();
        self.a0_l.next = self.u_l.val();
        if self.m_inc.val() {
            self.a1_n.next = self.k_ca.val();
            self.a0_n.next = self.k_0.val();
            if self.c_ss.val() {
                self.a1_n.next = self.k_ss.val();
                self.a0_n.next = self.k_ss.val();
            }
            if self.e1.q.val() {
                self.a1_l.next = self.a1_n.val();
                self.a0_l.next = self.a0_n.val();
            }
        }
        self.n_cw.next = self.a0_n.val();
        self.l_cw.next = self.a0_l.val();
        if self.ca_step.val() {
            self.n_cw.next = self.a1_n.val();
            self.l_cw.next = self.a1_l.val();
        }
        self.n_ss.next = self.ss.val();
        if self.m_cut.val() {
            self.n_ss.next = self.k_cut.val();
        }
        if self.b_first[15].q.val() {
            self.n_ss.next = bits::<24>(0xff_ffff);
        }
        self.l_ss.next = self.pre_a.val().get_bits::<24>(24);
        if self.e1.q.val() {
            self.l_ss.next = self.n_ss.val();
        }
        // ca: kept, 0 (first ACK, cut), or in byte counting (increase,
        // cwnd >= ssthresh: `g_*`) ca + b, ~cwnd when that saturates, else
        // with the step ca + b - cwnd, chosen last.
        self.g_n.next = self.m_inc.val() & !self.c_ss.val();
        self.g_l.next = self.g_n.val() & self.e1.q.val();
        self.p_n.next = self.g_n.val() & !self.sat.val();
        self.p_l.next = self.g_l.val() & !self.sat.val();
        self.keep_n.next = self.ca.val();
        if self.m_cut.val() | self.b_first[15].q.val() {
            self.keep_n.next = 0.into();
        }
        self.keep_l.next = self.pre_c.val();
        if self.e1.q.val() {
            self.keep_l.next = self.keep_n.val();
        }
        self.z_n.next = self.keep_n.val();
        self.z_l.next = self.keep_l.val();
        if self.g_n.val() {
            self.z_n.next = self.ca_sum.val().get_bits::<24>(0);
            if self.sat.val() {
                self.z_n.next = !self.cw.val();
            }
        }
        if self.g_l.val() {
            self.z_l.next = self.z_n.val();
        }
        self.n_ca.next = self.z_n.val();
        self.l_c.d.next = self.z_l.val();
        if !self.ca_diff.val().get_bit(25) {
            if self.p_n.val() {
                self.n_ca.next = self.ca_diff.val().get_bits::<24>(0);
            }
            if self.p_l.val() {
                self.l_c.d.next = self.ca_diff.val().get_bits::<24>(0);
            }
        }
        self.l_a.d.next =
            bit_cast::<48, 24>(self.l_cw.val()) | (bit_cast::<48, 24>(self.l_ss.val()) << 24);
        // The tables are written a cycle after the loop, from registers.
        self.t3a.we.next = self.w_valid[0].q.val();
        self.t3a.wflow.next = self.w_flow[0].q.val();
        self.t3a.wword.next = self.w_a[0].q.val();
        self.t3b.we.next = self.w_valid[0].q.val() | self.sweep.val();
        self.t3b.wflow.next = self.w_flow[0].q.val();
        self.t3b.wword.next = bit_cast::<25, 24>(self.w_c[0].q.val()) | bits::<25>(1 << 24);
        if self.busy.q.val() | self.rst.val() {
            self.t3b.wflow.next = self.ptr.q.val();
            self.t3b.wword.next = 0.into();
        }
        if self.rst.val() {
            self.t3b.wflow.next = 0.into();
        }
        self.w_valid[0].d.next = self.b_valid[15].q.val();
        self.w_flow[0].d.next = self.b_flow[15].q.val();
        self.w_a[0].d.next =
            bit_cast::<48, 24>(self.n_cw.val()) | (bit_cast::<48, 24>(self.n_ss.val()) << 24);
        self.w_c[0].d.next = self.n_ca.val();
        self.w_valid[1].d.next = self.w_valid[0].q.val();
        self.w_flow[1].d.next = self.w_flow[0].q.val();
        self.w_a[1].d.next = self.w_a[0].q.val();
        self.w_c[1].d.next = self.w_c[0].q.val();
        // The outputs: every field 0 when no result.
        self.o_valid.d.next = self.b_valid[15].q.val();
        self.o_flow.d.next = 0.into();
        self.o_cwnd.d.next = 0.into();
        self.o_alpha.d.next = 0.into();
        self.o_cut.d.next = false;
        self.o_we.d.next = false;
        if self.b_valid[15].q.val() {
            self.o_flow.d.next = self.b_flow[15].q.val();
            self.o_cwnd.d.next = self.n_cw.val();
            self.o_alpha.d.next = self.al[3].q.val();
            self.o_cut.d.next = self.b_cut[15].q.val();
            self.o_we.d.next = self.b_we[15].q.val();
        }

        // ---- Registers: the write down its pipeline, each copy in turn -----
        self.c_valid[0].d.next = self.s_cfg_valid.val() & !self.rst.val();
        self.c_addr[0].d.next = self.s_cfg_addr.val();
        self.c_data[0].d.next = self.s_cfg_data.val();
        for k in 1..20 {
            self.c_valid[k].d.next = self.c_valid[k - 1].q.val() & !self.rst.val();
            self.c_addr[k].d.next = self.c_addr[k - 1].q.val();
            self.c_data[k].d.next = self.c_data[k - 1].q.val();
        }
        if self.c_valid[17].q.val() & (self.c_addr[17].q.val() == 0) {
            self.g18.d.next = self.c_data[17].q.val().get_bits::<4>(0);
        }
        if self.c_valid[18].q.val() & (self.c_addr[18].q.val() == 0) {
            self.g19.d.next = self.c_data[18].q.val().get_bits::<4>(0);
        }
        if self.c_valid[19].q.val() {
            if self.c_addr[19].q.val() == 1 {
                self.mss20.d.next = self.c_data[19].q.val().get_bits::<16>(0);
            }
            if self.c_addr[19].q.val() == 2 {
                self.init20.d.next = self.c_data[19].q.val();
            }
            if self.c_addr[19].q.val() == 3 {
                self.min20.d.next = self.c_data[19].q.val();
            }
            if self.c_addr[19].q.val() == 4 {
                self.max20.d.next = self.c_data[19].q.val();
            }
        }

        // ---- The pointer, the clearing --------------------------------------
        self.ptr.d.next = self.ptr.q.val() + 1;
        if self.busy.q.val() & (self.ptr.q.val() == 0) {
            self.busy.d.next = false;
        }
        self.sweep_q.d.next = self.sweep_q.q.val() & (self.ptr.q.val() != self.last_flow.val());

        // ---- Reset wins over every load -------------------------------------
        // Not reset: stage 1's valid (it loads `accept`, low in a reset
        // cycle) and the cwnd loop's records (read only with an ACK, and
        // none is accepted for 2^FB >= 16 cycles after a reset).
        if self.rst.val() {
            self.busy.d.next = true;
            self.ptr.d.next = 1.into();
            self.sweep_q.d.next = true;
            self.g19.d.next = self.reset_g.val();
            self.g18.d.next = self.reset_g.val();
            self.init20.d.next = self.reset_init.val();
            self.min20.d.next = self.reset_min.val();
            self.max20.d.next = self.reset_max.val();
            self.mss20.d.next = self.reset_mss.val();
            self.o_valid.d.next = false;
            self.o_flow.d.next = 0.into();
            self.o_cwnd.d.next = 0.into();
            self.o_alpha.d.next = 0.into();
            self.o_cut.d.next = false;
            self.o_we.d.next = false;
        }

        self.s_ack_ready.next = !self.busy.q.val();
        self.m_cc_valid.next = self.o_valid.q.val();
        self.m_cc_flow.next = self.o_flow.q.val();
        self.m_cc_cwnd.next = self.o_cwnd.q.val();
        self.m_cc_alpha.next = self.o_alpha.q.val();
        self.m_cc_cut.next = self.o_cut.q.val();
        self.m_cc_window_ended.next = self.o_we.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

crate::flow_block_glue!("DCTCP_TX", DctcpTx, DctcpTxConfig, DctcpTxSim, DctcpTxIn, DctcpTxOut);

/// Signals whose bits are left unread on purpose (docs/lint.md).
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("dn", "bits 30:0: only the sign of SEG.ACK - SND.NXT is read (after())"),
    ("y_seq", "bits 30:0: after(SEG.ACK, c) reads the sign and the borrow only"),
    ("y_una", "bits 30:0: after(SEG.ACK, c) reads the sign and the borrow only"),
    ("y_pre", "bits 30:0: after(SEG.ACK, c) reads the sign and the borrow only"),
    ("y_nxt", "bits 30:0: after(SEG.ACK, c) reads the sign and the borrow only"),
    ("y_wend", "bits 30:0: after(SEG.ACK, c) reads the sign and the borrow only"),
    ("y_prew", "bits 30:0: after(SEG.ACK, c) reads the sign and the borrow only"),
    ("z_seq", "bits 31:0: the borrow only (c above SEG.ACK)"),
    ("z_una", "bits 31:0: the borrow only (c above SEG.ACK)"),
    ("z_pre", "bits 31:0: the borrow only (c above SEG.ACK)"),
    ("z_nxt", "bits 31:0: the borrow only (c above SEG.ACK)"),
    ("z_wend", "bits 31:0: the borrow only (c above SEG.ACK)"),
    ("z_prew", "bits 31:0: the borrow only (c above SEG.ACK)"),
    ("t1b$pre", "only t1a's stage-6 word is compared a cycle early"),
    ("t1c$pre", "only t1a's stage-6 word is compared a cycle early"),
    ("t2$pre", "only t1a's stage-6 word is compared a cycle early"),
    ("t3a$pre", "only t1a's stage-6 word is compared a cycle early"),
    ("t3b$pre", "only t1a's stage-6 word is compared a cycle early"),
    (
        "r_sum",
        "bits 10:0 and 39:35: R = floor(base * alpha10 / 2^11) < 2^23",
    ),
    (
        "s_hi_cut",
        "bits 10:0 and 39:37: the threshold is floor(P / 2^11) + cwnd_max + 1 < 2^25",
    ),
    (
        "s_lo_cut",
        "bits 10:0 and 39:37: the threshold is floor(P / 2^11) + cwnd_min < 2^25",
    ),
    ("x_cut", "bits 25:24: read only when within [cwnd_min, cwnd_max] (24 bits)"),
    ("x_ss", "bits 25:24: read only when within [cwnd_min, cwnd_max] (24 bits)"),
    ("x_ca", "bits 25:24: read only when within [cwnd_min, cwnd_max] (24 bits)"),
    ("x_cut_hi", "bits 24:0: a clamp test, its sign only"),
    ("x_cut_lo", "bits 24:0: a clamp test, its sign only"),
    ("x_ss_hi", "bits 24:0: a clamp test, its sign only"),
    ("x_ss_lo", "bits 24:0: a clamp test, its sign only"),
    ("x_ca_hi", "bits 24:0: a clamp test, its sign only"),
    ("x_ca_lo", "bits 24:0: a clamp test, its sign only"),
    ("x_0_hi", "bits 24:0: a clamp test, its sign only"),
    ("x_0_lo", "bits 24:0: a clamp test, its sign only"),
    ("lt_ss", "bits 24:0: cwnd < ssthresh, the sign only"),
    ("ca_sum", "bit 25: ca + min(b, 2^24 - 1) < 2^25"),
    (
        "ca_diff",
        "bit 24: read only when ca + min(b, 2^24 - 1) < 2^24, and then the difference is below 2^24",
    ),
];

/// The finished Verilog file for DCTCP_TX.
pub fn verilog(config: &DctcpTxConfig) -> Result<String, ParamError> {
    let raw = crate::emit::waive_unused(&raw_verilog(config)?, LINT_WAIVERS);
    let r = &config.reset;
    let params = [
        ("flow_bits", config.shape.flow_bits.to_string()),
        ("reset.gshift", r.gshift.to_string()),
        ("reset.mss", format!("{} bytes", r.mss)),
        ("reset.init_cwnd", format!("{} bytes", r.init_cwnd)),
        ("reset.cwnd_min", format!("{} bytes", r.cwnd_min)),
        ("reset.cwnd_max", format!("{} bytes", r.cwnd_max)),
    ];
    Ok(crate::emit::finish(
        "dctcp_tx",
        "DCTCP sender: per flow the sequence window, alpha and cwnd from every ACK",
        &format!(
            "II = 1; each ACK's result {LATENCY} cycles after it; s_ack_ready low for 2^flow_bits cycles after reset"
        ),
        &params,
        &raw,
    ))
}

struct DctcpTxSim<const FB: usize>(DctcpTx<FB>);

impl<const FB: usize> crate::sim::CycleSim<DctcpTxIn, DctcpTxOut> for DctcpTxSim<FB> {
    fn cycle(&mut self, i: &DctcpTxIn) -> DctcpTxOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_ack_valid.next = i.ack_valid;
        b.s_ack_flow.next = (i.ack_flow as u64).to_bits();
        b.s_ack_seq.next = (i.ack_seq as u64).to_bits();
        b.s_ack_ece.next = i.ack_ece;
        b.s_ack_snd_nxt.next = (i.ack_snd_nxt as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = (i.cfg_addr as u64).to_bits();
        b.s_cfg_data.next = (i.cfg_data as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "DCTCP_TX logic did not settle"
        );
        let out = DctcpTxOut {
            ack_ready: b.s_ack_ready.val(),
            cc_valid: b.m_cc_valid.val(),
            cc_flow: b.m_cc_flow.val().to_u32(),
            cc_cwnd: b.m_cc_cwnd.val().to_u32(),
            cc_alpha: b.m_cc_alpha.val().to_u32(),
            cc_cut: b.m_cc_cut.val(),
            cc_window_ended: b.m_cc_window_ended.val(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "DCTCP_TX logic did not settle"
        );
        out
    }
}
