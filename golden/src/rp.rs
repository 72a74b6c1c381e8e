//! RP — the DCQCN reaction point: per-flow rate control at the sending NIC.
//!
//! Implements `../shared/ALGORITHMS.md` §"DCQCN reaction point" (seed 004
//! §3.1 and its Figure 7) in three runtime-selectable profiles (`paper`,
//! `nvidia`, `ns3`); the rules, their sources and the architecture are
//! `docs/rp.md`. This module holds the cycle-exact model ([`Rp`]), the
//! visit arithmetic in integers and in reals ([`Exact`], [`Real`]: the same
//! control logic on both, so their difference is the rounding alone), and
//! the continuous-time float reference ([`reference`]).
//!
//! # The contract, on the clock-cycle count
//! Per flow, the block keeps a *capture* state (written by events) and a
//! *rate* state (written by the engine's visits):
//! - An event is *accepted* in cycle `n` when `evt_valid` is high and the
//!   block is ready. A CNP ([`kind::CNP`]) restarts the flow's byte count
//!   and makes a CNP *pending*; bytes sent ([`kind::BYTES`], `evt_bytes`
//!   bytes) add to the byte count, and when it reaches the `byte_counter`
//!   register `B` (not 0) it drops by `B` and a byte-counter event becomes
//!   pending. Each kind is pending at most once: a second one before the
//!   engine's visit is merged with the first. An event that makes a flow
//!   pending when nothing was pending queues the flow for a visit in cycle
//!   `n + CAPTURE_LATENCY` (a FIFO of `2^fifo_bits` entries; a full FIFO
//!   drops the request).
//! - The engine *visits* at most one flow per cycle. In cycle `n` it takes,
//!   when `turn` is the FIFO's and the FIFO is not empty, the FIFO's head,
//!   else the round-robin pointer's flow (the pointer then advances, over
//!   flows `0 .. flows_in_use`); `turn` alternates every cycle. A flow
//!   visited in cycle `m` is not visited again before `m + DEPTH`: a FIFO
//!   head that is stays in the FIFO, a round-robin flow that is is passed
//!   over; either way the cycle has no visit.
//! - A visit in cycle `n` consumes the flow's pending events accepted
//!   before `n` (an event accepted in `n` stays pending) and applies, at the
//!   tick of cycle `n` (docs/rp.md §"The visit"): the flow's timers since
//!   its last visit in time order (alpha periods, an `nvidia`/`ns3`
//!   decrease tick, increase-timer expiries, at most `steps` of each), then
//!   the pending byte-counter event and the pending CNP. If `Rc` changed,
//!   `rate_valid` is high in cycle `n + DEPTH` with the flow and its new
//!   `Rc`.
//! - Time: the tick counter advances every `tick_cycles` cycles; the alpha
//!   period number every `alpha_period` ticks (`nvidia`, `ns3`). Stamps are
//!   kept modulo `2^stamp_bits` ticks or periods.
//! - A reset, or a write of `profile`, `g` or `alpha_period`
//!   ([`FORGETTING`]), forgets every flow (each is
//!   back at line rate, never limited): the block is busy, `evt_ready` low
//!   and no visit made, for `max(2^flow_bits, 4 x 2^stamp_bits) + 1` cycles, and
//!   the visits in flight give no output. A write of another register is
//!   read by the capture, the time base and the round robin from the next
//!   cycle; the engine makes no new visit until its visits in flight are
//!   done (at most `DEPTH - 1` cycles) and for at least the next
//!   [`WRITE_PAUSE`] = 2 cycles, then reads it. (The RTL's scheduler works
//!   out its candidates two cycles ahead, the round robin's successors with
//!   the flows_in_use of the cycle they are computed in; the pause keeps
//!   it from advancing on a successor or an in-flight check made with the
//!   value before the write.)
//!
//! Every visit of every flow thus comes at most `2 flows_in_use + DEPTH`
//! cycles after the one before it ([`RpParams::visit_spacing`]), plus the
//! pauses of register writes; an event or a timer expiry takes effect at
//! the first visit after it, so that is the worst-case lateness, which
//! `tests` drive and measure.

use crate::mask;
use std::collections::VecDeque;

use crate::ParamError;

/// Cycles from a visit to its rate output; a flow visited in cycle `m` is
/// next visited in cycle `m + DEPTH` or later.
pub const DEPTH: usize = 64;

/// An event accepted in cycle `n` queues its flow in cycle `n +
/// CAPTURE_LATENCY`, which the FIFO's turn can take from the next cycle.
pub const CAPTURE_LATENCY: usize = 6;
/// Cycles after a write of a register (one that does not forget) in which
/// the engine makes no visit, even with none in flight: the RTL's round
/// robin works out its successors with the flows_in_use of their cycle and
/// its in-flight check two cycles ahead of the visit, so the successors
/// (and the check on them) are right again from the third cycle after.
pub const WRITE_PAUSE: u8 = 2;

/// Rates are in Mb/s in 19 bits (to 524 Gb/s).
pub const RATE_BITS: u32 = 19;
/// Rate units per Mb/s.
pub const UNITS_PER_MBPS: u32 = 1;
/// alpha is `a / 2^ALPHA_BITS` (so alpha is below 1).
pub const ALPHA_BITS: u32 = 14;
/// alpha's unit in the stored integer, `2^ALPHA_BITS`.
pub const ALPHA_ONE: u32 = 1 << ALPHA_BITS;
/// `g` is `g / 2^18`; the powers `(1 - g)^k` are 18-bit fractions.
pub const G_FRAC_BITS: u32 = 18;
/// `max_dec` (largest share of `Rc` one cut removes) is `m / 4096`.
pub const MAX_DEC_ONE: u32 = 4096;
/// Cycles per entry of the power table's fill (a multiply in a loop).
pub const POWER_FILL_CYCLES: u32 = 4;
/// The capture's byte count is 24 bits.
const BYTE_ACC_MASK: u32 = (1 << 24) - 1;
/// `T` and `BC` saturate at this count.
pub const COUNT_MAX: u8 = 31;

/// Event kinds (`evt_kind`, 1 bit).
pub mod kind {
    pub const CNP: u8 = 0;
    pub const BYTES: u8 = 1;
}

/// Which rule set the engine follows (the `profile` register).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Paper = 0,
    Nvidia = 1,
    Ns3 = 2,
}

impl Profile {
    /// The register's value 3 is refused by the loader; the hardware reads it
    /// as `ns3`.
    pub fn from_reg(v: u32) -> Profile {
        match v & 3 {
            0 => Profile::Paper,
            1 => Profile::Nvidia,
            _ => Profile::Ns3,
        }
    }
}

/// The shape menu of the RTL, written once: the (flow_bits, stamp_bits,
/// fifo_bits) it can be generated with, all with `steps` = 4.
/// `rp_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [(f, s, q), ...] }`; [`SUPPORTED_SHAPES`] and the hdl
/// crate's const-generic dispatch are generated from it. The golden model
/// runs any shape [`RpShape::validate`] takes.
#[macro_export]
macro_rules! rp_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [(4, 8, 2), (10, 10, 4), (14, 10, 9), (17, 12, 9)] }
    };
}

macro_rules! rp_menu_constants {
    (() ; [$(($f:literal, $s:literal, $q:literal)),*]) => {
        /// (flow_bits, stamp_bits, fifo_bits) of the RTL's menu.
        pub const SUPPORTED_SHAPES: &[(u32, u32, u32)] = &[$(($f, $s, $q)),*];
    };
}
rp_shape_menu!([rp_menu_constants];);

/// `steps` of every shape of the RTL's menu.
pub const RTL_STEPS: u32 = 4;

/// Generation-time sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RpShape {
    /// `2^flow_bits` flows.
    pub flow_bits: u32,
    /// Width of the per-flow stamps (ticks, alpha periods).
    pub stamp_bits: u32,
    /// The visit FIFO holds `2^fifo_bits` flows.
    pub fifo_bits: u32,
    /// Increase-timer expiries one visit applies at most.
    pub steps: u32,
}

impl Default for RpShape {
    fn default() -> Self {
        RpShape {
            flow_bits: 14,
            stamp_bits: 10,
            fifo_bits: 9,
            steps: 4,
        }
    }
}

impl RpShape {
    pub fn validate(&self) -> Result<(), ParamError> {
        let range = |name: &'static str, v: u32, lo: u32, hi: u32| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(ParamError::new(name, format!("{v} is outside {lo}..={hi}")))
            }
        };
        range("flow_bits", self.flow_bits, 4, 17)?;
        range("stamp_bits", self.stamp_bits, 6, 12)?;
        range("fifo_bits", self.fifo_bits, 2, self.flow_bits.min(12))?;
        range("steps", self.steps, 1, 8)
    }
    /// The shape is one the RTL can be generated with (`SUPPORTED_SHAPES`,
    /// `steps` = 4), besides [`RpShape::validate`].
    pub fn validate_rtl(&self) -> Result<(), ParamError> {
        // The menu first, naming the first size no shape of it has.
        let t = (self.flow_bits, self.stamp_bits, self.fifo_bits);
        if !SUPPORTED_SHAPES.contains(&t) {
            let name = if !SUPPORTED_SHAPES.iter().any(|m| m.0 == t.0) {
                "flow_bits"
            } else if !SUPPORTED_SHAPES.iter().any(|m| (m.0, m.1) == (t.0, t.1)) {
                "stamp_bits"
            } else {
                "fifo_bits"
            };
            return Err(ParamError::new(
                name,
                format!(
                    "(flow_bits, stamp_bits, fifo_bits) = {t:?} is not in the RTL's menu {SUPPORTED_SHAPES:?}"
                ),
            ));
        }
        if self.steps != RTL_STEPS {
            return Err(ParamError::new(
                "steps",
                format!(
                    "{} is not supported by the RTL; it has {RTL_STEPS}",
                    self.steps
                ),
            ));
        }
        self.validate()
    }

    pub fn flows(&self) -> u32 {
        1 << self.flow_bits
    }
    /// Cycles the block is busy after a reset or a write that forgets:
    /// `max(2^flow_bits, 4 x 2^stamp_bits) + 1`. (The clearing writes one
    /// flow a cycle from the cycle after the kill, so that the kill's
    /// fan-out starts at a flip-flop; the power table's `2^stamp_bits`
    /// entries are filled in that time, one every [`POWER_FILL_CYCLES`]
    /// cycles.)
    pub fn clear_cycles(&self) -> u32 {
        self.flows().max(POWER_FILL_CYCLES << self.stamp_bits) + 1
    }
}

/// The runtime registers (loaded through `cfg_addr`/`cfg_data`; the map is
/// [`REGISTERS`]). Rates in Mb/s, times in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RpParams {
    pub profile: Profile,
    /// Clock cycles per tick (0 reads as 1).
    pub tick_cycles: u32,
    /// The round robin visits flows `0 .. flows_in_use`.
    pub flows_in_use: u32,
    pub line_rate: u32,
    pub r_min: u32,
    pub r_ai: u32,
    pub r_hai: u32,
    /// alpha gain, `g / 2^18` (0 reads as 1).
    pub g: u32,
    /// alpha at the first CNP, `/ 2^ALPHA_BITS`.
    pub alpha_init: u32,
    /// `paper`: the alpha timer `K`; `nvidia`/`ns3`: the alpha period. Ticks;
    /// 0 reads as 1.
    pub alpha_period: u32,
    /// `nvidia`/`ns3`: the decrease period is `alpha_period << dec_shift`.
    pub dec_shift: u32,
    /// Increase timer, ticks (0 reads as 1).
    pub t_inc: u32,
    /// Byte counter `B` in bytes; 0: none.
    pub byte_counter: u32,
    /// Stage threshold `F`.
    pub f: u32,
    /// A cut removes `Rc alpha / 2^(gd - 10)` (11: `Rc alpha / 2`).
    pub gd: u32,
    /// ... and at most `Rc max_dec / 4096`.
    pub max_dec: u32,
    /// `nvidia`/`ns3`: `Rc = Rt =` this at the first CNP; 0 keeps line rate.
    pub first_cnp_rate: u32,
    pub clamp_tgt_rate: bool,
    pub clamp_after_time_inc: bool,
}

/// The addresses whose write forgets every flow: `profile`, `g` (the power
/// table is refilled) and `alpha_period` (the shared alpha period number,
/// from which `nvidia`'s and `ns3`'s decrease ticks are found in ticks,
/// counts in it).
pub const FORGETTING: [u32; 3] = [0, 7, 9];

pub use crate::register::Register;

/// The register map, the one source of the `cfg` port's addresses (and of
/// the nic top's AXI4-Lite map). A write of an address not here is ignored;
/// data bits above a register's width are ignored.
pub const REGISTERS: &[Register] = &[
    Register {
        addr: 0,
        name: "profile",
        bits: 2,
        doc: "0 paper, 1 nvidia, 2 ns3; a write forgets every flow",
    },
    Register {
        addr: 1,
        name: "tick_cycles",
        bits: 16,
        doc: "clock cycles per tick (0 as 1)",
    },
    Register {
        addr: 2,
        name: "flows_in_use",
        bits: 18,
        doc: "the round robin visits flows 0 .. flows_in_use",
    },
    Register {
        addr: 3,
        name: "line_rate",
        bits: RATE_BITS,
        doc: "line rate, Mb/s",
    },
    Register {
        addr: 4,
        name: "r_min",
        bits: RATE_BITS,
        doc: "floor of Rc, Mb/s",
    },
    Register {
        addr: 5,
        name: "r_ai",
        bits: RATE_BITS,
        doc: "additive increase of Rt, Mb/s",
    },
    Register {
        addr: 6,
        name: "r_hai",
        bits: RATE_BITS,
        doc: "hyper increase of Rt, Mb/s",
    },
    Register {
        addr: 7,
        name: "g",
        bits: 16,
        doc: "alpha gain, 1/2^18; a write forgets every flow",
    },
    Register {
        addr: 8,
        name: "alpha_init",
        bits: ALPHA_BITS,
        doc: "alpha at the first CNP, 1/2^14",
    },
    Register {
        addr: 9,
        name: "alpha_period",
        bits: 16,
        doc: "alpha timer (paper) or period (nvidia, ns3), ticks (0 as 1); a write forgets every flow",
    },
    Register {
        addr: 10,
        name: "dec_shift",
        bits: 4,
        doc: "decrease period = alpha_period << dec_shift (nvidia, ns3)",
    },
    Register {
        addr: 11,
        name: "t_inc",
        bits: 16,
        doc: "increase timer, ticks (0 as 1)",
    },
    Register {
        addr: 12,
        name: "byte_counter",
        bits: 24,
        doc: "byte counter B, bytes; 0: none",
    },
    Register {
        addr: 13,
        name: "f",
        bits: 5,
        doc: "stage threshold F",
    },
    Register {
        addr: 14,
        name: "gd",
        bits: 4,
        doc: "cut Rc alpha / 2^(gd - 10)",
    },
    Register {
        addr: 15,
        name: "max_dec",
        bits: 13,
        doc: "largest share of Rc one cut removes, 1/4096",
    },
    Register {
        addr: 16,
        name: "first_cnp_rate",
        bits: RATE_BITS,
        doc: "nvidia, ns3: Rc = Rt = this at the first CNP, Mb/s; 0 keeps line rate",
    },
    Register {
        addr: 17,
        name: "clamp",
        bits: 2,
        doc: "bit 0 clamp_tgt_rate, bit 1 clamp_after_time_inc",
    },
];

/// Rate units of `mbps` Mb/s, rounded to nearest.
pub fn units(mbps: f64) -> u32 {
    (mbps * UNITS_PER_MBPS as f64).round() as u32
}

impl RpParams {
    /// docs/rp.md §`paper` at a line rate (Mb/s) and a tick of `tick_cycles`
    /// cycles taken as 1 µs.
    pub fn paper(line_rate_mbps: f64, tick_cycles: u32, flows_in_use: u32) -> RpParams {
        RpParams {
            profile: Profile::Paper,
            tick_cycles,
            flows_in_use,
            line_rate: units(line_rate_mbps),
            r_min: units(100.0),
            r_ai: units(40.0),
            r_hai: units(200.0),
            g: 1 << (G_FRAC_BITS - 8),
            alpha_init: ALPHA_ONE - 1,
            alpha_period: 55,
            dec_shift: 0,
            t_inc: 55,
            byte_counter: 10_000_000,
            f: 5,
            gd: 11,
            max_dec: MAX_DEC_ONE,
            first_cnp_rate: 0,
            clamp_tgt_rate: true,
            clamp_after_time_inc: true,
        }
    }

    /// docs/rp.md §`nvidia` (NVIDIA's defaults).
    pub fn nvidia(line_rate_mbps: f64, tick_cycles: u32, flows_in_use: u32) -> RpParams {
        RpParams {
            profile: Profile::Nvidia,
            r_min: units(1.0),
            r_ai: units(5.0),
            r_hai: units(50.0),
            // (1024 - 1019) / 1024 = 1280 / 2^18.
            g: 5 << (G_FRAC_BITS - 10),
            alpha_init: 1023 << (ALPHA_BITS - 10),
            alpha_period: 1,
            dec_shift: 2,
            t_inc: 300,
            byte_counter: 32767 * 64,
            f: 1,
            max_dec: MAX_DEC_ONE / 2,
            clamp_tgt_rate: false,
            ..RpParams::paper(line_rate_mbps, tick_cycles, flows_in_use)
        }
    }

    /// docs/rp.md §`ns3` (HPCC's run.py `dcqcn` set).
    pub fn ns3(line_rate_mbps: f64, tick_cycles: u32, flows_in_use: u32) -> RpParams {
        RpParams {
            profile: Profile::Ns3,
            r_min: units(1000.0),
            r_ai: units(5.0 * line_rate_mbps / 25_000.0),
            r_hai: units(50.0 * line_rate_mbps / 25_000.0),
            g: 1 << (G_FRAC_BITS - 8),
            alpha_init: ALPHA_ONE - 1,
            byte_counter: 0,
            max_dec: MAX_DEC_ONE,
            ..RpParams::nvidia(line_rate_mbps, tick_cycles, flows_in_use)
        }
    }

    /// Reset values of a shape: `paper` at 100 Gb/s, a tick of 150 cycles
    /// (1 µs at 150 MHz), every flow in use up to 16,384 (with more, the
    /// round robin would come too seldom for `paper`'s 55 µs timers: see
    /// [`RpParams::validate`]).
    pub fn reset_for(shape: &RpShape) -> RpParams {
        RpParams::paper(100_000.0, 150, shape.flows().min(1 << 14))
    }

    /// The register's value as the hardware holds it.
    pub fn read(&self, addr: u32) -> Option<u32> {
        Some(match addr {
            0 => self.profile as u32,
            1 => self.tick_cycles,
            2 => self.flows_in_use,
            3 => self.line_rate,
            4 => self.r_min,
            5 => self.r_ai,
            6 => self.r_hai,
            7 => self.g,
            8 => self.alpha_init,
            9 => self.alpha_period,
            10 => self.dec_shift,
            11 => self.t_inc,
            12 => self.byte_counter,
            13 => self.f,
            14 => self.gd,
            15 => self.max_dec,
            16 => self.first_cnp_rate,
            17 => self.clamp_tgt_rate as u32 | (self.clamp_after_time_inc as u32) << 1,
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
            0 => self.profile = Profile::from_reg(v),
            1 => self.tick_cycles = v,
            2 => self.flows_in_use = v,
            3 => self.line_rate = v,
            4 => self.r_min = v,
            5 => self.r_ai = v,
            6 => self.r_hai = v,
            7 => self.g = v,
            8 => self.alpha_init = v,
            9 => self.alpha_period = v,
            10 => self.dec_shift = v,
            11 => self.t_inc = v,
            12 => self.byte_counter = v,
            13 => self.f = v,
            14 => self.gd = v,
            15 => self.max_dec = v,
            16 => self.first_cnp_rate = v,
            _ => {
                self.clamp_tgt_rate = v & 1 != 0;
                self.clamp_after_time_inc = v & 2 != 0;
            }
        }
        true
    }

    /// Worst-case cycles between two visits of a flow, `2 flows_in_use +
    /// DEPTH` (module docs).
    pub fn visit_spacing(&self) -> u64 {
        2 * self.flows_in_use.max(1) as u64 + DEPTH as u64
    }

    /// The same in whole ticks, rounded up, plus one for the phase of the
    /// tick counter.
    pub fn visit_spacing_ticks(&self) -> u64 {
        self.visit_spacing()
            .div_ceil(self.tick_cycles.max(1) as u64)
            + 1
    }

    /// The loader's check: every register in range, and the timers slow
    /// enough for the visit spacing that the stamps never wrap between
    /// visits and one visit's `steps` expiries keep up with the increase
    /// timer (docs/rp.md §"Lateness"). The model runs any values; only these
    /// keep the lateness bound.
    pub fn validate(&self, shape: &RpShape) -> Result<(), ParamError> {
        let e = |name, msg: String| Err(ParamError::new(name, msg));
        for r in REGISTERS {
            let v = self.read(r.addr).unwrap_or(0);
            if v > mask(r.bits) {
                return e(r.name, format!("{v} does not fit {} bits", r.bits));
            }
        }
        let nonzero = [
            ("tick_cycles", self.tick_cycles),
            ("flows_in_use", self.flows_in_use),
            ("line_rate", self.line_rate),
            ("r_min", self.r_min),
            ("g", self.g),
            ("alpha_period", self.alpha_period),
            ("t_inc", self.t_inc),
        ];
        for (name, v) in nonzero {
            if v == 0 {
                return e(name, "must not be 0".into());
            }
        }
        if self.flows_in_use > shape.flows() {
            return e(
                "flows_in_use",
                format!(
                    "{} exceeds the {} flows of flow_bits = {}",
                    self.flows_in_use,
                    shape.flows(),
                    shape.flow_bits
                ),
            );
        }
        if self.r_min > self.line_rate {
            return e(
                "r_min",
                format!("{} exceeds line_rate {}", self.r_min, self.line_rate),
            );
        }
        if self.g >= 1 << 16 {
            return e("g", format!("{} is not below 2^16 (g < 1/4)", self.g));
        }
        if self.alpha_init >= ALPHA_ONE {
            return e(
                "alpha_init",
                format!("{} is not below {ALPHA_ONE}", self.alpha_init),
            );
        }
        if self.max_dec > MAX_DEC_ONE {
            return e(
                "max_dec",
                format!("{} exceeds 4096 (all of Rc)", self.max_dec),
            );
        }
        if !(10..=15).contains(&self.gd) {
            return e("gd", format!("{} is outside 10..=15", self.gd));
        }
        if self.byte_counter != 0 && self.byte_counter <= 0xffff {
            return e(
                "byte_counter",
                format!(
                    "{} must be 0 (none) or above the largest evt_bytes, 65535",
                    self.byte_counter
                ),
            );
        }
        if self.first_cnp_rate > self.line_rate {
            return e(
                "first_cnp_rate",
                format!(
                    "{} exceeds line_rate {}",
                    self.first_cnp_rate, self.line_rate
                ),
            );
        }
        let w = 1u64 << shape.stamp_bits;
        let l = self.visit_spacing_ticks();
        if self.t_inc as u64 + l >= w {
            return e(
                "t_inc",
                format!(
                    "{} ticks plus the visit spacing of {l} ticks (2 flows_in_use + {DEPTH} cycles) must stay below 2^stamp_bits = {w}",
                    self.t_inc
                ),
            );
        }
        if (self.t_inc as u64) * (shape.steps as u64) < l {
            return e(
                "t_inc",
                format!(
                    "{} ticks x steps = {} is below the visit spacing of {l} ticks: one visit could not apply every expiry due; lower flows_in_use or raise tick_cycles, t_inc or steps",
                    self.t_inc, shape.steps
                ),
            );
        }
        if self.profile == Profile::Paper {
            if (self.alpha_period as u64) * (shape.steps as u64) < l {
                return e(
                    "alpha_period",
                    format!(
                        "{} ticks x steps = {} is below the visit spacing of {l} ticks: one visit could not apply every expiry due",
                        self.alpha_period, shape.steps
                    ),
                );
            }
            if self.alpha_period as u64 + l >= w {
                return e(
                    "alpha_period",
                    format!("{} ticks plus the visit spacing of {l} ticks must stay below 2^stamp_bits = {w}", self.alpha_period),
                );
            }
        } else {
            if self.dec_shift >= shape.stamp_bits {
                return e(
                    "dec_shift",
                    format!(
                        "{} is not below stamp_bits = {}",
                        self.dec_shift, shape.stamp_bits
                    ),
                );
            }
            // Alpha periods elapsed between visits, at most.
            let periods = l / self.alpha_period as u64 + 1;
            if periods + (1 << self.dec_shift) >= w {
                return e(
                    "alpha_period",
                    format!(
                        "up to {periods} alpha periods of {} ticks pass between visits; with the decrease period's {} they must stay below 2^stamp_bits = {w}",
                        self.alpha_period,
                        1u64 << self.dec_shift
                    ),
                );
            }
        }
        Ok(())
    }
}

impl RpParams {
    /// The same parameters for the continuous-time [`reference`], a tick
    /// taken as 1 µs (rates in Mb/s, alpha and `g` as fractions), with the
    /// shared periods' phase ([`reference::Params::global_phase`]).
    pub fn to_reference(&self) -> reference::Params {
        let mbps = |u: u32| u as f64 / UNITS_PER_MBPS as f64;
        let ap = self.alpha_period.max(1) as f64;
        reference::Params {
            profile: match self.profile {
                Profile::Paper => reference::Profile::Paper,
                Profile::Nvidia => reference::Profile::Nvidia,
                Profile::Ns3 => reference::Profile::Ns3,
            },
            line_rate: mbps(self.line_rate),
            r_min: mbps(self.r_min),
            g: self.g.max(1) as f64 / (1u64 << G_FRAC_BITS) as f64,
            alpha_period: ap,
            alpha_init: self.alpha_init as f64 / ALPHA_ONE as f64,
            t_inc: self.t_inc.max(1) as f64,
            byte_counter: self.byte_counter as u64,
            f: self.f,
            r_ai: mbps(self.r_ai),
            r_hai: mbps(self.r_hai),
            dec_period: ap * (1u64 << self.dec_shift.min(31)) as f64,
            gd: self.gd,
            min_dec_fac: 100.0 - 100.0 * self.max_dec as f64 / MAX_DEC_ONE as f64,
            first_cnp_rate: mbps(self.first_cnp_rate),
            clamp_tgt_rate: self.clamp_tgt_rate,
            clamp_after_time_inc: self.clamp_after_time_inc,
            global_phase: true,
        }
    }
}

/// Generation-time configuration: sizes and the registers' reset values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RpConfig {
    pub shape: RpShape,
    pub reset: RpParams,
}

impl Default for RpConfig {
    fn default() -> Self {
        let shape = RpShape::default();
        RpConfig {
            shape,
            reset: RpParams::reset_for(&shape),
        }
    }
}

impl RpConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate(&self.shape)
    }
}

/// The powers `Q(k) = (1 - g)^k` as 18-bit fractions, `k < 2^stamp_bits`:
/// `Q(0) = 2^18`, `Q(1) = 2^18 - g`, `Q(k + 1) = floor(Q(k) Q(1) / 2^18)`,
/// the table the RTL fills while it is busy after a `g` write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Powers(Vec<u32>);

impl Powers {
    /// `g = 0` reads as 1 (so every `Q(k)`, `k >= 1`, has 18 bits).
    pub fn new(g: u32, stamp_bits: u32) -> Powers {
        let one = 1u64 << G_FRAC_BITS;
        let q1 = one.saturating_sub(g.max(1) as u64);
        let mut v = vec![one as u32];
        let mut q = q1;
        for _ in 1..(1u32 << stamp_bits) {
            v.push(q as u32);
            q = (q * q1) >> G_FRAC_BITS;
        }
        Powers(v)
    }
    pub fn q(&self, k: u32) -> u64 {
        self.0[k as usize] as u64
    }
}

/// The number formats of a visit: [`Exact`] (the contract's integers) or
/// [`Real`] (the same steps on reals, nothing rounded).
pub trait Arith {
    type Rate: Copy + PartialEq + std::fmt::Debug;
    type Alpha: Copy + std::fmt::Debug;
    fn rate(&self, units: u32) -> Self::Rate;
    fn alpha(&self, a: u32) -> Self::Alpha;
    /// alpha after `k >= 1` periods, the first with the raise if `mark`:
    /// `alpha (1 - g)^k + [mark] g (1 - g)^(k - 1)`.
    fn decay(&self, a: Self::Alpha, k: u32, mark: bool) -> Self::Alpha;
    /// `max(r_min, Rc - min(Rc alpha 2^(10 - gd), Rc max_dec))`.
    fn cut(&self, rc: Self::Rate, a: Self::Alpha, p: &RpParams) -> Self::Rate;
    /// `Rt = min(LR, Rt + step)`, `Rc = min(LR, (Rt + Rc) / 2)`.
    fn increase(
        &self,
        rt: Self::Rate,
        rc: Self::Rate,
        step: u64,
        lr: u32,
    ) -> (Self::Rate, Self::Rate);
    fn min(&self, a: Self::Rate, b: Self::Rate) -> Self::Rate;
    fn max(&self, a: Self::Rate, b: Self::Rate) -> Self::Rate;
}

/// The contract's integers: rates in Mb/s, alpha in `1/2^ALPHA_BITS`;
/// alpha's decay rounded to nearest (half up), everything else floored.
pub struct Exact<'a>(pub &'a Powers);

impl Arith for Exact<'_> {
    type Rate = u32;
    type Alpha = u32;
    fn rate(&self, units: u32) -> u32 {
        units
    }
    fn alpha(&self, a: u32) -> u32 {
        a
    }
    /// `floor((a Q(k) + [mark] (Q(k-1) - Q(k)) 2^ALPHA_BITS + 2^17) / 2^18)`,
    /// below `2^ALPHA_BITS`. Rounded to nearest, not floored: a floor's
    /// bias adds up to `1/g` units over a run of decays; rounding's error does
    /// not add up, and only stalls alpha's decay below `1/(2g)` units.
    fn decay(&self, a: u32, k: u32, mark: bool) -> u32 {
        let (qk, qk1) = (self.0.q(k), self.0.q(k - 1));
        let raise = if mark { (qk1 - qk) << ALPHA_BITS } else { 0 };
        ((a as u64 * qk + raise + (1 << (G_FRAC_BITS - 1))) >> G_FRAC_BITS) as u32
    }
    fn cut(&self, rc: u32, a: u32, p: &RpParams) -> u32 {
        let by_alpha = (rc as u64 * a as u64) >> (p.gd + ALPHA_BITS - 10);
        let cap = (rc as u64 * p.max_dec as u64) >> 12;
        let red = by_alpha.min(cap);
        (rc as u64).saturating_sub(red).max(p.r_min as u64) as u32
    }
    fn increase(&self, rt: u32, rc: u32, step: u64, lr: u32) -> (u32, u32) {
        let rt = (rt as u64 + step).min(lr as u64) as u32;
        let rc = ((rt + rc) >> 1).min(lr);
        (rt, rc)
    }
    fn min(&self, a: u32, b: u32) -> u32 {
        a.min(b)
    }
    fn max(&self, a: u32, b: u32) -> u32 {
        a.max(b)
    }
}

/// The same visit on reals (rates in units, alpha in `[0, 1]`), for the
/// error bound of the integer formats.
#[derive(Debug, Clone, Copy)]
pub struct Real {
    pub g: f64,
}

impl Arith for Real {
    type Rate = f64;
    type Alpha = f64;
    fn rate(&self, units: u32) -> f64 {
        units as f64
    }
    fn alpha(&self, a: u32) -> f64 {
        a as f64 / ALPHA_ONE as f64
    }
    fn decay(&self, a: f64, k: u32, mark: bool) -> f64 {
        let q = 1.0 - self.g;
        a * q.powi(k as i32)
            + if mark {
                self.g * q.powi(k as i32 - 1)
            } else {
                0.0
            }
    }
    fn cut(&self, rc: f64, a: f64, p: &RpParams) -> f64 {
        let red = (rc * a * 2f64.powi(10 - p.gd as i32)).min(rc * p.max_dec as f64 / 4096.0);
        (rc - red).max(p.r_min as f64)
    }
    fn increase(&self, rt: f64, rc: f64, step: u64, lr: u32) -> (f64, f64) {
        let rt = (rt + step as f64).min(lr as f64);
        (rt, ((rt + rc) / 2.0).min(lr as f64))
    }
    fn min(&self, a: f64, b: f64) -> f64 {
        a.min(b)
    }
    fn max(&self, a: f64, b: f64) -> f64 {
        a.max(b)
    }
}

/// One flow's rate state, in the numbers of `A`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RateState<R, A> {
    pub rc: R,
    pub rt: R,
    pub alpha: A,
}

/// One flow's timing and stage state (integers in both number formats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Control {
    /// A first CNP has come since the flow was last forgotten.
    pub limited: bool,
    /// The increase timer (and byte counter) run.
    pub inc_on: bool,
    /// `nvidia`/`ns3`: a CNP in the alpha period of `a_stamp`; one since
    /// the last decrease.
    pub amark: bool,
    pub dmark: bool,
    /// `T`, `BC`, saturating at [`COUNT_MAX`].
    pub t: u8,
    pub bc: u8,
    /// Tick of the increase timer's last restart or expiry, mod `2^W`.
    pub inc_stamp: u32,
    /// `paper`: tick of the alpha timer's last restart or expiry; `nvidia`,
    /// `ns3`: alpha period number at the last visit; mod `2^W`.
    pub a_stamp: u32,
}

/// What a visit sees besides the flow's state.
#[derive(Debug, Clone, Copy)]
pub struct VisitCtx<'p> {
    pub p: &'p RpParams,
    pub stamp_bits: u32,
    pub steps: u32,
    /// Tick and alpha period number of the visit's cycle, mod `2^W`.
    pub tick: u32,
    pub apn: u32,
    pub cnp: bool,
    pub bc_event: bool,
}

/// What a visit did, for the lateness test.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VisitLog {
    pub alpha_periods: u32,
    pub increases: u32,
    pub byte_increase: bool,
    pub decrease: bool,
    pub cnp: bool,
    /// The visit lowered `Rc` for congestion: `paper`'s cut at a CNP (the
    /// first included), `nvidia`/`ns3`'s cut at a decrease tick, or their
    /// first CNP's `first_cnp_rate` (when not 0). The rate stream's
    /// `rate_cut` is this bit of a visit that changed `Rc`.
    pub cut: bool,
}

/// The visit: docs/rp.md §"The visit", on the numbers of `a`. Returns what
/// it applied.
pub fn visit<A: Arith>(
    a: &A,
    c: &VisitCtx,
    ctl: &mut Control,
    st: &mut RateState<A::Rate, A::Alpha>,
) -> VisitLog {
    let p = c.p;
    let w = mask(c.stamp_bits);
    let paper = p.profile == Profile::Paper;
    let mut log = VisitLog::default();
    if !ctl.limited {
        if !c.cnp {
            return log; // a byte-counter event of a flow at line rate: nothing
        }
        log.cnp = true;
        log.cut = paper || p.first_cnp_rate != 0;
        // First CNP: the flow's rate state starts from line rate and alpha_init.
        ctl.limited = true;
        ctl.t = 0;
        ctl.bc = 0;
        st.alpha = a.alpha(p.alpha_init);
        st.rc = a.rate(p.line_rate);
        st.rt = st.rc;
        if paper {
            first_paper_cnp(a, c, ctl, st);
        } else {
            if p.first_cnp_rate != 0 {
                let r = p
                    .first_cnp_rate
                    .clamp(p.r_min.min(p.line_rate), p.line_rate);
                st.rc = a.rate(r);
                st.rt = st.rc;
            }
            ctl.inc_on = false;
            ctl.amark = false;
            ctl.dmark = true;
            ctl.a_stamp = c.apn & w;
        }
        return log;
    }
    // The timers between the last visit and now, in time order (alpha,
    // then decrease, then increase at equal times, as the reference), then
    // the pending events at now. Only an `nvidia`/`ns3` decrease tick reads
    // or restarts another timer's state: the time line splits there.
    let ti = p.t_inc.max(1);
    let mut budget = c.steps;
    if paper {
        // At most `steps` expiries, as the increase timer's (the loader
        // keeps `alpha_period x steps` above the visit spacing).
        let k = ((c.tick.wrapping_sub(ctl.a_stamp) & w) / p.alpha_period.max(1)).min(c.steps);
        if k > 0 {
            st.alpha = a.decay(st.alpha, k, false);
            ctl.a_stamp = ctl.a_stamp.wrapping_add(k * p.alpha_period.max(1)) & w;
        }
        log.alpha_periods = k;
    } else {
        let apn = c.apn & w;
        let elapsed = apn.wrapping_sub(ctl.a_stamp) & w;
        let sh = p.dec_shift.min(c.stamp_bits);
        // Alpha periods from the last visit to the first decrease tick after it.
        let to_b = ((ctl.a_stamp >> sh) + 1)
            .wrapping_shl(sh)
            .wrapping_sub(ctl.a_stamp)
            & w;
        let mut k = elapsed;
        if ctl.dmark && to_b != 0 && to_b <= elapsed {
            // alpha at the tick, increases due strictly before it, the cut,
            // the increase timer restarted at the tick.
            st.alpha = a.decay(st.alpha, to_b, ctl.amark);
            ctl.amark = false;
            let b_tick =
                (ctl.a_stamp.wrapping_add(to_b) & w).wrapping_mul(p.alpha_period.max(1)) & w;
            if ctl.inc_on {
                let eb = b_tick.wrapping_sub(ctl.inc_stamp) & w;
                let n = (eb.saturating_sub(1) / ti).min(budget);
                for _ in 0..n {
                    increase_event(a, p, ctl, st, false);
                }
                budget -= n;
                log.increases += n;
            }
            cut(a, p, ctl, st);
            ctl.dmark = false;
            ctl.inc_on = true;
            ctl.inc_stamp = b_tick;
            log.decrease = true;
            log.cut = true;
            k = elapsed - to_b;
        }
        if k > 0 {
            st.alpha = a.decay(st.alpha, k, ctl.amark);
            ctl.amark = false;
        }
        ctl.a_stamp = apn;
        log.alpha_periods = elapsed;
    }
    // Increase-timer expiries due by now, at most `steps` in the visit.
    if ctl.inc_on {
        let due = (c.tick.wrapping_sub(ctl.inc_stamp) & w) / ti;
        let n = due.min(budget);
        for _ in 0..n {
            increase_event(a, p, ctl, st, false);
        }
        ctl.inc_stamp = ctl.inc_stamp.wrapping_add(n * ti) & w;
        log.increases += n;
        // The pending byte-counter event, at now.
        if c.bc_event && p.byte_counter != 0 {
            increase_event(a, p, ctl, st, true);
            log.byte_increase = true;
        }
    }
    // The pending CNP, at now.
    if c.cnp {
        log.cnp = true;
        if paper {
            log.cut = true;
            let old = st.alpha;
            cut_with(a, p, ctl, st, old);
            st.alpha = a.decay(old, 1, true);
            ctl.a_stamp = c.tick & w;
            ctl.inc_stamp = c.tick & w;
        } else {
            ctl.amark = true;
            ctl.dmark = true;
        }
    }
    log
}

/// `paper`'s first CNP: a cut from line rate with `alpha_init`, the raise,
/// and both timers started.
fn first_paper_cnp<A: Arith>(
    a: &A,
    c: &VisitCtx,
    ctl: &mut Control,
    st: &mut RateState<A::Rate, A::Alpha>,
) {
    let w = mask(c.stamp_bits);
    let old = st.alpha;
    cut_with(a, c.p, ctl, st, old);
    st.alpha = a.decay(old, 1, true);
    ctl.inc_on = true;
    ctl.amark = false;
    ctl.dmark = false;
    ctl.a_stamp = c.tick & w;
    ctl.inc_stamp = c.tick & w;
}

fn cut<A: Arith>(a: &A, p: &RpParams, ctl: &mut Control, st: &mut RateState<A::Rate, A::Alpha>) {
    let al = st.alpha;
    cut_with(a, p, ctl, st, al);
}

/// The multiplicative decrease (docs/rp.md): `Rt = Rc` if `clamp_tgt_rate`,
/// or `BC > 0`, or `clamp_after_time_inc` and `T > 0`; the cut; `T = BC = 0`.
fn cut_with<A: Arith>(
    a: &A,
    p: &RpParams,
    ctl: &mut Control,
    st: &mut RateState<A::Rate, A::Alpha>,
    alpha: A::Alpha,
) {
    if p.clamp_tgt_rate || ctl.bc > 0 || (p.clamp_after_time_inc && ctl.t > 0) {
        st.rt = st.rc;
    }
    st.rc = a.cut(st.rc, alpha, p);
    ctl.t = 0;
    ctl.bc = 0;
}

/// One increase event of the timer (`byte == false`) or the byte counter:
/// `paper` counts first and then takes the stage (Figure 7), `nvidia` and
/// `ns3` the stage from the counts before the event, then count.
fn increase_event<A: Arith>(
    a: &A,
    p: &RpParams,
    ctl: &mut Control,
    st: &mut RateState<A::Rate, A::Alpha>,
    byte: bool,
) {
    let paper = p.profile == Profile::Paper;
    let count = |ctl: &mut Control| {
        let c = if byte { &mut ctl.bc } else { &mut ctl.t };
        *c = (*c + 1).min(COUNT_MAX);
    };
    if paper {
        count(ctl);
    }
    let step = rt_step(p, ctl.t as u32, ctl.bc as u32);
    let (rt, rc) = a.increase(st.rt, st.rc, step, p.line_rate);
    st.rt = rt;
    st.rc = rc;
    if !paper {
        count(ctl);
    }
}

/// The stage's step of `Rt` (rate units) from the counts.
fn rt_step(p: &RpParams, t: u32, bc: u32) -> u64 {
    let (lo, hi, f) = (t.min(bc), t.max(bc), p.f);
    match p.profile {
        Profile::Paper if hi < f => 0,
        Profile::Paper if lo < f => p.r_ai as u64,
        Profile::Paper => (lo - f + 1) as u64 * p.r_hai as u64,
        Profile::Nvidia if lo > f => p.r_hai as u64,
        Profile::Nvidia if hi >= f => p.r_ai as u64,
        Profile::Nvidia => 0,
        Profile::Ns3 if t < f => 0,
        Profile::Ns3 if t == f => p.r_ai as u64,
        Profile::Ns3 => p.r_hai as u64,
    }
}

/// Inputs of one clock cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RpIn {
    pub rst: bool,
    pub evt_valid: bool,
    /// [`kind::CNP`] or [`kind::BYTES`] (1 bit).
    pub evt_kind: u8,
    /// Flow id (its low `flow_bits` are the port).
    pub evt_flow: u32,
    /// Bytes sent (16 bits), read only with [`kind::BYTES`].
    pub evt_bytes: u32,
    pub cfg_valid: bool,
    /// Register address (5 bits) and data (32 bits).
    pub cfg_addr: u32,
    pub cfg_data: u32,
}

/// Outputs during one clock cycle (registered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RpOut {
    pub evt_ready: bool,
    pub rate_valid: bool,
    /// 0 when `rate_valid` is low.
    pub rate_flow: u32,
    pub rate_rc: u32,
    /// The visit that changed `Rc` applied a cut ([`VisitLog::cut`]); low
    /// when `rate_valid` is.
    pub rate_cut: bool,
}

/// The capture state of a flow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Capture {
    byte_acc: u32,
    cnp: bool,
    bc: bool,
}

/// The engine's state of a flow.
#[derive(Debug, Clone, Copy, Default)]
struct Flow {
    ctl: Control,
    st: RateState<u32, u32>,
}

/// The cycle-exact golden model: one [`Rp::step`] per clock cycle.
#[derive(Clone)]
pub struct Rp {
    config: RpConfig,
    /// The registers as written (the capture, the time base and the round
    /// robin read them from the next cycle on) ...
    regs: RpParams,
    /// ... and as the engine's visits read them: taken from `regs` once no
    /// visit is in flight, while `stale` holds new visits back.
    eregs: RpParams,
    stale: bool,
    /// Cycles left of the pause after a write of a register (one that does
    /// not forget): the engine does not take it while this is above 0
    /// ([`WRITE_PAUSE`]).
    written: u8,
    powers: Powers,
    flows: Vec<Flow>,
    capture: Vec<Capture>,
    fifo: VecDeque<u32>,
    /// Flows the captures of the last `CAPTURE_LATENCY` cycles queue, the
    /// oldest at the front.
    queued: VecDeque<Option<u32>>,
    rr: u32,
    /// The FIFO's turn in the next cycle.
    turn: bool,
    prescale: u32,
    tick: u32,
    ap_prescale: u32,
    apn: u32,
    busy_left: u32,
    cycle: u64,
    /// Flow visited in each of the last `DEPTH - 1` cycles (newest first).
    inflight: VecDeque<Option<u32>>,
    /// Rate outputs in flight, the oldest at the front (`DEPTH` entries).
    /// (flow, `Rc`, cut).
    outs: VecDeque<Option<(u32, u32, bool)>>,
    /// The last visit (cycle, flow, log), for tests.
    last_visit: Option<(u64, u32, VisitLog)>,
    /// The same visits on reals ([`Rp::with_real_shadow`]).
    shadow: Option<Shadow>,
}

/// Every flow's rate state on reals, driven by the same visits.
#[derive(Clone)]
struct Shadow {
    real: Real,
    flows: Vec<RateState<f64, f64>>,
    /// A visit whose control state came out different on reals (never, as
    /// no control decision reads a rate or alpha).
    diverged: bool,
}

impl Rp {
    /// A model as just after a reset (busy for its first
    /// [`RpShape::clear_cycles`] steps).
    pub fn new(config: RpConfig) -> Result<Rp, ParamError> {
        config.validate()?;
        let shape = config.shape;
        let mut rp = Rp {
            config,
            regs: config.reset,
            eregs: config.reset,
            stale: false,
            written: 0,
            powers: Powers::new(config.reset.g, shape.stamp_bits),
            flows: vec![Flow::default(); shape.flows() as usize],
            capture: vec![Capture::default(); shape.flows() as usize],
            fifo: VecDeque::new(),
            queued: VecDeque::new(),
            rr: 0,
            turn: false,
            prescale: 0,
            tick: 0,
            ap_prescale: 0,
            apn: 0,
            busy_left: 0,
            cycle: 0,
            inflight: VecDeque::new(),
            outs: VecDeque::new(),
            last_visit: None,
            shadow: None,
        };
        rp.reset();
        Ok(rp)
    }

    /// The model with every visit also made on reals ([`Real`]), so that
    /// [`Rp::real_rates`] gives the rounding-free rates of the same timeline.
    pub fn with_real_shadow(mut self) -> Rp {
        self.shadow = Some(Shadow {
            real: Real {
                g: self.regs.g.max(1) as f64 / (1u64 << G_FRAC_BITS) as f64,
            },
            flows: vec![
                RateState {
                    rc: 0.0,
                    rt: 0.0,
                    alpha: 0.0
                };
                self.flows.len()
            ],
            diverged: false,
        });
        self
    }

    /// A limited flow's `Rc`, `Rt` (rate units) and alpha on reals.
    pub fn real_rates(&self, flow: u32) -> Option<(f64, f64, f64)> {
        let s = self.shadow.as_ref()?;
        let f = &s.flows[flow as usize];
        self.flows[flow as usize]
            .ctl
            .limited
            .then_some((f.rc, f.rt, f.alpha))
    }

    /// Whether a visit on reals ever took another control path.
    pub fn shadow_diverged(&self) -> bool {
        self.shadow.as_ref().is_some_and(|s| s.diverged)
    }

    fn forget_flows(&mut self) {
        if let Some(s) = self.shadow.as_mut() {
            s.real.g = self.regs.g.max(1) as f64 / (1u64 << G_FRAC_BITS) as f64;
        }
        self.flows.fill(Flow::default());
        self.capture.fill(Capture::default());
        self.fifo.clear();
        self.queued = std::iter::repeat_n(None, CAPTURE_LATENCY).collect();
        self.rr = 0;
        // The RTL's turn restarts in the cycle after the kill: the cycle
        // after this step is the FIFO's turn, the one after that the
        // round robin's, and so on.
        self.turn = true;
        self.inflight = std::iter::repeat_n(None, DEPTH - 1).collect();
        // Visits in flight are dropped: no output of theirs comes out.
        self.outs = std::iter::repeat_n(None, DEPTH).collect();
        self.busy_left = self.config.shape.clear_cycles();
    }

    fn reset(&mut self) {
        self.regs = self.config.reset;
        self.eregs = self.regs;
        self.stale = false;
        self.written = 0;
        self.powers = Powers::new(self.regs.g, self.config.shape.stamp_bits);
        self.prescale = 0;
        self.tick = 0;
        self.ap_prescale = 0;
        self.apn = 0;
        self.forget_flows();
    }

    pub fn config(&self) -> &RpConfig {
        &self.config
    }
    /// The registers in force for the next step.
    pub fn regs(&self) -> &RpParams {
        &self.regs
    }
    pub fn ready(&self) -> bool {
        self.busy_left == 0
    }
    pub fn busy_left(&self) -> u32 {
        self.busy_left
    }
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
    /// The tick counter (mod `2^stamp_bits`) in the next step.
    pub fn tick(&self) -> u32 {
        self.tick
    }
    /// A flow's current rate `Rc` (line rate if never limited), target rate
    /// and alpha, as the engine holds them.
    pub fn flow_rates(&self, flow: u32) -> (u32, u32, u32) {
        let f = &self.flows[flow as usize];
        if f.ctl.limited {
            (f.st.rc, f.st.rt, f.st.alpha)
        } else {
            (
                self.eregs.line_rate,
                self.eregs.line_rate,
                self.eregs.alpha_init,
            )
        }
    }
    pub fn flow_control(&self, flow: u32) -> Control {
        self.flows[flow as usize].ctl
    }
    /// The cycle, flow and log of the last visit.
    pub fn last_visit(&self) -> Option<(u64, u32, VisitLog)> {
        self.last_visit
    }
    /// Flows waiting in the visit FIFO.
    pub fn fifo_len(&self) -> usize {
        self.fifo.len()
    }
    /// The FIFO's capacity, `2^fifo_bits`.
    pub fn fifo_capacity(&self) -> usize {
        1 << self.config.shape.fifo_bits
    }
    /// A flow's pending flags (CNP, byte-counter event) as the next step's
    /// visit would see them.
    pub fn pending(&self, flow: u32) -> (bool, bool) {
        let c = &self.capture[flow as usize];
        (c.cnp, c.bc)
    }
    /// The flow the engine takes in the next step if it is not in flight,
    /// or `None` if the engine makes no visit then (busy, or a register
    /// write waiting for the visits in flight).
    pub fn next_candidate(&self) -> Option<u32> {
        if self.busy_left > 0 || (self.stale && !self.takes()) {
            return None;
        }
        Some(if self.turn && !self.fifo.is_empty() {
            self.fifo[0]
        } else {
            self.rr
        })
    }
    /// Cycles since `flow`'s last visit, if that visit is still in flight
    /// (fewer than `DEPTH` cycles ago).
    pub fn in_flight(&self, flow: u32) -> Option<usize> {
        self.inflight
            .iter()
            .position(|v| *v == Some(flow))
            .map(|k| k + 1)
    }
    /// Some visit is in flight (one of the last `DEPTH - 1` cycles had one).
    pub fn in_flight_any(&self) -> bool {
        self.inflight.iter().any(Option::is_some)
    }
    /// The engine takes the registers written since its last visits (and
    /// makes a visit) in a cycle with no visit in flight that is not one
    /// of the [`WRITE_PAUSE`] cycles after a write.
    fn takes(&self) -> bool {
        self.written == 0 && self.inflight.iter().all(Option::is_none)
    }
    /// A register write waits for the visits in flight.
    pub fn stale(&self) -> bool {
        self.stale
    }

    /// A rate update leaves `k` cycles after the next step's cycle (`k` =
    /// 0: in it), as things stand (a reset or a forgetting write drops
    /// those with `k >= 1`).
    pub fn output_due(&self, k: usize) -> bool {
        self.outs.get(k).is_some_and(Option::is_some)
    }

    pub fn outputs(&self) -> RpOut {
        let o = self.outs.front().copied().flatten();
        RpOut {
            evt_ready: self.busy_left == 0,
            rate_valid: o.is_some(),
            rate_flow: o.map_or(0, |o| o.0),
            rate_rc: o.map_or(0, |o| o.1),
            rate_cut: o.is_some_and(|o| o.2),
        }
    }

    /// One clock cycle: returns the outputs during the cycle, then applies
    /// its inputs at the rising edge.
    pub fn step(&mut self, i: &RpIn) -> RpOut {
        let out = self.outputs();
        let n = self.cycle;
        self.cycle += 1;
        self.outs.pop_front();
        if i.rst {
            self.reset();
            return out;
        }
        let shape = self.config.shape;
        let fmask = mask(shape.flow_bits);
        let mut visited = None;
        let mut emitted = None;
        let mut queue = None;
        if self.stale && self.takes() {
            self.eregs = self.regs;
            self.stale = false;
        }
        self.written = self.written.saturating_sub(1);
        if self.busy_left > 0 {
            // (The output of this cycle's slot is pushed below.)
            self.busy_left -= 1;
        } else if self.stale {
            // The engine waits for its visits in flight to finish before it
            // takes the registers written since.
            if i.evt_valid {
                queue =
                    self.capture_event(i.evt_kind & 1, i.evt_flow & fmask, i.evt_bytes & 0xffff);
            }
        } else {
            // The engine's choice and visit.
            let fifo_turn = self.turn && !self.fifo.is_empty();
            let cand = if fifo_turn {
                self.fifo[0]
            } else {
                let c = self.rr;
                let u = self.regs.flows_in_use;
                self.rr = if c + 1 >= u || c + 1 > fmask {
                    0
                } else {
                    c + 1
                };
                c
            };
            if !self.inflight.contains(&Some(cand)) {
                if fifo_turn {
                    self.fifo.pop_front();
                }
                visited = Some(cand);
                emitted = self.visit(n, cand);
            }
            // The capture, after the visit's consumption.
            if i.evt_valid {
                queue =
                    self.capture_event(i.evt_kind & 1, i.evt_flow & fmask, i.evt_bytes & 0xffff);
            }
        }
        self.turn = !self.turn;
        self.inflight.pop_back();
        self.inflight.push_front(visited);
        self.outs.push_back(emitted);
        // The queue request of CAPTURE_LATENCY cycles ago, after this
        // cycle's pop; a full FIFO drops it.
        if let Some(f) = self.queued.pop_front().flatten() {
            if self.fifo.len() < 1 << shape.fifo_bits {
                self.fifo.push_back(f);
            }
        }
        self.queued.push_back(queue);
        // The time base, for the next cycle.
        if self.prescale + 1 >= self.regs.tick_cycles {
            self.prescale = 0;
            self.tick = (self.tick + 1) & mask(shape.stamp_bits);
            if self.ap_prescale + 1 >= self.regs.alpha_period {
                self.ap_prescale = 0;
                self.apn = (self.apn + 1) & mask(shape.stamp_bits);
            } else {
                self.ap_prescale += 1;
            }
        } else {
            self.prescale += 1;
        }
        if i.cfg_valid {
            let addr = i.cfg_addr & 31;
            if self.regs.write(addr, i.cfg_data) {
                if FORGETTING.contains(&addr) {
                    self.powers = Powers::new(self.regs.g, shape.stamp_bits);
                    self.eregs = self.regs;
                    self.forget_flows();
                } else {
                    self.stale = true;
                    self.written = WRITE_PAUSE;
                }
            }
        }
        out
    }

    fn visit(&mut self, n: u64, flow: u32) -> Option<(u32, u32, bool)> {
        let shape = self.config.shape;
        let cap = self.capture[flow as usize];
        let f = &mut self.flows[flow as usize];
        let (cnp, bc_event) = (cap.cnp, cap.bc);
        // Consume the pending events.
        self.capture[flow as usize].cnp = false;
        self.capture[flow as usize].bc = false;
        let before = if f.ctl.limited {
            f.st.rc
        } else {
            self.eregs.line_rate
        };
        let ctx = VisitCtx {
            p: &self.eregs,
            stamp_bits: shape.stamp_bits,
            steps: shape.steps,
            tick: self.tick,
            apn: self.apn,
            cnp,
            bc_event,
        };
        let ctl_before = f.ctl;
        let log = visit(&Exact(&self.powers), &ctx, &mut f.ctl, &mut f.st);
        if let Some(s) = self.shadow.as_mut() {
            let mut ctl = ctl_before;
            let real_log = visit(&s.real, &ctx, &mut ctl, &mut s.flows[flow as usize]);
            s.diverged |= ctl != f.ctl || real_log != log;
        }
        self.last_visit = Some((n, flow, log));
        (f.ctl.limited && f.st.rc != before).then_some((flow, f.st.rc, log.cut))
    }

    /// The capture of one event; the flow to queue for a visit, if the
    /// event made it pending when nothing was.
    fn capture_event(&mut self, kind: u8, flow: u32, bytes: u32) -> Option<u32> {
        let b = self.regs.byte_counter;
        let c = &mut self.capture[flow as usize];
        let was = c.cnp || c.bc;
        if kind == kind::CNP {
            c.byte_acc = 0;
            c.cnp = true;
        } else if b != 0 {
            // 24 bits hold the count (B below 2^24).
            let acc = c.byte_acc + bytes;
            if acc >= b {
                c.byte_acc = (acc - b) & BYTE_ACC_MASK;
                c.bc = true;
            } else {
                c.byte_acc = acc & BYTE_ACC_MASK;
            }
        }
        (!was && (c.cnp || c.bc)).then_some(flow)
    }
}

impl std::fmt::Debug for Rp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rp")
            .field("cycle", &self.cycle)
            .field("regs", &self.regs)
            .field("tick", &self.tick)
            .field("apn", &self.apn)
            .field("busy_left", &self.busy_left)
            .field("fifo", &self.fifo.len())
            .finish_non_exhaustive()
    }
}

/// Float reference: the reaction point's rules of `docs/rp.md` §"Three
/// profiles" in continuous time (f64, time in µs, rates in Mb/s, alpha in
/// `[0, 1]`), nothing rounded.
///
/// Event-driven: a `Flow` is told of CNPs (`Flow::cnp`) and of bytes sent
/// (`Flow::bytes_sent`) at non-decreasing times, and `Flow::advance` fires
/// every timer due by then, in time order. Timers that expire at the same
/// instant fire the alpha update first, then the decrease (monitor) tick,
/// then the increase timer (the order chosen in the research behind
/// docs/rp.md, its question 14; HPCC's `rdma-hw.cc` delays its decrease
/// check by 1 ns for the same reason). A CNP or a byte count at time `t` is
/// applied after every timer due at `t`.
pub mod reference {
    /// Which rule set a flow follows (`docs/rp.md` §"Three profiles").
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Profile {
        /// Seed 004 §3.1 and Figure 7 (`../shared/ALGORITHMS.md`).
        Paper,
        /// NVIDIA's ConnectX parameters, read as Isekai models them.
        Nvidia,
        /// HPCC's ns-3 "Mellanox version" (`rdma-hw.cc`, run.py `dcqcn`).
        Ns3,
    }

    /// Every parameter of `docs/rp.md`'s tables in one profile-neutral form
    /// (times µs, rates Mb/s); fields may be set after a constructor.
    ///
    /// | field | meaning | `paper` | `nvidia` | `ns3` (run.py `dcqcn`) |
    /// |---|---|---|---|---|
    /// | `line_rate` | `LR`: start rate, cap of `Rc`, `Rt` | | | |
    /// | `r_min` | floor of `Rc` | `R_min` 100 | `rpg_min_rate` 1 | `m_minRate` 1,000 |
    /// | `g` | alpha gain | 1/256 | `(1024 - dce_tcp_g)/1024`, 5/1024 | 1/256 |
    /// | `alpha_period` | alpha timer | `K` 55, restarted by CNPs | `dce_tcp_rtt` 1, free-running | 1, free-running |
    /// | `alpha_init` | alpha at the first CNP | 1 | `initial_alpha_value/1024`, 1023/1024 | 1 |
    /// | `t_inc` | increase timer `Ti` | 55 | `rpg_time_reset` 300 | 300 |
    /// | `byte_counter` | `B` in bytes, 0 = none | 10 MB (10^7) | `rpg_byte_reset` 32767 x 64 B | 0 |
    /// | `f` | stage threshold | `F` 5 | `rpg_threshold` 1 | 1 |
    /// | `r_ai` | additive step of `Rt` | 40 | `rpg_ai_rate` 5 | 5 per 25 Gb/s of `LR` |
    /// | `r_hai` | hyper step of `Rt` | 200 (times `i`) | `rpg_hai_rate` 50 | 50 per 25 Gb/s |
    /// | `dec_period` | decrease (monitor) tick | unused | `rate_reduce_monitor_period` 4 | 4 |
    /// | `gd` | cut `Rc alpha 2^(10 - gd)`, 11 = `Rc alpha/2` | 11 | `rpg_gd` 11 (on the 10-bit alpha) | 11 |
    /// | `min_dec_fac` | % of `Rc` a cut leaves at least | 0 | `rpg_min_dec_fac` 50 | 0 |
    /// | `first_cnp_rate` | `Rc = Rt =` it at the first CNP, 0 keeps `Rc` | unused | `rate_to_set_on_first_cnp` 0 | 0 (HPCC's factor 1.0) |
    /// | `clamp_tgt_rate` | `Rt = Rc` at every cut | 1 (equation (1)) | `clamp_tgt_rate` 0 | 0 |
    /// | `clamp_after_time_inc` | also `Rt = Rc` at a cut with `T > 0` | 1 | `clamp_tgt_rate_after_time_inc` 1 | 1 (HPCC: `m_rpTimeStage != 0`) |
    ///
    /// A cut with `BC > 0` always sets `Rt = Rc` (docs/rp.md §`nvidia`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct Params {
        pub profile: Profile,
        pub line_rate: f64,
        pub r_min: f64,
        pub g: f64,
        pub alpha_period: f64,
        pub alpha_init: f64,
        pub t_inc: f64,
        pub byte_counter: u64,
        pub f: u32,
        pub r_ai: f64,
        pub r_hai: f64,
        pub dec_period: f64,
        pub gd: u32,
        pub min_dec_fac: f64,
        pub first_cnp_rate: f64,
        pub clamp_tgt_rate: bool,
        pub clamp_after_time_inc: bool,
        /// `nvidia`/`ns3`: the alpha and decrease periods run on one phase
        /// for all flows (ticks at multiples of the period from time 0, as
        /// the cycle-exact model's shared counters) instead of starting at
        /// the flow's first CNP.
        pub global_phase: bool,
    }

    /// NVIDIA's `rpg_byte_reset` unit in bytes (docs/rp.md, Isekai).
    pub const NVIDIA_BYTE_UNIT: u64 = 64;

    impl Params {
        /// Seed 004 §3.1 with the values of docs/rp.md §`paper`.
        pub fn paper(line_rate_mbps: f64) -> Params {
            Params {
                profile: Profile::Paper,
                r_min: 100.0,
                g: 1.0 / 256.0,
                alpha_period: 55.0,
                alpha_init: 1.0,
                t_inc: 55.0,
                byte_counter: 10_000_000,
                f: 5,
                r_ai: 40.0,
                r_hai: 200.0,
                dec_period: 0.0,
                min_dec_fac: 0.0,
                clamp_tgt_rate: true,
                ..Params::nvidia(line_rate_mbps)
            }
        }

        /// NVIDIA's defaults (docs/rp.md §`nvidia`).
        pub fn nvidia(line_rate_mbps: f64) -> Params {
            let dce_tcp_g = 1019.0;
            Params {
                profile: Profile::Nvidia,
                line_rate: line_rate_mbps,
                r_min: 1.0,
                g: (1024.0 - dce_tcp_g) / 1024.0,
                alpha_period: 1.0,
                alpha_init: 1023.0 / 1024.0,
                t_inc: 300.0,
                byte_counter: 32767 * NVIDIA_BYTE_UNIT,
                f: 1,
                r_ai: 5.0,
                r_hai: 50.0,
                dec_period: 4.0,
                gd: 11,
                min_dec_fac: 50.0,
                first_cnp_rate: 0.0,
                clamp_tgt_rate: false,
                clamp_after_time_inc: true,
                global_phase: false,
            }
        }

        /// HPCC's run.py `dcqcn` set (docs/rp.md §`ns3`): NVIDIA's periods,
        /// threshold and clamps, with these differences.
        pub fn ns3(line_rate_mbps: f64) -> Params {
            Params {
                profile: Profile::Ns3,
                r_min: 1000.0,
                g: 1.0 / 256.0,
                alpha_init: 1.0,
                byte_counter: 0,
                r_ai: 5.0 * line_rate_mbps / 25_000.0,
                r_hai: 50.0 * line_rate_mbps / 25_000.0,
                min_dec_fac: 0.0,
                ..Params::nvidia(line_rate_mbps)
            }
        }
    }

    /// A periodic timer: expiries at `origin + k period`, `k = 1, 2, ...`
    /// (multiples, not a running sum, so coinciding periods tie exactly).
    #[derive(Debug, Clone, Copy, Default)]
    struct Timer {
        on: bool,
        origin: f64,
        period: f64,
        k: u64,
    }

    impl Timer {
        fn start(&mut self, t: f64, period: f64) {
            *self = Timer {
                on: true,
                origin: t,
                period,
                k: 1,
            };
        }
        fn next(&self) -> Option<f64> {
            self.on.then_some(self.origin + self.k as f64 * self.period)
        }
    }

    /// One flow's reaction point.
    #[derive(Debug, Clone)]
    pub struct Flow {
        p: Params,
        now: f64,
        rc: f64,
        rt: f64,
        alpha: f64,
        /// `T`, `BC`: increase events of the timer and of the byte counter
        /// since the last cut.
        t_count: u32,
        bc_count: u32,
        /// Bytes sent since the last byte-counter event or restart.
        byte_acc: u64,
        /// A first CNP has come (nvidia: the rate limiter is allocated).
        limited: bool,
        /// nvidia/ns3: a CNP in the current alpha period, and since the
        /// last decrease tick.
        cnp_alpha: bool,
        cnp_dec: bool,
        alpha_timer: Timer,
        dec_timer: Timer,
        inc_timer: Timer,
    }

    impl Flow {
        /// A new flow: at line rate, alpha at `alpha_init`, no timer running.
        pub fn new(p: &Params) -> Flow {
            assert!(p.line_rate > 0.0 && p.r_min > 0.0 && p.r_min <= p.line_rate);
            assert!(p.alpha_period > 0.0 && p.t_inc > 0.0);
            assert!(p.profile == Profile::Paper || p.dec_period > 0.0);
            assert!((10..=15).contains(&p.gd) && (0.0..=100.0).contains(&p.min_dec_fac));
            Flow {
                p: p.clone(),
                now: f64::NEG_INFINITY,
                rc: p.line_rate,
                rt: p.line_rate,
                alpha: p.alpha_init,
                t_count: 0,
                bc_count: 0,
                byte_acc: 0,
                limited: false,
                cnp_alpha: false,
                cnp_dec: false,
                alpha_timer: Timer::default(),
                dec_timer: Timer::default(),
                inc_timer: Timer::default(),
            }
        }

        /// Current rate `Rc`, Mb/s.
        pub fn rc(&self) -> f64 {
            self.rc
        }
        /// Target rate `Rt`, Mb/s.
        pub fn rt(&self) -> f64 {
            self.rt
        }
        /// Congestion estimate alpha in `[0, 1]`.
        pub fn alpha(&self) -> f64 {
            self.alpha
        }

        /// Fires every timer expiry at or before `t_us`, in time order
        /// (ties: alpha, decrease, increase).
        pub fn advance(&mut self, t_us: f64) {
            assert!(t_us >= self.now, "time went back: {t_us} < {}", self.now);
            self.now = t_us;
            loop {
                let mut due: Option<(f64, usize)> = None;
                let timers = [self.alpha_timer, self.dec_timer, self.inc_timer];
                for (i, tm) in timers.iter().enumerate() {
                    if let Some(x) = tm.next() {
                        if x <= t_us && due.is_none_or(|(d, _)| x < d) {
                            due = Some((x, i));
                        }
                    }
                }
                match due {
                    None => return,
                    Some((_, 0)) => {
                        self.alpha_timer.k += 1;
                        self.alpha_expiry();
                    }
                    Some((x, 1)) => {
                        self.dec_timer.k += 1;
                        self.decrease_tick(x);
                    }
                    Some(_) => {
                        self.inc_timer.k += 1;
                        self.increase_event(false);
                    }
                }
            }
        }

        /// A CNP reaches the flow at `t_us`.
        ///
        /// `Paper` (seed 004 §3.1 equation (1) and Figure 7): `Rt = Rc`, the
        /// cut with the alpha from before the CNP, `alpha = (1 - g) alpha +
        /// g`, and `T`, `BC`, the byte counter, the increase timer and the
        /// alpha timer restart. `Nvidia`/`Ns3`: the first CNP sets alpha to
        /// `alpha_init`, `Rc = Rt =` the first-CNP rate, starts the alpha and
        /// decrease periods and marks the flow for a cut at the next tick
        /// without raising alpha (HPCC `cnp_received_mlx`; docs/rp.md);
        /// later CNPs mark both the alpha period and the next decrease tick.
        pub fn cnp(&mut self, t_us: f64) {
            self.advance(t_us);
            let p = self.p.clone();
            if p.profile == Profile::Paper {
                let old = self.alpha;
                self.cut(old);
                self.alpha = (1.0 - p.g) * old + p.g;
                self.alpha_timer.start(t_us, p.alpha_period);
                self.inc_timer.start(t_us, p.t_inc);
                self.limited = true;
            } else if !self.limited {
                self.limited = true;
                self.alpha = p.alpha_init;
                if p.first_cnp_rate > 0.0 {
                    self.rc = p.first_cnp_rate.clamp(p.r_min, p.line_rate);
                }
                self.rt = self.rc;
                self.cnp_alpha = false;
                self.cnp_dec = true;
                self.t_count = 0;
                self.bc_count = 0;
                self.byte_acc = 0;
                let origin = |period: f64| {
                    if p.global_phase {
                        (t_us / period).floor() * period
                    } else {
                        t_us
                    }
                };
                self.alpha_timer
                    .start(origin(p.alpha_period), p.alpha_period);
                self.dec_timer.start(origin(p.dec_period), p.dec_period);
            } else {
                self.cnp_alpha = true;
                self.cnp_dec = true;
            }
        }

        /// The flow sent `bytes` at `t_us`. The byte counter runs only while
        /// the increase timer does (paper: from the first CNP; nvidia: from
        /// the first cut; ns3 has none) and gives one increase event per `B`
        /// bytes, the remainder kept (Isekai; the research's question 16).
        pub fn bytes_sent(&mut self, t_us: f64, bytes: u64) {
            self.advance(t_us);
            let b = self.p.byte_counter;
            if b == 0 || !self.inc_timer.on {
                return;
            }
            self.byte_acc += bytes;
            while self.byte_acc >= b {
                self.byte_acc -= b;
                self.increase_event(true);
            }
        }

        /// One byte-counter increase event at `t_us` (the flow's `B` bytes
        /// reached then), if the increase timer runs: the event the
        /// cycle-exact model's capture signals, for comparisons on its
        /// time line.
        pub fn byte_event(&mut self, t_us: f64) {
            self.advance(t_us);
            if self.p.byte_counter != 0 && self.inc_timer.on {
                self.increase_event(true);
            }
        }

        /// The multiplicative decrease: `Rt = Rc` if clamping (paper always
        /// by default; nvidia `clamp_tgt_rate || BC > 0 ||
        /// (clamp_tgt_rate_after_time_inc && T > 0)`, docs/rp.md; ns3 the
        /// same with `BC = 0`), then `Rc -= min(Rc alpha 2^(10-gd), Rc (100 -
        /// min_dec_fac)/100)` floored at `R_min`; `T`, `BC` and the byte
        /// counter restart.
        fn cut(&mut self, alpha: f64) {
            let p = &self.p;
            if p.clamp_tgt_rate || self.bc_count > 0 || (p.clamp_after_time_inc && self.t_count > 0)
            {
                self.rt = self.rc;
            }
            let red = (self.rc * alpha * 2f64.powi(10 - p.gd as i32))
                .min(self.rc * (100.0 - p.min_dec_fac) / 100.0);
            self.rc = (self.rc - red).max(p.r_min);
            self.t_count = 0;
            self.bc_count = 0;
            self.byte_acc = 0;
        }

        /// Paper: no CNP for `K` gives `alpha = (1 - g) alpha` (equation
        /// (2)). nvidia/ns3: once per period, `(1 - g) alpha + g` with a CNP
        /// in the period, `(1 - g) alpha` without (NVIDIA community page
        /// DOC-2790, Isekai; HPCC `UpdateAlphaMlx`).
        fn alpha_expiry(&mut self) {
            let g = self.p.g;
            let raise = if self.cnp_alpha { g } else { 0.0 };
            self.alpha = (1.0 - g) * self.alpha + raise;
            self.cnp_alpha = false;
        }

        /// nvidia/ns3 decrease tick: a cut with the current alpha if a CNP
        /// came since the last tick (at most one per period); the increase
        /// timer restarts at the cut (HPCC `CheckRateDecreaseMlx`).
        fn decrease_tick(&mut self, x: f64) {
            if self.cnp_dec {
                self.cnp_dec = false;
                self.cut(self.alpha);
                self.inc_timer.start(x, self.p.t_inc);
            }
        }

        /// One increase event of the timer (`byte == false`) or the byte
        /// counter. Paper (Figure 7): the count first, then the stage.
        /// nvidia (Isekai) and ns3 (HPCC `RateIncEventTimerMlx`): the stage
        /// from the counts before the event, then the count.
        fn increase_event(&mut self, byte: bool) {
            let paper = self.p.profile == Profile::Paper;
            let count = |f: &mut Flow| *[&mut f.t_count, &mut f.bc_count][byte as usize] += 1;
            if paper {
                count(self);
            }
            // `Rt` raised by the stage's step and capped at line rate, then
            // `Rc = (Rt + Rc) / 2` with the new `Rt` (seed 004 Figure 7;
            // HPCC `rdma-hw.cc` AI/HAI).
            self.rt = (self.rt + self.rt_step()).min(self.p.line_rate);
            self.rc = ((self.rt + self.rc) / 2.0).min(self.p.line_rate);
            if !paper {
                count(self);
            }
        }

        /// The stage's step of `Rt` from the current counts (docs/rp.md):
        /// fast recovery 0, additive `R_AI`, hyper `i R_HAI`:
        /// - paper: fast recovery if `max(T, BC) < F`, additive if
        ///   `min(T, BC) < F`, else hyper with `i = min(T, BC) - F + 1`;
        /// - nvidia: hyper (`i = 1`) if `min(T, BC) > F`, additive if
        ///   `max(T, BC) >= F`, else fast recovery;
        /// - ns3: fast recovery if `T < F`, additive if `T == F`, else hyper
        ///   (`i = 1`).
        fn rt_step(&self) -> f64 {
            let (t, bc, f, p) = (self.t_count, self.bc_count, self.p.f, &self.p);
            let (lo, hi) = (t.min(bc), t.max(bc));
            match p.profile {
                Profile::Paper if hi < f => 0.0,
                Profile::Paper if lo < f => p.r_ai,
                Profile::Paper => (lo - f + 1) as f64 * p.r_hai,
                Profile::Nvidia if lo > f => p.r_hai,
                Profile::Nvidia if hi >= f => p.r_ai,
                Profile::Nvidia => 0.0,
                Profile::Ns3 if t < f => 0.0,
                Profile::Ns3 if t == f => p.r_ai,
                Profile::Ns3 => p.r_hai,
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::xorshift;

        fn close(got: f64, want: f64, what: &str) {
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{what}: got {got}, want {want}"
            );
        }

        /// A flow of `p` with CNPs at `cnps`, advanced to `until`.
        fn run(p: &Params, cnps: &[f64], until: f64) -> Flow {
            let mut f = Flow::new(p);
            cnps.iter().for_each(|&t| f.cnp(t));
            f.advance(until);
            f
        }

        /// nvidia defaults: alpha at the first CNP's cut at 4 (1023/1024,
        /// not raised by it, decayed by 1019/1024 at 1, 2, 3, 4).
        fn nv_a4() -> f64 {
            1023.0 / 1024.0 * (1019.0f64 / 1024.0).powi(4)
        }

        fn check(f: &Flow, rc: f64, rt: f64, alpha: f64, what: &str) {
            close(f.rc(), rc, &format!("{what}: Rc"));
            close(f.rt(), rt, &format!("{what}: Rt"));
            close(f.alpha(), alpha, &format!("{what}: alpha"));
        }

        /// Paper, LR 40,000, timer only. CNP at 0: Rt = 40,000, Rc =
        /// 40,000 (1 - 1/2) = 20,000, alpha = (1 - g) 1 + g = 1. Timers (alpha
        /// K = 55, increase Ti = 55) restart at 0; at every 55 µs the alpha
        /// decays first (alpha = (255/256)^k), then T += 1 and, with BC = 0,
        /// max(T, 0) = T < 5 is fast recovery: Rc = (40,000 + Rc)/2 gives
        /// 30,000, 35,000, 37,500, 38,750; at 275 T = 5 >= F > min = 0:
        /// additive, Rt = min(40,000, 40,040) = 40,000, Rc = 39,375.
        /// A second CNP at 300 cuts with the old alpha (255/256)^5:
        /// Rt = 39,375, Rc = 39,375 (1 - (255/256)^5 / 2), then alpha =
        /// (255/256)^6 + 1/256; both timers restart at 300, so the next
        /// expiry is at 355 (not 330): T = 1, fast recovery towards 39,375.
        #[test]
        fn paper_timer_only_trace() {
            let f = run(&Params::paper(40_000.0), &[], 1000.0); // nothing runs
            check(&f, 40_000.0, 40_000.0, 1.0, "before");
            let mut f = Flow::new(&Params::paper(40_000.0));
            f.cnp(0.0);
            check(&f, 20_000.0, 40_000.0, 1.0, "after the CNP");
            f.advance(54.9);
            check(&f, 20_000.0, 40_000.0, 1.0, "54.9 us");
            let q: f64 = 255.0 / 256.0;
            let rcs = [30_000.0, 35_000.0, 37_500.0, 38_750.0, 39_375.0];
            for (k, &rc) in rcs.iter().enumerate() {
                f.advance(55.0 * (k + 1) as f64);
                check(&f, rc, 40_000.0, q.powi(k as i32 + 1), "increase");
            }
            assert_eq!((f.t_count, f.bc_count), (5, 0));
            f.cnp(300.0);
            let rc = 39_375.0 * (1.0 - q.powi(5) / 2.0);
            let alpha = q.powi(6) + 1.0 / 256.0;
            check(&f, rc, 39_375.0, alpha, "second CNP");
            f.advance(354.9);
            check(&f, rc, 39_375.0, alpha, "354.9 us");
            f.advance(355.0);
            check(&f, (rc + 39_375.0) / 2.0, 39_375.0, alpha * q, "355 us");
        }

        /// Paper with F = 2, B = 1,000 bytes, LR 40,000. CNP at 0: Rt 40,000,
        /// Rc 20,000, alpha 1; CNP at 1 (alpha still 1): Rt 20,000, Rc
        /// 10,000, timers now due at 56, 111, 166, 221. Each event counts
        /// first, then (Figure 7) picks the stage; `i = min - F + 1`:
        /// - bytes at 2: BC 1, max 1 < 2, FR: Rc 15,000
        /// - bytes at 3: BC 2, min 0 < 2 <= max: AI, Rt 20,040, Rc 17,520
        /// - timer 56: T 1, min 1 < 2: AI, Rt 20,080, Rc 18,800
        /// - timer 111: T 2, min 2: HAI i 1, Rt 20,280, Rc 19,540
        /// - bytes 112, 113: BC 3, 4, i 1: Rt 20,480 Rc 20,010; Rt 20,680 Rc 20,345
        /// - timer 166: T 3, min 3: i 2, Rt 21,080, Rc 20,712.5
        /// - 2,500 bytes at 167: two events (BC 5, 6; i 2), 500 left:
        ///   Rt 21,480 Rc 21,096.25; Rt 21,880 Rc 21,488.125
        /// - 499 bytes at 167.5 (999, no event), 1 at 168: BC 7, Rt 22,280
        ///   Rc 21,884.0625
        /// - timer 221: T 4, min 4: i 3, Rt 22,880, Rc 22,382.03125
        #[test]
        fn paper_stages_and_hyper_increase_multiplier() {
            let mut p = Params::paper(40_000.0);
            p.f = 2;
            p.byte_counter = 1000;
            let mut f = Flow::new(&p);
            f.bytes_sent(0.0, 5000); // no byte counter before the first CNP
            check(&f, 40_000.0, 40_000.0, 1.0, "before");
            f.cnp(0.0);
            f.cnp(1.0);
            check(&f, 10_000.0, 20_000.0, 1.0, "two CNPs");
            let steps: [(f64, u64, f64, f64); 11] = [
                (2.0, 1000, 15_000.0, 20_000.0),
                (3.0, 1000, 17_520.0, 20_040.0),
                (56.0, 0, 18_800.0, 20_080.0),
                (111.0, 0, 19_540.0, 20_280.0),
                (112.0, 1000, 20_010.0, 20_480.0),
                (113.0, 1000, 20_345.0, 20_680.0),
                (166.0, 0, 20_712.5, 21_080.0),
                (167.0, 2500, 21_488.125, 21_880.0),
                (167.5, 499, 21_488.125, 21_880.0),
                (168.0, 1, 21_884.062_5, 22_280.0),
                (221.0, 0, 22_382.031_25, 22_880.0),
            ];
            for (t, bytes, rc, rt) in steps {
                f.bytes_sent(t, bytes);
                close(f.rc(), rc, &format!("Rc at {t}"));
                close(f.rt(), rt, &format!("Rt at {t}"));
            }
            assert_eq!((f.t_count, f.bc_count, f.byte_acc), (4, 7, 0));
        }

        /// ns3 (run.py `dcqcn`), LR 40,000: R_AI 8, R_HAI 80 (5 and 50 per
        /// 25 Gb/s). First CNP at 0: Rc = Rt = 40,000, alpha 1, not raised.
        /// Alpha decays at 1, 2, 3, 4; the poll at 4 (after the alpha update)
        /// cuts with a4 = (255/256)^4: Rc1 = 40,000 (1 - a4/2), Rt stays
        /// 40,000 (T = 0). Increase timer from 4: 304 T = 0 < F = 1: FR,
        /// Rc2 = (Rc1 + 40,000)/2. A CNP at 400.5 raises alpha at 401:
        /// a = (255/256)^401 + 1/256, then decays at 402..404; the poll at 404
        /// cuts with it, and T = 1 > 0 clamps Rt = Rc2: Rc3 = Rc2 (1 - a/2).
        /// From 404: 704 FR (T 0) Rc4 = (Rc3 + Rc2)/2; 1004 T == 1: AI once,
        /// Rt = Rc2 + 8; then 1304, 1604 HAI, + 80 each (constant).
        #[test]
        fn ns3_run_py_trace() {
            let p = Params::ns3(40_000.0);
            assert_eq!((p.r_ai, p.r_hai, p.r_min), (8.0, 80.0, 1000.0));
            let q: f64 = 255.0 / 256.0;
            let mut f = Flow::new(&p);
            f.cnp(0.0);
            check(&f, 40_000.0, 40_000.0, 1.0, "first CNP");
            f.advance(3.9);
            check(&f, 40_000.0, 40_000.0, q.powi(3), "3.9 us");
            f.advance(4.0);
            let a4 = q.powi(4);
            let rc1 = 40_000.0 * (1.0 - a4 / 2.0);
            check(&f, rc1, 40_000.0, a4, "cut at 4");
            f.advance(303.9);
            close(f.rc(), rc1, "no increase before 304");
            f.advance(304.0);
            let rc2 = (rc1 + 40_000.0) / 2.0;
            check(&f, rc2, 40_000.0, q.powi(304), "FR at 304");
            f.cnp(400.5);
            f.advance(403.9);
            close(f.alpha(), (q.powi(401) + 1.0 / 256.0) * q.powi(2), "403.9");
            close(f.rc(), rc2, "no cut before 404");
            f.advance(404.0);
            let a = (q.powi(401) + 1.0 / 256.0) * q.powi(3);
            let rc3 = rc2 * (1.0 - a / 2.0);
            check(&f, rc3, rc2, a, "cut at 404");
            f.advance(704.0);
            let rc4 = (rc3 + rc2) / 2.0;
            check(&f, rc4, rc2, a * q.powi(300), "FR at 704");
            let (mut rc, mut rt) = (rc4, rc2);
            for (t, step) in [(1004.0, 8.0), (1304.0, 80.0), (1604.0, 80.0)] {
                f.advance(t);
                rt += step;
                rc = (rc + rt) / 2.0;
                close(f.rt(), rt, &format!("Rt at {t}"));
                close(f.rc(), rc, &format!("Rc at {t}"));
            }
        }

        /// nvidia defaults, LR 100,000: first CNP at 0 sets alpha 1023/1024
        /// without raising it; alpha decays by 1019/1024 at 1..4; the monitor
        /// tick at 4 cuts Rc (1 - a4/2) (rpg_gd 11 on the 10-bit alpha), Rt
        /// unclamped (T = BC = 0). With rpg_min_dec_fac 80 the factor
        /// 1 - a4/2 ~ 0.51 is bounded: Rc = 80,000. With
        /// rate_to_set_on_first_cnp 30,000: Rc = Rt = 30,000 at the CNP.
        #[test]
        fn nvidia_first_cnp_cut_and_bounds() {
            let d: f64 = 1019.0 / 1024.0;
            let (a0, a4) = (1023.0 / 1024.0, nv_a4());
            let p = Params::nvidia(100_000.0);
            assert_eq!(p.byte_counter, 2_097_088);
            let mut f = Flow::new(&p);
            f.cnp(0.0);
            check(&f, 100_000.0, 100_000.0, a0, "first CNP");
            f.advance(3.99);
            close(f.rc(), 100_000.0, "no cut before the tick");
            f.advance(4.0);
            let rc4 = 100_000.0 * (1.0 - a4 / 2.0);
            check(&f, rc4, 100_000.0, a4, "cut at 4");
            f.advance(7.99);
            close(f.rc(), rc4, "no CNP, no cut at 8");
            // A CNP at 5.5 raises alpha at 6 and is cut at 8.
            let f = run(&p, &[0.0, 5.5], 8.0);
            let a8 = (a0 * d.powi(5) * d + 5.0 / 1024.0) * d.powi(2);
            let rc8 = rc4 * (1.0 - a8 / 2.0);
            check(&f, rc8, 100_000.0, a8, "second cut, T = BC = 0: Rt kept");

            let mut q = p.clone();
            q.min_dec_fac = 80.0;
            close(run(&q, &[0.0], 4.0).rc(), 80_000.0, "min_dec_fac 80");
            q.gd = 10; // 1 - a4 ~ 0.02, bounded all the same
            close(run(&q, &[0.0], 4.0).rc(), 80_000.0, "min_dec_fac 80, gd 10");

            let mut q = p.clone();
            q.first_cnp_rate = 30_000.0;
            let mut f = run(&q, &[0.0], 0.0);
            check(&f, 30_000.0, 30_000.0, a0, "rate_to_set_on_first_cnp");
            f.advance(4.0);
            check(&f, 30_000.0 * (1.0 - a4 / 2.0), 30_000.0, a4, "its cut");

            // dce_tcp_g 1000 (g = 24/1024): a CNP at 0.5 in the period (0, 1]
            // raises alpha at 1 to (1000/1024)(1023/1024) + 24/1024; none in
            // (1, 2] decays it at 2 by 1000/1024.
            let mut q = p.clone();
            q.g = (1024.0 - 1000.0) / 1024.0;
            let mut f = run(&q, &[0.0, 0.5], 1.0);
            let a1 = 1000.0 / 1024.0 * 1023.0 / 1024.0 + 24.0 / 1024.0;
            close(f.alpha(), a1, "dce_tcp_g, a CNP in the period");
            f.advance(2.0);
            close(f.alpha(), a1 * 1000.0 / 1024.0, "dce_tcp_g, none");
        }

        /// Rt at a cut: Rt = Rc iff clamp_tgt_rate, or BC > 0, or
        /// (clamp_tgt_rate_after_time_inc and T > 0). Runs from the
        /// default case (a0, a4, rc4 as above): a timer FR at 304
        /// (pre-increment T 0 < 1) gives rc304 = (rc4 + 100,000)/2, T = 1;
        /// a CNP at 305.5 is cut at 308.
        #[test]
        fn nvidia_target_clamp() {
            let rc4 = 100_000.0 * (1.0 - nv_a4() / 2.0);
            let rc304 = (rc4 + 100_000.0) / 2.0;
            for (clamp, ati, rt_want) in [
                (false, true, rc304),
                (false, false, 100_000.0),
                (true, false, rc304),
            ] {
                let mut p = Params::nvidia(100_000.0);
                (p.clamp_tgt_rate, p.clamp_after_time_inc) = (clamp, ati);
                let mut f = run(&p, &[0.0], 304.0);
                close(f.rc(), rc304, "FR at 304");
                f.cnp(305.5);
                f.advance(308.0);
                close(f.rt(), rt_want, &format!("Rt, clamp {clamp} ati {ati}"));
            }
            // clamp_tgt_rate clamps with T = BC = 0 too: the first cut sets
            // Rt = 100,000 (Rc before it), a CNP at 5.5 is cut at 8 with Rt = rc4.
            let mut p = Params::nvidia(100_000.0);
            p.clamp_tgt_rate = true;
            close(
                run(&p, &[0.0, 5.5], 8.0).rt(),
                rc4,
                "clamp_tgt_rate, second cut",
            );
        }

        /// nvidia stages (Isekai: the stage from the counts before the
        /// event) with a 64-byte byte counter, rate_to_set_on_first_cnp
        /// 30,000 and clamp_tgt_rate_after_time_inc off. Cut at 4: Rc0 =
        /// 30,000 (1 - a4/2), Rt 30,000; then (T, BC) before each event:
        /// bytes 5 (0,0) FR; bytes 6 (0,1) max >= 1: AI +5; timer 304 (0,2)
        /// AI; bytes 305 (1,2) min 1 not > 1: AI; timer 604 (1,3) AI; bytes
        /// 605 (2,3) min 2 > 1: HAI +50 (constant). A CNP at 606.5 is cut at
        /// 608 with Rt = Rc since BC > 0.
        #[test]
        fn nvidia_stages_and_byte_clamp() {
            let a4 = nv_a4();
            let mut p = Params::nvidia(100_000.0);
            (p.byte_counter, p.first_cnp_rate, p.clamp_after_time_inc) = (64, 30_000.0, false);
            let mut f = Flow::new(&p);
            f.cnp(0.0);
            f.bytes_sent(1.0, 640); // no increase before the first cut
            f.advance(4.0);
            let (mut rc, mut rt) = (30_000.0 * (1.0 - a4 / 2.0), 30_000.0);
            close(f.rc(), rc, "cut at 4");
            let steps = [
                (5.0, 64, 0.0),
                (6.0, 64, 5.0),
                (304.0, 0, 5.0),
                (305.0, 64, 5.0),
                (604.0, 0, 5.0),
                (605.0, 64, 50.0),
            ];
            for (t, bytes, add) in steps {
                f.bytes_sent(t, bytes);
                rt += add;
                rc = (rc + rt) / 2.0;
                close(f.rt(), rt, &format!("Rt at {t}"));
                close(f.rc(), rc, &format!("Rc at {t}"));
            }
            f.cnp(606.5);
            f.advance(608.0);
            close(f.rt(), rc, "BC > 0 clamps");
        }

        /// R_min <= Rc <= Rt <= LR and 0 <= alpha <= 1 after every call of a
        /// long random trace, per profile and a few parameter variants.
        #[test]
        fn invariants_over_random_traces() {
            let lr = 100_000.0;
            let mut variants = vec![Params::paper(lr), Params::nvidia(lr), Params::ns3(lr)];
            for base in variants.clone() {
                let mut p = base;
                (p.byte_counter, p.f, p.r_hai) = (3000, 2, 5000.0);
                (p.clamp_tgt_rate, p.first_cnp_rate, p.gd) = (false, 20.0, 10);
                (p.min_dec_fac, p.t_inc, p.r_min) = (10.0, 7.0, 50.0);
                variants.push(p);
            }
            let mut rng = 0x2545_f491u32;
            let mut draw = |n: u32| {
                rng = xorshift::next(rng);
                rng % n
            };
            for p in &variants {
                let mut f = Flow::new(p);
                let (mut t, mut ups, mut downs) = (0.0, 0, 0);
                for i in 0..20_000 {
                    let rc = f.rc();
                    // Congested and quiet phases in turn.
                    let cnp_odds = if (i / 2000) % 2 == 0 { 8 } else { 1000 };
                    t += match draw(4) {
                        0 => 0.0,
                        1 => draw(8) as f64,
                        _ => draw(4000) as f64 / 100.0,
                    };
                    if draw(cnp_odds) == 0 {
                        f.cnp(t);
                    } else if draw(2) == 0 {
                        f.bytes_sent(t, draw(4000) as u64);
                    } else {
                        f.advance(t);
                    }
                    let ok = p.r_min <= f.rc() && f.rc() <= f.rt() && f.rt() <= p.line_rate;
                    assert!(ok && (0.0..=1.0).contains(&f.alpha()), "at {t}: {f:?}");
                    ups += (f.rc() > rc) as u32;
                    downs += (f.rc() < rc) as u32;
                }
                // The trace exercises both directions.
                assert!(ups > 300 && downs > 300, "{:?}: {ups} {downs}", p.profile);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    fn shape(flow_bits: u32, stamp_bits: u32, fifo_bits: u32) -> RpShape {
        RpShape {
            flow_bits,
            stamp_bits,
            fifo_bits,
            steps: 4,
        }
    }

    /// A model with reset values `p`, stepped through its clearing.
    fn ready(shape: RpShape, p: RpParams) -> Rp {
        let mut rp = Rp::new(RpConfig { shape, reset: p }).unwrap();
        while !rp.ready() {
            rp.step(&RpIn::default());
        }
        rp
    }

    fn cnp(flow: u32) -> RpIn {
        RpIn {
            evt_valid: true,
            evt_kind: kind::CNP,
            evt_flow: flow,
            ..RpIn::default()
        }
    }

    /// Steps until `rp.cycle() == until`, collecting the rate outputs as
    /// (cycle, flow, rc).
    fn run_to(rp: &mut Rp, until: u64, outs: &mut Vec<(u64, u32, u32)>) {
        while rp.cycle() < until {
            let n = rp.cycle();
            let o = rp.step(&RpIn::default());
            if o.rate_valid {
                outs.push((n, o.rate_flow, o.rate_rc));
            }
        }
    }

    /// `(1 - g)^k` as the contract's 18-bit fractions, written out.
    fn q(g: u64, k: u32) -> u64 {
        let q1 = (1 << 18) - g;
        let mut v = 1u64 << 18;
        for i in 0..k {
            v = if i == 0 { q1 } else { (v * q1) >> 18 };
        }
        v
    }

    /// paper, 40 Gb/s, 16 flows, a tick of 10 cycles, stamps of 8 bits: the
    /// clearing takes max(16, 4 x 256) + 1 = 1025 cycles, and then the round
    /// robin visits flow n - 1025 in cycle n. A CNP for flow 12 in cycle 1025
    /// queues it in 1030; 1032 is the FIFO's turn: flow 12 is visited at
    /// tick 103 (before the round robin comes to it). The cut with alpha
    /// 16,383 / 2^14: Rc = 40,000 - floor(40,000 x 16,383 / 2^15) = 40,000 -
    /// 19,998 = 20,002, out in cycle 1032 + 64 = 1096; Rt = 40,000 (clamped
    /// to the old Rc); alpha = round((16,383 (2^18 - 1024) + 1024 x 2^14) /
    /// 2^18) = round(16,383.496) = 16,383. From cycle 1033 the round robin
    /// visits flow (n - 1026) mod 16, flow 12 at 1038 + 16 j, passed over
    /// while a visit of it is in flight (64 cycles): visited at 1102 + 64 j.
    /// Both timers are due at tick 103 + 55 = 158 (cycle 1580); the first
    /// visit from then, cycle 1614 (tick 161): alpha = round(16,383 x 261,120
    /// / 2^18) = round(16,319.004) = 16,319, and T = 1, fast recovery, Rc =
    /// floor((40,000 + 20,002) / 2) = 30,001, out in 1678.
    #[test]
    fn paper_trace_by_hand() {
        let p = RpParams::paper(40_000.0, 10, 16);
        let mut rp = ready(shape(4, 8, 2), p);
        assert_eq!(rp.cycle(), 1025);
        rp.step(&cnp(12));
        let mut outs = vec![];
        run_to(&mut rp, 1614, &mut outs);
        assert_eq!(outs, [(1096, 12, 20_002)]);
        assert_eq!(rp.flow_rates(12), (20_002, 40_000, 16_383));
        run_to(&mut rp, 1679, &mut outs);
        assert_eq!(outs, [(1096, 12, 20_002), (1678, 12, 30_001)]);
        assert_eq!(rp.flow_rates(12), (30_001, 40_000, 16_319));
        let c = rp.flow_control(12);
        assert_eq!((c.t, c.bc, c.inc_stamp, c.a_stamp), (1, 0, 158, 158));
    }

    /// nvidia, 40 Gb/s, 16 flows, tick 10 cycles, alpha period 1 tick,
    /// decrease period 4, stamps of 10 bits (clearing 4 x 1,024 + 1 cycles).
    /// The first CNP for flow 12 (cycle 4097, queued in 4102) is visited in 4104
    /// at tick (and alpha period) 410: alpha = 1023 x 16 = 16,368, no cut,
    /// no output. Flow 12's round-robin visits: 4110 + 16 j, passed over
    /// until 4168; at 4174 (tick 417) the decrease tick of period 412 has
    /// passed: alpha decays 2 periods to it, the cut Rc = 40,000 -
    /// floor(40,000 alpha / 2^15) (the 50% floor is not reached), Rt stays
    /// 40,000 (no clamp: T = BC = 0), the increase timer starts at tick 412,
    /// and alpha decays 5 more periods; the new rate is out in 4174 + 64 =
    /// 4238.
    #[test]
    fn nvidia_trace_by_hand() {
        let p = RpParams::nvidia(40_000.0, 10, 16);
        let mut rp = ready(shape(4, 10, 2), p);
        assert_eq!(rp.cycle(), 4097);
        rp.step(&cnp(12));
        let mut outs = vec![];
        run_to(&mut rp, 4174, &mut outs);
        assert!(outs.is_empty());
        assert_eq!(rp.flow_rates(12), (40_000, 40_000, 16_368));
        assert_eq!(rp.flow_control(12).a_stamp, 410);
        run_to(&mut rp, 4175, &mut outs);
        let g = 1280;
        let a2 = (16_368 * q(g, 2) + (1 << 17)) >> 18;
        let rc = 40_000 - ((40_000 * a2) >> 15);
        let a7 = (a2 * q(g, 5) + (1 << 17)) >> 18;
        assert_eq!(rp.flow_rates(12), (rc as u32, 40_000, a7 as u32));
        let c = rp.flow_control(12);
        assert!(c.inc_on && !c.dmark && !c.amark);
        assert_eq!((c.inc_stamp, c.a_stamp), (412, 417));
        run_to(&mut rp, 4300, &mut outs);
        assert_eq!(outs, [(4238, 12, rc as u32)]);
    }

    /// The capture's byte counter: two sends of 60,000 bytes with B =
    /// 100,000 make one byte-counter event (20,000 left over); a CNP
    /// restarts the count. Flow 12's first CNP (cycle 1025) is visited from
    /// the FIFO in 1032; the sends in 1033 and 1034 queue it in 1039; it is
    /// in flight until 1096, which is a FIFO turn (the even cycles): the
    /// byte-counter event is applied then.
    #[test]
    fn byte_counter_by_hand() {
        let mut p = RpParams::paper(40_000.0, 10, 16);
        p.byte_counter = 100_000;
        let mut rp = ready(shape(4, 8, 2), p);
        let bytes = |flow, b| RpIn {
            evt_valid: true,
            evt_kind: kind::BYTES,
            evt_flow: flow,
            evt_bytes: b,
            ..RpIn::default()
        };
        rp.step(&cnp(12));
        let mut outs = vec![];
        run_to(&mut rp, 1033, &mut outs);
        assert_eq!(rp.last_visit().map(|v| (v.0, v.1)), Some((1032, 12)));
        assert!(rp.flow_control(12).limited);
        rp.step(&bytes(12, 60_000));
        rp.step(&bytes(12, 60_000));
        let mut seen = None;
        while rp.cycle() < 1200 {
            let n = rp.cycle();
            rp.step(&RpIn::default());
            if let Some((c, 12, log)) = rp.last_visit() {
                if c == n {
                    seen = seen.or(Some((c, log)));
                }
            }
        }
        let (c, log) = seen.expect("flow 12 visited");
        assert_eq!(c, 1096);
        assert!(log.byte_increase && !log.cnp);
        assert_eq!(rp.flow_control(12).bc, 1);
        assert_eq!(rp.capture[12].byte_acc, 20_000);
        rp.step(&cnp(12));
        assert_eq!(rp.capture[12].byte_acc, 0);
    }

    /// The reset values of every shape of the RTL's menu pass the loader.
    #[test]
    fn every_menu_shape_has_valid_reset_values() {
        for &(flow_bits, stamp_bits, fifo_bits) in SUPPORTED_SHAPES {
            let shape = RpShape {
                flow_bits,
                stamp_bits,
                fifo_bits,
                steps: RTL_STEPS,
            };
            shape.validate_rtl().unwrap();
            RpConfig {
                shape,
                reset: RpParams::reset_for(&shape),
            }
            .validate()
            .unwrap();
        }
    }

    /// The loader refuses each bad value by the register's name.
    #[test]
    fn bad_parameters_are_refused_by_name() {
        let s = RpShape::default();
        let ok = RpParams::reset_for(&s);
        assert_eq!(ok.validate(&s), Ok(()));
        type Case = (&'static str, fn(&mut RpParams));
        let cases: [Case; 13] = [
            ("tick_cycles", |p| p.tick_cycles = 0),
            ("flows_in_use", |p| p.flows_in_use = 1 << 15),
            ("line_rate", |p| p.line_rate = 1 << 20),
            ("r_min", |p| p.r_min = p.line_rate + 1),
            ("g", |p| p.g = 0),
            ("alpha_init", |p| p.alpha_init = ALPHA_ONE),
            ("max_dec", |p| p.max_dec = 4097),
            ("gd", |p| p.gd = 9),
            ("byte_counter", |p| p.byte_counter = 65_535),
            ("first_cnp_rate", |p| p.first_cnp_rate = p.line_rate + 1),
            ("t_inc", |p| p.t_inc = 54), // 54 x 4 steps < 220 ticks of spacing
            ("t_inc", |p| p.t_inc = 1000), // + 220 > 1024
            ("alpha_period", |p| p.alpha_period = 900),
        ];
        for (name, f) in cases {
            let mut p = ok;
            f(&mut p);
            let e = p.validate(&s).expect_err(name);
            assert_eq!(e.name, name, "{e}");
        }
        let mut nv = RpParams::nvidia(100_000.0, 150, s.flows());
        assert_eq!(nv.validate(&s), Ok(()));
        nv.dec_shift = 10;
        assert_eq!(nv.validate(&s).unwrap_err().name, "dec_shift");
        let mut nv = RpParams::nvidia(100_000.0, 10, s.flows());
        assert_eq!(nv.validate(&s).unwrap_err().name, "t_inc");
        nv.t_inc = 800;
        assert_eq!(nv.validate(&s).unwrap_err().name, "t_inc");
        let shape_err = RpShape { fifo_bits: 15, ..s }.validate().unwrap_err();
        assert_eq!(shape_err.name, "fifo_bits");
    }

    /// Registers read back what was written, masked to their widths; a
    /// `profile` write forgets every flow and makes the block busy.
    #[test]
    fn register_writes_and_a_profile_write_forgets() {
        let mut p = RpParams::reset_for(&RpShape::default());
        for r in REGISTERS {
            assert!(p.write(r.addr, u32::MAX));
            assert_eq!(
                p.read(r.addr),
                Some(if r.addr == 0 {
                    2
                } else {
                    (1u64 << r.bits) as u32 - 1
                }),
                "{}",
                r.name
            );
        }
        assert!(!p.write(18, 1));
        let mut rp = ready(shape(4, 8, 2), RpParams::paper(40_000.0, 10, 16));
        rp.step(&cnp(3));
        let mut outs = vec![];
        run_to(&mut rp, 1040, &mut outs);
        assert!(rp.flow_control(3).limited);
        rp.step(&RpIn {
            cfg_valid: true,
            cfg_addr: 0,
            cfg_data: 1,
            ..RpIn::default()
        });
        assert_eq!(rp.regs().profile, Profile::Nvidia);
        assert_eq!(rp.busy_left(), 1025);
        assert!(!rp.flow_control(3).limited);
        // The cut's output, due in cycle 1089, is dropped with its visit.
        run_to(&mut rp, 2200, &mut outs);
        assert!(outs.is_empty(), "{outs:?}");
    }

    /// A register write (not one that forgets) holds new visits back until
    /// the visits in flight are done: with visits in cycles 1026 (the CNP's)
    /// and 1027 (the round robin's), a write in 1027 leaves cycles 1028 to
    /// 1090 without a visit; from 1091 on the engine reads the new value.
    #[test]
    fn a_register_write_waits_for_the_visits_in_flight() {
        let mut rp = ready(shape(4, 8, 2), RpParams::paper(40_000.0, 10, 16));
        rp.step(&cnp(3));
        rp.step(&RpIn::default());
        rp.step(&RpIn {
            cfg_valid: true,
            cfg_addr: 3,
            cfg_data: 30_000,
            ..RpIn::default()
        });
        assert_eq!(rp.last_visit().map(|v| v.0), Some(1027));
        assert_eq!(rp.regs().line_rate, 30_000);
        while rp.cycle() < 1091 {
            rp.step(&RpIn::default());
            assert_eq!(rp.last_visit().map(|v| v.0), Some(1027));
        }
        // Flow 4 (never limited) is at the line rate the engine reads.
        assert_eq!(rp.flow_rates(4).0, 40_000);
        rp.step(&RpIn::default());
        assert_eq!(rp.last_visit().map(|v| v.0), Some(1091));
        assert_eq!(rp.flow_rates(4).0, 30_000);
    }

    #[test]
    fn a_register_write_pauses_the_engine_for_the_next_two_cycles() {
        let p = RpParams::paper(40_000.0, 10, 16);
        let mut rp = Rp::new(RpConfig {
            shape: shape(4, 8, 2),
            reset: p,
        })
        .unwrap();
        while rp.busy_left() > 1 {
            rp.step(&RpIn::default());
        }
        // A write in the clearing's last cycle, of flows_in_use: nothing is
        // in flight, yet the engine makes no visit in the next two cycles
        // ...
        let c = rp.cycle();
        rp.step(&RpIn {
            cfg_valid: true,
            cfg_addr: 2,
            cfg_data: 3,
            ..RpIn::default()
        });
        for _ in 0..WRITE_PAUSE {
            assert!(rp.ready() && rp.stale());
            assert_eq!(rp.next_candidate(), None);
            rp.step(&RpIn::default());
            assert!(rp.last_visit().is_none());
        }
        // ... then takes it and visits flows 0, 1, 2, wrapping at 3.
        for (k, flow) in [0, 1, 2].into_iter().enumerate() {
            rp.step(&RpIn::default());
            assert!(!rp.stale());
            assert_eq!(
                rp.last_visit().map(|v| (v.0, v.1)),
                Some((c + 1 + WRITE_PAUSE as u64 + k as u64, flow))
            );
        }
        assert_eq!(rp.next_candidate(), Some(0));
    }

    /// Random traffic on one shape: events (CNPs rare, byte sends common) and
    /// occasional register writes of values the loader accepts.
    struct Traffic {
        rng: u32,
        flows: u32,
        cnp_per_mille: u32,
        evt_per_mille: u32,
    }

    impl Traffic {
        fn next(&mut self) -> u32 {
            self.rng = xorshift::next(self.rng);
            self.rng
        }
        fn input(&mut self) -> RpIn {
            let r = self.next();
            let valid = r % 1000 < self.evt_per_mille;
            let is_cnp = (r >> 10) % 1000 < self.cnp_per_mille;
            let flow = self.next() % self.flows;
            RpIn {
                evt_valid: valid,
                evt_kind: if is_cnp { kind::CNP } else { kind::BYTES },
                evt_flow: flow,
                evt_bytes: self.next() & 0xffff,
                ..RpIn::default()
            }
        }
    }

    /// The visit keeps a limited flow's rates in bounds for any register
    /// values the loader takes (`r_min <= line_rate`, held since the flow's
    /// state was started) and any timing: from `r_min <= Rc <= Rt <=
    /// line_rate` (or a flow not limited) it leaves `r_min <= Rc <= Rt <=
    /// line_rate` (or the flow not limited), alpha `< 2^14`. What
    /// `formal/rp` proves of the RTL's visit, here over random visits of
    /// every profile, with every register drawn.
    #[test]
    fn a_visit_keeps_the_rates_in_bounds() {
        let mut rng = 0x1234_5679u32;
        let mut draw = |n: u32| {
            rng = xorshift::next(rng);
            rng % n
        };
        let stamp_bits = 8;
        let w = mask(stamp_bits);
        let (mut limited, mut cuts) = (0, 0);
        for i in 0..200_000 {
            let profile = [Profile::Paper, Profile::Nvidia, Profile::Ns3][(i % 3) as usize];
            let line_rate = 1 + draw((1 << RATE_BITS) - 1);
            let r_min = draw(line_rate + 1);
            let p = RpParams {
                profile,
                line_rate,
                r_min,
                r_ai: draw(1 << RATE_BITS),
                r_hai: draw(1 << RATE_BITS),
                first_cnp_rate: draw(1 << RATE_BITS),
                g: 1 + draw(1 << 12),
                alpha_init: draw(ALPHA_ONE),
                alpha_period: 1 + draw(8),
                dec_shift: draw(4),
                t_inc: 1 + draw(8),
                byte_counter: draw(2) * 1000,
                f: draw(COUNT_MAX as u32 + 1),
                gd: draw(16),
                max_dec: draw(MAX_DEC_ONE + 1),
                clamp_tgt_rate: draw(2) == 1,
                clamp_after_time_inc: draw(2) == 1,
                ..RpParams::paper(100_000.0, 150, 16)
            };
            let powers = Powers::new(p.g, stamp_bits);
            let ctx = VisitCtx {
                p: &p,
                stamp_bits,
                steps: 4,
                tick: draw(1 << stamp_bits),
                apn: draw(1 << stamp_bits),
                cnp: draw(2) == 1,
                bc_event: draw(2) == 1,
            };
            let rt = r_min + draw(line_rate - r_min + 1);
            let mut st = RateState {
                rc: r_min + draw(rt - r_min + 1),
                rt,
                alpha: draw(ALPHA_ONE),
            };
            let mut ctl = Control {
                limited: draw(4) != 0,
                inc_on: draw(2) == 1,
                amark: draw(2) == 1,
                dmark: draw(2) == 1,
                t: draw(COUNT_MAX as u32 + 1) as u8,
                bc: draw(COUNT_MAX as u32 + 1) as u8,
                inc_stamp: draw(w + 1),
                a_stamp: draw(w + 1),
            };
            let before = (ctl, st.rc, st.rt);
            let log = visit(&Exact(&powers), &ctx, &mut ctl, &mut st);
            if ctl.limited {
                limited += 1;
                cuts += log.decrease as u32;
                let ok = r_min <= st.rc && st.rc <= st.rt && st.rt <= line_rate;
                assert!(
                    ok && st.alpha < ALPHA_ONE,
                    "{p:?} {ctx:?} from {before:?}: rc {} rt {} alpha {}",
                    st.rc,
                    st.rt,
                    st.alpha
                );
            }
        }
        assert!(limited > 100_000 && cuts > 10_000, "{limited} {cuts}");
    }

    /// Every visit of every flow comes at most `2 flows_in_use + DEPTH`
    /// cycles after the one before it, every accepted event is consumed by
    /// the first visit after it, and a visit leaves no timer expiry due:
    /// the lateness bound of the module docs, driven with a FIFO of 4 that
    /// overflows. Figures printed.
    #[test]
    fn lateness_is_within_the_bound() {
        for (p, seed) in [
            (RpParams::paper(100_000.0, 7, 60), 11),
            (RpParams::nvidia(100_000.0, 7, 60), 12),
            (RpParams::ns3(100_000.0, 7, 64), 13),
        ] {
            let mut p = p;
            p.t_inc = 9;
            p.alpha_period = if p.profile == Profile::Paper { 9 } else { 1 };
            p.byte_counter = 70_000;
            let sh = shape(6, 10, 2);
            p.validate(&sh).unwrap();
            let mut rp = ready(sh, p);
            let bound = p.visit_spacing();
            let u = p.flows_in_use;
            let mut tr = Traffic {
                rng: seed,
                flows: u,
                cnp_per_mille: 30,
                evt_per_mille: 900,
            };
            let mut last_visit = vec![rp.cycle(); 64];
            let mut pending: Vec<Option<u64>> = vec![None; 64];
            let (mut worst_gap, mut worst_event, mut visits) = (0, 0, 0u64);
            let w = mask(sh.stamp_bits);
            for _ in 0..200_000 {
                let i = tr.input();
                let n = rp.cycle();
                let tick = rp.tick();
                rp.step(&i);
                if let Some((c, f, _)) = rp.last_visit().filter(|v| v.0 == n) {
                    visits += 1;
                    let f = f as usize;
                    worst_gap = worst_gap.max(c - last_visit[f]);
                    last_visit[f] = c;
                    if let Some(e) = pending[f].take() {
                        worst_event = worst_event.max(c - e);
                    }
                    let ctl = rp.flow_control(f as u32);
                    if ctl.inc_on {
                        assert!((tick.wrapping_sub(ctl.inc_stamp) & w) < p.t_inc, "an increase left due: {:?} tick {tick} visit {:?} cycle {c} ctl {ctl:?}", p.profile, rp.last_visit());
                    }
                    if ctl.limited && p.profile == Profile::Paper {
                        assert!((tick.wrapping_sub(ctl.a_stamp) & w) < p.alpha_period);
                    }
                }
                // An event accepted in cycle n waits for a visit after n.
                if i.evt_valid {
                    let f = i.evt_flow as usize;
                    let raises = i.evt_kind == kind::CNP || rp.capture[f].bc;
                    if raises && pending[f].is_none() {
                        pending[f] = Some(n);
                    }
                }
                for (f, &v) in last_visit.iter().enumerate().take(u as usize) {
                    assert!(rp.cycle() - v <= bound + 1, "flow {f} unvisited");
                }
            }
            eprintln!(
                "lateness {:?}: bound {bound} cycles; worst gap between visits {worst_gap}, worst event to visit {worst_event}; {visits} visits in 200,000 cycles",
                p.profile
            );
            assert!(worst_gap <= bound && worst_event <= bound);
            // The bound is approached, not just respected.
            assert!(worst_gap > bound - 8, "{worst_gap}");
        }
    }

    /// The cycle-exact model against the continuous-time reference of the
    /// published rules (`reference`), each flow's CNPs and byte-counter
    /// events given to the reference at the tick of the visit that took
    /// them: the two agree up to the integers' rounding, whose bound per
    /// profile is measured here (and the same visits on reals agree with the
    /// reference to float precision, so the time line is the reference's).
    /// Also the invariants `r_min <= Rc <= Rt <= line rate`, alpha < 1.
    #[test]
    fn matches_the_reference_up_to_rounding() {
        for (p, seed, rc_bound, alpha_bound) in [
            (RpParams::paper(100_000.0, 5, 64), 21, 4e-3, 96.0),
            (RpParams::nvidia(100_000.0, 5, 64), 22, 1e-3, 16.0),
            (RpParams::ns3(100_000.0, 5, 64), 23, 1.5e-3, 24.0),
        ] {
            let mut p = p;
            p.byte_counter = if p.profile == Profile::Ns3 {
                0
            } else {
                300_000
            };
            // The increase timer below the visit spacing of 32 ticks: visits
            // with several increases, and increases before a decrease tick.
            p.t_inc = 12;
            let sh = shape(6, 12, 3);
            p.validate(&sh).unwrap();
            let mut rp = ready(sh, p).with_real_shadow();
            let rp_ref = p.to_reference();
            let mut refs: Vec<reference::Flow> =
                (0..64).map(|_| reference::Flow::new(&rp_ref)).collect();
            let mut tr = Traffic {
                rng: seed,
                flows: 64,
                cnp_per_mille: 10,
                evt_per_mille: 700,
            };
            let (mut worst_rc, mut worst_alpha, mut worst_real, mut checked) =
                (0f64, 0f64, 0f64, 0u64);
            let mut tick_abs = rp.tick() as u64; // the tick count without the wrap
                                                 // Visits with: increases before a decrease tick, two or more
                                                 // increases, a byte-counter event, a CNP and a decrease tick.
            let mut paths = [0u64; 4];
            let mut last_tick = rp.tick();
            for _ in 0..400_000 {
                let i = tr.input();
                let n = rp.cycle();
                let tick = rp.tick();
                tick_abs += (tick.wrapping_sub(last_tick) & mask(sh.stamp_bits)) as u64;
                last_tick = tick;
                rp.step(&i);
                let Some((_, f, log)) = rp.last_visit().filter(|v| v.0 == n) else {
                    continue;
                };
                paths[0] += (log.decrease && log.increases > 0) as u64;
                paths[1] += (log.increases >= 2) as u64;
                paths[2] += log.byte_increase as u64;
                paths[3] += (log.cnp && log.decrease) as u64;
                let r = &mut refs[f as usize];
                let t = tick_abs as f64;
                if log.byte_increase {
                    r.byte_event(t);
                }
                if log.cnp {
                    r.cnp(t);
                }
                r.advance(t);
                let (rc, rt, alpha) = rp.flow_rates(f);
                assert!(p.r_min <= rc && rc <= rt && rt <= p.line_rate, "{rc} {rt}");
                assert!(alpha < ALPHA_ONE);
                let Some((xr, _, xa)) = rp.real_rates(f) else {
                    continue;
                };
                let u = UNITS_PER_MBPS as f64;
                let one = ALPHA_ONE as f64;
                let (want_rc, want_rt, want_a) = (r.rc() * u, r.rt() * u, r.alpha() * one);
                worst_rc = worst_rc
                    .max((rc as f64 - want_rc).abs() / want_rc)
                    .max((rt as f64 - want_rt).abs() / want_rt);
                worst_alpha = worst_alpha.max((alpha as f64 - want_a).abs());
                worst_real = worst_real
                    .max((xr - want_rc).abs() / want_rc)
                    .max((xa * one - want_a).abs() / one);

                checked += 1;
            }
            assert!(!rp.shadow_diverged());
            eprintln!(
                "{:?}: {checked} visits of limited flows checked; worst relative error of Rc, Rt {worst_rc:.2e}, of alpha {worst_alpha:.2} / 2^ALPHA_BITS; reals against the reference {worst_real:.1e}",
                p.profile
            );
            eprintln!("  paths (increases before a decrease, 2+ increases, byte event, CNP with a decrease): {paths:?}");
            assert!(checked > 10_000, "{checked}");
            let want = |i: usize| {
                p.profile == Profile::Paper && i != 1 && i != 2
                    || p.profile == Profile::Ns3 && i == 2
            };
            for (i, &c) in paths.iter().enumerate() {
                assert!(c > 0 || want(i), "path {i} never taken");
            }
            assert!(
                worst_real < 1e-9,
                "the time line differs from the reference: {worst_real}"
            );
            assert!(worst_rc < rc_bound && worst_alpha < alpha_bound);
        }
    }
}
