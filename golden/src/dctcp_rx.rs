//! DCTCP_RX — the DCTCP receiver: which packets each ACK covers, and its ECE.
//!
//! Implements `../shared/ALGORITHMS.md` §"DCTCP" ("Receiver"), which restates
//! seed 000 §3.2: per flow one state bit `DCTCP.CE` (false after reset); a
//! packet whose CE codepoint differs from the bit makes the receiver ACK every
//! packet not yet acknowledged at once and flip the bit; every ACK carries
//! ECE equal to the bit; delayed ACKs are allowed otherwise. The block decides
//! the ACKs (how many packets each covers, its ECE); the transport builds
//! them. The contract is `docs/dctcp_rx.md`.
//!
//! # The rule, on the clock-cycle count
//! An event is *accepted* in cycle `n` when `evt_valid` and `evt_ready` are
//! high and `rst` is low. Each flow `f` has a state bit `CE(f)` and a count
//! `P(f)` of packets received and not yet ACKed, both 0 after a reset. Let
//! `m' = max(m, 1)`, `m` being the `m` register in force in cycle `n`. An
//! accepted event of flow `f` is either a data packet (`evt_flush` low, with
//! its CE bit `evt_ce`) or a flush (`evt_flush` high, `evt_ce` ignored):
//! - a packet with `ce == CE(f)` joins the pending group: `P += 1`; if then
//!   `P >= m'`, an ACK of `P` packets with ECE = `CE(f)` goes out on the
//!   *ack* slot and `P = 0`;
//! - a packet with `ce != CE(f)`: if `P > 0`, an ACK of the `P` packets
//!   before it with ECE = the old `CE(f)` goes out on the *flip* slot (the
//!   seed's immediate ACK); then `CE(f) = ce` and the packet starts a new
//!   group, `P = 1`; if `1 >= m'` (`m <= 1`) it is ACKed at once on the ack
//!   slot (ECE = the new `CE(f)`) and `P = 0`;
//! - a flush (the transport's delayed-ACK timer for `f` fired): if `P > 0`,
//!   an ACK of the `P` packets with ECE = `CE(f)` goes out on the ack slot
//!   and `P = 0`; if `P = 0` nothing happens (no ACK, no change).
//!
//! `m = 0` acts as `m = 1` (every packet ACKed). Both slots are valid in one
//! cycle only for a CE change with `m' = 1` and packets pending, which needs
//! `m` to have been lowered while they were pending; the flip ACK then covers
//! the earlier packets and goes first. `P <= 2^M_BITS - 2` always (it stays
//! below the `m'` in force when it last grew), so an ACK covers at most
//! `2^M_BITS - 1` packets and [`COUNT_BITS`] = 4 hold every count. Every
//! packet accepted since the last reset is covered by exactly one ACK, at
//! the latest after a flush of its flow, and the ECE of an ACK equals the CE
//! of every packet it covers (`tests` check both over long random traces).
//! Only the low `flow_bits` of `evt_flow` and the low [`M_BITS`] of `cfg_m`
//! are ports.
//!
//! # Timing (the interface contract the RTL must meet)
//! - One event per cycle (II = 1), including back-to-back events of one
//!   flow, which see each other's updates exactly.
//! - The ACKs of an event accepted in cycle `n` are on the outputs during
//!   cycle `n + LATENCY` (`n + 8`). The outputs are registered (they depend
//!   on state only); every field of a slot is 0 when its valid is low.
//! - A load (`cfg_valid`) in cycle `n` sets `m` from cycle `n + 1`: an event
//!   accepted in cycle `n` uses the old value.
//! - `rst` in cycle `n` drops every ACK in flight (no ACK of an event
//!   accepted before `n` comes out from `n + 1` on), forgets every flow
//!   (`CE = 0`, `P = 0`: pending packets are never ACKed by the block) and
//!   restores `m` to its reset value; events and loads in a reset cycle are
//!   ignored. The RTL then clears its flow table one flow per cycle:
//!   `evt_ready` is low in cycles `n + 1 ..= n + F` (`F = 2^flow_bits`) and
//!   high from `n + F + 1`. A reset during the clearing starts it again.
//! - The RTL's outputs are undefined before its first reset. The model
//!   starts as if a reset had been applied in the cycle before its first
//!   step: `evt_ready` is low during its first `F` steps.

use crate::error::ParamError;
pub use crate::flow_shape::{FlowShape, SUPPORTED_FLOW_BITS};
use crate::mask;

/// Cycles from an accepted event to its ACKs on the outputs.
pub const LATENCY: usize = 8;
/// Width of the `m` register (delayed-ACK count, `0 ..= 15`).
pub const M_BITS: u32 = 4;
/// Width of an ACK's packet count (`1 ..= 2^M_BITS - 1`).
pub const COUNT_BITS: u32 = M_BITS;

/// Generation-time (structural) sizes: the flow count, the shape every
/// per-flow block shares ([`crate::flow_shape`], where the menu
/// `flow_shape_menu!` is written once).
pub type DctcpRxShape = FlowShape;

/// Runtime parameters, held in registers and loadable while the block runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DctcpRxParams {
    /// Delayed-ACK count: an ACK at the latest every `max(m, 1)` packets of
    /// one CE value (0 acts as 1).
    pub m: u32,
}

impl Default for DctcpRxParams {
    /// `m = 2`: an ACK at least every second segment (RFC 5681 §4.2).
    fn default() -> Self {
        DctcpRxParams { m: 2 }
    }
}

impl DctcpRxParams {
    /// The register's reset value must fit [`M_BITS`]. Every value a load can
    /// carry (`0 ..= 15`) is valid: there is no out-of-range load.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.m > mask(M_BITS) {
            return Err(ParamError::new(
                "m",
                format!(
                    "{} does not fit M_BITS = {M_BITS} (max {})",
                    self.m,
                    mask(M_BITS)
                ),
            ));
        }
        Ok(())
    }
}

/// Generation-time configuration: sizes, and the reset value of `m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DctcpRxConfig {
    pub shape: DctcpRxShape,
    pub reset: DctcpRxParams,
}

impl DctcpRxConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate()
    }
}

/// One ACK decided by the block: it covers the `count` oldest packets of its
/// flow not yet covered, and carries ECE = `ece`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ack {
    /// Packets covered, `1 ..= 2^COUNT_BITS - 1`.
    pub count: u32,
    pub ece: bool,
}

/// The ACKs of one event: the flip ACK (of the packets before a CE change)
/// precedes the other one when both are present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Decision {
    pub flip: Option<Ack>,
    pub ack: Option<Ack>,
}

/// The per-flow state: 1 + [`COUNT_BITS`] = 5 bits in the RTL's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlowState {
    /// `DCTCP.CE`.
    pub ce: bool,
    /// Packets received and not yet ACKed (at most `2^M_BITS - 2`).
    pub pending: u32,
}

impl FlowState {
    /// A data packet with CE bit `ce`, under the `m` register `m` (already
    /// masked to [`M_BITS`]).
    pub fn packet(&mut self, ce: bool, m: u32) -> Decision {
        let m_eff = m.max(1);
        let mut d = Decision::default();
        if ce != self.ce {
            if self.pending > 0 {
                d.flip = Some(Ack {
                    count: self.pending,
                    ece: self.ce,
                });
            }
            self.ce = ce;
            self.pending = 0;
        }
        // pending <= 2^M_BITS - 2 before, so <= 2^M_BITS - 1 here (4 bits).
        self.pending += 1;
        if self.pending >= m_eff {
            d.ack = Some(Ack {
                count: self.pending,
                ece: self.ce,
            });
            self.pending = 0;
        }
        d
    }

    /// A flush: ACK the pending packets, if any.
    pub fn flush(&mut self) -> Decision {
        let mut d = Decision::default();
        if self.pending > 0 {
            d.ack = Some(Ack {
                count: self.pending,
                ece: self.ce,
            });
            self.pending = 0;
        }
        d
    }
}

/// The per-packet rule a receiver model follows: DCTCP's (this module), or
/// LDCP's ([`crate::ldcp_rx`]). The shell around it (flow table, timing,
/// reset, clearing, ports) is the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rule {
    /// Seed 000 §3.2: CE state per flow, delayed ACKs of one CE value.
    #[default]
    Dctcp,
    /// Seed 001 §2: delayed ACKs of unmarked packets only, every CE packet
    /// ACKed at once and alone.
    Ldcp,
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DctcpRxIn {
    pub rst: bool,
    pub evt_valid: bool,
    /// Flow id (its low `flow_bits` are the port).
    pub evt_flow: u32,
    /// High: a flush of the flow's pending packets; low: a data packet.
    pub evt_flush: bool,
    /// The data packet's ECN field is CE (`11`); ignored for a flush.
    pub evt_ce: bool,
    pub cfg_valid: bool,
    /// New `m` (its low [`M_BITS`] are the port).
    pub cfg_m: u32,
}

/// Outputs during one clock cycle (registered: they depend only on state).
/// Every field of a slot is 0 when its valid is low.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DctcpRxOut {
    /// Low while the flow table is cleared after a reset.
    pub evt_ready: bool,
    /// The flip ACK of the event of [`LATENCY`] cycles ago: the packets
    /// before a CE change, ECE = the old state.
    pub flip_valid: bool,
    pub flip_flow: u32,
    pub flip_count: u32,
    pub flip_ece: bool,
    /// The other ACK of that event (delayed-ACK count reached, `m <= 1`
    /// after a change, or a flush); after the flip ACK when both are valid.
    pub ack_valid: bool,
    pub ack_flow: u32,
    pub ack_count: u32,
    pub ack_ece: bool,
}

/// The golden model of DCTCP_RX: one [`DctcpRx::step`] per clock cycle.
#[derive(Clone)]
pub struct DctcpRx {
    config: DctcpRxConfig,
    rule: Rule,
    flows: Vec<FlowState>,
    m: u32,
    busy_left: u32,
    cycle: u64,
    /// A ring: `pipe[(head + i) % LATENCY]` holds the decision (flow and
    /// ACKs) of the event of `i + 1` cycles ago.
    pipe: [(u32, Decision); LATENCY],
    /// The flows of the events accepted in the same cycles as `pipe`'s
    /// entries (`None`: no event accepted), for [`DctcpRx::since_event`].
    accepted: [Option<u32>; LATENCY],
    head: usize,
}

impl DctcpRx {
    /// A model as just after a reset (busy for its first `F` steps).
    pub fn new(config: DctcpRxConfig) -> Result<DctcpRx, ParamError> {
        DctcpRx::with_rule(config, Rule::Dctcp)
    }

    /// As [`DctcpRx::new`], following `rule` per packet.
    pub fn with_rule(config: DctcpRxConfig, rule: Rule) -> Result<DctcpRx, ParamError> {
        config.validate()?;
        Ok(DctcpRx {
            config,
            rule,
            flows: vec![FlowState::default(); config.shape.flows() as usize],
            m: config.reset.m,
            busy_left: config.shape.flows(),
            cycle: 0,
            pipe: [(0, Decision::default()); LATENCY],
            accepted: [None; LATENCY],
            head: 0,
        })
    }

    pub fn config(&self) -> &DctcpRxConfig {
        &self.config
    }

    /// The per-packet rule the model follows.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// `m` in force now (for the next step).
    #[inline]
    pub fn m(&self) -> u32 {
        self.m
    }

    /// `evt_ready` during the next step.
    #[inline]
    pub fn ready(&self) -> bool {
        self.busy_left == 0
    }

    /// Cycles of clearing still to come, `evt_ready` low in each (0 when ready).
    #[inline]
    pub fn busy_left(&self) -> u32 {
        self.busy_left
    }

    /// Steps taken (the number of the next step's cycle).
    #[inline]
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// A flow's state as the next step would see it.
    pub fn flow(&self, flow: u32) -> FlowState {
        self.flows[(flow & mask(self.config.shape.flow_bits)) as usize]
    }

    /// Cycles since the newest event of `flow` accepted in the last
    /// [`LATENCY`] cycles (1: the cycle before the next step), if any: the
    /// forwarding distance the RTL sees (stimulus and coverage read it).
    pub fn since_event(&self, flow: u32) -> Option<usize> {
        let flow = flow & mask(self.config.shape.flow_bits);
        (0..LATENCY).find(|&i| self.accepted[(self.head + i) % LATENCY] == Some(flow)).map(|i| i + 1)
    }

    /// The outputs during the next step's cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> DctcpRxOut {
        // The oldest entry: just before the head.
        let (flow, d) = self.pipe[(self.head + LATENCY - 1) % LATENCY];
        let f = d.flip.unwrap_or_default();
        let a = d.ack.unwrap_or_default();
        DctcpRxOut {
            evt_ready: self.busy_left == 0,
            flip_valid: d.flip.is_some(),
            flip_flow: if d.flip.is_some() { flow } else { 0 },
            flip_count: f.count,
            flip_ece: f.ece,
            ack_valid: d.ack.is_some(),
            ack_flow: if d.ack.is_some() { flow } else { 0 },
            ack_count: a.count,
            ack_ece: a.ece,
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    #[inline]
    pub fn step(&mut self, i: &DctcpRxIn) -> DctcpRxOut {
        let out = self.outputs();
        self.cycle += 1;
        // Shift the decision pipeline by one stage.
        self.head = (self.head + LATENCY - 1) % LATENCY;
        if i.rst {
            self.pipe = [(0, Decision::default()); LATENCY];
            self.accepted = [None; LATENCY];
            self.flows.fill(FlowState::default());
            self.m = self.config.reset.m;
            self.busy_left = self.config.shape.flows();
            return out;
        }
        let mut entry = (0, Decision::default());
        self.accepted[self.head] = None;
        if i.evt_valid && self.busy_left == 0 {
            let flow = i.evt_flow & mask(self.config.shape.flow_bits);
            let st = &mut self.flows[flow as usize];
            let d = match (i.evt_flush, self.rule) {
                (true, _) => st.flush(),
                (false, Rule::Dctcp) => st.packet(i.evt_ce, self.m),
                (false, Rule::Ldcp) => crate::ldcp_rx::packet(st, i.evt_ce, self.m),
            };
            entry = (flow, d);
            self.accepted[self.head] = Some(flow);
        }
        self.pipe[self.head] = entry;
        self.busy_left = self.busy_left.saturating_sub(1);
        if i.cfg_valid {
            self.m = i.cfg_m & mask(M_BITS);
        }
        out
    }
}

impl std::fmt::Debug for DctcpRx {
    /// The registers, without the flow table.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DctcpRx")
            .field("config", &self.config)
            .field("rule", &self.rule)
            .field("cycle", &self.cycle)
            .field("m", &self.m)
            .field("busy_left", &self.busy_left)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::xorshift;
    use std::collections::VecDeque;

    pub(crate) fn rst() -> DctcpRxIn {
        DctcpRxIn {
            rst: true,
            ..DctcpRxIn::default()
        }
    }

    /// A model of `flow_bits` with reset value `m`, reset and cleared (ready).
    pub(crate) fn cleared(flow_bits: u32, m: u32) -> DctcpRx {
        cleared_with(Rule::Dctcp, flow_bits, m)
    }

    /// As [`cleared`], following `rule`.
    pub(crate) fn cleared_with(rule: Rule, flow_bits: u32, m: u32) -> DctcpRx {
        let mut rx = DctcpRx::with_rule(
            DctcpRxConfig {
                shape: DctcpRxShape { flow_bits },
                reset: DctcpRxParams { m },
            },
            rule,
        )
        .unwrap();
        rx.step(&rst());
        while !rx.ready() {
            rx.step(&DctcpRxIn::default());
        }
        rx
    }

    pub(crate) fn pkt(flow: u32, ce: bool) -> DctcpRxIn {
        DctcpRxIn {
            evt_valid: true,
            evt_flow: flow,
            evt_ce: ce,
            ..DctcpRxIn::default()
        }
    }

    pub(crate) fn flush(flow: u32) -> DctcpRxIn {
        DctcpRxIn {
            evt_valid: true,
            evt_flow: flow,
            evt_flush: true,
            ..DctcpRxIn::default()
        }
    }

    pub(crate) fn load(mut i: DctcpRxIn, m: u32) -> DctcpRxIn {
        (i.cfg_valid, i.cfg_m) = (true, m);
        i
    }

    /// The ACKs on one output cycle as `(slot, flow, count, ece)`, slot 0 the
    /// flip ACK, after checking that idle slots are all zero.
    pub(crate) fn acks(o: &DctcpRxOut) -> Vec<(u8, u32, u32, bool)> {
        let mut v = vec![];
        if o.flip_valid {
            v.push((0, o.flip_flow, o.flip_count, o.flip_ece));
        } else {
            assert_eq!((o.flip_flow, o.flip_count, o.flip_ece), (0, 0, false));
        }
        if o.ack_valid {
            v.push((1, o.ack_flow, o.ack_count, o.ack_ece));
        } else {
            assert_eq!((o.ack_flow, o.ack_count, o.ack_ece), (0, 0, false));
        }
        v
    }

    /// Steps through `ins` and LATENCY idle cycles; returns each input
    /// cycle's ACKs, read off the outputs.
    pub(crate) fn decisions(rx: &mut DctcpRx, ins: &[DctcpRxIn]) -> Vec<Vec<(u8, u32, u32, bool)>> {
        let idle = [DctcpRxIn::default(); LATENCY];
        let outs: Vec<DctcpRxOut> = ins.iter().chain(&idle).map(|i| rx.step(i)).collect();
        outs[LATENCY..].iter().map(acks).collect()
    }

    #[test]
    fn delayed_ack_every_m_packets_of_one_ce_value() {
        for m in 0..=15u32 {
            let mut rx = cleared(4, m);
            let d = decisions(&mut rx, &vec![pkt(3, false); 40]);
            let me = m.max(1) as usize;
            for (k, d) in d.iter().enumerate() {
                let due = (k + 1) % me == 0;
                let want = if due {
                    vec![(1, 3, me as u32, false)]
                } else {
                    vec![]
                };
                assert_eq!(*d, want, "m {m}, packet {k}");
            }
            assert_eq!(rx.flow(3).pending, 40 % me as u32);
        }
    }

    #[test]
    fn a_ce_change_acks_the_pending_packets_at_once_with_the_old_ece() {
        let mut rx = cleared(4, 4);
        // 0, 0 | CE: flip ACK (2, ECE 0) | CE, CE, CE: ACK (4, ECE 1) | CE |
        // not CE: flip ACK (1, ECE 1) | flush: ACK (1, ECE 0).
        let ins = [
            pkt(5, false),
            pkt(5, false),
            pkt(5, true),
            pkt(5, true),
            pkt(5, true),
            pkt(5, true),
            pkt(5, true),
            pkt(5, false),
            flush(5),
        ];
        let d = decisions(&mut rx, &ins);
        let none: Vec<(u8, u32, u32, bool)> = vec![];
        assert_eq!(
            d,
            vec![
                none.clone(),
                none.clone(),
                vec![(0, 5, 2, false)],
                none.clone(),
                none.clone(),
                vec![(1, 5, 4, true)],
                none.clone(),
                vec![(0, 5, 1, true)],
                vec![(1, 5, 1, false)],
            ]
        );
        // A change with nothing pending sends no flip ACK: CE after the flush.
        let d = decisions(&mut rx, &[pkt(5, true), flush(5)]);
        assert_eq!(d, vec![none, vec![(1, 5, 1, true)]]);
    }

    #[test]
    fn a_flush_with_nothing_pending_does_nothing() {
        let mut rx = cleared(4, 3);
        let d = decisions(&mut rx, &[flush(2), pkt(2, true), flush(2), flush(2)]);
        assert_eq!(d[0], vec![]);
        assert_eq!(d[1], vec![]); // CE change from the reset state, nothing pending
        assert_eq!(d[2], vec![(1, 2, 1, true)]);
        assert_eq!(d[3], vec![]);
        assert_eq!(
            rx.flow(2),
            FlowState {
                ce: true,
                pending: 0
            }
        );
    }

    #[test]
    fn both_slots_in_one_cycle_when_m_drops_to_one_with_packets_pending() {
        for m in [0, 1] {
            let mut rx = cleared(4, 8);
            let ins = [
                pkt(7, false),
                pkt(7, false),
                load(pkt(7, false), m), // uses m = 8: pending 3
                pkt(7, true),           // m' = 1: flip ACK (3, 0) and ACK (1, 1)
                pkt(7, true),
            ];
            let d = decisions(&mut rx, &ins);
            assert_eq!(d[2], vec![], "m {m}");
            assert_eq!(d[3], vec![(0, 7, 3, false), (1, 7, 1, true)], "m {m}");
            assert_eq!(d[4], vec![(1, 7, 1, true)], "m {m}");
        }
    }

    #[test]
    fn lowering_m_acks_a_larger_group_at_its_next_packet() {
        let mut rx = cleared(4, 15);
        let mut ins = vec![pkt(1, true); 14]; // pending 13 after the flip
        ins.push(load(DctcpRxIn::default(), 2));
        ins.push(pkt(1, true)); // 14 pending + 1 = 15 >= 2
        let d = decisions(&mut rx, &ins);
        assert!(d[..14].iter().all(Vec::is_empty));
        assert_eq!(d[15], vec![(1, 1, 15, true)]);
        // The largest group: pending 14 (m = 15) and a flip ACK of 14.
        let mut rx = cleared(4, 15);
        let mut ins = vec![pkt(1, false); 14];
        ins.push(pkt(1, true));
        let d = decisions(&mut rx, &ins);
        assert_eq!(d[14], vec![(0, 1, 14, false)]);
    }

    #[test]
    fn latency_and_ready_after_reset() {
        let mut rx = DctcpRx::new(DctcpRxConfig {
            shape: DctcpRxShape { flow_bits: 8 },
            reset: DctcpRxParams { m: 1 },
        })
        .unwrap();
        // As if reset before the first step: not ready for F = 256 steps,
        // and events offered meanwhile are ignored.
        let outs: Vec<DctcpRxOut> = (0..300).map(|_| rx.step(&pkt(9, true))).collect();
        assert_eq!(outs.iter().take_while(|o| !o.evt_ready).count(), 256);
        assert!(outs[256..].iter().all(|o| o.evt_ready));
        // The first packet accepted is cycle 256: its ACK at 256 + LATENCY,
        // and every cycle after.
        let first = outs.iter().position(|o| o.ack_valid).unwrap();
        assert_eq!(first, 256 + LATENCY);
        assert!(outs[first..].iter().all(|o| o.ack_valid && o.ack_flow == 9));
        assert!(outs.iter().all(|o| !o.flip_valid));
    }

    #[test]
    fn back_to_back_events_of_one_flow_see_each_other() {
        // The same per-flow sequence, back to back and spread out with other
        // flows' events between, gives the same ACKs.
        let mut r = 0x5eed_1234u32;
        let mut seq = vec![];
        for _ in 0..3000 {
            r = xorshift::next(r);
            seq.push(if r % 11 == 4 {
                flush(6)
            } else {
                pkt(6, (r >> 8) % 3 == 1)
            });
        }
        for m in [1, 2, 3, 7] {
            let mut rx = cleared(4, m);
            let tight = decisions(&mut rx, &seq);
            let mut rx = cleared(4, m);
            let mut spread = vec![];
            for (k, i) in seq.iter().enumerate() {
                spread.push(*i);
                for g in 0..(k % 9) {
                    spread.push(if g % 2 == 0 {
                        pkt(g as u32 + 7, true)
                    } else {
                        DctcpRxIn::default()
                    });
                }
            }
            let d = decisions(&mut rx, &spread);
            let of6: Vec<_> = spread
                .iter()
                .zip(&d)
                .filter(|(i, _)| i.evt_flow == 6)
                .map(|(_, d)| d.clone())
                .collect();
            assert_eq!(tight, of6, "m {m}");
            assert!(tight.iter().flatten().count() > 500);
        }
    }

    #[test]
    fn m_load_takes_effect_next_cycle() {
        let mut rx = cleared(4, 3);
        let ins = [
            pkt(2, false),
            load(pkt(2, false), 1), // uses m = 3: pending 2
            pkt(2, false),          // m = 1: ACK of 3
            load(pkt(2, false), 4), // m = 1: ACK of 1
            pkt(2, false),
            pkt(2, false),
            pkt(2, false),
            pkt(2, false), // m = 4: ACK of 4
        ];
        let d = decisions(&mut rx, &ins);
        let acked: Vec<(usize, u32)> = (0..d.len())
            .flat_map(|k| d[k].iter().map(move |a| (k, a.2)))
            .collect();
        assert_eq!(acked, vec![(2, 3), (3, 1), (7, 4)]);
        assert_eq!(rx.m(), 4);
        rx.step(&load(DctcpRxIn::default(), 0x35)); // only M_BITS exist
        assert_eq!(rx.m(), 5);
    }

    #[test]
    fn reset_drops_acks_in_flight_forgets_flows_and_clears_for_f_cycles() {
        let mut rx = cleared(8, 1);
        rx.step(&load(DctcpRxIn::default(), 4));
        // Flow 1 pending 3 with CE set; flow 3 pending 1.
        for i in [pkt(1, true), pkt(1, true), pkt(1, true), pkt(3, false)] {
            rx.step(&i);
        }
        let l = LATENCY;
        // Events 0 ..= LATENCY - 1 are one ACK each (m = 1 again after the
        // reset), event LATENCY in the reset cycle is ignored.
        let mut rx2 = cleared(8, 1);
        let mut ins: Vec<DctcpRxIn> = (0..l as u32 + 4).map(|f| pkt(f + 20, false)).collect();
        ins[l].rst = true;
        let outs: Vec<DctcpRxOut> = ins
            .iter()
            .chain(&[DctcpRxIn::default(); LATENCY + 4])
            .map(|i| rx2.step(i))
            .collect();
        let shown: Vec<(usize, u32)> = (0..outs.len())
            .filter(|&k| outs[k].ack_valid)
            .map(|k| (k, outs[k].ack_flow))
            .collect();
        // Event 0's ACK shows during the reset cycle; none after it.
        assert_eq!(shown, vec![(l, 20)]);
        // The reset forgets the flows and m, and clears for F = 256 cycles.
        assert_eq!(
            rx.flow(1),
            FlowState {
                ce: true,
                pending: 3
            }
        );
        assert_eq!(rx.flow(3).pending, 1);
        rx.step(&DctcpRxIn {
            rst: true,
            ..load(pkt(1, false), 9)
        });
        assert_eq!((rx.m(), rx.busy_left()), (1, 256));
        assert_eq!(rx.flow(1), FlowState::default());
        assert_eq!(rx.flow(3), FlowState::default());
        let outs: Vec<DctcpRxOut> = (0..300).map(|_| rx.step(&flush(1))).collect();
        assert_eq!(outs.iter().take_while(|o| !o.evt_ready).count(), 256);
        // Nothing is pending after the reset: no flush ACKs anything.
        assert!(outs.iter().all(|o| !o.ack_valid && !o.flip_valid));
    }

    #[test]
    fn reset_during_clearing_restarts_it() {
        let mut rx = cleared(8, 2);
        rx.step(&rst());
        let mut low = 0;
        for _ in 0..100 {
            low += !rx.step(&DctcpRxIn::default()).evt_ready as u32;
        }
        rx.step(&rst());
        assert_eq!(rx.busy_left(), 256);
        let outs: Vec<DctcpRxOut> = (0..600).map(|_| rx.step(&pkt(3, true))).collect();
        low += outs.iter().take_while(|o| !o.evt_ready).count() as u32;
        assert_eq!(low, 100 + 256);
        assert!(outs[256..].iter().all(|o| o.evt_ready));
    }

    #[test]
    fn masked_ports_keep_only_their_low_bits() {
        let mut rx = cleared(8, 2);
        rx.step(&load(DctcpRxIn::default(), 0x12)); // m = 2
        let d = decisions(&mut rx, &[pkt(0x305, false), pkt(0x5, false)]);
        assert_eq!(d, vec![vec![], vec![(1, 5, 2, false)]]);
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        fn name<T: std::fmt::Debug>(r: Result<T, ParamError>) -> &'static str {
            r.unwrap_err().name
        }
        let mut c = DctcpRxConfig::default();
        assert_eq!((c.shape.flow_bits, c.reset.m), (12, 2));
        assert!(c.validate().is_ok());
        for bad in [0, 3, 10, 20, 32] {
            c.shape.flow_bits = bad;
            assert_eq!(name(DctcpRx::new(c)), "flow_bits");
        }
        c.shape.flow_bits = 4;
        c.reset.m = 16;
        assert_eq!(name(c.validate()), "m");
        c.reset.m = 15;
        assert!(DctcpRx::new(c).is_ok());
        for f in SUPPORTED_FLOW_BITS {
            let c = DctcpRxConfig {
                shape: DctcpRxShape { flow_bits: *f },
                ..c
            };
            assert!(c.validate().is_ok());
        }
    }

    /// A random input stream: hot flows, CE in runs, flushes, loads of `m`
    /// and (if `resets`) resets.
    pub(crate) fn random_inputs(seed: u32, len: usize, resets: bool) -> Vec<DctcpRxIn> {
        let mut r = seed;
        let mut ce_run = [false; 16];
        (0..len)
            .map(|n| {
                r = xorshift::next(r);
                let flow = if r & 0x100 != 0 {
                    (r >> 9) % 3
                } else {
                    (r >> 9) % 16
                };
                if (r >> 12) % 5 == 1 {
                    ce_run[flow as usize] ^= true; // CE changes in runs
                }
                let ce = ce_run[flow as usize] ^ ((r >> 15) % 13 == 1);
                DctcpRxIn {
                    rst: resets && (n == 3 || r % 4000 == 7),
                    evt_valid: r & 7 != 0,
                    evt_flow: flow | (r & 0xf000_0000), // high bits: not ports
                    evt_flush: (r >> 16) % 9 == 1,
                    evt_ce: ce,
                    cfg_valid: (r >> 20) % 150 == 1,
                    cfg_m: (r >> 24) % 20, // 16..19 keep their low 4 bits
                }
            })
            .collect()
    }

    /// The packets ACKed, each time with its CE bit, read from the outputs
    /// alone: an ACK of `c` packets of flow `f` covers the `c` oldest
    /// packets of `f` not covered yet (at `n + LATENCY` for the event of `n`).
    #[test]
    fn every_packet_is_covered_by_exactly_one_ack_whose_ece_is_its_ce() {
        for (seed, m) in [(0x1234_5678u32, 2u32), (0xdead_beef, 1), (0x0bad_cafe, 5)] {
            let mut rx = cleared(4, m);
            let mut ins = random_inputs(seed, 200_000, false);
            // Then flush every flow: every packet must be covered.
            ins.extend((0..16).map(flush));
            ins.extend([DctcpRxIn::default(); LATENCY]);
            let mut uncovered: Vec<VecDeque<(usize, bool)>> = vec![VecDeque::new(); 16];
            let mut covered = vec![0u32; ins.len()]; // ACKs covering packet n
            let (mut packets, mut flips, mut both) = (0usize, 0usize, 0usize);
            for (n, i) in ins.iter().enumerate() {
                let o = rx.step(i);
                // The outputs of this cycle belong to the event of n - LATENCY.
                let a = acks(&o);
                flips += a.iter().filter(|a| a.0 == 0).count();
                both += (a.len() == 2) as usize;
                for (slot, f, c, ece) in a {
                    assert!(n >= LATENCY && ins[n - LATENCY].evt_valid);
                    assert_eq!(f, ins[n - LATENCY].evt_flow & 0xf, "cycle {n} slot {slot}");
                    let q = &mut uncovered[f as usize];
                    assert!(
                        c >= 1 && c as usize <= q.len(),
                        "cycle {n}: {c} > {}",
                        q.len()
                    );
                    for _ in 0..c {
                        let (p, ce) = q.pop_front().unwrap();
                        assert_eq!(ce, ece, "cycle {n}: packet {p} has CE {ce}, ACK ECE {ece}");
                        covered[p] += 1;
                    }
                }
                if i.evt_valid && o.evt_ready && !i.evt_flush {
                    uncovered[(i.evt_flow & 0xf) as usize].push_back((n, i.evt_ce));
                    packets += 1;
                }
            }
            assert!(uncovered.iter().all(VecDeque::is_empty), "seed {seed:x}");
            let accepted = |n: usize| ins[n].evt_valid && !ins[n].evt_flush;
            assert!((0..ins.len()).all(|n| covered[n] == accepted(n) as u32));
            assert!(packets > 100_000 && flips > 5_000, "{packets} {flips}");
            if m == 1 {
                // Loads of m <= 1 over a larger m reach the two-slot case.
                assert!(both > 10, "{both}");
            }
        }
    }

    /// The seed's two-state machine written plainly: per flow the state bit
    /// and the list of unacknowledged packets; an ACK is the list it empties.
    #[derive(Default, Clone)]
    struct Seed {
        ce: bool,
        unacked: Vec<bool>,
    }

    impl Seed {
        /// Returns the ACKs as (slot, count, ece).
        fn event(&mut self, flush: bool, ce: bool, m: u32) -> Vec<(u8, u32, bool)> {
            let mut out = vec![];
            let mut send = |s: &mut Seed, slot: u8| {
                if !s.unacked.is_empty() {
                    assert!(s.unacked.iter().all(|&c| c == s.ce));
                    out.push((slot, s.unacked.len() as u32, s.ce));
                    s.unacked.clear();
                }
            };
            if flush {
                send(self, 1);
                return out;
            }
            if ce != self.ce {
                // "send an ACK for any previously unacknowledged packets and
                // set DCTCP.CE" (seed 000 §3.2, rules 1 and 2).
                send(self, 0);
                self.ce = ce;
            }
            self.unacked.push(ce);
            if self.unacked.len() as u32 >= m.max(1) {
                send(self, 1);
            }
            out
        }
    }

    #[test]
    fn matches_the_seed_state_machine_over_random_traces() {
        for (seed, flow_bits) in [(0x2545_f491u32, 4u32), (0x9e37_79b9, 8)] {
            let ins = random_inputs(seed, 400_000, true);
            let mut rx = DctcpRx::new(DctcpRxConfig {
                shape: DctcpRxShape { flow_bits },
                reset: DctcpRxParams { m: 3 },
            })
            .unwrap();
            let outs: Vec<DctcpRxOut> = ins.iter().map(|i| rx.step(i)).collect();
            let f = 1i64 << flow_bits;
            let mut seeds = vec![Seed::default(); f as usize];
            let (mut m, mut last_rst, mut checked) = (3u32, -1i64, 0usize);
            for n in 0..ins.len() {
                let (i, c) = (ins[n], n as i64);
                assert_eq!(outs[n].evt_ready, c > last_rst + f, "ready in cycle {n}");
                let mut want = vec![];
                if i.rst {
                    seeds.fill(Seed::default());
                    (m, last_rst) = (3, c);
                    continue;
                }
                if i.evt_valid && outs[n].evt_ready {
                    let flow = i.evt_flow & mask(flow_bits);
                    want = seeds[flow as usize]
                        .event(i.evt_flush, i.evt_ce, m)
                        .into_iter()
                        .map(|(s, k, e)| (s, flow, k, e))
                        .collect();
                }
                if i.cfg_valid {
                    m = i.cfg_m & 0xf;
                }
                let visible =
                    n + LATENCY < ins.len() && !ins[n + 1..n + LATENCY].iter().any(|i| i.rst);
                if visible {
                    assert_eq!(acks(&outs[n + LATENCY]), want, "event of cycle {n}");
                    checked += want.len();
                }
            }
            assert!(checked > 50_000, "{checked}");
        }
    }
}
