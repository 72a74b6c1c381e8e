//! RCC_SCHED — the regional congestion control's window scheduler at one
//! switch output.
//!
//! Implements `../shared/ALGORITHMS.md` §"Regional congestion mitigation
//! (RCM) switch", RCC item, which restates seed 002 §3.4 (equations 3-6):
//! `W = Wc + Wnc`; on congestion `Wc = Wc (1 - Fb Gd)` with `Fb_max Gd =
//! 1/2`; once the congestion flows have sent `Wc` in the current window they
//! wait until the whole `W` is sent; the scheduler quits when congestion
//! clears. The contract is `docs/rcc_sched.md`; this module implements it, with
//! the choices listed under "Decisions" below.
//!
//! Two classes share the output: `c`, the congestion flows (CAM hits), and
//! `n`, the rest. The block grants at most one head packet per cycle.
//! Packet lengths are bytes, [`LEN_BITS`] = 14 bits.
//!
//! # The rule, on the clock-cycle count
//! State: the mode (normal or window), `Wc`, the byte counters `sent` and
//! `sent_c`, `last`, the class granted last, and the current window's `Ww`
//! and `Lw`, its `W` and `min(Wc, W)`; besides them, the degree update in
//! flight, the pending degree and the staged register writes (see
//! "Timing"). `W` is the `window` register in force, read as 1 when it is 0;
//! `wc_min` is the other register.
//!
//! *Grant* in cycle `t` (no reset, `out_ready` high), on the state at the
//! start of `t`:
//! - normal mode: both classes valid: the class not granted last (after a
//!   reset `last = c`, so `n` goes first); one valid: that one;
//! - window mode: `c` is *eligible* iff `sent_c < Lw`. Both valid:
//!   eligible: alternate as in normal mode, not eligible: `n`. Only `c`
//!   valid: `c` (work-conserving); only `n` valid: `n`.
//!
//! `last` is set to the granted class on every grant, in both modes.
//!
//! *Accounting* of a grant of `L` bytes in window mode (none in normal
//! mode): `sent += L`; if `c` was granted while eligible, `sent_c += L` (a `c`
//! packet granted while not eligible counts against `Wnc` only); then if
//! `sent >= Ww`, the window ends: `sent = sent_c = 0`.
//!
//! *Window start*: a window starts in cycle `t + 1` when the accounting of
//! `t` ends one, or when an entry (below) is applied at the end of `t`. It
//! takes the `W` and `min(Wc, W)` in force in `t + 1`, i.e. after the
//! degree update and the register write applied at the end of `t`: `Ww =
//! W`, `Lw = min(Wc, W)`. It keeps them to its end: a cut applied, or a
//! write of `window` coming in force, in mid-window changes the registers
//! (and the status, which shows them) at once, and the running window only
//! from the next one. So `sent < Ww` always in window mode.
//!
//! *Degree update* (`fb_valid`, `Fb` = `fb`, 8 bits), taken in cycle `t0`
//! (see "Timing" for when an update is taken) and applied at the end of
//! cycle `t0 + 8`, after the accounting of that cycle's grant. It reads, at
//! the start of `t0`, `quit = (Fb == 0)`, `entry = !quit && mode == normal`
//! and the operand `a = floor(W / 2)` if `entry` (the `W` in force in `t0`),
//! else `Wc`; then `prod = floor(a (512 - Fb) / 512)` (`Gd = 1/512`; `Fb`
//! is at most 255, so a cut removes at most 255/512); in cycle `t0 + 6`,
//! `wcn = max(prod, wc_min)` with the `wc_min` in force in `t0 + 6`. Applied:
//! - `quit`: mode = normal (`Wc` is kept, unused; the counters freeze);
//! - `entry`: mode = window, `Wc = wcn`, `sent = sent_c = 0`: a window
//!   starts in `t0 + 9`;
//! - otherwise (a cut): mode = window, `Wc = wcn` (the running window keeps
//!   its `Lw`; the next one takes the cut).
//!
//! With no write in between, an entry thus leaves `Wc = max(wc_min,
//! floor(floor(W / 2) (512 - Fb) / 512))` and a cut `Wc = max(wc_min,
//! floor(Wc (512 - Fb) / 512))`, the rule of the seed's eq. 5.
//!
//! # Timing (the interface contract the RTL must meet)
//! - `c_ready` / `n_ready` are the grant of the cycle and are combinational:
//!   a function of the state and of the cycle's `rst`, `c_valid`, `n_valid`
//!   and `out_ready` only (never of the lengths, `fb` or `cfg`). At most one
//!   is high; neither is high without its valid, with `out_ready` low or in a
//!   reset cycle. The length of the granted class is read in the same cycle.
//! - `window`, `wc` and `wnc` are registered (state only): `window` is the
//!   mode; `wc = min(Wc, W)` in window mode and `W` in normal mode; `wnc =
//!   W - wc`. `W` here is the register in force read as 1 when 0: the
//!   status shows the registers in force, not the running window's `Ww` and
//!   `Lw`.
//! - The accounting of cycle `t`'s grant is seen from `t + 1` (the grant and
//!   the accounting form a one-cycle loop).
//! - A register write (`cfg_valid`, `cfg_addr`, `cfg_data`) in cycle `t` is
//!   staged for two cycles and applied at the end of `t + 2`: it is in force
//!   from `t + 3` ([`WRITE_LATENCY`]). A take's `W / 2`, a floor's `wc_min`
//!   and the status of cycles `t`, `t + 1` and `t + 2` use the old value,
//!   and so does a window that starts in `t + 2` or earlier (to its end); a
//!   window that starts in `t + 3` or later takes the new one. Writes in
//!   consecutive cycles are
//!   applied in consecutive cycles, in order, each at the end of its own
//!   `t + 2`. Addresses not in the map are ignored, as are data bits above a
//!   register's width (`win_bits`).
//! - Degree updates go through a 9-stage pipeline ([`DEGREE_LATENCY`]) with
//!   one pending slot. In cycle `t` (no reset), `newest` is the cycle's
//!   update if `fb_valid`, else the pending one if any. The pipeline is
//!   *free* in `t` iff no update was taken in `t - 8 ..= t - 1`. If it is free
//!   and `newest` exists, `newest` is *taken* in `t` and the pending slot
//!   empties; if it is not free, the pending slot becomes `newest` (a later
//!   update overwrites an earlier pending one; `fb_valid` low leaves it as
//!   it is). An update taken in `t0` is floored in `t0 + 6`
//!   ([`DEGREE_FLOOR_STAGE`]), applied at the end of `t0 + 8` and seen by
//!   the status and a take from `t0 + 9`, when the pipeline is free again
//!   (it is busy from `t0` to `t0 + 8`); by the grants and the accounting,
//!   a cut from the first window that starts in `t0 + 9` or later, an entry
//!   and a quit in `t0 + 9`.
//! - Order at the end of a cycle: the accounting of its grant, then the
//!   degree update completing in it, then the write of cycle `t - 2` (the
//!   older staged one), then, if a window starts in the next cycle, its `Ww`
//!   and `Lw` from the registers now in force, then the staging of its own
//!   write (the write of `t - 1` moves on one stage), then the take, which
//!   reads the state of the start of the cycle (mode, `Wc`, `W` in force).
//! - `rst` in cycle `t`: normal mode, `Wc = floor(W_reset / 2)`, `sent =
//!   sent_c = 0`, `last = c`, registers to their reset values; the staged
//!   writes (those of `t - 2` and `t - 1`), the pending degree and the update
//!   in flight are dropped. Every other input of a reset cycle is ignored (no
//!   grant, no degree update, no write). The outputs during the reset cycle
//!   are its grant (none) and the status registered before it.
//! - The model starts as if a reset had been applied in the cycle before its
//!   first step.
//! - Only the low port-width bits of each input are ports: 14 of `c_len` and
//!   `n_len`, 8 of `fb`, 2 of `cfg_addr`, 24 of `cfg_data` (of which the low
//!   `win_bits` are a register's value).
//!
//! Why a window keeps its `Ww` and `Lw`, and why these latencies (200 MHz
//! on ECP5): the accounting loop (the grant, the next counters, the
//! window's end) is one cycle. The RTL keeps no byte counters: it holds the
//! rule's two tests as running differences, `nl = sent - Ww` (a grant of
//! `L` ends the window iff `nl + L >= 0`) and `cr = Lw - sent_c - 1` (`c`
//! is eligible iff `cr >= 0`). With `Ww` and `Lw` fixed for a window, each
//! next value is a two-operand sum of a register and a packet length (`nl +
//! L`, `cr - Lc`), so the loop is one carry chain and a mux; were a cut or
//! a write to act in mid-window, the next value would have three varying
//! operands, a carry-save level more (measured at about 170 MHz). A new
//! window loads `-W` and `min(Wc, W) - 1` of its first cycle, which the RTL
//! keeps as registers of the next cycle's values (`nw1`, `lim1`), loaded
//! one cycle ahead. Computing the next cycle's `min(Wc, W)` a cycle ahead
//! needs a new `Wc` and a new `W` one cycle earlier still, hence one more
//! cycle on each path: on the degree path after the floor (`t0 + 7` loads
//! the next cycle's `Wc` and `min(Wc, W)`, `t0 + 8` applies), on the write
//! path after the staging (the staging computes a written `window`'s "0
//! reads as 1" and its negation; the stage after it loads them as the next
//! cycle's `W`). The cut's `win_bits x 9`-bit multiply is an adder tree of
//! five pipeline levels (`t0 + 1` to `t0 + 5`) and the floor by `wc_min` is
//! one stage (`t0 + 6`).
//!
//! Consequences: an update that arrives while another is in flight waits in
//! the pending slot, so of the updates arriving during one flight only the
//! last is applied; the last update of a burst is never lost and is seen 9 to
//! 17 cycles after it arrives; a quit also takes 9 cycles. crd samples each
//! queue, so each output's degree, once per sample period of at least
//! [`crate::crd::PERIOD_MIN`] = 16 cycles, more than 9, so with crd's degrees
//! the pipeline is always free when one comes. A cut seen from `t0 + 9`
//! reaches the grants when the running window ends: at most one window
//! later (its `Ww` bytes, plus the last packet's excess; 2.6 µs of a busy
//! 100 Gb/s link at the default 32768), on top of the 9 cycles of the
//! pipeline.
//!
//! # Register map ([`RccSchedShape::registers`]; `cfg_addr` 2 bits, `cfg_data` 24 bits)
//! | addr | name | bits | reset | meaning |
//! |---|---|---|---|---|
//! | 0 | `window` | `win_bits` | 32768 | `W`, bytes; 0 acts as 1 |
//! | 1 | `wc_min` | `win_bits` | 2048 | floor of `Wc` after a cut, bytes |
//!
//! # Decisions the contract left open
//! - **Reset value of `Wc`**: `floor(max(window_reset, 1) / 2)` (16384 with
//!   the default registers). It is never visible on the ports: in normal
//!   mode the status shows `W`, and entering window mode overwrites `Wc`.
//!   Only [`RccSched::wc_reg`] shows it.
//! - **`W` = 0**: every use of `W` (a window's `Ww` and `Lw`, entry's
//!   `W / 2`, the status outputs) reads the register 0 as 1. So a window
//!   that takes a `window` of 0 has `Ww = 1`, `Lw = 0`: `c` is not eligible
//!   and every grant of at least one byte ends it; entry sets the operand to
//!   0 (then `wc_min` floors it), and the status shows `wc + wnc = 1`.
//! - **Packets of 0 bytes** (an `L` of 0 in the 14-bit port) are granted as
//!   any other and count 0 bytes; they never end a window (`sent < Ww`).
//! - **A cut, or a write of `window`, in mid-window**: the registers and
//!   the status change at once, the running window keeps its `Ww` and `Lw`
//!   to its end and the next takes the new values. A `W` lowered below
//!   `sent` thus ends nothing early, and a `c` above a cut `Wc` but below
//!   `Lw` stays eligible to the window's end.
//! - **`Wc` above `W`** (possible after a write of `window` or a large
//!   `wc_min`): only `min(Wc, W)` is used (a window's `Lw`, the status);
//!   `Wc` itself is kept.
//! - **`last` after a degree update**: untouched (it changes on grants only);
//!   a window entry does not restart the alternation.
//! - **A write to an address not in the map** is not staged
//!   ([`RccSched::staged_write`] stays `None`, and so does its stage in
//!   [`RccSched::staged_writes`]).
//!
//! # Invariants ([`RccSched::check_invariants`])
//! Stored `sent`, `sent_c` and `Wc` fit `win_bits`; in window mode `sent <
//! Ww` ([`RccSched::window_w`], at most `2^win_bits - 1`); `sent_c <=
//! sent`; `Lw <= Ww`; and the window's `c` overshoot is bounded, whatever
//! cut or write came in mid-window: `sent_c < Lw + L_MAX`
//! ([`RccSched::window_c_limit`]; `L_MAX = 2^14 - 1` the longest packet),
//! i.e. `sent_c <= Lw + 2^LEN_BITS - 2` (`tests` reach equality), as `c` is
//! counted only while `sent_c < Lw`. The update in flight is at most 8
//! cycles old, and its floored `Wc` exists from the end of its floor stage
//! on.
//!
//! # Float reference ([`mod@reference`])
//! `Wc` after `k` cuts in reals (from the entry's `W / 2`) against the
//! integer `Wc` (floors): the integer is never above the real and at most
//! `0.5 + k (511/512)` bytes below it (proved, and asserted over 2,000 random
//! sequences of 64 cuts; measured worst 30.2 bytes after 64 cuts, 0.995 byte
//! per cut with a small `Wc` and a small `Fb`; relative error at most 2.8e-3
//! while `Wc > 4096`). The long-run share of class `c`'s bytes with both
//! classes backlogged is `min(Wc, W) / W` when the window binds (else the
//! alternation's `mean_c / (mean_c + mean_n)`), over windows that took that
//! `min(Wc, W)` (a window keeps the one of its first cycle); the model's
//! share differs from it by the per-window packet overshoots, always by
//! less than `L_max / W` (asserted): measured +0.0000 with 64-byte packets,
//! +0.008 with an IMIX, +0.034 with 1500-byte packets and +0.107 with
//! 9000-byte jumbos, at `W = 32768` (smaller at the larger `W`).

use crate::error::ParamError;
use crate::mask;
pub use crate::register::Register;

/// Width of a packet length in bytes (`c_len`, `n_len`).
pub const LEN_BITS: u32 = 14;
/// The longest packet, `2^LEN_BITS - 1` bytes.
pub const L_MAX: u32 = (1 << LEN_BITS) - 1;
/// Width of the congestion degree `Fb` (`fb`).
pub const FB_BITS: u32 = 8;
/// `Gd = 1 / 2^GD_SHIFT`: a cut multiplies `Wc` by `(512 - Fb) / 512`.
pub const GD_SHIFT: u32 = 9;
/// Width of `cfg_addr`.
pub const CFG_ADDR_BITS: u32 = 2;
/// Width of `cfg_data`.
pub const CFG_DATA_BITS: u32 = 24;
/// Cycles from the take of a degree update (cycle `t0`) to the first cycle
/// that sees it (`t0 + 9`); it is applied at the end of `t0 + 8`. Also the
/// spacing of takes: the pipeline is free again in `t0 + 9`.
pub const DEGREE_LATENCY: u32 = 9;
/// The pipeline stage, in cycles after the take, whose `wc_min` floors a
/// cut: the `wc_min` in force in `t0 + 6`.
pub const DEGREE_FLOOR_STAGE: u32 = 6;
/// Cycles from a register write (cycle `t`) to the first cycle it is in
/// force (`t + 3`); it is applied at the end of `t + 2`.
pub const WRITE_LATENCY: u32 = 3;
/// The stages a write waits in before it is applied.
const WRITE_STAGES: usize = WRITE_LATENCY as usize - 1;

/// The shape menu, written once: the window widths the RTL can be generated
/// with. `rcc_sched_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [window widths] }`.
#[macro_export]
macro_rules! rcc_sched_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [16, 20, 24] }
    };
}

macro_rules! menu_constants {
    (() ; [$($w:literal),*]) => {
        /// Widths of `W`, `Wc`, `Wnc` and the byte counters the RTL can be
        /// generated with.
        pub const SUPPORTED_WIN_BITS: &[u32] = &[$($w),*];
    };
}
rcc_sched_shape_menu!([menu_constants];);

/// Generation-time (structural) sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RccSchedShape {
    /// Width of `W`, `Wc`, `Wnc`, the byte counters and the registers.
    pub win_bits: u32,
}

impl Default for RccSchedShape {
    fn default() -> Self {
        // Windows to 1 MiB - 1 bytes.
        RccSchedShape { win_bits: 20 }
    }
}

impl RccSchedShape {
    pub fn validate(&self) -> Result<(), ParamError> {
        if !SUPPORTED_WIN_BITS.contains(&self.win_bits) {
            return Err(ParamError::new(
                "win_bits",
                format!(
                    "{} is not supported; choose one of {SUPPORTED_WIN_BITS:?}",
                    self.win_bits
                ),
            ));
        }
        Ok(())
    }

    /// The largest value of a register, `W`, `Wc` or a stored counter,
    /// `2^win_bits - 1`.
    pub fn win_max(&self) -> u32 {
        mask(self.win_bits)
    }

    /// The register map of this shape (the widths are `win_bits`).
    pub fn registers(&self) -> [Register; 2] {
        let mut r = [REGISTERS[0], REGISTERS[1]];
        for r in &mut r {
            r.bits = self.win_bits;
        }
        r
    }
}

/// The register map for the widest shape (`win_bits` = 24); a shape's own
/// widths are [`RccSchedShape::registers`]. A write of an address not here
/// is ignored; data bits above `win_bits` are ignored.
pub const REGISTERS: &[Register] = &[
    Register {
        addr: 0,
        name: "window",
        bits: 24,
        doc: "W, bytes (win_bits wide); 0 acts as 1",
    },
    Register {
        addr: 1,
        name: "wc_min",
        bits: 24,
        doc: "floor of Wc after a cut, bytes (win_bits wide)",
    },
];

/// Runtime parameters: the registers (reset values, or values in force).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RccSchedParams {
    /// `W`, bytes (0 acts as 1).
    pub window: u32,
    /// Floor of `Wc` after a cut, bytes.
    pub wc_min: u32,
}

impl RccSchedParams {
    /// Reset values: a window of 32,768 bytes, `wc_min` 2,048, each clamped
    /// to the largest value its register holds.
    pub fn reset_for(shape: &RccSchedShape) -> RccSchedParams {
        RccSchedParams {
            window: 32_768.min(shape.win_max()),
            wc_min: 2_048.min(shape.win_max()),
        }
    }

    /// Refuses, by name, a value that does not fit its register.
    pub fn validate(&self, shape: &RccSchedShape) -> Result<(), ParamError> {
        for (name, v) in [("window", self.window), ("wc_min", self.wc_min)] {
            if v > shape.win_max() {
                return Err(ParamError::new(
                    name,
                    format!(
                        "{v} does not fit win_bits = {} (max {})",
                        shape.win_bits,
                        shape.win_max()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The value of the register at `addr`; `None` for an address not in
    /// the map.
    pub fn read(&self, addr: u32) -> Option<u32> {
        match addr {
            0 => Some(self.window),
            1 => Some(self.wc_min),
            _ => None,
        }
    }

    /// A register write as the hardware takes it: `addr` and `data` cut to
    /// their port widths, the value to `win_bits`; `false` for an address not
    /// in the map (nothing written).
    pub fn write(&mut self, shape: &RccSchedShape, addr: u32, data: u32) -> bool {
        let v = data & mask(CFG_DATA_BITS) & shape.win_max();
        match addr & mask(CFG_ADDR_BITS) {
            0 => self.window = v,
            1 => self.wc_min = v,
            _ => return false,
        }
        true
    }

    /// `W` as the rule uses it: the `window` register, 0 read as 1.
    pub fn w(&self) -> u32 {
        self.window.max(1)
    }
}

/// Generation-time configuration: sizes, and the registers' reset values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RccSchedConfig {
    pub shape: RccSchedShape,
    pub reset: RccSchedParams,
}

impl Default for RccSchedConfig {
    fn default() -> Self {
        let shape = RccSchedShape::default();
        RccSchedConfig {
            shape,
            reset: RccSchedParams::reset_for(&shape),
        }
    }
}

impl RccSchedConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate(&self.shape)
    }
}

/// The two classes at the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Congestion flows (CAM hits).
    C,
    /// Every other flow.
    N,
}

impl Class {
    pub fn other(self) -> Class {
        match self {
            Class::C => Class::N,
            Class::N => Class::C,
        }
    }
}

/// The scheduler's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// No congestion: plain alternation, counters frozen.
    Normal,
    /// The window scheduler runs.
    Window,
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
/// Only the low port-width bits of each field are ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RccSchedIn {
    pub rst: bool,
    /// Class `c` has a head packet.
    pub c_valid: bool,
    /// Its length, bytes (low 14 bits).
    pub c_len: u32,
    /// Class `n` has a head packet.
    pub n_valid: bool,
    /// Its length, bytes (low 14 bits).
    pub n_len: u32,
    /// The output link takes a packet this cycle.
    pub out_ready: bool,
    /// A congestion degree of this output comes in.
    pub fb_valid: bool,
    /// `Fb`, 0 = congestion cleared (low 8 bits).
    pub fb: u32,
    pub cfg_valid: bool,
    /// Register address (low 2 bits; the map is [`REGISTERS`]).
    pub cfg_addr: u32,
    /// Value (low 24 bits; bits above `win_bits` ignored).
    pub cfg_data: u32,
}

/// Outputs during one clock cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RccSchedOut {
    /// `c`'s head packet is granted this cycle (combinational).
    pub c_ready: bool,
    /// `n`'s head packet is granted this cycle (combinational).
    pub n_ready: bool,
    /// Window mode is on (registered).
    pub window: bool,
    /// `min(Wc, W)` in window mode, `W` in normal mode (registered).
    pub wc: u32,
    /// `W - wc` (registered).
    pub wnc: u32,
}

/// The degree update in the pipeline ([`RccSched::in_flight`]). Neither
/// `entry` nor `quit`: a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DegreeInFlight {
    /// `Fb` (8 bits).
    pub fb: u32,
    /// `Fb > 0` taken in normal mode: enters window mode from `floor(W / 2)`.
    pub entry: bool,
    /// `Fb == 0`: back to normal mode.
    pub quit: bool,
    /// The cycle ([`RccSched::cycle`] numbering) in which it was taken.
    pub taken: u64,
    /// The multiply's operand read at the take: `floor(W / 2)` for an
    /// entry, `Wc` for a cut, 0 for a quit (`win_bits`).
    pub operand: u32,
    /// `floor(operand (512 - Fb) / 512)` (`win_bits`; 0 for a quit).
    pub product: u32,
    /// `max(product, wc_min)`, from the end of the floor stage (cycle
    /// `taken + 6`) on; `None` before it and for a quit.
    pub wc_new: Option<u32>,
    /// Steps after the next one until the one that applies it: 0 when the
    /// next step applies it (at its end), 2 when the next step is the
    /// floor stage, 7 just after the take.
    pub cycles_left: u32,
}

impl DegreeInFlight {
    /// The cycle at whose end it is applied, `taken + 8`.
    pub fn applied_in(&self) -> u64 {
        self.taken + DEGREE_LATENCY as u64 - 1
    }

    /// The first cycle that sees it, `taken + 9`.
    pub fn seen_from(&self) -> u64 {
        self.taken + DEGREE_LATENCY as u64
    }
}

/// The golden model of RCC_SCHED: one [`RccSched::step`] per clock cycle.
#[derive(Debug, Clone)]
pub struct RccSched {
    config: RccSchedConfig,
    /// Registers in force.
    regs: RccSchedParams,
    /// Writes on their way, (address in the map, value cut to `win_bits`):
    /// `staged[0]` staged in the last step, `staged[WRITE_STAGES - 1]`
    /// applied at the end of the next one.
    staged: [Option<(u32, u32)>; WRITE_STAGES],
    mode: Mode,
    /// `Wc`, bytes (`win_bits`).
    wc: u32,
    /// Bytes granted in the current window (`win_bits` stored; the sum
    /// `sent + L` before the compare is `win_bits + 1` bits).
    sent: u32,
    /// Bytes of `c` granted while eligible in the current window (`<= sent`).
    sent_c: u32,
    last: Class,
    /// The degree update in the pipeline (at most one).
    flight: Option<DegreeInFlight>,
    /// The degree that came while the pipeline was busy (8 bits).
    pending: Option<u32>,
    /// The current window's `W` and `min(Wc, W)`: the values in force in
    /// its first cycle, kept to its end.
    win_w: u32,
    win_lim: u32,
    /// A window starts in the next step: latch `win_w`, `win_lim` from the
    /// registers in force then (set by [`RccSched::new_window`] during a
    /// step, cleared at its end).
    latch: bool,
    cycle: u64,
}

impl RccSched {
    /// A model as just after a reset.
    pub fn new(config: RccSchedConfig) -> Result<RccSched, ParamError> {
        config.validate()?;
        let mut m = RccSched {
            config,
            regs: config.reset,
            staged: [None; WRITE_STAGES],
            mode: Mode::Normal,
            wc: 0,
            sent: 0,
            sent_c: 0,
            last: Class::C,
            flight: None,
            pending: None,
            win_w: 0,
            win_lim: 0,
            latch: false,
            cycle: 0,
        };
        m.reset();
        Ok(m)
    }

    fn reset(&mut self) {
        self.regs = self.config.reset;
        self.staged = [None; WRITE_STAGES];
        self.mode = Mode::Normal;
        self.wc = self.regs.w() / 2;
        self.sent = 0;
        self.sent_c = 0;
        self.last = Class::C;
        self.flight = None;
        self.pending = None;
        // Unused in normal mode; an entry latches the window's values.
        self.win_w = self.w();
        self.win_lim = self.wc();
        self.latch = false;
    }

    pub fn config(&self) -> &RccSchedConfig {
        &self.config
    }

    /// Steps taken (the number of the next step's cycle).
    #[inline]
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The registers in force (for the next step).
    #[inline]
    pub fn params(&self) -> RccSchedParams {
        self.regs
    }

    /// The write staged in the last step, in force [`WRITE_LATENCY`] - 1
    /// steps later: `(address, value)` as the register will take it
    /// (`value` cut to `win_bits`). `None` if there was none, or its
    /// address is not in the map.
    #[inline]
    pub fn staged_write(&self) -> Option<(u32, u32)> {
        self.staged[0]
    }

    /// Every write on its way, the last staged first; the last entry is
    /// applied at the end of the next step.
    #[inline]
    pub fn staged_writes(&self) -> [Option<(u32, u32)>; WRITE_STAGES] {
        self.staged
    }

    /// The `window` register in force (0 allowed; see [`RccSched::w`]).
    #[inline]
    pub fn window(&self) -> u32 {
        self.regs.window
    }

    /// The `wc_min` register in force.
    #[inline]
    pub fn wc_min(&self) -> u32 {
        self.regs.wc_min
    }

    /// `W` as the rule uses it (the register, 0 read as 1).
    #[inline]
    pub fn w(&self) -> u32 {
        self.regs.w()
    }

    #[inline]
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The `Wc` register itself (may exceed `W`; kept in normal mode).
    #[inline]
    pub fn wc_reg(&self) -> u32 {
        self.wc
    }

    /// `min(Wc, W)`: the congestion window as the rule uses it.
    #[inline]
    pub fn wc(&self) -> u32 {
        self.wc.min(self.w())
    }

    /// Bytes granted in the current window.
    #[inline]
    pub fn sent(&self) -> u32 {
        self.sent
    }

    /// Bytes of class `c` granted while eligible in the current window.
    #[inline]
    pub fn sent_c(&self) -> u32 {
        self.sent_c
    }

    /// The class granted last (`c` after a reset).
    #[inline]
    pub fn last(&self) -> Class {
        self.last
    }

    /// A degree update is in flight: the pipeline is not free in the next
    /// step, so a degree offered in it goes to the pending slot.
    #[inline]
    pub fn busy(&self) -> bool {
        self.flight.is_some()
    }

    /// The pending degree (8 bits): it came while the pipeline was busy and
    /// is taken in the first free step, unless a newer one replaces it.
    /// After the step that applies an update it may be here with the
    /// pipeline free; the next step then takes it (or the step's own
    /// degree, if `fb_valid`).
    #[inline]
    pub fn pending(&self) -> Option<u32> {
        self.pending
    }

    /// The degree update in flight, if any.
    #[inline]
    pub fn in_flight(&self) -> Option<DegreeInFlight> {
        self.flight
    }

    /// Whether `c` is eligible in the next step (window mode: `sent_c <`
    /// the window's `min(Wc, W)`; always in normal mode).
    #[inline]
    pub fn c_eligible(&self) -> bool {
        self.mode == Mode::Normal || self.sent_c < self.win_lim
    }

    /// Bytes still to send before a new window starts (the window's `W`
    /// minus `sent`; at least 1 in window mode).
    #[inline]
    pub fn window_left(&self) -> u32 {
        self.win_w.saturating_sub(self.sent)
    }

    /// The current window's `W`: the one in force in its first cycle.
    #[inline]
    pub fn window_w(&self) -> u32 {
        self.win_w
    }

    /// The current window's `min(Wc, W)`: the one in force in its first
    /// cycle. A cut or a write in mid-window shows in [`RccSched::wc`] and
    /// the status at once, here from the next window.
    #[inline]
    pub fn window_c_limit(&self) -> u32 {
        self.win_lim
    }

    /// The registered status outputs during the next step.
    pub fn status(&self) -> RccSchedOut {
        let w = self.w();
        let wc = match self.mode {
            Mode::Window => self.wc(),
            Mode::Normal => w,
        };
        RccSchedOut {
            c_ready: false,
            n_ready: false,
            window: self.mode == Mode::Window,
            wc,
            wnc: w - wc,
        }
    }

    /// The grant of the next step for these inputs (combinational: the state
    /// and `rst`, `c_valid`, `n_valid`, `out_ready` only).
    pub fn grant(&self, rst: bool, c_valid: bool, n_valid: bool, out_ready: bool) -> Option<Class> {
        if rst || !out_ready {
            return None;
        }
        match (c_valid, n_valid) {
            (false, false) => None,
            (true, false) => Some(Class::C),
            (false, true) => Some(Class::N),
            (true, true) => Some(if self.c_eligible() {
                self.last.other()
            } else {
                Class::N
            }),
        }
    }

    /// Checks the state invariants (module docs, "Invariants").
    pub fn check_invariants(&self) -> Result<(), String> {
        let max = self.config.shape.win_max();
        if self.sent > max || self.sent_c > max || self.wc > max {
            return Err(format!(
                "a register beyond win_bits: sent {} sent_c {} wc {}",
                self.sent, self.sent_c, self.wc
            ));
        }
        if self.sent_c > self.sent {
            return Err(format!("sent_c {} > sent {}", self.sent_c, self.sent));
        }
        if self.mode == Mode::Window && self.sent >= self.win_w {
            return Err(format!(
                "sent {} >= the window's W {}",
                self.sent, self.win_w
            ));
        }
        if self.win_lim > self.win_w {
            return Err(format!(
                "the window's min(Wc, W) {} > its W {}",
                self.win_lim, self.win_w
            ));
        }
        if self.sent_c > 0 && self.sent_c >= self.win_lim + L_MAX {
            return Err(format!(
                "sent_c {} >= the window's limit {} + L_MAX",
                self.sent_c, self.win_lim
            ));
        }
        if let Some(f) = self.flight {
            // Steps since the take: 1 ..= 8 (it leaves at the end of the 9th).
            let age = self.cycle.wrapping_sub(f.taken);
            let floored = age > DEGREE_FLOOR_STAGE as u64 && !f.quit;
            if !(1..DEGREE_LATENCY as u64).contains(&age)
                || f.cycles_left as u64 != DEGREE_LATENCY as u64 - 1 - age
                || f.wc_new.is_some() != floored
                || f.product > f.operand
                || (f.entry && f.quit)
            {
                return Err(format!(
                    "update in flight inconsistent: {f:?} at cycle {}",
                    self.cycle
                ));
            }
        }
        if self.pending.is_some_and(|p| p > mask(FB_BITS)) {
            return Err(format!("pending degree {:?} beyond 8 bits", self.pending));
        }
        Ok(())
    }

    /// One clock cycle: returns the outputs seen during the cycle (the
    /// grant, and the status registered before it), then applies the cycle's
    /// inputs at its rising edge.
    pub fn step(&mut self, i: &RccSchedIn) -> RccSchedOut {
        let g = self.grant(i.rst, i.c_valid, i.n_valid, i.out_ready);
        let out = RccSchedOut {
            c_ready: g == Some(Class::C),
            n_ready: g == Some(Class::N),
            ..self.status()
        };
        let t = self.cycle; // this step's cycle
        self.cycle += 1;
        if i.rst {
            self.reset();
            return out;
        }
        // What the take reads: the state at the start of the cycle.
        let (mode0, wc0) = (self.mode, self.wc);
        let w = self.w(); // W in force in this cycle (win_bits, >= 1)
        let free = self.flight.is_none();
        self.latch = false;

        // 1. The accounting of the grant.
        if let Some(class) = g {
            if self.mode == Mode::Window {
                let len = match class {
                    Class::C => i.c_len,
                    Class::N => i.n_len,
                } & L_MAX; // 14 bits
                if class == Class::C && self.c_eligible() {
                    self.sent_c += len; // < 2^win_bits + 2^14: fits u32
                }
                self.sent += len; // win_bits + 1 bits
                if self.sent >= self.win_w {
                    self.new_window();
                }
            }
            self.last = class;
        }

        // 2. The update in flight: the floor stage (cycle taken + 6), the
        // application (taken + 8), or one stage on.
        if let Some(f) = &mut self.flight {
            match f.cycles_left {
                0 => {
                    let f = *f;
                    self.flight = None;
                    if f.quit {
                        self.mode = Mode::Normal;
                    } else {
                        self.mode = Mode::Window;
                        self.wc = f.wc_new.expect("floored in the floor stage");
                        if f.entry {
                            self.new_window();
                        }
                    }
                }
                left => {
                    if left == DEGREE_LATENCY - 1 - DEGREE_FLOOR_STAGE && !f.quit {
                        // wc_min in force in this cycle (before step 3's write).
                        f.wc_new = Some(f.product.max(self.regs.wc_min));
                    }
                    f.cycles_left = left - 1;
                }
            }
        }

        // 3. The oldest staged write comes in force; the others move on.
        let oldest = self.staged[WRITE_STAGES - 1];
        self.staged.copy_within(0..WRITE_STAGES - 1, 1);
        self.staged[0] = None;
        if let Some((addr, v)) = oldest {
            let shape = self.config.shape;
            self.regs.write(&shape, addr, v);
        }

        // A window that starts with the next step takes the W and
        // min(Wc, W) in force then (after this step's update and write).
        if self.latch {
            self.win_w = self.w();
            self.win_lim = self.wc();
        }

        // 4. This cycle's write is staged (address in the map only).
        if i.cfg_valid {
            let addr = i.cfg_addr & mask(CFG_ADDR_BITS);
            if self.regs.read(addr).is_some() {
                let v = i.cfg_data & mask(CFG_DATA_BITS) & self.config.shape.win_max();
                self.staged[0] = Some((addr, v));
            }
        }

        // 5. The take, on the start-of-cycle state.
        let newest = if i.fb_valid {
            Some(i.fb & mask(FB_BITS)) // 8 bits
        } else {
            self.pending
        };
        if !free {
            self.pending = newest;
        } else if let Some(fb) = newest {
            self.pending = None;
            let quit = fb == 0;
            let entry = !quit && mode0 == Mode::Normal;
            let operand = if quit {
                0
            } else if entry {
                w / 2 // win_bits - 1 bits
            } else {
                wc0 // win_bits
            };
            // a (win_bits) x (512 - Fb) (9 bits, 257 ..= 511; a quit's a is
            // 0): win_bits + 9 bits.
            let prod = operand as u64 * ((1u64 << GD_SHIFT) - fb as u64);
            let product = (prod >> GD_SHIFT) as u32; // <= a: win_bits
            self.flight = Some(DegreeInFlight {
                fb,
                entry,
                quit,
                taken: t,
                operand,
                product,
                wc_new: None,
                // 7 at the start of t + 1, 0 at the start of t + 8.
                cycles_left: DEGREE_LATENCY - 2,
            });
        }
        out
    }

    /// A new window starts with the next step; its `W` and `min(Wc, W)`
    /// are latched at the end of this one (`latch`), from the registers in
    /// force in the next.
    fn new_window(&mut self) {
        self.sent = 0;
        self.sent_c = 0;
        self.latch = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    fn cfg(win_bits: u32, window: u32, wc_min: u32) -> RccSchedConfig {
        RccSchedConfig {
            shape: RccSchedShape { win_bits },
            reset: RccSchedParams { window, wc_min },
        }
    }

    fn model(window: u32, wc_min: u32) -> RccSched {
        RccSched::new(cfg(20, window, wc_min)).unwrap()
    }

    fn idle() -> RccSchedIn {
        RccSchedIn {
            out_ready: true,
            ..RccSchedIn::default()
        }
    }

    /// Both classes offer a packet, the link takes one.
    fn both(c_len: u32, n_len: u32) -> RccSchedIn {
        RccSchedIn {
            c_valid: true,
            c_len,
            n_valid: true,
            n_len,
            ..idle()
        }
    }

    fn only_c(c_len: u32) -> RccSchedIn {
        RccSchedIn {
            c_valid: true,
            c_len,
            ..idle()
        }
    }

    fn only_n(n_len: u32) -> RccSchedIn {
        RccSchedIn {
            n_valid: true,
            n_len,
            ..idle()
        }
    }

    fn fb(mut i: RccSchedIn, fb: u32) -> RccSchedIn {
        (i.fb_valid, i.fb) = (true, fb);
        i
    }

    fn write(mut i: RccSchedIn, addr: u32, data: u32) -> RccSchedIn {
        (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, addr, data);
        i
    }

    fn rst() -> RccSchedIn {
        RccSchedIn {
            rst: true,
            ..RccSchedIn::default()
        }
    }

    fn granted(o: &RccSchedOut) -> Option<Class> {
        match (o.c_ready, o.n_ready) {
            (true, false) => Some(Class::C),
            (false, true) => Some(Class::N),
            (false, false) => None,
            _ => panic!("both granted"),
        }
    }

    fn run(m: &mut RccSched, ins: &[RccSchedIn]) -> Vec<Option<Class>> {
        ins.iter().map(|i| granted(&m.step(i))).collect()
    }

    /// `n` idle cycles (the link free, nothing offered).
    fn idle_for(m: &mut RccSched, n: u32) {
        for _ in 0..n {
            m.step(&idle());
        }
    }

    /// The update in flight's `cycles_left` (0: the next step applies it).
    fn left(m: &RccSched) -> Option<u32> {
        m.in_flight().map(|f| f.cycles_left)
    }

    /// A degree offered in an idle cycle with the pipeline free, then the
    /// idle cycles of its flight: it is taken in the first step and applied
    /// at the end of the last, so the next step sees it.
    fn degree(m: &mut RccSched, f: u32) {
        assert!(!m.busy() && m.pending().is_none());
        m.step(&fb(idle(), f));
        idle_for(m, DEGREE_LATENCY - 1);
        assert!(!m.busy());
    }

    use Class::{C, N};

    #[test]
    fn normal_mode_alternates_n_first_and_serves_a_lone_class() {
        let mut m = model(32768, 2048);
        assert_eq!((m.last(), m.mode(), m.wc_reg()), (C, Mode::Normal, 16384));
        let g = run(
            &mut m,
            &[
                both(100, 200), // last = c: n
                both(100, 200), // c
                only_c(100),    // c
                both(100, 200), // last = c: n
                only_n(5),      // n
                both(1, 1),     // c
                RccSchedIn {
                    out_ready: false,
                    ..both(1, 1)
                }, // the link is busy: none
                idle(),         // none valid
                both(1, 1),     // last = c: n
            ],
        );
        assert_eq!(
            g,
            vec![
                Some(N),
                Some(C),
                Some(C),
                Some(N),
                Some(N),
                Some(C),
                None,
                None,
                Some(N)
            ]
        );
        // Counters never move in normal mode.
        assert_eq!((m.sent(), m.sent_c()), (0, 0));
        // Status: wc = W, wnc = 0.
        let o = m.step(&idle());
        assert_eq!((o.window, o.wc, o.wnc), (false, 32768, 0));
    }

    #[test]
    fn first_degree_enters_window_mode_at_half_w_then_cuts() {
        let mut m = model(32768, 2048);
        // Entry taken in t0: operand 32768 / 2 = 16384, cut by Fb = 128:
        // 16384 x 384 / 512 = 12288; applied at the end of t0 + 8.
        let t0 = m.cycle();
        let o = m.step(&fb(idle(), 128));
        assert!(!o.window, "the status is registered");
        assert_eq!(
            m.in_flight(),
            Some(DegreeInFlight {
                fb: 128,
                entry: true,
                quit: false,
                taken: t0,
                operand: 16384,
                product: 12288,
                wc_new: None,
                cycles_left: 7
            })
        );
        for k in 1..=8 {
            let o = m.step(&idle()); // t0 + k
            assert_eq!((o.window, o.wc, o.wnc), (false, 32768, 0), "t0 + {k}");
        }
        assert_eq!(
            (m.mode(), m.wc_reg(), m.busy()),
            (Mode::Window, 12288, false)
        );
        let o = m.step(&idle()); // t0 + 9: seen
        assert_eq!((o.window, o.wc, o.wnc), (true, 12288, 32768 - 12288));
        // Fb = 255 in window mode: 12288 x 257 / 512 = 3158016 / 512 = 6168.
        degree(&mut m, 255);
        assert_eq!(m.wc_reg(), 6168);
        // Fb = 100: 6168 x 412 / 512 = 2541216 / 512 = 4963.3125 -> 4963.
        degree(&mut m, 100);
        assert_eq!(m.wc_reg(), 4963);
        // Fb = 255: 4963 x 257 / 512 = 1275491 / 512 = 2491.19 -> 2491.
        degree(&mut m, 255);
        assert_eq!(m.wc_reg(), 2491);
        // Fb = 255: 2491 x 257 / 512 = 1250.37 -> floored at wc_min 2048.
        degree(&mut m, 255);
        assert_eq!(m.wc_reg(), 2048);
        // Only the low 8 bits of fb: 0x100 is Fb = 0, the scheduler quits.
        m.step(&fb(idle(), 0x100));
        let f = m.in_flight().unwrap();
        assert_eq!((f.fb, f.entry, f.quit, f.operand), (0, false, true, 0));
        idle_for(&mut m, DEGREE_LATENCY - 1);
        assert_eq!((m.mode(), m.wc_reg()), (Mode::Normal, 2048));
        let o = m.step(&idle());
        assert_eq!((o.window, o.wc, o.wnc), (false, 32768, 0));
        // Re-entry: Wc = 16384 again, Fb = 0x101 -> 1: 16384 x 511 / 512 = 16352.
        degree(&mut m, 0x101);
        assert_eq!((m.mode(), m.wc_reg()), (Mode::Window, 16352));
        // A quit, then a quit taken in normal mode: nothing more.
        degree(&mut m, 0);
        degree(&mut m, 0);
        assert_eq!((m.mode(), m.wc_reg()), (Mode::Normal, 16352));
    }

    /// W = 3000, wc_min 0. Entry with Fb = 1: Wc = 1500 x 511 / 512 =
    /// 1497.07 -> 1497.
    #[test]
    fn window_mode_hand_trace_with_both_classes_backlogged() {
        let mut m = model(3000, 0);
        degree(&mut m, 1);
        assert_eq!(m.wc(), 1497);
        // Both valid, c eligible: alternate; last = c so n first.
        let steps: [(RccSchedIn, Class, u32, u32); 9] = [
            (both(600, 400), N, 400, 0),    // sent 400
            (both(600, 400), C, 1000, 600), // sent_c 600 < 1497
            (both(600, 400), N, 1400, 600),
            (both(600, 400), C, 2000, 1200), // 600 < 1497: eligible, 1200
            (both(600, 400), N, 2400, 1200),
            (both(600, 400), C, 3000, 1800), // 1200 < 1497; sent 3000 >= 3000
            // ... the grant above starts a new window: counters 0 (below).
            (both(700, 400), N, 400, 0),
            (both(700, 400), C, 1100, 700),
            (both(700, 400), N, 1500, 700),
        ];
        for (k, (i, class, sent, sent_c)) in steps.iter().enumerate() {
            let g = granted(&m.step(i));
            assert_eq!(g, Some(*class), "grant {k}");
            let (sent, sent_c) = if k == 5 { (0, 0) } else { (*sent, *sent_c) };
            assert_eq!((m.sent(), m.sent_c()), (sent, sent_c), "after grant {k}");
            m.check_invariants().unwrap();
        }
        // c: 700 < 1497, eligible: c 800 -> sent_c 1500 >= 1497, sent 2300.
        assert_eq!(granted(&m.step(&both(800, 400))), Some(C));
        assert_eq!((m.sent(), m.sent_c(), m.c_eligible()), (2300, 1500, false));
        // Not eligible: n only, although last = c; c waits.
        assert_eq!(granted(&m.step(&both(800, 300))), Some(N)); // 2600
        assert_eq!(granted(&m.step(&both(800, 300))), Some(N)); // 2900
        assert_eq!(granted(&m.step(&both(800, 300))), Some(N)); // 3200: new window
        assert_eq!((m.sent(), m.sent_c(), m.c_eligible()), (0, 0, true));
        // last = n: c goes.
        assert_eq!(granted(&m.step(&both(800, 300))), Some(C));
        assert_eq!((m.sent(), m.sent_c()), (800, 800));
    }

    #[test]
    fn ineligible_c_alone_is_served_and_counts_against_wnc_only() {
        let mut m = model(3000, 0);
        degree(&mut m, 1); // Wc = 1497
        assert_eq!(granted(&m.step(&only_c(1497))), Some(C));
        assert_eq!((m.sent(), m.sent_c(), m.c_eligible()), (1497, 1497, false));
        // Work-conserving: c alone is granted, sent += 1000 only.
        assert_eq!(granted(&m.step(&only_c(1000))), Some(C));
        assert_eq!((m.sent(), m.sent_c()), (2497, 1497));
        // Both valid: n (c not eligible), though last = c anyway.
        assert_eq!(granted(&m.step(&both(9, 100))), Some(N));
        assert_eq!((m.sent(), m.sent_c()), (2597, 1497));
        // Ineligible c completes the window: 2597 + 403 = 3000 >= 3000.
        assert_eq!(granted(&m.step(&only_c(403))), Some(C));
        assert_eq!((m.sent(), m.sent_c(), m.c_eligible()), (0, 0, true));
        // c's overshoot: sent_c = Wc - 1, then a 16383-byte c packet while
        // eligible: sent_c = Wc + 2^14 - 2, the bound reached with equality.
        // W = 3000 would be exceeded (a new window), so use a large W.
        let mut m = model(100_000, 0);
        degree(&mut m, 1); // Wc = 50000 x 511 / 512 = 49902.34 -> 49902
        assert_eq!(m.wc(), 49902);
        m.step(&only_c(16383));
        m.step(&only_c(16383));
        m.step(&only_c(16383)); // sent_c 49149
        m.step(&only_c(752)); // 49901 = Wc - 1
        assert!(m.c_eligible());
        m.step(&only_c(0x4000 | 16383)); // the port is 14 bits: 16383
        assert_eq!(m.sent_c(), 49902 + (1 << LEN_BITS) - 2);
        assert_eq!(m.sent_c(), m.window_c_limit() + L_MAX - 1);
        m.check_invariants().unwrap();
    }

    #[test]
    fn degree_update_applies_after_the_accounting_of_its_last_cycle() {
        // Entry taken in cycle 0 with a grant: a normal-mode grant (not
        // counted). Cycles 1 ..= 8 are still normal mode (alternation,
        // counters frozen); the grant of cycle 8 too, then the entry
        // applies and starts a window from 0.
        let mut m = model(3000, 0);
        assert_eq!(granted(&m.step(&fb(both(500, 500), 1))), Some(N));
        assert_eq!(
            run(&mut m, &[both(500, 500); 8]),
            vec![
                Some(C),
                Some(N),
                Some(C),
                Some(N),
                Some(C),
                Some(N),
                Some(C),
                Some(N)
            ]
        );
        assert_eq!(
            (m.mode(), m.sent(), m.sent_c(), m.last(), m.wc()),
            (Mode::Window, 0, 0, N, 1497)
        );
        // The entry's window, first cycle 9, takes W = 3000 and min(1497, 3000).
        assert_eq!((m.window_w(), m.window_c_limit()), (3000, 1497));
        // Cycle 9 follows the window rule (counted), and takes a cut on
        // Wc = 1497: 1497 x 257 / 512 = 384729 / 512 = 751.4 -> 751.
        assert_eq!(granted(&m.step(&fb(only_c(500), 255))), Some(C));
        assert_eq!((m.sent(), m.sent_c()), (500, 500));
        assert_eq!(m.in_flight().map(|f| f.product), Some(751));
        idle_for(&mut m, 7); // cycles 10 ..= 16
        assert_eq!((m.wc(), m.c_eligible(), left(&m)), (1497, true, Some(0)));
        // Cycle 17 (9 + 8): c is counted (500 < 1497) and ends the window
        // (sent 3000 >= 3000); then the cut applies, so the window that
        // starts in cycle 18 takes min(751, 3000) = 751.
        assert_eq!(granted(&m.step(&only_c(2500))), Some(C));
        assert_eq!(
            (m.sent(), m.sent_c(), m.wc(), m.window_c_limit()),
            (0, 0, 751, 751)
        );
        // A quit taken in cycle 18 (its grant counted: c eligible, last = c:
        // n, sent 500), then a window completed in cycle 26, the quit's
        // last, by c (last = n): the counters restart, then the mode is
        // normal (they freeze at 0).
        assert_eq!(granted(&m.step(&fb(both(500, 500), 0))), Some(N));
        assert_eq!((m.sent(), m.sent_c()), (500, 0));
        idle_for(&mut m, 7); // cycles 19 ..= 25
        assert_eq!((m.mode(), left(&m)), (Mode::Window, Some(0)));
        assert_eq!(granted(&m.step(&both(2500, 500))), Some(C)); // 3000
        assert_eq!((m.mode(), m.sent(), m.sent_c()), (Mode::Normal, 0, 0));
        // In normal mode the next grant alternates: n (last = c).
        assert_eq!(granted(&m.step(&both(500, 1000))), Some(N));
        assert_eq!((m.sent(), m.sent_c()), (0, 0));
    }

    #[test]
    fn quit_takes_nine_cycles_freezes_and_reentry_restarts_the_window() {
        let mut m = model(3000, 0);
        degree(&mut m, 1);
        m.step(&only_c(1000)); // sent = sent_c = 1000

        // The quit's take: its cycle's grant is counted (window mode)...
        m.step(&fb(only_n(100), 0)); // t0: sent 1100

        // ... and so are those of its flight.
        m.step(&only_c(200)); // t0 + 1: 1000 < 1497: sent 1300, sent_c 1200
        idle_for(&mut m, 6); // t0 + 2 ..= t0 + 7
        assert_eq!((m.mode(), left(&m)), (Mode::Window, Some(0)));
        m.step(&only_n(100)); // t0 + 8: counted (1400), then the quit
        assert_eq!((m.mode(), m.sent(), m.sent_c()), (Mode::Normal, 1400, 1200));
        m.step(&only_c(700));
        m.step(&only_n(700));
        assert_eq!((m.sent(), m.sent_c()), (1400, 1200));
        // Re-entry clears the counters, Wc = 1500 x 511 / 512 again.
        degree(&mut m, 1);
        assert_eq!((m.sent(), m.sent_c(), m.wc()), (0, 0, 1497));
    }

    #[test]
    fn register_writes_are_in_force_three_cycles_later() {
        let mut m = model(3000, 0);
        degree(&mut m, 1); // Wc 1497
        m.step(&only_n(2000)); // sent 2000

        // A write of W = 1000 in cycle t: staged; the accounting of t,
        // t + 1 and t + 2 uses W = 3000.
        m.step(&write(only_n(500), 0, 1000));
        assert_eq!(
            (m.sent(), m.window(), m.staged_writes()),
            (2500, 3000, [Some((0, 1000)), None])
        );
        assert_eq!(m.staged_write(), Some((0, 1000)));
        let o = m.step(&only_n(0)); // t + 1: 2500 < 3000, no new window
        assert_eq!((o.wc, o.wnc), (1497, 1503));
        assert_eq!(
            (m.sent(), m.window(), m.staged_writes()),
            (2500, 3000, [None, Some((0, 1000))])
        );
        assert_eq!((m.staged_write(), m.window_left()), (None, 500));
        let o = m.step(&only_n(0)); // t + 2: still 2500 < 3000; applied at its end
        assert_eq!((o.wc, o.wnc), (1497, 1503));
        assert_eq!(
            (m.sent(), m.window(), m.staged_writes()),
            (2500, 1000, [None, None])
        );
        // The running window keeps the W of its first cycle.
        assert_eq!((m.window_w(), m.window_left()), (3000, 500));
        // t + 3: the status uses the new W: wc = min(1497, 1000), wnc = 0;
        // 0 bytes: 2500 < 3000, the window goes on (although 2500 >= 1000).
        let o = m.step(&only_n(0));
        assert_eq!((o.window, o.wc, o.wnc), (true, 1000, 0));
        assert_eq!(m.sent(), 2500);
        // It ends at 3000; the next window takes W = 1000 and min(1497, 1000).
        m.step(&only_n(500));
        assert_eq!(
            (m.sent(), m.window_w(), m.window_c_limit()),
            (0, 1000, 1000)
        );
        // Entry uses the W in force at its take: quit, then a write of
        // W = 8000 in the entry's cycle: operand 1000 / 2 = 500,
        // 500 x 511 / 512 = 499.02 -> 499.
        degree(&mut m, 0);
        m.step(&write(fb(idle(), 1), 0, 8000));
        assert_eq!(
            m.in_flight().map(|f| (f.entry, f.operand, f.product)),
            Some((true, 500, 499))
        );
        idle_for(&mut m, DEGREE_LATENCY - 1);
        assert_eq!((m.wc(), m.w()), (499, 8000));
        // Its window takes the W in force in its first cycle: 8000.
        assert_eq!((m.window_w(), m.window_c_limit()), (8000, 499));
        // wc_min written in a cut's take cycle t0 is in force from t0 + 3,
        // before the floor stage (t0 + 6): 499 x 257 / 512 = 250.47 -> 250,
        // floored at 600.
        m.step(&write(fb(idle(), 255), 1, 600));
        idle_for(&mut m, DEGREE_LATENCY - 1);
        assert_eq!(m.wc(), 600);
        // wc_min can raise Wc above W: 600 x 511 / 512 = 598.8 -> 598,
        // floored at 9000; only min(Wc, W) is used.
        m.step(&write(idle(), 1, 9000));
        degree(&mut m, 1);
        assert_eq!((m.wc_reg(), m.wc()), (9000, 8000));
        let o = m.step(&idle());
        assert_eq!((o.wc, o.wnc), (8000, 0));
        // Both cuts applied in the entry's window (no grant since): it
        // keeps the entry's min(Wc, W) to its end.
        assert_eq!((m.window_c_limit(), m.sent()), (499, 0));
    }

    #[test]
    fn a_write_in_t_is_seen_at_t_plus_3_not_t_plus_2() {
        let mut m = model(3000, 0);
        degree(&mut m, 1); // window (3000, 1497)
        m.step(&only_n(2000)); // sent 2000
        let o = m.step(&write(idle(), 0, 2100)); // t
        assert_eq!(o.wc + o.wnc, 3000);
        // t + 1: sent 3000 ends the window; the next one starts in t + 2,
        // when W is still 3000: it takes 3000.
        let o = m.step(&only_n(1000));
        assert_eq!((o.wc + o.wnc, m.sent(), m.window_w()), (3000, 0, 3000));
        // t + 2: the status still shows 3000; 2100 bytes do not end the
        // window (2100 < 3000); the write applies at the end of t + 2.
        let o = m.step(&only_n(2100));
        assert_eq!(
            (o.wc + o.wnc, m.sent(), m.window(), m.window_w()),
            (3000, 2100, 2100, 3000)
        );
        // t + 3: the status shows W = 2100; the running window still ends
        // at 3000, and the next one takes 2100 (and min(1497, 2100)).
        let o = m.step(&only_n(800));
        assert_eq!((o.wc + o.wnc, m.sent()), (2100, 2900));
        m.step(&only_n(100));
        assert_eq!(
            (m.sent(), m.window_w(), m.window_c_limit()),
            (0, 2100, 1497)
        );
        // A window ended by the accounting of u + 2 starts in u + 3: it
        // takes the write of u, applied at the end of u + 2.
        m.step(&write(only_n(1000), 0, 2500)); // u: 1000
        m.step(&only_n(100)); // u + 1: 1100
        m.step(&only_n(1000)); // u + 2: 2100 >= 2100
        assert_eq!((m.sent(), m.window(), m.window_w()), (0, 2500, 2500));
        let o = m.step(&only_n(2400)); // u + 3: 2400 < 2500
        assert_eq!((o.wc + o.wnc, m.sent()), (2500, 2400));
        // Writes in consecutive cycles: applied in consecutive cycles, in
        // order, each at the end of its own t + 2.
        m.step(&write(idle(), 0, 4000)); // u
        assert_eq!(
            (m.window(), m.staged_writes()),
            (2500, [Some((0, 4000)), None])
        );
        m.step(&write(idle(), 0, 5000)); // u + 1
        assert_eq!(
            (m.window(), m.staged_writes()),
            (2500, [Some((0, 5000)), Some((0, 4000))])
        );
        m.step(&write(idle(), 1, 77)); // u + 2: 4000 applied at its end
        assert_eq!(
            (m.window(), m.wc_min(), m.staged_writes()),
            (4000, 0, [Some((1, 77)), Some((0, 5000))])
        );
        m.step(&idle()); // u + 3: 5000 applied
        assert_eq!(
            (m.window(), m.wc_min(), m.staged_writes()),
            (5000, 0, [None, Some((1, 77))])
        );
        assert_eq!(m.staged_write(), None);
        m.step(&idle()); // u + 4: 77 applied
        assert_eq!(
            (m.window(), m.wc_min(), m.staged_writes()),
            (5000, 77, [None, None])
        );
    }

    #[test]
    fn a_window_keeps_its_w_and_wc_to_its_end() {
        // W = 3000, wc_min 0; entry with Fb = 1: Wc = 1497, and the entry's
        // window takes (W, min(Wc, W)) = (3000, 1497).
        let mut m = model(3000, 0);
        degree(&mut m, 1);
        assert_eq!((m.window_w(), m.window_c_limit()), (3000, 1497));
        m.step(&only_c(1000)); // sent = sent_c = 1000
        m.step(&only_n(100)); // sent 1100, last = n

        // A cut applied in mid-window: 1497 x 257 / 512 = 751.4 -> 751. The
        // registers and the status change at once, the window does not:
        // c is still eligible at sent_c 1000 >= 751.
        degree(&mut m, 255);
        assert_eq!(
            (m.wc(), m.window_c_limit(), m.c_eligible(), m.sent()),
            (751, 1497, true, 1100)
        );
        // Both backlogged, 400-byte c and 300-byte n packets: c (last = n,
        // sent_c 1400), n, c (1400 < 1497: sent_c 1800, no longer
        // eligible), then n only; the third n brings sent to 3100.
        let mut sent = 1100;
        for (k, want) in [C, N, C, N, N, N].into_iter().enumerate() {
            let o = m.step(&both(400, 300));
            assert_eq!(
                (granted(&o), o.wc, o.wnc),
                (Some(want), 751, 3000 - 751),
                "grant {k}"
            );
            sent += if want == C { 400 } else { 300 };
            if sent < 3000 {
                assert_eq!(m.sent(), sent, "grant {k}");
            }
        }
        assert_eq!(m.sent_c(), 0);
        // The window that started after it takes the cut: (3000, 751).
        assert_eq!(
            (m.sent(), m.window_w(), m.window_c_limit(), m.c_eligible()),
            (0, 3000, 751, true)
        );
        // 700-byte c packets: c (700), n, c (700 < 751: 1400), n, then n
        // although last = n (1400 >= 751; the old 1497 would let c go).
        let g = run(&mut m, &[both(700, 300); 5]);
        assert_eq!(g, vec![Some(C), Some(N), Some(C), Some(N), Some(N)]);
        assert_eq!((m.sent(), m.sent_c(), m.c_eligible()), (2300, 1400, false));
        m.step(&only_n(700)); // 3000: a new window (3000, 751)
        assert_eq!((m.sent(), m.last()), (0, N));

        // A write of window landing in mid-window: W = 600 written in t,
        // in force from t + 3, below Wc (so min(Wc, W) = 600) and below the
        // window's sent.
        assert_eq!(granted(&m.step(&write(both(500, 300), 0, 600))), Some(C)); // t
        assert_eq!(granted(&m.step(&both(500, 300))), Some(N)); // t + 1: 800
        m.step(&idle()); // t + 2: applied at its end
        assert_eq!(
            (m.w(), m.wc(), m.window_w(), m.window_c_limit()),
            (600, 600, 3000, 751)
        );
        // t + 3: the status shows (600, 0); c is eligible in this window
        // (500 < 751, although >= 600) and its 200 bytes bring sent to
        // 1000 >= 600, but < 3000: the window goes on.
        let o = m.step(&both(200, 300));
        assert_eq!((granted(&o), o.wc, o.wnc), (Some(C), 600, 0));
        assert_eq!((m.sent(), m.sent_c(), m.window_left()), (1000, 700, 2000));
        m.step(&only_n(2000)); // 3000: the next window takes (600, 600)
        assert_eq!((m.sent(), m.window_w(), m.window_c_limit()), (0, 600, 600));
        // c (last = n) 500, then n 300: 800 >= 600 ends it.
        assert_eq!(granted(&m.step(&both(500, 300))), Some(C));
        assert_eq!(granted(&m.step(&both(500, 300))), Some(N));
        assert_eq!((m.sent(), m.sent_c()), (0, 0));

        // An entry taken in t0 is applied at the end of t0 + 8; its window's
        // first cycle is t0 + 9, so it takes the registers in force in
        // t0 + 9: a write of W in t0 + 6 (applied at the end of t0 + 8,
        // after the entry) is in them, one in t0 + 7 (applied at the end of
        // t0 + 9) is not. The operand is the W of t0: 600 / 2 = 300,
        // 300 x 511 / 512 = 299.4 -> 299; with W = 200, min(299, 200) = 200.
        for (at, want) in [(6u64, (200, 200)), (7, (600, 299))] {
            let mut m = model(600, 0);
            let t0 = m.cycle();
            m.step(&fb(idle(), 1)); // t0
            while m.cycle() < t0 + at {
                m.step(&idle());
            }
            m.step(&write(idle(), 0, 200)); // t0 + at
            while m.cycle() < t0 + 9 {
                m.step(&idle());
            }
            assert_eq!(
                (m.mode(), m.wc_reg(), m.window_w(), m.window_c_limit()),
                (Mode::Window, 299, want.0, want.1),
                "write in t0 + {at}"
            );
            // t0 + 9: 300 bytes end a window of W 200, not one of W 600.
            m.step(&only_n(300));
            let sent = if at == 6 { 0 } else { 300 };
            assert_eq!(m.sent(), sent, "write in t0 + {at}");
            if at == 7 {
                // Its window still ends at 600; the next takes (200, 200).
                assert_eq!((m.w(), m.window_w()), (200, 600));
                m.step(&only_n(300));
                assert_eq!((m.sent(), m.window_w(), m.window_c_limit()), (0, 200, 200));
            }
            m.check_invariants().unwrap();
        }
    }

    #[test]
    fn register_map_masks_data_and_ignores_unknown_addresses() {
        let mut m = RccSched::new(cfg(16, 1000, 10)).unwrap();
        m.step(&write(idle(), 2, 5)); // not in the map: not staged
        assert_eq!(m.staged_write(), None);
        m.step(&write(idle(), 3, 5));
        assert_eq!(m.staged_writes(), [None, None]);
        idle_for(&mut m, 2);
        assert_eq!(
            m.params(),
            RccSchedParams {
                window: 1000,
                wc_min: 10
            }
        );
        m.step(&write(idle(), 4, 0xff_1234)); // addr 2 bits: 0; 16 bits kept
        assert_eq!((m.staged_write(), m.window()), (Some((0, 0x1234)), 1000));
        idle_for(&mut m, WRITE_LATENCY - 1);
        assert_eq!(m.window(), 0x1234);
        m.step(&write(idle(), 1, 0x1ff_ffff)); // 24-bit port, 16-bit register
        idle_for(&mut m, WRITE_LATENCY - 1);
        assert_eq!(m.wc_min(), 0xffff);
        // The map names each register with the shape's width.
        let regs = m.config().shape.registers();
        assert_eq!(
            regs.map(|r| (r.addr, r.name, r.bits)),
            [(0, "window", 16), (1, "wc_min", 16)]
        );
        for r in regs {
            let mut p = m.params();
            assert!(p.write(&m.config().shape, r.addr, u32::MAX));
            assert_eq!(p.read(r.addr), Some(mask(r.bits)));
        }
        assert_eq!(m.params().read(2), None);
    }

    #[test]
    fn window_zero_acts_as_one() {
        let mut m = model(0, 0);
        assert_eq!((m.w(), m.wc_reg()), (1, 0)); // Wc reset = floor(1 / 2)
        let o = m.step(&fb(idle(), 1)); // entry: operand floor(1 / 2) = 0
        assert_eq!((o.wc, o.wnc), (1, 0));
        assert_eq!(m.in_flight().map(|f| (f.operand, f.product)), Some((0, 0)));
        idle_for(&mut m, DEGREE_LATENCY - 1); // Wc = max(0, 0) = 0
        let o = m.step(&idle());
        assert_eq!((o.window, o.wc, o.wnc), (true, 0, 1));
        assert!(!m.c_eligible()); // 0 < min(0, 1) fails

        // Every counted grant starts a new window (sent >= 1), even n's.
        assert_eq!(granted(&m.step(&both(5, 5))), Some(N));
        assert_eq!(granted(&m.step(&both(5, 5))), Some(N));
        assert_eq!(m.sent(), 0);
        // A 0-byte packet leaves sent at 0 < 1: no new window (nothing to see).
        m.step(&only_c(0));
        assert_eq!(m.sent(), 0);
        // With wc_min = 1 in force at the cut's floor stage: operand Wc = 0,
        // product 0, Wc = max(0, 1) = 1. The status shows it at once; the
        // running window keeps its limit min(0, 1) = 0 to its end.
        m.step(&write(idle(), 1, 1));
        degree(&mut m, 3);
        assert_eq!((m.wc(), m.window_c_limit(), m.c_eligible()), (1, 0, false));
        let o = m.step(&only_n(0)); // 0 bytes: last = n, the window goes on
        assert_eq!((o.wc, o.wnc, m.sent(), m.last()), (1, 0, 0, N));
        // Both valid, c not eligible in this window: n although last = n;
        // its 5 bytes end the window, and the next one takes the limit 1.
        assert_eq!(granted(&m.step(&both(5, 5))), Some(N));
        assert_eq!((m.sent(), m.window_c_limit(), m.c_eligible()), (0, 1, true));
        // c eligible at sent_c 0: the alternation (last = n: c, then n).
        assert_eq!(granted(&m.step(&both(5, 5))), Some(C));
        assert_eq!(granted(&m.step(&both(5, 5))), Some(N));
        assert_eq!((m.sent(), m.sent_c()), (0, 0));
    }

    #[test]
    fn extreme_registers_do_not_overflow() {
        for wb in [16, 20, 24] {
            let max = mask(wb);
            let mut m = RccSched::new(cfg(wb, max, max)).unwrap();
            // Entry: operand floor(max / 2), floor: max(wc_min = max, ..) = max.
            degree(&mut m, 255);
            assert_eq!(m.wc(), max);
            m.step(&write(idle(), 1, 0));
            degree(&mut m, 1); // max x 511 / 512 (win_bits + 9 bits)
            assert_eq!(m.wc() as u64, max as u64 * 511 / 512);
            // Fill the window with 16383-byte packets to just below W, then
            // one more: the sum is win_bits + 1 bits at most.
            let full = max / L_MAX;
            for _ in 0..full {
                m.step(&only_n(L_MAX));
            }
            assert_eq!(m.sent(), full * L_MAX);
            m.step(&only_n(L_MAX));
            assert_eq!(m.sent(), 0);
            m.check_invariants().unwrap();
        }
    }

    #[test]
    fn reset_mid_run_restores_everything_and_ignores_its_cycles_inputs() {
        let mut m = model(3000, 0);
        m.step(&write(idle(), 0, 5000)); // cycle 0: in force from 3
        degree(&mut m, 1); // taken in 1 on W = 3000: Wc 1497
        m.step(&only_c(1000));
        assert_eq!(
            (m.mode(), m.sent(), m.last(), m.w(), m.wc()),
            (Mode::Window, 1000, C, 5000, 1497)
        );
        let before = m.status();
        // Everything offered in the reset cycle: ignored, no grant.
        let o = m.step(&RccSchedIn {
            rst: true,
            ..write(fb(both(100, 100), 200), 0, 7)
        });
        assert_eq!((o.c_ready, o.n_ready), (false, false));
        assert_eq!(
            (o.window, o.wc, o.wnc),
            (before.window, before.wc, before.wnc)
        );
        assert_eq!(
            (
                m.mode(),
                m.sent(),
                m.sent_c(),
                m.last(),
                m.params(),
                m.wc_reg()
            ),
            (
                Mode::Normal,
                0,
                0,
                C,
                RccSchedParams {
                    window: 3000,
                    wc_min: 0
                },
                1500
            )
        );
        assert_eq!(
            (m.busy(), m.pending(), m.staged_write()),
            (false, None, None)
        );
        // n first again.
        assert_eq!(granted(&m.step(&both(1, 1))), Some(N));
        // Back-to-back resets.
        m.step(&rst());
        m.step(&rst());
        assert_eq!(granted(&m.step(&both(1, 1))), Some(N));
    }

    #[test]
    fn reset_drops_the_staged_write_the_pending_degree_and_the_update_in_flight() {
        let mut m = model(3000, 0);
        m.step(&fb(idle(), 1)); // t0: entry taken
        m.step(&write(fb(idle(), 255), 0, 8000)); // t0 + 1: cut pending, write staged
        assert_eq!(
            (m.busy(), m.pending(), m.staged_write()),
            (true, Some(255), Some((0, 8000)))
        );
        m.step(&rst()); // t0 + 2
        assert_eq!(
            (m.busy(), m.pending(), m.staged_writes(), m.window()),
            (false, None, [None, None], 3000)
        );
        // Nothing lands at t0 + 8 nor at t0 + 17.
        idle_for(&mut m, 2 * DEGREE_LATENCY);
        assert_eq!(
            (m.mode(), m.wc_reg(), m.window(), m.busy()),
            (Mode::Normal, 1500, 3000, false)
        );
        // A reset in the cycle that would apply the update (t1 + 8).
        m.step(&fb(idle(), 1)); // t1
        idle_for(&mut m, 7); // t1 + 1 ..= t1 + 7
        assert_eq!(left(&m), Some(0));
        m.step(&rst()); // t1 + 8
        idle_for(&mut m, DEGREE_LATENCY);
        assert_eq!((m.mode(), m.busy()), (Mode::Normal, false));
        // The cycle after a reset is free: its degree is taken at once.
        let t2 = m.cycle();
        m.step(&fb(idle(), 1));
        assert_eq!(m.in_flight().map(|f| f.taken), Some(t2));
        idle_for(&mut m, DEGREE_LATENCY - 1);
        assert_eq!((m.mode(), m.wc()), (Mode::Window, 1497));
        // A reset in t + 1 or in t + 2 drops the write of t, whichever
        // stage it is in.
        for gap in [1, 2] {
            degree(&mut m, 1);
            m.step(&write(idle(), 0, 8000)); // t
            idle_for(&mut m, gap - 1);
            assert_eq!(m.staged_writes()[gap as usize - 1], Some((0, 8000)));
            m.step(&rst()); // t + gap
            assert_eq!(m.staged_writes(), [None, None], "reset in t + {gap}");
            idle_for(&mut m, 3);
            assert_eq!(
                (m.window(), m.mode()),
                (3000, Mode::Normal),
                "reset in t + {gap}"
            );
        }
    }

    #[test]
    fn a_degree_is_seen_exactly_nine_cycles_after_its_take() {
        let mut m = model(30000, 0);
        degree(&mut m, 1); // Wc = 15000 x 511 / 512 = 14970.7 -> 14970
        assert_eq!(m.wc(), 14970);
        m.step(&only_c(10000)); // sent = sent_c = 10000

        // A cut taken in t0: 14970 x 257 / 512 = 7514.2 -> 7514.
        let t0 = m.cycle();
        assert_eq!(granted(&m.step(&fb(both(100, 100), 255))), Some(N));
        assert_eq!(
            m.in_flight(),
            Some(DegreeInFlight {
                fb: 255,
                entry: false,
                quit: false,
                taken: t0,
                operand: 14970,
                product: 7514,
                wc_new: None,
                cycles_left: 7
            })
        );
        let f = m.in_flight().unwrap();
        assert_eq!((f.applied_in(), f.seen_from()), (t0 + 8, t0 + 9));
        assert_eq!((m.busy(), left(&m)), (true, Some(7)));
        // t0 + 1 ..= t0 + 6: the old Wc and status, c eligible: alternation.
        let mut want = C;
        for k in 1..=6 {
            let o = m.step(&both(100, 100));
            assert_eq!(
                (granted(&o), o.wc, o.wnc),
                (Some(want), 14970, 30000 - 14970),
                "t0 + {k}"
            );
            assert_eq!(left(&m), Some(7 - k));
            // The floor stage is t0 + 6: max(7514, 0) exists from its end.
            let wc_new = if k == 6 { Some(7514) } else { None };
            assert_eq!(m.in_flight().unwrap().wc_new, wc_new, "t0 + {k}");
            want = want.other();
        }
        assert_eq!((m.sent(), m.sent_c(), m.last()), (10700, 10300, N));
        // t0 + 7: still the old status and Wc.
        let o = m.step(&idle());
        assert_eq!((o.wc, o.wnc), (14970, 15030));
        assert_eq!((m.busy(), m.wc(), left(&m)), (true, 14970, Some(0)));
        // t0 + 8: still the old status; the cut applies at its end. The
        // running window keeps its limit 14970: c stays eligible (10300 <
        // 14970, although >= 7514).
        let o = m.step(&idle());
        assert_eq!((o.wc, o.wnc), (14970, 15030));
        assert_eq!(
            (m.busy(), m.wc(), m.window_c_limit(), m.c_eligible()),
            (false, 7514, 14970, true)
        );
        // t0 + 9: the new status; the grant follows the window: c eligible,
        // last = n: c. The pipeline is free again: a degree in t0 + 9 is
        // taken at once, on the new Wc: 7514 x 384 / 512 = 5635.5 -> 5635.
        let o = m.step(&fb(both(100, 100), 128));
        assert_eq!(
            (granted(&o), o.window, o.wc, o.wnc),
            (Some(C), true, 7514, 30000 - 7514)
        );
        assert_eq!((m.sent(), m.sent_c()), (10800, 10400));
        assert_eq!(
            m.in_flight().map(|f| (f.taken, f.operand, f.product)),
            Some((t0 + 9, 7514, 5635))
        );
        idle_for(&mut m, DEGREE_LATENCY - 1);
        assert_eq!((m.wc(), m.window_c_limit()), (5635, 14970));
        // The window ends at 30000 (19200 bytes more); the next one takes
        // min(5635, 30000).
        m.step(&only_n(L_MAX)); // 27183
        m.step(&only_n(2817)); // 30000
        assert_eq!((m.sent(), m.window_c_limit()), (0, 5635));
    }

    #[test]
    fn an_update_arriving_while_busy_waits_and_is_taken_at_t0_plus_9() {
        let mut m = model(3000, 0);
        let t0 = m.cycle();
        m.step(&fb(idle(), 1)); // t0: entry taken
        idle_for(&mut m, 2); // t0 + 1, t0 + 2
        m.step(&fb(idle(), 255)); // t0 + 3: busy: pending
        assert_eq!(
            (m.pending(), m.in_flight().map(|f| f.taken)),
            (Some(255), Some(t0))
        );
        idle_for(&mut m, 5); // t0 + 4 ..= t0 + 8: the entry applies
        assert_eq!(
            (m.mode(), m.wc(), m.busy(), m.pending()),
            (Mode::Window, 1497, false, Some(255))
        );
        // t0 + 9: the pending cut is taken on Wc = 1497: 751.
        m.step(&idle());
        let f = m.in_flight().unwrap();
        assert_eq!(
            (f.taken, f.entry, f.quit, f.operand, f.product, m.pending()),
            (t0 + 9, false, false, 1497, 751, None)
        );
        idle_for(&mut m, 7); // t0 + 10 ..= t0 + 16
        assert_eq!((m.wc(), left(&m)), (1497, Some(0)));
        m.step(&idle()); // t0 + 17: applied
        assert_eq!((m.wc(), m.busy()), (751, false));
        assert_eq!(m.step(&idle()).wc, 751); // seen in t0 + 18

        // From any arrival cycle t0 + d of the flight (the take's cycle
        // excluded, up to the applying one): taken in t0 + 9, seen from
        // t0 + 18, i.e. 18 - d <= 17 cycles after it arrived.
        for d in 1..=8u64 {
            let mut m = model(3000, 0);
            m.step(&fb(idle(), 1)); // t0 = 0
            idle_for(&mut m, d as u32 - 1);
            m.step(&fb(idle(), 0)); // t0 + d: a quit
            while m.cycle() < 9 {
                m.step(&idle());
            }
            assert_eq!((m.mode(), m.pending()), (Mode::Window, Some(0)));
            m.step(&idle()); // t0 + 9
            assert_eq!(m.in_flight().map(|f| f.taken), Some(9));
            idle_for(&mut m, 7); // t0 + 10 ..= t0 + 16
            assert_eq!(m.mode(), Mode::Window, "d = {d}");
            m.step(&idle()); // t0 + 17
            assert_eq!(m.mode(), Mode::Normal, "d = {d}");
            assert_eq!(m.cycle(), 18);
            assert!(m.cycle() - d <= 17);
        }
    }

    #[test]
    fn updates_arriving_during_one_flight_collapse_to_the_last() {
        let mut m = model(3000, 0);
        let t0 = m.cycle();
        m.step(&fb(idle(), 1)); // t0: entry taken
        m.step(&idle()); // t0 + 1
        m.step(&fb(idle(), 255)); // t0 + 2: pending
        m.step(&idle()); // t0 + 3: fb_valid low leaves it
        assert_eq!(m.pending(), Some(255));
        m.step(&fb(idle(), 0)); // t0 + 4: a quit replaces it
        assert_eq!(m.pending(), Some(0));
        m.step(&idle()); // t0 + 5
        m.step(&fb(idle(), 0x180)); // t0 + 6: Fb = 0x80 (8 bits) replaces it
        assert_eq!(m.pending(), Some(128));
        m.step(&idle()); // t0 + 7
        m.step(&idle()); // t0 + 8: the entry applies

        // t0 + 9: Fb = 128 taken on Wc = 1497: 1497 x 384 / 512 = 1122.75 -> 1122.
        m.step(&idle());
        assert_eq!(
            m.in_flight().map(|f| (f.taken, f.fb, f.product)),
            Some((t0 + 9, 128, 1122))
        );
        idle_for(&mut m, DEGREE_LATENCY - 1);
        // The cut of t0 + 2 and the quit of t0 + 4 were never applied.
        assert_eq!(
            (m.mode(), m.wc(), m.busy(), m.pending()),
            (Mode::Window, 1122, false, None)
        );
        // In the free cycle the cycle's own degree is the newest: the
        // pending one is dropped.
        let t1 = m.cycle();
        m.step(&fb(idle(), 0)); // t1: quit taken
        m.step(&fb(idle(), 255)); // t1 + 1: pending
        idle_for(&mut m, DEGREE_LATENCY - 2); // t1 + 2 ..= t1 + 8: quit applies
        assert_eq!((m.mode(), m.pending()), (Mode::Normal, Some(255)));
        m.step(&fb(idle(), 2)); // t1 + 9
        let f = m.in_flight().unwrap();
        assert_eq!(
            (f.taken, f.fb, f.entry, f.operand, m.pending()),
            (t1 + DEGREE_LATENCY as u64, 2, true, 1500, None)
        );
        // 1500 x 510 / 512 = 1494.14 -> 1494.
        idle_for(&mut m, DEGREE_LATENCY - 1);
        assert_eq!((m.mode(), m.wc()), (Mode::Window, 1494));
    }

    #[test]
    fn wc_min_floors_an_in_flight_cut_only_if_written_by_t0_plus_3() {
        // A write in t0 + 3 is in force in t0 + 6, the floor stage; one in
        // t0 + 4 only from t0 + 7. The cut: 1497 x 257 / 512 -> 751.
        for (at, want) in [(1u64, 1000), (3, 1000), (4, 751), (5, 751)] {
            let mut m = model(3000, 0);
            degree(&mut m, 1); // Wc 1497
            let t0 = m.cycle();
            m.step(&fb(idle(), 255));
            while m.cycle() < t0 + at {
                m.step(&idle());
            }
            m.step(&write(idle(), 1, 1000)); // t0 + at
            while m.cycle() <= t0 + 6 {
                m.step(&idle());
            }
            assert_eq!(
                m.in_flight().and_then(|f| f.wc_new),
                Some(want),
                "write in t0 + {at}"
            );
            m.step(&idle()); // t0 + 7
            assert_eq!((m.wc(), m.busy()), (1497, true), "write in t0 + {at}");
            m.step(&idle()); // t0 + 8: applied
            assert_eq!((m.wc(), m.wc_min(), m.busy()), (want, 1000, false));
        }
    }

    #[test]
    fn entry_operand_is_the_w_in_force_at_the_take() {
        // A write of W in t0 - 2 is in force from t0 + 1 (applied at the end
        // of t0): the entry of t0 uses W = 3000 (1500 x 511 / 512 -> 1497).
        // So does one in t0 - 1.
        for gap in [2, 1] {
            let mut m = model(3000, 0);
            m.step(&write(idle(), 0, 8000)); // t0 - gap
            idle_for(&mut m, gap - 1);
            m.step(&fb(idle(), 1)); // t0
            assert_eq!(
                m.in_flight().map(|f| (f.operand, f.product)),
                Some((1500, 1497)),
                "write in t0 - {gap}"
            );
            assert_eq!(m.window(), if gap == 2 { 8000 } else { 3000 });
            idle_for(&mut m, DEGREE_LATENCY - 1);
            assert_eq!((m.wc(), m.w()), (1497, 8000));
        }
        // Written in t0 - 3, it is in force in t0: 4000 x 511 / 512 =
        // 3992.19 -> 3992. A write of W landing during the flight does not
        // change the operand; min(Wc, W) shows it.
        let mut m = model(3000, 0);
        m.step(&write(idle(), 0, 8000)); // t0 - 3
        idle_for(&mut m, 2); // t0 - 2, t0 - 1
        m.step(&fb(idle(), 1)); // t0
        m.step(&write(idle(), 0, 100)); // t0 + 1: in force from t0 + 4
        assert_eq!(
            m.in_flight().map(|f| (f.operand, f.product)),
            Some((4000, 3992))
        );
        idle_for(&mut m, DEGREE_LATENCY - 2);
        assert_eq!((m.wc_reg(), m.wc(), m.w()), (3992, 100, 100));
    }

    #[test]
    fn payloads_with_their_valid_low_are_ignored() {
        let mut m = model(3000, 0);
        degree(&mut m, 1); // window mode, Wc 1497
        let mut i = RccSchedIn {
            c_len: 900,
            n_len: 800,
            fb: 200,
            cfg_addr: 0,
            cfg_data: 5,
            out_ready: true,
            ..RccSchedIn::default()
        };
        let before = (m.mode(), m.wc(), m.sent(), m.sent_c(), m.last(), m.params());
        for _ in 0..3 {
            assert_eq!(granted(&m.step(&i)), None);
        }
        // Valids high but the link busy: no grant, no accounting.
        (i.c_valid, i.n_valid, i.out_ready) = (true, true, false);
        assert_eq!(granted(&m.step(&i)), None);
        assert_eq!(
            (m.mode(), m.wc(), m.sent(), m.sent_c(), m.last(), m.params()),
            before
        );
        assert_eq!(
            (m.busy(), m.pending(), m.staged_write()),
            (false, None, None)
        );
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        fn name<T: std::fmt::Debug>(r: Result<T, ParamError>) -> &'static str {
            r.unwrap_err().name
        }
        let c = RccSchedConfig::default();
        assert_eq!(
            (c.shape.win_bits, c.reset.window, c.reset.wc_min),
            (20, 32768, 2048)
        );
        assert!(c.validate().is_ok());
        for wb in [0, 8, 18, 32] {
            assert_eq!(name(RccSched::new(cfg(wb, 100, 10))), "win_bits");
        }
        assert_eq!(name(RccSched::new(cfg(16, 65536, 10))), "window");
        assert_eq!(name(cfg(16, 100, 65536).validate()), "wc_min");
        assert!(RccSched::new(cfg(16, 65535, 65535)).is_ok());
        for wb in [16, 20, 24] {
            let s = RccSchedShape { win_bits: wb };
            assert_eq!(
                RccSchedParams::reset_for(&s),
                RccSchedParams {
                    window: 32768,
                    wc_min: 2048
                }
            );
        }
    }

    /// Random closed-loop stimulus (aimed at the corners through the
    /// accessors): the grant properties, the invariants, the status from
    /// the registers in force, the window rule recomputed from the state
    /// at the start of each step (the grant, the accounting, and the
    /// window's `W` and `min(Wc, W)` latched from the registers in force
    /// when, and only when, a window starts), the overshoot bound against
    /// the window's `min(Wc, W)`, and the timing: mode and `Wc` change only
    /// in the step that applies an update, the registers only by the write
    /// staged two steps before (a write moves one stage per step), and the
    /// last degree of a burst is seen 9 to 17 cycles (9 + 8) after it came.
    #[test]
    fn grant_properties_and_invariants_hold_on_random_traces() {
        let mut rng = 0x1234_5678u32;
        let mut draw = || {
            rng = xorshift::next(rng);
            rng
        };
        let mut hit_bound = 0;
        let (mut waited, mut collapsed) = (0u32, 0u32);
        // Cases the window rule decides against the registers in force: c
        // granted over n while sent_c >= min(Wc, W), and a grant leaving
        // sent >= W with the window going on.
        let (mut kept_lim, mut kept_w) = (0u32, 0u32);
        for wb in [16, 20, 24] {
            let mut m = RccSched::new(cfg(wb, 20_000, 500)).unwrap();
            let shape = m.config().shape;
            // The last degree offered (cycle, Fb) since the last reset.
            let mut last_fb: Option<(u64, u32)> = None;
            for _ in 0..200_000 {
                let r = draw();
                let s = draw();
                // Aim: a long packet when c is one short of its window.
                let c_len = if m.c_eligible() && m.window_c_limit() - m.sent_c() < 64 && r & 1 == 0
                {
                    L_MAX
                } else {
                    (s & 0x3fff) >> (r >> 28)
                };
                let i = RccSchedIn {
                    rst: r & 0xfff == 0,
                    c_valid: r & 2 != 0,
                    c_len,
                    n_valid: r & 4 != 0,
                    n_len: (s >> 14) & 0x3fff,
                    out_ready: r & 0x18 != 0,
                    fb_valid: r & 0x3e0 == 0,
                    fb: if r & 0x400 != 0 { 0 } else { s >> 24 },
                    cfg_valid: r & 0x1f800 == 0,
                    cfg_addr: s >> 30,
                    cfg_data: [0, 1, 3000, 20_000, 70_000, u32::MAX][(s % 6) as usize],
                };
                let t = m.cycle();
                let eligible = m.c_eligible();
                let (mode, w, wc_reg) = (m.mode(), m.w(), m.wc_reg());
                let (sent0, sent_c0, last0) = (m.sent(), m.sent_c(), m.last());
                let (win_w0, win_lim0) = (m.window_w(), m.window_c_limit());
                let applies = left(&m) == Some(0);
                let entry_applies = applies && m.in_flight().is_some_and(|f| f.entry);
                let mut regs = m.params();
                let staged = m.staged_writes();
                if let Some((a, v)) = staged[WRITE_STAGES - 1] {
                    assert!(regs.write(&shape, a, v));
                }
                if i.fb_valid && !i.rst {
                    waited += m.busy() as u32;
                    collapsed += (m.busy() && m.pending().is_some()) as u32;
                }
                let o = m.step(&i);
                assert!(!(o.c_ready && o.n_ready));
                assert!(!o.c_ready || (i.c_valid && i.out_ready && !i.rst));
                assert!(!o.n_ready || (i.n_valid && i.out_ready && !i.rst));
                let any = i.c_valid || i.n_valid;
                assert_eq!(o.c_ready || o.n_ready, any && i.out_ready && !i.rst);
                if i.c_valid && i.n_valid && o.c_ready {
                    assert!(eligible);
                }
                // The status: the registers in force, not the window's.
                let wc_out = if mode == Mode::Window {
                    wc_reg.min(w)
                } else {
                    w
                };
                assert_eq!(
                    (o.window, o.wc, o.wnc),
                    (mode == Mode::Window, wc_out, w - wc_out),
                    "cycle {t}"
                );
                m.check_invariants().unwrap();
                if !i.rst {
                    let window = mode == Mode::Window;
                    let g = granted(&o);
                    let len = match g {
                        Some(C) => i.c_len & L_MAX,
                        Some(N) => i.n_len & L_MAX,
                        None => 0,
                    };
                    if window && i.c_valid && i.n_valid && i.out_ready {
                        // Both valid: c iff eligible in the window and last = n.
                        let c = sent_c0 < win_lim0 && last0 == N;
                        assert_eq!(g, Some(if c { C } else { N }), "cycle {t}");
                        kept_lim += (c && sent_c0 >= wc_reg.min(w)) as u32;
                    }
                    let ended = window && g.is_some() && sent0 + len >= win_w0;
                    kept_w += (window && g.is_some() && !ended && sent0 + len >= w) as u32;
                    if ended || entry_applies {
                        // A window starts in the next cycle: it takes the
                        // registers in force then.
                        assert_eq!((m.sent(), m.sent_c()), (0, 0), "cycle {t}");
                        assert_eq!(
                            (m.window_w(), m.window_c_limit()),
                            (m.w(), m.wc()),
                            "cycle {t}"
                        );
                    } else {
                        let counted = g == Some(C) && sent_c0 < win_lim0;
                        let want = if window && g.is_some() {
                            (sent0 + len, sent_c0 + if counted { len } else { 0 })
                        } else {
                            (sent0, sent_c0)
                        };
                        assert_eq!((m.sent(), m.sent_c()), want, "cycle {t}");
                        assert_eq!(
                            (m.window_w(), m.window_c_limit()),
                            (win_w0, win_lim0),
                            "cycle {t}"
                        );
                    }
                }
                if !i.rst {
                    if !applies {
                        assert_eq!((m.mode(), m.wc_reg()), (mode, wc_reg), "cycle {t}");
                    }
                    assert_eq!(m.params(), regs, "cycle {t}");
                    let mut regs_in = m.params();
                    let staged_now = i.cfg_valid && regs_in.write(&shape, i.cfg_addr, i.cfg_data);
                    let want = staged_now.then(|| {
                        let a = i.cfg_addr & mask(CFG_ADDR_BITS);
                        (a, regs_in.read(a).unwrap())
                    });
                    assert_eq!(m.staged_writes(), [want, staged[0]], "cycle {t}");
                } else {
                    assert_eq!(m.staged_writes(), [None, None], "cycle {t}");
                }
                last_fb = if i.rst {
                    None
                } else if i.fb_valid {
                    Some((t, i.fb & 0xff))
                } else {
                    last_fb
                };
                if let Some((t1, f)) = last_fb {
                    if m.cycle() < t1 + 9 {
                        // Not seen before t1 + 9: pending, or in flight.
                        let fl = m.in_flight().filter(|x| x.taken >= t1 && x.fb == f);
                        assert!(m.pending() == Some(f) || fl.is_some(), "cycle {t}");
                    }
                    if m.cycle() == t1 + 17 {
                        assert!(!m.busy() && m.pending().is_none(), "cycle {t}");
                        let want = if f == 0 { Mode::Normal } else { Mode::Window };
                        assert_eq!(m.mode(), want, "degree {f} of cycle {t1}");
                    }
                }
                if m.mode() == Mode::Window {
                    assert!(m.sent() < m.window_w(), "cycle {t}");
                    // sent_c <= the window's limit + L_MAX - 1, reached below.
                    assert!(m.sent_c() < m.window_c_limit() + L_MAX, "cycle {t}");
                    hit_bound += (m.sent_c() == m.window_c_limit() + L_MAX - 1) as u32;
                }
            }
        }
        assert!(hit_bound > 0, "the bound was never reached");
        assert!(
            kept_lim > 0 && kept_w > 0,
            "{kept_lim} c grants over the registers' min(Wc, W), \
             {kept_w} windows going on over the registers' W"
        );
        println!(
            "rcc_sched random traces: bound reached {hit_bound} times; {kept_lim} c grants \
             at sent_c >= the registers' min(Wc, W); {kept_w} grants at sent >= the \
             registers' W, the window going on"
        );
        assert!(
            waited > 0 && collapsed > 0,
            "{waited} waited, {collapsed} collapsed"
        );
    }
}

/// Float reference: seed 002 equations 5-6 in reals, and the long-run share
/// of the congestion class.
pub mod reference {
    /// `Wc` after the cuts `fbs` in reals, from the window entry's `W / 2`:
    /// `Wc_k = max(wc_min, Wc_{k-1} (1 - Fb_k / 512))`, `Wc_0 = W / 2`.
    pub fn wc_after_cuts(w: f64, wc_min: f64, fbs: &[u8]) -> f64 {
        let mut wc = w / 2.0;
        for &fb in fbs {
            wc = (wc * (1.0 - fb as f64 / 512.0)).max(wc_min);
        }
        wc
    }

    /// The congestion window's share of the output, `min(Wc, W) / W`: the
    /// long-run share of class `c` with both classes backlogged when the
    /// window binds.
    pub fn window_share(wc: f64, w: f64) -> f64 {
        wc.min(w) / w
    }

    /// The long-run share of class `c`'s bytes with both classes always
    /// backlogged, mean packet lengths `mean_c` and `mean_n`: the
    /// alternation gives `c` the share `mean_c / (mean_c + mean_n)`, the
    /// window caps it at `min(Wc, W) / W`; the lesser binds.
    pub fn expected_share(wc: f64, w: f64, mean_c: f64, mean_n: f64) -> f64 {
        window_share(wc, w).min(mean_c / (mean_c + mean_n))
    }

    #[cfg(test)]
    mod tests {
        use super::super::*;
        use super::*;
        use crate::xorshift;

        /// Integer `Wc` (floors) against the real product over random cut
        /// sequences (win_bits 24, W from 2 to 2^24 - 1, wc_min 0 or small,
        /// up to 64 cuts, Fb uniform or small). The real is never below the
        /// integer, and `real - integer <= 0.5 + k (511 / 512)` after `k`
        /// cuts (`floor(W / 2)` loses at most 0.5, each cut's floor at most
        /// 511/512, and the earlier error shrinks by the cut's factor).
        /// The bound is nearly tight: with a small `Wc` and a small `Fb`
        /// every floor loses almost a byte. Measured: largest `real -
        /// integer` = 30.2 bytes after 64 cuts; largest `(err - 0.5) / k` =
        /// 0.995 byte per cut; largest relative error while `Wc > 4096` =
        /// 2.8e-3 (see the printed line).
        #[test]
        fn integer_wc_tracks_the_real_product_within_one_byte_per_cut() {
            let mut rng = 0xdead_beefu32;
            let mut draw = || {
                rng = xorshift::next(rng);
                rng
            };
            let (mut worst, mut worst_per_cut, mut worst_rel) = (0.0f64, 0.0f64, 0.0f64);
            for case in 0..2000 {
                let w = 2 + draw() % ((1 << 24) - 2);
                let wc_min = if case % 3 == 0 { draw() % 4096 } else { 0 };
                let shape = RccSchedShape { win_bits: 24 };
                let mut m = RccSched::new(RccSchedConfig {
                    shape,
                    reset: RccSchedParams { window: w, wc_min },
                })
                .unwrap();
                let mut fbs: Vec<u8> = vec![];
                for k in 1..=64 {
                    let r = draw();
                    let fb = if case % 2 == 0 {
                        1 + r % 255
                    } else {
                        1 + r % 8
                    } as u8;
                    fbs.push(fb);
                    // The cut, then its flight: applied at the end of
                    // the 9th step.
                    m.step(&RccSchedIn {
                        fb_valid: true,
                        fb: fb as u32,
                        ..RccSchedIn::default()
                    });
                    for _ in 1..DEGREE_LATENCY {
                        m.step(&RccSchedIn::default());
                    }
                    let real = wc_after_cuts(w as f64, wc_min as f64, &fbs);
                    let int = m.wc_reg() as f64;
                    let e = real - int;
                    assert!(
                        e >= 0.0,
                        "case {case} cut {k}: integer {int} above real {real}"
                    );
                    let bound = 0.5 + k as f64 * 511.0 / 512.0;
                    assert!(e <= bound, "case {case} cut {k}: error {e} > {bound}");
                    worst = worst.max(e);
                    worst_per_cut = worst_per_cut.max((e - 0.5) / k as f64);
                    if real > 4096.0 {
                        worst_rel = worst_rel.max(e / real);
                    }
                }
            }
            println!(
                "rcc_sched: largest real - integer Wc = {worst:.3} bytes over 64 cuts; \
                 largest (err - 0.5) / k = {worst_per_cut:.4} byte per cut; \
                 largest relative (Wc > 4096) = {worst_rel:.2e}"
            );
        }

        /// Drives the model in window mode with both classes always
        /// backlogged for many windows and compares the share of `c`'s bytes
        /// with [`expected_share`] of the final `min(Wc, W)`. The degrees
        /// after the entry are applied in the entry's window, before any
        /// grant; that window keeps the entry's `min(Wc, W)` to its end, so
        /// the 2,000 windows measured start with the first window that
        /// takes the last cut (with the entry alone, at once). With `Wc`
        /// binding, `c` overshoots its window by less than one packet and
        /// the window its `W` by less than one, so `|measured - expected| <
        /// L_max / W`; asserted per mix. Measured (`W = 32768`, `Wc / W =
        /// 0.375`): 64/64 bytes +0.0000, IMIX +0.0077, 1500/1500 +0.0341,
        /// 1500 vs 64 +0.0362, jumbo 9000 and 64 +0.1068 (bound 0.27);
        /// alternation-bound 64 vs 1500: 0.0409 = 64 / 1564 exactly. At
        /// `W = 200000` every difference is below 0.027 (64/64: +0.0003,
        /// the bound 0.00032).
        #[test]
        fn long_run_share_of_c_is_min_wc_over_w_when_backlogged() {
            let mut rng = 0x0bad_cafeu32;
            let mut draw = || {
                rng = xorshift::next(rng);
                rng
            };
            // (name, c lengths, n lengths): each draws from its list.
            let mixes: [(&str, &[u32], &[u32]); 6] = [
                ("1500/1500", &[1500], &[1500]),
                ("64/64", &[64], &[64]),
                ("1500 vs 64", &[1500], &[64]),
                ("64 vs 1500", &[64], &[1500]),
                (
                    "imix",
                    &[64, 64, 64, 64, 64, 64, 64, 576, 576, 576, 576, 1500],
                    &[64, 64, 64, 64, 64, 64, 64, 576, 576, 576, 576, 1500],
                ),
                ("jumbo/64", &[9000, 64], &[9000, 64, 64, 64]),
            ];
            // Wc / W = 0.375, 0.126, 0.0631: well below the alternation's
            // share of c for the mixes that are not alternation-bound.
            let setups: [(u32, &[u32]); 3] = [
                (32768, &[128]),
                (65536, &[255, 255]),
                (200_000, &[255, 255, 255, 1]),
            ];
            for (name, cl, nl) in mixes {
                for (w, fbs) in setups {
                    let mut m = RccSched::new(RccSchedConfig {
                        shape: RccSchedShape { win_bits: 20 },
                        reset: RccSchedParams {
                            window: w,
                            wc_min: 0,
                        },
                    })
                    .unwrap();
                    // Each degree on a free pipeline: offered, then its
                    // flight.
                    for &f in fbs {
                        m.step(&RccSchedIn {
                            fb_valid: true,
                            fb: f,
                            ..RccSchedIn::default()
                        });
                        for _ in 1..DEGREE_LATENCY {
                            m.step(&RccSchedIn::default());
                        }
                    }
                    let wc = m.wc();
                    let mean = |l: &[u32]| l.iter().sum::<u32>() as f64 / l.len() as f64;
                    let lmax = *cl.iter().chain(nl).max().unwrap();
                    // Both classes backlogged: one step, the granted bytes.
                    let mut backlogged = |m: &mut RccSched| {
                        let c_len = cl[(draw() % cl.len() as u32) as usize];
                        let n_len = nl[(draw() % nl.len() as u32) as usize];
                        let o = m.step(&RccSchedIn {
                            c_valid: true,
                            c_len,
                            n_valid: true,
                            n_len,
                            out_ready: true,
                            ..RccSchedIn::default()
                        });
                        if o.c_ready {
                            (c_len as u64, 0)
                        } else {
                            (0, n_len as u64)
                        }
                    };
                    // The cuts after the entry applied in the entry's
                    // window (no grant yet), which keeps the entry's
                    // min(Wc, W) to its end: the measure starts with the
                    // first window that takes the last cut's (at once when
                    // the entry is the only degree).
                    let mut skipped = 0u32;
                    while m.window_c_limit() != wc {
                        backlogged(&mut m);
                        skipped += (m.sent() == 0) as u32;
                    }
                    assert_eq!((skipped, m.sent()), ((fbs.len() > 1) as u32, 0));
                    let (mut bytes_c, mut bytes_n, mut windows) = (0u64, 0u64, 0u32);
                    while windows < 2000 {
                        let (c, n) = backlogged(&mut m);
                        (bytes_c, bytes_n) = (bytes_c + c, bytes_n + n);
                        windows += (m.sent() == 0) as u32;
                        assert_eq!(m.window_c_limit(), wc);
                    }
                    let got = bytes_c as f64 / (bytes_c + bytes_n) as f64;
                    let want = expected_share(wc as f64, w as f64, mean(cl), mean(nl));
                    println!(
                        "rcc_sched share, {name:>10}, W {w:>6}, Wc {wc:>6}: measured {got:.4}, \
                         expected {want:.4} (Wc/W {:.4}), diff {:+.4}",
                        window_share(wc as f64, w as f64),
                        got - want
                    );
                    assert!(
                        (got - want).abs() < lmax as f64 / w as f64,
                        "{name} W {w}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
