//! RP in the generic machinery: ports, value encoding, random stimulus and
//! the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's next visit
//! candidate and its last visit, and sends events to those flows, so that
//! an event lands in the cycle its flow is visited (the consumption comes
//! first: the event stays pending) and 1 to 11 cycles after (the visits
//! and captures the flow's RAM words do not show yet: all forwarded).
//! Traffic comes from a hot set of four flows (back-to-back events of one
//! flow are the rule), from those aimed flows and from random ones; CNPs
//! come in phases of different rates, byte counts are mostly large so that
//! the byte counter fires. Registers are written now and then, in runs:
//! mostly a value the loader takes (drawn from a random valid
//! configuration), sometimes any value at any address; `profile` and `g`
//! (which forget every flow) rarely. The block is reset mid-traffic, held
//! one to four cycles, with traffic and writes in the reset cycles, and
//! events keep coming while it is busy (refused). Most mid-run resets are
//! followed, while the clearing runs, by a reconfiguration: a profile
//! (so that every profile gets its share of the run whatever the reset
//! values) and now and then corner values (a long alpha period, a tick
//! every cycle, a line rate using the rates' top bit).
//!
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::rp::{
    kind, Profile, Rp, RpConfig, RpIn, RpOut, RpParams, RpShape, FORGETTING, REGISTERS, RTL_STEPS,
    SUPPORTED_SHAPES,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct RpBlock;

impl Block for RpBlock {
    const NAME: &'static str = "rp";
    type Config = RpConfig;
    type In = RpIn;
    type Out = RpOut;
    type Golden = Rp;
    type Stimulus = RpStimulus;

    fn ports(c: &RpConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::rp::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &RpIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.evt_valid as u128;
        v[2] = i.evt_kind as u128;
        v[3] = i.evt_flow as u128;
        v[4] = i.evt_bytes as u128;
        v[5] = i.cfg_valid as u128;
        v[6] = i.cfg_addr as u128;
        v[7] = i.cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> RpIn {
        // Values were checked against the port widths by the caller.
        RpIn {
            rst: v[0] != 0,
            evt_valid: v[1] != 0,
            evt_kind: v[2] as u8,
            evt_flow: v[3] as u32,
            evt_bytes: v[4] as u32,
            cfg_valid: v[5] != 0,
            cfg_addr: v[6] as u32,
            cfg_data: v[7] as u32,
        }
    }

    #[inline]
    fn encode_out(o: &RpOut, v: &mut [u128]) {
        v[0] = o.evt_ready as u128;
        v[1] = o.rate_valid as u128;
        v[2] = o.rate_flow as u128;
        v[3] = o.rate_rc as u128;
        v[4] = o.rate_cut as u128;
    }

    fn golden(c: &RpConfig) -> Rp {
        Rp::new(*c).expect("RP configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut Rp, i: &RpIn) -> RpOut {
        g.step(i)
    }

    fn verilog(c: &RpConfig) -> String {
        ccrtl_hdl::rp::verilog(c).expect("RP configuration must be validated before use")
    }

    fn hdl_sim(c: &RpConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<RpIn, RpOut>> {
        ccrtl_hdl::rp::sim(c).expect("RP configuration must be validated before use")
    }

    fn default_config() -> RpConfig {
        RpConfig::default()
    }

    /// 16 flows (a clearing of 1,024 cycles, the power table's fill), paper
    /// at 40 Gb/s with a tick of 10 cycles and a byte counter of 100,000
    /// bytes: cuts, increases and byte-counter events within a few thousand
    /// cycles.
    const SHORT_PARAMS: &'static str = "[rp]\nflow_bits = 4\nstamp_bits = 8\nfifo_bits = 2\n\
        [rp.reset]\nprofile = \"paper\"\nline_rate = 40000\ntick_cycles = 10\nflows_in_use = 16\n\
        byte_counter = 100000\n";

    fn parse_config(text: &str, path: &str) -> Result<RpConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<RpConfig> {
        SUPPORTED_SHAPES
            .iter()
            .map(|&(flow_bits, stamp_bits, fifo_bits)| {
                let shape = RpShape {
                    flow_bits,
                    stamp_bits,
                    fifo_bits,
                    steps: RTL_STEPS,
                };
                RpConfig {
                    shape,
                    reset: RpParams::reset_for(&shape),
                }
            })
            .collect()
    }

    fn random_reset(c: &RpConfig, r: &mut Rng) -> RpConfig {
        RpConfig {
            shape: c.shape,
            reset: random_params(r, &c.shape),
        }
    }

    fn describe(c: &RpConfig) -> String {
        let s = &c.shape;
        let regs: Vec<String> = REGISTERS
            .iter()
            .map(|reg| format!("{}={}", reg.name, c.reset.read(reg.addr).unwrap_or(0)))
            .collect();
        format!(
            "flow_bits={} stamp_bits={} fifo_bits={} reset: {}",
            s.flow_bits,
            s.stamp_bits,
            s.fifo_bits,
            regs.join(" ")
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &Rp, prev: &RpIn, i: &RpIn, cov: &mut Coverage) {
        // The visit of the last cycle (its log).
        if let Some((c, _, log)) = g.last_visit() {
            if c + 1 == g.cycle() && !prev.rst {
                if log.decrease {
                    cov.hit(DECREASE_TICK);
                    if log.increases > 0 {
                        cov.hit(INCREASE_AND_DECREASE);
                    }
                }
                if log.increases >= 2 {
                    cov.hit(SEVERAL_INCREASES);
                }
                if log.byte_increase {
                    cov.hit(BYTE_INCREASE);
                }
                if log.alpha_periods > 1 {
                    cov.hit(SEVERAL_ALPHA_PERIODS);
                }
            }
        }
        let kill = i.rst || (i.cfg_valid && FORGETTING.contains(&(i.cfg_addr & 31)));
        if kill && outputs_due_soon(g) {
            cov.hit(KILL_CUTS_OUTPUTS);
        }
        if i.rst {
            if prev.rst {
                cov.hit(RESET_HELD);
            } else if g.busy_left() > 0 {
                cov.hit(RESET_WHILE_BUSY);
            } else {
                cov.hit(RESET_MID_RUN);
            }
            if i.evt_valid {
                cov.hit(EVENT_IN_RESET);
            }
            return;
        }
        if i.cfg_valid {
            let a = i.cfg_addr & 31;
            if FORGETTING.contains(&a) {
                cov.hit(FORGET_WRITE);
            } else if (a as usize) < REGISTERS.len() {
                cov.hit(REGISTER_WRITE);
                if g.in_flight_any() {
                    cov.hit(WRITE_WAITS);
                } else if g.ready() {
                    cov.hit(WRITE_IDLE);
                }
            } else {
                cov.hit(UNMAPPED_WRITE);
            }
        }
        if let Some(c) = g.next_candidate() {
            if g.in_flight(c).is_some() {
                cov.hit(PASSED_OVER);
            }
        }
        if !i.evt_valid {
            return;
        }
        if !g.ready() {
            cov.hit(REFUSED_WHILE_BUSY);
            return;
        }
        let flow = i.evt_flow & (g.config().shape.flows() - 1);
        if prev.evt_valid && !prev.rst && prev.evt_flow == i.evt_flow {
            cov.hit(BACK_TO_BACK);
        }
        if g.next_candidate() == Some(flow) && g.in_flight(flow).is_none() {
            cov.hit(EVENT_AT_VISIT);
        }
        if let Some(d) = g.in_flight(flow) {
            if d <= 11 {
                cov.hit(EVENT_AFTER_VISIT);
            }
        }
        let (cnp, bc) = g.pending(flow);
        let limited = g.flow_control(flow).limited;
        if i.evt_kind & 1 == kind::CNP {
            cov.hit(if limited { CNP_LIMITED } else { CNP_FIRST });
            if cnp {
                cov.hit(MERGED);
            }
            if !cnp && !bc && g.fifo_len() == g.fifo_capacity() {
                cov.hit(FIFO_FULL);
            }
        } else if bc {
            cov.hit(BYTES_WHILE_PENDING);
        }
    }
}

const COVER: &[&str] = &[
    "CNP of a flow never limited (its first)",
    "CNP of a limited flow",
    "CNP merged into a pending one",
    "bytes sent while a byte-counter event is pending",
    "events of one flow in consecutive cycles",
    "event of the flow visited in the same cycle",
    "event of a flow 1 to 11 cycles after its visit",
    "CNP queued while the FIFO is full (dropped)",
    "round-robin or FIFO flow passed over (in flight)",
    "visit applying a decrease tick",
    "visit applying increases and a decrease tick",
    "visit applying two or more increases",
    "visit applying a byte-counter event",
    "visit applying two or more alpha periods",
    "register write (not one that forgets)",
    "register write while visits are in flight (the engine waits)",
    "register write with no visit in flight (taken at once)",
    "profile, g or alpha_period write (flows forgotten)",
    "write of an unmapped address",
    "event refused while busy",
    "reset mid-traffic",
    "reset while busy",
    "reset held for several cycles",
    "event in a reset cycle",
    "reset or forgetting write with rate updates due in the 3 cycles after",
];
const CNP_FIRST: usize = 0;
const CNP_LIMITED: usize = 1;
const MERGED: usize = 2;
const BYTES_WHILE_PENDING: usize = 3;
const BACK_TO_BACK: usize = 4;
const EVENT_AT_VISIT: usize = 5;
const EVENT_AFTER_VISIT: usize = 6;
const FIFO_FULL: usize = 7;
const PASSED_OVER: usize = 8;
const DECREASE_TICK: usize = 9;
const INCREASE_AND_DECREASE: usize = 10;
const SEVERAL_INCREASES: usize = 11;
const BYTE_INCREASE: usize = 12;
const SEVERAL_ALPHA_PERIODS: usize = 13;
const REGISTER_WRITE: usize = 14;
const WRITE_WAITS: usize = 15;
const WRITE_IDLE: usize = 16;
const FORGET_WRITE: usize = 17;
const UNMAPPED_WRITE: usize = 18;
const REFUSED_WHILE_BUSY: usize = 19;
const RESET_MID_RUN: usize = 20;
const RESET_WHILE_BUSY: usize = 21;
const RESET_HELD: usize = 22;
const EVENT_IN_RESET: usize = 23;
const KILL_CUTS_OUTPUTS: usize = 24;

/// A rate update leaves in one of the next three cycles: a reset or a
/// forgetting write now must cut it (the output stage sees the kill in its
/// own cycle and its registered copy in the next).
fn outputs_due_soon(g: &Rp) -> bool {
    (1..=3).any(|k| g.output_due(k))
}

/// Random register values the loader takes for `shape`: a profile's
/// defaults at a random line rate and tick, with some registers moved, the
/// timers short (so that a run sees many expiries) but long enough for the
/// visit spacing.
pub fn random_params(r: &mut Rng, shape: &RpShape) -> RpParams {
    for _ in 0..64 {
        let lr = r.pick(&[10_000.0, 25_000.0, 40_000.0, 100_000.0, 400_000.0]);
        let tick = r.pick(&[1, 2, 5, 10, 37, 150]);
        let flows = shape.flows();
        let u = match r.upto(3) {
            0 => flows,
            1 => r.range(1, flows.min(64)),
            _ => r.range(1, flows),
        }
        .min(1 << 14);
        let mut p = match r.upto(2) {
            0 => RpParams::paper(lr, tick, u),
            1 => RpParams::nvidia(lr, tick, u),
            _ => RpParams::ns3(lr, tick, u),
        };
        let l = p.visit_spacing_ticks() as u32;
        // Timers from the shortest the loader takes to a few times that.
        let shortest = l.div_ceil(shape.steps).max(1);
        if r.chance(192) {
            p.t_inc = r.range(shortest, shortest * 3 + 8);
            if p.profile == Profile::Paper {
                p.alpha_period = r.range(shortest, shortest * 3 + 8);
            }
        }
        if p.profile != Profile::Paper && r.chance(128) {
            p.alpha_period = r.range(1, 8);
            p.dec_shift = r.upto(3);
        }
        if r.chance(128) {
            p.byte_counter = match r.upto(2) {
                0 => 0,
                1 => r.range(65_536, 200_000),
                _ => r.range(65_536, 1 << 22),
            };
        }
        if r.chance(64) {
            p.f = r.upto(6);
        }
        if r.chance(64) {
            p.gd = r.range(10, 12);
        }
        if r.chance(64) {
            p.max_dec = r.upto(4096);
        }
        if r.chance(64) {
            p.g = r.range(1, 4096);
        }
        if r.chance(64) {
            p.r_min = r.range(1, p.line_rate);
        }
        if r.chance(64) {
            p.r_ai = r.upto(2_000);
            p.r_hai = r.upto(20_000);
        }
        if r.chance(64) {
            p.first_cnp_rate = r.upto(p.line_rate);
        }
        if r.chance(64) {
            p.clamp_tgt_rate = r.chance(128);
            p.clamp_after_time_inc = r.chance(128);
        }
        if r.chance(64) {
            p.alpha_init = r.upto(16_383);
        }
        if p.validate(shape).is_ok() {
            return p;
        }
    }
    RpParams::reset_for(shape)
}

/// Random valid RP stimulus (see the module comment).
pub struct RpStimulus {
    rng: Rng,
    shape: RpShape,
    flow_mask: u32,
    hot: [u32; 4],
    /// Cycles to the next mid-traffic reset, and reset cycles still to come.
    reset_in: u64,
    reset_left: u32,
    /// Cycles to the next register write, and writes left in its run.
    cfg_in: u32,
    writes_left: u32,
    /// The run of writes started as the clearing ends: flows_in_use
    /// written to a few flows (where the round robin, at flow 0 then, is
    /// about to wrap) half of the time.
    edge_writes: bool,
    /// Share of cycles with an event and of events that are CNPs, in
    /// 256ths (they change now and then).
    load: u32,
    cnp: u32,
    phase_in: u32,
    /// Cycles until a write that forgets every flow may come again: each
    /// one makes the block busy for `clear_cycles` (131,072 at 17 flow
    /// bits), and one every few tens of thousands of cycles would keep the
    /// largest shapes busy for good.
    forget_ok_in: u64,
    /// Cycles a due reset has waited for rate updates to cut.
    hold_reset: u32,
    /// Resets ended so far (the first, at power-up, is not followed by a
    /// reconfiguration: the reset values are used until the first write).
    resets: u32,
    /// The writes of the reconfiguration after a reset still to come,
    /// (address, value), the next last.
    session: Vec<(u32, u32)>,
}

impl RpStimulus {
    fn random_flow(&mut self) -> u32 {
        self.rng.next_u32() & self.flow_mask
    }

    fn reset_gap(&mut self) -> u64 {
        let busy = self.shape.clear_cycles() as u64;
        if self.rng.chance(48) {
            self.rng.upto(busy as u32) as u64 + 1
        } else {
            busy + 5_000 + self.rng.next_u64() % (2 * busy + 60_000)
        }
    }

    /// One register write: a value the loader takes, or anything.
    fn write(&mut self, g: &Rp, i: &mut RpIn) {
        i.cfg_valid = true;
        if self.edge_writes && self.rng.chance(128) {
            i.cfg_addr = 2;
            i.cfg_data = self.rng.range(1, 3);
            return;
        }
        let may_forget = self.forget_ok_in == 0;
        let any = self.rng.chance(24);
        let forget = may_forget && self.rng.chance(8);
        let reg = if forget {
            self.rng.pick(&FORGETTING)
        } else {
            loop {
                let a = self.rng.upto(REGISTERS.len() as u32 - 1);
                if !FORGETTING.contains(&a) {
                    break a;
                }
            }
        };
        if any {
            i.cfg_addr = self.rng.upto(31);
            if !may_forget && FORGETTING.contains(&i.cfg_addr) {
                i.cfg_addr = reg;
            }
            i.cfg_data = self.rng.next_u32();
            self.note_forget(i.cfg_addr);
            return;
        }
        // A register of a random valid configuration, or (for the loader's
        // sake) the same profile's value moved a little.
        let p = random_params(&mut self.rng, &self.shape);
        i.cfg_addr = reg;
        i.cfg_data = if self.rng.chance(128) || reg == 0 {
            p.read(reg).unwrap_or(0)
        } else {
            let cur = g.regs().read(reg).unwrap_or(0);
            cur.saturating_add(self.rng.upto(8))
                .saturating_sub(self.rng.upto(8))
        };
        // Now and then a tick every cycle (0 reads as 1), which the moves
        // of a few around the current tick never reach: the time base's
        // counters then step in consecutive cycles (see `plan_session`).
        if reg == 1 && self.rng.chance(64) {
            i.cfg_data = self.rng.upto(1);
        }
        self.note_forget(reg);
    }

    /// The reconfiguration after a mid-run reset: writes in the cycles
    /// right after it, while its clearing runs, so that a write that
    /// forgets every flow only restarts a clearing a few cycles old (no
    /// `forget_ok_in` wait). Otherwise the block would spend nearly the
    /// whole run in its reset profile (profile writes forget, so they are
    /// rare); and a corner value written to a register mid-run meets only
    /// flows started under the old values (a flow's rates follow a new
    /// line rate only through its cuts and increases), where after the
    /// clearing every flow starts under it.
    fn plan_session(&mut self) {
        let mut w = vec![];
        // Each profile in turn for a while, with the other registers as
        // they are (the reset profile's: e.g. paper with nvidia's
        // threshold `F` = 1 and a byte counter, so that paper's hyper
        // increase, `i = min(T, BC) - F + 1`, comes within a few visits).
        let profile = self.rng.upto(2);
        w.push((0, profile));
        // nvidia/ns3: a long alpha period. The decrease tick in ticks is
        // `nb x alpha_period` (mod 2^stamp_bits), a multiply by the
        // period's low bits: the short periods of the profiles' defaults
        // (1 to 8 ticks) leave its rows from bit 4 up untried (a planted
        // row read from the neighbouring bit survived 500,000 cycles).
        if profile != 0 && self.rng.chance(128) {
            w.push((9, self.rng.range(9, 255)));
        }
        // A tick every cycle: the time base's counters (prescaler, alpha
        // period prescaler) then step in consecutive cycles, so a counter
        // read one cycle late shows (with the ticks 2 or more cycles
        // apart it reads the same value).
        if self.rng.chance(64) {
            w.push((1, 1));
        }
        // A line rate with the top bit of the 19-bit rates set (2^18 Mb/s
        // and up, 400 Gb/s NICs), and a first-CNP rate that keeps it
        // (0) or is as high: the flows start there, so every carrier of a
        // rate uses its top bit (a planted delay line of `Rc` one bit
        // short survived 500,000 cycles of line rates up to 40 Gb/s).
        if self.rng.chance(85) {
            let lr = self.rng.range(1 << 18, (1 << 19) - 1);
            w.push((3, lr));
            let first = if self.rng.chance(128) {
                0
            } else {
                self.rng.range(1 << 18, lr)
            };
            w.push((16, first));
        }
        w.reverse();
        self.session = w;
    }

    /// After a write to an address that forgets every flow, the next such
    /// write waits the clearing and as long again with traffic.
    fn note_forget(&mut self, addr: u32) {
        if FORGETTING.contains(&addr) {
            let busy = self.shape.clear_cycles() as u64;
            self.forget_ok_in = 2 * busy + self.rng.upto(20_000) as u64;
        }
    }
}

impl Stimulus<RpBlock> for RpStimulus {
    fn new(config: &RpConfig, seed: u64) -> RpStimulus {
        let mut rng = Rng::new(seed);
        let flow_mask = config.shape.flows() - 1;
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = RpStimulus {
            rng,
            shape: config.shape,
            flow_mask,
            hot,
            reset_in: 0,
            reset_left: 2,
            cfg_in: 3_000,
            writes_left: 0,
            edge_writes: false,
            load: 200,
            cnp: 24,
            phase_in: 20_000,
            forget_ok_in: 0,
            hold_reset: 0,
            resets: 0,
            session: vec![],
        };
        s.reset_left += s.rng.upto(2);
        s.reset_in = s
            .reset_gap()
            .max(config.shape.clear_cycles() as u64 + 20_000);
        s
    }

    #[inline]
    fn next_into(&mut self, g: &Rp, i: &mut RpIn) {
        // Reset: mid-traffic, held one to four cycles.
        if self.reset_left == 0 {
            self.reset_in = self.reset_in.saturating_sub(1);
            // Half of the resets wait (up to 500 cycles) for rate updates
            // due in the next three cycles, which the reset must cut: the
            // output stage is cut by the kill in its own cycle and by its
            // registered copy in the next (docs/rp.md).
            if self.reset_in == 0
                && self.hold_reset < 500
                && !outputs_due_soon(g)
                && self.resets % 2 == 1
            {
                self.hold_reset += 1;
                self.reset_in = 1;
            }
            if self.reset_in == 0 {
                self.hold_reset = 0;
                self.reset_left = 1 + if self.rng.chance(96) {
                    self.rng.upto(3)
                } else {
                    0
                };
            }
        }
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
            if self.reset_left == 0 {
                self.reset_in = self.reset_gap();
                // Three mid-run resets in four are followed by a
                // reconfiguration (`plan_session`).
                self.session.clear();
                if self.resets > 0 && self.rng.chance(192) {
                    self.plan_session();
                }
                self.resets += 1;
            }
        }
        self.forget_ok_in = self.forget_ok_in.saturating_sub(1);
        // Phases of traffic: the event load and the CNP share.
        self.phase_in = self.phase_in.saturating_sub(1);
        if self.phase_in == 0 {
            self.phase_in = 2_000 + self.rng.upto(30_000);
            self.load = self.rng.pick(&[64, 160, 230, 256]);
            self.cnp = self.rng.pick(&[2, 8, 24, 64, 160]);
        }
        // Register writes, in runs of one to three; some as the clearing
        // ends, when no visit is in flight and the engine takes them at
        // once (the round robin's successor, computed a cycle ahead, must
        // see a new flows_in_use).
        if self.writes_left == 0 && g.busy_left() == 1 && self.rng.chance(160) {
            self.writes_left = 1 + self.rng.upto(2);
            self.edge_writes = true;
        }
        if self.writes_left == 0 {
            self.edge_writes = false;
            self.cfg_in = self.cfg_in.saturating_sub(1);
            if self.cfg_in == 0 {
                self.writes_left = 1 + self.rng.upto(2);
                self.cfg_in = 500 + self.rng.upto(8_000);
            }
        }
        let session = if i.rst { None } else { self.session.pop() };
        if let Some((addr, data)) = session {
            i.cfg_valid = true;
            i.cfg_addr = addr;
            i.cfg_data = data;
        } else if self.writes_left > 0 {
            self.writes_left -= 1;
            self.write(g, i);
        }
        if !self.rng.chance(self.load) {
            return;
        }
        i.evt_valid = true;
        i.evt_kind = if self.rng.chance(self.cnp) {
            kind::CNP
        } else {
            kind::BYTES
        };
        i.evt_bytes = if self.rng.chance(160) {
            self.rng.range(40_000, 65_535)
        } else {
            self.rng.upto(65_535)
        };
        i.evt_flow = match self.rng.upto(15) {
            0..=6 => self.hot[self.rng.upto(3) as usize],
            // The flow the engine is about to visit.
            7..=8 => g.next_candidate().unwrap_or(0),
            // A flow visited a few cycles ago.
            9..=10 => match g.last_visit() {
                Some((_, f, _)) => f,
                None => self.random_flow(),
            },
            _ => self.random_flow(),
        };
    }
}

// ---- the params file ---------------------------------------------------------

/// RP's table: `[rp]` with the sizes and `[rp.reset]` with the registers.
#[derive(Debug, Default, Deserialize)]
struct RpFile {
    rp: Option<RpTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RpTable {
    flow_bits: Option<u32>,
    stamp_bits: Option<u32>,
    fifo_bits: Option<u32>,
    reset: Option<RpReset>,
}

/// Every register by its name in `REGISTERS` (`clamp` as its two flags);
/// `profile` by name picks that profile's defaults for the others.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RpReset {
    profile: Option<String>,
    tick_cycles: Option<u32>,
    flows_in_use: Option<u32>,
    line_rate: Option<u32>,
    r_min: Option<u32>,
    r_ai: Option<u32>,
    r_hai: Option<u32>,
    g: Option<u32>,
    alpha_init: Option<u32>,
    alpha_period: Option<u32>,
    dec_shift: Option<u32>,
    t_inc: Option<u32>,
    byte_counter: Option<u32>,
    f: Option<u32>,
    gd: Option<u32>,
    max_dec: Option<u32>,
    first_cnp_rate: Option<u32>,
    clamp_tgt_rate: Option<bool>,
    clamp_after_time_inc: Option<bool>,
}

/// Parses and validates RP's table of params text; `path` names it.
pub fn parse_config(text: &str, path: &str) -> Result<RpConfig, ParamsError> {
    let file: RpFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.rp.unwrap_or_default();
    let defaults = RpShape::default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = RpShape {
        flow_bits: t.flow_bits.unwrap_or(defaults.flow_bits),
        stamp_bits: t.stamp_bits.unwrap_or(defaults.stamp_bits),
        fifo_bits: t.fifo_bits.unwrap_or(defaults.fifo_bits),
        steps: RTL_STEPS,
    };
    shape.validate_rtl().map_err(perr)?;
    let r = t.reset.unwrap_or_default();
    let base = RpParams::reset_for(&shape);
    let lr = r.line_rate.unwrap_or(base.line_rate) as f64;
    let tick = r.tick_cycles.unwrap_or(base.tick_cycles);
    let u = r.flows_in_use.unwrap_or(base.flows_in_use);
    let mut p = match r.profile.as_deref() {
        None | Some("paper") => RpParams::paper(lr, tick, u),
        Some("nvidia") => RpParams::nvidia(lr, tick, u),
        Some("ns3") => RpParams::ns3(lr, tick, u),
        Some(other) => {
            return Err(perr(ccrtl_golden::ParamError::new(
                "profile",
                format!("`{other}` is not one of paper, nvidia, ns3"),
            )))
        }
    };
    macro_rules! set {
        ($($f:ident),*) => { $( if let Some(v) = r.$f { p.$f = v; } )* };
    }
    set!(
        r_min,
        r_ai,
        r_hai,
        g,
        alpha_init,
        alpha_period,
        dec_shift,
        t_inc,
        byte_counter,
        f,
        gd,
        max_dec,
        first_cnp_rate,
        clamp_tgt_rate,
        clamp_after_time_inc
    );
    let config = RpConfig { shape, reset: p };
    config.validate().map_err(perr)?;
    Ok(config)
}
