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
//! # Queues and where marking happens (generation time)
//! - `queues` = Q in {1, 2, 4, 8} independent queues (priorities) share the
//!   block. Every enqueue and dequeue names its queue (`enq_queue`,
//!   `deq_queue`, `queue_bits = max(1, log2 Q)` wide; with Q = 1 the index
//!   is ignored). Each queue has its own depth, its own sticky underflow
//!   bit and its own parameter set (a profile, loaded by index with
//!   `cfg_queue`); the random source is shared.
//! - `mark_at`: with [`MarkAt::Enqueue`] (the default) an ECT packet is
//!   marked when it arrives, on the depth it finds (rule 3 above). With
//!   [`MarkAt::Dequeue`] the arriving packet is only admitted or dropped
//!   (ECN unchanged) and the marking rule is applied to the departing
//!   packet instead, on the depth of its queue at its departure: a dequeue
//!   carries the packet's ECN (`deq_ecn`) and gets its decision (marked or
//!   not, ECN out) at the same latency as an enqueue. Marking at departure
//!   signals congestion one queueing delay sooner. In enqueue mode every
//!   dequeue's decision is "not marked", ECN out = ECN in.
//!
//! # Fixed-point formats
//! - depths, thresholds and lengths: unsigned integers in bytes;
//! - `pmax`: unsigned Q1.16, `65536` = 1.0 (17 bits);
//! - the uniform draw `u`: unsigned Q0.16, the top 16 bits of the xorshift32
//!   state in the cycle of the event being marked (the enqueue, or with
//!   [`MarkAt::Dequeue`] the dequeue).
//!
//! The ramp is evaluated without a divider: `u / 2^16 < p(q)` is, multiplying
//! both sides by `2^16 * (kmax - kmin) > 0`,
//! `u * (kmax - kmin) < (q - kmin) * pmax` (left: 16 + depth_bits bits, right:
//! depth_bits + 17 bits; at most 44 and 45 bits for depth_bits <= 28). So the marking
//! probability is exactly `min(2^16, ceil((q - kmin) * pmax / (kmax - kmin))) / 2^16`,
//! which differs from the real-valued `p(q)` by less than `2^-16`.
//!
//! # Timing (the interface contract the RTL must meet)
//! - One enqueue and one dequeue per cycle (II = 1), to any queues,
//!   including the same queue in back-to-back cycles. A decision leaves
//!   [`LATENCY`] cycles after its event: an enqueue (or dequeue) presented
//!   in cycle `n` has its decision on the outputs during cycle `n + 12`.
//! - An enqueue or a dequeue in cycle `n` sees the depth of its queue after
//!   every event of cycles before `n`. An enqueue and a dequeue in the same
//!   cycle on the same queue are applied enqueue first, and the dequeue
//!   does not make room for the enqueue of its own cycle (nor does the
//!   enqueue count in the depth the dequeue is marked on). Back-to-back
//!   events see each other exactly.
//! - The depth and underflow outputs lag by [`DEPTH_LAG`] cycles: during
//!   cycle `n` the depth output shows the depth of queue `depth_sel`
//!   (presented in cycle `n - 3`) at the start of cycle `n - 3`, the depth
//!   an enqueue to it in that cycle saw; `underflow` holds one sticky bit
//!   per queue with the same lag. (The RTL takes three pipeline stages to
//!   bring an event to its depth update; [`Cp::depth`] is the depth the
//!   next enqueue sees.)
//! - A dequeue subtracts its length; a dequeue longer than its queue (the
//!   user's queue and this counter disagree) clamps the depth at 0 and sets
//!   the queue's sticky `underflow` bit, cleared only by reset.
//! - A parameter load in cycle `n` replaces the profile of queue
//!   `cfg_queue` from cycle `n + 1`; an event's decision uses the profile of
//!   its queue in force in its own cycle.
//! - The random state advances every cycle; a load (of any queue's
//!   profile) replaces it by `seed`, or by the constant [`RESET_SEED`] if
//!   `seed` is 0 (whatever the configured reset seed is). One draw per
//!   cycle serves the one event of the cycle that can be marked (the
//!   enqueue, or with [`MarkAt::Dequeue`] the dequeue).
//! - `rst` (synchronous) empties every queue and the pipeline, clears the
//!   underflow bits, and restores the generation-time reset parameters
//!   (the same profile for every queue). Events and loads in a reset cycle
//!   are ignored, and the lagging outputs read 0 from the cycle after the
//!   reset until they show the depths after it (no decision and no depth
//!   from before the reset comes out after it).

use crate::error::ParamError;
use crate::mask;
use crate::xorshift;

/// Cycles from an enqueue to its decision on the outputs.
pub const LATENCY: usize = 12;
/// Cycles by which the `depth` and `underflow` outputs lag the depth that
/// enqueues see.
pub const DEPTH_LAG: usize = 3;

/// `pmax` value that means a probability of 1 (Q1.16).
pub const PMAX_ONE: u32 = 1 << 16;
/// Width of the `pmax` port (Q1.16).
pub const PMAX_BITS: u32 = 17;
/// Width of the seed port and of the random state.
pub const SEED_BITS: u32 = 32;

/// The shape menu, written once: the depth widths, the length widths
/// (every pair with `len_bits <= depth_bits`) and the queue counts, each
/// with its index width, the RTL can be generated with.
/// `cp_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [depth widths] ; [length widths] ; [(queues, queue_bits)] }`;
/// the constants below and the hdl crate's const-generic dispatch
/// (`ccrtl_hdl::dispatch_cp_shape!`) are both generated from it.
#[macro_export]
macro_rules! cp_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [16, 20, 24, 28] ; [12, 14, 16] ; [(1, 1), (2, 1), (4, 2), (8, 3)] }
    };
}

macro_rules! menu_constants {
    (() ; [$($d:literal),*] ; [$($l:literal),*] ; [$(($q:literal, $qb:literal)),*]) => {
        /// Depth widths the RTL can be generated with.
        pub const SUPPORTED_DEPTH_BITS: &[u32] = &[$($d),*];
        /// Length widths the RTL can be generated with.
        pub const SUPPORTED_LEN_BITS: &[u32] = &[$($l),*];
        /// Queue counts the RTL can be generated with.
        pub const SUPPORTED_QUEUES: &[u32] = &[$($q),*];
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

/// Where the marking rule is applied (generation time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MarkAt {
    /// To the arriving packet, on the depth it finds.
    #[default]
    Enqueue,
    /// To the departing packet, on the depth of its queue at its departure.
    Dequeue,
}

impl MarkAt {
    /// The name used in params files and reports.
    pub fn name(self) -> &'static str {
        match self {
            MarkAt::Enqueue => "enqueue",
            MarkAt::Dequeue => "dequeue",
        }
    }
    pub fn from_name(name: &str) -> Option<MarkAt> {
        match name {
            "enqueue" => Some(MarkAt::Enqueue),
            "dequeue" => Some(MarkAt::Dequeue),
            _ => None,
        }
    }
}

/// Generation-time (structural) sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpShape {
    /// Width of the queue depth and of every threshold, in bits.
    pub depth_bits: u32,
    /// Width of a packet length, in bits.
    pub len_bits: u32,
    /// Number of queues (priorities), each with its depth and profile.
    pub queues: u32,
    /// Where ECT packets are marked.
    pub mark_at: MarkAt,
}

impl Default for CpShape {
    fn default() -> Self {
        // 16 MiB of queue, packets up to 16 KiB (9 KiB jumbo frames fit).
        CpShape::new(24, 14)
    }
}

impl CpShape {
    /// One queue, marking at enqueue.
    pub const fn new(depth_bits: u32, len_bits: u32) -> CpShape {
        CpShape {
            depth_bits,
            len_bits,
            queues: 1,
            mark_at: MarkAt::Enqueue,
        }
    }

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
        if !SUPPORTED_QUEUES.contains(&self.queues) {
            return Err(ParamError::new(
                "queues",
                format!(
                    "{} is not supported; choose one of {:?}",
                    self.queues, SUPPORTED_QUEUES
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

    /// Width of a queue index port: `log2(queues)`, at least 1.
    pub fn queue_bits(&self) -> u32 {
        self.queues.max(2).trailing_zeros()
    }

    /// The queue an index names: its low `log2(queues)` bits (with one
    /// queue, every index names queue 0).
    #[inline]
    pub fn queue_of(&self, index: u8) -> usize {
        (index as u32 & (self.queues - 1)) as usize
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
    /// Queue of the enqueue ([`CpShape::queue_of`]).
    pub enq_queue: u8,
    pub deq_valid: bool,
    pub deq_len: u32,
    /// ECN codepoint of the departing packet.
    pub deq_ecn: u8,
    /// Queue of the dequeue.
    pub deq_queue: u8,
    pub cfg_valid: bool,
    /// Queue whose profile the load replaces.
    pub cfg_queue: u8,
    pub cfg: CpParamsPort,
    /// Queue whose depth the `depth` output shows ([`DEPTH_LAG`] later).
    pub depth_sel: u8,
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
    /// The decision of a dequeue of [`LATENCY`] cycles ago.
    pub deq_valid: bool,
    /// The departing packet was marked CE by this queue (only with
    /// [`MarkAt::Dequeue`]); 0 when `deq_valid` is low.
    pub deq_mark: bool,
    /// ECN codepoint the departing packet leaves with; 0 when `deq_valid`
    /// is low.
    pub deq_ecn: u8,
    /// Depth in bytes of the queue `depth_sel` named [`DEPTH_LAG`] cycles
    /// ago, as an enqueue to it then saw it.
    pub depth: u32,
    /// Sticky, one bit per queue (bit `i` for queue `i`): a dequeue was
    /// longer than the queue (lagging like `depth`).
    pub underflow: u8,
}

/// The decisions of one cycle's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Decision {
    valid: bool,
    action: u8,
    ecn: u8,
    deq_valid: bool,
    deq_mark: bool,
    deq_ecn: u8,
}

/// Most queues of any shape (the model's arrays are this long).
pub const MAX_QUEUES: usize = 8;

/// The golden model of CP: one [`Cp::step`] per clock cycle.
#[derive(Debug, Clone)]
pub struct Cp {
    config: CpConfig,
    /// The profile of each queue (entries from `queues` on are unused).
    params: [CpParamsPort; MAX_QUEUES],
    depth: [u32; MAX_QUEUES],
    /// Sticky underflow, bit `i` for queue `i`.
    underflow: u8,
    /// The queues whose dequeue underflowed in the previous cycle.
    underflowed: u8,
    rng: u32,
    /// A ring: `pipe[(head + i) % LATENCY]` holds the decisions of the
    /// events of `i + 1` cycles ago (a step moves `head`, not the entries).
    pipe: [Decision; LATENCY],
    /// A ring: `lag[(lag_head + i) % DEPTH_LAG]` holds the selected depth
    /// and the underflow bits at the start of the cycle `i + 1` cycles ago
    /// (what the outputs show [`DEPTH_LAG`] cycles later).
    lag: [(u32, u8); DEPTH_LAG],
    head: usize,
    lag_head: usize,
}

impl Cp {
    /// A model in its reset state. The configuration must be valid.
    pub fn new(config: CpConfig) -> Result<Cp, ParamError> {
        config.validate()?;
        Ok(Cp {
            config,
            params: [config.reset.into(); MAX_QUEUES],
            depth: [0; MAX_QUEUES],
            underflow: 0,
            underflowed: 0,
            rng: seed_or_reset(config.reset.seed),
            pipe: [Decision::default(); LATENCY],
            lag: [(0, 0); DEPTH_LAG],
            head: 0,
            lag_head: 0,
        })
    }

    pub fn config(&self) -> &CpConfig {
        &self.config
    }

    /// The depth in bytes of queue 0 that an event in the current cycle
    /// sees (the `depth` output shows it [`DEPTH_LAG`] cycles later).
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth[0]
    }

    /// The depth of queue `queue` (an index below `queues`) that an event
    /// in the current cycle sees.
    #[inline]
    pub fn queue_depth(&self, queue: usize) -> u32 {
        self.depth[queue]
    }

    /// The sticky underflow bits now (bit `i` for queue `i`).
    #[inline]
    pub fn underflow_bits(&self) -> u8 {
        self.underflow
    }

    /// The queues (bit `i` for queue `i`) whose dequeue in the previous
    /// cycle was longer than the queue.
    #[inline]
    pub fn previous_underflows(&self) -> u8 {
        self.underflowed
    }

    /// The depth the `depth` output will show for the previous cycle's
    /// `depth_sel` (0 right after a reset).
    #[inline]
    pub fn previous_depth(&self) -> u32 {
        self.lag[self.lag_head].0
    }

    /// The action code decided for an enqueue of the previous cycle, if
    /// there was one (it reaches the outputs [`LATENCY`] - 1 cycles later).
    #[inline]
    pub fn previous_action(&self) -> Option<u8> {
        let d = self.pipe[self.head];
        d.valid.then_some(d.action)
    }

    /// Parameters in force for queue 0 (those its next event will use).
    #[inline]
    pub fn params(&self) -> CpParamsPort {
        self.params[0]
    }

    /// Parameters in force for queue `queue` (below `queues`).
    #[inline]
    pub fn queue_params(&self, queue: usize) -> CpParamsPort {
        self.params[queue]
    }

    /// The uniform draw (Q0.16) an event in the current cycle would use.
    #[inline]
    pub fn draw(&self) -> u32 {
        self.rng >> 16
    }

    /// The outputs during the current cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> CpOut {
        // The oldest entries: just before the heads.
        let d = self.pipe[back(self.head, LATENCY)];
        let (depth, underflow) = self.lag[back(self.lag_head, DEPTH_LAG)];
        CpOut {
            dec_valid: d.valid,
            dec_action: d.action,
            dec_ecn: d.ecn,
            deq_valid: d.deq_valid,
            deq_mark: d.deq_mark,
            deq_ecn: d.deq_ecn,
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
        debug_assert!(i.enq_ecn <= 3 && i.deq_ecn <= 3);
        let out = self.outputs();
        if i.rst {
            *self = Cp::new(self.config).expect("config was validated");
            return out;
        }
        let shape = self.config.shape;
        let u = self.draw(); // Q0.16 uniform draw of this cycle

        // Shift the lag line by one: the oldest entry becomes the newest.
        self.lag_head = back(self.lag_head, DEPTH_LAG);
        self.lag[self.lag_head] = (self.depth[shape.queue_of(i.depth_sel)], self.underflow);

        // Both events see the depths at the start of the cycle.
        let qe = shape.queue_of(i.enq_queue);
        let qd = shape.queue_of(i.deq_queue);
        let q = self.depth[qe];
        let q_deq = self.depth[qd];

        let mut added = 0;
        let mut decision = Decision::default();
        if i.enq_valid {
            let p = &self.params[qe];
            let (action, ecn_out) = if i.enq_ecn == ecn::NOT_ECT && q >= p.kdrop {
                (Action::DropWred, 0)
            } else if q as u64 + i.enq_len as u64 > p.buf_max as u64 {
                (Action::DropTail, 0)
            } else {
                added = i.enq_len;
                match i.enq_ecn {
                    ecn::ECT0 | ecn::ECT1 if shape.mark_at == MarkAt::Enqueue && mark(q, u, p) => {
                        (Action::Mark, ecn::CE)
                    }
                    other => (Action::Admit, other),
                }
            };
            decision.valid = true;
            decision.action = action as u8;
            decision.ecn = ecn_out;
        }
        if i.deq_valid {
            let marked = shape.mark_at == MarkAt::Dequeue
                && matches!(i.deq_ecn, ecn::ECT0 | ecn::ECT1)
                && mark(q_deq, u, &self.params[qd]);
            decision.deq_valid = true;
            decision.deq_mark = marked;
            decision.deq_ecn = if marked { ecn::CE } else { i.deq_ecn };
        }

        // Depths: the enqueue first, then the dequeue of the same cycle.
        self.depth[qe] += added;
        self.underflowed = 0;
        if i.deq_valid {
            let d = &mut self.depth[qd];
            if i.deq_len > *d {
                self.underflowed = 1 << qd;
                self.underflow |= 1 << qd;
                *d = 0;
            } else {
                *d -= i.deq_len;
            }
        }

        // Shift the decision pipeline by one stage.
        self.head = back(self.head, LATENCY);
        self.pipe[self.head] = decision;

        if i.cfg_valid {
            self.params[shape.queue_of(i.cfg_queue)] = i.cfg;
            self.rng = seed_or_reset(i.cfg.seed);
        } else {
            self.rng = xorshift::next(self.rng);
        }
        out
    }
}

/// The ring index before `i` (of `n`).
#[inline]
fn back(i: usize, n: usize) -> usize {
    if i == 0 {
        n - 1
    } else {
        i - 1
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
