//! CP — the switch egress-queue congestion point.
//!
//! Implements `../shared/ALGORITHMS.md` §"Switch congestion point", which
//! restates seed 001 §2.1 (RED/ECN marking on the instantaneous queue, tail
//! drop at `buf_max`), seed 001 §2.3 eq. (3) (WRED drop of not-ECN-capable
//! packets at `q >= K`, used by LDCP's fast start), seed 000 §3.1 (DCTCP step
//! marking) and seed 004 §3.1 / Figure 5 (DCQCN's RED with `Kmin`, `Kmax`,
//! `Pmax`).
//!
//! # Decision for one enqueue, at queue depth `q` bytes (before the packet)
//! 1. Not ECN-capable (ECN `00`) and `q >= kdrop`: **WRED drop**.
//! 2. Otherwise, if `q + len > buf_max`: **tail drop** (the queue would exceed
//!    the buffer). WRED is checked first: it is the policy decision for the
//!    packet's class, the buffer limit is the physical one behind it.
//! 3. Otherwise the packet is admitted and `len` is added to the depth, and
//!    - ECN `11` (already CE) stays CE: **admit**, ECN out `11`;
//!    - ECN `00`: **admit**, ECN out `00`;
//!    - ECN `01`/`10` (ECT): **mark** (ECN out `11`) with probability
//!      `p(q) = 0` for `q < kmin`, `(q - kmin) / (kmax - kmin) * pmax` for
//!      `kmin <= q < kmax`, `1` for `q >= kmax`; else **admit** unchanged.
//!
//! # Fixed-point formats
//! - depths, thresholds and lengths: unsigned integers in bytes;
//! - `pmax`: unsigned Q1.16, `65536` = 1.0 (17 bits);
//! - the uniform draw `u`: unsigned Q0.16, the top 16 bits of the xorshift32
//!   state in the enqueue's cycle.
//!
//! The ramp is evaluated without a divider: `u / 2^16 < p(q)` is, multiplying
//! both sides by `2^16 * (kmax - kmin) > 0`,
//! `u * (kmax - kmin) < (q - kmin) * pmax` (left: 16 + depth_bits bits, right:
//! depth_bits + 17 bits; at most 44 and 45 bits for depth_bits <= 28). So the marking
//! probability is exactly `min(2^16, ceil((q - kmin) * pmax / (kmax - kmin))) / 2^16`,
//! which differs from the real-valued `p(q)` by less than `2^-16`.
//!
//! # Timing (the interface contract the RTL must meet)
//! - One enqueue and one dequeue per cycle (II = 1). A decision leaves
//!   [`LATENCY`] cycles after its enqueue: an enqueue presented in cycle `n`
//!   has its decision on the outputs during cycle `n + 11`.
//! - The enqueue in cycle `n` sees the depth after every event of cycles
//!   before `n`: an enqueue and a dequeue in the same cycle are applied
//!   enqueue first, and the dequeue does not make room for the enqueue of
//!   its own cycle. Back-to-back enqueues see each other exactly.
//! - The depth and underflow outputs lag by [`DEPTH_LAG`] cycles: during
//!   cycle `n` they show the depth (and flag) that an enqueue of cycle
//!   `n - 3` saw. (The RTL takes three pipeline stages to bring an event to
//!   its depth update; [`Cp::depth`] is the depth the next enqueue sees.)
//! - A dequeue subtracts its length; a dequeue longer than the queue (the
//!   user's queue and this counter disagree) clamps the depth at 0 and sets
//!   the sticky `underflow` flag, cleared only by reset.
//! - A parameter load in cycle `n` takes effect from cycle `n + 1`; the
//!   decision of an enqueue uses the parameters in force in its own cycle.
//! - The random state advances every cycle; a load replaces it by `seed`,
//!   or by the constant [`RESET_SEED`] if `seed` is 0 (whatever the
//!   configured reset seed is).
//! - `rst` (synchronous) empties the queue and the pipeline, clears
//!   `underflow`, and restores the generation-time reset parameters.

use crate::error::ParamError;
use crate::xorshift;

/// Cycles from an enqueue to its decision on the outputs.
pub const LATENCY: usize = 11;
/// Cycles by which the `depth` and `underflow` outputs lag the depth that
/// enqueues see.
pub const DEPTH_LAG: usize = 3;

/// `pmax` value that means a probability of 1 (Q1.16).
pub const PMAX_ONE: u32 = 1 << 16;
/// Width of the `pmax` port (Q1.16).
pub const PMAX_BITS: u32 = 17;
/// Width of the seed port and of the random state.
pub const SEED_BITS: u32 = 32;

/// The shape menu, written once: the depth widths and the length widths
/// the RTL can be generated with (every pair with `len_bits <= depth_bits`).
/// `cp_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [depth widths] ; [length widths] }`; the
/// constants below and the hdl crate's const-generic dispatch
/// (`ccrtl_hdl::dispatch_cp_shape!`) are both generated from it.
#[macro_export]
macro_rules! cp_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [16, 20, 24, 28] ; [12, 14, 16] }
    };
}

macro_rules! menu_constants {
    (() ; [$($d:literal),*] ; [$($l:literal),*]) => {
        /// Depth widths the RTL can be generated with.
        pub const SUPPORTED_DEPTH_BITS: &[u32] = &[$($d),*];
        /// Length widths the RTL can be generated with.
        pub const SUPPORTED_LEN_BITS: &[u32] = &[$($l),*];
    };
}
cp_shape_menu!([menu_constants];);

/// Decision codes on `m_dec_action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Action {
    /// Admitted, ECN unchanged (this includes packets that arrive CE).
    Admit = 0,
    /// Admitted and marked CE by this queue.
    Mark = 1,
    /// Dropped: not ECN-capable and `q >= kdrop`.
    DropWred = 2,
    /// Dropped: `q + len > buf_max`.
    DropTail = 3,
}

impl Action {
    pub fn from_code(code: u8) -> Option<Action> {
        match code {
            0 => Some(Action::Admit),
            1 => Some(Action::Mark),
            2 => Some(Action::DropWred),
            3 => Some(Action::DropTail),
            _ => None,
        }
    }
}

/// ECN codepoints (RFC 3168).
pub mod ecn {
    pub const NOT_ECT: u8 = 0b00;
    pub const ECT1: u8 = 0b01;
    pub const ECT0: u8 = 0b10;
    pub const CE: u8 = 0b11;
}

/// Generation-time (structural) sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpShape {
    /// Width of the queue depth and of every threshold, in bits.
    pub depth_bits: u32,
    /// Width of a packet length, in bits.
    pub len_bits: u32,
}

impl Default for CpShape {
    fn default() -> Self {
        // 16 MiB of queue, packets up to 16 KiB (9 KiB jumbo frames fit).
        CpShape {
            depth_bits: 24,
            len_bits: 14,
        }
    }
}

impl CpShape {
    pub fn validate(&self) -> Result<(), ParamError> {
        if !SUPPORTED_DEPTH_BITS.contains(&self.depth_bits) {
            return Err(ParamError::new(
                "depth_bits",
                format!(
                    "{} is not supported; choose one of {:?}",
                    self.depth_bits, SUPPORTED_DEPTH_BITS
                ),
            ));
        }
        if !SUPPORTED_LEN_BITS.contains(&self.len_bits) {
            return Err(ParamError::new(
                "len_bits",
                format!(
                    "{} is not supported; choose one of {:?}",
                    self.len_bits, SUPPORTED_LEN_BITS
                ),
            ));
        }
        if self.len_bits > self.depth_bits {
            return Err(ParamError::new(
                "len_bits",
                format!(
                    "{} exceeds depth_bits = {}: one packet could not fit the queue counter",
                    self.len_bits, self.depth_bits
                ),
            ));
        }
        Ok(())
    }

    /// Largest depth or threshold value.
    pub fn depth_max(&self) -> u32 {
        mask(self.depth_bits)
    }

    /// Largest packet length.
    pub fn len_max(&self) -> u32 {
        mask(self.len_bits)
    }
}

/// Runtime parameters, held in registers and loadable while the block runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpParams {
    /// Marking starts at this depth (bytes).
    pub kmin: u32,
    /// Every ECT packet is marked at and above this depth (bytes).
    pub kmax: u32,
    /// Marking probability just below `kmax`, Q1.16 (`65536` = 1.0).
    pub pmax: u32,
    /// Not-ECN-capable packets are dropped at and above this depth (bytes).
    pub kdrop: u32,
    /// Buffer of the queue (bytes): a packet that would take the depth above
    /// it is dropped.
    pub buf_max: u32,
    /// Seed of the random source; 0 selects the reset seed.
    pub seed: u32,
}

impl CpParams {
    /// Reset values for a shape: DCTCP-like step marking at a quarter of the
    /// buffer, WRED drop at half, the whole counter range as buffer.
    pub fn reset_for(shape: &CpShape) -> CpParams {
        let buf = shape.depth_max();
        CpParams {
            kmin: buf / 4,
            kmax: buf / 4,
            pmax: PMAX_ONE,
            kdrop: buf / 2,
            buf_max: buf,
            seed: RESET_SEED,
        }
    }

    /// Checks the parameters against each other and against the shape.
    pub fn validate(&self, shape: &CpShape) -> Result<(), ParamError> {
        let max = shape.depth_max();
        let fits = |name: &'static str, v: u32| -> Result<(), ParamError> {
            if v > max {
                Err(ParamError::new(
                    name,
                    format!(
                        "{v} does not fit depth_bits = {} (max {max})",
                        shape.depth_bits
                    ),
                ))
            } else {
                Ok(())
            }
        };
        fits("buf_max", self.buf_max)?;
        fits("kmin", self.kmin)?;
        fits("kmax", self.kmax)?;
        fits("kdrop", self.kdrop)?;
        if self.kmin > self.kmax {
            return Err(ParamError::new(
                "kmin",
                format!("kmin = {} is greater than kmax = {}", self.kmin, self.kmax),
            ));
        }
        for (name, v) in [
            ("kmin", self.kmin),
            ("kmax", self.kmax),
            ("kdrop", self.kdrop),
        ] {
            if v > self.buf_max {
                return Err(ParamError::new(
                    name,
                    format!("{name} = {v} is beyond buf_max = {}", self.buf_max),
                ));
            }
        }
        if self.pmax > PMAX_ONE {
            return Err(ParamError::new(
                "pmax",
                format!(
                    "{} (= {:.6}) is greater than 1.0 = {PMAX_ONE} in Q1.16",
                    self.pmax,
                    self.pmax as f64 / PMAX_ONE as f64
                ),
            ));
        }
        Ok(())
    }
}

/// Random state after reset, and the state a load of seed 0 selects.
pub const RESET_SEED: u32 = 0x2545_f491;

/// Generation-time configuration: sizes, and the reset values of the
/// runtime registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpConfig {
    pub shape: CpShape,
    pub reset: CpParams,
}

impl Default for CpConfig {
    fn default() -> Self {
        let shape = CpShape::default();
        CpConfig {
            shape,
            reset: CpParams::reset_for(&shape),
        }
    }
}

impl CpConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate(&self.shape)
    }
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpIn {
    pub rst: bool,
    pub enq_valid: bool,
    pub enq_len: u32,
    pub enq_ecn: u8,
    pub deq_valid: bool,
    pub deq_len: u32,
    pub cfg_valid: bool,
    pub cfg: CpParamsPort,
}

/// The parameter-load port as raw values (may hold anything the port widths
/// allow; only [`CpParams::validate`]d sets are meaningful to users).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpParamsPort {
    pub kmin: u32,
    pub kmax: u32,
    pub pmax: u32,
    pub kdrop: u32,
    pub buf_max: u32,
    pub seed: u32,
}

impl From<CpParams> for CpParamsPort {
    fn from(p: CpParams) -> Self {
        CpParamsPort {
            kmin: p.kmin,
            kmax: p.kmax,
            pmax: p.pmax,
            kdrop: p.kdrop,
            buf_max: p.buf_max,
            seed: p.seed,
        }
    }
}

/// Outputs during one clock cycle (registered: they depend only on state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpOut {
    pub dec_valid: bool,
    /// [`Action`] code; 0 when `dec_valid` is low.
    pub dec_action: u8,
    /// ECN codepoint the packet leaves with; 0 when `dec_valid` is low and
    /// for a dropped packet.
    pub dec_ecn: u8,
    /// Queue depth in bytes that an enqueue of [`DEPTH_LAG`] cycles ago saw.
    pub depth: u32,
    /// Sticky: a dequeue was longer than the queue (lagging like `depth`).
    pub underflow: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Decision {
    valid: bool,
    action: u8,
    ecn: u8,
}

/// The golden model of CP: one [`Cp::step`] per clock cycle.
#[derive(Debug, Clone)]
pub struct Cp {
    config: CpConfig,
    params: CpParamsPort,
    depth: u32,
    underflow: bool,
    rng: u32,
    /// `pipe[i]` holds the decision of the enqueue made `i + 1` cycles ago.
    pipe: [Decision; LATENCY],
    /// `lag[i]`: depth and underflow at the start of the cycle `i + 1`
    /// cycles ago (what the outputs show [`DEPTH_LAG`] cycles later).
    lag: [(u32, bool); DEPTH_LAG],
}

impl Cp {
    /// A model in its reset state. The configuration must be valid.
    pub fn new(config: CpConfig) -> Result<Cp, ParamError> {
        config.validate()?;
        Ok(Cp {
            config,
            params: config.reset.into(),
            depth: 0,
            underflow: false,
            rng: seed_or_reset(config.reset.seed),
            pipe: [Decision::default(); LATENCY],
            lag: [(0, false); DEPTH_LAG],
        })
    }

    pub fn config(&self) -> &CpConfig {
        &self.config
    }

    /// The queue depth in bytes that an enqueue in the current cycle sees
    /// (the `depth` output shows it [`DEPTH_LAG`] cycles later).
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The depth an enqueue of the previous cycle saw (0 right after a
    /// reset).
    #[inline]
    pub fn previous_depth(&self) -> u32 {
        self.lag[0].0
    }

    /// The action code decided for an enqueue of the previous cycle, if
    /// there was one (it reaches the outputs [`LATENCY`] - 1 cycles later).
    #[inline]
    pub fn previous_action(&self) -> Option<u8> {
        let d = self.pipe[0];
        d.valid.then_some(d.action)
    }

    /// Parameters in force (those the next enqueue will use).
    #[inline]
    pub fn params(&self) -> CpParamsPort {
        self.params
    }

    /// The uniform draw (Q0.16) an enqueue in the current cycle would use.
    #[inline]
    pub fn draw(&self) -> u32 {
        self.rng >> 16
    }

    /// The outputs during the current cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> CpOut {
        let d = self.pipe[LATENCY - 1];
        let (depth, underflow) = self.lag[DEPTH_LAG - 1];
        CpOut {
            dec_valid: d.valid,
            dec_action: d.action,
            dec_ecn: d.ecn,
            depth,
            underflow,
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    #[inline]
    pub fn step(&mut self, i: &CpIn) -> CpOut {
        debug_assert!(i.enq_len <= self.config.shape.len_max());
        debug_assert!(i.deq_len <= self.config.shape.len_max());
        debug_assert!(i.enq_ecn <= 3);
        let out = self.outputs();
        if i.rst {
            *self = Cp::new(self.config).expect("config was validated");
            return out;
        }

        let q = self.depth;
        let p = self.params;
        let u = self.draw(); // Q0.16 uniform draw of this cycle
        for k in (1..DEPTH_LAG).rev() {
            self.lag[k] = self.lag[k - 1];
        }
        self.lag[0] = (q, self.underflow);

        let mut added = 0;
        let decision = if i.enq_valid {
            let (action, ecn_out) = if i.enq_ecn == ecn::NOT_ECT && q >= p.kdrop {
                (Action::DropWred, 0)
            } else if q as u64 + i.enq_len as u64 > p.buf_max as u64 {
                (Action::DropTail, 0)
            } else {
                added = i.enq_len;
                match i.enq_ecn {
                    ecn::ECT0 | ecn::ECT1 if mark(q, u, &p) => (Action::Mark, ecn::CE),
                    other => (Action::Admit, other),
                }
            };
            Decision {
                valid: true,
                action: action as u8,
                ecn: ecn_out,
            }
        } else {
            Decision::default()
        };

        // Depth: enqueue first, then the dequeue of the same cycle.
        let after_enq = q + added;
        self.depth = if i.deq_valid {
            if i.deq_len > after_enq {
                self.underflow = true;
                0
            } else {
                after_enq - i.deq_len
            }
        } else {
            after_enq
        };

        // Shift the decision pipeline by one stage.
        for k in (1..LATENCY).rev() {
            self.pipe[k] = self.pipe[k - 1];
        }
        self.pipe[0] = decision;

        if i.cfg_valid {
            self.params = i.cfg;
            self.rng = seed_or_reset(i.cfg.seed);
        } else {
            self.rng = xorshift::next(self.rng);
        }
        out
    }
}

#[inline]
fn seed_or_reset(seed: u32) -> u32 {
    if seed == 0 {
        RESET_SEED
    } else {
        seed
    }
}

/// The marking rule for an ECT packet at depth `q` with draw `u` (Q0.16).
#[inline]
fn mark(q: u32, u: u32, p: &CpParamsPort) -> bool {
    if q >= p.kmax {
        return true;
    }
    if q < p.kmin {
        return false;
    }
    // kmin <= q < kmax, so kmax - kmin >= 1.
    let span = (p.kmax - p.kmin) as u64; // depth_bits
    let over = (q - p.kmin) as u64; // depth_bits, < span
    (u as u64) * span < over * (p.pmax as u64) // 16 + depth_bits vs depth_bits + 17
}

/// Float references of the published equations.
pub mod reference {
    /// RED/ECN marking probability at instantaneous depth `q` (seed 001 §2.1).
    pub fn mark_probability(q: f64, kmin: f64, kmax: f64, pmax: f64) -> f64 {
        if q < kmin {
            0.0
        } else if q < kmax {
            (q - kmin) / (kmax - kmin) * pmax
        } else {
            1.0
        }
    }

    /// Converts a probability in `[0, 1]` to the Q1.16 `pmax` register value,
    /// rounding to nearest (error at most 2^-17).
    pub fn pmax_q16(p: f64) -> Option<u32> {
        if !(0.0..=1.0).contains(&p) {
            return None;
        }
        Some((p * super::PMAX_ONE as f64).round() as u32)
    }
}

fn mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}
