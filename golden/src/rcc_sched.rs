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
//! `sent_c`, and `last`, the class granted last. `W` is the `window`
//! register in force, read as 1 when it is 0; `wc_min` is the other register.
//!
//! *Grant* in cycle `t` (no reset, `out_ready` high), on the state at the
//! start of `t`:
//! - normal mode: both classes valid: the class not granted last (after a
//!   reset `last = c`, so `n` goes first); one valid: that one;
//! - window mode: `c` is *eligible* iff `sent_c < min(Wc, W)`. Both valid:
//!   eligible: alternate as in normal mode, not eligible: `n`. Only `c`
//!   valid: `c` (work-conserving); only `n` valid: `n`.
//!
//! `last` is set to the granted class on every grant, in both modes.
//!
//! *Accounting* of a grant of `L` bytes in window mode (none in normal
//! mode): `sent += L`; if `c` was granted while eligible, `sent_c += L` (a `c`
//! packet granted while not eligible counts against `Wnc` only); then if
//! `sent >= W`, a new window starts: `sent = sent_c = 0`.
//!
//! *Degree update* (`fb_valid`, `Fb` = `fb`, 8 bits) in cycle `t`, applied
//! after the accounting of `t`'s grant:
//! - `Fb > 0` in normal mode: mode = window, `Wc = floor(W / 2)`,
//!   `sent = sent_c = 0`, then the cut;
//! - `Fb > 0` (either mode) — the cut: `Wc = max(wc_min, floor(Wc (512 - Fb)
//!   / 512))` (`Gd = 1/512`; `Fb` saturates at 255, so a cut removes at most
//!   255/512 of `Wc`);
//! - `Fb == 0`: mode = normal (`Wc` is kept, unused; the counters freeze).
//!
//! # Timing (the interface contract the RTL must meet)
//! - `c_ready` / `n_ready` are the grant of the cycle and are combinational:
//!   a function of the state and of the cycle's `rst`, `c_valid`, `n_valid`
//!   and `out_ready` only (never of the lengths, `fb` or `cfg`). At most one
//!   is high; neither is high without its valid, with `out_ready` low or in a
//!   reset cycle. The length of the granted class is read in the same cycle.
//! - `window`, `wc` and `wnc` are registered (state only): `window` is the
//!   mode; `wc = min(Wc, W)` in window mode and `W` in normal mode; `wnc =
//!   W - wc`. `W` here is the register in force read as 1 when 0.
//! - State written in cycle `t` (accounting, degree update) is seen from
//!   `t + 1`. A register write (`cfg_valid`, `cfg_addr`, `cfg_data`) in cycle
//!   `t` is in force from `t + 1` (the grant, the accounting's `sent >= W`
//!   and a window entry's `W / 2` of cycle `t` use the old value).
//!   Addresses not in the map are ignored, as are data bits above a
//!   register's width (`win_bits`).
//! - `rst` in cycle `t`: normal mode, `Wc = floor(W_reset / 2)`, `sent =
//!   sent_c = 0`, `last = c`, registers to their reset values; every other
//!   input of a reset cycle is ignored (no grant, no degree update, no
//!   write). The outputs during the reset cycle are its grant (none) and the
//!   status registered before it.
//! - The model starts as if a reset had been applied in the cycle before its
//!   first step.
//! - Only the low port-width bits of each input are ports: 14 of `c_len` and
//!   `n_len`, 8 of `fb`, 2 of `cfg_addr`, 24 of `cfg_data` (of which the low
//!   `win_bits` are a register's value).
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
//!   mode the status shows `W`, and entering window mode overwrites `Wc`
//!   with `floor(W / 2)`. Only [`RccSched::wc_reg`] shows it.
//! - **`W` = 0**: every use of `W` (eligibility, `sent >= W`, entry's
//!   `W / 2`, the status outputs) reads the register 0 as 1. So with a
//!   `window` of 0 every counted grant starts a new window, entry sets
//!   `Wc = 0` (then `wc_min` floors it), and the status shows `wc + wnc = 1`.
//! - **Packets of 0 bytes** (an `L` of 0 in the 14-bit port) are granted as
//!   any other and count 0 bytes (they start a new window only if `sent >=
//!   W` already, after `window` was lowered).
//! - **`W` lowered below `sent`** by a write: nothing happens until the next
//!   window-mode grant, whose accounting then starts a new window.
//! - **`Wc` above `W`** (possible after a write of `window` or a large
//!   `wc_min`): only `min(Wc, W)` is used; `Wc` itself is kept.
//! - **`last` after a degree update**: untouched (it changes on grants only);
//!   a window entry does not restart the alternation.
//!
//! # Invariants ([`RccSched::check_invariants`])
//! Stored `sent` and `sent_c` fit `win_bits` (`sent < W` as of its last
//! accounting, so `< 2^win_bits`), `sent_c <= sent`, and the window's `c`
//! overshoot is bounded: `sent_c < limit + L_MAX` with `L_MAX = 2^14 - 1`
//! the longest packet and `limit` the largest `min(Wc, W)` in force at a
//! grant counted in `sent_c` this window ([`RccSched::window_c_limit`]),
//! i.e. `sent_c <= min(Wc, W) + 2^LEN_BITS - 2` whenever no cut and no write
//! happened since the window started (`tests` reach equality). A cut or a
//! write of `window` in mid-window can leave `sent_c` further above the new
//! `min(Wc, W)`; `c` is then simply not eligible until the next window.
//!
//! # Float reference ([`mod@reference`])
//! `Wc` after `k` cuts in reals (from the entry's `W / 2`) against the
//! integer `Wc` (floors): the integer is never above the real and at most
//! `0.5 + k (511/512)` bytes below it (proved, and asserted over 2,000 random
//! sequences of 64 cuts; measured worst 30.2 bytes after 64 cuts, 0.995 byte
//! per cut with a small `Wc` and a small `Fb`; relative error at most 2.8e-3
//! while `Wc > 4096`). The long-run share of class `c`'s bytes with both
//! classes backlogged is `min(Wc, W) / W` when the window binds (else the
//! alternation's `mean_c / (mean_c + mean_n)`); the model's share exceeds it
//! by the per-window packet overshoots, always less than `L_max / W`
//! (asserted): measured +0.0000 with 64-byte packets, +0.008 with an IMIX,
//! +0.034 with 1500-byte packets and +0.106 with 9000-byte jumbos, at
//! `W = 32768` (smaller with larger `W`).

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

/// The golden model of RCC_SCHED: one [`RccSched::step`] per clock cycle.
#[derive(Debug, Clone)]
pub struct RccSched {
    config: RccSchedConfig,
    /// Registers in force.
    regs: RccSchedParams,
    mode: Mode,
    /// `Wc`, bytes (`win_bits`).
    wc: u32,
    /// Bytes granted in the current window (`win_bits` stored; the sum
    /// `sent + L` before the compare is `win_bits + 1` bits).
    sent: u32,
    /// Bytes of `c` granted while eligible in the current window (`<= sent`).
    sent_c: u32,
    last: Class,
    /// Model-only (for the invariant): the largest `min(Wc, W)` in force at
    /// a grant counted in `sent_c` this window, 0 if none.
    c_limit: u32,
    cycle: u64,
}

impl RccSched {
    /// A model as just after a reset.
    pub fn new(config: RccSchedConfig) -> Result<RccSched, ParamError> {
        config.validate()?;
        let mut m = RccSched {
            config,
            regs: config.reset,
            mode: Mode::Normal,
            wc: 0,
            sent: 0,
            sent_c: 0,
            last: Class::C,
            c_limit: 0,
            cycle: 0,
        };
        m.reset();
        Ok(m)
    }

    fn reset(&mut self) {
        self.regs = self.config.reset;
        self.mode = Mode::Normal;
        self.wc = self.regs.w() / 2;
        self.sent = 0;
        self.sent_c = 0;
        self.last = Class::C;
        self.c_limit = 0;
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

    /// Whether `c` is eligible in the next step (window mode: `sent_c <
    /// min(Wc, W)`; always in normal mode).
    #[inline]
    pub fn c_eligible(&self) -> bool {
        self.mode == Mode::Normal || self.sent_c < self.wc()
    }

    /// Bytes still to send before a new window starts (`W - sent`, 0 if
    /// `sent >= W` after a write of `window`).
    #[inline]
    pub fn window_left(&self) -> u32 {
        self.w().saturating_sub(self.sent)
    }

    /// Model-only: the largest `min(Wc, W)` in force at a grant counted in
    /// `sent_c` in the current window (0 if none).
    #[inline]
    pub fn window_c_limit(&self) -> u32 {
        self.c_limit
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
        if self.sent_c > 0 && self.sent_c >= self.c_limit + L_MAX {
            return Err(format!(
                "sent_c {} >= limit {} + L_MAX",
                self.sent_c, self.c_limit
            ));
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
        self.cycle += 1;
        if i.rst {
            self.reset();
            return out;
        }
        let w = self.w(); // W in force in this cycle (win_bits, >= 1)
        if let Some(class) = g {
            if self.mode == Mode::Window {
                let len = match class {
                    Class::C => i.c_len,
                    Class::N => i.n_len,
                } & L_MAX; // 14 bits
                if class == Class::C && self.c_eligible() {
                    self.c_limit = self.c_limit.max(self.wc());
                    self.sent_c += len; // < 2^win_bits + 2^14: fits u32
                }
                self.sent += len; // win_bits + 1 bits
                if self.sent >= w {
                    self.new_window();
                }
            }
            self.last = class;
        }
        if i.fb_valid {
            let fb = i.fb & mask(FB_BITS); // 8 bits
            if fb == 0 {
                self.mode = Mode::Normal;
            } else {
                if self.mode == Mode::Normal {
                    self.mode = Mode::Window;
                    self.wc = w / 2; // win_bits - 1 bits
                    self.new_window();
                }
                // Wc (win_bits) x (512 - Fb) (9 bits, 257 ..= 511): win_bits + 9 bits.
                let prod = self.wc as u64 * ((1u64 << GD_SHIFT) - fb as u64);
                let cut = (prod >> GD_SHIFT) as u32; // <= Wc: win_bits
                self.wc = cut.max(self.regs.wc_min);
            }
        }
        if i.cfg_valid {
            let shape = self.config.shape;
            self.regs.write(&shape, i.cfg_addr, i.cfg_data);
        }
        out
    }

    fn new_window(&mut self) {
        self.sent = 0;
        self.sent_c = 0;
        self.c_limit = 0;
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
        // Entry: Wc = 32768 / 2 = 16384, cut by Fb = 128:
        // 16384 x 384 / 512 = 12288.
        let o = m.step(&fb(idle(), 128));
        assert!(!o.window, "the status is registered");
        assert_eq!((m.mode(), m.wc_reg()), (Mode::Window, 12288));
        let o = m.step(&idle());
        assert_eq!((o.window, o.wc, o.wnc), (true, 12288, 32768 - 12288));
        // Fb = 255 in window mode: 12288 x 257 / 512 = 3158016 / 512 = 6168.
        m.step(&fb(idle(), 255));
        assert_eq!(m.wc_reg(), 6168);
        // Fb = 100: 6168 x 412 / 512 = 2541216 / 512 = 4963.3125 -> 4963.
        m.step(&fb(idle(), 100));
        assert_eq!(m.wc_reg(), 4963);
        // Fb = 255: 4963 x 257 / 512 = 1275491 / 512 = 2491.19 -> 2491.
        m.step(&fb(idle(), 255));
        assert_eq!(m.wc_reg(), 2491);
        // Fb = 255: 2491 x 257 / 512 = 1250.37 -> floored at wc_min 2048.
        m.step(&fb(idle(), 255));
        assert_eq!(m.wc_reg(), 2048);
        // Only the low 8 bits of fb: 0x100 is Fb = 0, the scheduler quits.
        m.step(&fb(idle(), 0x100));
        assert_eq!((m.mode(), m.wc_reg()), (Mode::Normal, 2048));
        let o = m.step(&idle());
        assert_eq!((o.window, o.wc, o.wnc), (false, 32768, 0));
        // Re-entry: Wc = 16384 again, Fb = 0x101 -> 1: 16384 x 511 / 512 = 16352.
        m.step(&fb(idle(), 0x101));
        assert_eq!((m.mode(), m.wc_reg()), (Mode::Window, 16352));
        // Fb = 0 in normal mode: nothing.
        m.step(&fb(idle(), 0));
        m.step(&fb(idle(), 0));
        assert_eq!((m.mode(), m.wc_reg()), (Mode::Normal, 16352));
    }

    /// W = 3000, wc_min 0. Entry with Fb = 1: Wc = 1500 x 511 / 512 =
    /// 1497.07 -> 1497.
    #[test]
    fn window_mode_hand_trace_with_both_classes_backlogged() {
        let mut m = model(3000, 0);
        m.step(&fb(idle(), 1));
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
        m.step(&fb(idle(), 1)); // Wc = 1497
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
        // c's overshoot: sent_c = 1496, then a 16383-byte c packet while
        // eligible: sent_c = 1496 + 16383 = 17879 = Wc + 2^14 - 2, the bound
        // reached with equality. W = 3000 is exceeded: a new window. So use a
        // large W for this part.
        let mut m = model(100_000, 0);
        m.step(&fb(idle(), 1)); // Wc = 50000 x 511 / 512 = 49902.34 -> 49902
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
    fn degree_update_applies_after_the_grants_accounting() {
        // Entry in the cycle of a grant: the grant is a normal-mode one (no
        // counting), then the counters start from 0.
        let mut m = model(3000, 0);
        assert_eq!(granted(&m.step(&fb(both(500, 500), 1))), Some(N));
        assert_eq!(
            (m.mode(), m.sent(), m.sent_c(), m.last()),
            (Mode::Window, 0, 0, N)
        );
        // The grant of the cycle after the entry follows the window rule.
        assert_eq!(granted(&m.step(&both(500, 500))), Some(C));
        assert_eq!((m.sent(), m.sent_c()), (500, 500));
        // A cut in the cycle of an eligible c grant: c is counted against
        // the old Wc (eligible at 500 < 1497), then Wc = 1497 x 257 / 512 =
        // 384729 / 512 = 751.4 -> 751: sent_c 1000 >= 751, not eligible.
        m.step(&both(500, 500)); // n: sent 1000 (last was c)
        assert_eq!(granted(&m.step(&fb(both(500, 500), 255))), Some(C));
        assert_eq!((m.sent(), m.sent_c(), m.wc()), (1500, 1000, 751));
        assert!(!m.c_eligible());
        // A window completed and a quit in the same cycle: the counters
        // restart, then the mode is normal (they freeze at 0).
        m.step(&both(500, 500)); // n: 2000
        assert_eq!(granted(&m.step(&fb(both(500, 1000), 0))), Some(N)); // 3000
        assert_eq!((m.mode(), m.sent(), m.sent_c()), (Mode::Normal, 0, 0));
        // In normal mode the next grant alternates: c.
        assert_eq!(granted(&m.step(&both(500, 1000))), Some(C));
        assert_eq!((m.sent(), m.sent_c()), (0, 0));
    }

    #[test]
    fn quit_freezes_and_reentry_restarts_the_window() {
        let mut m = model(3000, 0);
        m.step(&fb(idle(), 1));
        m.step(&only_c(1000));
        m.step(&fb(only_n(100), 0)); // counted (window mode at its start), then quit
        assert_eq!((m.mode(), m.sent(), m.sent_c()), (Mode::Normal, 1100, 1000));
        m.step(&only_c(700));
        m.step(&only_n(700));
        assert_eq!((m.sent(), m.sent_c()), (1100, 1000));
        // Re-entry clears the counters, Wc = 1500 x 511 / 512 again.
        m.step(&fb(idle(), 1));
        assert_eq!((m.sent(), m.sent_c(), m.wc()), (0, 0, 1497));
    }

    #[test]
    fn register_writes_take_effect_next_cycle() {
        let mut m = model(3000, 0);
        m.step(&fb(idle(), 1)); // Wc 1497
        m.step(&only_n(2000)); // sent 2000
                               // The write of W = 1000 in this cycle: the accounting uses W = 3000.
        m.step(&write(only_n(500), 0, 1000));
        assert_eq!((m.sent(), m.window()), (2500, 1000));
        assert_eq!(m.window_left(), 0);
        // The status uses the new W: wc = min(1497, 1000), wnc = 0.
        let o = m.step(&only_n(0)); // 0 bytes: 2500 >= 1000, a new window
        assert_eq!((o.window, o.wc, o.wnc), (true, 1000, 0));
        assert_eq!(m.sent(), 0);
        // Entry uses the W of its cycle: quit, then enter with a write of W.
        m.step(&fb(idle(), 0));
        m.step(&write(fb(idle(), 1), 0, 8000)); // Wc = 1000/2 x 511/512 = 499.02 -> 499
        assert_eq!((m.wc(), m.w()), (499, 8000));
        // wc_min written in a cut's cycle: the cut uses the old one (0):
        // 499 x 257 / 512 = 250.47 -> 250; the next cut sees 600.
        m.step(&write(fb(idle(), 255), 1, 600));
        assert_eq!(m.wc(), 250);
        m.step(&fb(idle(), 1)); // 250 x 511 / 512 = 249.5 -> 249 < 600: 600
        assert_eq!(m.wc(), 600);
        // wc_min can raise Wc above W: only min(Wc, W) is used.
        m.step(&write(idle(), 1, 9000));
        m.step(&fb(idle(), 1));
        assert_eq!((m.wc_reg(), m.wc()), (9000, 8000));
        let o = m.step(&idle());
        assert_eq!((o.wc, o.wnc), (8000, 0));
    }

    #[test]
    fn register_map_masks_data_and_ignores_unknown_addresses() {
        let mut m = RccSched::new(cfg(16, 1000, 10)).unwrap();
        m.step(&write(idle(), 2, 5)); // not in the map
        m.step(&write(idle(), 3, 5));
        assert_eq!(
            m.params(),
            RccSchedParams {
                window: 1000,
                wc_min: 10
            }
        );
        m.step(&write(idle(), 4, 0xff_1234)); // addr 2 bits: 0; 16 bits kept
        assert_eq!(m.window(), 0x1234);
        m.step(&write(idle(), 1, 0x1ff_ffff)); // 24-bit port, 16-bit register
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
        let o = m.step(&fb(idle(), 1)); // entry: Wc = 0, cut: max(0, 0) = 0
        assert_eq!((o.wc, o.wnc), (1, 0));
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
        // With wc_min = 1: Wc = 1, min(1, 1) = 1: c eligible at sent_c 0,
        // alternating (last = c from the 0-byte packet: n, then c).
        m.step(&write(idle(), 1, 1));
        m.step(&fb(idle(), 3));
        assert_eq!((m.wc(), m.c_eligible()), (1, true));
        assert_eq!(granted(&m.step(&both(5, 5))), Some(N));
        assert_eq!(granted(&m.step(&both(5, 5))), Some(C));
        assert_eq!((m.sent(), m.sent_c()), (0, 0));
    }

    #[test]
    fn extreme_registers_do_not_overflow() {
        for wb in [16, 20, 24] {
            let max = mask(wb);
            let mut m = RccSched::new(cfg(wb, max, max)).unwrap();
            // Entry: Wc = floor(max / 2), cut: max(wc_min = max, ..) = max.
            m.step(&fb(idle(), 255));
            assert_eq!(m.wc(), max);
            m.step(&write(idle(), 1, 0));
            m.step(&fb(idle(), 1)); // max x 511 / 512 (win_bits + 9 bits)
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
        m.step(&write(idle(), 0, 5000));
        m.step(&fb(idle(), 1));
        m.step(&only_c(1000));
        assert_eq!(
            (m.mode(), m.sent(), m.last(), m.w()),
            (Mode::Window, 1000, C, 5000)
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
        // n first again.
        assert_eq!(granted(&m.step(&both(1, 1))), Some(N));
        // Back-to-back resets.
        m.step(&rst());
        m.step(&rst());
        assert_eq!(granted(&m.step(&both(1, 1))), Some(N));
    }

    #[test]
    fn payloads_with_their_valid_low_are_ignored() {
        let mut m = model(3000, 0);
        m.step(&fb(idle(), 1)); // window mode, Wc 1497
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
    /// accessors): the grant properties, the invariants, and the overshoot
    /// bound against the current `min(Wc, W)` while no cut and no write
    /// happened in the window.
    #[test]
    fn grant_properties_and_invariants_hold_on_random_traces() {
        let mut rng = 0x1234_5678u32;
        let mut draw = || {
            rng = xorshift::next(rng);
            rng
        };
        let mut hit_bound = 0;
        for wb in [16, 20, 24] {
            let mut m = RccSched::new(cfg(wb, 20_000, 500)).unwrap();
            // No cut and no write since sent_c was last 0.
            let mut clean = true;
            for _ in 0..200_000 {
                let r = draw();
                let s = draw();
                // Aim: a long packet when c is one short of its window.
                let c_len = if m.c_eligible() && m.wc() - m.sent_c() < 64 && r & 1 == 0 {
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
                let eligible = m.c_eligible();
                let (mode, w) = (m.mode(), m.w());
                let o = m.step(&i);
                assert!(!(o.c_ready && o.n_ready));
                assert!(!o.c_ready || (i.c_valid && i.out_ready && !i.rst));
                assert!(!o.n_ready || (i.n_valid && i.out_ready && !i.rst));
                let any = i.c_valid || i.n_valid;
                assert_eq!(o.c_ready || o.n_ready, any && i.out_ready && !i.rst);
                if i.c_valid && i.n_valid && o.c_ready {
                    assert!(eligible);
                }
                assert_eq!((o.window, o.wc + o.wnc), (mode == Mode::Window, w));
                m.check_invariants().unwrap();
                if m.sent_c() == 0 {
                    clean = true;
                } else if (i.fb_valid && i.fb & 0xff != 0) || i.cfg_valid {
                    clean = false;
                }
                if clean && m.mode() == Mode::Window {
                    assert!(m.sent_c() <= m.wc() + (1 << LEN_BITS) - 2);
                    hit_bound += (m.sent_c() == m.wc() + L_MAX - 1) as u32;
                }
            }
        }
        assert!(hit_bound > 0, "the bound was never reached");
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
                    m.step(&RccSchedIn {
                        fb_valid: true,
                        fb: fb as u32,
                        ..RccSchedIn::default()
                    });
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
        /// with [`expected_share`]. With `Wc` binding, `c` overshoots its
        /// window by less than one packet and the window its `W` by less than
        /// one, so `|measured - expected| < L_max / W`; asserted per mix.
        /// Measured (`W = 32768`, `Wc / W = 0.375`): 64/64 bytes +0.0000,
        /// IMIX +0.0078, 1500/1500 +0.0341, 1500 vs 64 +0.0362, jumbo 9000
        /// and 64 +0.1055 (bound 0.27); alternation-bound 64 vs 1500: 0.0409
        /// = 64 / 1564 exactly. At `W = 200000` every difference is below
        /// 0.027.
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
                    for &f in fbs {
                        m.step(&RccSchedIn {
                            fb_valid: true,
                            fb: f,
                            ..RccSchedIn::default()
                        });
                    }
                    let wc = m.wc();
                    let (mut bytes_c, mut bytes_n, mut windows) = (0u64, 0u64, 0u32);
                    let mean = |l: &[u32]| l.iter().sum::<u32>() as f64 / l.len() as f64;
                    let lmax = *cl.iter().chain(nl).max().unwrap();
                    while windows < 2000 {
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
                            bytes_c += c_len as u64;
                        } else {
                            bytes_n += n_len as u64;
                        }
                        windows += (m.sent() == 0) as u32;
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
