//! DCTCP_RX in the generic machinery: ports, value encoding, random
//! stimulus and the corner-case points a run must hit.
//!
//! The stimulus is closed-loop: it reads the golden model's flow states
//! (CE bit, packets pending) and the flows of the last eight events, so
//! that it can aim. Traffic comes from a hot set of four flows (the first
//! and the last flow among them, the ends of the clearing), from a flow of
//! one of the last eight events (every forwarding distance, 1 to 8 cycles),
//! and from random flows. A packet keeps its flow's CE bit most of the time
//! (groups grow to `m`) and flips it now and then, more often when packets
//! are pending; CE moods change the flip rate. Flushes come one event in
//! twelve, also of flows with nothing pending. The `m` register is loaded
//! now and then, in runs of consecutive cycles too, with 0, 1, 15 or any
//! value, and lowered while packets are pending (a group left above `m`,
//! and both ACK slots in one cycle). The block is reset mid-traffic, in the
//! clearing that follows a reset or one to three clearing periods later,
//! held one to four cycles, with events and loads in the reset cycles;
//! events keep coming while the table is cleared (refused), and the first
//! events after a clearing go to the first and the last flow.
//!
//! Payloads of streams whose valid is low (and `s_evt_ce` of a flush) are
//! randomised by the lockstep machinery or here, not held at 0.

use ccrtl_golden::dctcp_rx::{
    DctcpRx, DctcpRxConfig, DctcpRxIn, DctcpRxOut, DctcpRxParams, DctcpRxShape, Rule, LATENCY,
    M_BITS, SUPPORTED_FLOW_BITS,
};
use serde::Deserialize;

use crate::block::{Block, Coverage, Front, FrontPoints, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct DctcpRxBlock;

impl Block for DctcpRxBlock {
    const NAME: &'static str = "dctcp_rx";
    type Config = DctcpRxConfig;
    type In = DctcpRxIn;
    type Out = DctcpRxOut;
    type Golden = DctcpRx;
    type Stimulus = DctcpRxStimulus;

    fn ports(c: &DctcpRxConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::dctcp_rx::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &DctcpRxIn, v: &mut [u128]) {
        encode_in(i, v)
    }

    #[inline]
    fn decode_in(v: &[u128]) -> DctcpRxIn {
        decode_in(v)
    }

    #[inline]
    fn encode_out(o: &DctcpRxOut, v: &mut [u128]) {
        encode_out(o, v)
    }

    fn golden(c: &DctcpRxConfig) -> DctcpRx {
        DctcpRx::new(*c).expect("DCTCP_RX configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut DctcpRx, i: &DctcpRxIn) -> DctcpRxOut {
        g.step(i)
    }

    fn verilog(c: &DctcpRxConfig) -> String {
        ccrtl_hdl::dctcp_rx::verilog(c)
            .expect("DCTCP_RX configuration must be validated before use")
    }

    fn hdl_sim(
        c: &DctcpRxConfig,
    ) -> Box<dyn ccrtl_hdl::sim::CycleSim<DctcpRxIn, DctcpRxOut>> {
        ccrtl_hdl::dctcp_rx::sim(c).expect("DCTCP_RX configuration must be validated before use")
    }

    fn default_config() -> DctcpRxConfig {
        DctcpRxConfig::default()
    }

    /// 256 flows (a 256-cycle clearing), reset `m` 3.
    const SHORT_PARAMS: &'static str = "[dctcp_rx]\nflow_bits = 8\n[dctcp_rx.reset]\nm = 3\n";

    fn parse_config(text: &str, path: &str) -> Result<DctcpRxConfig, ParamsError> {
        parse_config(text, path, Rule::Dctcp)
    }

    fn menu() -> Vec<DctcpRxConfig> {
        menu()
    }

    fn random_reset(c: &DctcpRxConfig, r: &mut Rng) -> DctcpRxConfig {
        random_reset(c, r)
    }

    fn describe(c: &DctcpRxConfig) -> String {
        describe(c)
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &DctcpRx, prev: &DctcpRxIn, i: &DctcpRxIn, cov: &mut Coverage) {
        cover(g, prev, i, cov)
    }
}

/// The input ports' values, in port order.
#[inline]
pub fn encode_in(i: &DctcpRxIn, v: &mut [u128]) {
    v[0] = i.rst as u128;
    v[1] = i.evt_valid as u128;
    v[2] = i.evt_flow as u128;
    v[3] = i.evt_flush as u128;
    v[4] = i.evt_ce as u128;
    v[5] = i.cfg_valid as u128;
    v[6] = i.cfg_m as u128;
}

/// The inputs from the input ports' values.
#[inline]
pub fn decode_in(v: &[u128]) -> DctcpRxIn {
    // Values were checked against the port widths by the caller.
    DctcpRxIn {
        rst: v[0] != 0,
        evt_valid: v[1] != 0,
        evt_flow: v[2] as u32,
        evt_flush: v[3] != 0,
        evt_ce: v[4] != 0,
        cfg_valid: v[5] != 0,
        cfg_m: v[6] as u32,
    }
}

/// The output ports' values, in port order.
#[inline]
pub fn encode_out(o: &DctcpRxOut, v: &mut [u128]) {
    v[0] = o.evt_ready as u128;
    v[1] = o.flip_valid as u128;
    v[2] = o.flip_flow as u128;
    v[3] = o.flip_count as u128;
    v[4] = o.flip_ece as u128;
    v[5] = o.ack_valid as u128;
    v[6] = o.ack_flow as u128;
    v[7] = o.ack_count as u128;
    v[8] = o.ack_ece as u128;
}

/// Every shape of the menu, with the default reset value.
pub fn menu() -> Vec<DctcpRxConfig> {
    SUPPORTED_FLOW_BITS
        .iter()
        .map(|&flow_bits| DctcpRxConfig {
            shape: DctcpRxShape { flow_bits },
            reset: DctcpRxParams::default(),
        })
        .collect()
}

/// `c` with a random reset value of `m`.
pub fn random_reset(c: &DctcpRxConfig, r: &mut Rng) -> DctcpRxConfig {
    DctcpRxConfig {
        shape: c.shape,
        reset: DctcpRxParams { m: random_m(r) },
    }
}

/// The shape and the reset value, on one line.
pub fn describe(c: &DctcpRxConfig) -> String {
    format!("flow_bits={} reset: m={}", c.shape.flow_bits, c.reset.m)
}

/// The corner-case points the cycle about to run hits (both rules: with
/// LDCP's the flow's CE bit is always 0, so a CE packet is a "CE change").
#[inline]
pub fn cover(g: &DctcpRx, prev: &DctcpRxIn, i: &DctcpRxIn, cov: &mut Coverage) {
    let front = |x: &DctcpRxIn| Front {
        rst: x.rst,
        event: x.evt_valid,
        cfg: x.cfg_valid,
        cfg_unused: false,
    };
    if !FRONT.cover(cov, g.ready(), front(prev), front(i)) {
        return;
    }
    if let Some(d) = g.since_event(i.evt_flow) {
        cov.hit(SINCE_1 + d - 1);
    }
    let st = g.flow(i.evt_flow);
    let m = g.m();
    let m_eff = m.max(1);
    if i.evt_flush {
        cov.hit(if st.pending > 0 {
            FLUSH_PENDING
        } else {
            FLUSH_NOTHING
        });
        return;
    }
    if m == 0 {
        cov.hit(M_ZERO);
    }
    if i.evt_ce == st.ce {
        if st.pending >= m_eff {
            cov.hit(GROUP_ABOVE_M);
        }
        if st.pending + 1 >= m_eff {
            cov.hit(GROUP_ACKED);
            if st.pending + 1 == (1 << M_BITS) - 1 {
                cov.hit(LARGEST_GROUP);
            }
        } else {
            cov.hit(GROUP_GROWS);
        }
    } else {
        cov.hit(if st.pending > 0 {
            FLIP_PENDING
        } else {
            FLIP_NOTHING
        });
        if st.pending > 0 && m_eff == 1 {
            cov.hit(BOTH_SLOTS);
        }
        if i.evt_ce {
            cov.hit(FLIP_TO_CE);
        } else {
            cov.hit(FLIP_TO_NOT_CE);
        }
    }
}

/// The coverage points of both receivers.
pub const COVER: &[&str] = &[
    "packet joins its group (no ACK)",
    "packet completes its group (ACK of P + 1 >= max(m, 1) packets)",
    "packet completes a group of 15 (the largest count)",
    "packet of a group left at or above max(m, 1) by a lower m",
    "CE change with packets pending (flip ACK)",
    "CE change with nothing pending",
    "CE change with packets pending and max(m, 1) = 1 (both slots in one cycle)",
    "CE change to CE",
    "CE change to not CE",
    "flush with packets pending",
    "flush with nothing pending",
    "packet with m = 0",
    "event 1 cycle after its flow's last event",
    "event 2 cycles after its flow's last event",
    "event 3 cycles after its flow's last event",
    "event 4 cycles after its flow's last event",
    "event 5 cycles after its flow's last event",
    "event 6 cycles after its flow's last event",
    "event 7 cycles after its flow's last event",
    "event 8 cycles after its flow's last event",
    "event refused while the table is cleared",
    "event in the cycle after a reset (refused)",
    "reset mid-traffic",
    "reset during the clearing",
    "reset held for several cycles",
    "event in a reset cycle",
    "m load in a reset cycle",
    "m loads in consecutive cycles",
    "m load with an event in the same cycle",
];
const GROUP_GROWS: usize = 0;
const GROUP_ACKED: usize = 1;
const LARGEST_GROUP: usize = 2;
const GROUP_ABOVE_M: usize = 3;
const FLIP_PENDING: usize = 4;
const FLIP_NOTHING: usize = 5;
const BOTH_SLOTS: usize = 6;
const FLIP_TO_CE: usize = 7;
/// Unreachable with LDCP's rule (its flows' CE bit is always 0).
pub const FLIP_TO_NOT_CE: usize = 8;
const FLUSH_PENDING: usize = 9;
const FLUSH_NOTHING: usize = 10;
const M_ZERO: usize = 11;
const SINCE_1: usize = 12;
const REFUSED_WHILE_CLEARING: usize = 20;
const RIGHT_AFTER_RESET: usize = 21;
const RESET_MID_RUN: usize = 22;
const RESET_WHILE_CLEARING: usize = 23;
const RESET_HELD: usize = 24;
const EVENT_IN_RESET: usize = 25;
const CFG_IN_RESET: usize = 26;
const CFG_BACK_TO_BACK: usize = 27;
const CFG_WITH_EVENT: usize = 28;

/// The front-end points ([`FrontPoints`]).
const FRONT: FrontPoints = FrontPoints {
    reset_mid_run: RESET_MID_RUN,
    reset_while_clearing: RESET_WHILE_CLEARING,
    reset_held: RESET_HELD,
    event_in_reset: EVENT_IN_RESET,
    cfg_in_reset: CFG_IN_RESET,
    cfg_back_to_back: CFG_BACK_TO_BACK,
    cfg_with_event: CFG_WITH_EVENT,
    cfg_ignored: None,
    refused_while_clearing: REFUSED_WHILE_CLEARING,
    right_after_reset: RIGHT_AFTER_RESET,
};

/// A random `m`, extreme values often.
pub fn random_m(r: &mut Rng) -> u32 {
    match r.upto(7) {
        0 => 0,
        1 => 1,
        2 => (1 << M_BITS) - 1,
        3 => 2,
        _ => r.upto((1 << M_BITS) - 1),
    }
}

/// Random valid DCTCP_RX stimulus (see the module comment).
pub struct DctcpRxStimulus {
    rng: Rng,
    flows: u32,
    flow_mask: u32,
    /// Flows traffic returns to all the time.
    hot: [u32; 4],
    /// Cycles to the next mid-traffic reset.
    reset_in: u64,
    /// Reset cycles still to come in the current reset.
    reset_left: u32,
    /// Resets so far.
    resets: u64,
    /// Cycles to the next `m` load.
    cfg_in: u32,
    /// Loads still to come in a run of consecutive loads.
    loads_left: u32,
    /// Share of cycles with an event, in 64ths (changes now and then).
    load_64: u32,
    /// Chance (in 256ths) that a packet flips its flow's CE bit.
    flip_256: u32,
    /// Flows to send an event to, one a cycle (after a clearing).
    revisit: Vec<u32>,
    /// Cycles since the last reset cycle, counting the cycle being made
    /// (1 in a reset cycle; the first event is accepted at `F + 2`).
    since_reset: u64,
    /// The last cycle made was a reset cycle: an event comes now.
    after_reset: bool,
}

impl DctcpRxStimulus {
    /// Cycles from the end of a reset to the next one: in the clearing
    /// that follows (one time in four), else one to three clearing periods
    /// and a few thousand cycles of traffic.
    fn reset_gap(&mut self) -> u64 {
        let f = self.flows as u64;
        self.resets += 1;
        if self.resets % 4 == 1 {
            self.rng.upto(self.flows) as u64 + 1
        } else {
            f + 2_000 + self.rng.next_u64() % (2 * f + 20_000)
        }
    }

    fn random_flow(&mut self) -> u32 {
        self.rng.next_u32() & self.flow_mask
    }
}

/// Both receivers' stimulus (their inputs, golden shell and configuration
/// are the same).
impl<B> Stimulus<B> for DctcpRxStimulus
where
    B: Block<Config = DctcpRxConfig, In = DctcpRxIn, Golden = DctcpRx>,
{
    fn new(config: &DctcpRxConfig, seed: u64) -> DctcpRxStimulus {
        let mut rng = Rng::new(seed);
        let flows = config.shape.flows();
        let flow_mask = flows - 1;
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = DctcpRxStimulus {
            rng,
            flows,
            flow_mask,
            hot,
            reset_in: 0,
            reset_left: 0,
            resets: 0,
            cfg_in: 50,
            loads_left: 0,
            load_64: 48,
            flip_256: 24,
            revisit: Vec::new(),
            since_reset: 0,
            after_reset: false,
        };
        // The run starts with a reset held for two to four cycles.
        s.reset_left = 2 + s.rng.upto(2);
        s.reset_in = flows as u64 + 2_000 + s.rng.next_u64() % (2 * flows as u64 + 20_000);
        s
    }

    #[inline]
    fn next_into(&mut self, g: &DctcpRx, i: &mut DctcpRxIn) {
        // Reset: mid-traffic, held one to four cycles.
        if self.reset_left == 0 {
            self.reset_in = self.reset_in.saturating_sub(1);
            if self.reset_in == 0 {
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
            self.since_reset = 0;
            self.revisit.clear();
            if self.reset_left == 0 && self.reset_in == 0 {
                self.reset_in = self.reset_gap();
            }
        }
        self.since_reset += 1;
        // The first events after a clearing go to the last and the first
        // flow, the ends of its sweep (a word it missed holds power-up
        // garbage).
        if self.since_reset == self.flows as u64 + 2 {
            self.revisit.extend([0, self.flow_mask, self.flow_mask, 0]);
        }
        // m loads.
        if self.loads_left > 0 {
            self.loads_left -= 1;
            i.cfg_valid = true;
        } else {
            self.cfg_in = self.cfg_in.saturating_sub(1);
            if self.cfg_in == 0 {
                i.cfg_valid = true;
                self.cfg_in = 10 + self.rng.upto(3_000);
                if self.rng.chance(32) {
                    self.loads_left = self.rng.range(1, 3);
                }
            }
        }
        // Loads in reset cycles (to be ignored): at random, and in every
        // cycle of one reset in three.
        if i.rst && (self.resets % 3 == 0 || self.rng.chance(96)) {
            i.cfg_valid = true;
        }
        i.cfg_m = if i.cfg_valid {
            // One load in four is 0 or 1 while a hot flow has packets
            // pending: its next CE change needs both slots.
            if self.hot.iter().any(|&f| g.flow(f).pending > 1) && self.rng.chance(64) {
                self.rng.upto(1)
            } else {
                random_m(&mut self.rng)
            }
        } else {
            self.rng.upto((1 << M_BITS) - 1)
        };
        // The event load and the CE mood change about once in 8,192 cycles.
        if self.rng.upto(8191) == 0 {
            self.load_64 = self.rng.pick(&[8, 32, 48, 60, 64]);
            self.flip_256 = self.rng.pick(&[4, 24, 64, 128]);
        }
        // Events (always one in the cycle after a reset, refused).
        let after_reset = std::mem::replace(&mut self.after_reset, i.rst);
        i.evt_flow = self.random_flow();
        i.evt_ce = self.rng.chance(128);
        i.evt_flush = self.rng.chance(128);
        let revisit = if i.rst { None } else { self.revisit.pop() };
        if revisit.is_none() && self.rng.upto(63) >= self.load_64 && !after_reset {
            return;
        }
        i.evt_valid = true;
        i.evt_flow = match (revisit, self.rng.upto(15)) {
            (Some(f), _) => f,
            (None, 0..=8) => self.hot[self.rng.upto(3) as usize],
            // The flow of one of the last eight events: every forwarding
            // distance.
            (None, 9..=11) => {
                let d = self.rng.range(1, LATENCY as u32);
                let any = self.random_flow();
                let hit = self
                    .hot
                    .iter()
                    .copied()
                    .chain(std::iter::once(any))
                    .find(|&f| g.since_event(f) == Some(d as usize));
                hit.unwrap_or(self.hot[self.rng.upto(3) as usize])
            }
            // Random flows, from a sixteenth of the table one time in two.
            _ => {
                let f = self.random_flow();
                if self.rng.chance(128) {
                    f & (self.flow_mask >> 4)
                } else {
                    f
                }
            }
        };
        let st = g.flow(i.evt_flow);
        i.evt_flush = self.rng.upto(11) == 0;
        // CE: keep the flow's bit, or flip it (more often with packets
        // pending, so flip ACKs are common).
        let flip = if st.pending > 0 {
            self.rng.chance(self.flip_256 + 16)
        } else {
            self.rng.chance(self.flip_256)
        };
        if !i.evt_flush {
            i.evt_ce = st.ce ^ flip;
        }
    }
}

// ---- the params file ---------------------------------------------------------

/// The receivers' tables: `[dctcp_rx]` and `[ldcp_rx]`, each with
/// `flow_bits` and a `reset` table.
#[derive(Debug, Default, Deserialize)]
struct DctcpRxFile {
    dctcp_rx: Option<DctcpRxTable>,
    ldcp_rx: Option<DctcpRxTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DctcpRxTable {
    flow_bits: Option<u32>,
    reset: Option<DctcpRxReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DctcpRxReset {
    m: Option<u32>,
}

/// Parses and validates the table of the receiver of `rule` (`[dctcp_rx]`
/// or `[ldcp_rx]`, the same fields) of params text; `path` names it.
pub fn parse_config(text: &str, path: &str, rule: Rule) -> Result<DctcpRxConfig, ParamsError> {
    let file: DctcpRxFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = match rule {
        Rule::Dctcp => file.dctcp_rx,
        Rule::Ldcp => file.ldcp_rx,
    }
    .unwrap_or_default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = DctcpRxShape {
        flow_bits: t.flow_bits.unwrap_or(DctcpRxShape::default().flow_bits),
    };
    shape.validate().map_err(perr)?;
    let r = t.reset.unwrap_or_default();
    let config = DctcpRxConfig {
        shape,
        reset: DctcpRxParams {
            m: r.m.unwrap_or(DctcpRxParams::default().m),
        },
    };
    config.validate().map_err(perr)?;
    Ok(config)
}
