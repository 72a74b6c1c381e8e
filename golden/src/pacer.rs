//! PACER — per-flow rate enforcement: a token bucket per flow, refilled lazily.
//!
//! A transmit scheduler asks, one request per cycle, whether flow `f` may
//! send a packet of `L` bytes now; the pacer answers grant or defer so that
//! each flow's long-run byte rate is at most its rate `Rc` (from `rp`'s rate
//! stream) and equal to it while the flow is backlogged. The contract is
//! `docs/pacer.md`; this module implements it as written there.
//!
//! # The rule, on the clock-cycle count
//! All numbers are integers. A flow's rate `R` is in Mb/s (19 bits). A
//! *token* is one Mb/s for one cycle, so a flow at `R` Mb/s earns `R` tokens
//! per cycle, and a byte is `byte_time` tokens (the register `byte_time` is
//! `8 x` the clock in MHz: the cycles one byte takes at 1 Mb/s). Every
//! bucket holds at most `D = bucket x byte_time` tokens; a packet of `L`
//! bytes costs `L x byte_time`.
//!
//! A request is *accepted* in cycle `n` when `req_valid` and `req_ready` are
//! high and `rst` is low. A *touch* of flow `f` in cycle `n` is an accepted
//! request of `f` or the refresh of `f` (below). At a touch, with `bucket`,
//! `byte_time` and `init_rate` the register values in force in cycle `n`:
//! - `R` is the rate of the last rate update of `f` accepted in a cycle
//!   before `n` since the last reset, or `init_rate` if there was none;
//! - if `f` was touched since the last reset, last in cycle `m`, leaving
//!   `T_f` tokens: `avail = min(D, T_f + R (n - m))`; otherwise `avail = D`
//!   (a flow not touched since the reset has a full bucket);
//! - a request of `L` bytes is granted iff `avail >= L byte_time`, and then
//!   `T_f = avail - L byte_time`, else `T_f = avail`; a refresh sets
//!   `T_f = avail` and has no decision;
//! - `m = n`.
//!
//! So the rate in force at a touch counts for the whole gap since the
//! flow's last touch: a rate update settles nothing by itself.
//!
//! *Refresh.* Counting `j = 0, 1, ...` from the first cycle after a reset's
//! clearing (cycle `n0 + F + 1` for a reset in `n0`), cycle `j` is a refresh
//! cycle when `j mod 2^refresh_bits = 2^refresh_bits - 1`; `req_ready` is
//! low in it and the block touches flow `floor(j / 2^refresh_bits) mod F`.
//! Every flow is thus touched at least every `P = 2^(flow_bits +
//! refresh_bits)` cycles ([`PacerShape::refresh_period`]), which keeps the
//! RTL's timestamps of [`PacerShape::stamp_bits`] bits exact. The model
//! keeps cycles as `u64` and its arithmetic in `u64` with saturation before
//! the `min(D, ..)`, so nothing wraps: a flow silent for any time behaves as
//! the rule says.
//!
//! A rate update is *accepted* in cycle `n` when `rate_valid` and
//! `rate_ready` are high and `rst` is low; it sets the rate of `rate_flow`
//! to `rate_rc` for touches from cycle `n + 1` on (a request or refresh in
//! cycle `n` uses the old rate).
//!
//! With a clock of `f` MHz, `byte_time = round(8 f)` ([`byte_time_for_clock`]):
//! exact for a clock in eighths of a MHz, else a flow is paced at `R
//! (8 f / byte_time)`, within `0.5 / byte_time` of `R` relative, which
//! `reference::tests` measures against an ideal token bucket in real time.
//!
//! # Timing (the interface contract the RTL must meet)
//! - One request per cycle (II = 1), including back-to-back requests of one
//!   flow, which see each other's tokens exactly, in every cycle but the
//!   refresh cycles. A rate update may come in any cycle `rate_ready` is
//!   high, with a request or in a refresh cycle.
//! - A request accepted in cycle `n` has its decision on `dec_valid`,
//!   `dec_flow`, `dec_grant` during cycle `n + LATENCY` (`n + 16`);
//!   `dec_flow` is 0 and `dec_grant` low when `dec_valid` is low. The
//!   outputs are registered (they depend on state only).
//! - A register write (`cfg_valid`, `cfg_addr`, `cfg_data`) in cycle `n` is
//!   in force from cycle `n + 1`. Addresses not in [`REGISTERS`] are
//!   ignored, as are data bits above a register's width.
//! - `rst` in cycle `n` drops every decision in flight (none of a request
//!   accepted before `n` comes out from `n + 1` on), forgets every flow
//!   (every bucket full, every rate `init_rate`) and restores the registers'
//!   reset values; requests, rate updates and writes in a reset cycle are
//!   ignored. The RTL then clears its flow table one flow per cycle:
//!   `req_ready` and `rate_ready` are low in cycles `n + 1 ..= n + F`
//!   (`F = 2^flow_bits`); from `n + F + 1` `rate_ready` is high and
//!   `req_ready` is low only in refresh cycles. A reset during the clearing
//!   starts it again.
//! - The RTL's outputs are undefined before its first reset. The model
//!   starts as if a reset had been applied in the cycle before its first
//!   step: both readies are low during its first `F` steps.
//! - Only the low port-width bits of each input are ports: `flow_bits` of
//!   `req_flow` and `rate_flow`, 16 of `req_bytes`, 19 of `rate_rc`, 5 of
//!   `cfg_addr`.

use crate::error::ParamError;
use crate::mask;
pub use crate::register::Register;

/// Cycles from an accepted request to its decision on the outputs.
pub const LATENCY: usize = 16;

/// Width of the `bucket` register (bytes, to 131,071).
pub const BUCKET_BITS: u32 = 17;
/// Width of the `byte_time` register (cycles per byte at 1 Mb/s, to 16,383:
/// clocks to 2,047 MHz).
pub const BYTE_TIME_BITS: u32 = 14;
/// Rates (`rate_rc`, `init_rate`) are Mb/s in 19 bits, as `rp`'s `Rc`.
pub const RATE_BITS: u32 = crate::rp::RATE_BITS;
/// Width of `req_bytes` (a packet's length in bytes).
pub const BYTES_BITS: u32 = 16;
/// Width of `cfg_addr`.
pub const CFG_ADDR_BITS: u32 = 5;
/// A bucket holds at most `D = bucket x byte_time < 2^TOKEN_BITS` tokens.
pub const TOKEN_BITS: u32 = BUCKET_BITS + BYTE_TIME_BITS;

/// The shape menu, written once: the flow-id widths and the refresh widths
/// the RTL can be generated with.
/// `pacer_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [flow widths] ; [refresh widths] }`; the constants
/// below and the hdl crate's const-generic dispatch are generated from it.
#[macro_export]
macro_rules! pacer_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [4, 8, 12, 14] ; [2, 6, 10] }
    };
}

macro_rules! menu_constants {
    (() ; [$($f:literal),*] ; [$($r:literal),*]) => {
        /// Flow-id widths the RTL can be generated with.
        pub const SUPPORTED_FLOW_BITS: &[u32] = &[$($f),*];
        /// Refresh widths (one refresh cycle in `2^refresh_bits`) the RTL
        /// can be generated with.
        pub const SUPPORTED_REFRESH_BITS: &[u32] = &[$($r),*];
    };
}
pacer_shape_menu!([menu_constants];);

/// Generation-time (structural) sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacerShape {
    /// Width of a flow id: `F = 2^flow_bits` flows.
    pub flow_bits: u32,
    /// One cycle in `2^refresh_bits` is a refresh cycle.
    pub refresh_bits: u32,
}

impl Default for PacerShape {
    fn default() -> Self {
        // 16,384 flows (as rp); a refresh cycle in 1,024 (0.1%), every flow
        // touched at least every 2^24 cycles (112 ms at 150 MHz).
        PacerShape {
            flow_bits: 14,
            refresh_bits: 10,
        }
    }
}

impl PacerShape {
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v, menu) in [
            ("flow_bits", self.flow_bits, SUPPORTED_FLOW_BITS),
            ("refresh_bits", self.refresh_bits, SUPPORTED_REFRESH_BITS),
        ] {
            if !menu.contains(&v) {
                return Err(ParamError::new(
                    name,
                    format!("{v} is not supported; choose one of {menu:?}"),
                ));
            }
        }
        Ok(())
    }

    /// Number of flows, `F = 2^flow_bits` (also the cycles a reset's
    /// clearing takes).
    pub fn flows(&self) -> u32 {
        1 << self.flow_bits
    }

    /// `P = 2^(flow_bits + refresh_bits)`: the refresh touches every flow
    /// once every `P` cycles (after a reset's clearing).
    pub fn refresh_period(&self) -> u64 {
        1 << (self.flow_bits + self.refresh_bits)
    }

    /// Width of the RTL's per-flow timestamps, `flow_bits + refresh_bits + 1`:
    /// it takes `n - m` modulo `2^stamp_bits`, exact because the refresh
    /// keeps `n - m <= P < 2^stamp_bits` for every touched flow.
    pub fn stamp_bits(&self) -> u32 {
        self.flow_bits + self.refresh_bits + 1
    }
}

/// Runtime parameters: the registers (reset values, or values in force).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacerParams {
    /// Depth of every bucket, bytes (`BUCKET_BITS`).
    pub bucket: u32,
    /// Cycles per byte at 1 Mb/s, `8 x` the clock in MHz (`BYTE_TIME_BITS`).
    pub byte_time: u32,
    /// Rate of a flow with no rate update since the reset, Mb/s (`RATE_BITS`).
    pub init_rate: u32,
}

impl PacerParams {
    /// Reset values (the same for every shape): a bucket of 16,384 bytes,
    /// `byte_time` 1,200 (150 MHz), 100 Gb/s.
    pub fn reset_for(_shape: &PacerShape) -> PacerParams {
        PacerParams {
            bucket: 16_384,
            byte_time: 1_200,
            init_rate: 100_000,
        }
    }

    /// The value of the register at `addr` ([`REGISTERS`]); `None` for an
    /// address not in the map.
    pub fn read(&self, addr: u32) -> Option<u32> {
        match addr {
            0 => Some(self.bucket),
            1 => Some(self.byte_time),
            2 => Some(self.init_rate),
            _ => None,
        }
    }

    /// Refuses, by name, a value that does not fit its register.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v, bits) in [
            ("bucket", self.bucket, BUCKET_BITS),
            ("byte_time", self.byte_time, BYTE_TIME_BITS),
            ("init_rate", self.init_rate, RATE_BITS),
        ] {
            if v > mask(bits) {
                return Err(ParamError::new(
                    name,
                    format!(
                        "{v} does not fit the {bits}-bit register (max {})",
                        mask(bits)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The register map, the one source of the `cfg` port's addresses. A write
/// of an address not here is ignored; data bits above a register's width
/// are ignored.
pub const REGISTERS: &[Register] = &[
    Register {
        addr: 0,
        name: "bucket",
        bits: BUCKET_BITS,
        doc: "depth of every bucket, bytes",
    },
    Register {
        addr: 1,
        name: "byte_time",
        bits: BYTE_TIME_BITS,
        doc: "cycles per byte at 1 Mb/s (8 x the clock in MHz); 0 makes every packet free",
    },
    Register {
        addr: 2,
        name: "init_rate",
        bits: RATE_BITS,
        doc: "the rate of a flow with no rate update since the reset, Mb/s",
    },
];

/// Generation-time configuration: sizes, and the registers' reset values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacerConfig {
    pub shape: PacerShape,
    pub reset: PacerParams,
}

impl Default for PacerConfig {
    fn default() -> Self {
        let shape = PacerShape::default();
        PacerConfig {
            shape,
            reset: PacerParams::reset_for(&shape),
        }
    }
}

impl PacerConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate()
    }
}

/// `byte_time` for a clock of `clock_mhz` MHz: `8 x clock_mhz` rounded to
/// nearest (half away from zero), so a flow is paced within `0.5 /
/// byte_time` of its rate (exactly for a clock in eighths of a MHz).
/// Refuses (as `byte_time`) a clock that is not positive and finite, one
/// slower than 1/16 MHz (it would round to 0, which makes every packet
/// free) and one that does not fit the register (2,047.9375 MHz and up).
pub fn byte_time_for_clock(clock_mhz: f64) -> Result<u32, ParamError> {
    if !(clock_mhz.is_finite() && clock_mhz > 0.0) {
        return Err(ParamError::new(
            "byte_time",
            format!("{clock_mhz} MHz is not a positive finite clock"),
        ));
    }
    let t = (8.0 * clock_mhz).round();
    if t < 1.0 || t > mask(BYTE_TIME_BITS) as f64 {
        return Err(ParamError::new(
            "byte_time",
            format!(
                "{clock_mhz} MHz needs byte_time {t}, outside 1 ..= {} (clocks from 0.0625 to below 2047.9375 MHz)",
                mask(BYTE_TIME_BITS)
            ),
        ));
    }
    Ok(t as u32)
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
/// Only the low port-width bits of each field are ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PacerIn {
    pub rst: bool,
    pub req_valid: bool,
    /// The flow that asks (low `flow_bits`).
    pub req_flow: u32,
    /// The packet's length, bytes (low 16 bits).
    pub req_bytes: u32,
    pub rate_valid: bool,
    /// The flow whose rate is updated (low `flow_bits`).
    pub rate_flow: u32,
    /// Its new rate, Mb/s (low 19 bits).
    pub rate_rc: u32,
    pub cfg_valid: bool,
    /// Register address (low 5 bits; the map is [`REGISTERS`]).
    pub cfg_addr: u32,
    /// Value (bits above the register's width ignored).
    pub cfg_data: u32,
}

/// Outputs during one clock cycle (registered: they depend only on state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PacerOut {
    /// Low while the flow table is cleared after a reset, and in refresh cycles.
    pub req_ready: bool,
    /// Low while the flow table is cleared after a reset.
    pub rate_ready: bool,
    /// The decision of a request accepted [`LATENCY`] cycles ago.
    pub dec_valid: bool,
    /// Its flow; 0 when `dec_valid` is low.
    pub dec_flow: u32,
    /// 1: send the packet now; 0: not yet, ask again. Low when `dec_valid` is.
    pub dec_grant: bool,
}

/// A flow's word. `stamp` and `rate_stamp` are cycle + 1 of the flow's last
/// touch and last accepted rate update; a stamp `<= floor` is from before
/// the last reset (0: never).
#[derive(Debug, Clone, Copy, Default)]
struct Flow {
    stamp: u64,
    rate_stamp: u64,
    /// `T_f`, tokens (at most `D < 2^31`).
    tokens: u32,
    /// The rate of the last update, Mb/s (valid if `rate_stamp > floor`).
    rate: u32,
}

/// The golden model of PACER: one [`Pacer::step`] per clock cycle.
#[derive(Clone)]
pub struct Pacer {
    config: PacerConfig,
    flow_mask: u32,
    /// `2^refresh_bits - 1`.
    refresh_mask: u64,
    flows: Vec<Flow>,
    /// The last reset's cycle plus 1 (0 for the virtual reset in cycle -1),
    /// so forgetting every flow is O(1).
    floor: u64,
    bucket: u32,
    byte_time: u32,
    init_rate: u32,
    busy_left: u32,
    /// The refresh count `j` of the next cycle, counted from the end of the
    /// clearing (0 while clearing).
    j: u64,
    cycle: u64,
    /// A ring: `pipe[(head + i) % LATENCY]` holds the decision `(flow,
    /// grant)` of the request of `i + 1` cycles ago, if any.
    pipe: [Option<(u32, bool)>; LATENCY],
    head: usize,
}

impl Pacer {
    /// A model as just after a reset (busy for its first `F` steps).
    pub fn new(config: PacerConfig) -> Result<Pacer, ParamError> {
        config.validate()?;
        let shape = config.shape;
        Ok(Pacer {
            config,
            flow_mask: mask(shape.flow_bits),
            refresh_mask: (1u64 << shape.refresh_bits) - 1,
            flows: vec![Flow::default(); shape.flows() as usize],
            floor: 0,
            bucket: config.reset.bucket,
            byte_time: config.reset.byte_time,
            init_rate: config.reset.init_rate,
            busy_left: shape.flows(),
            j: 0,
            cycle: 0,
            pipe: [None; LATENCY],
            head: 0,
        })
    }

    pub fn config(&self) -> &PacerConfig {
        &self.config
    }

    /// Steps taken (the number of the next step's cycle).
    #[inline]
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// `req_ready` during the next step.
    #[inline]
    pub fn ready(&self) -> bool {
        self.busy_left == 0 && !self.is_refresh()
    }

    /// `rate_ready` during the next step.
    #[inline]
    pub fn rate_ready(&self) -> bool {
        self.busy_left == 0
    }

    /// Cycles of clearing still to come, both readies low in each (0 when
    /// the clearing is over).
    #[inline]
    pub fn busy_left(&self) -> u32 {
        self.busy_left
    }

    /// The flow the next step refreshes, if it is a refresh cycle.
    #[inline]
    pub fn refresh_flow(&self) -> Option<u32> {
        (self.busy_left == 0 && self.is_refresh()).then(|| self.refreshed(self.j))
    }

    /// `(k, f)`: the next refresh cycle is `k` steps after the next one (0:
    /// the next step is a refresh cycle) and refreshes flow `f`, if no reset
    /// comes first; `None` while the flow table is being cleared.
    pub fn next_refresh(&self) -> Option<(u64, u32)> {
        let rb = self.config.shape.refresh_bits;
        let jr = (self.j >> rb << rb) | self.refresh_mask;
        (self.busy_left == 0).then(|| (jr - self.j, self.refreshed(jr)))
    }

    /// `(k, f)`: the last refresh cycle since the last reset was `k >= 1`
    /// cycles before the next step's (a touch in the next step sees `n - m
    /// = k` for flow `f`, unless `f` was touched since); `None` if none.
    pub fn last_refresh(&self) -> Option<(u64, u32)> {
        let rb = self.config.shape.refresh_bits;
        let q = self.j >> rb; // the next cycle's block of 2^refresh_bits
        (self.busy_left == 0 && q > 0).then(|| {
            let jr = (q << rb) - 1;
            (self.j - jr, self.refreshed(jr))
        })
    }

    /// The flow refreshed in refresh cycle `j`.
    #[inline]
    fn refreshed(&self, j: u64) -> u32 {
        (j >> self.config.shape.refresh_bits) as u32 & self.flow_mask
    }

    /// `bucket` in force (for the next step), bytes.
    #[inline]
    pub fn bucket(&self) -> u32 {
        self.bucket
    }

    /// `byte_time` in force (for the next step).
    #[inline]
    pub fn byte_time(&self) -> u32 {
        self.byte_time
    }

    /// `init_rate` in force (for the next step), Mb/s.
    #[inline]
    pub fn init_rate(&self) -> u32 {
        self.init_rate
    }

    /// The registers in force (for the next step).
    pub fn params(&self) -> PacerParams {
        PacerParams {
            bucket: self.bucket,
            byte_time: self.byte_time,
            init_rate: self.init_rate,
        }
    }

    /// `D = bucket x byte_time` in force (for the next step), tokens.
    #[inline]
    pub fn depth(&self) -> u64 {
        self.bucket as u64 * self.byte_time as u64
    }

    /// `T_f` left by `flow`'s last touch; `None` if it was not touched since
    /// the last reset (its bucket is full).
    pub fn tokens(&self, flow: u32) -> Option<u64> {
        let fl = &self.flows[(flow & self.flow_mask) as usize];
        (fl.stamp > self.floor).then_some(fl.tokens as u64)
    }

    /// The cycle of `flow`'s last touch (request or refresh) since the last
    /// reset, if any.
    pub fn last_touch(&self, flow: u32) -> Option<u64> {
        let fl = &self.flows[(flow & self.flow_mask) as usize];
        (fl.stamp > self.floor).then(|| fl.stamp - 1)
    }

    /// `n - m` for a touch of `flow` in the next step: cycles since its last
    /// touch; `None` if it was not touched since the last reset.
    pub fn since_touch(&self, flow: u32) -> Option<u64> {
        self.last_touch(flow).map(|m| self.cycle - m)
    }

    /// Whether a rate update of `flow` was accepted since the last reset
    /// (else it is at `init_rate`).
    pub fn has_rate(&self, flow: u32) -> bool {
        self.flows[(flow & self.flow_mask) as usize].rate_stamp > self.floor
    }

    /// The rate, Mb/s, that a touch of `flow` in the next step would use.
    pub fn rate(&self, flow: u32) -> u32 {
        self.rate_of(&self.flows[(flow & self.flow_mask) as usize])
    }

    /// `R`: the flow's last rate update since the last reset, or `init_rate`.
    #[inline]
    fn rate_of(&self, fl: &Flow) -> u32 {
        if fl.rate_stamp > self.floor {
            fl.rate
        } else {
            self.init_rate
        }
    }

    /// `avail` of `flow` for a touch in the next step (before a request
    /// takes its cost), tokens.
    pub fn avail(&self, flow: u32) -> u64 {
        self.avail_at(flow & self.flow_mask, self.cycle)
    }

    #[inline]
    fn avail_at(&self, flow: u32, n: u64) -> u64 {
        let fl = &self.flows[flow as usize];
        let d = self.depth();
        if fl.stamp <= self.floor {
            return d;
        }
        let r = self.rate_of(fl) as u64;
        // n - m = n + 1 - stamp >= 1. R < 2^19 times any gap: saturate in
        // u64 (D < 2^31, so the min is exact).
        let earned = r.saturating_mul(n + 1 - fl.stamp);
        d.min((fl.tokens as u64).saturating_add(earned))
    }

    #[inline]
    fn is_refresh(&self) -> bool {
        self.j & self.refresh_mask == self.refresh_mask
    }

    /// The outputs during the next step's cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> PacerOut {
        // The oldest entry: just before the head.
        let d = self.pipe[(self.head + LATENCY - 1) % LATENCY];
        PacerOut {
            req_ready: self.ready(),
            rate_ready: self.rate_ready(),
            dec_valid: d.is_some(),
            dec_flow: d.map_or(0, |d| d.0),
            dec_grant: d.is_some_and(|d| d.1),
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    #[inline]
    pub fn step(&mut self, i: &PacerIn) -> PacerOut {
        let out = self.outputs();
        let n = self.cycle;
        self.cycle += 1;
        // Shift the decision pipeline by one stage.
        self.head = (self.head + LATENCY - 1) % LATENCY;
        if i.rst {
            self.pipe = [None; LATENCY];
            self.floor = n + 1; // stamps m + 1 <= n + 1: touches up to cycle n
            self.bucket = self.config.reset.bucket;
            self.byte_time = self.config.reset.byte_time;
            self.init_rate = self.config.reset.init_rate;
            self.busy_left = self.config.shape.flows();
            self.j = 0;
            return out;
        }
        let mut decision = None;
        if self.busy_left == 0 {
            // The touch of this cycle, with the registers and rates in force.
            if self.is_refresh() {
                let f = self.refreshed(self.j);
                let avail = self.avail_at(f, n);
                let fl = &mut self.flows[f as usize];
                (fl.tokens, fl.stamp) = (avail as u32, n + 1);
            } else if i.req_valid {
                let f = i.req_flow & self.flow_mask;
                let cost = (i.req_bytes & mask(BYTES_BITS)) as u64 * self.byte_time as u64;
                let avail = self.avail_at(f, n);
                let grant = avail >= cost;
                let fl = &mut self.flows[f as usize];
                fl.tokens = if grant { avail - cost } else { avail } as u32;
                fl.stamp = n + 1;
                decision = Some((f, grant));
            }
            // Rate updates count for touches from n + 1 on.
            if i.rate_valid {
                let fl = &mut self.flows[(i.rate_flow & self.flow_mask) as usize];
                (fl.rate, fl.rate_stamp) = (i.rate_rc & mask(RATE_BITS), n + 1);
            }
            self.j += 1;
        } else {
            self.busy_left -= 1;
        }
        self.pipe[self.head] = decision;
        if i.cfg_valid {
            match i.cfg_addr & mask(CFG_ADDR_BITS) {
                0 => self.bucket = i.cfg_data & mask(BUCKET_BITS),
                1 => self.byte_time = i.cfg_data & mask(BYTE_TIME_BITS),
                2 => self.init_rate = i.cfg_data & mask(RATE_BITS),
                _ => {}
            }
        }
        out
    }
}

impl std::fmt::Debug for Pacer {
    /// The registers, without the flow table.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pacer")
            .field("config", &self.config)
            .field("cycle", &self.cycle)
            .field("bucket", &self.bucket)
            .field("byte_time", &self.byte_time)
            .field("init_rate", &self.init_rate)
            .field("busy_left", &self.busy_left)
            .field("j", &self.j)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    fn shape(flow_bits: u32, refresh_bits: u32) -> PacerShape {
        PacerShape {
            flow_bits,
            refresh_bits,
        }
    }

    fn params(bucket: u32, byte_time: u32, init_rate: u32) -> PacerParams {
        PacerParams {
            bucket,
            byte_time,
            init_rate,
        }
    }

    fn idle() -> PacerIn {
        PacerIn::default()
    }

    fn rst() -> PacerIn {
        PacerIn {
            rst: true,
            ..idle()
        }
    }

    fn req(flow: u32, bytes: u32) -> PacerIn {
        PacerIn {
            req_valid: true,
            req_flow: flow,
            req_bytes: bytes,
            ..idle()
        }
    }

    fn with_rate(mut i: PacerIn, flow: u32, rc: u32) -> PacerIn {
        (i.rate_valid, i.rate_flow, i.rate_rc) = (true, flow, rc);
        i
    }

    fn with_cfg(mut i: PacerIn, addr: u32, data: u32) -> PacerIn {
        (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, addr, data);
        i
    }

    /// A model reset and cleared: its next cycle is `j = 0` of the refresh count.
    fn cleared(shape: PacerShape, reset: PacerParams) -> Pacer {
        let mut p = Pacer::new(PacerConfig { shape, reset }).unwrap();
        p.step(&rst());
        while p.busy_left() > 0 {
            p.step(&idle());
        }
        p
    }

    /// Every output with `dec_valid` low is all zero but the readies.
    fn assert_quiet_when_invalid(outs: &[PacerOut]) {
        for o in outs {
            assert!(o.dec_valid || (o.dec_flow == 0 && !o.dec_grant), "{o:?}");
        }
    }

    /// Steps through `ins` and LATENCY idle cycles; returns each input
    /// cycle's decision (grant or defer), read off the outputs `LATENCY`
    /// cycles later, checking its flow.
    fn decisions(p: &mut Pacer, ins: &[PacerIn]) -> Vec<Option<bool>> {
        let fmask = p.config().shape.flows() - 1;
        let pad = [idle(); LATENCY];
        let outs: Vec<PacerOut> = ins.iter().chain(&pad).map(|i| p.step(i)).collect();
        assert_quiet_when_invalid(&outs);
        ins.iter()
            .zip(&outs[LATENCY..])
            .map(|(i, o)| {
                o.dec_valid.then(|| {
                    assert_eq!(o.dec_flow, i.req_flow & fmask);
                    o.dec_grant
                })
            })
            .collect()
    }

    // Most hand-worked cases: 16 flows, a refresh cycle in 1,024 (none
    // within the first 1,023 cycles after the clearing), bucket 3,000 bytes,
    // byte_time 1,200 (so D = 3,600,000 and 1,500 bytes cost 1,800,000),
    // init_rate 100,000 Mb/s (100,000 tokens a cycle: 1,500 bytes in 18).
    fn small() -> Pacer {
        cleared(shape(4, 10), params(3000, 1200, 100_000))
    }

    #[test]
    fn back_to_back_requests_see_each_others_tokens_and_refill_r_per_cycle() {
        let mut p = small();
        let n0 = p.cycle();
        let mut outs = vec![];
        for k in 0..40u64 {
            outs.push(p.step(&req(5, 1500)));
            // k = 0: full bucket 3.6M, granted, 1.8M left; k = 1: 1.8M +
            // 0.1M, granted, 0.1M left; then 0.1M more a cycle until 1.8M
            // (k = 18, 36), granted down to 0.
            let t = match k {
                0 => 1_800_000,
                1 => 100_000,
                _ => 100_000 * (k % 18),
            };
            assert_eq!(p.tokens(5), Some(t), "after request {k}");
            assert_eq!(p.last_touch(5), Some(n0 + k));
            assert_eq!(p.since_touch(5), Some(1));
        }
        outs.extend((0..LATENCY).map(|_| p.step(&idle())));
        assert_quiet_when_invalid(&outs);
        let d: Vec<(usize, bool)> = (0..40)
            .map(|k| {
                let o = outs[k + LATENCY];
                assert!(o.dec_valid && o.dec_flow == 5, "request {k}");
                (k, o.dec_grant)
            })
            .collect();
        let granted: Vec<usize> = d.iter().filter(|d| d.1).map(|d| d.0).collect();
        assert_eq!(granted, vec![0, 1, 18, 36]);
        // Idle since request 39 (0.3M left): 0.1M a cycle for LATENCY + 1
        // cycles by the next one.
        assert_eq!(p.avail(5), 300_000 + 100_000 * (LATENCY as u64 + 1));
    }

    #[test]
    fn a_first_request_finds_a_full_bucket_and_more_than_bucket_is_never_granted() {
        let mut p = small();
        // Flow 7 untouched: 3,001 bytes cost 3,601,200 > D, deferred (and
        // the flow keeps D); 3,000 cost exactly D: granted.
        let d = decisions(
            &mut p,
            &[req(7, 3001), req(7, 3000), req(8, 3000), req(9, 0)],
        );
        assert_eq!(d, vec![Some(false), Some(true), Some(true), Some(true)]);
        assert_eq!(p.tokens(7), Some(0));
        assert_eq!(p.tokens(9), Some(3_600_000));
        assert_eq!(
            (p.tokens(10), p.last_touch(10), p.avail(10)),
            (None, None, 3_600_000)
        );
        // At the largest rate a full bucket never holds more than D.
        let mut p = cleared(shape(4, 10), params(3000, 1200, (1 << 19) - 1));
        let d = decisions(&mut p, &vec![req(3, 3001); 50]);
        assert!(d.iter().all(|d| *d == Some(false)));
        assert_eq!(p.tokens(3), Some(3_600_000));
    }

    #[test]
    fn a_long_silent_flow_earns_rate_times_gap_up_to_the_depth() {
        // 16 flows, a refresh cycle in 4: flow 3 is refreshed in cycles j =
        // 15 mod 64, and the RTL's stamps are 7 bits (128 cycles). bucket
        // 131,071, byte_time 2,000 (D = 262,142,000), 1 token a cycle.
        let sh = shape(4, 2);
        assert_eq!((sh.stamp_bits(), sh.refresh_period()), (7, 64));
        let mut p = cleared(sh, params(131_071, 2000, 1));
        let n0 = p.cycle();
        // 65,535 bytes cost 131,070,000: from D, 131,072,000 left; then
        // 131,072,001, granted, 2,001 left at j = 1.
        p.step(&req(3, 65_535));
        assert_eq!(p.tokens(3), Some(131_072_000));
        p.step(&req(3, 65_535));
        assert_eq!(p.tokens(3), Some(2001));
        let grants: Vec<bool> = (0..LATENCY)
            .map(|_| p.step(&idle()))
            .filter(|o| o.dec_valid)
            .map(|o| o.dec_grant)
            .collect();
        assert_eq!(grants, vec![true, true]);
        // Flow 3's refresh at j = 15: 2,001 + 14.
        assert_eq!((p.tokens(3), p.last_touch(3)), (Some(2015), Some(n0 + 15)));
        while p.cycle() < n0 + 100_002 {
            p.step(&idle());
        }
        // The last refresh of flow 3 before j = 100,002: 64 x 1,562 + 15.
        assert_eq!(p.last_touch(3), Some(n0 + 99_983));
        assert_eq!(p.tokens(3), Some(2001 + 99_982));
        assert_eq!(p.avail(3), 2001 + 100_001);
        // j = 100,002: 51 bytes cost 102,000, 2 left; j = 100,003 is a
        // refresh cycle (of flow 25,000 mod 16 = 8): not accepted.
        let d = decisions(&mut p, &[req(3, 51), req(3, 1)]);
        assert_eq!(d, vec![Some(true), None]);
        assert_eq!(p.tokens(3), Some(2));
        // At the largest rate the bucket fills to D and no further.
        p.step(&with_cfg(idle(), 2, (1 << 19) - 1));
        for _ in 0..600 {
            p.step(&idle());
        }
        assert_eq!(p.avail(3), 262_142_000);
        assert_eq!(p.tokens(3), Some(262_142_000)); // refreshed since

        // R (n - m) beyond 32 bits saturates at D: flow 15 (refreshed at j =
        // 16,383 of 16,384) at the largest rate, silent 8,193 cycles after
        // its bucket was emptied, has D (2^19 - 1) x 8,193 = 2^32 + 516,095.
        let mut p = cleared(shape(4, 10), params(3000, 1200, (1 << 19) - 1));
        let mut ins = vec![idle(); 8194];
        (ins[0], ins[8193]) = (req(15, 3000), req(15, 3000));
        let d = decisions(&mut p, &ins);
        assert_eq!((d[0], d[8193]), (Some(true), Some(true)));
    }

    #[test]
    fn refresh_cycles_hold_req_ready_low_and_touch_flows_round_robin() {
        // 16 flows, a refresh cycle in 4, rate 0: a refresh only settles.
        let mut p = cleared(shape(4, 2), params(3000, 1200, 0));
        let n0 = p.cycle();
        for j in 0..300u64 {
            let refresh = j % 4 == 3;
            let f = (j / 4 % 16) as u32;
            assert_eq!(p.ready(), !refresh, "j {j}");
            assert_eq!(p.refresh_flow(), refresh.then_some(f), "j {j}");
            assert_eq!(p.next_refresh(), Some((3 - j % 4, f)), "j {j}");
            let last = (j >= 4).then(|| (j % 4 + 1, ((j / 4 - 1) % 16) as u32));
            assert_eq!(p.last_refresh(), last, "j {j}");
            let o = p.step(&req(9, 0));
            assert!(o.rate_ready && o.req_ready != refresh, "j {j}");
            if refresh {
                assert_eq!(p.last_touch(f), Some(n0 + j));
                assert_eq!(p.tokens(f), Some(3_600_000));
            }
            // The decision of cycle j - LATENCY: only requests outside
            // refresh cycles were accepted.
            if j >= LATENCY as u64 {
                let k = j - LATENCY as u64;
                assert_eq!(o.dec_valid, k % 4 != 3, "j {j}");
            }
        }
        // j = 299 refreshed flow 74 mod 16 = 10; flow 9's last request was 298.
        assert_eq!(p.last_touch(9), Some(n0 + 298));
        assert_eq!(p.last_touch(10), Some(n0 + 299));

        // A refresh settles a flow at the registers in force: flow 2 is
        // refreshed (j = 11) at D = 3.6M, then the bucket grows to 6,000.
        let mut p = cleared(shape(4, 2), params(3000, 1200, 0));
        let mut ins = vec![idle(); 20];
        ins[12] = with_cfg(idle(), 0, 6000);
        ins[13] = req(2, 4000); // 4.8M > min(7.2M, 3.6M + 0): deferred
        ins[14] = req(14, 4000); // untouched: D = 7.2M, granted
        ins[16] = with_cfg(idle(), 0, 1000);
        let d = decisions(&mut p, &ins);
        assert_eq!((d[13], d[14]), (Some(false), Some(true)));
        assert_eq!(p.tokens(2), Some(3_600_000));
        assert_eq!(p.tokens(14), Some(2_400_000));
        // Flow 4's refresh (j = 19), after the bucket shrank to 1,000:
        // a full bucket of the new depth.
        assert_eq!(p.tokens(4), Some(1_200_000));
        // Flow 14's refresh (j = 59) caps its 2.4M at the new D.
        while p.cycle() < p.last_touch(4).unwrap() + 41 {
            p.step(&idle());
        }
        assert_eq!(p.last_touch(14), Some(p.cycle() - 1));
        assert_eq!(p.tokens(14), Some(1_200_000));
    }

    #[test]
    fn a_rate_update_is_seen_from_the_next_cycle() {
        let mut p = small();
        let mut ins = vec![idle(); 13];
        ins[0] = req(5, 1500); // D 3.6M, granted: 1.8M left
        ins[1] = req(5, 1500); // 1.9M, granted: 0.1M left
                               // Old rate: 0.1M + 9 x 0.1M = 1.0M, deferred (the new one would
                               // give 0.1M + 9 x 0.5M, granted).
        ins[10] = with_rate(req(5, 1500), 5, 500_000);
        ins[11] = req(5, 1500); // 1.5M: deferred
        ins[12] = req(5, 1500); // 2.0M: granted, 0.2M left
        let d = decisions(&mut p, &ins);
        let mut want = vec![None; 13];
        want[..2].copy_from_slice(&[Some(true); 2]);
        want[10..].copy_from_slice(&[Some(false), Some(false), Some(true)]);
        assert_eq!(d, want);
        assert_eq!((p.tokens(5), p.rate(5)), (Some(200_000), 500_000));
        assert!(p.has_rate(5) && !p.has_rate(6));
    }

    #[test]
    fn a_flow_without_an_update_uses_init_rate_in_force_at_its_touch() {
        let mut p = small();
        let mut ins = vec![idle(); 9];
        ins[0] = req(3, 1500); // 1.8M left
        ins[1] = req(3, 1500); // 0.1M left
        ins[2] = with_rate(idle(), 4, 100_000); // flow 4: its own rate
        ins[3] = req(4, 3000); // full, granted: 0 left
                               // The write is in force from cycle 6: 0.1M + 4 x 0.1M = 0.5M.
        ins[5] = with_cfg(req(3, 0), 2, 300_000);
        ins[6] = req(3, 0); // 0.5M + 0.3M
        ins[8] = req(4, 0); // 0 + 5 x 0.1M (not init_rate)
        let d = decisions(&mut p, &ins);
        assert!(d.iter().all(|d| d.is_none() || *d == Some(true)));
        assert_eq!(p.tokens(3), Some(800_000));
        assert_eq!(p.tokens(4), Some(500_000));
        assert_eq!(
            (p.rate(3), p.rate(4), p.rate(11)),
            (300_000, 100_000, 300_000)
        );
        // A flow touched before the write earns at the new rate for the
        // whole gap since: 0.8M + 12 x 0.3M, capped at D.
        for _ in 0..12 {
            p.step(&idle());
        }
        assert_eq!(p.avail(3), 3_600_000);
    }

    #[test]
    fn a_rate_change_counts_from_the_flows_last_touch() {
        // 16 flows, a refresh cycle in 4: flow 1 refreshed at j = 7, 71.
        // bucket 60,000, byte_time 1,000 (D = 6 x 10^7), init_rate 1,000.
        let mut p = cleared(shape(4, 2), params(60_000, 1000, 1000));
        let n0 = p.cycle();
        let mut ins = vec![idle(); 73];
        ins[0] = req(1, 60_000); // all of D: 0 left
        ins[5] = with_rate(idle(), 1, 2000);
        // Refresh at 7: the whole gap 0..7 at the new rate, 14,000.
        ins[9] = req(1, 14); // 14,000 + 2 x 2,000: granted, 4,000 left
                             // The refresh at 71 uses the old rate: 4,000 + 62 x 2,000.
        ins[71] = with_rate(idle(), 1, 5000);
        ins[72] = req(1, 133); // 128,000 + 5,000 = 133,000: granted, 0 left
        let mut d = vec![];
        for (j, i) in ins.iter().enumerate() {
            d.push(p.step(i));
            match j {
                7 => assert_eq!((p.tokens(1), p.last_touch(1)), (Some(14_000), Some(n0 + 7))),
                9 => assert_eq!(p.tokens(1), Some(4000)),
                71 => assert_eq!(
                    (p.tokens(1), p.last_touch(1)),
                    (Some(128_000), Some(n0 + 71))
                ),
                _ => {}
            }
        }
        let grants: Vec<bool> = (0..LATENCY)
            .map(|_| p.step(&idle()))
            .filter(|o| o.dec_valid)
            .map(|o| o.dec_grant)
            .collect();
        assert_eq!(grants, vec![true]); // request 72
        assert_eq!(p.tokens(1), Some(0));
    }

    #[test]
    fn register_writes_are_in_force_from_the_next_cycle() {
        let mut p = small();
        let ins = [
            with_cfg(req(4, 3000), 0, 2000), // old D = 3.6M: granted
            req(6, 3000),                    // D = 2.4M: deferred
            req(7, 2000),                    // granted
            with_cfg(req(8, 2000), 1, 0),    // byte_time 1,200: granted, 0 left
            req(8, 60_000),                  // byte_time 0: free, granted
            req(9, 65_535),
        ];
        let d = decisions(&mut p, &ins);
        assert_eq!(d, [true, false, true, true, true, true].map(Some));
        assert_eq!(p.params(), params(2000, 0, 100_000));
        assert_eq!(p.tokens(6), Some(2_400_000)); // touched at D = 2.4M
    }

    #[test]
    fn unknown_addresses_and_data_bits_above_a_registers_width_are_ignored() {
        let mut p = small();
        for addr in [3, 4, 7, 16, 31] {
            p.step(&with_cfg(idle(), addr, 12345));
        }
        assert_eq!(p.params(), params(3000, 1200, 100_000));
        p.step(&with_cfg(idle(), 32 + 2, 7)); // cfg_addr is 5 bits: init_rate
        assert_eq!(p.init_rate(), 7);
        p.step(&PacerIn {
            cfg_addr: 0,
            cfg_data: 5,
            ..idle()
        });
        assert_eq!(p.bucket(), 3000);
        // The map is REGISTERS: all ones read back as the register's width.
        for r in REGISTERS {
            p.step(&with_cfg(idle(), r.addr, u32::MAX));
            let v = match r.name {
                "bucket" => p.bucket(),
                "byte_time" => p.byte_time(),
                "init_rate" => p.init_rate(),
                n => panic!("register {n} has no accessor"),
            };
            assert_eq!(v, mask(r.bits), "{}", r.name);
        }
        assert_eq!(
            REGISTERS
                .iter()
                .map(|r| (r.addr, r.bits))
                .collect::<Vec<_>>(),
            vec![(0, 17), (1, 14), (2, 19)]
        );
        assert_eq!(p.depth(), 131_071 * 16_383);
        assert!(p.depth() < 1 << TOKEN_BITS);
    }

    #[test]
    fn a_decision_comes_exactly_latency_cycles_after_its_request() {
        let mut p = small();
        let mut ins = vec![idle(); 60];
        ins[3] = req(0x35, 3000); // flow 5 (4 bits), all of D: granted
        ins[20] = req(5, 0x1_0000); // 16 bits: 0 bytes, granted
        ins[21] = req(5, 1501); // 1,801,200 > 0 + 0.1M x 18: deferred
        let outs: Vec<PacerOut> = ins.iter().map(|i| p.step(i)).collect();
        assert_quiet_when_invalid(&outs);
        let seen: Vec<(usize, u32, bool)> = (0..60)
            .filter(|&k| outs[k].dec_valid)
            .map(|k| (k, outs[k].dec_flow, outs[k].dec_grant))
            .collect();
        assert_eq!(
            seen,
            vec![
                (3 + LATENCY, 5, true),
                (20 + LATENCY, 5, true),
                (21 + LATENCY, 5, false)
            ]
        );
        assert!(outs.iter().all(|o| o.req_ready && o.rate_ready));
    }

    #[test]
    fn reset_drops_decisions_in_flight_and_forgets_flows_and_registers() {
        let mut p = small();
        let l = LATENCY;
        let mut ins: Vec<PacerIn> = (0..l as u32 + 4).map(|k| req(k % 16, 1500)).collect();
        ins[2] = with_rate(ins[2], 1, 7);
        ins[3] = with_cfg(ins[3], 0, 5);
        // Requests 0 ..= LATENCY - 1 in flight; in the reset cycle a request,
        // a rate update and a write, all ignored.
        ins[l] = with_cfg(
            with_rate(
                PacerIn {
                    rst: true,
                    ..ins[l]
                },
                2,
                9,
            ),
            1,
            3,
        );
        let outs: Vec<PacerOut> = ins
            .iter()
            .chain(&[idle(); LATENCY + 4])
            .map(|i| p.step(i))
            .collect();
        assert_quiet_when_invalid(&outs);
        let decs: Vec<(usize, u32)> = (0..outs.len())
            .filter(|&k| outs[k].dec_valid)
            .map(|k| (k, outs[k].dec_flow))
            .collect();
        // Request 0's decision shows during the reset cycle; none after it.
        assert_eq!(decs, vec![(l, 0)]);
        assert_eq!(p.params(), params(3000, 1200, 100_000));
        for f in 0..16 {
            assert_eq!(
                (p.tokens(f), p.last_touch(f), p.rate(f)),
                (None, None, 100_000)
            );
        }
        while !p.ready() {
            p.step(&idle());
        }
        // Flow 0, drained before the reset (bucket 5 was in force), full
        // again; flow 1 (rate 7 before the reset) back at init_rate: 17
        // cycles after draining it holds 1.7M, enough for 1,400 bytes.
        let d = decisions(&mut p, &[req(0, 3000), req(1, 3000)]);
        assert_eq!(d, vec![Some(true), Some(true)]);
        assert_eq!(decisions(&mut p, &[req(1, 1400)]), vec![Some(true)]);
    }

    #[test]
    fn readies_are_low_for_exactly_f_cycles_after_a_reset_and_a_reset_during_clearing_restarts_it()
    {
        let sh = shape(8, 10);
        let mut p = cleared(sh, params(3000, 1200, 100_000));
        p.step(&rst());
        assert_eq!(p.busy_left(), 256);
        // Requests and rate updates offered in every cycle.
        let offer = |k: u32| with_rate(req(3, 0), 3, 1000 + k);
        let outs: Vec<PacerOut> = (0..300).map(|k| p.step(&offer(k))).collect();
        let low = outs.iter().take_while(|o| !o.req_ready).count();
        assert_eq!(low, 256, "req_ready low exactly F cycles");
        assert_eq!(outs.iter().take_while(|o| !o.rate_ready).count(), 256);
        assert!(outs[256..].iter().all(|o| o.req_ready && o.rate_ready));
        // The first request and update accepted are those of the cycle
        // F + 1 after the reset.
        let decs: Vec<usize> = (0..300).filter(|&k| outs[k].dec_valid).collect();
        assert_eq!(decs, (256 + LATENCY..300).collect::<Vec<_>>());
        assert_eq!(p.rate(3), 1000 + 299);
        assert_eq!(p.last_touch(3), Some(p.cycle() - 1));

        // Offers during the clearing only: nothing accepted.
        p.step(&rst());
        assert_eq!((p.next_refresh(), p.last_refresh()), (None, None)); // clearing
        for k in 0..256 {
            p.step(&offer(k));
        }
        assert!(p.ready() && p.rate(3) == 100_000 && p.tokens(3).is_none());
        assert!(!p.has_rate(3) && p.since_touch(3).is_none());
        // The refresh count starts again: j = 1,023 refreshes flow 0.
        assert_eq!(
            (p.next_refresh(), p.last_refresh()),
            (Some((1023, 0)), None)
        );

        // A reset 100 cycles into the clearing starts it again.
        p.step(&rst());
        let mut low = 0;
        for _ in 0..100 {
            low += !p.step(&idle()).req_ready as u32;
        }
        p.step(&rst());
        let outs: Vec<PacerOut> = (0..600).map(|_| p.step(&req(3, 0))).collect();
        low += outs.iter().take_while(|o| !o.req_ready).count() as u32;
        assert_eq!(low, 100 + 256);
        assert!(outs[256..].iter().all(|o| o.req_ready));
    }

    #[test]
    fn the_model_starts_as_if_reset_in_the_cycle_before_its_first_step() {
        let mut p = Pacer::new(PacerConfig {
            shape: shape(4, 2),
            reset: params(3000, 1200, 100_000),
        })
        .unwrap();
        let outs: Vec<PacerOut> = (0..40).map(|_| p.step(&req(1, 0))).collect();
        assert_eq!(outs.iter().take_while(|o| !o.req_ready).count(), 16);
        assert!(!outs[16].dec_valid && outs[16 + LATENCY].dec_valid);
        // j = 3 (cycle 19) is the first refresh cycle, of flow 0.
        assert!(!outs[19].req_ready && outs[19].rate_ready);
        assert_eq!(p.last_touch(0), Some(19));
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        fn name<T: std::fmt::Debug>(r: Result<T, ParamError>) -> &'static str {
            r.unwrap_err().name
        }
        let mut c = PacerConfig::default();
        assert_eq!(c.shape, shape(14, 10));
        assert_eq!(c.reset, params(16_384, 1200, 100_000));
        assert_eq!(
            (c.shape.stamp_bits(), c.shape.refresh_period()),
            (25, 1 << 24)
        );
        assert!(c.validate().is_ok());
        assert_eq!(SUPPORTED_FLOW_BITS, &[4, 8, 12, 14]);
        assert_eq!(SUPPORTED_REFRESH_BITS, &[2, 6, 10]);
        c.shape.flow_bits = 16;
        assert_eq!(name(Pacer::new(c)), "flow_bits");
        c.shape = shape(8, 4);
        assert_eq!(name(c.validate()), "refresh_bits");
        c.shape = shape(8, 6);
        for (p, n) in [
            (params(1 << 17, 1200, 0), "bucket"),
            (params(131_071, 1 << 14, 0), "byte_time"),
            (params(131_071, 16_383, 1 << 19), "init_rate"),
        ] {
            c.reset = p;
            assert_eq!(name(Pacer::new(c)), n);
        }
        c.reset = params(131_071, 16_383, (1 << 19) - 1);
        assert!(Pacer::new(c).is_ok());
        assert_eq!(byte_time_for_clock(150.0), Ok(1200));
        assert_eq!(byte_time_for_clock(250.0), Ok(2000));
        assert_eq!(byte_time_for_clock(322.265625), Ok(2578)); // 2,578.125
        assert_eq!(byte_time_for_clock(0.0625), Ok(1)); // 0.5 rounds away from 0
        assert_eq!(byte_time_for_clock(2047.93), Ok(16_383));
        for mhz in [
            2047.9375,
            2500.0,
            0.06,
            0.0,
            -150.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(name(byte_time_for_clock(mhz)), "byte_time", "{mhz}");
        }
    }

    /// Random requests (sizes up to 1.5 x bucket, a few flows), rate
    /// updates, writes and resets; checked from the inputs and outputs
    /// alone: the readies, which requests have a decision, when, and of
    /// which flow; a free request is always granted, one above the bucket
    /// never.
    #[test]
    fn readies_and_decisions_follow_the_contract_over_random_traces() {
        let sh = shape(4, 2);
        let f = sh.flows() as i64;
        let mut p = Pacer::new(PacerConfig {
            shape: sh,
            reset: params(3000, 1200, 50_000),
        })
        .unwrap();
        let mut r = 0x2545_f491u32;
        let (mut ins, mut outs) = (vec![], vec![]);
        for _ in 0..300_000 {
            r = xorshift::next(r);
            let i = PacerIn {
                rst: r % 3000 == 7,
                req_valid: r & 3 != 0,
                req_flow: (r >> 2) % 5 + ((r >> 2) & 0x30), // 5 flows, high bits ignored
                req_bytes: if r & 0x80 != 0 { (r >> 8) % 4500 } else { 0 },
                rate_valid: (r >> 20).is_multiple_of(7),
                rate_flow: (r >> 23) % 5,
                rate_rc: (r >> 9) & 0x7_ffff,
                cfg_valid: (r >> 12) % 1000 == 3,
                cfg_addr: (r >> 22) % 4,
                cfg_data: 500 + (r >> 14) % 5000,
            };
            ins.push(i);
            outs.push(p.step(&i));
        }
        let (mut last_rst, mut bucket, mut bt) = (-1i64, 3000u32, 1200u32);
        let (mut granted, mut deferred) = (0, 0);
        let mut accepted = vec![false; ins.len()];
        for n in 0..ins.len() {
            let (i, c) = (ins[n], n as i64);
            let clear = c > last_rst + f;
            let j = c - (last_rst + f + 1);
            assert_eq!(outs[n].rate_ready, clear, "rate_ready in cycle {n}");
            assert_eq!(
                outs[n].req_ready,
                clear && j % 4 != 3,
                "req_ready in cycle {n}"
            );
            accepted[n] = i.req_valid && outs[n].req_ready && !i.rst;
            let rst_since = |a: usize, b: usize| ins[a..b].iter().any(|i| i.rst);
            if n >= LATENCY && outs[n].dec_valid {
                let q = n - LATENCY;
                assert!(accepted[q] && !rst_since(q + 1, n), "cycle {n}");
                assert_eq!(outs[n].dec_flow, ins[q].req_flow & 15);
            } else {
                assert!(!outs[n].dec_valid && outs[n].dec_flow == 0 && !outs[n].dec_grant);
            }
            let visible = n + LATENCY < ins.len() && !rst_since(n + 1, n + LATENCY);
            if accepted[n] && visible {
                let o = outs[n + LATENCY];
                assert!(o.dec_valid, "cycle {n}");
                if i.req_bytes == 0 || bt == 0 {
                    assert!(o.dec_grant, "a free request deferred in cycle {n}");
                }
                if i.req_bytes > bucket && bt > 0 {
                    assert!(!o.dec_grant, "more than bucket granted in cycle {n}");
                }
                if o.dec_grant {
                    granted += 1
                } else {
                    deferred += 1
                }
            }
            if i.rst {
                (last_rst, bucket, bt) = (c, 3000, 1200);
            } else if i.cfg_valid && i.cfg_addr == 0 {
                bucket = i.cfg_data;
            } else if i.cfg_valid && i.cfg_addr == 1 {
                bt = i.cfg_data;
            }
        }
        assert!(
            granted > 20_000 && deferred > 20_000,
            "{granted} {deferred}"
        );
    }

    /// Per flow, the granted bytes `S(n)` before cycle `n`, from the decisions.
    fn granted_prefix(ins: &[PacerIn], outs: &[PacerOut], flow: u32) -> Vec<u64> {
        let mut s = vec![0u64; ins.len() + 1];
        for n in 0..ins.len() {
            let o = outs.get(n + LATENCY).copied().unwrap_or_default();
            let g = o.dec_valid && o.dec_grant && o.dec_flow == flow;
            s[n + 1] = s[n] + if g { ins[n].req_bytes as u64 } else { 0 };
        }
        s
    }

    /// No flow is granted faster than its rate: with R, byte_time and bucket
    /// constant, the bytes granted in any `w` consecutive cycles are at most
    /// `bucket + R w / byte_time`, i.e. `S byte_time <= D + R w` exactly.
    /// Random traces of 4 flows (each at its own rate, asked at random, with
    /// refresh cycles in between), for several depths, rates and refresh
    /// widths. Not vacuous: in every case some flow comes within 10% of
    /// the bound over its longest windows (a model that grants too little,
    /// or defers everything, fails).
    #[test]
    fn no_flow_is_granted_more_than_bucket_plus_rate_times_window() {
        let mut r = 0x1357_9bdfu32;
        let mut draw = |m: u32| {
            r = xorshift::next(r);
            r % m
        };
        let windows = [1usize, 2, 3, 4, 7, 16, 33, 100, 257, 1000, 4099, 20_000];
        for case in 0..12 {
            let rb = [2, 6, 10][case % 3];
            let (bucket, bt) = (1000 + draw(20_000), 800 + draw(3000));
            let mut p = cleared(shape(4, rb), params(bucket, bt, 0));
            // Rates log-uniform-ish over 1 ..= 2^19 - 1.
            let rates: Vec<u32> = (0..4)
                .map(|_| {
                    let e = 1 + draw(19);
                    1 + draw((1 << e) - 1)
                })
                .collect();
            for (f, &rc) in rates.iter().enumerate() {
                p.step(&with_rate(idle(), f as u32 * 5, rc));
            }
            let busy = 1 + draw(3); // asks in about 1 cycle of `busy`
            let lmax = 1 + draw(bucket + 1);
            let mut ins = vec![];
            for _ in 0..60_000 {
                let v = draw(busy) == 0;
                ins.push(PacerIn {
                    req_valid: v,
                    ..req(5 * draw(4), draw(lmax + 1))
                });
            }
            let outs: Vec<PacerOut> = ins
                .iter()
                .chain(&[idle(); LATENCY])
                .map(|i| p.step(i))
                .collect();
            let mut closest = 0.0f64;
            for (k, &rc) in rates.iter().enumerate() {
                let s = granted_prefix(&ins, &outs, 5 * k as u32);
                let (d, rc, bt) = (bucket as u64 * bt as u64, rc as u64, bt as u64);
                for &w in &windows {
                    for a in 0..=ins.len() - w {
                        let tokens = (s[a + w] - s[a]) * bt;
                        let bound = d + rc * w as u64;
                        assert!(
                            tokens <= bound,
                            "case {case} flow {k} window {a}+{w}: {tokens} > {bound}"
                        );
                        if w == 20_000 {
                            closest = closest.max(tokens as f64 / bound as f64);
                        }
                    }
                }
            }
            assert!(
                closest > 0.9,
                "case {case}: no flow near its bound ({closest})"
            );
        }
    }

    /// A backlogged flow gets its rate, to the token: asked in every cycle
    /// it can be (deferred packets asked again), packets of 64 to 1,500
    /// bytes, `R < 32 byte_time` so the bucket never overflows (a touch
    /// follows a grant of at least 64 bytes by at most 2 cycles). Then every token earned is granted or still in the bucket:
    /// `sum L byte_time = D + R (m_last - m_first) - T`, refreshes included.
    #[test]
    fn a_backlogged_flow_gets_its_rate_to_the_token() {
        let mut r = 0x0bad_5eedu32;
        let mut draw = |m: u32| {
            r = xorshift::next(r);
            r % m
        };
        for rb in [2, 6, 10] {
            let (bucket, bt) = (4000 + draw(10_000), 1200);
            let rc = 1 + draw(32 * bt - 1);
            let mut p = cleared(shape(8, rb), params(bucket, bt, rc));
            let (mut pkt, mut sum, mut first) = (64 + draw(1437), 0u64, None);
            let mut in_flight = [None::<u32>; LATENCY];
            for n in 0..200_000 + LATENCY {
                let ask = n < 200_000 && p.ready();
                if ask {
                    first.get_or_insert(p.cycle());
                }
                let o = p.step(&if ask { req(77, pkt) } else { idle() });
                // The decision of the request LATENCY cycles ago.
                let sent = std::mem::replace(&mut in_flight[n % LATENCY], ask.then_some(pkt));
                assert_eq!(o.dec_valid, sent.is_some());
                if o.dec_grant {
                    sum += sent.unwrap() as u64;
                }
                // The next packet once the current one's grant is known is
                // too late for back-to-back: present the same packet until
                // a grant shows, a new one after.
                if o.dec_grant && o.dec_flow == 77 {
                    pkt = 64 + draw(1437);
                }
            }
            let (first, last) = (first.unwrap(), p.last_touch(77).unwrap());
            let d = bucket as u64 * bt as u64;
            assert_eq!(
                sum * bt as u64,
                d + rc as u64 * (last - first) - p.tokens(77).unwrap(),
                "refresh_bits {rb}"
            );
        }
    }
}

/// Float reference: an ideal token bucket per flow in continuous time.
///
/// Time is real (seconds; cycle `n` of a clock of `f` MHz is at `n / (f
/// 10^6)`), a rate of `R` Mb/s fills a bucket at `R 10^6 / 8` bytes per
/// second up to `bucket` bytes, and a rate change takes effect at its own
/// time: the bucket is settled at the old rate up to the change. A flow not
/// seen yet has a full bucket. This is the ideal the lazy integer rule
/// approximates: the rule counts a rate in whole tokens per cycle
/// (`byte_time` rounded), and charges a rate change for the whole gap since
/// the flow's last touch.
pub mod reference {
    /// Bytes per second of `mbps` Mb/s.
    pub fn bytes_per_s(mbps: f64) -> f64 {
        mbps * 1e6 / 8.0
    }

    /// The time of cycle `n` at a clock of `clock_mhz` MHz, seconds.
    pub fn time(n: u64, clock_mhz: f64) -> f64 {
        n as f64 / (clock_mhz * 1e6)
    }

    #[derive(Debug, Clone, Copy)]
    struct Flow {
        /// Bytes in the bucket at `last`.
        level: f64,
        last: f64,
        /// Bytes per second.
        rate: f64,
        seen: bool,
    }

    /// Token buckets of `bucket` bytes, one per flow.
    #[derive(Debug, Clone)]
    pub struct Pacer {
        bucket: f64,
        flows: Vec<Flow>,
    }

    impl Pacer {
        /// `flows` flows, each at `init_rate_mbps` until its first update.
        pub fn new(flows: usize, bucket_bytes: f64, init_rate_mbps: f64) -> Pacer {
            let flow = Flow {
                level: bucket_bytes,
                last: 0.0,
                rate: bytes_per_s(init_rate_mbps),
                seen: false,
            };
            Pacer {
                bucket: bucket_bytes,
                flows: vec![flow; flows],
            }
        }

        /// Brings `flow`'s bucket up to time `t` (times non-decreasing per flow).
        fn settle(&mut self, t: f64, flow: usize) -> &mut Flow {
            let b = self.bucket;
            let f = &mut self.flows[flow];
            f.level = if f.seen {
                b.min(f.level + f.rate * (t - f.last))
            } else {
                b
            };
            (f.seen, f.last) = (true, t);
            f
        }

        /// From time `t` on, `flow` fills at `rate_mbps`.
        pub fn set_rate(&mut self, t: f64, flow: usize, rate_mbps: f64) {
            self.settle(t, flow).rate = bytes_per_s(rate_mbps);
        }

        /// May `flow` send `bytes` at time `t`? If so they leave its bucket.
        pub fn request(&mut self, t: f64, flow: usize, bytes: f64) -> bool {
            let f = self.settle(t, flow);
            let grant = f.level >= bytes;
            if grant {
                f.level -= bytes;
            }
            grant
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::{
            byte_time_for_clock, Pacer, PacerConfig, PacerIn, PacerParams, PacerShape, LATENCY,
        };
        use super::{bytes_per_s, time, Pacer as Ideal};
        use crate::xorshift;

        /// Packets of 64 to 9,000 bytes.
        const L_MIN: u32 = 64;
        const L_MAX: u32 = 9000;

        struct Setup {
            flows: usize,
            cycles: u64,
            clock_mhz: f64,
            /// Rates are drawn log-uniform in `lo ..= hi` Mb/s.
            rate_lo: f64,
            rate_hi: f64,
            /// A rate update to a random flow in about one cycle of this
            /// many; 0: none.
            change_every: u32,
            seed: u32,
        }

        #[derive(Debug, Clone, Default)]
        struct FlowStat {
            /// Bytes granted by the golden model and by the ideal buckets.
            golden: f64,
            ideal: f64,
            /// The flow's rate integrated from its first request to the end, bytes.
            owed: f64,
            /// The bound on the lazy rule's extra or missing earnings:
            /// `sum |R_new - R_old| (n - m)` over its rate changes, bytes.
            lazy: f64,
            packets: u64,
        }

        fn size(x: u32) -> u32 {
            L_MIN + x % (L_MAX - L_MIN + 1)
        }

        /// Every flow backlogged (a stream of packets of random sizes, its
        /// own, the same for both models); a scheduler asks about one flow
        /// per cycle, round robin, in every cycle the pacer is ready; a
        /// granted flow presents its next packet at its next turn, a
        /// deferred one the same packet. The golden model and the ideal
        /// buckets see the same requests at the same times (the golden's
        /// decisions come back `LATENCY` cycles later, long before the
        /// flow's next turn).
        fn run(s: &Setup) -> (Vec<FlowStat>, u32) {
            let bt = byte_time_for_clock(s.clock_mhz).unwrap();
            let bucket = 16_384u32;
            let config = PacerConfig {
                shape: PacerShape::default(),
                reset: PacerParams {
                    bucket,
                    byte_time: bt,
                    init_rate: 0,
                },
            };
            assert!(s.flows <= config.shape.flows() as usize);
            let mut gold = Pacer::new(config).unwrap();
            let mut ideal = Ideal::new(s.flows, bucket as f64, 0.0);
            let mut r = s.seed;
            let mut draw = || {
                r = xorshift::next(r);
                r
            };
            let (lo, hi) = (s.rate_lo, s.rate_hi);
            let rate = |u: u32| (lo * (hi / lo).powf(u as f64 / 2f64.powi(32))).round() as u32;
            while !gold.rate_ready() {
                gold.step(&PacerIn::default());
            }
            // Every flow's rate, one update a cycle, before any request.
            let mut rates = vec![0u32; s.flows];
            for (f, rc) in rates.iter_mut().enumerate() {
                *rc = rate(draw());
                let t = time(gold.cycle(), s.clock_mhz);
                ideal.set_rate(t, f, *rc as f64);
                gold.step(&PacerIn {
                    rate_valid: true,
                    rate_flow: f as u32,
                    rate_rc: *rc,
                    ..PacerIn::default()
                });
            }
            let mut stat = vec![FlowStat::default(); s.flows];
            // Per flow: the packet streams (same seed), each model's current
            // packet, and the owed integral's running start.
            let mut g_stream: Vec<u32> = (0..s.flows as u32)
                .map(|f| 0x9e37_79b9 ^ (f * 0x0101_0101 + 1))
                .collect();
            let mut i_stream = g_stream.clone();
            let mut next = |x: &mut u32| {
                *x = xorshift::next(*x);
                size(*x)
            };
            let mut g_pkt: Vec<u32> = g_stream.iter_mut().map(&mut next).collect();
            let mut i_pkt: Vec<u32> = i_stream.iter_mut().map(&mut next).collect();
            let mut since: Vec<Option<f64>> = vec![None; s.flows];
            let mut rr = 0usize;
            let start = gold.cycle();
            let end = start + s.cycles;
            while gold.cycle() < end + LATENCY as u64 {
                let n = gold.cycle();
                let t = time(n, s.clock_mhz);
                let mut i = PacerIn::default();
                if n < end && gold.ready() {
                    let f = rr;
                    rr = (rr + 1) % s.flows;
                    (i.req_valid, i.req_flow, i.req_bytes) = (true, f as u32, g_pkt[f]);
                    if ideal.request(t, f, i_pkt[f] as f64) {
                        stat[f].ideal += i_pkt[f] as f64;
                        i_pkt[f] = next(&mut i_stream[f]);
                    }
                    since[f].get_or_insert(t);
                }
                if n < end && s.change_every > 0 && draw() % s.change_every == 0 {
                    let f = draw() as usize % s.flows;
                    let rc = rate(draw());
                    let st = &mut stat[f];
                    if let Some(t0) = since[f] {
                        st.owed += bytes_per_s(rates[f] as f64) * (t - t0);
                        since[f] = Some(t);
                    }
                    if let Some(m) = gold.last_touch(f as u32) {
                        let gap = time(n - m, s.clock_mhz);
                        st.lazy +=
                            (bytes_per_s(rc as f64) - bytes_per_s(rates[f] as f64)).abs() * gap;
                    }
                    rates[f] = rc;
                    ideal.set_rate(t, f, rc as f64);
                    (i.rate_valid, i.rate_flow, i.rate_rc) = (true, f as u32, rc);
                }
                let o = gold.step(&i);
                if o.dec_valid && o.dec_grant {
                    let f = o.dec_flow as usize;
                    stat[f].golden += g_pkt[f] as f64;
                    stat[f].packets += 1;
                    g_pkt[f] = next(&mut g_stream[f]);
                }
            }
            let t_end = time(end, s.clock_mhz);
            for (f, st) in stat.iter_mut().enumerate() {
                st.owed += bytes_per_s(rates[f] as f64) * (t_end - since[f].unwrap());
            }
            (stat, bt)
        }

        /// (max, mean) of |x - 1| over the flows.
        fn max_mean(v: impl Iterator<Item = f64>) -> (f64, f64) {
            let (mut max, mut sum, mut k) = (0.0f64, 0.0, 0);
            for x in v {
                max = max.max((x - 1.0).abs());
                sum += (x - 1.0).abs();
                k += 1;
            }
            (max, sum / k as f64)
        }

        /// Measures and bounds, per flow: the golden's granted bytes against
        /// the rate integrated over the run (`owed`), the ideal buckets' the
        /// same, and the golden against the ideal. Bounds from the contract:
        /// - the clock's rounding, `|8 f / byte_time - 1| <= 0.5 / byte_time`;
        /// - a finite run: a bucket starts full and ends holding at most
        ///   `bucket` bytes, and the last touch is at most one round (whose
        ///   earnings `R G <= L_max` by the choice of rates) before the end:
        ///   `(bucket + L_max) / owed`;
        /// - rate changes: the lazy rule charges each change for the gap
        ///   since the flow's last touch, `lazy / owed`.
        ///
        /// The rates are chosen so that no bucket overflows between two
        /// requests of its flow: `R G + L_max <= bucket`, and `R G <=
        /// L_max` with the round `G` of `flows + flows / 2^refresh_bits`
        /// cycles.
        fn measure(s: &Setup, name: &str) {
            let t0 = std::time::Instant::now();
            let (stat, bt) = run(s);
            let g_round = s.flows as f64 * (1.0 + 1.0 / 1024.0) + 1.0;
            let earn_max = bytes_per_s(s.rate_hi) * time(1, s.clock_mhz) * g_round;
            assert!(earn_max <= L_MAX as f64 && earn_max + (L_MAX as f64) <= 16_384.0);
            let rounding = (8.0 * s.clock_mhz / bt as f64 - 1.0).abs();
            assert!(rounding <= 0.5 / bt as f64);
            let finite = |st: &FlowStat| (16_384.0 + L_MAX as f64) / st.owed;
            let mut worst = [0.0f64; 3];
            for (f, st) in stat.iter().enumerate() {
                let b_golden = 0.5 / bt as f64 + finite(st) + st.lazy / st.owed;
                let b_ideal = finite(st);
                let e = [
                    (st.golden / st.owed - 1.0).abs() / b_golden,
                    (st.ideal / st.owed - 1.0).abs() / b_ideal,
                    (st.golden / st.ideal - 1.0).abs() / b_golden,
                ];
                for k in 0..3 {
                    assert!(
                        e[k] <= 1.0,
                        "{name}: flow {f} measure {k}: {:.3} of its bound, {st:?}",
                        e[k]
                    );
                    worst[k] = worst[k].max(e[k]);
                }
                assert!(
                    st.packets >= 20,
                    "{name}: flow {f} sent {} packets",
                    st.packets
                );
            }
            let g = max_mean(stat.iter().map(|st| st.golden / st.owed));
            let i = max_mean(stat.iter().map(|st| st.ideal / st.owed));
            let gi = max_mean(stat.iter().map(|st| st.golden / st.ideal));
            let fin = max_mean(stat.iter().map(|st| 1.0 + finite(st)));
            let lazy = max_mean(stat.iter().map(|st| 1.0 + st.lazy / st.owed));
            let pk: Vec<u64> = stat.iter().map(|st| st.packets).collect();
            // Beyond the initial full bucket (what a flow earned and sent),
            // and the golden's excess over the ideal, all flows' bytes
            // together (the rounding shows: 8 f / byte_time - 1).
            let net = max_mean(stat.iter().map(|st| (st.golden - 16_384.0) / st.owed));
            let (sg, si) = stat
                .iter()
                .fold((0.0, 0.0), |a, st| (a.0 + st.golden, a.1 + st.ideal));
            let excess = sg / si - 1.0;
            println!(
                "pacer {name}: {} flows, {} cycles at {} MHz (byte_time {bt}, rounding {rounding:.3e}), \
                 rates {}..{} Mb/s log-uniform, rate update every ~{} cycles, {}..{} packets a flow; \
                 relative error per flow (max / mean): golden vs R {:.3e} / {:.3e}, \
                 ideal vs R {:.3e} / {:.3e}, golden vs ideal {:.3e} / {:.3e}, \
                 golden beyond its first bucket vs R {:.3e} / {:.3e}; \
                 all bytes golden / ideal - 1 = {excess:+.3e} (8 f / byte_time - 1 = {:+.3e}); \
                 bound terms: finite run (bucket + L_max) / owed {:.3e} / {:.3e}, lazy rate {:.3e} / {:.3e}; \
                 worst share of bound: {:.3} {:.3} {:.3}; {:.1} s",
                s.flows,
                s.cycles,
                s.clock_mhz,
                s.rate_lo,
                s.rate_hi,
                s.change_every,
                pk.iter().min().unwrap(),
                pk.iter().max().unwrap(),
                g.0,
                g.1,
                i.0,
                i.1,
                gi.0,
                gi.1,
                net.0,
                net.1,
                8.0 * s.clock_mhz / bt as f64 - 1.0,
                fin.0,
                fin.1,
                lazy.0,
                lazy.1,
                worst[0],
                worst[1],
                worst[2],
                t0.elapsed().as_secs_f64()
            );
        }

        /// (a) Constant rates: 1,024 flows, 10 Mb/s to 4 Gb/s, at 322.265625
        /// MHz (byte_time 2,578 for 2,578.125: the rounding shows).
        fn constant(cycles: u64, rate_lo: f64) -> Setup {
            Setup {
                flows: 1024,
                cycles,
                clock_mhz: 322.265625,
                rate_lo,
                rate_hi: 4000.0,
                change_every: 0,
                seed: 0x1234_5678,
            }
        }

        /// (b) The same with a rate update to a random flow in about one
        /// cycle of 512 (each flow's rate changes about every 524,000
        /// cycles, 1.6 ms; about 570 times in the default run).
        fn changing(cycles: u64, rate_lo: f64) -> Setup {
            Setup {
                change_every: 512,
                seed: 0x8765_4321,
                ..constant(cycles, rate_lo)
            }
        }

        #[test]
        fn backlogged_flows_get_their_rates() {
            measure(&constant(300_000_000, 10.0), "(a) constant rates");
        }

        #[test]
        fn backlogged_flows_follow_rate_changes_as_the_ideal_buckets_do() {
            measure(&changing(300_000_000, 10.0), "(b) rate changes");
        }

        /// The long variants: from 1 Mb/s, 4 x 10^9 cycles (12.4 s of time).
        #[test]
        #[ignore = "about a minute each in release"]
        fn backlogged_flows_get_their_rates_long() {
            measure(&constant(4_000_000_000, 1.0), "(a) constant rates, long");
        }

        #[test]
        #[ignore = "about a minute each in release"]
        fn backlogged_flows_follow_rate_changes_long() {
            measure(&changing(4_000_000_000, 1.0), "(b) rate changes, long");
        }
    }
}
