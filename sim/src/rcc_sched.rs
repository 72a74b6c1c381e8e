//! RCC_SCHED in the generic machinery: ports, value encoding, random
//! stimulus and the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's mode, `W`,
//! `Wc`, byte counters and degree pipeline, and aims at the rule's edges.
//! - **Lengths.** A quarter of the packets in window mode are cut to the
//!   window's edge (`W - sent` minus one, exactly, plus one) or to `c`'s
//!   edge (`min(Wc, W) - sent_c` likewise), so windows end exactly, one
//!   byte short and one over, and `c` turns ineligible on its last byte.
//!   The others follow a mix that changes now and then: 64 bytes, 1500,
//!   an IMIX, 0 to 3, 9000, the longest (16,383), or any.
//! - **Classes.** `c_valid`, `n_valid` and `out_ready` each run at a
//!   share (always, most, half, rare, never) redrawn every 50 to 1,500
//!   cycles: both classes backlogged, one alone (the work-conserving
//!   grant), a busy link.
//! - **Degrees.** Updates come rarely (one in 64 to 1,024 cycles), or in
//!   bursts of two to four 1 to 10 cycles apart (the pending slot, a later
//!   update replacing a pending one, the first free cycle's own update
//!   winning). Values: 0 (quit) one in five, 1, 255, 128, any.
//! - **Writes.** `window`: 0, 1, 2, small (3 to 300), a few packets, the
//!   largest, any, and below `sent` in mid-window; `wc_min`: 0, small,
//!   near `W`, above `W`, the largest, any; writes to the unused addresses
//!   2 and 3; a quarter with data bits above `win_bits`. Some land while a
//!   degree update is in flight, at the floor's edge.
//! - **Resets** every 1,000 to 6,000 cycles (one in four after 5 to 40),
//!   held one to three cycles, with traffic in the reset cycles; after
//!   most, small `window` and `wc_min` values are written so that windows
//!   turn over every few packets.
//!
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::rcc_sched::{
    Mode, RccSched, RccSchedConfig, RccSchedIn, RccSchedOut, RccSchedParams, RccSchedShape,
    CFG_DATA_BITS, DEGREE_FLOOR_STAGE, DEGREE_LATENCY, L_MAX, SUPPORTED_WIN_BITS, WRITE_LATENCY,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct RccSchedBlock;

impl Block for RccSchedBlock {
    const NAME: &'static str = "rcc_sched";
    type Config = RccSchedConfig;
    type In = RccSchedIn;
    type Out = RccSchedOut;
    type Golden = RccSched;
    type Stimulus = RccSchedStimulus;

    fn ports(c: &RccSchedConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::rcc_sched::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &RccSchedIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.c_valid as u128;
        v[2] = i.c_len as u128;
        v[3] = i.n_valid as u128;
        v[4] = i.n_len as u128;
        v[5] = i.out_ready as u128;
        v[6] = i.fb_valid as u128;
        v[7] = i.fb as u128;
        v[8] = i.cfg_valid as u128;
        v[9] = i.cfg_addr as u128;
        v[10] = i.cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> RccSchedIn {
        // Values were checked against the port widths by the caller.
        RccSchedIn {
            rst: v[0] != 0,
            c_valid: v[1] != 0,
            c_len: v[2] as u32,
            n_valid: v[3] != 0,
            n_len: v[4] as u32,
            out_ready: v[5] != 0,
            fb_valid: v[6] != 0,
            fb: v[7] as u32,
            cfg_valid: v[8] != 0,
            cfg_addr: v[9] as u32,
            cfg_data: v[10] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &RccSchedOut, v: &mut [u128]) {
        v[0] = o.c_ready as u128;
        v[1] = o.n_ready as u128;
        v[2] = o.window as u128;
        v[3] = o.wc as u128;
        v[4] = o.wnc as u128;
    }

    fn golden(c: &RccSchedConfig) -> RccSched {
        RccSched::new(*c).expect("RCC_SCHED configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut RccSched, i: &RccSchedIn) -> RccSchedOut {
        g.step(i)
    }

    fn verilog(c: &RccSchedConfig) -> String {
        ccrtl_hdl::rcc_sched::verilog(c)
            .expect("RCC_SCHED configuration must be validated before use")
    }

    fn hdl_sim(c: &RccSchedConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<RccSchedIn, RccSchedOut>> {
        ccrtl_hdl::rcc_sched::sim(c).expect("RCC_SCHED configuration must be validated before use")
    }

    fn default_config() -> RccSchedConfig {
        RccSchedConfig::default()
    }

    fn parse_config(text: &str, path: &str) -> Result<RccSchedConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<RccSchedConfig> {
        SUPPORTED_WIN_BITS
            .iter()
            .map(|&win_bits| {
                let shape = RccSchedShape { win_bits };
                RccSchedConfig {
                    shape,
                    reset: RccSchedParams::reset_for(&shape),
                }
            })
            .collect()
    }

    fn random_reset(c: &RccSchedConfig, r: &mut Rng) -> RccSchedConfig {
        let max = c.shape.win_max();
        let window = random_window(r, max);
        RccSchedConfig {
            shape: c.shape,
            reset: RccSchedParams {
                window,
                wc_min: random_wc_min(r, max, window.max(1)),
            },
        }
    }

    fn describe(c: &RccSchedConfig) -> String {
        format!(
            "win_bits={} reset: window={} wc_min={}",
            c.shape.win_bits, c.reset.window, c.reset.wc_min
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    /// Data bits above `win_bits` exist only below 24 bits.
    fn coverage_applies(c: &RccSchedConfig) -> Vec<bool> {
        let mut v = vec![true; COVER.len()];
        v[WRITE_HIGH_BITS] = c.shape.win_bits < CFG_DATA_BITS;
        v
    }

    #[inline]
    fn cover(g: &RccSched, prev: &RccSchedIn, i: &RccSchedIn, cov: &mut Coverage) {
        if i.rst {
            if prev.rst {
                cov.hit(RESET_HELD);
            }
            if g.in_flight().is_some() {
                cov.hit(RESET_IN_FLIGHT);
            }
            if g.pending().is_some() {
                cov.hit(RESET_PENDING);
            }
            if g.staged_write().is_some() {
                cov.hit(RESET_STAGED_WRITE);
            }
            if i.c_valid || i.n_valid || i.fb_valid || i.cfg_valid {
                cov.hit(TRAFFIC_IN_RESET);
            }
            return;
        }
        let shape = g.config().shape;
        let window = g.mode() == Mode::Window;
        // The running window's W and min(Wc, W) (its first cycle's).
        let w = g.window_w();
        let lim = g.window_c_limit();
        let elig = g.c_eligible();
        if (i.c_valid || i.n_valid) && !i.out_ready {
            cov.hit(LINK_BUSY);
        }
        // The grant and its accounting.
        if let Some(class) = g.grant(false, i.c_valid, i.n_valid, i.out_ready) {
            let is_c = class == ccrtl_golden::rcc_sched::Class::C;
            if i.c_valid && i.n_valid && !window && is_c {
                cov.hit(NORMAL_ALTERNATES);
            }
            if window {
                if i.c_valid && i.n_valid {
                    if elig && is_c {
                        cov.hit(WINDOW_ALTERNATES_TO_C);
                    }
                    if !elig {
                        cov.hit(INELIGIBLE_YIELDS);
                    }
                }
                if is_c && !i.n_valid && !elig {
                    cov.hit(INELIGIBLE_ALONE);
                }
                let len = if is_c { i.c_len } else { i.n_len } & L_MAX;
                let sum = g.sent() + len;
                if sum == w {
                    cov.hit(WINDOW_END_EXACT);
                } else if sum == w + 1 {
                    cov.hit(WINDOW_END_ONE_OVER);
                } else if sum + 1 == w {
                    cov.hit(WINDOW_ONE_SHORT);
                }
                if is_c && elig {
                    let sc = g.sent_c() + len;
                    if sc == lim {
                        cov.hit(C_EDGE_EXACT);
                    } else if sc + 1 == lim {
                        cov.hit(C_EDGE_ONE_SHORT);
                    }
                }
                if len == 0 {
                    cov.hit(ZERO_LENGTH);
                }
                if len == L_MAX {
                    cov.hit(LONGEST);
                }
                if w == 1 {
                    cov.hit(W_ONE);
                }
                if g.wc_reg() > w {
                    cov.hit(WC_ABOVE_W);
                }
                if g.wc() != lim {
                    cov.hit(WINDOW_KEEPS_ITS_WC);
                }
            }
            if let Some(f) = g.in_flight() {
                if f.cycles_left == 0 && window {
                    cov.hit(APPLY_WITH_ACCOUNTING);
                }
            }
        }
        if window && lim == 0 && i.c_valid {
            cov.hit(WC_ZERO);
        }
        // Degree updates: the take, the pending slot, the floor.
        let free = g.in_flight().is_none();
        let newest = if i.fb_valid {
            Some(i.fb & 0xff)
        } else {
            g.pending()
        };
        if let Some(fb) = newest {
            if free {
                match (fb, window) {
                    (0, true) => cov.hit(QUIT),
                    (0, false) => cov.hit(QUIT_IN_NORMAL),
                    (_, false) => cov.hit(ENTRY),
                    (_, true) => cov.hit(CUT),
                }
                if i.fb_valid && g.pending().is_some() {
                    cov.hit(NEW_BEATS_PENDING);
                }
            } else if i.fb_valid {
                cov.hit(if g.pending().is_some() {
                    PENDING_REPLACED
                } else {
                    PENDING_FILLED
                });
            }
        }
        if let Some(f) = g.in_flight() {
            // The floor is taken this cycle with the wc_min in force.
            if f.cycles_left == FLOOR_LEFT && !f.quit {
                if f.product < g.wc_min() {
                    cov.hit(FLOOR_BINDS);
                } else if f.product == g.wc_min() {
                    cov.hit(FLOOR_EQUAL);
                }
            }
            if f.entry && i.cfg_valid && i.cfg_addr & 3 == 0 {
                cov.hit(WRITE_IN_FLIGHT);
            }
            // A wc_min write in force exactly at the floor, or one cycle late.
            let edge = FLOOR_LEFT + WRITE_LATENCY - 1;
            if i.cfg_valid && i.cfg_addr & 3 == 1 && (edge..=edge + 1).contains(&f.cycles_left) {
                cov.hit(WC_MIN_AT_FLOOR_EDGE);
            }
        }
        // Register writes.
        if i.cfg_valid {
            let data = i.cfg_data & low(CFG_DATA_BITS);
            let v = data & shape.win_max();
            match i.cfg_addr & 3 {
                0 => {
                    if v == 0 {
                        cov.hit(WRITE_WINDOW_ZERO);
                    }
                    if window && v > 0 && v <= g.sent() && v < g.w() {
                        cov.hit(WRITE_BELOW_SENT);
                    }
                }
                1 => {
                    if v > g.w() {
                        cov.hit(WC_MIN_ABOVE_W);
                    }
                }
                _ => cov.hit(WRITE_UNUSED),
            }
            if data != v {
                cov.hit(WRITE_HIGH_BITS);
            }
        }
        if !prev.rst && prev.cfg_valid && i.cfg_valid && (i.c_valid || i.n_valid) && window {
            cov.hit(WRITES_BACK_TO_BACK);
        }
    }
}

const COVER: &[&str] = &[
    "normal mode: both valid, c granted by the alternation",
    "window mode: both valid, c eligible and granted by the alternation",
    "window mode: both valid, c not eligible, n granted",
    "window mode: c alone and not eligible, granted (work-conserving)",
    "grant ending the window exactly (sent + L == W)",
    "grant ending the window one byte over (sent + L == W + 1)",
    "grant one byte short of the window's end (sent + L == W - 1)",
    "counted c grant reaching min(Wc, W) exactly",
    "counted c grant one byte short of min(Wc, W)",
    "window-mode grant of a 0-byte packet",
    "window-mode grant of the longest packet (16,383 bytes)",
    "window-mode grant with W = 1 (window register 0 or 1)",
    "window-mode grant with Wc above W",
    "window-mode grant while min(Wc, W) in force differs from the window's (a cut or write in mid-window)",
    "c valid in window mode with min(Wc, W) = 0",
    "a degree update applied in a cycle with window-mode accounting",
    "degree update taken: entry (Fb > 0 in normal mode)",
    "degree update taken: cut (Fb > 0 in window mode)",
    "degree update taken: quit (Fb = 0 in window mode)",
    "degree update taken: Fb = 0 in normal mode",
    "degree update while one is in flight (pending filled)",
    "degree update while one is in flight and one pending (replaced)",
    "first free cycle: the cycle's own update beats the pending one",
    "the floor binds (prod < wc_min)",
    "the floor equals the product (prod == wc_min)",
    "window write while an entry is in flight",
    "wc_min write landing at the floor's edge of an update in flight",
    "window write of 0",
    "window write at or below sent in mid-window (in force for the next window)",
    "wc_min write above W",
    "write to an unused address (2 or 3)",
    "write with data bits above win_bits",
    "writes in consecutive cycles with traffic in window mode",
    "a class valid with out_ready low",
    "reset held for several cycles",
    "reset with a degree update in flight",
    "reset with a degree update pending",
    "reset with a register write staged",
    "traffic, degree update or write in a reset cycle",
];
const NORMAL_ALTERNATES: usize = 0;
const WINDOW_ALTERNATES_TO_C: usize = 1;
const INELIGIBLE_YIELDS: usize = 2;
const INELIGIBLE_ALONE: usize = 3;
const WINDOW_END_EXACT: usize = 4;
const WINDOW_END_ONE_OVER: usize = 5;
const WINDOW_ONE_SHORT: usize = 6;
const C_EDGE_EXACT: usize = 7;
const C_EDGE_ONE_SHORT: usize = 8;
const ZERO_LENGTH: usize = 9;
const LONGEST: usize = 10;
const W_ONE: usize = 11;
const WC_ABOVE_W: usize = 12;
const WINDOW_KEEPS_ITS_WC: usize = 13;
const WC_ZERO: usize = 14;
const APPLY_WITH_ACCOUNTING: usize = 15;
const ENTRY: usize = 16;
const CUT: usize = 17;
const QUIT: usize = 18;
const QUIT_IN_NORMAL: usize = 19;
const PENDING_FILLED: usize = 20;
const PENDING_REPLACED: usize = 21;
const NEW_BEATS_PENDING: usize = 22;
const FLOOR_BINDS: usize = 23;
const FLOOR_EQUAL: usize = 24;
const WRITE_IN_FLIGHT: usize = 25;
const WC_MIN_AT_FLOOR_EDGE: usize = 26;
const WRITE_WINDOW_ZERO: usize = 27;
const WRITE_BELOW_SENT: usize = 28;
const WC_MIN_ABOVE_W: usize = 29;
const WRITE_UNUSED: usize = 30;
const WRITE_HIGH_BITS: usize = 31;
const WRITES_BACK_TO_BACK: usize = 32;
const LINK_BUSY: usize = 33;
const RESET_HELD: usize = 34;
const RESET_IN_FLIGHT: usize = 35;
const RESET_PENDING: usize = 36;
const RESET_STAGED_WRITE: usize = 37;
const TRAFFIC_IN_RESET: usize = 38;

/// `cycles_left` of an update in flight in its floor cycle.
const FLOOR_LEFT: u32 = DEGREE_LATENCY - 1 - DEGREE_FLOOR_STAGE;

/// `2^bits - 1`.
#[inline]
fn low(bits: u32) -> u32 {
    ((1u64 << bits) - 1) as u32
}

/// A `window` value: 0, 1, 2, small, a few packets, the largest, any.
fn random_window(r: &mut Rng, max: u32) -> u32 {
    match r.upto(9) {
        0 => 0,
        1 => 1,
        2 => 2,
        3 | 4 => r.range(3, 300),
        5 | 6 => r.range(301, 40_000).min(max),
        7 => max,
        _ => r.upto(max),
    }
}

/// A `wc_min` value for a window `w`: 0, small, near `w`, above it, the
/// largest, any.
fn random_wc_min(r: &mut Rng, max: u32, w: u32) -> u32 {
    match r.upto(8) {
        0 | 1 => 0,
        2 => r.range(1, 64),
        3 => w.saturating_sub(r.upto(2)),
        4 => w.saturating_add(r.range(1, 100)).min(max),
        5 => max,
        6 => w / 4,
        _ => r.upto(max),
    }
}

/// A degree: 0 (quit) one time in five, 1, 255, 128, any.
fn random_fb(r: &mut Rng) -> u32 {
    match r.upto(9) {
        0 | 1 => 0,
        2 => 1,
        3 => 255,
        4 => 128,
        _ => r.range(1, 255),
    }
}

pub struct RccSchedStimulus {
    rng: Rng,
    win_max: u32,
    win_bits: u32,
    reset_in: u32,
    reset_left: u32,
    /// Cycles until the writes that follow a reset; the next address.
    setup_in: Option<u32>,
    setup_addr: u32,
    c_256: u32,
    n_256: u32,
    ready_256: u32,
    /// Degree updates: one in `fb_period` cycles; a burst's remaining
    /// updates and the gap to the next.
    fb_period: u32,
    burst_left: u32,
    burst_gap: u32,
    cfg_256: u32,
    /// The length mix (index into `mix`).
    mix: u32,
    /// One in `edge_256` window-mode packets is cut to an edge.
    edge_256: u32,
    mood_in: u32,
    /// Cycles until the entry that follows some resets.
    entry_in: Option<u32>,
}

impl RccSchedStimulus {
    fn length(&mut self, g: &RccSched, c: bool) -> u32 {
        let r = &mut self.rng;
        if g.mode() == Mode::Window && r.chance(self.edge_256) {
            let left = if c && r.chance(128) {
                g.window_c_limit().saturating_sub(g.sent_c())
            } else {
                g.window_left()
            };
            let v = match r.upto(2) {
                0 => left.saturating_sub(1),
                1 => left,
                _ => left + 1,
            };
            return v.min(L_MAX);
        }
        match self.mix {
            0 => 64,
            1 => 1500,
            2 => r.pick(&[64, 64, 64, 64, 64, 64, 64, 576, 576, 576, 576, 1500]),
            3 => r.upto(3),
            4 => r.pick(&[9000, 64]),
            5 => r.pick(&[L_MAX, L_MAX - 1, 1]),
            _ => r.upto(L_MAX),
        }
    }

    fn write(&mut self, g: &RccSched) -> (u32, u32) {
        let max = self.win_max;
        let r = &mut self.rng;
        let (addr, v) = match r.upto(9) {
            0..=3 => {
                let v = if g.sent() > 0 && r.chance(64) {
                    r.range(1, g.sent())
                } else {
                    random_window(r, max)
                };
                (0, v)
            }
            4..=7 => (1, random_wc_min(r, max, g.w())),
            _ => (r.range(2, 3), r.next_u32()),
        };
        // Data bits above win_bits a quarter of the time.
        let high = if r.chance(64) && self.win_bits < CFG_DATA_BITS {
            r.next_u32() & low(CFG_DATA_BITS) & !max
        } else {
            0
        };
        (addr, (v | high) & low(CFG_DATA_BITS))
    }
}

impl Stimulus<RccSchedBlock> for RccSchedStimulus {
    fn new(config: &RccSchedConfig, seed: u64) -> RccSchedStimulus {
        RccSchedStimulus {
            rng: Rng::new(seed),
            win_max: config.shape.win_max(),
            win_bits: config.shape.win_bits,
            // The run starts with a reset held one to three cycles.
            reset_in: 0,
            reset_left: 0,
            setup_in: None,
            setup_addr: 0,
            c_256: 256,
            n_256: 256,
            ready_256: 256,
            fb_period: 64,
            burst_left: 0,
            burst_gap: 0,
            cfg_256: 4,
            mix: 2,
            edge_256: 64,
            mood_in: 300,
            entry_in: None,
        }
    }

    fn next_into(&mut self, g: &RccSched, i: &mut RccSchedIn) {
        // Resets, and the writes of both registers after most of them.
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
        } else if self.reset_in == 0 {
            i.rst = true;
            self.reset_left = self.rng.upto(2);
            self.reset_in = if self.rng.chance(64) {
                self.rng.range(5, 40)
            } else {
                self.rng.range(1_000, 6_000)
            };
            self.setup_in = self.rng.chance(160).then(|| self.rng.upto(40));
            self.setup_addr = 0;
            self.burst_left = 0;
            // One reset in four: an entry soon after, before any setup
            // write, so that the registers the reset restored (and nothing
            // a reset cycle's write or a dropped staged write left) decide
            // the first window and its floor.
            self.entry_in = None;
            if self.rng.chance(64) {
                self.entry_in = Some(self.rng.range(1, 20));
                self.setup_in = None;
            }
        } else {
            self.reset_in -= 1;
        }
        // Shares of busy cycles and the length mix change now and then.
        self.mood_in = self.mood_in.saturating_sub(1);
        if self.mood_in == 0 {
            let r = &mut self.rng;
            self.mood_in = r.range(50, 1_500);
            self.c_256 = r.pick(&[256, 256, 200, 128, 16, 0]);
            self.n_256 = r.pick(&[256, 256, 200, 128, 16, 0]);
            self.ready_256 = r.pick(&[256, 256, 256, 200, 64]);
            self.fb_period = r.pick(&[64, 256, 1024, 16]);
            self.cfg_256 = r.pick(&[8, 2, 1, 0, 32]);
            self.mix = r.upto(6);
            self.edge_256 = r.pick(&[64, 128, 16]);
        }
        let r = &mut self.rng;
        i.c_valid = r.chance(self.c_256);
        i.n_valid = r.chance(self.n_256);
        i.out_ready = r.chance(self.ready_256);
        i.c_len = self.length(g, true);
        i.n_len = self.length(g, false);
        // Resets aimed into the degree pipeline: at any stage of an update
        // just taken.
        if let Some(f) = g.in_flight() {
            if f.cycles_left == DEGREE_LATENCY - 2 && self.reset_in > 20 && self.rng.chance(24) {
                self.reset_in = self.rng.upto(DEGREE_LATENCY - 1);
            }
        }
        // Degree updates: single ones, or bursts closer than the pipeline.
        let entry_now = match self.entry_in.as_mut() {
            Some(n) if !i.rst => {
                *n -= 1;
                *n == 0
            }
            _ => false,
        };
        if entry_now {
            self.entry_in = None;
        }
        let r = &mut self.rng;
        if entry_now {
            i.fb_valid = true;
        } else if self.burst_left > 0 {
            if self.burst_gap == 0 {
                i.fb_valid = true;
                self.burst_left -= 1;
                self.burst_gap = r.range(0, 9);
            } else {
                self.burst_gap -= 1;
            }
        } else if r.upto(self.fb_period - 1) == 0 {
            i.fb_valid = true;
            if r.chance(48) {
                self.burst_left = r.range(1, 3);
                self.burst_gap = r.range(0, 9);
            }
        }
        if i.fb_valid {
            i.fb = if entry_now {
                r.range(1, 255)
            } else {
                random_fb(r)
            };
        }
        // Register writes: the setup after a reset, or at the mood's rate.
        let setup = match self.setup_in.as_mut() {
            Some(n) if !i.rst => {
                *n = n.saturating_sub(1);
                *n == 0
            }
            _ => false,
        };
        if setup {
            let r = &mut self.rng;
            let (addr, data) = if self.setup_addr == 0 {
                (0, r.range(1, 20_000).min(self.win_max))
            } else {
                (1, r.pick(&[0, 1, 100, 1000]))
            };
            (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, addr, data);
            self.setup_addr += 1;
            if self.setup_addr == 2 {
                self.setup_in = None;
            }
        } else if self.rng.chance(self.cfg_256) {
            let (addr, data) = self.write(g);
            (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, addr, data);
        } else if let Some(f) = g.in_flight() {
            // A wc_min write aimed at the floor's edge of the update in flight.
            let edge = FLOOR_LEFT + WRITE_LATENCY - 1;
            if !f.quit && (edge..=edge + 1).contains(&f.cycles_left) && self.rng.chance(64) {
                let p = f.product;
                let v = match self.rng.upto(2) {
                    0 => p,
                    1 => p + 1,
                    _ => p.saturating_sub(1),
                };
                (i.cfg_valid, i.cfg_addr, i.cfg_data) = (true, 1, v.min(self.win_max));
            }
        }
        // A reset one or two cycles after a write: the staged write is dropped.
        if i.cfg_valid && !i.rst && self.reset_in > 10 && self.rng.chance(12) {
            self.reset_in = self.rng.upto(1);
        }
    }
}

// ---- the params file ---------------------------------------------------------

/// RCC_SCHED's table: `[rcc_sched]` with `win_bits` and `[rcc_sched.reset]`
/// with `window`, `wc_min`.
#[derive(Debug, Default, Deserialize)]
struct RccSchedFile {
    rcc_sched: Option<RccSchedTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RccSchedTable {
    win_bits: Option<u32>,
    reset: Option<RccSchedReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RccSchedReset {
    window: Option<u32>,
    wc_min: Option<u32>,
}

/// Parses and validates RCC_SCHED's table of params text; `path` names it.
/// Reset values not given are the defaults for the shape (clamped to it).
pub fn parse_config(text: &str, path: &str) -> Result<RccSchedConfig, ParamsError> {
    let file: RccSchedFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.rcc_sched.unwrap_or_default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = RccSchedShape {
        win_bits: t.win_bits.unwrap_or(RccSchedShape::default().win_bits),
    };
    shape.validate().map_err(perr)?;
    let defaults = RccSchedParams::reset_for(&shape);
    let r = t.reset.unwrap_or_default();
    let c = RccSchedConfig {
        shape,
        reset: RccSchedParams {
            window: r.window.unwrap_or(defaults.window),
            wc_min: r.wc_min.unwrap_or(defaults.wc_min),
        },
    };
    c.validate().map_err(perr)?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the stimulus on the golden model alone for `cycles`; returns
    /// the coverage, checking the model's invariants on the way.
    fn run(c: &RccSchedConfig, seed: u64, cycles: u64) -> Coverage {
        let mut g = RccSchedBlock::golden(c);
        let mut s = RccSchedStimulus::new(c, seed);
        let mut cov = Coverage::new(COVER, RccSchedBlock::coverage_applies(c));
        let mut prev = RccSchedIn::default();
        for _ in 0..cycles {
            let i = s.next(&g);
            RccSchedBlock::cover(&g, &prev, &i, &mut cov);
            g.step(&i);
            g.check_invariants().unwrap();
            prev = i;
        }
        cov
    }

    #[test]
    fn stimulus_hits_every_coverage_point_in_1e5_cycles_on_every_shape() {
        let mut r = Rng::new(5);
        for (k, shape) in RccSchedBlock::menu().iter().enumerate() {
            for c in [*shape, RccSchedBlock::random_reset(shape, &mut r)] {
                let cov = run(&c, 1 + k as u64, 100_000);
                if c == RccSchedConfig::default() {
                    eprintln!("{}: {:?}", RccSchedBlock::describe(&c), cov.points());
                }
                assert!(
                    cov.missed().is_empty(),
                    "{}: missed {:?}\n{:?}",
                    RccSchedBlock::describe(&c),
                    cov.missed(),
                    cov.points()
                );
            }
        }
    }

    #[test]
    fn coverage_points_are_named_once() {
        let mut names = COVER.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), COVER.len());
        assert_eq!(COVER.len(), TRAFFIC_IN_RESET + 1);
    }

    #[test]
    fn params_table_is_parsed_and_checked_by_name() {
        let c = parse_config(
            "[rcc_sched]\nwin_bits = 16\n[rcc_sched.reset]\nwindow = 1000\nwc_min = 9\n",
            "p.toml",
        )
        .unwrap();
        assert_eq!(
            (c.shape.win_bits, c.reset.window, c.reset.wc_min),
            (16, 1000, 9)
        );
        assert_eq!(
            parse_config("", "p.toml").unwrap(),
            RccSchedConfig::default()
        );
        let e = parse_config(
            "[rcc_sched]\nwin_bits = 16\n[rcc_sched.reset]\nwindow = 65536\n",
            "p.toml",
        );
        assert!(e.unwrap_err().to_string().contains("`window`"));
        let e = parse_config("[rcc_sched]\nwin_bits = 18\n", "p.toml");
        assert!(e.unwrap_err().to_string().contains("`win_bits`"));
    }
}
