//! TIMELY — per-flow sending rate from RTT samples (the RTT-gradient rule).
//!
//! Implements `../shared/ALGORITHMS.md` §"TIMELY", which restates the
//! authors' rate computation quoted in seed 003 (`getNewRate`); where the two
//! differ the quoted code is followed (docs/timely.md, "Choices"). Per
//! completion event of a flow, with its RTT sample and a timestamp: the RTT
//! difference feeds an EWMA, the EWMA over `min_rtt` is the normalised
//! gradient, the time since the flow's last event over `min_rtt` (at most 1)
//! is the delta factor, and one of four branches moves the rate: additive
//! increase below `T_low`, multiplicative decrease above `T_high`, additive
//! increase (hyper-additive after `HAI_thresh` negative differences in a row)
//! for a gradient `<= 0`, multiplicative decrease by the gradient otherwise;
//! then the rate is kept at or above half its old value and inside
//! `[min_rate, max_rate]`. The contract is `docs/timely.md`.
//!
//! Integer only: the divisions by `min_rtt` and by `rtt` are products with a
//! reciprocal ([`recip`]: leading-zero normalisation, a 513-entry table and
//! a linear interpolation; no divider), and the float reference
//! ([`reference`](mod@reference)) measures the error.
//!
//! # The rule, on the clock-cycle count
//! An event is *accepted* in cycle `n` when `ev_valid` and `ev_ready` are
//! high and `rst` is low. It carries the flow, an RTT sample `rtt`
//! ([`RTT_BITS`] bits: a source whose RTT can be larger saturates it at
//! `2^24 - 1`) and a timestamp `now` ([`TIME_BITS`] bits, the same unit as
//! `rtt`, free-running, wrapping). It uses the registers in force in
//! cycle `n` ([`REGISTERS`]). A flow not seen since the last reset starts
//! with `rate = init_rate`, `prev_rtt = 0`, `avg = 0`, `neg = 0`. The event
//! applies ([`FlowState::event`]), in this order:
//! 1. `if prev_rtt == 0 { prev_rtt = rtt }`; `diff = rtt - prev_rtt`
//!    (signed, 25 bits); `neg = diff < 0 ? min(neg + 1, 15) : 0`.
//! 2. `avg = avg - (avg >> k) + ((diff << 12) >> k)` with `k =
//!    ewma_shift`, `avg` in units of `2^-12` RTT units, `>>` arithmetic
//!    (rounding toward minus infinity) ([`avg_next`]).
//! 3. `grad = avg / min_rtt` by reciprocal, signed, 20 fraction bits,
//!    magnitude saturated at `2^28 - 1` ([`gradient`]).
//! 4. `delta = 1` (`2^17`) for the flow's first event; else, with `dt =
//!    (now - last_time) mod 2^32`, `delta = 1` if `dt >= min_rtt`, else
//!    `dt / min_rtt` by reciprocal, 17 fraction bits ([`delta_factor`]).
//! 5. `prev_rtt = rtt`; `last_time = now`.
//! 6. The branch, the first that holds ([`branch`]): `rtt < t_low`: `new =
//!    rate + inc(1)`; `rtt > t_high`: `new = rate ⊖ dec(x_high)`; `avg <=
//!    0`: `new = rate + inc(neg >= hai_thresh ? hai_n : 1)`; else `new =
//!    rate ⊖ dec(x_grad)`. Here `inc(m) = round(m * ai * delta)`
//!    ([`increase`]), `x_high = min(1/2, beta * (rtt - t_high) / rtt *
//!    delta)` ([`high_fraction`], [`high_decrease`]), `x_grad = min(1/2,
//!    beta * grad)` ([`gradient_decrease`]), `dec(x) = round(rate_lag *
//!    x)` and `⊖` a subtraction that stops at 0 ([`decrease`]). Every
//!    product is rounded to nearest, halves up, where it is narrowed
//!    ([`round_shift`]); the formats are docs/timely.md's.
//! 7. `rate = max(min(max(new, ceil(rate / 2)), max_rate), min_rate)`
//!    ([`clamp`]), the old `rate` in `ceil(rate / 2)`.
//!
//! `rate_lag` is the flow's rate as it stood [`LAG`] cycles before: after
//! its last event accepted in cycle `n - LAG` or earlier since the last
//! reset, or `init_rate` (the registers of cycle `n`) if it had none then.
//! A flow whose previous event is `LAG` or more cycles old has `rate_lag =
//! rate`: the plain rule. Rates carry [`RATE_FRAC_BITS`] = 12 fraction bits
//! below the registers' rate unit. Every accepted event gives one output:
//! the flow, its rate after the event, the branch, whether the hyper-additive
//! `hai_n` was used, and `grad`. Only the low `flow_bits` of `ev_flow`, the
//! low [`RTT_BITS`] of `ev_rtt`, the low [`CFG_ADDR_BITS`] of `cfg_addr` and
//! the low [`CFG_DATA_BITS`] of `cfg_data` are ports; a write keeps the low
//! bits of the register's width.
//!
//! With `min_rate <= max_rate`, every rate an event leaves is in
//! `[min_rate, max_rate]` and at least `min(ceil(old / 2), max_rate)`: at
//! least half the rate before the event unless `max_rate` was written below
//! that half ([`clamp`]).
//!
//! # Timing (the interface contract the RTL must meet)
//! - One event per cycle (II = 1), including back-to-back events of one
//!   flow, which see each other's updates exactly, but for `rate_lag` in the
//!   product of a multiplicative decrease: it is the rate of [`LAG`] cycles
//!   before, so that the multiplier is not inside the one-cycle loop that
//!   updates the rate (docs/timely.md, "Why the decrease lags").
//! - An event accepted in cycle `n` has its result on the outputs during
//!   cycle `n + LATENCY` (`n + 23`). The outputs are registered; every field
//!   is 0 when `cc_valid` is low.
//! - A register write (`cfg_valid`, `cfg_addr`, `cfg_data`) in cycle `n` is
//!   in force from cycle `n + 1`: an event accepted in cycle `n` uses the old
//!   value. This includes `1 / min_rtt`, which is a function of the register
//!   ([`recip`]). Addresses 11 to 15 are ignored.
//! - `rst` in cycle `n` drops every result in flight (no result of an event
//!   accepted before `n` comes out from `n + 1` on), forgets every flow and
//!   restores the registers to their reset values; events and writes in a
//!   reset cycle are ignored. The RTL then clears its flow table one flow per
//!   cycle: `ev_ready` is low in cycles `n + 1 ..= n + F` (`F =
//!   2^flow_bits`) and high from `n + F + 1`. A reset during the clearing
//!   starts it again.
//! - The RTL's outputs are undefined before its first reset. The model
//!   starts as if a reset had been applied in the cycle before its first
//!   step: `ev_ready` is low during its first `F` steps.

use crate::error::ParamError;
pub use crate::flow_shape::{FlowShape, SUPPORTED_FLOW_BITS};
use crate::mask;

pub use crate::register::Register;

/// Cycles from an accepted event to its result on the outputs: the RTL's
/// pipeline (docs/timely.md, "The pipeline as built": the rate loop at
/// stage 22, the output register after it).
pub const LATENCY: usize = 23;
/// The multiplicative decrease of an event accepted in cycle `n` multiplies
/// the flow's rate after its events accepted up to cycle `n - LAG` (rule
/// step 6): the RTL's multiplier takes its operand 3 cycles before the rate
/// loop.
pub const LAG: u64 = 4;
/// Width of an RTT sample and of the `min_rtt`, `t_low`, `t_high` registers
/// (the user's time unit, e.g. ns: 16.7 ms).
pub const RTT_BITS: u32 = 24;
/// Width of the timestamp `ev_time` and of a flow's `last_time` (same unit
/// as the RTT; differences are taken modulo `2^32`).
pub const TIME_BITS: u32 = 32;
/// Width of the rate registers `ai`, `min_rate`, `max_rate`, `init_rate`, in
/// rate units (Mb/s to match `rp` and the pacer: 524 Gb/s).
pub const RATE_BITS: u32 = crate::rp::RATE_BITS;
/// Fraction bits of a flow's rate below the rate unit.
pub const RATE_FRAC_BITS: u32 = 12;
/// Width of a flow's rate and of the `cc_rate` port (unsigned,
/// [`RATE_BITS`] integer and [`RATE_FRAC_BITS`] fraction bits).
pub const RATE_Q_BITS: u32 = RATE_BITS + RATE_FRAC_BITS;
/// Fraction bits of the RTT-difference EWMA `avg` (below the RTT unit).
pub const AVG_FRAC_BITS: u32 = 12;
/// Width of `avg`, two's complement: `|avg| <= (2^24 - 1) 2^12`.
pub const AVG_BITS: u32 = RTT_BITS + 1 + AVG_FRAC_BITS;
/// Fraction bits of `delta` and of `(rtt - t_high) / rtt` (1.0 = `2^17`,
/// 18 bits).
pub const FRAC_BITS: u32 = 17;
/// 1.0 with [`FRAC_BITS`] fraction bits.
pub const ONE: u32 = 1 << FRAC_BITS;
/// Fraction bits of a decrease fraction `x` (`0 ..= 1/2` is `0 ..= 2^17`,
/// 18 bits).
pub const X_FRAC_BITS: u32 = 18;
/// The largest decrease fraction, 1/2 with [`X_FRAC_BITS`] fraction bits.
pub const X_MAX: u32 = 1 << (X_FRAC_BITS - 1);
/// Fraction bits of the normalised gradient `grad`.
pub const GRAD_FRAC_BITS: u32 = 20;
/// Width of `grad`'s magnitude: it saturates at `GRAD_MAX` (256 - 2^-20).
pub const GRAD_MAG_BITS: u32 = 28;
/// The largest magnitude of `grad`.
pub const GRAD_MAX: u32 = (1 << GRAD_MAG_BITS) - 1;
/// Width of the `cc_grad` port (two's complement).
pub const GRAD_BITS: u32 = GRAD_MAG_BITS + 1;
/// Fraction bits of the `beta` register.
pub const BETA_FRAC_BITS: u32 = 16;
/// Width of the `beta` register (`0 ..= 2^16` is `0 ..= 1`).
pub const BETA_BITS: u32 = BETA_FRAC_BITS + 1;
/// beta = 1 in the register.
pub const BETA_ONE: u32 = 1 << BETA_FRAC_BITS;
/// Width of the `ewma_shift` register (EWMA gain `2^-ewma_shift`).
pub const EWMA_SHIFT_BITS: u32 = 4;
/// Width of the negative-difference counter `neg`, which saturates.
pub const NEG_BITS: u32 = 4;
/// The largest `neg` (it saturates there; `hai_thresh` is at most this).
pub const NEG_MAX: u32 = (1 << NEG_BITS) - 1;
/// Width of the `hai_thresh` and `hai_n` registers.
pub const HAI_BITS: u32 = NEG_BITS;
/// Width of the `cc_branch` port.
pub const BRANCH_BITS: u32 = 2;
/// Width of the `cfg_addr` port.
pub const CFG_ADDR_BITS: u32 = 4;
/// Width of the `cfg_data` port (the widest register, 24 bits).
pub const CFG_DATA_BITS: u32 = RTT_BITS;

/// Bits of the normalised mantissa that index the reciprocal table.
pub const RECIP_INDEX_BITS: u32 = 9;
/// Bits of the mantissa below the index, the interpolation's weight.
pub const RECIP_LOW_BITS: u32 = RTT_BITS - 1 - RECIP_INDEX_BITS;
/// Fraction bits of a reciprocal's mantissa: `1/x ~ y 2^-(17 + e)`,
/// `2^16 <= y <= 2^17`.
pub const RECIP_FRAC_BITS: u32 = 17;

/// The reciprocal table: entry `i` (`0 ..= 512`) is `round(2^26 / (512 +
/// i))`, i.e. `2^17 / (1 + i/512)` rounded to nearest (ties cannot occur:
/// `2^27 / (512 + i)` is never an odd integer for `i > 0`, and is `2^18`
/// for `i = 0`). Entry 0 is `2^17`, entry 512 is `2^16`. The RTL's ROM word
/// `i` (`0 ..= 511`) holds entry `i` (18 bits) and the slope `entry(i) -
/// entry(i + 1)` (at most 256: 9 bits).
pub const RECIP_TABLE: [u32; 513] = recip_table();

const fn recip_table() -> [u32; 513] {
    let mut t = [0u32; 513];
    let mut i = 0;
    while i <= 512 {
        t[i] = ((1u32 << 27) / (512 + i as u32)).div_ceil(2);
        i += 1;
    }
    t
}

/// A reciprocal: `1/x ~ y 2^-(17 + e)` with `e = floor(log2 x)` and `y` in
/// `2^16 ..= 2^17` (18 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recip {
    /// The mantissa, `~ 2^(17 + e) / x`.
    pub y: u32,
    /// The exponent, `floor(log2 x)`, `0 ..= 23`.
    pub e: u32,
}

/// The reciprocal of a 24-bit `x` (its low [`RTT_BITS`] bits; 0 is read as
/// 1): `e = floor(log2 x)`; the mantissa `m = x << (23 - e)` (`2^23 <= m <
/// 2^24`) splits into the 9 bits `i` below its leading one and the 14 bits
/// `t` below those; `y = T[i] - ((T[i] - T[i + 1]) t + 2^13) >> 14` with `T`
/// = [`RECIP_TABLE`]: a linear interpolation between the table's entries,
/// rounded to nearest. `y - 2^40 / m` is within `[-0.998, 1.022]` LSB for
/// every `m` (`reference` measures it exhaustively), so the relative error
/// of `1/x` is below `1.022 / 2^16`. Intermediates: the product is 9 x 14
/// bits.
pub fn recip(x: u32) -> Recip {
    let x = (x & mask(RTT_BITS)).max(1);
    let e = 31 - x.leading_zeros();
    let m = x << (RTT_BITS - 1 - e);
    let i = ((m >> RECIP_LOW_BITS) & mask(RECIP_INDEX_BITS)) as usize;
    let t = m & mask(RECIP_LOW_BITS);
    let (a, b) = (RECIP_TABLE[i], RECIP_TABLE[i + 1]);
    let y = a - (((a - b) * t + (1 << (RECIP_LOW_BITS - 1))) >> RECIP_LOW_BITS);
    Recip { y, e }
}

/// `v / 2^s` rounded to nearest, halves up: `(v + 2^(s-1)) >> s` (`v` for
/// `s = 0`). Every product of the datapath is narrowed this way (an added
/// constant before the shift; in the RTL, in the sum of the partial
/// products).
#[inline]
pub fn round_shift(v: u128, s: u32) -> u128 {
    if s == 0 {
        v
    } else {
        (v + (1 << (s - 1))) >> s
    }
}

/// The delta factor `min(1, dt / min_rtt)` with [`FRAC_BITS`] fraction
/// bits: [`ONE`] if `dt >= min_rtt` (so also for `min_rtt = 0`), else
/// `min(ONE, round(dt y / 2^e))` with `(y, e) = recip(min_rtt)`. Here `dt <
/// min_rtt < 2^24`: the product is 24 x 18 bits.
pub fn delta_factor(dt: u32, min_rtt: u32) -> u32 {
    let min_rtt = min_rtt & mask(RTT_BITS);
    if dt >= min_rtt {
        return ONE;
    }
    let r = recip(min_rtt);
    round_shift(u128::from(dt) * u128::from(r.y), r.e).min(u128::from(ONE)) as u32
}

/// One EWMA step of the RTT difference, gain `2^-k`: `avg - (avg >> k) +
/// ((diff << 12) >> k)`, `>>` arithmetic (toward minus infinity). For `k <=
/// 12` the second term is exact and the only rounding is the first shift's,
/// so `avg` is at or above the real EWMA by at most `2^k - 1` LSB
/// (docs/timely.md); and a positive `avg` stays positive, a non-positive
/// one non-positive, while `diff = 0` (as the real EWMA's sign does).
/// `avg` stays within `±(2^24 - 1) 2^12` when `diff` is within `±(2^24 -
/// 1)`: `a - (a >> k)` never decreases as `a` grows, so the extremes are
/// reached at `avg = diff << 12` at an extreme. Intermediates: 37 bits
/// signed.
pub fn avg_next(avg: i64, diff: i64, k: u32) -> i64 {
    let k = k & mask(EWMA_SHIFT_BITS);
    avg - (avg >> k) + ((diff << AVG_FRAC_BITS) >> k)
}

/// The normalised gradient `avg / min_rtt` (`avg` with 12 fraction bits of
/// the RTT unit) with [`GRAD_FRAC_BITS`] fraction bits, signed: magnitude
/// `min(GRAD_MAX, round(|avg| y / 2^(9 + e)))` with `(y, e) =
/// recip(min_rtt)` (`min_rtt = 0` is read as 1), the sign of `avg`. The
/// product is 36 x 18 bits. The branch is chosen on `avg`'s sign, not on
/// this rounded value.
pub fn gradient(avg: i64, min_rtt: u32) -> i32 {
    let r = recip(min_rtt);
    let mag = round_shift(
        u128::from(avg.unsigned_abs()) * u128::from(r.y),
        AVG_FRAC_BITS + RECIP_FRAC_BITS - GRAD_FRAC_BITS + r.e,
    );
    let mag = mag.min(u128::from(GRAD_MAX)) as i32;
    if avg < 0 {
        -mag
    } else {
        mag
    }
}

/// `1 - t_high / rtt`, computed as `(rtt - t_high) / rtt` with
/// [`FRAC_BITS`] fraction bits: `min(ONE, round((rtt - t_high) y / 2^e))`
/// with `(y, e) = recip(rtt)`; 0 unless `rtt > t_high`. The product is 24 x
/// 18 bits.
pub fn high_fraction(rtt: u32, t_high: u32) -> u32 {
    let (rtt, t_high) = (rtt & mask(RTT_BITS), t_high & mask(RTT_BITS));
    if rtt <= t_high {
        return 0;
    }
    let r = recip(rtt);
    round_shift(u128::from(rtt - t_high) * u128::from(r.y), r.e).min(u128::from(ONE)) as u32
}

/// The decrease fraction above `T_high`, `min(1/2, beta (1 - t_high/rtt)
/// delta)`: `v = round(u beta / 2^16)` (17 fraction bits), then
/// `min(X_MAX, round(v delta / 2^16))` (18), with `u` = [`high_fraction`].
/// Products: 18 x 17 and 18 x 18 bits (`v` is at most `2^17` for `beta <=
/// 1`, and below `2^18` for any value the register holds).
pub fn high_decrease(u: u32, beta: u32, delta: u32) -> u32 {
    let v = round_shift(u128::from(u) * u128::from(beta), BETA_FRAC_BITS);
    round_shift(v * u128::from(delta), 2 * FRAC_BITS - X_FRAC_BITS).min(u128::from(X_MAX)) as u32
}

/// The decrease fraction of a positive gradient, `min(1/2, beta grad)`:
/// `min(X_MAX, round(grad beta / 2^18))` (`grad` with 20 fraction bits,
/// `beta` with 16, the result with 18). The product is 28 x 17 bits.
pub fn gradient_decrease(grad: u32, beta: u32) -> u32 {
    round_shift(
        u128::from(grad) * u128::from(beta),
        GRAD_FRAC_BITS + BETA_FRAC_BITS - X_FRAC_BITS,
    )
    .min(u128::from(X_MAX)) as u32
}

/// The additive increase `m ai delta` in rate units with
/// [`RATE_FRAC_BITS`] fraction bits: `round(m ai delta / 2^5)` (`m ai` at
/// most 23 bits, `delta` 18: a 41-bit product; the result is at most 36
/// bits).
pub fn increase(m: u32, ai: u32, delta: u32) -> u64 {
    round_shift(
        u128::from(m) * u128::from(ai) * u128::from(delta),
        FRAC_BITS - RATE_FRAC_BITS,
    ) as u64
}

/// A multiplicative decrease before the clamp: `rate - round(rate_lag x /
/// 2^18)`, stopping at 0 (`rate_lag` can exceed `2 rate` only when a
/// decrease or a register write came within [`LAG`] cycles). With `x <=
/// X_MAX` and `rate_lag = rate` it is at least `floor(rate / 2)`, and the
/// clamp lifts that to `ceil(rate / 2)`. The product is 31 x 18 bits.
pub fn decrease(rate: u32, rate_lag: u32, x: u32) -> u64 {
    let p = round_shift(u128::from(rate_lag) * u128::from(x), X_FRAC_BITS) as u64;
    u64::from(rate).saturating_sub(p)
}

/// The clamps, in the authors' order: `max(new, ceil(old / 2))`, then
/// `min(., max_rate)`, then `max(., min_rate)` (so `min_rate` wins if it is
/// above `max_rate`). `old` is the rate before the event, `new` the
/// branch's result (at most 37 bits). The result fits [`RATE_Q_BITS`].
/// With `min_rate <= max_rate` it is in `[min_rate, max_rate]` and at least
/// `min(ceil(old / 2), max_rate)`, so twice it is at least `old` whenever
/// `old <= 2 max_rate` (always true unless `max_rate` was lowered).
pub fn clamp(p: &TimelyParams, old: u32, new: u64) -> u32 {
    let half = (u64::from(old) + 1) >> 1;
    new.max(half)
        .min(rate_q(p.max_rate))
        .max(rate_q(p.min_rate)) as u32
}

/// A register's rate (rate units) in the flow's format ([`RATE_FRAC_BITS`]
/// fraction bits).
#[inline]
pub fn rate_q(units: u32) -> u64 {
    u64::from(units & mask(RATE_BITS)) << RATE_FRAC_BITS
}

/// The branches (the `cc_branch` port), in the order they are tried.
pub mod branch {
    /// `rtt < t_low`: additive increase.
    pub const BELOW_T_LOW: u8 = 0;
    /// `rtt > t_high`: multiplicative decrease by `1 - t_high / rtt`.
    pub const ABOVE_T_HIGH: u8 = 1;
    /// Gradient `<= 0`: additive increase, hyper-additive after
    /// `hai_thresh` negative differences in a row.
    pub const GRADIENT_NOT_POSITIVE: u8 = 2;
    /// Gradient `> 0`: multiplicative decrease by the gradient.
    pub const GRADIENT_POSITIVE: u8 = 3;
}

/// Generation-time (structural) sizes: the flow count, the shape every
/// per-flow block shares ([`crate::flow_shape`], where the menu
/// `flow_shape_menu!` is written once).
pub type TimelyShape = FlowShape;

/// The register map, the one source of the `cfg` port's addresses. A write
/// of an address not here is ignored; data bits above a register's width
/// are ignored.
pub const REGISTERS: &[Register] = &[
    Register {
        addr: 0,
        name: "min_rtt",
        bits: RTT_BITS,
        doc: "minimum network RTT, the unit of the gradient and of delta (RTT units; 0 reads as 1)",
    },
    Register {
        addr: 1,
        name: "t_low",
        bits: RTT_BITS,
        doc: "additive increase below this RTT (RTT units)",
    },
    Register {
        addr: 2,
        name: "t_high",
        bits: RTT_BITS,
        doc: "multiplicative decrease above this RTT (RTT units)",
    },
    Register {
        addr: 3,
        name: "ai",
        bits: RATE_BITS,
        doc: "additive increment (rate units)",
    },
    Register {
        addr: 4,
        name: "beta",
        bits: BETA_BITS,
        doc: "decrease factor, 1/2^16 (0 ..= 65536 is 0 ..= 1)",
    },
    Register {
        addr: 5,
        name: "ewma_shift",
        bits: EWMA_SHIFT_BITS,
        doc: "EWMA gain 2^-ewma_shift of the RTT difference (0 ..= 12 exact)",
    },
    Register {
        addr: 6,
        name: "hai_thresh",
        bits: HAI_BITS,
        doc: "negative RTT differences in a row from which the gradient branch adds hai_n * ai",
    },
    Register {
        addr: 7,
        name: "hai_n",
        bits: HAI_BITS,
        doc: "multiplier of ai in hyper-additive increase (the authors' code: 5)",
    },
    Register {
        addr: 8,
        name: "min_rate",
        bits: RATE_BITS,
        doc: "floor of the rate (rate units); wins over max_rate",
    },
    Register {
        addr: 9,
        name: "max_rate",
        bits: RATE_BITS,
        doc: "ceiling of the rate (rate units)",
    },
    Register {
        addr: 10,
        name: "init_rate",
        bits: RATE_BITS,
        doc: "rate of a flow before its first event (rate units)",
    },
];

/// The runtime registers (loaded through `cfg_addr`/`cfg_data`; the map is
/// [`REGISTERS`]), as the hardware holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelyParams {
    /// Minimum network RTT (RTT units), 24 bits; 0 is read as 1.
    pub min_rtt: u32,
    /// Additive increase below this RTT (RTT units), 24 bits.
    pub t_low: u32,
    /// Multiplicative decrease above this RTT (RTT units), 24 bits.
    pub t_high: u32,
    /// Additive increment (rate units), 19 bits.
    pub ai: u32,
    /// Decrease factor with 16 fraction bits, 17 bits.
    pub beta: u32,
    /// EWMA gain `2^-ewma_shift`, 4 bits.
    pub ewma_shift: u32,
    /// Negative differences in a row for hyper-additive increase, 4 bits.
    pub hai_thresh: u32,
    /// Multiplier of `ai` in hyper-additive increase, 4 bits.
    pub hai_n: u32,
    /// Floor of the rate (rate units), 19 bits.
    pub min_rate: u32,
    /// Ceiling of the rate (rate units), 19 bits.
    pub max_rate: u32,
    /// Rate of a flow before its first event (rate units), 19 bits.
    pub init_rate: u32,
}

impl Default for TimelyParams {
    /// RTT unit 1 ns, rate unit 1 Mb/s, a 10 Gb/s line: `min_rtt` 20 µs,
    /// `t_low` 50 µs and `t_high` 1 ms (seed 003's values for per-64 KB
    /// pacing), `ai` 10 Mb/s, `beta` 0.8, EWMA gain 1/64, `hai_thresh` 5,
    /// `hai_n` 5 (the code's), `min_rate` 10 Mb/s, `max_rate` and
    /// `init_rate` 10,000 Mb/s.
    fn default() -> Self {
        TimelyParams {
            min_rtt: 20_000,
            t_low: 50_000,
            t_high: 1_000_000,
            ai: 10,
            beta: 52_429,
            ewma_shift: 6,
            hai_thresh: 5,
            hai_n: 5,
            min_rate: 10,
            max_rate: 10_000,
            init_rate: 10_000,
        }
    }
}

impl TimelyParams {
    /// The register's value as the hardware holds it.
    pub fn read(&self, addr: u32) -> Option<u32> {
        Some(match addr {
            0 => self.min_rtt,
            1 => self.t_low,
            2 => self.t_high,
            3 => self.ai,
            4 => self.beta,
            5 => self.ewma_shift,
            6 => self.hai_thresh,
            7 => self.hai_n,
            8 => self.min_rate,
            9 => self.max_rate,
            10 => self.init_rate,
            _ => return None,
        })
    }

    /// A register write as the hardware takes it (the data masked to the
    /// register's width); `false` for an address not in the map.
    pub fn write(&mut self, addr: u32, data: u32) -> bool {
        let Some(r) = REGISTERS.iter().find(|r| r.addr == addr) else {
            return false;
        };
        let v = data & mask(r.bits);
        match addr {
            0 => self.min_rtt = v,
            1 => self.t_low = v,
            2 => self.t_high = v,
            3 => self.ai = v,
            4 => self.beta = v,
            5 => self.ewma_shift = v,
            6 => self.hai_thresh = v,
            7 => self.hai_n = v,
            8 => self.min_rate = v,
            9 => self.max_rate = v,
            _ => self.init_rate = v,
        }
        true
    }

    /// The loader's check of reset values: every register fits its width,
    /// `min_rtt >= 1`, `t_low <= t_high`, `ai >= 1`, `0 < beta <= 1`,
    /// `ewma_shift <= 12` (the EWMA's step exact), `hai_n >= 1`,
    /// `max_rate >= 1`, `min_rate <= max_rate` and `init_rate` between them.
    /// A write at run time may hold any value that fits; the model runs it
    /// as the rule says (docs/timely.md, "Runtime registers").
    pub fn validate(&self) -> Result<(), ParamError> {
        for r in REGISTERS {
            let v = self.read(r.addr).unwrap_or(0);
            if v > mask(r.bits) {
                return Err(ParamError::new(
                    r.name,
                    format!("{v} does not fit {} bits (max {})", r.bits, mask(r.bits)),
                ));
            }
        }
        let refuse = |name: &'static str, why: String| Err(ParamError::new(name, why));
        if self.min_rtt == 0 {
            return refuse("min_rtt", "0 cannot normalise the gradient".into());
        }
        if self.t_low > self.t_high {
            return refuse(
                "t_low",
                format!("{} is above t_high = {}", self.t_low, self.t_high),
            );
        }
        if self.ai == 0 {
            return refuse("ai", "0 would never increase the rate".into());
        }
        if self.beta == 0 || self.beta > BETA_ONE {
            return refuse(
                "beta",
                format!("{} is outside 1 ..= {BETA_ONE} (0 < beta <= 1)", self.beta),
            );
        }
        if self.ewma_shift > AVG_FRAC_BITS {
            return refuse(
                "ewma_shift",
                format!(
                    "{} is above {AVG_FRAC_BITS}: the EWMA's step would round",
                    self.ewma_shift
                ),
            );
        }
        if self.hai_n == 0 {
            return refuse(
                "hai_n",
                "0 would stop the gradient branch's increase".into(),
            );
        }
        if self.max_rate == 0 {
            return refuse("max_rate", "0 would hold every rate at 0".into());
        }
        if self.min_rate > self.max_rate {
            return refuse(
                "min_rate",
                format!("{} is above max_rate = {}", self.min_rate, self.max_rate),
            );
        }
        if self.init_rate < self.min_rate || self.init_rate > self.max_rate {
            return refuse(
                "init_rate",
                format!(
                    "{} is outside [min_rate, max_rate] = [{}, {}]",
                    self.init_rate, self.min_rate, self.max_rate
                ),
            );
        }
        Ok(())
    }
}

/// Generation-time configuration: sizes and the registers' reset values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimelyConfig {
    /// The structural sizes.
    pub shape: TimelyShape,
    /// The registers' reset values.
    pub reset: TimelyParams,
}

impl TimelyConfig {
    /// The shape and the reset values.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate()
    }
}

/// The per-flow state of a flow seen since the last reset: 129 bits in the
/// RTL's table with its valid bit (31 + 24 + 32 + 37 + 4 + 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowState {
    /// The sending rate, [`RATE_FRAC_BITS`] fraction bits (31 bits).
    pub rate: u32,
    /// The previous RTT sample, 0 until one is non-zero (24 bits).
    pub prev_rtt: u32,
    /// The timestamp of the flow's last event (32 bits).
    pub last_time: u32,
    /// EWMA of the RTT difference, [`AVG_FRAC_BITS`] fraction bits (37 bits
    /// signed).
    pub avg: i64,
    /// Negative RTT differences in a row, saturating at [`NEG_MAX`].
    pub neg: u32,
}

/// What one event did (besides the new rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventResult {
    /// The branch taken ([`branch`]).
    pub branch: u8,
    /// The gradient branch added `hai_n * ai` (rather than `ai`).
    pub hai: bool,
    /// The normalised gradient after the event ([`gradient`]).
    pub grad: i32,
    /// The delta factor used ([`delta_factor`]; [`ONE`] at a first event).
    pub delta: u32,
    /// The decrease fraction of a multiplicative branch (0 otherwise).
    pub x: u32,
}

impl FlowState {
    /// A flow before its first event: the authors' initial values
    /// (`prev_rtt` 0, no negative differences, `avg` 0) and the rate
    /// `init_rate`.
    pub fn fresh(p: &TimelyParams) -> FlowState {
        FlowState {
            rate: rate_q(p.init_rate) as u32,
            prev_rtt: 0,
            last_time: 0,
            avg: 0,
            neg: 0,
        }
    }

    /// One event under the registers `p`: steps 1 to 7 of the rule, `first`
    /// for the flow's first event since the reset (delta 1), the product of
    /// a multiplicative decrease from `rate_lag` (`self.rate` for the plain
    /// rule). `rtt` keeps its low [`RTT_BITS`] bits.
    pub fn event(
        &mut self,
        p: &TimelyParams,
        rtt: u32,
        now: u32,
        first: bool,
        rate_lag: u32,
    ) -> EventResult {
        let rtt = rtt & mask(RTT_BITS);
        // 1. prev_rtt is 0 only before the first non-zero sample.
        if self.prev_rtt == 0 {
            self.prev_rtt = rtt;
        }
        let diff = i64::from(rtt) - i64::from(self.prev_rtt); // 25 bits signed
        self.neg = if diff < 0 {
            (self.neg + 1).min(NEG_MAX)
        } else {
            0
        };
        // 2. and 3.
        self.avg = avg_next(self.avg, diff, p.ewma_shift);
        let grad = gradient(self.avg, p.min_rtt);
        // 4. and 5.
        let delta = if first {
            ONE
        } else {
            delta_factor(now.wrapping_sub(self.last_time), p.min_rtt)
        };
        self.prev_rtt = rtt;
        self.last_time = now;
        // 6.
        let old = self.rate;
        let mut r = EventResult {
            grad,
            delta,
            ..EventResult::default()
        };
        let new = if rtt < p.t_low {
            r.branch = branch::BELOW_T_LOW;
            u64::from(old) + increase(1, p.ai, delta)
        } else if rtt > p.t_high {
            r.branch = branch::ABOVE_T_HIGH;
            r.x = high_decrease(high_fraction(rtt, p.t_high), p.beta, delta);
            decrease(old, rate_lag, r.x)
        } else if self.avg <= 0 {
            r.branch = branch::GRADIENT_NOT_POSITIVE;
            r.hai = self.neg >= p.hai_thresh;
            let m = if r.hai { p.hai_n } else { 1 };
            u64::from(old) + increase(m, p.ai, delta)
        } else {
            r.branch = branch::GRADIENT_POSITIVE;
            r.x = gradient_decrease(grad as u32, p.beta);
            decrease(old, rate_lag, r.x)
        };
        // 7.
        self.rate = clamp(p, old, new);
        r
    }
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimelyIn {
    /// Synchronous reset, active high.
    pub rst: bool,
    /// A completion event is presented.
    pub ev_valid: bool,
    /// Its flow (the low `flow_bits` are the port).
    pub ev_flow: u32,
    /// Its RTT sample (the low [`RTT_BITS`] are the port).
    pub ev_rtt: u32,
    /// The timestamp of the event ([`TIME_BITS`], free-running, wrapping;
    /// the same unit as the RTT).
    pub ev_time: u32,
    /// Write `cfg_data` to register `cfg_addr`.
    pub cfg_valid: bool,
    /// Register address (low [`CFG_ADDR_BITS`] bits).
    pub cfg_addr: u32,
    /// Register data (low [`CFG_DATA_BITS`] bits).
    pub cfg_data: u32,
}

/// Outputs during one clock cycle (registered: they depend only on state).
/// Every field but `ev_ready` is 0 when `cc_valid` is low.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimelyOut {
    /// Low while the flow table is cleared after a reset.
    pub ev_ready: bool,
    /// The result of the event of [`LATENCY`] cycles ago.
    pub cc_valid: bool,
    /// Its flow.
    pub cc_flow: u32,
    /// The flow's rate after the event, [`RATE_FRAC_BITS`] fraction bits
    /// ([`RATE_Q_BITS`] bits; `cc_rate >> 12` is in rate units).
    pub cc_rate: u32,
    /// The branch taken ([`branch`], [`BRANCH_BITS`] bits).
    pub cc_branch: u8,
    /// The gradient branch added `hai_n * ai`.
    pub cc_hai: bool,
    /// The normalised gradient after the event, [`GRAD_FRAC_BITS`] fraction
    /// bits ([`GRAD_BITS`] bits, two's complement on the port).
    pub cc_grad: i32,
}

/// The golden model of TIMELY: one [`Timely::step`] per clock cycle.
#[derive(Clone)]
pub struct Timely {
    config: TimelyConfig,
    /// `None`: not seen since the last reset.
    flows: Vec<Option<FlowState>>,
    regs: TimelyParams,
    busy_left: u32,
    cycle: u64,
    /// A ring: `pipe[(head + i) % LATENCY]` holds the output of the event of
    /// `i + 1` cycles ago (`cc_valid` low for a cycle with none).
    pipe: [TimelyOut; LATENCY],
    head: usize,
    /// The events accepted in the last `LAG - 1` cycles, oldest first:
    /// (cycle, flow, the flow's rate before it, `None` for a first event).
    /// `rate_lag` is the rate before the oldest of a flow's.
    recent: Vec<(u64, u32, Option<u32>)>,
    /// The flows of the events accepted in the same cycles as `pipe`'s
    /// entries (`None`: none accepted), for [`Timely::since_event`].
    accepted: [Option<u32>; LATENCY],
}

impl Timely {
    /// A model as just after a reset (busy for its first `F` steps).
    pub fn new(config: TimelyConfig) -> Result<Timely, ParamError> {
        config.validate()?;
        Ok(Timely {
            config,
            flows: vec![None; config.shape.flows() as usize],
            regs: config.reset,
            busy_left: config.shape.flows(),
            cycle: 0,
            pipe: [TimelyOut::default(); LATENCY],
            head: 0,
            recent: Vec::with_capacity(LAG as usize),
            accepted: [None; LATENCY],
        })
    }

    /// The configuration the model was built with.
    pub fn config(&self) -> &TimelyConfig {
        &self.config
    }

    /// The registers in force now (for the next step).
    #[inline]
    pub fn regs(&self) -> &TimelyParams {
        &self.regs
    }

    /// `ev_ready` during the next step.
    #[inline]
    pub fn ready(&self) -> bool {
        self.busy_left == 0
    }

    /// Cycles of clearing still to come, `ev_ready` low in each (0 when ready).
    #[inline]
    pub fn busy_left(&self) -> u32 {
        self.busy_left
    }

    /// Steps taken (the number of the next step's cycle).
    #[inline]
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// A flow's state as the next step would see it; `None` if not seen
    /// since the last reset.
    pub fn flow(&self, flow: u32) -> Option<FlowState> {
        self.flows[(flow & mask(self.config.shape.flow_bits)) as usize]
    }

    /// Cycles since the newest event of `flow` accepted in the last
    /// `LATENCY` cycles (1: the last cycle), `None` if there is none. (For
    /// stimulus and coverage.)
    pub fn since_event(&self, flow: u32) -> Option<usize> {
        let flow = flow & mask(self.config.shape.flow_bits);
        (0..LATENCY)
            .find(|&i| self.accepted[(self.head + i) % LATENCY] == Some(flow))
            .map(|i| i + 1)
    }

    /// `rate_lag` for an event of `flow` accepted in the next step (rule
    /// step 6): the rate before its oldest event of the last `LAG - 1`
    /// cycles, else its rate, `init_rate` for a flow not seen.
    pub fn rate_lag(&self, flow: u32) -> u32 {
        self.rate_lag_at(flow & mask(self.config.shape.flow_bits), self.cycle)
    }

    /// `rate_lag` of `flow` (masked) for an event accepted in cycle `now`.
    fn rate_lag_at(&self, flow: u32, now: u64) -> u32 {
        let init = rate_q(self.regs.init_rate) as u32;
        match self.recent.iter().find(|r| r.1 == flow && r.0 + LAG > now) {
            Some(&(_, _, before)) => before.unwrap_or(init),
            None => self.flows[flow as usize].map_or(init, |s| s.rate),
        }
    }

    /// The outputs during the next step's cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> TimelyOut {
        // The oldest entry: just before the head.
        TimelyOut {
            ev_ready: self.busy_left == 0,
            ..self.pipe[(self.head + LATENCY - 1) % LATENCY]
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    #[inline]
    pub fn step(&mut self, i: &TimelyIn) -> TimelyOut {
        let out = self.outputs();
        let now = self.cycle;
        self.cycle += 1;
        // Shift the result pipeline by one stage.
        self.head = (self.head + LATENCY - 1) % LATENCY;
        if i.rst {
            self.pipe = [TimelyOut::default(); LATENCY];
            self.flows.fill(None);
            self.recent.clear();
            self.accepted = [None; LATENCY];
            self.regs = self.config.reset;
            self.busy_left = self.config.shape.flows();
            return out;
        }
        let mut res = TimelyOut::default();
        self.accepted[self.head] = None;
        // Events of cycle now - LAG and before no longer lag.
        self.recent.retain(|&(c, _, _)| c + LAG > now);
        if i.ev_valid && self.busy_left == 0 {
            let flow = i.ev_flow & mask(self.config.shape.flow_bits);
            let lag = self.rate_lag_at(flow, now);
            let regs = self.regs;
            let slot = &mut self.flows[flow as usize];
            let before = slot.map(|s| s.rate);
            let st = slot.get_or_insert_with(|| FlowState::fresh(&regs));
            let r = st.event(&regs, i.ev_rtt, i.ev_time, before.is_none(), lag);
            self.recent.push((now, flow, before));
            self.accepted[self.head] = Some(flow);
            res = TimelyOut {
                ev_ready: false,
                cc_valid: true,
                cc_flow: flow,
                cc_rate: st.rate,
                cc_branch: r.branch,
                cc_hai: r.hai,
                cc_grad: r.grad,
            };
        }
        self.pipe[self.head] = res;
        self.busy_left = self.busy_left.saturating_sub(1);
        if i.cfg_valid {
            self.regs.write(
                i.cfg_addr & mask(CFG_ADDR_BITS),
                i.cfg_data & mask(CFG_DATA_BITS),
            );
        }
        out
    }
}

impl std::fmt::Debug for Timely {
    /// The registers, without the flow table.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timely")
            .field("config", &self.config)
            .field("cycle", &self.cycle)
            .field("regs", &self.regs)
            .field("busy_left", &self.busy_left)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    fn rst() -> TimelyIn {
        TimelyIn {
            rst: true,
            ..TimelyIn::default()
        }
    }

    /// Registers for the traces by hand: `min_rtt` and the RTTs of the
    /// decreases are powers of two or simple multiples, so that the
    /// reciprocals are exact.
    fn hand() -> TimelyParams {
        TimelyParams {
            min_rtt: 16_384,
            t_low: 20_000,
            t_high: 786_432,
            ai: 10,
            beta: 52_429,
            ewma_shift: 2,
            hai_thresh: 2,
            hai_n: 5,
            min_rate: 100,
            max_rate: 6000,
            init_rate: 5000,
        }
    }

    /// A model of `flow_bits` with reset registers `reset`, reset and cleared.
    fn cleared(flow_bits: u32, reset: TimelyParams) -> Timely {
        let mut tx = Timely::new(TimelyConfig {
            shape: TimelyShape { flow_bits },
            reset,
        })
        .unwrap();
        tx.step(&rst());
        while !tx.ready() {
            tx.step(&TimelyIn::default());
        }
        tx
    }

    fn ev(flow: u32, rtt: u32, time: u32) -> TimelyIn {
        TimelyIn {
            ev_valid: true,
            ev_flow: flow,
            ev_rtt: rtt,
            ev_time: time,
            ..TimelyIn::default()
        }
    }

    fn write(mut i: TimelyIn, addr: u32, data: u32) -> TimelyIn {
        (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, addr, data);
        i
    }

    /// Steps through `ins` and LATENCY idle cycles; returns each input
    /// cycle's result (None when `cc_valid` is low, all fields then 0).
    fn results(tx: &mut Timely, ins: &[TimelyIn]) -> Vec<Option<TimelyOut>> {
        let idle = [TimelyIn::default(); LATENCY];
        let outs: Vec<TimelyOut> = ins.iter().chain(&idle).map(|i| tx.step(i)).collect();
        outs[LATENCY..]
            .iter()
            .map(|o| {
                let o = TimelyOut {
                    ev_ready: false,
                    ..*o
                };
                if o.cc_valid {
                    Some(o)
                } else {
                    assert_eq!(o, TimelyOut::default());
                    None
                }
            })
            .collect()
    }

    /// [`results`] with `LAG - 1` idle cycles after each input, so that
    /// every decrease sees the flow's current rate (the plain rule); one
    /// result per input of `ins`.
    fn results_spaced(tx: &mut Timely, ins: &[TimelyIn]) -> Vec<Option<TimelyOut>> {
        let gap = LAG as usize - 1;
        let mut spaced = vec![];
        for i in ins {
            spaced.push(*i);
            spaced.extend([TimelyIn::default()].repeat(gap));
        }
        results(tx, &spaced).into_iter().step_by(gap + 1).collect()
    }

    /// `(rate, branch, hai, grad)` of a result.
    fn rbhg(o: &Option<TimelyOut>) -> (u32, u8, bool, i32) {
        let o = o.unwrap();
        (o.cc_rate, o.cc_branch, o.cc_hai, o.cc_grad)
    }

    #[test]
    fn a_trace_by_hand_through_the_four_branches_hai_and_the_half_clamp() {
        let mut tx = cleared(4, hand());
        let t0 = 1_000_000;
        let mut ins = vec![
            // First: diff 0, delta 1, below t_low: 5000 + 10.
            ev(3, 16_384, t0),
            // dt 8192 = min_rtt / 2: delta 2^16. diff +8192: avg = 2^23
            // (2048 ns), grad = 2048 / 16384 = 1/8 (2^17); x = round(2^17 *
            // 52429 / 2^18) = 26215 (0.1); 20520960 - round(20520960 *
            // 26215 / 2^18) = 20520960 - 2052143.
            ev(3, 24_576, t0 + 8192),
            // dt = min_rtt: delta 1. Above t_high: u = (2^20 - 3 * 2^18) /
            // 2^20 = 1/4 (32768), v = round(32768 * 52429 / 2^16) = 26215,
            // x = round(26215 * 2^17 / 2^16) = 52430 (0.2): 18468817 -
            // 3693848.
            ev(3, 1 << 20, t0 + 8192 + 16_384),
        ];
        // dt 4096 (delta 1/4) from here. Falling RTTs: avg is still large
        // and positive after the jump: x = 1/2 (capped), and the rate keeps
        // ceil(rate / 2) twice (the half clamp: 14774969 - 7387485 =
        // 7387484 -> 7387485).
        let mut t = t0 + 8192 + 16_384;
        for rtt in [700_000, 600_000, 500_000, 400_000, 300_000, 10_000] {
            t += 4096;
            ins.push(ev(3, rtt, t));
        }
        let got: Vec<_> = results_spaced(&mut tx, &ins).iter().map(rbhg).collect();
        // Computed independently (integers, the rule of docs/timely.md).
        let want = vec![
            (20_520_960, branch::BELOW_T_LOW, false, 0),
            (18_468_817, branch::GRADIENT_POSITIVE, false, 131_072),
            (14_774_969, branch::ABOVE_T_HIGH, false, 16_482_304),
            (7_387_485, branch::GRADIENT_POSITIVE, false, 6_784_512),
            (3_693_743, branch::GRADIENT_POSITIVE, false, 3_488_384),
            // grad 0.97: x = min(1/2, 0.776).
            (1_846_872, branch::GRADIENT_POSITIVE, false, 1_016_288),
            // avg < 0 after 4 negative differences (hai_thresh 2): + 5 * 10
            // / 4 = 12.5 = 51200.
            (1_898_072, branch::GRADIENT_NOT_POSITIVE, true, -837_784),
            (1_949_272, branch::GRADIENT_NOT_POSITIVE, true, -2_228_338),
            // Below t_low: + 10 / 4 whatever the gradient (N is 1 there).
            (1_959_512, branch::BELOW_T_LOW, false, -6_311_254),
        ];
        assert_eq!(got, want);
        let st = tx.flow(3).unwrap();
        assert_eq!(
            (st.prev_rtt, st.last_time, st.avg, st.neg),
            (10_000, t, -403_920_224, 6)
        );
    }

    #[test]
    fn hai_comes_after_hai_thresh_negative_differences_in_a_row() {
        // Flat in the band, then falling by 1 ns a step: avg <= 0, the
        // gradient branch; N = hai_n from the hai_thresh-th negative
        // difference on; a difference of 0 resets the count, and so does a
        // rise.
        let p = TimelyParams {
            hai_thresh: 3,
            ..hand()
        };
        let mut tx = cleared(4, p);
        let rtts = [
            100_000, 99_999, 99_998, 99_997, 99_996, 99_996, 99_995, 99_994, 99_993, 99_994,
        ];
        let ins: Vec<_> = rtts
            .iter()
            .enumerate()
            .map(|(k, &r)| ev(1, r, 10_000_000 + k as u32 * 16_384))
            .collect();
        let r = results_spaced(&mut tx, &ins);
        let hai: Vec<bool> = r.iter().map(|o| o.unwrap().cc_hai).collect();
        assert_eq!(
            hai,
            [false, false, false, true, true, false, false, false, true, false]
        );
        let rates: Vec<u32> = r
            .iter()
            .map(|o| o.unwrap().cc_rate >> RATE_FRAC_BITS)
            .collect();
        // delta 1: + 10 or + 50 while avg <= 0; the last (a rise of 1 ns
        // after a long fall) still has avg < 0.
        assert_eq!(
            rates,
            [5010, 5020, 5030, 5080, 5130, 5140, 5150, 5160, 5210, 5220]
        );
        assert!(r
            .iter()
            .skip(1)
            .all(|o| o.unwrap().cc_branch == branch::GRADIENT_NOT_POSITIVE));
        // hai_thresh 0: every gradient-branch event adds hai_n * ai, the
        // first included; the count saturates at 15.
        let mut st = FlowState::fresh(&p);
        let p0 = TimelyParams { hai_thresh: 0, ..p };
        let r = st.event(&p0, 50_000, 0, true, st.rate);
        assert!(r.hai && st.rate >> RATE_FRAC_BITS == 5050);
        for k in 0..40 {
            st.event(&p, 40_000 - k, k * 100, false, st.rate);
        }
        assert_eq!(st.neg, NEG_MAX);
    }

    #[test]
    fn the_first_event_takes_delta_1_and_no_difference_and_a_zero_sample_is_not_a_previous_rtt() {
        let p = hand();
        // Whatever the timestamp (even 0, or just after another event of
        // the same value), a first event has delta = 1 and diff = 0.
        for (rtt, t) in [(16_384, 0), (16_384, 5), (30_000, u32::MAX)] {
            let mut st = FlowState::fresh(&p);
            let r = st.event(&p, rtt, t, true, st.rate);
            assert_eq!((r.delta, r.grad, st.avg, st.neg), (ONE, 0, 0, 0));
            assert_eq!(st.rate >> RATE_FRAC_BITS, 5010);
            assert_eq!((st.prev_rtt, st.last_time), (rtt, t));
        }
        // A first event above t_high decreases with delta 1.
        let mut st = FlowState::fresh(&p);
        let r = st.event(&p, 1 << 20, 0, true, st.rate);
        assert_eq!((r.branch, r.x), (branch::ABOVE_T_HIGH, 52_430));
        // A sample of 0 leaves prev_rtt at 0 (the authors' test for "no
        // previous RTT"), so the next difference is 0 again.
        let mut st = FlowState::fresh(&p);
        st.event(&p, 0, 0, true, st.rate);
        assert_eq!(st.prev_rtt, 0);
        st.event(&p, 50_000, 100, false, st.rate);
        assert_eq!((st.avg, st.prev_rtt), (0, 50_000));
        st.event(&p, 60_000, 200, false, st.rate);
        assert_eq!(st.avg, (10_000 << 12) >> 2);
        // The model: a first event's rate starts from init_rate of its
        // cycle (a write of the cycle before is in force).
        let mut tx = cleared(4, p);
        let r = results(
            &mut tx,
            &[write(TimelyIn::default(), 10, 1000), ev(7, 16_384, 0)],
        );
        assert_eq!(r[1].unwrap().cc_rate >> RATE_FRAC_BITS, 1010);
    }

    #[test]
    fn time_differences_wrap_modulo_2_pow_32() {
        let p = hand();
        let mut st = FlowState::fresh(&p);
        st.event(&p, 30_000, u32::MAX - 4095, true, st.rate);
        // 8192 later, across the wrap: delta 1/2.
        let r = st.event(&p, 30_000, 4096, false, st.rate);
        assert_eq!(r.delta, ONE / 2);
        // A timestamp before the last reads as nearly 2^32 later: delta 1.
        let r = st.event(&p, 30_000, 4000, false, st.rate);
        assert_eq!(r.delta, ONE);
        // The same timestamp: delta 0, no increase.
        let before = st.rate;
        let r = st.event(&p, 30_000, 4000, false, st.rate);
        assert_eq!((r.delta, st.rate), (0, before));
    }

    #[test]
    fn clamps_keep_the_rate_in_bounds_and_never_below_half() {
        // Every branch, random states, registers (runtime values too) and
        // lagged operands: with min_rate <= max_rate the new rate is in
        // [min_rate, max_rate] and at least min(ceil(old / 2), max_rate);
        // with min_rate > max_rate it is min_rate.
        let mut r = 0x00c1_a3b5u32;
        let mut next = || {
            r = xorshift::next(r);
            r
        };
        let mut seen = [0usize; 4];
        for k in 0..2_000_000u32 {
            let mut p = TimelyParams::default();
            for reg in REGISTERS {
                if next() % 3 == 0 {
                    p.write(reg.addr, next());
                }
            }
            if k % 2 == 0 {
                p.min_rtt = 1 + next() % 50_000;
                p.t_low = next() % 100_000;
                p.t_high = p.t_low + next() % 1_000_000;
            }
            let mut st = FlowState {
                rate: next() & mask(RATE_Q_BITS),
                prev_rtt: next() & mask(RTT_BITS),
                last_time: next(),
                avg: (next() as i32 as i64) << (next() % 5),
                neg: next() % 16,
            };
            let old = st.rate;
            let lag = match next() % 3 {
                0 => old,
                1 => next() & mask(RATE_Q_BITS),
                _ => old.saturating_mul(2).min(mask(RATE_Q_BITS)),
            };
            let rtt = next() >> (next() % 16);
            let res = st.event(&p, rtt, next(), next() % 9 == 0, lag);
            seen[res.branch as usize] += 1;
            let (lo, hi) = (rate_q(p.min_rate) as u32, rate_q(p.max_rate) as u32);
            if lo <= hi {
                assert!(st.rate >= lo && st.rate <= hi, "{p:?}");
                assert!(
                    st.rate >= old.div_ceil(2).min(hi),
                    "{p:?} {old} {}",
                    st.rate
                );
                if old <= 2 * hi {
                    assert!(2 * u64::from(st.rate) >= u64::from(old));
                }
            } else {
                assert_eq!(st.rate, lo);
            }
            assert!(res.x <= X_MAX);
        }
        assert!(seen.iter().all(|&n| n > 100_000), "{seen:?}");
        // By hand: max_rate caps an increase, min_rate a decrease, and
        // min_rate wins over max_rate.
        let p = hand();
        let mut tx = cleared(4, p);
        let mut ins = vec![ev(2, 10_000, 0)];
        ins.push(write(ev(2, 10_000, 100_000), 9, 5015)); // old max: 5020
        ins.push(ev(2, 10_000, 200_000)); // max 5015
        for k in 0..12 {
            ins.push(ev(2, 8_000_000, 300_000 + k * 100_000)); // above t_high
        }
        ins.push(write(TimelyIn::default(), 8, 6000)); // min 6000 > max 5015
        ins.push(ev(2, 10_000, 9_000_000));
        let r = results_spaced(&mut tx, &ins);
        let rates: Vec<u32> = r.iter().flatten().map(|o| o.cc_rate).collect();
        assert_eq!(rates[..3], [5010 << 12, 5020 << 12, 5015 << 12]);
        // Each decrease removes 0.8 * (1 - 786432/8000000) = 72 % but keeps
        // half: the half clamp, down to min_rate.
        assert_eq!(rates[3], (5015u32 << 12).div_ceil(2));
        assert_eq!(*rates.last().unwrap(), 6000 << 12);
        assert_eq!(rates[rates.len() - 2], 100 << 12);
    }

    #[test]
    fn avg_stays_in_range_and_pure_decay_keeps_its_sign_class() {
        // Pure decay keeps the sign class of the real EWMA: a positive avg
        // stays positive (stuck below 2^k), a negative one reaches 0.
        assert_eq!((0..100).fold(5i64, |a, _| avg_next(a, 0, 3)), 5);
        assert_eq!((0..100).fold(100i64, |a, _| avg_next(a, 0, 3)), 7);
        assert_eq!((0..100).fold(-100i64, |a, _| avg_next(a, 0, 3)), 0);
        // Extremes.
        let top = ((1i64 << 24) - 1) << 12;
        for k in 0..16 {
            assert_eq!(avg_next(top, (1 << 24) - 1, k), top);
            assert_eq!(avg_next(-top, -(1 << 24) + 1, k), -top);
        }
    }

    #[test]
    fn latency_and_ready_after_reset() {
        let mut tx = Timely::new(TimelyConfig {
            shape: TimelyShape { flow_bits: 8 },
            reset: hand(),
        })
        .unwrap();
        let outs: Vec<TimelyOut> = (0..400u32)
            .map(|k| tx.step(&ev(9, 10_000, k * 16_384)))
            .collect();
        assert_eq!(outs.iter().take_while(|o| !o.ev_ready).count(), 256);
        assert!(outs[256..].iter().all(|o| o.ev_ready));
        // The first event accepted (cycle 256): result at 256 + LATENCY;
        // each event adds ai (delta 1, below t_low) up to max_rate.
        let first = outs.iter().position(|o| o.cc_valid).unwrap();
        assert_eq!(first, 256 + LATENCY);
        for (k, o) in outs.iter().enumerate().skip(first) {
            assert!(o.cc_valid && o.cc_flow == 9 && o.cc_branch == branch::BELOW_T_LOW);
            let want = (5010 + 10 * (k - first) as u32).min(6000);
            assert_eq!(o.cc_rate, want << RATE_FRAC_BITS);
        }
    }

    /// One flow's random events in regimes (below t_low, above t_high,
    /// moving and flat in the band), dt around min_rtt / 4.
    fn one_flow_events(seed: u32, n: usize, p: &TimelyParams) -> Vec<(u32, u32)> {
        let mut r = seed;
        let (mut rtt, mut t) = (100_000u32, 5_000_000u32);
        (0..n)
            .map(|k| {
                r = xorshift::next(r);
                rtt = match (k / 40) % 4 {
                    0 => 10_000 + (r >> 20),
                    1 => (rtt.clamp(p.t_low, p.t_high) + (r >> 22)).min(p.t_high),
                    2 => p.t_high + 1 + (r >> 12),
                    _ => (rtt.clamp(p.t_low, p.t_high) - (r >> 22)).max(p.t_low),
                };
                t = t.wrapping_add((r >> 8) % 10_000);
                (rtt, t)
            })
            .collect()
    }

    #[test]
    fn back_to_back_events_of_one_flow_see_each_other_but_the_decrease_product_lags() {
        // One flow's stream: spread out with other flows' events between
        // (LAG cycles or more apart) it gives the plain rule run
        // sequentially; back to back (one event per cycle) the same rule
        // with rate_lag the rate of 4 events before (init_rate for the
        // first 4).
        let p = TimelyParams {
            ewma_shift: 1,
            ..hand()
        };
        let evs = one_flow_events(0x00dd_ba11, 5000, &p);
        let sequential = |lag: &dyn Fn(usize, &[u32]) -> u32| {
            let mut st = FlowState::fresh(&p);
            let mut rates = vec![];
            let mut out = vec![];
            for (k, &(rtt, t)) in evs.iter().enumerate() {
                let r = st.event(&p, rtt, t, k == 0, lag(k, &rates));
                rates.push(st.rate);
                out.push((st.rate, r.branch, r.hai, r.grad));
            }
            out
        };
        let init = rate_q(p.init_rate) as u32;
        let plain = sequential(&|k, c| if k == 0 { init } else { c[k - 1] });
        let lagged = sequential(&|k, c| if k >= 4 { c[k - 4] } else { init });
        let ins: Vec<_> = evs.iter().map(|&(r, t)| ev(6, r, t)).collect();
        let tight: Vec<_> = results(&mut cleared(4, p), &ins).iter().map(rbhg).collect();
        assert_eq!(tight, lagged);
        let mut spread = vec![];
        for (k, i) in ins.iter().enumerate() {
            spread.push(*i);
            for g in 0..3 + (k % 5) as u32 {
                spread.push(if g % 2 == 0 {
                    ev(g + 7, 60_000 + k as u32, k as u32 * 1000)
                } else {
                    TimelyIn::default()
                });
            }
        }
        let d = results(&mut cleared(4, p), &spread);
        let of6: Vec<_> = spread
            .iter()
            .zip(&d)
            .filter(|(i, _)| i.ev_valid && i.ev_flow == 6)
            .map(|(_, d)| rbhg(d))
            .collect();
        assert_eq!(of6, plain);
        let count = |o: &[(u32, u8, bool, i32)], b: u8| o.iter().filter(|o| o.1 == b).count();
        for b in 0..4 {
            assert!(count(&plain, b) > 200, "branch {b}");
        }
        // The lag changed some decreases (and what follows them).
        let differ = (0..evs.len())
            .filter(|&k| plain[k] != lagged[k] && lagged[k].1 % 2 == 1)
            .count();
        assert!(differ > 100, "{differ}");
        // By hand: three AI events below t_low (delta 1: 5010, 5020, 5030),
        // then a decrease above t_high one cycle later: its product is from
        // init_rate (the first event is 3 cycles old), x = 0.2: 5030 -
        // 1000 (5000 * 0.2, in the rate's 12 fraction bits: round(5000 *
        // 4096 * 52430 / 2^18)).
        let ins = [
            ev(1, 10_000, 0),
            ev(1, 10_000, 20_000),
            ev(1, 10_000, 40_000),
            ev(1, 1 << 20, 60_000),
        ];
        let r: Vec<_> = results(&mut cleared(4, p), &ins)
            .iter()
            .map(|o| o.unwrap().cc_rate)
            .collect();
        let prod = |base: u32| ((u64::from(base) * 52_430 + (1 << 17)) >> 18) as u32;
        assert_eq!(r[3], (5030 << 12) - prod(5000 << 12));
        // One idle cycle more: the first event is LAG cycles old, its rate
        // (5010) is the operand; two more: the second's (5020).
        for (gap, base) in [(1, 5010), (2, 5020), (3, 5030)] {
            let mut ins2 = ins.to_vec();
            for _ in 0..gap {
                ins2.insert(3, TimelyIn::default());
            }
            let r = results(&mut cleared(4, p), &ins2);
            assert_eq!(r[3 + gap].unwrap().cc_rate, (5030 << 12) - prod(base << 12));
        }
    }

    #[test]
    fn register_writes_take_effect_next_cycle() {
        let mut tx = cleared(4, hand());
        // Each write comes with an event in the same cycle, which uses the
        // old value; the next event the new one.
        let ins = [
            ev(5, 10_000, 0),
            write(ev(5, 10_000, 100_000), 3, 100), // ai: old 10
            ev(5, 10_000, 200_000),                // ai 100
            // min_rtt 65536: dt 16384 is delta 1 before, 1/4 after.
            write(ev(5, 10_000, 216_384), 0, 65_536),
            ev(5, 10_000, 232_768),                 // + 100 / 4
            write(ev(5, 10_000, 249_152), 1, 5000), // t_low 5000: still below now
            ev(5, 10_000, 265_536),                 // in the band now, avg 0: gradient branch
        ];
        let r = results(&mut tx, &ins);
        let got: Vec<(u32, u8)> = r
            .iter()
            .map(|o| (o.unwrap().cc_rate, o.unwrap().cc_branch))
            .collect();
        let q = |u: u32| u << RATE_FRAC_BITS;
        assert_eq!(
            got,
            vec![
                (q(5010), 0),
                (q(5020), 0),
                (q(5120), 0),
                (q(5220), 0),
                (q(5245), 0),
                (q(5270), 0),
                (q(5295), 2),
            ]
        );
        assert_eq!(
            *tx.regs(),
            TimelyParams {
                ai: 100,
                min_rtt: 65_536,
                t_low: 5000,
                ..hand()
            }
        );
        // Addresses 11 to 15 are ignored; 16 is address 0; data above a
        // register's width is dropped.
        let before = *tx.regs();
        for (addr, data) in [(11, 9), (12, 9), (13, 9), (14, 9), (15, 9)] {
            tx.step(&write(TimelyIn::default(), addr, data));
        }
        assert_eq!(*tx.regs(), before);
        tx.step(&write(TimelyIn::default(), 16, 777));
        tx.step(&write(TimelyIn::default(), 5, 0xff_fff3));
        tx.step(&write(TimelyIn::default(), 4, 0x7f_ffff));
        assert_eq!(
            (tx.regs().min_rtt, tx.regs().ewma_shift, tx.regs().beta),
            (777, 3, (1 << 17) - 1)
        );
    }

    #[test]
    fn reset_drops_results_in_flight_forgets_flows_and_clears_for_f_cycles() {
        let mut tx = cleared(8, TimelyParams::default());
        let l = LATENCY;
        let mut ins: Vec<TimelyIn> = (0..l as u32 + 4).map(|f| ev(f, 30_000, f)).collect();
        ins[0] = write(ins[0], 3, 500);
        ins[l].rst = true; // its event (flow LATENCY) and write are ignored
        ins[l] = write(ins[l], 10, 1000);
        let outs: Vec<TimelyOut> = ins
            .iter()
            .chain(&[TimelyIn::default(); LATENCY + 4])
            .map(|i| tx.step(i))
            .collect();
        let shown: Vec<(usize, u32)> = (0..outs.len())
            .filter(|&k| outs[k].cc_valid)
            .map(|k| (k, outs[k].cc_flow))
            .collect();
        // Event 0's result shows during the reset cycle; none after it.
        assert_eq!(shown, vec![(l, 0)]);
        assert!(outs.iter().all(|o| o.cc_valid
            || *o
                == TimelyOut {
                    ev_ready: o.ev_ready,
                    ..TimelyOut::default()
                }));
        assert_eq!(*tx.regs(), TimelyParams::default());
        assert!((0..256).all(|f| tx.flow(f).is_none()));
        let low = outs[l + 1..].iter().take_while(|o| !o.ev_ready).count();
        assert_eq!(low + tx.busy_left() as usize, 256);
    }

    #[test]
    fn reset_during_clearing_restarts_it() {
        let mut tx = cleared(8, TimelyParams::default());
        tx.step(&rst());
        let mut low = 0;
        for _ in 0..100 {
            low += !tx.step(&TimelyIn::default()).ev_ready as u32;
        }
        tx.step(&rst());
        assert_eq!(tx.busy_left(), 256);
        let outs: Vec<TimelyOut> = (0..600).map(|_| tx.step(&ev(3, 30_000, 0))).collect();
        low += outs.iter().take_while(|o| !o.ev_ready).count() as u32;
        assert_eq!(low, 100 + 256);
        assert!(outs[256..].iter().all(|o| o.ev_ready));
        // Events while not ready are not accepted: the first result is of
        // the first cycle with ready high.
        assert_eq!(outs.iter().position(|o| o.cc_valid), Some(256 + LATENCY));
    }

    #[test]
    fn masked_ports_keep_only_their_low_bits() {
        let mut tx = cleared(8, hand());
        let r = results(
            &mut tx,
            &[ev(0x305, 10_000, 0), ev(0x5, 10_000 | 1 << 24, 100_000)],
        );
        assert_eq!((r[0].unwrap().cc_flow, r[1].unwrap().cc_flow), (5, 5));
        assert_eq!(tx.flow(0x105).unwrap().prev_rtt, 10_000);
        tx.step(&write(TimelyIn::default(), 0xf0 | 9, 0x7f00_1234)); // addr 9, 19 bits
        assert_eq!(tx.regs().max_rate, 0x1234);
        assert_eq!(recip(5 | 1 << 24), recip(5));
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        fn name<T: std::fmt::Debug>(r: Result<T, ParamError>) -> &'static str {
            r.unwrap_err().name
        }
        let mut c = TimelyConfig::default();
        assert_eq!(c.shape.flow_bits, 12);
        assert!(c.validate().is_ok());
        for bad in [0, 2, 13, 17, 32] {
            c.shape.flow_bits = bad;
            assert_eq!(name(Timely::new(c)), "flow_bits");
        }
        c.shape.flow_bits = 4;
        assert!(Timely::new(c).is_ok());
        let d = TimelyParams::default();
        for (p, want) in [
            (TimelyParams { min_rtt: 0, ..d }, "min_rtt"),
            (
                TimelyParams {
                    min_rtt: 1 << 24,
                    ..d
                },
                "min_rtt",
            ),
            (
                TimelyParams {
                    t_low: 1 << 24,
                    ..d
                },
                "t_low",
            ),
            (
                TimelyParams {
                    t_high: 1 << 24,
                    ..d
                },
                "t_high",
            ),
            (
                TimelyParams {
                    t_low: 1_000_001,
                    ..d
                },
                "t_low",
            ),
            (TimelyParams { ai: 0, ..d }, "ai"),
            (TimelyParams { ai: 1 << 19, ..d }, "ai"),
            (TimelyParams { beta: 0, ..d }, "beta"),
            (
                TimelyParams {
                    beta: BETA_ONE + 1,
                    ..d
                },
                "beta",
            ),
            (TimelyParams { beta: 1 << 17, ..d }, "beta"),
            (
                TimelyParams {
                    ewma_shift: 13,
                    ..d
                },
                "ewma_shift",
            ),
            (
                TimelyParams {
                    ewma_shift: 16,
                    ..d
                },
                "ewma_shift",
            ),
            (
                TimelyParams {
                    hai_thresh: 16,
                    ..d
                },
                "hai_thresh",
            ),
            (TimelyParams { hai_n: 0, ..d }, "hai_n"),
            (TimelyParams { hai_n: 16, ..d }, "hai_n"),
            (
                TimelyParams {
                    max_rate: 0,
                    min_rate: 0,
                    init_rate: 0,
                    ..d
                },
                "max_rate",
            ),
            (
                TimelyParams {
                    max_rate: 1 << 19,
                    ..d
                },
                "max_rate",
            ),
            (
                TimelyParams {
                    min_rate: 20_000,
                    ..d
                },
                "min_rate",
            ),
            (TimelyParams { init_rate: 5, ..d }, "init_rate"),
            (
                TimelyParams {
                    init_rate: 10_001,
                    ..d
                },
                "init_rate",
            ),
        ] {
            assert_eq!(
                name(Timely::new(TimelyConfig { reset: p, ..c })),
                want,
                "{p:?}"
            );
        }
        // The edges that are accepted.
        assert!(TimelyParams {
            min_rtt: 1,
            t_low: 7,
            t_high: 7,
            ai: 1,
            beta: BETA_ONE,
            ewma_shift: 12,
            hai_thresh: 15,
            hai_n: 15,
            min_rate: 0,
            max_rate: 1,
            init_rate: 0,
        }
        .validate()
        .is_ok());
    }

    /// Random events of 16 flows (3 hot, bursts back to back) with random
    /// register writes (any data, so every runtime value: min_rtt 0, beta
    /// above 1, ewma_shift above 12, t_low above t_high, min_rate above
    /// max_rate) and resets, against a restatement of the cycle contract
    /// (rate_lag from each flow's history of (cycle, rate), results
    /// LATENCY cycles later, ready after F cycles): every output equal, no
    /// panic, the rate's bounds after every event.
    #[test]
    fn matches_a_restatement_of_the_cycle_contract_over_random_traces() {
        for seed in [0x2545_f491u32, 0x6a09_e667] {
            let mut r = seed;
            let mut next = || {
                r = xorshift::next(r);
                r
            };
            let reset = TimelyParams {
                min_rtt: 5000,
                ..TimelyParams::default()
            };
            let mut tx = Timely::new(TimelyConfig {
                shape: TimelyShape { flow_bits: 4 },
                reset,
            })
            .unwrap();
            type Hist = Vec<(i64, u32)>;
            let mut model: Vec<Option<(FlowState, Hist)>> = vec![None; 16];
            let (mut p, mut last_rst) = (reset, -1i64);
            let (mut ins, mut outs, mut want) = (vec![], vec![], vec![]);
            let (mut t, mut burst, mut rtts) = (0u32, 0u32, [60_000u32; 16]);
            let (mut seen, mut odd_seen) = ([0usize; 4], [0usize; 5]);
            for n in 0..300_000usize {
                let x = next();
                let mut flow = if x & 0x100 != 0 {
                    (x >> 9) % 3
                } else {
                    (x >> 9) % 16
                };
                if burst > 0 {
                    burst -= 1;
                    flow = 1;
                } else if x % 97 == 0 {
                    burst = x >> 28;
                }
                t = t.wrapping_add(next() % 3000);
                let y = next();
                let rtt = &mut rtts[flow as usize];
                *rtt = match y % 64 {
                    0 => y >> 8,
                    1 => 0,
                    2 | 3 => 2_000_000 + (y >> 12),
                    4 | 5 => 1000 + (y >> 24),
                    6..=9 => 100_000 + (y >> 14),
                    _ => (*rtt as i64 + ((y >> 8) % 4001) as i64 - 2000).clamp(1, 1 << 24) as u32,
                };
                let addr = (y >> 4) % 13;
                let i = TimelyIn {
                    rst: n == 2 || x % 60_000 == 7,
                    ev_valid: x & 7 != 0,
                    ev_flow: flow | (y & 0xfff0_0000),
                    ev_rtt: *rtt,
                    ev_time: t,
                    cfg_valid: (x >> 16) % 200 == 0,
                    cfg_addr: addr,
                    cfg_data: match addr {
                        0 => [0, 1, 5000, 20_000, next()][(y >> 12) as usize % 5],
                        1 => next() % [100_000, 3_000_000][(y >> 20) as usize % 2],
                        2 => 150_000 + next() % 2_000_000,
                        _ => next() >> (next() % 24),
                    },
                };
                let o = tx.step(&i);
                let c = n as i64;
                assert_eq!(o.ev_ready, c > last_rst + 16, "ready in cycle {n}");
                let mut w = None;
                if i.rst {
                    model.fill(None);
                    (p, last_rst) = (reset, c);
                } else {
                    if i.ev_valid && o.ev_ready {
                        let slot = &mut model[flow as usize];
                        let first = slot.is_none();
                        let (st, hist) = slot.get_or_insert((FlowState::fresh(&p), vec![]));
                        let old = st.rate;
                        let lag = hist
                            .iter()
                            .rev()
                            .find(|h| h.0 <= c - LAG as i64)
                            .map_or(rate_q(p.init_rate) as u32, |h| h.1);
                        let res = st.event(&p, i.ev_rtt, t, first, lag);
                        hist.push((c, st.rate));
                        if hist.len() > 8 {
                            hist.remove(0);
                        }
                        seen[res.branch as usize] += 1;
                        for (k, odd) in [
                            p.min_rtt == 0,
                            p.beta > BETA_ONE,
                            p.ewma_shift > AVG_FRAC_BITS,
                            p.t_low > p.t_high,
                            p.min_rate > p.max_rate,
                        ]
                        .into_iter()
                        .enumerate()
                        {
                            odd_seen[k] += odd as usize;
                        }
                        let (lo, hi) = (rate_q(p.min_rate) as u32, rate_q(p.max_rate) as u32);
                        if lo <= hi {
                            assert!(st.rate >= lo && st.rate <= hi);
                            assert!(st.rate >= old.div_ceil(2).min(hi));
                        }
                        w = Some((flow, st.rate, res.branch, res.hai, res.grad));
                        assert_eq!(tx.flow(flow), Some(*st), "cycle {n}");
                    }
                    if i.cfg_valid {
                        p.write(i.cfg_addr & 15, i.cfg_data & mask(CFG_DATA_BITS));
                    }
                }
                ins.push(i);
                outs.push(o);
                want.push(w);
            }
            let mut checked = 0;
            for n in 0..ins.len() - LATENCY {
                if ins[n + 1..=n + LATENCY].iter().any(|i| i.rst) {
                    continue; // dropped by the reset
                }
                let o = outs[n + LATENCY];
                let got =
                    o.cc_valid
                        .then_some((o.cc_flow, o.cc_rate, o.cc_branch, o.cc_hai, o.cc_grad));
                assert_eq!(got, want[n], "event of cycle {n}");
                if !o.cc_valid {
                    assert_eq!(
                        o,
                        TimelyOut {
                            ev_ready: o.ev_ready,
                            ..TimelyOut::default()
                        }
                    );
                }
                checked += got.is_some() as usize;
            }
            assert!(checked > 200_000, "{checked}");
            assert!(seen.iter().all(|&s| s > 10_000), "{seen:?}");
            // Events under every odd runtime value of the registers.
            assert!(odd_seen.iter().all(|&s| s > 1000), "{odd_seen:?}");
        }
    }
}

/// Float reference: the authors' rate computation of seed 003 in `f64`.
pub mod reference {
    use super::{branch, TimelyParams, BETA_ONE};

    /// The authors' sender (seed 003's `getNewRate` and the instance
    /// variables it uses), in `f64`: the parameters, then the state with
    /// its stated initial values (all 0).
    #[derive(Debug, Clone, PartialEq)]
    pub struct Timely {
        /// `ewma_alpha`.
        pub ewma_alpha: f64,
        /// `t_low`.
        pub t_low: f64,
        /// `t_high`.
        pub t_high: f64,
        /// `HAI_thresh`.
        pub hai_thresh: i64,
        /// `additiveIncrement`.
        pub additive_increment: f64,
        /// `decreaseFactor`.
        pub decrease_factor: f64,
        /// `maxRate`.
        pub max_rate: f64,
        /// `minRate`.
        pub min_rate: f64,
        /// `minRTT_`.
        pub min_rtt: f64,
        /// The hyper-additive multiplier (the code's constant `N = 5`).
        pub hai_n: f64,
        /// `prevRTT_`.
        pub prev_rtt: f64,
        /// `negGradientCount_`.
        pub neg_gradient_count: i64,
        /// `avgRTTDiff_`.
        pub avg_rtt_diff: f64,
        /// `last_update_time_`.
        pub last_update_time: f64,
        /// The branch the last call took ([`branch`]).
        pub branch: u8,
        /// The last call added `hai_n * additive_increment`.
        pub hai: bool,
    }

    impl Timely {
        /// The sender with the registers' values as reals: `ewma_alpha =
        /// 2^-ewma_shift`, `decreaseFactor = beta / 2^16`, rates in rate
        /// units, times in RTT units.
        pub fn from_params(p: &TimelyParams) -> Timely {
            Timely {
                ewma_alpha: 0.5f64.powi(p.ewma_shift as i32),
                t_low: p.t_low as f64,
                t_high: p.t_high as f64,
                hai_thresh: i64::from(p.hai_thresh),
                additive_increment: p.ai as f64,
                decrease_factor: p.beta as f64 / BETA_ONE as f64,
                max_rate: p.max_rate as f64,
                min_rate: p.min_rate as f64,
                min_rtt: p.min_rtt as f64,
                hai_n: p.hai_n as f64,
                prev_rtt: 0.0,
                neg_gradient_count: 0,
                avg_rtt_diff: 0.0,
                last_update_time: 0.0,
                branch: 0,
                hai: false,
            }
        }

        /// `getNewRate(rtt, rate)` at time `now` (the code's `curTime()`),
        /// statement by statement.
        pub fn get_new_rate(&mut self, rtt: f64, rate: f64, now: f64) -> f64 {
            if self.prev_rtt == 0.0 {
                self.prev_rtt = rtt;
            }
            let rtt_diff = rtt - self.prev_rtt;
            if rtt_diff < 0.0 {
                self.neg_gradient_count += 1;
            } else {
                self.neg_gradient_count = 0;
            }
            self.avg_rtt_diff =
                (1.0 - self.ewma_alpha) * self.avg_rtt_diff + self.ewma_alpha * rtt_diff;
            let normalized_gradient = self.avg_rtt_diff / self.min_rtt;
            let mut delta_factor = (now - self.last_update_time) / self.min_rtt;
            delta_factor = delta_factor.min(1.0);
            self.prev_rtt = rtt;
            self.last_update_time = now;
            self.hai = false;
            let mut new_rate;
            if rtt < self.t_low {
                self.branch = branch::BELOW_T_LOW;
                new_rate = rate + self.additive_increment * delta_factor;
            } else if rtt > self.t_high {
                self.branch = branch::ABOVE_T_HIGH;
                new_rate =
                    rate * (1.0 - delta_factor * self.decrease_factor * (1.0 - self.t_high / rtt));
            } else if normalized_gradient <= 0.0 {
                self.branch = branch::GRADIENT_NOT_POSITIVE;
                let mut n = 1.0;
                if self.neg_gradient_count >= self.hai_thresh {
                    n = self.hai_n;
                    self.hai = true;
                }
                new_rate = rate + n * self.additive_increment * delta_factor;
            } else {
                self.branch = branch::GRADIENT_POSITIVE;
                new_rate = rate * (1.0 - self.decrease_factor * normalized_gradient);
            }
            new_rate = new_rate.max(rate * 0.5);
            new_rate = new_rate.min(self.max_rate);
            new_rate = new_rate.max(self.min_rate);
            new_rate
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::*;
        use super::Timely as Ref;
        use crate::xorshift;

        /// `y - 2^40 / m` in LSB over every mantissa `m` (`2^23 ..= 2^24 -
        /// 1`): (min, max).
        fn recip_error() -> (f64, f64) {
            let mut w = (0f64, 0f64);
            for m in 1u32 << 23..1 << 24 {
                let r = recip(m);
                assert_eq!(r.e, 23);
                let e = r.y as f64 - (1u64 << 40) as f64 / m as f64;
                w = (w.0.min(e), w.1.max(e));
            }
            w
        }

        /// Measured bound of the reciprocal, LSB of `2^-17` relative to 1
        /// (`y - 2^40 / m`), rounded outward.
        const RECIP_ERR: (f64, f64) = (-0.998, 1.022);

        /// The reciprocal against `2^40 / m` for every 24-bit mantissa (so
        /// for every `x`: `x` and `x << s` have the same mantissa and `y`).
        #[test]
        fn reciprocal_is_within_its_bound_for_every_mantissa() {
            let w = recip_error();
            println!("recip: y - 2^40/m in [{:.4}, {:.4}] LSB", w.0, w.1);
            assert!(w.0 >= RECIP_ERR.0 && w.1 <= RECIP_ERR.1, "{w:?}");
            // Exact at powers of two, and 0 reads as 1.
            for e in 0..24 {
                assert_eq!(recip(1 << e), Recip { y: 1 << 17, e });
            }
            assert_eq!(recip(0), recip(1));
            assert_eq!(recip(3 << 22), recip(3 << 22 | 1 << 24));
            assert_eq!(RECIP_TABLE[0], 1 << 17);
            assert_eq!(RECIP_TABLE[512], 1 << 16);
            // The ROM's slope fits 9 bits.
            assert!((0..512).all(|i| RECIP_TABLE[i] - RECIP_TABLE[i + 1] <= 256));
        }

        /// `(golden - exact) * 2^17` over `dt` in `0 .. min_rtt` for several
        /// `min_rtt` (every `dt`), plus random pairs; (min, max).
        fn delta_error() -> (f64, f64) {
            let mut w = (0f64, 0f64);
            let mut see = |dt: u32, min_rtt: u32| {
                let g = delta_factor(dt, min_rtt) as f64;
                let x = dt as f64 * ONE as f64 / min_rtt as f64;
                let e = g - x.min(ONE as f64);
                w = (w.0.min(e), w.1.max(e));
            };
            for min_rtt in [
                1,
                2,
                3,
                5,
                1000,
                20_000,
                99_999,
                (1 << 20) + 1,
                (1 << 24) - 1,
            ] {
                for dt in 0..min_rtt + 2 {
                    see(dt, min_rtt);
                }
            }
            let mut r = 0x1234_5678u32;
            for _ in 0..4_000_000 {
                r = xorshift::next(r);
                let min_rtt = (r >> (r % 24 + 8)).max(1);
                r = xorshift::next(r);
                see(((r as u64 * min_rtt as u64) >> 32) as u32, min_rtt);
            }
            w
        }

        /// Measured bound of delta (LSB of `2^-17`), rounded outward. The
        /// proof: `dt y / 2^e - exact = (dt / 2^e) (y - 2^(17+e)/min_rtt)`
        /// with `dt / 2^e < 2`, then the rounding: within `2 * 1.022 +
        /// 0.5`.
        const DELTA_ERR: (f64, f64) = (-2.15, 2.24);

        #[test]
        fn delta_factor_is_within_its_bound() {
            let w = delta_error();
            println!(
                "delta: golden - exact in [{:.4}, {:.4}] LSB of 2^-17",
                w.0, w.1
            );
            assert!(
                w.0 >= -2.0 * 0.998 - 0.5 && w.1 <= 2.0 * 1.022 + 0.5,
                "proof: {w:?}"
            );
            assert!(w.0 >= DELTA_ERR.0 && w.1 <= DELTA_ERR.1, "{w:?}");
            assert_eq!(delta_factor(0, 20_000), 0);
            assert_eq!(delta_factor(20_000, 20_000), ONE);
            assert_eq!(delta_factor(u32::MAX, 20_000), ONE);
            assert_eq!(delta_factor(5, 0), ONE);
            assert_eq!(delta_factor(4096, 16_384), ONE / 4);
        }

        /// `(golden - exact) * 2^17` of `(rtt - t_high) / rtt` (that is, of
        /// `1 - t_high / rtt`) over every `rtt > t_high` for several
        /// `t_high`, plus random pairs.
        fn high_error() -> (f64, f64) {
            let mut w = (0f64, 0f64);
            let mut see = |rtt: u32, t_high: u32| {
                let g = high_fraction(rtt, t_high) as f64;
                let x = (rtt - t_high) as f64 / rtt as f64 * ONE as f64;
                let e = g - x;
                w = (w.0.min(e), w.1.max(e));
            };
            for t_high in [0, 1, 1000, 1_000_000, 5_000_001, (1 << 23) + 12_345] {
                for rtt in t_high + 1..1 << 24 {
                    see(rtt, t_high);
                }
            }
            let mut r = 0x0bad_cafeu32;
            for _ in 0..4_000_000 {
                r = xorshift::next(r);
                let rtt = (r >> (r % 24 + 8)).max(1);
                r = xorshift::next(r);
                see(rtt, ((r as u64 * rtt as u64) >> 32) as u32);
            }
            w
        }

        /// Measured bound of `1 - t_high / rtt` (LSB of `2^-17`), rounded
        /// outward; the proof as for delta.
        const HIGH_ERR: (f64, f64) = (-2.29, 2.26);

        #[test]
        fn one_minus_t_high_over_rtt_is_within_its_bound() {
            let w = high_error();
            println!(
                "1 - t_high/rtt: golden - exact in [{:.4}, {:.4}] LSB of 2^-17",
                w.0, w.1
            );
            assert!(
                w.0 >= -2.0 * 0.998 - 0.5 && w.1 <= 2.0 * 1.022 + 0.5,
                "proof: {w:?}"
            );
            assert!(w.0 >= HIGH_ERR.0 && w.1 <= HIGH_ERR.1, "{w:?}");
            assert_eq!(high_fraction(100, 100), 0);
            assert_eq!(high_fraction(99, 100), 0);
            assert_eq!(high_fraction(1 << 20, 3 << 18), ONE / 4);
        }

        /// The gradient's error: the largest `A` with `|golden| - |exact|`
        /// in `[-1/2 - A |exact|, 1/2 + A |exact|]` (LSB of `2^-20`; the
        /// magnitude is rounded), over random `avg` and `min_rtt`, both signs, no
        /// saturation; and whether the sign always matched.
        fn gradient_error() -> (f64, bool) {
            let (mut a, mut signs) = (0f64, true);
            let mut r = 0x5eed_0003u32;
            for k in 0..6_000_000u32 {
                r = xorshift::next(r);
                let min_rtt = (r >> (r % 24 + 8)).max(1);
                r = xorshift::next(r);
                // |avg| up to 200 min_rtt (in 2^-12 units), both signs.
                let span = min_rtt as u64 * 4096 * [1, 8, 200][k as usize % 3];
                let avg = ((r as u64 * span) >> 32) as i64 * if r & 1 == 0 { 1 } else { -1 };
                let avg = avg.clamp(-((1 << 36) - 4096), (1 << 36) - 4096);
                let g = gradient(avg, min_rtt);
                let x = avg as f64 / 4096.0 / min_rtt as f64 * (1 << GRAD_FRAC_BITS) as f64;
                if x.abs() >= GRAD_MAX as f64 || x.abs() < 1.0 {
                    continue;
                }
                signs &= g == 0 || (g < 0) == (avg < 0);
                let e = (g.unsigned_abs() as f64) - x.abs();
                a = a.max((e.abs() - 0.5) / x.abs());
            }
            (a, signs)
        }

        /// Measured `A` of the gradient, rounded outward. The proof:
        /// `|avg| y / 2^(13+e) - exact = exact (min_rtt / 2^(e+1))` times the
        /// reciprocal's relative error (below `1.022 / 2^16`), then the
        /// rounding.
        const GRAD_REL: f64 = 1.46e-5;

        #[test]
        fn gradient_is_within_its_bound() {
            let (a, signs) = gradient_error();
            println!("grad: ||golden| - |exact|| <= 1/2 + A|exact| LSB of 2^-20, A = {a:.4e}");
            assert!(signs);
            assert!(a <= 1.022 / 65536.0, "proof: {a}");
            assert!(a <= GRAD_REL, "{a}");
            // Saturation, sign, zero.
            assert_eq!(gradient(1 << 36, 1), GRAD_MAX as i32);
            assert_eq!(gradient(-(1 << 36), 1), -(GRAD_MAX as i32));
            assert_eq!(gradient(0, 7), 0);
            assert_eq!(gradient(4096 * 2048, 16_384), 1 << 17); // 2048 / 16384 = 1/8
            assert_eq!(gradient(-4096 * 2048, 16_384), -(1 << 17));
        }

        /// `avg` against the real EWMA of the same differences (in `f64`,
        /// whose rounding stays far below an LSB): for every gain `2^-k`, `k
        /// <= 12`, `golden - real` is in `[0, 2^k - 1]` LSB of `2^-12` RTT
        /// units, as proven in docs/timely.md; the measured extremes are
        /// printed.
        #[test]
        fn avg_tracks_the_real_ewma_from_above_within_2_pow_k_lsb() {
            let mut g = Gen(0x0e3a_0001);
            for k in 0..=AVG_FRAC_BITS {
                let (mut avg, mut real, mut w) = (0i64, 0f64, (0f64, 0f64));
                let a = 0.5f64.powi(k as i32);
                for n in 0..400_000 {
                    let diff = match g.below(5) {
                        0 => 0,
                        1 => g.below(3) as i64 - 1,
                        2 => g.below(1 << 25) as i64 - (1 << 24) + 1,
                        _ => g.below(2001) as i64 - 1000,
                    };
                    // Long stretches of 0 (pure decay) now and then.
                    let diff = if (n / 1000) % 7 == 3 { 0 } else { diff };
                    avg = avg_next(avg, diff, k);
                    real = (1.0 - a) * real + a * diff as f64;
                    let e = avg as f64 - real * 4096.0;
                    w = (w.0.min(e), w.1.max(e));
                }
                println!("k {k:2}: golden - real in [{:.6}, {:.4}] LSB", w.0, w.1);
                assert!(
                    w.0 > -1e-6 && w.1 < (1u64 << k) as f64 - 1.0 + 1e-6,
                    "k {k}: {w:?}"
                );
            }
        }

        /// A random source for the traces.
        struct Gen(u32);

        impl Gen {
            fn next(&mut self) -> u32 {
                self.0 = xorshift::next(self.0);
                self.0
            }

            /// Uniform in `0 .. n` (0 for `n = 0`).
            fn below(&mut self, n: u32) -> u32 {
                ((self.next() as u64 * n as u64) >> 32) as u32
            }
        }

        /// Random registers (all valid reset values).
        fn random_params(g: &mut Gen) -> TimelyParams {
            let min_rtt = 1000 + g.below(100_000);
            let t_low = g.below(5 * min_rtt);
            let t_high = (t_low + g.below(100 * min_rtt)).min((1 << 24) - 1);
            let min_rate = 1 + g.below(1000);
            let max_rate = min_rate + g.below((1 << 19) - min_rate);
            TimelyParams {
                min_rtt,
                t_low,
                t_high,
                ai: 1 + g.below(1000),
                beta: 1 + g.below(BETA_ONE),
                ewma_shift: g.below(13),
                hai_thresh: g.below(16),
                hai_n: 1 + g.below(15),
                min_rate,
                max_rate,
                init_rate: max_rate,
            }
        }

        /// Per-update error over random states and events: the golden
        /// event (plain rule, `rate_lag = rate`) against `getNewRate` loaded
        /// with the same state. Returns `(E_x, E_d, branches seen)`: the
        /// largest `(|golden - float| - 2^-12) / old` over the decreases and
        /// `(|golden - float| - 2^-12) / (m ai)` over the increases (rate
        /// units; `m` is 1 or `hai_n`).
        fn one_update_error(n: usize) -> (f64, f64, [usize; 5]) {
            let mut g = Gen(0x7133_1e57);
            let (mut ex, mut ed, mut seen) = (0f64, 0f64, [0usize; 5]);
            let mut p = random_params(&mut g);
            for k in 0..n {
                if k % 1000 == 0 {
                    p = random_params(&mut g);
                }
                let lsb = 1.0 / 4096.0;
                let rate = (rate_q(p.min_rate) as u32)
                    + g.below((rate_q(p.max_rate) - rate_q(p.min_rate)) as u32 + 1);
                let span = [1u64, 20, 1 << 12][g.below(3) as usize] * p.min_rtt as u64 * 4096;
                let avg = ((g.next() as u64 * span.min(1 << 36)) >> 32) as i64
                    * if g.next() & 1 == 0 { 1 } else { -1 };
                let st = FlowState {
                    rate,
                    prev_rtt: if g.below(20) == 0 {
                        0
                    } else {
                        g.below(1 << 24)
                    },
                    last_time: g.next(),
                    avg,
                    neg: g.below(16),
                };
                let rtt = match g.below(4) {
                    0 => g.below(p.t_low.max(1)),
                    1 => (p.t_high + 1 + g.below(4 * p.t_high + 1)).min((1 << 24) - 1),
                    _ => p.t_low + g.below(p.t_high - p.t_low + 1),
                };
                let dt = match g.below(8) {
                    0 => 0,
                    1 => p.min_rtt + g.below(1 << 30),
                    _ => g.below(p.min_rtt),
                };
                let now = st.last_time.wrapping_add(dt);
                let mut gold = st;
                let r = gold.event(&p, rtt, now, false, st.rate);
                let mut f = Ref::from_params(&p);
                f.prev_rtt = st.prev_rtt as f64;
                f.neg_gradient_count = st.neg as i64;
                f.avg_rtt_diff = st.avg as f64 / 4096.0;
                let t0 = (1u64 << 40) as f64;
                f.last_update_time = t0;
                let old = st.rate as f64 * lsb;
                let fr = f.get_new_rate(rtt as f64, old, t0 + dt as f64);
                assert_eq!(
                    (r.branch, r.hai),
                    (f.branch, f.hai),
                    "{p:?} {st:?} {rtt} {dt}"
                );
                assert_eq!(gold.neg.min(15), f.neg_gradient_count.min(15) as u32);
                let d = (gold.rate as f64 * lsb - fr).abs() - lsb;
                seen[r.branch as usize] += 1;
                seen[4] += r.hai as usize;
                match r.branch {
                    branch::ABOVE_T_HIGH | branch::GRADIENT_POSITIVE => ex = ex.max(d / old),
                    _ => {
                        let m = if r.hai { p.hai_n } else { 1 };
                        ed = ed.max(d / (m * p.ai) as f64);
                    }
                }
            }
            (ex, ed, seen)
        }

        /// Measured per-update bounds, rounded outward: `|golden - float|
        /// <= E_X old + E_D m ai + 2^-12` rate units.
        const E_X: f64 = 1.42e-5;
        const E_D: f64 = 1.59e-5;

        #[test]
        fn one_update_tracks_the_authors_code() {
            let (ex, ed, seen) = one_update_error(3_000_000);
            println!("one update: E_x = {ex:.4e}, E_d = {ed:.4e}; branches {seen:?}");
            assert!(seen.iter().all(|&n| n > 10_000), "{seen:?}");
            assert!(ex <= E_X && ed <= E_D, "{ex} {ed}");
        }

        /// One flow's RTT samples, in regimes of 1 to 3,000 events: below
        /// `t_low`, above `t_high`, rising, falling, flat with noise, and
        /// exactly constant.
        #[derive(Clone, Copy, Default)]
        struct Drive {
            rtt: u32,
            regime: u32,
            left: u32,
        }

        impl Drive {
            fn next(&mut self, g: &mut Gen, p: &TimelyParams) -> u32 {
                if self.left == 0 {
                    self.left = 1 + g.below(3000);
                    self.regime = g.below(6);
                    if self.rtt == 0 {
                        self.rtt = p.t_low + g.below(p.t_high - p.t_low);
                    }
                }
                self.left -= 1;
                let band = |r: i64| r.clamp(p.t_low as i64, p.t_high as i64) as u32;
                let noise = g.below(2001) as i64 - 1000;
                let r = self.rtt as i64;
                self.rtt = match self.regime {
                    0 => p.min_rtt + g.below(p.t_low - p.min_rtt),
                    1 => p.t_high + 1 + g.below(3 * p.t_high),
                    2 => band(r.max(p.t_low as i64) + g.below(3000) as i64 + noise / 2),
                    3 => band(r.min(p.t_high as i64) - g.below(3000) as i64 + noise / 2),
                    4 => band(r + noise),
                    _ => self.rtt,
                };
                self.rtt
            }
        }

        /// What [`trace_error`] saw.
        #[derive(Debug, Default, Clone, Copy)]
        struct TraceStats {
            /// Events accepted.
            events: usize,
            /// Largest `|golden - float| / float` of the rate after an event.
            worst: f64,
            /// The same over the events of a flow before its first branch
            /// difference.
            worst_before_flip: f64,
            /// Events with a relative error above `1e-3`.
            above_1e3: usize,
            /// Events whose branch differs from the float's.
            flips: usize,
            /// Events of a flow within `LAG` cycles of its previous one.
            close: usize,
            /// Largest `|lagged - plain| / plain`: the model's rate against
            /// the plain rule (`rate_lag = rate`) from the same state.
            lag_worst: f64,
            /// Events whose lagged rate differs from the plain one.
            lag_differs: usize,
            /// Events per branch.
            branches: [usize; 4],
        }

        /// Random events of 64 flows (4 hot) through the cycle model, each
        /// flow's events also through its own `getNewRate` (rate and state
        /// of its own, time unwrapped; the model's crosses `2^32`).
        /// `spaced`: a flow's events are at least `LAG` cycles apart (an
        /// event that would not be is dropped); else bursts of one flow come
        /// back to back. `share_avg`: the float's `avgRTTDiff_` is set to
        /// the model's `avg` before each event (so the branches agree, and
        /// the rates' difference is the rate arithmetic's alone).
        fn trace_error(
            p: TimelyParams,
            seed: u32,
            cycles: usize,
            spaced: bool,
            share_avg: bool,
        ) -> TraceStats {
            let mut g = Gen(seed);
            let mut tx = Timely::new(TimelyConfig {
                shape: TimelyShape { flow_bits: 8 },
                reset: p,
            })
            .unwrap();
            while !tx.ready() {
                tx.step(&TimelyIn::default());
            }
            let flows = 64usize;
            let mut drive = vec![Drive::default(); flows];
            let mut refs: Vec<(Ref, f64, bool)> = (0..flows)
                .map(|_| (Ref::from_params(&p), p.init_rate as f64, false))
                .collect();
            let mut last: Vec<Option<u64>> = vec![None; flows];
            let mut t = (1u64 << 32) - 50_000_000; // wraps after about 500,000 cycles
            let (mut burst, mut burst_flow) = (0, 0usize);
            let mut st = TraceStats::default();
            for n in 0..cycles as u64 {
                t += g.below(200) as u64;
                if g.below(5000) == 0 {
                    t += g.below(4 * p.min_rtt) as u64; // an idle stretch
                }
                let mut flow = if g.below(2) == 0 {
                    g.below(4) as usize
                } else {
                    g.below(flows as u32) as usize
                };
                if !spaced {
                    if burst == 0 && g.below(50) == 0 {
                        (burst, burst_flow) = (1 + g.below(8), flow);
                    }
                    if burst > 0 {
                        burst -= 1;
                        flow = burst_flow;
                    }
                }
                let close = last[flow].is_some_and(|l| n < l + LAG);
                let valid = (g.below(4) != 0 || burst > 0) && !(spaced && close);
                let rtt = drive[flow].next(&mut g, &p);
                // The plain rule from the state before the event.
                let before = tx.flow(flow as u32);
                let rl = tx.rate_lag(flow as u32);
                let mut plain = before.unwrap_or(FlowState::fresh(tx.regs()));
                let plain_rate0 = plain.rate;
                let pr = plain.event(tx.regs(), rtt, t as u32, before.is_none(), plain.rate);
                tx.step(&TimelyIn {
                    ev_valid: valid,
                    ev_flow: flow as u32,
                    ev_rtt: rtt,
                    ev_time: t as u32,
                    ..TimelyIn::default()
                });
                if !valid {
                    continue;
                }
                st.events += 1;
                st.close += close as usize;
                last[flow] = Some(n);
                let lagged = tx.flow(flow as u32).unwrap().rate;
                // The lag moves the result by at most the product's change
                // (the clamps move nothing further apart).
                let base = before.map_or(plain_rate0, |b| b.rate);
                let d = ((u64::from(rl).abs_diff(u64::from(base)) * u64::from(pr.x))
                    >> X_FRAC_BITS)
                    + 1;
                assert!(
                    u64::from(lagged).abs_diff(u64::from(plain.rate)) <= d,
                    "cycle {n}"
                );
                let dev = (lagged as f64 - plain.rate as f64).abs() / plain.rate as f64;
                st.lag_worst = st.lag_worst.max(dev);
                st.lag_differs += (lagged != plain.rate) as usize;
                let (f, fr, flipped) = &mut refs[flow];
                if share_avg {
                    f.avg_rtt_diff = before.map_or(0.0, |b| b.avg as f64 / 4096.0);
                }
                *fr = f.get_new_rate(rtt as f64, *fr, t as f64);
                st.branches[pr.branch as usize] += 1;
                if pr.branch != f.branch {
                    st.flips += 1;
                    *flipped = true;
                }
                let rel = (lagged as f64 / 4096.0 - *fr).abs() / *fr;
                st.worst = st.worst.max(rel);
                if !*flipped {
                    st.worst_before_flip = st.worst_before_flip.max(rel);
                }
                st.above_1e3 += (rel > 1e-3) as usize;
            }
            st
        }

        /// The trace registers: the defaults (a 10 Gb/s line, gain 1/64),
        /// and a wide range of rates with gain 1/8 and `ai` 50.
        fn trace_params() -> [(&'static str, TimelyParams); 2] {
            let wide = TimelyParams {
                min_rate: 1,
                max_rate: (1 << 19) - 1,
                init_rate: 10_000,
                ai: 50,
                ewma_shift: 3,
                ..TimelyParams::default()
            };
            [("default", TimelyParams::default()), ("wide", wide)]
        }

        /// Measured bound over a trace with the gradient shared, rounded
        /// outward: `|golden - float| / float` of every rate; the default
        /// and wide registers.
        const TRACE_REL: [f64; 2] = [1.81e-3, 1.09e-3];

        /// Over long traces (a flow's events `LAG` or more cycles apart),
        /// with the float's `avg` set to the model's before each event, the
        /// rates stay within [`TRACE_REL`] of each other.
        #[test]
        fn traces_track_the_authors_code() {
            for (k, (name, p)) in trace_params().into_iter().enumerate() {
                let s = trace_error(p, 0x600d_5eed, 1_000_000, true, true);
                println!("{name}, spaced, gradient shared: {s:?}");
                assert_eq!((s.flips, s.close, s.lag_differs), (0, 0, 0));
                assert!(s.branches.iter().all(|&b| b > 50_000), "{s:?}");
                assert!(s.worst <= TRACE_REL[k], "{s:?}");
            }
        }

        /// Measured bound over a trace with the float's own gradient, until
        /// a flow's first branch difference, and the most such differences
        /// per 10^6 events (rounded outward); the default and wide
        /// registers.
        const TRACE_OWN: [(f64, usize); 2] = [(1.66e-3, 158), (1.09e-3, 2)];

        /// With the float's own gradient, branches differ only where the
        /// float's `avg` is within the model's rounding of 0 (rare); until a
        /// flow's first such difference its rates keep the shared bound.
        #[test]
        fn traces_with_their_own_gradient_differ_only_after_a_sign_flip() {
            for (k, (name, p)) in trace_params().into_iter().enumerate() {
                let s = trace_error(p, 0x600d_5eed, 1_000_000, true, false);
                println!("{name}, spaced, own gradient: {s:?}");
                let (rel, flips) = TRACE_OWN[k];
                assert!(s.worst_before_flip <= rel, "{s:?}");
                assert!(s.flips * 1_000_000 <= flips * s.events, "{s:?}");
            }
        }

        /// Back to back, the decrease's product from the rate of `LAG`
        /// cycles before: its largest relative deviation from the plain
        /// rule, measured, rounded outward; the default and wide registers.
        const LAG_REL: [f64; 2] = [2.82e-2, 7.84e-2];

        /// Bursts of one flow back to back: the lag changes only events
        /// within `LAG` cycles of the flow's previous one, by at most
        /// [`LAG_REL`]; the trace's distance from the float is printed.
        #[test]
        fn back_to_back_events_deviate_by_the_lag_alone() {
            for (k, (name, p)) in trace_params().into_iter().enumerate() {
                let s = trace_error(p, 0x0b2b_0b2b, 1_000_000, false, true);
                println!("{name}, back to back, gradient shared: {s:?}");
                assert!(s.close > 100_000 && s.lag_differs > 1000, "{s:?}");
                assert!(s.lag_differs <= s.close);
                assert!(s.lag_worst <= LAG_REL[k], "{s:?}");
            }
        }

        /// A flow's rate controller in the closed loop: the float code with
        /// its rate, or the golden rule (plain: the loop's events are
        /// microseconds apart) with its state.
        enum Ctl {
            Float(Ref, f64),
            Golden(Option<FlowState>),
        }

        impl Ctl {
            /// The rate after an event (rate units).
            fn event(&mut self, p: &TimelyParams, rtt: f64, now: f64) -> f64 {
                match self {
                    Ctl::Float(f, r) => {
                        *r = f.get_new_rate(rtt, *r, now);
                        *r
                    }
                    Ctl::Golden(st) => {
                        let first = st.is_none();
                        let s = st.get_or_insert(FlowState::fresh(p));
                        s.event(p, rtt as u32, now as u64 as u32, first, s.rate);
                        s.rate as f64 / 4096.0
                    }
                }
            }
        }

        /// What one run of [`closed_loop`] measured, after its first 200 ms.
        #[derive(Debug)]
        struct LoopStats {
            /// Bytes served over what the link could serve.
            utilisation: f64,
            /// Queueing delay, µs: mean, 99th percentile, standard deviation.
            q_mean: f64,
            q_p99: f64,
            q_std: f64,
            /// Jain's index of the flows' bytes.
            jain: f64,
            /// Events per flow per second.
            events_per_s: f64,
        }

        /// `n` backlogged flows through one 10 Gb/s bottleneck, 1 s of 1 µs
        /// steps: each flow sends at its rate, a 64 KB segment's completion
        /// comes back after the RTT it saw (20 µs base, the queue's delay,
        /// and up to 1 µs of jitter; the sample saturated at `2^24 - 1`
        /// ns), and its controller gives the new rate.
        /// Registers `p` (its `ewma_shift` ignored by a float controller
        /// built with its own gain).
        fn closed_loop(p: &TimelyParams, n: usize, mut ctl: Vec<Ctl>) -> LoopStats {
            let mut g = Gen(0x1005_eed5);
            let line = 10_000.0 / 8_000.0; // bytes per ns at 10 Gb/s
            let (base, seg, step) = (20_000.0, 65_536.0, 1_000.0);
            let mut rate = vec![p.init_rate as f64; n];
            let mut sent = vec![0f64; n];
            let mut pending: Vec<std::collections::VecDeque<(f64, f64)>> =
                vec![Default::default(); n];
            let mut q = 0f64;
            let (mut served, mut qs, mut bytes, mut events) = (0f64, vec![], vec![0f64; n], 0usize);
            let t0 = (1u64 << 31) as f64; // timestamps start above min_rtt
            let steps = 1_000_000;
            for k in 0..steps {
                let t = t0 + k as f64 * step;
                let warm = k >= steps / 5;
                let mut arrive = 0.0;
                for f in 0..n {
                    let b = rate[f] / 8_000.0 * step;
                    arrive += b;
                    sent[f] += b;
                    if warm {
                        bytes[f] += b;
                    }
                    if sent[f] >= seg {
                        sent[f] -= seg;
                        // The RTT source saturates at the port's 24 bits.
                        let rtt = (base + q / line + g.below(1000) as f64)
                            .floor()
                            .min(((1 << RTT_BITS) - 1) as f64);
                        pending[f].push_back((t + rtt, rtt));
                    }
                    while pending[f].front().is_some_and(|c| c.0 <= t) {
                        let (_, rtt) = pending[f].pop_front().unwrap();
                        rate[f] = ctl[f].event(p, rtt, t);
                        events += warm as usize;
                    }
                }
                let out = (q + arrive).min(line * step);
                q = q + arrive - out;
                if warm {
                    served += out;
                    qs.push(q / line / 1000.0);
                }
            }
            let secs = 0.8;
            let mean = qs.iter().sum::<f64>() / qs.len() as f64;
            let var = qs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / qs.len() as f64;
            qs.sort_by(f64::total_cmp);
            let (sb, sb2) = (
                bytes.iter().sum::<f64>(),
                bytes.iter().map(|b| b * b).sum::<f64>(),
            );
            LoopStats {
                utilisation: served / (line * 1e9 * secs),
                q_mean: mean,
                q_p99: qs[qs.len() * 99 / 100],
                q_std: var.sqrt(),
                jain: sb * sb / (n as f64 * sb2),
                events_per_s: events as f64 / n as f64 / secs,
            }
        }

        /// The EWMA gain: the authors' 0.02 against the powers of two the
        /// block offers (1/32, 1/64), in the float code, and the golden
        /// rule at 1/32 and 1/64, in the closed loop of [`closed_loop`] (10
        /// and 40 flows, default registers). Prints the table of
        /// docs/timely.md; asserts only that every run is sane (the link
        /// busy, the queue bounded).
        #[test]
        fn ewma_gain_in_a_closed_loop() {
            let p = TimelyParams::default();
            println!("flows  controller      util    q mean   q p99   q std    jain  events/s");
            for n in [10, 40] {
                for (name, gain, golden) in [
                    ("float 0.02", 0.02, false),
                    ("float 1/32", 1.0 / 32.0, false),
                    ("float 1/64", 1.0 / 64.0, false),
                    ("golden 1/32", 1.0 / 32.0, true),
                    ("golden 1/64", 1.0 / 64.0, true),
                ] {
                    let pk = TimelyParams {
                        ewma_shift: if gain < 0.02 { 6 } else { 5 },
                        ..p
                    };
                    let ctl = (0..n)
                        .map(|_| {
                            if golden {
                                Ctl::Golden(None)
                            } else {
                                let mut f = Ref::from_params(&pk);
                                f.ewma_alpha = gain;
                                Ctl::Float(f, pk.init_rate as f64)
                            }
                        })
                        .collect();
                    let s = closed_loop(&pk, n, ctl);
                    println!(
                        "{n:5}  {name:12}  {:6.4}  {:7.1}  {:6.1}  {:6.1}  {:6.4}  {:8.0}",
                        s.utilisation, s.q_mean, s.q_p99, s.q_std, s.jain, s.events_per_s
                    );
                    assert!(s.utilisation > 0.5 && s.q_p99 < 5_000.0, "{s:?}");
                }
            }
        }
    }
}
