//! RP — the DCQCN reaction point: per-flow rate control (seed 004 §3.1, in
//! three profiles). The contract, cycle by cycle, is `ccrtl_golden::rp`;
//! `docs/rp.md` has the rules, the register map and the design.
//!
//! # Generation-time parameters
//! - `FB` = `flow_bits`, `W` = `stamp_bits`, `QB` = `fifo_bits`: a shape of
//!   the menu `ccrtl_golden::rp_shape_menu!`; `CW = 14 + 2 W` (derived);
//! - the reset values of the registers.
//!
//! # Memories
//! Per flow, in [`PipeRam`]s (a word 5 cycles after its read address; a
//! write seen by reads issued 2 cycles after it; a read issued the cycle
//! after a write to its address undefined, and never used here):
//! - `srate` (Rc, Rt, alpha: 52 bits) and `sctl` (T, BC, the flags, the two
//!   stamps: `CW` bits), read and written by the engine only (read port B
//!   unused: synthesis drops that copy). `srate`, low bit first: Rc [18:0]
//!   and Rt [37:19] in Mb/s, alpha [51:38] in 1/2^14. `sctl`: T [4:0], BC
//!   [9:5] (counts to 31), limited [10], increase timer on [11], the
//!   nvidia/ns3 alpha and decrease marks [12], [13], the increase-timer
//!   stamp (ticks) from bit 14 and the alpha stamp (ticks or alpha period
//!   number) from bit `14 + W`, both modulo 2^W;
//! - `cacc`, the capture's byte count (24 bits, read by the capture only);
//! - `cflg`, the capture's halves of the two pending flags (written by the
//!   capture, read by both); `eh`, the engine's halves (written by the
//!   engine, read by both). Pending = capture half ^ engine half; bit 0 is
//!   the CNP's flag, bit 1 the byte counter's.
//!
//! # Capture (an event accepted in cycle n)
//! - n: the words of its flow are read; stages q1..q4 carry it (q2: `bytes
//!   - B`, with `B` the byte counter of cycle n).
//! - n+4 (q4 -> q5): what the words read in n do not show yet, folded
//!   oldest first so that the newest wins: the visits of cycles n-6..n-1
//!   (`v[4..=9]`; a visit clears the flow's pending flags before that
//!   cycle's capture) and the captures of n-6..n-2 (records `w[0..=4]`).
//!   The capture of n-1 (in q5 now) and the visit of cycle n (`v[3]`) are
//!   noted.
//! - n+5 (q5, the one-cycle loop): the capture of n-1 (record `w[0]`,
//!   decided in the last cycle) if it is of the same flow, else the fold,
//!   else the words; then the visit of cycle n, if of this flow, clears
//!   the pending flags. `acc + bytes` and `acc + bytes - B` are added in
//!   parallel and one is chosen by the sign. A flag raised when not pending
//!   toggles the capture's half. The words are written, the record `w[0]`
//!   loaded, and the push noted if nothing was pending and something is
//!   now.
//! - n+6 (q6): the flow pushed into the FIFO.
//!
//! # Engine (a visit in cycle v)
//! - v: the scheduler takes the FIFO's head on its turn (`turn`, toggling
//!   every cycle) if the FIFO is not empty, else the round robin's flow,
//!   which then advances; no visit if that flow is among the visits of the
//!   last 63 cycles (`v`), or while the block is busy, or while a register
//!   write waits for the visits in flight (`stale`) or was made in the
//!   last two cycles (`wrote`, `wrote2`). The decision reads registers only: whether each
//!   possible candidate is in flight is worked out in v-2 and v-1 (see
//!   the scheduler in `update`). The words are read;
//!   stages x1..x5 carry the flow, the tick and the alpha period number of
//!   cycle v.
//! - v+5: the capture's halves, with the captures of v-6..v-1 forwarded
//!   (`w`); the pending flags; the engine's halves written (the
//!   consumption); the visit enters [`RpVisit`].
//! - v+62: [`RpVisit`]'s result written back (seen by reads from v+64, a
//!   next visit's earliest); the rate output registered twice, out in
//!   v+64 (`DEPTH`).
//!
//! # Busy and forgetting
//! A reset, or a write of `profile`, `g` or `alpha_period`
//! (`ccrtl_golden::rp::FORGETTING`), clears every valid bit of the
//! pipelines, the FIFO and the remembered visits; the words of flow 0 are
//! written with zeros in that cycle and those of flows 1 .. 2^FB - 1 in the
//! next cycles; the power table is refilled from the next cycle;
//! `s_evt_ready` is low for `max(2^FB, 4 x 2^W)` cycles. While busy, and
//! when a written register is taken (`take`: no visit in flight), the
//! engine's copies `e_*` of the registers load the registers `r_*`.

use ccrtl_golden::rp::{RpConfig, RpIn, RpOut, DEPTH, WRITE_PAUSE};

// The pause after a register write is the two registers `wrote`, `wrote2`.
const _: () = assert!(WRITE_PAUSE == 2);
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;
use crate::ram::{PipeRam, SyncRam};
use crate::rp_visit::RpVisit;

/// Cycles of [`RpVisit`]: from the words of a visit (5 cycles after its
/// read) to its write-back, which reads 2 cycles later see.
pub const VISIT_CYCLES: usize = DEPTH - 7;
/// Visits remembered: a flow is not visited again within `DEPTH - 1` cycles.
const NV: usize = DEPTH - 1;
/// The older visits the in-flight check of the next cycle compares with.
const NV1: usize = NV - 1;
/// The older visits the in-flight check two cycles ahead compares with
/// (`NV - 2` = 61), in `NG` groups of two (the last of one), each ORed
/// into a register: a group of two is one LUT level shallower than a group
/// of four, on the path out of the flow registers' wide fan-out.
const NV2: usize = NV - 2;
const NG: usize = NV2.div_ceil(2);
/// Capture records: the decisions of the last six cycles.
const NW: usize = 6;
/// The pending flags and byte counts of the last five (the sixth is only
/// compared, not forwarded).
const NW1: usize = NW - 1;

#[derive(LogicBlock, Default)]
pub struct Rp<const FB: usize, const W: usize, const QB: usize, const CW: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,
    // Events, one per cycle: a CNP received (kind 0) or bytes sent (kind 1).
    pub s_evt_valid: Signal<In, Bit>,
    /// Low while the block forgets every flow.
    pub s_evt_ready: Signal<Out, Bit>,
    pub s_evt_kind: Signal<In, Bit>,
    pub s_evt_flow: Signal<In, Bits<FB>>,
    /// Bytes sent (kind 1).
    pub s_evt_bytes: Signal<In, Bits<16>>,
    // Register writes (the map: `ccrtl_golden::rp::REGISTERS`).
    pub s_cfg_valid: Signal<In, Bit>,
    pub s_cfg_addr: Signal<In, Bits<5>>,
    pub s_cfg_data: Signal<In, Bits<32>>,
    // Rate updates: a flow's new Rc, DEPTH cycles after the visit.
    pub m_rate_valid: Signal<Out, Bit>,
    /// 0 when not valid.
    pub m_rate_flow: Signal<Out, Bits<FB>>,
    /// Mb/s; 0 when not valid.
    pub m_rate_rc: Signal<Out, Bits<19>>,
    /// The change is a cut (golden `RpOut::rate_cut`); 0 when not valid.
    pub m_rate_cut: Signal<Out, Bit>,

    // ---- Memories and the visit's arithmetic ------------------------------
    srate: PipeRam<52, FB>,
    sctl: PipeRam<CW, FB>,
    cacc: PipeRam<24, FB>,
    cflg: PipeRam<2, FB>,
    eh: PipeRam<2, FB>,
    fmem: SyncRam<FB, QB>,
    visit: RpVisit<FB, W>,

    // ---- Registers as written (r_) and as the engine reads them (e_) ------
    r_profile: DFF<Bits<2>>,
    r_tick_cycles: DFF<Bits<16>>,
    r_flows_in_use: DFF<Bits<18>>,
    /// `flows_in_use - 1` (0 when `flows_in_use` is 0): a flow `x` is the
    /// round robin's last when `x >= fiu_lim` (`x + 1 >= flows_in_use`),
    /// with no adder in front of the comparison.
    fiu_lim: DFF<Bits<18>>,
    r_line_rate: DFF<Bits<19>>,
    r_r_min: DFF<Bits<19>>,
    r_r_ai: DFF<Bits<19>>,
    r_r_hai: DFF<Bits<19>>,
    r_g: DFF<Bits<16>>,
    r_alpha_init: DFF<Bits<14>>,
    r_alpha_period: DFF<Bits<16>>,
    r_dec_shift: DFF<Bits<4>>,
    r_t_inc: DFF<Bits<16>>,
    r_byte_counter: DFF<Bits<24>>,
    r_f: DFF<Bits<5>>,
    r_gd: DFF<Bits<4>>,
    r_max_dec: DFF<Bits<13>>,
    r_first_cnp_rate: DFF<Bits<19>>,
    r_clamp: DFF<Bits<2>>,
    e_profile: DFF<Bits<2>>,
    e_line_rate: DFF<Bits<19>>,
    e_r_min: DFF<Bits<19>>,
    e_r_ai: DFF<Bits<19>>,
    e_r_hai: DFF<Bits<19>>,
    e_g: DFF<Bits<16>>,
    e_alpha_init: DFF<Bits<14>>,
    e_alpha_period: DFF<Bits<16>>,
    e_dec_shift: DFF<Bits<4>>,
    e_t_inc: DFF<Bits<16>>,
    e_bc_on: DFF<Bit>,
    e_f: DFF<Bits<5>>,
    e_gd: DFF<Bits<4>>,
    e_max_dec: DFF<Bits<13>>,
    e_first_cnp_rate: DFF<Bits<19>>,
    e_clamp: DFF<Bits<2>>,
    /// A register the engine reads was written and not yet taken.
    stale: DFF<Bit>,

    // ---- Time base --------------------------------------------------------
    prescale: DFF<Bits<16>>,
    tick: DFF<Bits<W>>,
    ap_pre: DFF<Bits<16>>,
    apn: DFF<Bits<W>>,

    // ---- Busy, the clearing, the power table's fill -----------------------
    /// The kill (a reset or a write that forgets) of the last cycle: the
    /// clearing, the valid bits, the scheduler and the FIFO act on it a
    /// cycle late, so that its fan-out starts at a flip-flop (the kill
    /// decoded from the register port and fanned out in its own cycle held
    /// the block at 137 MHz). Only `busy_q`, the power table's fill and the
    /// output register act on the kill in its own cycle.
    kill_q: DFF<Bit>,
    busy_cnt: DFF<Bits<18>>,
    /// `busy_cnt != 0`.
    busy_q: DFF<Bit>,
    /// Among the visits of cycles 2..63 back, one is valid (computed a
    /// cycle ahead; with the last cycle's visit, every visit in flight).
    older_inflight: DFF<Bit>,
    /// The flow the clearing writes this cycle (0: none, after the reset
    /// cycle's flow 0).
    sweep_ptr: DFF<Bits<FB>>,
    /// `sweep_ptr != 0`, kept as a register (off the kill's path).
    sweeping: DFF<Bit>,
    fill_q: DFF<Bit>,

    // ---- Scheduler and FIFO -------------------------------------------------
    turn: DFF<Bit>,
    rr: DFF<Bits<FB>>,
    /// The round robin's flow after `rr` (what `rr` becomes when it
    /// advances) and the one after that, computed a cycle ahead.
    rr_plus: DFF<Bits<FB>>,
    rr_plus2: DFF<Bits<FB>>,
    /// The round robin advanced in the last cycle.
    rr_adv: DFF<Bit>,
    f_rd: DFF<Bits<QB>>,
    f_wr: DFF<Bits<QB>>,
    f_cnt: DFF<Bits<16>>,
    /// The FIFO is not empty (`f_cnt != 0`).
    f_ne: DFF<Bit>,
    /// The FIFO's head and the entry after it (valid when the FIFO holds
    /// them), copies of their RAM entries.
    f_head: DFF<Bits<FB>>,
    f_head2: DFF<Bits<FB>>,
    /// Where `f_head` came from in the last cycle: 0 `f_head`, 1
    /// `f_head2` (a pop), 2 the capture's flow (a push into an empty FIFO).
    f_hsel: DFF<Bits<2>>,
    /// The FIFO was empty in the last cycle.
    f_was_empty: DFF<Bit>,
    /// The FIFO's turn (`turn & f_ne`), computed a cycle ahead: a cycle
    /// that is not the FIFO's turn pops nothing, so the FIFO is not empty
    /// in the next cycle if it is not now or the capture pushes now.
    fifo_turn_r: DFF<Bit>,
    /// The RAM's read, registered with nothing between (the block RAM's
    /// own output register on ECP5, `ccrtl synth`'s outreg pass), and the
    /// read of the cycle before: the entry two after the head, read two
    /// or three cycles before the pop that takes it (`f_third`).
    f_rq: DFF<Bits<FB>>,
    f_rq2: DFF<Bits<FB>>,
    /// A pop in the last cycle, and in the one before.
    f_popd: DFF<Bit>,
    f_popd2: DFF<Bit>,
    /// The pushes of the last three cycles, which those reads can miss:
    /// each flow, and whether it landed two places behind the head of the
    /// cycle after its push (`b*_2`; with no pop since, it is the entry a
    /// pop now takes).
    b1_d: DFF<Bits<FB>>,
    b1_2: DFF<Bit>,
    b2_d: DFF<Bits<FB>>,
    b2_2: DFF<Bit>,
    b3_d: DFF<Bits<FB>>,
    b3_2: DFF<Bit>,
    /// The in-flight check, two cycles ahead. A cycle's candidate is the
    /// round robin's flow or the FIFO's head; `a`, `b`, `c`, `d` are the
    /// flows that can be the next cycle's: `rr`, `rr_plus`, `f_head` and
    /// the flow the capture pushes now, `q6_flow` (into an empty FIFO). `pre_*`: that
    /// flow is among the visits of 2..63 cycles back (seen from the next
    /// cycle); `eqr_*`/`eqh_*`: equal to the round robin's flow / the
    /// head, one of which is this cycle's candidate (`fturn`).
    pre_a: DFF<Bit>,
    pre_b: DFF<Bit>,
    pre_c: DFF<Bit>,
    pre_d: DFF<Bit>,
    eqr_b: DFF<Bit>,
    eqr_c: DFF<Bit>,
    eqr_d: DFF<Bit>,
    eqh_a: DFF<Bit>,
    eqh_b: DFF<Bit>,
    eqh_d: DFF<Bit>,
    fturn: DFF<Bit>,
    /// A cycle earlier: the flows that can become `a`..`d` (`rr`,
    /// `rr_plus`, `rr_plus2`, `f_head`, `f_head2`, `q6_flow`, `q5_flow`)
    /// among the visits of 3..63 cycles back (seen from two cycles on).
    /// In groups of two visits (`NG` groups), ORed in the next cycle.
    c_r: Vec<DFF<Bit>>,
    c_r1: Vec<DFF<Bit>>,
    c_r2: Vec<DFF<Bit>>,
    c_h: Vec<DFF<Bit>>,
    c_h2: Vec<DFF<Bit>>,
    c_q: Vec<DFF<Bit>>,
    c_q4: Vec<DFF<Bit>>,
    /// A register (one that does not forget) was written in the last
    /// cycle, or in the one before: the engine does not take it in this
    /// one (`WRITE_PAUSE`).
    wrote: DFF<Bit>,
    wrote2: DFF<Bit>,
    /// The visits of the last `NV1` cycles (`v[0]`: the last cycle's); the
    /// visit `NV` cycles back is covered by the check of a cycle earlier.
    /// Flows are compared for the last `NV2` only (the check two cycles
    /// ahead); the one `NV1` back is only counted as in flight.
    v_valid: Vec<DFF<Bit>>,
    v_flow: Vec<DFF<Bits<FB>>>,

    // ---- Capture stages -----------------------------------------------------
    q1_valid: DFF<Bit>,
    q1_kind: DFF<Bit>,
    q1_flow: DFF<Bits<FB>>,
    q1_bytes: DFF<Bits<16>>,
    q1_b: DFF<Bits<24>>,
    q2_valid: DFF<Bit>,
    q2_kind: DFF<Bit>,
    q2_flow: DFF<Bits<FB>>,
    q2_bytes: DFF<Bits<16>>,
    /// `bytes - B`, 26-bit two's complement; `B != 0`.
    q2_bmb: DFF<Bits<26>>,
    q2_bon: DFF<Bit>,
    q3_valid: DFF<Bit>,
    q3_kind: DFF<Bit>,
    q3_flow: DFF<Bits<FB>>,
    q3_bytes: DFF<Bits<16>>,
    q3_bmb: DFF<Bits<26>>,
    q3_bon: DFF<Bit>,
    q4_valid: DFF<Bit>,
    q4_kind: DFF<Bit>,
    q4_flow: DFF<Bits<FB>>,
    q4_bytes: DFF<Bits<16>>,
    q4_bmb: DFF<Bits<26>>,
    q4_bon: DFF<Bit>,
    q5_valid: DFF<Bit>,
    q5_kind: DFF<Bit>,
    q5_flow: DFF<Bits<FB>>,
    q5_bytes: DFF<Bits<16>>,
    q5_bmb: DFF<Bits<26>>,
    q5_bon: DFF<Bit>,
    /// The capture one ahead is of the same flow.
    q5_e1: DFF<Bit>,
    /// The fold: pending flags (`fh`: found), capture half and byte count
    /// (`ch`: found) of the captures two to six ahead and the visits since.
    q5_fh: DFF<Bit>,
    q5_fp: DFF<Bits<2>>,
    q5_ch: DFF<Bit>,
    q5_cc: DFF<Bits<2>>,
    q5_cacc: DFF<Bits<24>>,
    /// The visit of the event's own cycle is of its flow.
    q5_con: DFF<Bit>,
    /// The FIFO push decided in q5, made in the next cycle.
    q6_push: DFF<Bit>,
    q6_flow: DFF<Bits<FB>>,
    /// The fold's flow compares, made two cycles ahead on q2's flow, each
    /// against the register that holds the other flow two cycles later (the
    /// flows shift unconditionally): `e3_v[j]` is q4's flow against
    /// `v[4 + j]`'s, `e3_w[k]` against `w[k]`'s.
    e3_v: Vec<DFF<Bit>>,
    e3_w: Vec<DFF<Bit>>,
    /// q4's flow against the visit of its own cycle (`v[3]`), made on q3.
    m4_con: DFF<Bit>,
    /// The fold resolved a cycle ahead, on q3, so that q4 only ANDs and
    /// ORs: any hit (`f4_hit`); as masks, the capture that is the newest hit
    /// of all (`f4_pm[k]`: its pending flags; none if the newest is a
    /// visit) and the newest capture hit (`f4_cm`, `f4_am`: its half and
    /// count; `f4_chit`: there is one).
    f4_hit: DFF<Bit>,
    f4_chit: DFF<Bit>,
    f4_pm: Vec<DFF<Bits<2>>>,
    f4_cm: Vec<DFF<Bits<2>>>,
    f4_am: Vec<DFF<Bits<24>>>,
    /// The consumption's flow compares, made a cycle ahead on x4's flow:
    /// `m5_w[k]` is x5's flow against `w[k]`'s (valids applied at use).
    m5_w: Vec<DFF<Bit>>,
    /// The decisions of the last `NW` cycles (`w[0]`: the last cycle's):
    /// the capture half, the pending flags and the byte count written.
    w_valid: Vec<DFF<Bit>>,
    /// (`NW1` of them: the compares that read `w[k]`'s flow are made a
    /// cycle ahead, on `w[k - 1]`'s.)
    w_flow: Vec<DFF<Bits<FB>>>,
    w_c: Vec<DFF<Bits<2>>>,
    w_p: Vec<DFF<Bits<2>>>,
    w_acc: Vec<DFF<Bits<24>>>,

    // ---- Engine stages to the words ---------------------------------------
    x1_valid: DFF<Bit>,
    x1_flow: DFF<Bits<FB>>,
    x1_tick: DFF<Bits<W>>,
    x1_apn: DFF<Bits<W>>,
    x2_valid: DFF<Bit>,
    x2_flow: DFF<Bits<FB>>,
    x2_tick: DFF<Bits<W>>,
    x2_apn: DFF<Bits<W>>,
    x3_valid: DFF<Bit>,
    x3_flow: DFF<Bits<FB>>,
    x3_tick: DFF<Bits<W>>,
    x3_apn: DFF<Bits<W>>,
    x4_valid: DFF<Bit>,
    x4_flow: DFF<Bits<FB>>,
    x4_tick: DFF<Bits<W>>,
    x4_apn: DFF<Bits<W>>,
    x5_valid: DFF<Bit>,
    x5_flow: DFF<Bits<FB>>,
    x5_tick: DFF<Bits<W>>,
    x5_apn: DFF<Bits<W>>,

    // ---- Rate output ---------------------------------------------------------
    o1_valid: DFF<Bit>,
    o1_flow: DFF<Bits<FB>>,
    o1_rc: DFF<Bits<19>>,
    o1_cut: DFF<Bit>,
    o2_valid: DFF<Bit>,
    o2_flow: DFF<Bits<FB>>,
    o2_rc: DFF<Bits<19>>,
    o2_cut: DFF<Bit>,

    // ---- Combinational ------------------------------------------------------
    busy: Signal<Local, Bit>,
    forget_w: Signal<Local, Bit>,
    stale_w: Signal<Local, Bit>,
    kill: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    sweep: Signal<Local, Bit>,
    sweep_addr: Signal<Local, Bits<FB>>,
    can: Signal<Local, Bit>,
    rr_next: Signal<Local, Bits<FB>>,
    succ_a: Signal<Local, Bits<FB>>,
    succ_b: Signal<Local, Bits<FB>>,
    succ_0: Signal<Local, Bits<FB>>,
    fiu_next: Signal<Local, Bits<18>>,
    infl_rr: Signal<Local, Bit>,
    infl_head: Signal<Local, Bit>,
    f_third: Signal<Local, Bits<FB>>,
    succ_c: Signal<Local, Bits<FB>>,
    p2a: Signal<Local, Bit>,
    p2b: Signal<Local, Bit>,
    p2c: Signal<Local, Bit>,
    p2d: Signal<Local, Bit>,
    eq_a: Signal<Local, Bit>,
    eq_b: Signal<Local, Bit>,
    eq_c: Signal<Local, Bit>,
    eq_d: Signal<Local, Bit>,
    f_cnt_next: Signal<Local, Bits<16>>,
    fifo_turn: Signal<Local, Bit>,
    cand: Signal<Local, Bits<FB>>,
    infl: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    push_ok: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    /// The fold's hits for q4, on q3 (`h3_v[j]`: `v[4 + j]`, `h3_w[k]`:
    /// `w[k]`), and whether a hit newer than `w[k]` is among all of them
    /// (`nw_all[k]`) or among the captures (`nw_cap[k]`).
    h3_v: Vec<Signal<Local, Bit>>,
    h3_w: Vec<Signal<Local, Bit>>,
    nw_all: Vec<Signal<Local, Bit>>,
    nw_cap: Vec<Signal<Local, Bit>>,
    fold_hit: Signal<Local, Bit>,
    fold_p: Signal<Local, Bits<2>>,
    cap_hit: Signal<Local, Bit>,
    cap_c: Signal<Local, Bits<2>>,
    cap_acc: Signal<Local, Bits<24>>,
    dec_c: Signal<Local, Bits<2>>,
    dec_p: Signal<Local, Bits<2>>,
    dec_acc: Signal<Local, Bits<24>>,
    sum1: Signal<Local, Bits<24>>,
    sum2: Signal<Local, Bits<26>>,
    /// The sums on each source of the byte count (the words `m`, the fold
    /// `c`, the last decision `w`), added in parallel and chosen after.
    s1_m: Signal<Local, Bits<24>>,
    s1_c: Signal<Local, Bits<24>>,
    s1_w: Signal<Local, Bits<24>>,
    s2_m: Signal<Local, Bits<26>>,
    s2_c: Signal<Local, Bits<26>>,
    s2_w: Signal<Local, Bits<26>>,
    acc_new: Signal<Local, Bits<24>>,
    raise: Signal<Local, Bits<2>>,
    c_new: Signal<Local, Bits<2>>,
    p_new: Signal<Local, Bits<2>>,
    queue: Signal<Local, Bit>,
    c_at_v: Signal<Local, Bits<2>>,
    /// The pending flags the visit consumes.
    pend: Signal<Local, Bits<2>>,
    s_word: Signal<Local, Bits<CW>>,
    r_word: Signal<Local, Bits<52>>,

    // ---- Constants ------------------------------------------------------------
    reset_profile: Param<Bits<2>>,
    reset_tick_cycles: Param<Bits<16>>,
    reset_flows_in_use: Param<Bits<18>>,
    reset_line_rate: Param<Bits<19>>,
    reset_r_min: Param<Bits<19>>,
    reset_r_ai: Param<Bits<19>>,
    reset_r_hai: Param<Bits<19>>,
    reset_g: Param<Bits<16>>,
    reset_alpha_init: Param<Bits<14>>,
    reset_alpha_period: Param<Bits<16>>,
    reset_dec_shift: Param<Bits<4>>,
    reset_t_inc: Param<Bits<16>>,
    reset_byte_counter: Param<Bits<24>>,
    reset_f: Param<Bits<5>>,
    reset_gd: Param<Bits<4>>,
    reset_max_dec: Param<Bits<13>>,
    reset_first_cnp_rate: Param<Bits<19>>,
    reset_clamp: Param<Bits<2>>,
    /// `max(2^FB, 4 x 2^W)`: the count after `kill_q` (the block is busy
    /// one cycle more, `RpShape::clear_cycles`).
    clear_cycles: Param<Bits<18>>,
    last_flow: Param<Bits<FB>>,
    fifo_depth: Param<Bits<16>>,
    /// The alpha stamp's offset in `sctl`'s word, `14 + W` (a constant, not
    /// `W` in an expression, which rust-hdl would write into the Verilog by
    /// name).
    a_off: Param<Bits<8>>,
}

impl<const FB: usize, const W: usize, const QB: usize, const CW: usize> Rp<FB, W, QB, CW> {
    /// The block with the reset values of `config`. The caller has validated
    /// `config` for the RTL and chosen `FB`, `W`, `QB` equal to its shape
    /// and `CW = 14 + 2 W`.
    pub fn new(config: &RpConfig) -> Self {
        let s = &config.shape;
        assert_eq!(s.flow_bits as usize, FB);
        assert_eq!(s.stamp_bits as usize, W);
        assert_eq!(s.fifo_bits as usize, QB);
        assert_eq!(CW, 14 + 2 * W);
        let r = &config.reset;
        let reg = |addr: u32| r.read(addr).unwrap_or(0) as u64;
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Self {
            v_valid: many(NV1),
            v_flow: many(NV2),
            c_r: many(NG),
            c_r1: many(NG),
            c_r2: many(NG),
            c_h: many(NG),
            c_h2: many(NG),
            c_q: many(NG),
            c_q4: many(NG),
            w_valid: many(NW),
            w_flow: many(NW1),
            w_c: many(NW),
            w_p: many(NW1),
            w_acc: many(NW1),
            e3_v: many(6),
            e3_w: many(5),
            f4_pm: many(5),
            f4_cm: many(5),
            f4_am: many(5),
            h3_v: many(6),
            h3_w: many(5),
            nw_all: many(5),
            nw_cap: many(5),
            m5_w: many(NW),
            reset_profile: Param::new(reg(0).to_bits()),
            reset_tick_cycles: Param::new(reg(1).to_bits()),
            reset_flows_in_use: Param::new(reg(2).to_bits()),
            reset_line_rate: Param::new(reg(3).to_bits()),
            reset_r_min: Param::new(reg(4).to_bits()),
            reset_r_ai: Param::new(reg(5).to_bits()),
            reset_r_hai: Param::new(reg(6).to_bits()),
            reset_g: Param::new(reg(7).to_bits()),
            reset_alpha_init: Param::new(reg(8).to_bits()),
            reset_alpha_period: Param::new(reg(9).to_bits()),
            reset_dec_shift: Param::new(reg(10).to_bits()),
            reset_t_inc: Param::new(reg(11).to_bits()),
            reset_byte_counter: Param::new(reg(12).to_bits()),
            reset_f: Param::new(reg(13).to_bits()),
            reset_gd: Param::new(reg(14).to_bits()),
            reset_max_dec: Param::new(reg(15).to_bits()),
            reset_first_cnp_rate: Param::new(reg(16).to_bits()),
            reset_clamp: Param::new(reg(17).to_bits()),
            // The count runs from the cycle after the kill (`kill_q`).
            clear_cycles: Param::new((s.clear_cycles() as u64 - 1).to_bits()),
            last_flow: Param::new(((1u64 << FB) - 1).to_bits()),
            fifo_depth: Param::new((1u64 << QB).to_bits()),
            a_off: Param::new(((14 + W) as u64).to_bits()),
            visit: RpVisit::new(),
            ..Default::default()
        }
    }
}

impl<const FB: usize, const W: usize, const QB: usize, const CW: usize> Logic
    for Rp<FB, W, QB, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            r_profile,
            r_tick_cycles,
            r_flows_in_use,
            fiu_lim,
            r_line_rate,
            r_r_min,
            r_r_ai,
            r_r_hai,
            r_g,
            r_alpha_init,
            r_alpha_period,
            r_dec_shift,
            r_t_inc,
            r_byte_counter,
            r_f,
            r_gd,
            r_max_dec,
            r_first_cnp_rate,
            r_clamp,
            e_profile,
            e_line_rate,
            e_r_min,
            e_r_ai,
            e_r_hai,
            e_g,
            e_alpha_init,
            e_alpha_period,
            e_dec_shift,
            e_t_inc,
            e_bc_on,
            e_f,
            e_gd,
            e_max_dec,
            e_first_cnp_rate,
            e_clamp,
            stale,
            prescale,
            tick,
            ap_pre,
            apn,
            kill_q,
            busy_cnt,
            busy_q,
            older_inflight,
            sweep_ptr,
            sweeping,
            fill_q,
            turn,
            rr,
            rr_plus,
            rr_plus2,
            rr_adv,
            f_rd,
            f_wr,
            f_cnt,
            f_ne,
            f_head,
            f_head2,
            f_hsel,
            f_was_empty,
            fifo_turn_r,
            f_rq,
            f_rq2,
            f_popd,
            f_popd2,
            b1_d,
            b1_2,
            b2_d,
            b2_2,
            b3_d,
            b3_2,
            pre_a,
            pre_b,
            pre_c,
            pre_d,
            eqr_b,
            eqr_c,
            eqr_d,
            eqh_a,
            eqh_b,
            eqh_d,
            fturn,
            wrote,
            wrote2,
            q1_valid,
            q1_kind,
            q1_flow,
            q1_bytes,
            q1_b,
            q2_valid,
            q2_kind,
            q2_flow,
            q2_bytes,
            q2_bmb,
            q2_bon,
            q3_valid,
            q3_kind,
            q3_flow,
            q3_bytes,
            q3_bmb,
            q3_bon,
            q4_valid,
            q4_kind,
            q4_flow,
            q4_bytes,
            q4_bmb,
            q4_bon,
            q5_valid,
            q5_kind,
            q5_flow,
            q5_bytes,
            q5_bmb,
            q5_bon,
            q5_e1,
            q5_fh,
            q5_fp,
            q5_ch,
            q5_cc,
            q5_cacc,
            q5_con,
            m4_con,
            f4_hit,
            f4_chit,
            q6_push,
            q6_flow,
            x1_valid,
            x1_flow,
            x1_tick,
            x1_apn,
            x2_valid,
            x2_flow,
            x2_tick,
            x2_apn,
            x3_valid,
            x3_flow,
            x3_tick,
            x3_apn,
            x4_valid,
            x4_flow,
            x4_tick,
            x4_apn,
            x5_valid,
            x5_flow,
            x5_tick,
            x5_apn,
            o1_valid,
            o1_flow,
            o1_rc,
            o1_cut,
            o2_valid,
            o2_flow,
            o2_rc,
            o2_cut
        );
        for k in 0..NV1 {
            self.v_valid[k].clock.next = self.clk.val();
        }
        for j in 0..6 {
            self.e3_v[j].clock.next = self.clk.val();
        }
        for k in 0..5 {
            self.e3_w[k].clock.next = self.clk.val();
            self.f4_pm[k].clock.next = self.clk.val();
            self.f4_cm[k].clock.next = self.clk.val();
            self.f4_am[k].clock.next = self.clk.val();
        }
        for k in 0..NW {
            self.m5_w[k].clock.next = self.clk.val();
        }
        for k in 0..NV2 {
            self.v_flow[k].clock.next = self.clk.val();
        }
        for g in 0..NG {
            self.c_r[g].clock.next = self.clk.val();
            self.c_r1[g].clock.next = self.clk.val();
            self.c_r2[g].clock.next = self.clk.val();
            self.c_h[g].clock.next = self.clk.val();
            self.c_h2[g].clock.next = self.clk.val();
            self.c_q[g].clock.next = self.clk.val();
            self.c_q4[g].clock.next = self.clk.val();
        }
        for k in 0..NW {
            self.w_valid[k].clock.next = self.clk.val();
            self.w_c[k].clock.next = self.clk.val();
        }
        for k in 0..NW1 {
            self.w_flow[k].clock.next = self.clk.val();
            self.w_p[k].clock.next = self.clk.val();
            self.w_acc[k].clock.next = self.clk.val();
        }
        self.srate.clock.next = self.clk.val();
        self.sctl.clock.next = self.clk.val();
        self.cacc.clock.next = self.clk.val();
        self.cflg.clock.next = self.clk.val();
        self.eh.clock.next = self.clk.val();
        self.fmem.clock.next = self.clk.val();
        self.visit.clk.next = self.clk.val();

        // ---- Control ----------------------------------------------------------
        self.busy.next = self.busy_q.q.val();
        self.forget_w.next = self.s_cfg_valid.val()
            & ((self.s_cfg_addr.val() == 0)
                | (self.s_cfg_addr.val() == 7)
                | (self.s_cfg_addr.val() == 9));
        self.stale_w.next =
            self.s_cfg_valid.val() & (self.s_cfg_addr.val() < 18) & !self.forget_w.val();
        self.kill.next = self.rst.val() | self.forget_w.val();
        self.kill_q.d.next = self.kill.val();
        self.older_inflight.d.next = false;
        for k in 0..NV1 {
            if self.v_valid[k].q.val() & !self.kill_q.q.val() {
                self.older_inflight.d.next = true;
            }
        }
        // `take` leaves out `v_valid[0]` (the visit of the last cycle): it
        // is 0 whenever the rest holds. A visit in cycle `t - 1` needs
        // `can`, so `stale` low or `take` then; either way `stale` is high
        // in `t` only through a write in `t - 1`, and then `wrote` is high
        // in `t`.
        self.take.next = self.stale.q.val()
            & !self.older_inflight.q.val()
            & !self.wrote.q.val()
            & !self.wrote2.q.val();
        self.wrote.d.next = self.stale_w.val() & !self.rst.val();
        self.wrote2.d.next = self.wrote.q.val();
        self.stale.d.next = (self.stale.q.val() & !self.take.val()) | self.stale_w.val();
        if self.rst.val() {
            self.stale.d.next = false;
        }
        self.s_evt_ready.next = !self.busy.val();
        if self.busy.val() {
            self.busy_cnt.d.next = self.busy_cnt.q.val() - 1;
        }
        self.busy_q.d.next = self.busy_cnt.q.val() > 1;
        // Busy from the cycle after the kill; the count starts a cycle
        // later, with the clearing, and runs `clear_cycles` cycles more.
        if self.kill.val() {
            self.busy_q.d.next = true;
        }
        if self.kill_q.q.val() {
            self.busy_cnt.d.next = self.clear_cycles.val();
            self.busy_q.d.next = true;
        }
        self.fill_q.d.next = self.kill.val();
        self.sweep.next = self.kill_q.q.val() | self.sweeping.q.val();
        self.sweeping.d.next = self.sweeping.q.val() & !self.sweep_ptr.q.val().all();
        self.sweep_addr.next = self.sweep_ptr.q.val();
        if self.sweep_ptr.q.val().any() {
            self.sweep_ptr.d.next = self.sweep_ptr.q.val() + 1;
        }
        if self.kill_q.q.val() {
            self.sweep_addr.next = 0.into();
            self.sweep_ptr.d.next = 1.into();
            self.sweeping.d.next = true;
        }

        // ---- Registers: written, reset, taken by the engine -------------------
        // flows_in_use as it will be in the next cycle.
        self.fiu_next.next = self.r_flows_in_use.q.val();
        if self.s_cfg_valid.val() & (self.s_cfg_addr.val() == 2) {
            self.fiu_next.next = self.s_cfg_data.val().get_bits::<18>(0);
        }
        if self.rst.val() {
            self.fiu_next.next = self.reset_flows_in_use.val();
        }
        self.r_flows_in_use.d.next = self.fiu_next.val();
        self.fiu_lim.d.next = self.fiu_next.val() - 1;
        if !self.fiu_next.val().any() {
            self.fiu_lim.d.next = 0.into();
        }
        if self.s_cfg_valid.val() {
            if self.s_cfg_addr.val() == 0 {
                self.r_profile.d.next = self.s_cfg_data.val().get_bits::<2>(0);
            }
            if self.s_cfg_addr.val() == 1 {
                self.r_tick_cycles.d.next = self.s_cfg_data.val().get_bits::<16>(0);
            }
            if self.s_cfg_addr.val() == 3 {
                self.r_line_rate.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 4 {
                self.r_r_min.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 5 {
                self.r_r_ai.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 6 {
                self.r_r_hai.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 7 {
                self.r_g.d.next = self.s_cfg_data.val().get_bits::<16>(0);
            }
            if self.s_cfg_addr.val() == 8 {
                self.r_alpha_init.d.next = self.s_cfg_data.val().get_bits::<14>(0);
            }
            if self.s_cfg_addr.val() == 9 {
                self.r_alpha_period.d.next = self.s_cfg_data.val().get_bits::<16>(0);
            }
            if self.s_cfg_addr.val() == 10 {
                self.r_dec_shift.d.next = self.s_cfg_data.val().get_bits::<4>(0);
            }
            if self.s_cfg_addr.val() == 11 {
                self.r_t_inc.d.next = self.s_cfg_data.val().get_bits::<16>(0);
            }
            if self.s_cfg_addr.val() == 12 {
                self.r_byte_counter.d.next = self.s_cfg_data.val().get_bits::<24>(0);
            }
            if self.s_cfg_addr.val() == 13 {
                self.r_f.d.next = self.s_cfg_data.val().get_bits::<5>(0);
            }
            if self.s_cfg_addr.val() == 14 {
                self.r_gd.d.next = self.s_cfg_data.val().get_bits::<4>(0);
            }
            if self.s_cfg_addr.val() == 15 {
                self.r_max_dec.d.next = self.s_cfg_data.val().get_bits::<13>(0);
            }
            if self.s_cfg_addr.val() == 16 {
                self.r_first_cnp_rate.d.next = self.s_cfg_data.val().get_bits::<19>(0);
            }
            if self.s_cfg_addr.val() == 17 {
                self.r_clamp.d.next = self.s_cfg_data.val().get_bits::<2>(0);
            }
        }
        if self.busy.val() | self.take.val() {
            self.e_profile.d.next = self.r_profile.q.val();
            self.e_line_rate.d.next = self.r_line_rate.q.val();
            self.e_r_min.d.next = self.r_r_min.q.val();
            self.e_r_ai.d.next = self.r_r_ai.q.val();
            self.e_r_hai.d.next = self.r_r_hai.q.val();
            self.e_g.d.next = self.r_g.q.val();
            self.e_alpha_init.d.next = self.r_alpha_init.q.val();
            self.e_alpha_period.d.next = self.r_alpha_period.q.val();
            self.e_dec_shift.d.next = self.r_dec_shift.q.val();
            self.e_t_inc.d.next = self.r_t_inc.q.val();
            self.e_bc_on.d.next = self.r_byte_counter.q.val().any();
            self.e_f.d.next = self.r_f.q.val();
            self.e_gd.d.next = self.r_gd.q.val();
            self.e_max_dec.d.next = self.r_max_dec.q.val();
            self.e_first_cnp_rate.d.next = self.r_first_cnp_rate.q.val();
            self.e_clamp.d.next = self.r_clamp.q.val();
        }
        if self.rst.val() {
            self.r_profile.d.next = self.reset_profile.val();
            self.r_tick_cycles.d.next = self.reset_tick_cycles.val();
            self.r_line_rate.d.next = self.reset_line_rate.val();
            self.r_r_min.d.next = self.reset_r_min.val();
            self.r_r_ai.d.next = self.reset_r_ai.val();
            self.r_r_hai.d.next = self.reset_r_hai.val();
            self.r_g.d.next = self.reset_g.val();
            self.r_alpha_init.d.next = self.reset_alpha_init.val();
            self.r_alpha_period.d.next = self.reset_alpha_period.val();
            self.r_dec_shift.d.next = self.reset_dec_shift.val();
            self.r_t_inc.d.next = self.reset_t_inc.val();
            self.r_byte_counter.d.next = self.reset_byte_counter.val();
            self.r_f.d.next = self.reset_f.val();
            self.r_gd.d.next = self.reset_gd.val();
            self.r_max_dec.d.next = self.reset_max_dec.val();
            self.r_first_cnp_rate.d.next = self.reset_first_cnp_rate.val();
            self.r_clamp.d.next = self.reset_clamp.val();
        }

        // ---- Time base (the registers of this cycle) --------------------------
        self.prescale.d.next = self.prescale.q.val() + 1;
        if (bit_cast::<17, 16>(self.prescale.q.val()) + 1)
            >= bit_cast::<17, 16>(self.r_tick_cycles.q.val())
        {
            self.prescale.d.next = 0.into();
            self.tick.d.next = self.tick.q.val() + 1;
            self.ap_pre.d.next = self.ap_pre.q.val() + 1;
            if (bit_cast::<17, 16>(self.ap_pre.q.val()) + 1)
                >= bit_cast::<17, 16>(self.r_alpha_period.q.val())
            {
                self.ap_pre.d.next = 0.into();
                self.apn.d.next = self.apn.q.val() + 1;
            }
        }
        if self.rst.val() {
            self.prescale.d.next = 0.into();
            self.tick.d.next = 0.into();
            self.ap_pre.d.next = 0.into();
            self.apn.d.next = 0.into();
        }

        // ---- Scheduler ------------------------------------------------------
        // The decision of this cycle reads registers only: the candidate is
        // the FIFO's head register or the round robin's flow; whether it is
        // in flight was worked out over the two cycles before (`c_*`, then
        // `pre_*`) but for the last cycle's visit (`eq_*`, with
        // `v_valid[0]`). The FIFO's turn follows a cycle that was not its
        // turn, so the head only changed then by a push into an empty FIFO
        // (`f_was_empty`: source `d`). The round robin's successors are
        // worked out with the flows_in_use register of their cycle (not
        // with a write arriving in it: that path from the register port
        // held the block at 141 MHz); after a write they are right again
        // two cycles on, and the engine makes no visit in the two cycles
        // after a register write (`wrote`, `wrote2`: `WRITE_PAUSE`).
        self.fifo_turn.next = self.fifo_turn_r.q.val();
        self.cand.next = self.rr.q.val();
        if self.fifo_turn.val() {
            self.cand.next = self.f_head.q.val();
        }
        self.eq_a.next = true;
        self.eq_b.next = self.eqr_b.q.val();
        self.eq_c.next = self.eqr_c.q.val();
        self.eq_d.next = self.eqr_d.q.val();
        if self.fturn.q.val() {
            self.eq_a.next = self.eqh_a.q.val();
            self.eq_b.next = self.eqh_b.q.val();
            self.eq_c.next = true;
            self.eq_d.next = self.eqh_d.q.val();
        }
        if self.rr_adv.q.val() {
            self.infl_rr.next = self.pre_b.q.val() | (self.v_valid[0].q.val() & self.eq_b.val());
        } else {
            self.infl_rr.next = self.pre_a.q.val() | (self.v_valid[0].q.val() & self.eq_a.val());
        }
        if self.f_was_empty.q.val() {
            self.infl_head.next = self.pre_d.q.val() | (self.v_valid[0].q.val() & self.eq_d.val());
        } else {
            self.infl_head.next = self.pre_c.q.val() | (self.v_valid[0].q.val() & self.eq_c.val());
        }
        self.infl.next = self.infl_rr.val();
        if self.fifo_turn.val() {
            self.infl.next = self.infl_head.val();
        }
        self.can.next =
            !self.busy.val() & !self.rst.val() & (!self.stale.q.val() | self.take.val());
        self.go.next = self.can.val() & !self.infl.val();
        self.pop.next = self.go.val() & self.fifo_turn.val();
        // The round robin: `rr_plus`, `rr_plus2` are `rr`'s successors
        // with the flows_in_use of `rr`'s cycle.
        self.rr_next.next = self.rr.q.val();
        self.rr_adv.d.next = false;
        if self.can.val() & !self.fifo_turn.val() {
            self.rr_next.next = self.rr_plus.q.val();
            self.rr_adv.d.next = true;
        }
        self.turn.d.next = !self.turn.q.val();
        if self.kill_q.q.val() {
            self.turn.d.next = false;
            self.rr_next.next = 0.into();
            self.rr_adv.d.next = false;
        }
        self.rr.d.next = self.rr_next.val();
        // The successor of each flow `rr` can become, muxed at the end.
        self.succ_a.next = self.rr.q.val() + 1;
        if (self.rr.q.val() == self.last_flow.val())
            | (bit_cast::<18, FB>(self.rr.q.val()) >= self.fiu_lim.q.val())
        {
            self.succ_a.next = 0.into();
        }
        self.succ_b.next = self.rr_plus.q.val() + 1;
        if (self.rr_plus.q.val() == self.last_flow.val())
            | (bit_cast::<18, FB>(self.rr_plus.q.val()) >= self.fiu_lim.q.val())
        {
            self.succ_b.next = 0.into();
        }
        self.succ_c.next = self.rr_plus2.q.val() + 1;
        if (self.rr_plus2.q.val() == self.last_flow.val())
            | (bit_cast::<18, FB>(self.rr_plus2.q.val()) >= self.fiu_lim.q.val())
        {
            self.succ_c.next = 0.into();
        }
        self.succ_0.next = 1.into();
        if !self.fiu_lim.q.val().any() {
            self.succ_0.next = 0.into();
        }
        self.rr_plus.d.next = self.succ_a.val();
        self.rr_plus2.d.next = self.succ_b.val();
        if self.can.val() & !self.fifo_turn.val() {
            self.rr_plus.d.next = self.succ_b.val();
            self.rr_plus2.d.next = self.succ_c.val();
        }
        if self.kill_q.q.val() {
            self.rr_plus.d.next = self.succ_0.val();
            self.rr_plus2.d.next = self.succ_b.val();
        }
        // Two cycles ahead: the flows that can become a..d next cycle,
        // against the visits that will then be 2..62 cycles back.
        for g in 0..NG {
            self.c_r[g].d.next = false;
            self.c_r1[g].d.next = false;
            self.c_r2[g].d.next = false;
            self.c_h[g].d.next = false;
            self.c_h2[g].d.next = false;
            self.c_q[g].d.next = false;
            self.c_q4[g].d.next = false;
        }
        for k in 0..NV2 {
            if self.v_valid[k].q.val() & (self.v_flow[k].q.val() == self.rr.q.val()) {
                self.c_r[k / 2].d.next = true;
            }
            if self.v_valid[k].q.val() & (self.v_flow[k].q.val() == self.rr_plus.q.val()) {
                self.c_r1[k / 2].d.next = true;
            }
            if self.v_valid[k].q.val() & (self.v_flow[k].q.val() == self.rr_plus2.q.val()) {
                self.c_r2[k / 2].d.next = true;
            }
            if self.v_valid[k].q.val() & (self.v_flow[k].q.val() == self.f_head.q.val()) {
                self.c_h[k / 2].d.next = true;
            }
            if self.v_valid[k].q.val() & (self.v_flow[k].q.val() == self.f_head2.q.val()) {
                self.c_h2[k / 2].d.next = true;
            }
            if self.v_valid[k].q.val() & (self.v_flow[k].q.val() == self.q6_flow.q.val()) {
                self.c_q[k / 2].d.next = true;
            }
            if self.v_valid[k].q.val() & (self.v_flow[k].q.val() == self.q5_flow.q.val()) {
                self.c_q4[k / 2].d.next = true;
            }
        }
        // One cycle ahead: a..d among the visits 2..63 cycles back, seen
        // from the next cycle; `c_*` chosen by how `rr` and `f_head` came.
        self.p2a.next = false;
        self.p2b.next = false;
        self.p2c.next = false;
        self.p2d.next = false;
        for g in 0..NG {
            if self.rr_adv.q.val() {
                if self.c_r1[g].q.val() {
                    self.p2a.next = true;
                }
                if self.c_r2[g].q.val() {
                    self.p2b.next = true;
                }
            } else {
                if self.c_r[g].q.val() {
                    self.p2a.next = true;
                }
                if self.c_r1[g].q.val() {
                    self.p2b.next = true;
                }
            }
            if self.f_hsel.q.val() == 1 {
                if self.c_h2[g].q.val() {
                    self.p2c.next = true;
                }
            } else if self.f_hsel.q.val() == 2 {
                if self.c_q[g].q.val() {
                    self.p2c.next = true;
                }
            } else if self.c_h[g].q.val() {
                self.p2c.next = true;
            }
            if self.c_q4[g].q.val() {
                self.p2d.next = true;
            }
        }
        self.pre_a.d.next = self.p2a.val()
            | (self.v_valid[0].q.val() & (self.v_flow[0].q.val() == self.rr.q.val()));
        self.pre_b.d.next = self.p2b.val()
            | (self.v_valid[0].q.val() & (self.v_flow[0].q.val() == self.rr_plus.q.val()));
        self.pre_c.d.next = self.p2c.val()
            | (self.v_valid[0].q.val() & (self.v_flow[0].q.val() == self.f_head.q.val()));
        self.pre_d.d.next = self.p2d.val()
            | (self.v_valid[0].q.val() & (self.v_flow[0].q.val() == self.q6_flow.q.val()));
        self.eqr_b.d.next = self.rr.q.val() == self.rr_plus.q.val();
        self.eqr_c.d.next = self.rr.q.val() == self.f_head.q.val();
        self.eqr_d.d.next = self.rr.q.val() == self.q6_flow.q.val();
        self.eqh_a.d.next = self.f_head.q.val() == self.rr.q.val();
        self.eqh_b.d.next = self.f_head.q.val() == self.rr_plus.q.val();
        self.eqh_d.d.next = self.f_head.q.val() == self.q6_flow.q.val();
        self.fturn.d.next = self.fifo_turn.val();
        self.v_valid[0].d.next = self.go.val() & !self.kill_q.q.val();
        // Loaded only while not busy (every visit is), so that it is not
        // merged with the RAMs' read address registers, which take `cand`
        // every cycle: the merged register, placed by a RAM, drove the
        // in-flight checks through 2.4 ns of routing.
        self.v_flow[0].d.next = self.v_flow[0].q.val();
        if !self.busy.val() {
            self.v_flow[0].d.next = self.cand.val();
        }
        for k in 1..NV1 {
            self.v_valid[k].d.next = self.v_valid[k - 1].q.val() & !self.kill_q.q.val();
        }
        for k in 1..NV2 {
            self.v_flow[k].d.next = self.v_flow[k - 1].q.val();
        }

        // ---- Capture: ports into q1, q1 -> q4 ------------------------------
        self.accept.next = self.s_evt_valid.val() & !self.busy.val() & !self.rst.val();
        self.cacc.read_address_a.next = self.s_evt_flow.val();
        self.cflg.read_address_a.next = self.s_evt_flow.val();
        self.eh.read_address_a.next = self.s_evt_flow.val();
        self.q1_valid.d.next = self.accept.val() & !self.kill_q.q.val();
        self.q1_kind.d.next = self.s_evt_kind.val();
        self.q1_flow.d.next = self.s_evt_flow.val();
        self.q1_bytes.d.next = self.s_evt_bytes.val();
        self.q1_b.d.next = self.r_byte_counter.q.val();
        self.q2_valid.d.next = self.q1_valid.q.val() & !self.kill_q.q.val();
        self.q2_kind.d.next = self.q1_kind.q.val();
        self.q2_flow.d.next = self.q1_flow.q.val();
        self.q2_bytes.d.next = self.q1_bytes.q.val();
        self.q2_bmb.d.next =
            bit_cast::<26, 16>(self.q1_bytes.q.val()) - bit_cast::<26, 24>(self.q1_b.q.val());
        self.q2_bon.d.next = self.q1_b.q.val().any();
        self.q3_valid.d.next = self.q2_valid.q.val() & !self.kill_q.q.val();
        self.q3_kind.d.next = self.q2_kind.q.val();
        self.q3_flow.d.next = self.q2_flow.q.val();
        self.q3_bytes.d.next = self.q2_bytes.q.val();
        self.q3_bmb.d.next = self.q2_bmb.q.val();
        self.q3_bon.d.next = self.q2_bon.q.val();
        self.q4_valid.d.next = self.q3_valid.q.val() & !self.kill_q.q.val();
        self.q4_kind.d.next = self.q3_kind.q.val();
        self.q4_flow.d.next = self.q3_flow.q.val();
        self.q4_bytes.d.next = self.q3_bytes.q.val();
        self.q4_bmb.d.next = self.q3_bmb.q.val();
        self.q4_bon.d.next = self.q3_bon.q.val();

        // The fold's compares, two cycles ahead (q2's flow is q4's then;
        // v[4 + j]'s flow is v[2 + j]'s now; w[0]'s is q4's, w[1]'s q5's,
        // w[k]'s w[k - 2]'s).
        for j in 0..6 {
            self.e3_v[j].d.next = self.q2_flow.q.val() == self.v_flow[2 + j].q.val();
        }
        self.e3_w[0].d.next = self.q2_flow.q.val() == self.q4_flow.q.val();
        self.e3_w[1].d.next = self.q2_flow.q.val() == self.q5_flow.q.val();
        for k in 2..5 {
            self.e3_w[k].d.next = self.q2_flow.q.val() == self.w_flow[k - 2].q.val();
        }
        self.m4_con.d.next = self.q3_flow.q.val() == self.v_flow[2].q.val();

        // ---- The fold, resolved on q3 for q4 ------------------------------------
        // Cycle j's visit comes before cycle j's capture. At q4 (n + 4),
        // v[4 + j] is the visit of cycle n - 1 - j and w[k] the capture of
        // n - 2 - k; the newest hit wins. The hits use the valids that will
        // shift into place; the kill that clears those also clears q4's
        // own valid, so the fold of a killed cycle is never used.
        for j in 0..6 {
            self.h3_v[j].next = self.e3_v[j].q.val() & self.v_valid[3 + j].q.val();
        }
        self.h3_w[0].next = self.e3_w[0].q.val() & self.q5_valid.q.val();
        for k in 1..5 {
            self.h3_w[k].next = self.e3_w[k].q.val() & self.w_valid[k - 1].q.val();
        }
        // Newer than w[k] (the capture of n - 2 - k): the visits of n - 1 ..
        // n - 1 - k (v[4] .. v[4 + k]; the visit of w[k]'s own cycle comes
        // before it) and w[0..k].
        self.nw_all[0].next = self.h3_v[0].val();
        self.nw_cap[0].next = false;
        for k in 1..5 {
            self.nw_all[k].next =
                self.nw_all[k - 1].val() | self.h3_w[k - 1].val() | self.h3_v[k].val();
            self.nw_cap[k].next = self.nw_cap[k - 1].val() | self.h3_w[k - 1].val();
        }
        for k in 0..5 {
            self.f4_pm[k].d.next = 0.into();
            if self.h3_w[k].val() & !self.nw_all[k].val() {
                self.f4_pm[k].d.next = 3.into();
            }
            self.f4_cm[k].d.next = 0.into();
            self.f4_am[k].d.next = 0.into();
            if self.h3_w[k].val() & !self.nw_cap[k].val() {
                self.f4_cm[k].d.next = 3.into();
                self.f4_am[k].d.next = 16777215.into();
            }
        }
        self.f4_hit.d.next = self.nw_all[4].val() | self.h3_w[4].val() | self.h3_v[5].val();
        self.f4_chit.d.next = self.nw_cap[4].val() | self.h3_w[4].val();

        // ---- Capture q4 -> q5: the fold's one-hot picks --------------------------
        self.fold_hit.next = self.f4_hit.q.val();
        self.fold_p.next = (self.w_p[0].q.val() & self.f4_pm[0].q.val())
            | (self.w_p[1].q.val() & self.f4_pm[1].q.val())
            | (self.w_p[2].q.val() & self.f4_pm[2].q.val())
            | (self.w_p[3].q.val() & self.f4_pm[3].q.val())
            | (self.w_p[4].q.val() & self.f4_pm[4].q.val());
        self.cap_hit.next = self.f4_chit.q.val();
        self.cap_c.next = (self.w_c[0].q.val() & self.f4_cm[0].q.val())
            | (self.w_c[1].q.val() & self.f4_cm[1].q.val())
            | (self.w_c[2].q.val() & self.f4_cm[2].q.val())
            | (self.w_c[3].q.val() & self.f4_cm[3].q.val())
            | (self.w_c[4].q.val() & self.f4_cm[4].q.val());
        self.cap_acc.next = (self.w_acc[0].q.val() & self.f4_am[0].q.val())
            | (self.w_acc[1].q.val() & self.f4_am[1].q.val())
            | (self.w_acc[2].q.val() & self.f4_am[2].q.val())
            | (self.w_acc[3].q.val() & self.f4_am[3].q.val())
            | (self.w_acc[4].q.val() & self.f4_am[4].q.val());
        self.q5_valid.d.next = self.q4_valid.q.val() & !self.kill_q.q.val();
        self.q5_kind.d.next = self.q4_kind.q.val();
        self.q5_flow.d.next = self.q4_flow.q.val();
        self.q5_bytes.d.next = self.q4_bytes.q.val();
        self.q5_bmb.d.next = self.q4_bmb.q.val();
        self.q5_bon.d.next = self.q4_bon.q.val();
        self.q5_e1.d.next = self.q5_valid.q.val() & (self.q5_flow.q.val() == self.q4_flow.q.val());
        self.q5_fh.d.next = self.fold_hit.val();
        self.q5_fp.d.next = self.fold_p.val();
        self.q5_ch.d.next = self.cap_hit.val();
        self.q5_cc.d.next = self.cap_c.val();
        self.q5_cacc.d.next = self.cap_acc.val();
        // n: the visit of the event's own cycle
        self.q5_con.d.next = self.v_valid[3].q.val() & self.m4_con.q.val();

        // ---- Capture q5: the decision (the one-cycle loop) --------------------
        self.dec_c.next = self.cflg.read_data_a.val();
        self.dec_acc.next = self.cacc.read_data_a.val();
        self.dec_p.next = self.cflg.read_data_a.val() ^ self.eh.read_data_a.val();
        if self.q5_fh.q.val() {
            self.dec_p.next = self.q5_fp.q.val();
        }
        if self.q5_ch.q.val() {
            self.dec_c.next = self.q5_cc.q.val();
            self.dec_acc.next = self.q5_cacc.q.val();
        }
        if self.q5_e1.q.val() {
            self.dec_c.next = self.w_c[0].q.val();
            self.dec_acc.next = self.w_acc[0].q.val();
            self.dec_p.next = self.w_p[0].q.val();
        }
        if self.q5_con.q.val() {
            self.dec_p.next = 0.into();
        }
        // The count is kept mod 2^24 (the golden model's mask): sum1 wraps.
        // Each source's sums are added in parallel, then chosen as
        // `dec_acc` is (the adders start from registers).
        self.s1_m.next = self.cacc.read_data_a.val() + bit_cast::<24, 16>(self.q5_bytes.q.val());
        self.s1_c.next = self.q5_cacc.q.val() + bit_cast::<24, 16>(self.q5_bytes.q.val());
        self.s1_w.next = self.w_acc[0].q.val() + bit_cast::<24, 16>(self.q5_bytes.q.val());
        self.s2_m.next = bit_cast::<26, 24>(self.cacc.read_data_a.val()) + self.q5_bmb.q.val();
        self.s2_c.next = bit_cast::<26, 24>(self.q5_cacc.q.val()) + self.q5_bmb.q.val();
        self.s2_w.next = bit_cast::<26, 24>(self.w_acc[0].q.val()) + self.q5_bmb.q.val();
        self.sum1.next = self.s1_m.val();
        self.sum2.next = self.s2_m.val();
        if self.q5_ch.q.val() {
            self.sum1.next = self.s1_c.val();
            self.sum2.next = self.s2_c.val();
        }
        if self.q5_e1.q.val() {
            self.sum1.next = self.s1_w.val();
            self.sum2.next = self.s2_w.val();
        }
        self.acc_new.next = self.dec_acc.val();
        self.raise.next = 0.into();
        if !self.q5_kind.q.val() {
            self.acc_new.next = 0.into();
            self.raise.next = 1.into();
        } else if self.q5_bon.q.val() {
            if self.sum2.val().get_bit(25) {
                self.acc_new.next = self.sum1.val();
            } else {
                self.acc_new.next = self.sum2.val().get_bits::<24>(0);
                self.raise.next = 2.into();
            }
        }
        self.c_new.next = self.dec_c.val() ^ (self.raise.val() & !self.dec_p.val());
        self.p_new.next = self.dec_p.val() | self.raise.val();
        self.queue.next = self.q5_valid.q.val() & !self.dec_p.val().any() & self.raise.val().any();
        // The push waits a cycle in q6 (off the loop's path).
        self.q6_push.d.next = self.queue.val() & !self.kill_q.q.val();
        self.q6_flow.d.next = self.q5_flow.q.val();
        self.cacc.write_address.next = self.q5_flow.q.val();
        self.cacc.write_data.next = self.acc_new.val();
        self.cacc.write_enable.next = self.q5_valid.q.val();
        self.cflg.write_address.next = self.q5_flow.q.val();
        self.cflg.write_data.next = self.c_new.val();
        self.cflg.write_enable.next = self.q5_valid.q.val();
        self.w_valid[0].d.next = self.q5_valid.q.val() & !self.kill_q.q.val();
        self.w_flow[0].d.next = self.q5_flow.q.val();
        self.w_c[0].d.next = self.c_new.val();
        self.w_p[0].d.next = self.p_new.val();
        self.w_acc[0].d.next = self.acc_new.val();
        for k in 1..NW {
            self.w_valid[k].d.next = self.w_valid[k - 1].q.val() & !self.kill_q.q.val();
            self.w_c[k].d.next = self.w_c[k - 1].q.val();
        }
        for k in 1..NW1 {
            self.w_flow[k].d.next = self.w_flow[k - 1].q.val();
        }
        for k in 1..NW1 {
            self.w_p[k].d.next = self.w_p[k - 1].q.val();
            self.w_acc[k].d.next = self.w_acc[k - 1].q.val();
        }

        // ---- FIFO: pop, then a push of the capture deciding now --------------
        // The RAM holds every entry; `f_head` and `f_head2` copy the first
        // two. A pop (on the FIFO's turn: turns alternate, so none in the
        // last cycle) takes the entry two after the head into `f_head2`,
        // from the RAM through a registered read. Each cycle reads the
        // entry two after the head, three on the FIFO's turn (the entry
        // two after the head once this turn pops). A pop in cycle `p`
        // takes the read of `p - 2` if `p - 2` popped (it saw every push
        // up to `p - 3`), else that of `p - 3` (every push up to `p - 4`),
        // unless a push it did not see wrote that entry: the push of
        // `p - 1` or `p - 2`, or, if `p - 2` did not pop, of `p - 3`.
        self.push_ok.next =
            self.q6_push.q.val() & ((self.f_cnt.q.val() != self.fifo_depth.val()) | self.pop.val());
        self.fmem.read_address.next = self.f_rd.q.val() + 2;
        if self.turn.q.val() {
            self.fmem.read_address.next = self.f_rd.q.val() + 3;
        }
        self.fmem.write_address.next = self.f_wr.q.val();
        self.fmem.write_data.next = self.q6_flow.q.val();
        self.fmem.write_enable.next = self.push_ok.val();
        if self.pop.val() {
            self.f_rd.d.next = self.f_rd.q.val() + 1;
        }
        if self.push_ok.val() {
            self.f_wr.d.next = self.f_wr.q.val() + 1;
        }
        self.f_cnt_next.next = self.f_cnt.q.val();
        if self.push_ok.val() & !self.pop.val() {
            self.f_cnt_next.next = self.f_cnt.q.val() + 1;
        }
        if self.pop.val() & !self.push_ok.val() {
            self.f_cnt_next.next = self.f_cnt.q.val() - 1;
        }
        self.f_rq.d.next = self.fmem.read_data.val();
        self.f_rq2.d.next = self.f_rq.q.val();
        self.f_popd.d.next = self.pop.val();
        self.f_popd2.d.next = self.f_popd.q.val();
        self.f_third.next = self.f_rq2.q.val();
        if self.b3_2.q.val() {
            self.f_third.next = self.b3_d.q.val();
        }
        if self.f_popd2.q.val() {
            self.f_third.next = self.f_rq.q.val();
        }
        if self.b2_2.q.val() {
            self.f_third.next = self.b2_d.q.val();
        }
        if self.b1_2.q.val() {
            self.f_third.next = self.b1_d.q.val();
        }
        // A push lands `f_cnt - pop` places behind the head of the next
        // cycle: the flag is set when that is two (`f_cnt` 3 with a pop),
        // and also when `f_cnt` is 2 with a pop or with no push. Those
        // extra marks never win: after one, the FIFO holds at most two
        // entries in the next cycle, so a pop that finds three finds the
        // third pushed later, within its window, and that record wins
        // (newest first). Leaving `push_ok` and the pop out of the
        // `f_cnt == 2` term keeps the late pop off most of this logic.
        // The flags are not moved by later pops: a pop in `p` follows
        // none in `p - 1`, and `b3` is not used after a pop in `p - 2`
        // (nor would it win there, by the same argument). A kill does
        // not clear them: the clearing that follows pops nothing for far
        // more than three cycles.
        self.b1_d.d.next = self.q6_flow.q.val();
        self.b1_2.d.next = (self.f_cnt.q.val() == 2) | ((self.f_cnt.q.val() == 3) & self.pop.val());
        self.b2_d.d.next = self.b1_d.q.val();
        self.b2_2.d.next = self.b1_2.q.val();
        self.b3_d.d.next = self.b2_d.q.val();
        self.b3_2.d.next = self.b2_2.q.val();
        // The head: a push into an empty FIFO (or one emptied by this pop),
        // else the entry after it on a pop.
        self.f_hsel.d.next = 0.into();
        if !self.f_ne.q.val() | self.pop.val() {
            self.f_head.d.next = self.q6_flow.q.val();
            self.f_hsel.d.next = 2.into();
        }
        if self.pop.val() & (self.f_cnt.q.val() > 1) {
            self.f_head.d.next = self.f_head2.q.val();
            self.f_hsel.d.next = 1.into();
        }
        // The entry after the head: a push behind a lone head (or behind
        // the new head of this pop), else the third entry on a pop.
        if (self.f_cnt.q.val() == 1) | self.pop.val() {
            self.f_head2.d.next = self.q6_flow.q.val();
        }
        if self.pop.val() & (self.f_cnt.q.val() > 2) {
            self.f_head2.d.next = self.f_third.val();
        }
        self.f_was_empty.d.next = !self.f_ne.q.val();
        if self.kill_q.q.val() {
            self.f_rd.d.next = 0.into();
            self.f_wr.d.next = 0.into();
            self.f_cnt_next.next = 0.into();
        }
        self.f_cnt.d.next = self.f_cnt_next.val();
        self.f_ne.d.next =
            self.push_ok.val() | (self.f_ne.q.val() & !self.pop.val()) | (self.f_cnt.q.val() > 1);
        if self.kill_q.q.val() {
            self.f_ne.d.next = false;
        }
        // The next cycle's `fifo_turn`: `turn.d & f_ne.d`, where a cycle
        // that is not the FIFO's turn pops nothing (and a FIFO that is
        // empty is not full, so its push is taken).
        self.fifo_turn_r.d.next =
            !self.turn.q.val() & (self.f_ne.q.val() | self.q6_push.q.val()) & !self.kill_q.q.val();

        // ---- Engine: the reads, x1 -> x5 ---------------------------------------
        self.srate.read_address_a.next = self.cand.val();
        self.sctl.read_address_a.next = self.cand.val();
        self.cflg.read_address_b.next = self.cand.val();
        self.eh.read_address_b.next = self.cand.val();
        self.srate.read_address_b.next = 0.into();
        self.sctl.read_address_b.next = 0.into();
        self.cacc.read_address_b.next = 0.into();
        self.x1_valid.d.next = self.go.val() & !self.kill_q.q.val();
        self.x1_flow.d.next = self.cand.val();
        self.x1_tick.d.next = self.tick.q.val();
        self.x1_apn.d.next = self.apn.q.val();
        self.x2_valid.d.next = self.x1_valid.q.val() & !self.kill_q.q.val();
        self.x2_flow.d.next = self.x1_flow.q.val();
        self.x2_tick.d.next = self.x1_tick.q.val();
        self.x2_apn.d.next = self.x1_apn.q.val();
        self.x3_valid.d.next = self.x2_valid.q.val() & !self.kill_q.q.val();
        self.x3_flow.d.next = self.x2_flow.q.val();
        self.x3_tick.d.next = self.x2_tick.q.val();
        self.x3_apn.d.next = self.x2_apn.q.val();
        self.x4_valid.d.next = self.x3_valid.q.val() & !self.kill_q.q.val();
        self.x4_flow.d.next = self.x3_flow.q.val();
        self.x4_tick.d.next = self.x3_tick.q.val();
        self.x4_apn.d.next = self.x3_apn.q.val();
        self.x5_valid.d.next = self.x4_valid.q.val() & !self.kill_q.q.val();
        self.x5_flow.d.next = self.x4_flow.q.val();
        self.x5_tick.d.next = self.x4_tick.q.val();
        self.x5_apn.d.next = self.x4_apn.q.val();

        // ---- Engine x5 (v + 5): the consumption, into RpVisit -------------------
        // w[k] is the capture of v - 1 - k.
        // The flows shift unconditionally, so x4's compares against the
        // flows about to become `w[k]` hold in x5.
        self.m5_w[0].d.next = self.x4_flow.q.val() == self.q5_flow.q.val();
        for k in 1..NW {
            self.m5_w[k].d.next = self.x4_flow.q.val() == self.w_flow[k - 1].q.val();
        }
        self.c_at_v.next = self.cflg.read_data_b.val();
        if self.w_valid[5].q.val() & self.m5_w[5].q.val() {
            self.c_at_v.next = self.w_c[5].q.val();
        }
        if self.w_valid[4].q.val() & self.m5_w[4].q.val() {
            self.c_at_v.next = self.w_c[4].q.val();
        }
        if self.w_valid[3].q.val() & self.m5_w[3].q.val() {
            self.c_at_v.next = self.w_c[3].q.val();
        }
        if self.w_valid[2].q.val() & self.m5_w[2].q.val() {
            self.c_at_v.next = self.w_c[2].q.val();
        }
        if self.w_valid[1].q.val() & self.m5_w[1].q.val() {
            self.c_at_v.next = self.w_c[1].q.val();
        }
        if self.w_valid[0].q.val() & self.m5_w[0].q.val() {
            self.c_at_v.next = self.w_c[0].q.val();
        }
        self.eh.write_address.next = self.x5_flow.q.val();
        self.eh.write_data.next = self.c_at_v.val();
        self.eh.write_enable.next = self.x5_valid.q.val();
        self.visit.rst.next = self.rst.val();
        self.visit.kill.next = self.kill_q.q.val();
        self.visit.fill.next = self.fill_q.q.val();
        self.visit.in_valid.next = self.x5_valid.q.val();
        self.visit.in_flow.next = self.x5_flow.q.val();
        self.visit.in_rc.next = self.srate.read_data_a.val().get_bits::<19>(0);
        self.visit.in_rt.next = self.srate.read_data_a.val().get_bits::<19>(19);
        self.visit.in_alpha.next = self.srate.read_data_a.val().get_bits::<14>(38);
        self.visit.in_t.next = self.sctl.read_data_a.val().get_bits::<5>(0);
        self.visit.in_bc.next = self.sctl.read_data_a.val().get_bits::<5>(5);
        self.visit.in_limited.next = self.sctl.read_data_a.val().get_bit(10);
        self.visit.in_inc_on.next = self.sctl.read_data_a.val().get_bit(11);
        self.visit.in_amark.next = self.sctl.read_data_a.val().get_bit(12);
        self.visit.in_dmark.next = self.sctl.read_data_a.val().get_bit(13);
        self.visit.in_inc_stamp.next = bit_cast::<W, CW>(self.sctl.read_data_a.val() >> 14);
        self.visit.in_a_stamp.next =
            bit_cast::<W, CW>(self.sctl.read_data_a.val() >> self.a_off.val());
        self.visit.in_tick.next = self.x5_tick.q.val();
        self.visit.in_apn.next = self.x5_apn.q.val();
        self.pend.next = self.c_at_v.val() ^ self.eh.read_data_b.val();
        self.visit.in_cnp.next = self.pend.val().get_bit(0);
        self.visit.in_bc_event.next = self.pend.val().get_bit(1);
        self.visit.profile.next = self.e_profile.q.val();
        self.visit.line_rate.next = self.e_line_rate.q.val();
        self.visit.r_min.next = self.e_r_min.q.val();
        self.visit.r_ai.next = self.e_r_ai.q.val();
        self.visit.r_hai.next = self.e_r_hai.q.val();
        self.visit.first_cnp_rate.next = self.e_first_cnp_rate.q.val();
        self.visit.g.next = self.r_g.q.val();
        self.visit.alpha_init.next = self.e_alpha_init.q.val();
        self.visit.alpha_period.next = self.e_alpha_period.q.val();
        self.visit.dec_shift.next = self.e_dec_shift.q.val();
        self.visit.t_inc.next = self.e_t_inc.q.val();
        self.visit.byte_counter_on.next = self.e_bc_on.q.val();
        self.visit.f.next = self.e_f.q.val();
        self.visit.gd.next = self.e_gd.q.val();
        self.visit.max_dec.next = self.e_max_dec.q.val();
        self.visit.clamp_tgt_rate.next = self.e_clamp.q.val().get_bit(0);
        self.visit.clamp_after_time_inc.next = self.e_clamp.q.val().get_bit(1);

        // ---- Write-back (v + 62) and the rate output -----------------------------
        self.r_word.next = bit_cast::<52, 19>(self.visit.out_rc.val())
            | (bit_cast::<52, 19>(self.visit.out_rt.val()) << 19)
            | (bit_cast::<52, 14>(self.visit.out_alpha.val()) << 38);
        self.s_word.next = bit_cast::<CW, 5>(self.visit.out_t.val())
            | (bit_cast::<CW, 5>(self.visit.out_bc.val()) << 5)
            | (bit_cast::<CW, 1>(self.visit.out_limited.val().into()) << 10)
            | (bit_cast::<CW, 1>(self.visit.out_inc_on.val().into()) << 11)
            | (bit_cast::<CW, 1>(self.visit.out_amark.val().into()) << 12)
            | (bit_cast::<CW, 1>(self.visit.out_dmark.val().into()) << 13)
            | (bit_cast::<CW, W>(self.visit.out_inc_stamp.val()) << 14)
            | (bit_cast::<CW, W>(self.visit.out_a_stamp.val()) << self.a_off.val());
        self.srate.write_address.next = self.visit.out_flow.val();
        self.srate.write_data.next = self.r_word.val();
        self.srate.write_enable.next = self.visit.out_valid.val();
        self.sctl.write_address.next = self.visit.out_flow.val();
        self.sctl.write_data.next = self.s_word.val();
        self.sctl.write_enable.next = self.visit.out_valid.val();
        // Flow and rate 0 unless valid. A kill cuts the output in its own
        // cycle (what o1 holds would leave in the next) and, with `kill_q`,
        // in the cycle after (the visits in flight still come out then).
        // Only the valid bit takes the kill of this cycle: o1's word is 0
        // unless o1 is valid, o2 copies it, and the ports are o2's word
        // ANDed with o2's valid (the kill decoded from the register port
        // and fanned out to o2's word held the block at 130 MHz).
        self.o1_valid.d.next =
            self.visit.out_valid.val() & self.visit.out_changed.val() & !self.kill_q.q.val();
        self.o1_flow.d.next = 0.into();
        self.o1_rc.d.next = 0.into();
        self.o1_cut.d.next = false;
        if self.visit.out_valid.val() & self.visit.out_changed.val() & !self.kill_q.q.val() {
            self.o1_flow.d.next = self.visit.out_flow.val();
            self.o1_rc.d.next = self.visit.out_rc.val();
            self.o1_cut.d.next = self.visit.out_cut.val();
        }
        self.o2_valid.d.next = self.o1_valid.q.val() & !self.kill.val() & !self.kill_q.q.val();
        self.o2_flow.d.next = self.o1_flow.q.val();
        self.o2_rc.d.next = self.o1_rc.q.val();
        self.o2_cut.d.next = self.o1_cut.q.val();
        self.m_rate_valid.next = self.o2_valid.q.val();
        self.m_rate_flow.next = 0.into();
        self.m_rate_rc.next = 0.into();
        self.m_rate_cut.next = false;
        if self.o2_valid.q.val() {
            self.m_rate_flow.next = self.o2_flow.q.val();
            self.m_rate_rc.next = self.o2_rc.q.val();
            self.m_rate_cut.next = self.o2_cut.q.val();
        }

        // ---- The clearing takes every write port ------------------------------
        if self.sweep.val() {
            self.srate.write_address.next = self.sweep_addr.val();
            self.srate.write_data.next = 0.into();
            self.srate.write_enable.next = true;
            self.sctl.write_address.next = self.sweep_addr.val();
            self.sctl.write_data.next = 0.into();
            self.sctl.write_enable.next = true;
            self.cacc.write_address.next = self.sweep_addr.val();
            self.cacc.write_data.next = 0.into();
            self.cacc.write_enable.next = true;
            self.cflg.write_address.next = self.sweep_addr.val();
            self.cflg.write_data.next = 0.into();
            self.cflg.write_enable.next = true;
            self.eh.write_address.next = self.sweep_addr.val();
            self.eh.write_data.next = 0.into();
            self.eh.write_enable.next = true;
        }
    }
}

// ---- emission and simulation -------------------------------------------------

/// Checks a configuration for the RTL: the golden model's checks and the menu.
fn check(config: &RpConfig) -> Result<(), ParamError> {
    config.validate()?;
    config.shape.validate_rtl()
}

/// rust-hdl's Verilog for RP, as `generate_verilog` writes it.
pub fn raw_verilog(config: &RpConfig) -> Result<String, ParamError> {
    check(config)?;
    macro_rules! make {
        ($f:literal, $s:literal, $q:literal) => {{
            let mut b = Rp::<$f, $s, $q, { 14 + 2 * $s }>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_rp_shape!(config.shape, make))
}

/// Why the tables' second read ports are left unread (docs/lint.md).
const SECOND_PORT: &str = "PipeRam's second read port; RP reads one, synthesis drops that copy";

/// The signals of RP's top module left unread on purpose, with the
/// reasons (docs/lint.md), waived wherever the module is emitted.
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    ("srate$read_data_b", SECOND_PORT),
    ("sctl$read_data_b", SECOND_PORT),
    ("cacc$read_data_b", SECOND_PORT),
    (
        "visit$fill_busy",
        "the top's busy count outlasts the power table's fill; RpVisit's own tests read it",
    ),
    (
        "s_cfg_data",
        "bits 31:24: the register port carries 32-bit words, RP's widest register is 24 bits",
    ),
    (
        "sum2",
        "bit 24 dropped: the byte count is kept mod 2^24, bit 25 is the sign",
    ),
];

/// The finished Verilog file for RP.
pub fn verilog(config: &RpConfig) -> Result<String, ParamError> {
    let raw = crate::emit::waive_unused(&raw_verilog(config)?, LINT_WAIVERS);
    let s = &config.shape;
    let r = &config.reset;
    let mut params = vec![
        ("flow_bits", s.flow_bits.to_string()),
        ("stamp_bits", s.stamp_bits.to_string()),
        ("fifo_bits", s.fifo_bits.to_string()),
        ("steps", s.steps.to_string()),
    ];
    for reg in ccrtl_golden::rp::REGISTERS {
        params.push((reg.name, format!("reset {}", r.read(reg.addr).unwrap_or(0))));
    }
    Ok(crate::emit::finish(
        "rp",
        "DCQCN reaction point: per-flow rate control in three profiles",
        &format!(
            "II = 1; a rate update {DEPTH} cycles after its visit; s_evt_ready low for max(2^flow_bits, 4 x 2^stamp_bits) cycles after reset"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl RP block for a configuration.
pub fn sim(config: &RpConfig) -> Result<Box<dyn crate::sim::CycleSim<RpIn, RpOut>>, ParamError> {
    check(config)?;
    macro_rules! make {
        ($f:literal, $s:literal, $q:literal) => {{
            let mut b = Rp::<$f, $s, $q, { 14 + 2 * $s }>::new(config);
            b.connect_all();
            Box::new(RpSim(Box::new(b))) as Box<dyn crate::sim::CycleSim<RpIn, RpOut>>
        }};
    }
    Ok(crate::dispatch_rp_shape!(config.shape, make))
}

struct RpSim<const FB: usize, const W: usize, const QB: usize, const CW: usize>(
    Box<Rp<FB, W, QB, CW>>,
);

impl<const FB: usize, const W: usize, const QB: usize, const CW: usize>
    crate::sim::CycleSim<RpIn, RpOut> for RpSim<FB, W, QB, CW>
{
    fn cycle(&mut self, i: &RpIn) -> RpOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_evt_valid.next = i.evt_valid;
        b.s_evt_kind.next = i.evt_kind & 1 != 0;
        b.s_evt_flow.next = (i.evt_flow as u64).to_bits();
        b.s_evt_bytes.next = (i.evt_bytes as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_addr.next = (i.cfg_addr as u64).to_bits();
        b.s_cfg_data.next = (i.cfg_data as u64).to_bits();
        assert!(
            simulate(&mut **b, crate::sim::MAX_ITERS),
            "RP logic did not settle"
        );
        let out = RpOut {
            evt_ready: b.s_evt_ready.val(),
            rate_valid: b.m_rate_valid.val(),
            rate_flow: b.m_rate_flow.val().to_u32(),
            rate_rc: b.m_rate_rc.val().to_u32(),
            rate_cut: b.m_rate_cut.val(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(&mut **b, crate::sim::MAX_ITERS),
            "RP logic did not settle"
        );
        out
    }
}

/// The ports of RP for a validated configuration, read from the struct.
pub fn ports(config: &RpConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($f:literal, $s:literal, $q:literal) => {{
            crate::ports::ports_of(&Rp::<$f, $s, $q, { 14 + 2 * $s }>::new(config))
        }};
    }
    crate::dispatch_rp_shape!(config.shape, make)
}

/// Expands `$make!(FB, W, QB)` for the run-time shape `$shape`, over every
/// shape of the menu in `ccrtl_golden::rp_shape_menu!` (the one place the
/// menu is written). The shape must be validated for the RTL.
#[macro_export]
macro_rules! dispatch_rp_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::rp_shape_menu!([$crate::rp_dispatch] ; $shape, $make)
    };
}

/// One match arm per shape of the menu (used by `dispatch_rp_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! rp_dispatch {
    (($shape:expr, $make:ident) ; [$(($f:literal, $s:literal, $q:literal)),*]) => {{
        let shape = $shape;
        match (shape.flow_bits, shape.stamp_bits, shape.fifo_bits) {
            $(($f, $s, $q) => $crate::own_frame(|| $make!($f, $s, $q)),)*
            t => unreachable!("shape {t:?} passed validation but has no instance"),
        }
    }};
}
