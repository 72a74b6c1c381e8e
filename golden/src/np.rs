//! NP — the DCQCN notification point: CNP generation at the receiving NIC.
//!
//! Implements `../shared/ALGORITHMS.md` §"DCQCN notification point", which
//! restates seed 004 §3.1: per flow, a CE-marked packet makes the receiver
//! request a congestion notification packet (CNP) to the flow's sender at
//! once, unless one was already requested for that flow within the last `N`
//! (50 µs in the paper). The contract is `docs/np.md`.
//!
//! # The rule, on the clock-cycle count
//! A packet is *accepted* in cycle `n` when `pkt_valid` and `pkt_ready` are
//! high and `rst` is low. An accepted packet with ECN `11` (CE) of flow `f`
//! requests a CNP if and only if no CNP was requested for `f` in a cycle `m`
//! with `n - m < N`, `N` being the `interval` register in force in cycle `n`
//! (so `N = 0` requests one for every CE packet). A flow not seen since the
//! last reset counts as "no CNP requested". Other ECN values never request
//! one and change nothing. Only the low `flow_bits` of `pkt_flow`, the low 2
//! bits of `pkt_ecn` and the low `interval_bits` of `cfg_interval` are ports.
//!
//! `N` given in microseconds at a clock of `f` MHz is `round(N_us * f)`
//! cycles ([`interval_cycles`]): the effective interval differs from `N_us` by
//! at most half a cycle, `0.5 / f` µs (2.5 ns at 200 MHz), which
//! `reference::tests` measures against the rule on real time.
//!
//! The model keeps cycle numbers as `u64` and so has no wrap-around: a flow
//! silent for `2^stamp_bits` cycles or more ([`NpShape::stamp_bits`], the
//! width of the RTL's timestamps) has `n - m > N` and behaves exactly like a
//! flow never seen.
//!
//! # Timing (the interface contract the RTL must meet)
//! - One packet per cycle (II = 1), including back-to-back packets of one
//!   flow, which see each other's requests exactly.
//! - A packet accepted in cycle `n` has its decision on `cnp_valid` /
//!   `cnp_flow` during cycle `n + LATENCY` (`n + 8`); `cnp_flow` is 0 when
//!   `cnp_valid` is low. The outputs are registered (they depend on state only).
//! - A load (`cfg_valid`) in cycle `n` sets `N` from cycle `n + 1`: a packet
//!   accepted in cycle `n` uses the old value.
//! - `rst` in cycle `n` drops every decision in flight (no decision of a
//!   packet accepted before `n` comes out from `n + 1` on), forgets every flow
//!   and restores `N` to its reset value; packets and loads in a reset cycle
//!   are ignored. The RTL then clears its flow table one flow per cycle:
//!   `pkt_ready` is low in cycles `n + 1 ..= n + F` (`F = 2^flow_bits`) and
//!   high from `n + F + 1`. A reset during the clearing starts it again.
//! - The RTL's outputs are undefined before its first reset. The model
//!   starts as if a reset had been applied in the cycle before its first
//!   step: `pkt_ready` is low during its first `F` steps.

use crate::error::ParamError;
use crate::mask;

/// Cycles from an accepted packet to its decision on the outputs.
pub const LATENCY: usize = 8;

/// ECN codepoints (RFC 3168).
pub mod ecn {
    pub const NOT_ECT: u8 = 0b00;
    pub const ECT1: u8 = 0b01;
    pub const ECT0: u8 = 0b10;
    pub const CE: u8 = 0b11;
}

/// The shape menu, written once: the flow-id widths and the interval-register
/// widths the RTL can be generated with.
/// `np_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [flow widths] ; [interval widths] }`; the constants
/// below and the hdl crate's const-generic dispatch are generated from it.
#[macro_export]
macro_rules! np_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [4, 8, 12, 16] ; [4, 12, 16, 20] }
    };
}

macro_rules! menu_constants {
    (() ; [$($f:literal),*] ; [$($i:literal),*]) => {
        /// Flow-id widths the RTL can be generated with.
        pub const SUPPORTED_FLOW_BITS: &[u32] = &[$($f),*];
        /// Interval-register widths the RTL can be generated with.
        pub const SUPPORTED_INTERVAL_BITS: &[u32] = &[$($i),*];
    };
}
np_shape_menu!([menu_constants];);

/// Generation-time (structural) sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NpShape {
    /// Width of a flow id: `F = 2^flow_bits` flows are tracked.
    pub flow_bits: u32,
    /// Width of the `interval` register (largest `N` = `2^interval_bits - 1`).
    pub interval_bits: u32,
}

impl Default for NpShape {
    fn default() -> Self {
        // 65,536 flows; N up to 65,535 cycles (327 µs at 200 MHz).
        NpShape {
            flow_bits: 16,
            interval_bits: 16,
        }
    }
}

impl NpShape {
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v, menu) in [
            ("flow_bits", self.flow_bits, SUPPORTED_FLOW_BITS),
            ("interval_bits", self.interval_bits, SUPPORTED_INTERVAL_BITS),
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

    /// Number of flows, `2^flow_bits` (also the cycles a reset's clearing takes).
    pub fn flows(&self) -> u32 {
        1 << self.flow_bits
    }

    /// Largest value of the `interval` register, `2^interval_bits - 1`.
    pub fn interval_max(&self) -> u32 {
        mask(self.interval_bits)
    }

    /// Width of the RTL's per-flow timestamps, `max(flow_bits, interval_bits) + 2`.
    /// Such a timestamp tells cycle differences below `2^stamp_bits` apart;
    /// the contract treats a flow silent for longer as one never seen.
    pub fn stamp_bits(&self) -> u32 {
        self.flow_bits.max(self.interval_bits) + 2
    }
}

/// Runtime parameters, held in registers and loadable while the block runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NpParams {
    /// `N`: at most one CNP per flow per `interval` cycles.
    pub interval: u32,
}

impl NpParams {
    /// Reset values for a shape: 10,000 cycles (the paper's 50 µs at
    /// 200 MHz), clamped to the largest value the register holds.
    pub fn reset_for(shape: &NpShape) -> NpParams {
        NpParams {
            interval: 10_000.min(shape.interval_max()),
        }
    }

    pub fn validate(&self, shape: &NpShape) -> Result<(), ParamError> {
        if self.interval > shape.interval_max() {
            return Err(ParamError::new(
                "interval",
                format!(
                    "{} does not fit interval_bits = {} (max {})",
                    self.interval,
                    shape.interval_bits,
                    shape.interval_max()
                ),
            ));
        }
        Ok(())
    }
}

/// Generation-time configuration: sizes, and the reset value of `N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NpConfig {
    pub shape: NpShape,
    pub reset: NpParams,
}

impl Default for NpConfig {
    fn default() -> Self {
        let shape = NpShape::default();
        NpConfig {
            shape,
            reset: NpParams::reset_for(&shape),
        }
    }
}

impl NpConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate(&self.shape)
    }
}

/// `N_us` microseconds at a clock of `clock_mhz` MHz as a number of cycles,
/// rounded to nearest (half away from zero): the error is at most half a
/// cycle. Refuses a non-finite or non-positive clock (`clock_mhz`) and a
/// negative or non-finite interval, or one beyond `u32::MAX` cycles
/// (`interval`); whether it fits a shape is [`NpParams::validate`]'s job.
pub fn interval_cycles(us: f64, clock_mhz: f64) -> Result<u32, ParamError> {
    if !(clock_mhz.is_finite() && clock_mhz > 0.0) {
        return Err(ParamError::new(
            "clock_mhz",
            format!("{clock_mhz} MHz is not a positive finite clock"),
        ));
    }
    if !(us.is_finite() && us >= 0.0) {
        return Err(ParamError::new(
            "interval",
            format!("{us} µs is not a non-negative finite interval"),
        ));
    }
    let cycles = (us * clock_mhz).round();
    if cycles > u32::MAX as f64 {
        return Err(ParamError::new(
            "interval",
            format!(
                "{us} µs at {clock_mhz} MHz is {cycles} cycles, beyond {}",
                u32::MAX
            ),
        ));
    }
    Ok(cycles as u32)
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NpIn {
    pub rst: bool,
    pub pkt_valid: bool,
    /// Flow id (its low `flow_bits` are the port).
    pub pkt_flow: u32,
    /// ECN field (its low 2 bits are the port).
    pub pkt_ecn: u8,
    pub cfg_valid: bool,
    /// New `N` in cycles (its low `interval_bits` are the port).
    pub cfg_interval: u32,
}

/// Outputs during one clock cycle (registered: they depend only on state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NpOut {
    /// Low while the flow table is cleared after a reset.
    pub pkt_ready: bool,
    /// A CNP is requested for `cnp_flow` (decision of [`LATENCY`] cycles ago).
    pub cnp_valid: bool,
    /// 0 when `cnp_valid` is low.
    pub cnp_flow: u32,
}

/// The golden model of NP: one [`Np::step`] per clock cycle.
#[derive(Clone)]
pub struct Np {
    config: NpConfig,
    /// `stamp[f] = m + 1` for the cycle `m` of the flow's last CNP request;
    /// a stamp `<= floor` is from before the last reset (0: never).
    stamp: Vec<u64>,
    /// The last reset's cycle plus 1 (0 for the virtual reset in cycle -1),
    /// so forgetting every flow is O(1).
    floor: u64,
    interval: u32,
    busy_left: u32,
    cycle: u64,
    /// A ring: `pipe[(head + i) % LATENCY]` holds the decision (the flow of
    /// the CNP requested, if any) of the packet of `i + 1` cycles ago.
    pipe: [Option<u32>; LATENCY],
    head: usize,
}

impl Np {
    /// A model as just after a reset (busy for its first `F` steps).
    pub fn new(config: NpConfig) -> Result<Np, ParamError> {
        config.validate()?;
        Ok(Np {
            config,
            stamp: vec![0; config.shape.flows() as usize],
            floor: 0,
            interval: config.reset.interval,
            busy_left: config.shape.flows(),
            cycle: 0,
            pipe: [None; LATENCY],
            head: 0,
        })
    }

    pub fn config(&self) -> &NpConfig {
        &self.config
    }

    /// `N` in force now (for the next step).
    #[inline]
    pub fn interval(&self) -> u32 {
        self.interval
    }

    /// `pkt_ready` during the next step.
    #[inline]
    pub fn ready(&self) -> bool {
        self.busy_left == 0
    }

    /// Cycles of clearing still to come, `pkt_ready` low in each (0 when ready).
    #[inline]
    pub fn busy_left(&self) -> u32 {
        self.busy_left
    }

    /// Steps taken (the number of the next step's cycle).
    #[inline]
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Cycles since `flow`'s last CNP request as the next step would see it
    /// (`n - m`); `None` if none since the last reset.
    pub fn since_cnp(&self, flow: u32) -> Option<u64> {
        let s = self.stamp[(flow & mask(self.config.shape.flow_bits)) as usize];
        (s > self.floor).then(|| self.cycle + 1 - s)
    }

    /// The outputs during the next step's cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> NpOut {
        // The oldest entry: just before the head.
        let d = self.pipe[(self.head + LATENCY - 1) % LATENCY];
        NpOut {
            pkt_ready: self.busy_left == 0,
            cnp_valid: d.is_some(),
            cnp_flow: d.unwrap_or(0),
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    #[inline]
    pub fn step(&mut self, i: &NpIn) -> NpOut {
        let out = self.outputs();
        let n = self.cycle;
        self.cycle += 1;
        // Shift the decision pipeline by one stage.
        self.head = (self.head + LATENCY - 1) % LATENCY;
        if i.rst {
            self.pipe = [None; LATENCY];
            self.floor = n + 1; // stamps m + 1 <= n + 1: requests up to cycle n
            self.interval = self.config.reset.interval;
            self.busy_left = self.config.shape.flows();
            return out;
        }
        let mut decision = None;
        if i.pkt_valid && self.busy_left == 0 && i.pkt_ecn & 0b11 == ecn::CE {
            let flow = i.pkt_flow & mask(self.config.shape.flow_bits);
            let s = &mut self.stamp[flow as usize];
            // n - m = n + 1 - s; n + 1 >= s as every stamp is of a past cycle.
            if *s <= self.floor || n + 1 - *s >= self.interval as u64 {
                *s = n + 1;
                decision = Some(flow);
            }
        }
        self.pipe[self.head] = decision;
        self.busy_left = self.busy_left.saturating_sub(1);
        if i.cfg_valid {
            self.interval = i.cfg_interval & mask(self.config.shape.interval_bits);
        }
        out
    }
}

impl std::fmt::Debug for Np {
    /// The registers, without the flow table.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Np")
            .field("config", &self.config)
            .field("cycle", &self.cycle)
            .field("interval", &self.interval)
            .field("busy_left", &self.busy_left)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xorshift;

    fn shape(flow_bits: u32, interval_bits: u32) -> NpShape {
        NpShape {
            flow_bits,
            interval_bits,
        }
    }

    fn rst() -> NpIn {
        NpIn {
            rst: true,
            ..NpIn::default()
        }
    }

    /// A model with reset value `interval`, reset and cleared (ready).
    fn cleared(shape: NpShape, interval: u32) -> Np {
        let mut np = Np::new(NpConfig {
            shape,
            reset: NpParams { interval },
        })
        .unwrap();
        np.step(&rst());
        while !np.ready() {
            np.step(&NpIn::default());
        }
        np
    }

    fn pkt(flow: u32, ecn: u8) -> NpIn {
        NpIn {
            pkt_valid: true,
            pkt_flow: flow,
            pkt_ecn: ecn,
            ..NpIn::default()
        }
    }

    /// Steps through `ins` and LATENCY idle cycles; returns each input
    /// cycle's decision (the flow of its CNP), read off the outputs.
    fn decisions(np: &mut Np, ins: &[NpIn]) -> Vec<Option<u32>> {
        let idle = [NpIn::default(); LATENCY];
        let outs: Vec<NpOut> = ins.iter().chain(&idle).map(|i| np.step(i)).collect();
        for o in &outs {
            assert!(o.cnp_valid || o.cnp_flow == 0);
        }
        outs[LATENCY..]
            .iter()
            .map(|o| o.cnp_valid.then_some(o.cnp_flow))
            .collect()
    }

    #[test]
    fn cnp_at_most_once_per_interval_per_flow() {
        // Random packets, loads and resets; every decision is checked by
        // brute force against the output history since the last reset.
        let sh = shape(8, 12);
        let f = sh.flows() as i64;
        let mut np = Np::new(NpConfig {
            shape: sh,
            reset: NpParams { interval: 25 },
        })
        .unwrap();
        let mut r = 0x1234_5678u32;
        let (mut ins, mut outs) = (vec![], vec![]);
        for n in 0..300_000 {
            r = xorshift::next(r);
            let i = NpIn {
                rst: n == 5 || r % 5000 == 7,
                pkt_valid: r & 7 != 0,
                pkt_flow: if r & 0x100 != 0 {
                    (r >> 9) % 5
                } else {
                    (r >> 9) | 0x100
                },
                pkt_ecn: if r & 0x600 != 0 {
                    ecn::CE
                } else {
                    (r >> 12) as u8
                },
                cfg_valid: (r >> 14) % 400 == 7,
                cfg_interval: (r >> 23) % 40,
            };
            ins.push(i);
            outs.push(np.step(&i));
        }
        let (mut last_rst, mut big_n) = (-1i64, 25u32);
        let (mut accepted, mut granted, mut refused) = (vec![false; ins.len()], 0, 0);
        for n in 0..ins.len() {
            let (i, c) = (ins[n], n as i64);
            assert_eq!(outs[n].pkt_ready, c > last_rst + f, "ready in cycle {n}");
            accepted[n] = i.pkt_valid && outs[n].pkt_ready && !i.rst;
            let rst_since = |a: usize, b: usize| ins[a..b].iter().any(|i| i.rst);
            if n >= LATENCY && outs[n].cnp_valid {
                let p = n - LATENCY;
                assert!(accepted[p] && ins[p].pkt_ecn & 3 == ecn::CE && !rst_since(p + 1, n));
                assert_eq!(outs[n].cnp_flow, ins[p].pkt_flow & 0xff);
            } else {
                assert!(!outs[n].cnp_valid && outs[n].cnp_flow == 0, "cycle {n}");
            }
            let visible = n + LATENCY < ins.len() && !rst_since(n + 1, n + LATENCY);
            if accepted[n] && i.pkt_ecn & 3 == ecn::CE && visible {
                // Any CNP of this flow in a cycle m > last_rst with n - m < N?
                let flow = i.pkt_flow & 0xff;
                let window = ((c - big_n as i64 + 1).max(last_rst + 1)..c).rev();
                let recent = window.into_iter().any(|m| {
                    let o = outs[m as usize + LATENCY];
                    o.cnp_valid && o.cnp_flow == flow
                });
                let g = outs[n + LATENCY].cnp_valid;
                assert_eq!(
                    g, !recent,
                    "cycle {n}, N {big_n}: at most once per N, and then at once"
                );
                if g {
                    granted += 1
                } else {
                    refused += 1
                }
            }
            if i.rst {
                last_rst = c;
                big_n = 25;
            } else if i.cfg_valid {
                big_n = i.cfg_interval;
            }
        }
        assert!(granted > 10_000 && refused > 10_000, "{granted} {refused}");
    }

    #[test]
    fn ce_packet_of_a_quiet_flow_always_gets_a_cnp() {
        let mut np = cleared(shape(12, 16), 65_535);
        let ins: Vec<NpIn> = (0..4096).map(|f| pkt(f, ecn::CE)).collect();
        let d = decisions(&mut np, &ins);
        assert!(d.iter().enumerate().all(|(f, d)| *d == Some(f as u32)));
        // Quiet for exactly N cycles (N = 100) is quiet enough.
        let mut np = cleared(shape(12, 16), 100);
        let mut ins = vec![NpIn::default(); 101];
        (ins[0], ins[99], ins[100]) = (pkt(7, ecn::CE), pkt(7, ecn::CE), pkt(7, ecn::CE));
        let d = decisions(&mut np, &ins);
        assert_eq!((d[0], d[99], d[100]), (Some(7), None, Some(7)));
    }

    #[test]
    fn back_to_back_same_flow_packets_see_each_other() {
        for n in 0..=7u32 {
            let mut np = cleared(shape(8, 12), n);
            let d = decisions(&mut np, &vec![pkt(9, ecn::CE); 40]);
            let mut next = 0; // the packet due for the next CNP
            for (k, d) in d.iter().enumerate() {
                assert_eq!(*d == Some(9), k == next, "N {n}, packet {k}");
                if k == next {
                    next += n.max(1) as usize;
                }
            }
            // The last CNP: packet 39 - 39 % N, LATENCY + 40 cycles ago for packet 0.
            assert_eq!(
                np.since_cnp(9),
                Some(LATENCY as u64 + 1 + 39 % n.max(1) as u64)
            );
        }
    }

    #[test]
    fn non_ce_packets_never_request() {
        let mut np = cleared(shape(8, 12), 10);
        let ins: Vec<NpIn> = (0..3000)
            .map(|k| pkt(k % 256, (k / 256 % 3) as u8))
            .collect();
        assert!(decisions(&mut np, &ins).iter().all(Option::is_none));
        assert_eq!(np.since_cnp(5), None);
        // Nor do they move a flow's timer: CNP at 0, non-CE at 1..10, CE at 10.
        let mut ins = vec![pkt(5, ecn::ECT0); 11];
        (ins[0], ins[9], ins[10]) = (pkt(5, ecn::CE), pkt(5, ecn::CE), pkt(5, ecn::CE));
        ins[3].pkt_ecn = ecn::NOT_ECT;
        ins[4].pkt_ecn = ecn::ECT1;
        let d = decisions(&mut np, &ins);
        assert_eq!(d.iter().flatten().count(), 2);
        assert_eq!((d[0], d[9], d[10]), (Some(5), None, Some(5)));
    }

    #[test]
    fn interval_load_takes_effect_next_cycle() {
        let mut np = cleared(shape(8, 12), 100);
        let load = |mut i: NpIn, v: u32| {
            (i.cfg_valid, i.cfg_interval) = (true, v);
            i
        };
        let mut ins = vec![NpIn::default(); 40];
        ins[0] = pkt(1, ecn::CE);
        ins[10] = load(pkt(1, ecn::CE), 5); // uses N = 100: refused
        ins[11] = pkt(1, ecn::CE); // N = 5, gap 11: granted
        ins[20] = load(pkt(1, ecn::CE), 4000); // gap 9 >= 5: granted
        ins[30] = pkt(1, ecn::CE); // gap 10 < 4000: refused
        let d = decisions(&mut np, &ins);
        assert_eq!(
            (d[0], d[10], d[11], d[20], d[30]),
            (Some(1), None, Some(1), Some(1), None)
        );
        assert_eq!(np.interval(), 4000);
        np.step(&load(NpIn::default(), 4096 + 3)); // only interval_bits exist
        assert_eq!(np.interval(), 3);
    }

    #[test]
    fn reset_forgets_flows_and_clears_for_f_cycles() {
        let mut np = cleared(shape(8, 12), 4000);
        let ce = |np: &mut Np| decisions(np, &[pkt(42, ecn::CE)])[0];
        assert_eq!(ce(&mut np), Some(42));
        // (An interval longer than the packet, its LATENCY idle cycles and
        // the load.)
        let n = LATENCY as u32 + 3;
        np.step(&NpIn {
            cfg_valid: true,
            cfg_interval: n,
            ..NpIn::default()
        });
        assert_eq!(ce(&mut np), None);
        assert!(np.ready() && np.interval() == n);
        // Reset with a packet offered: ignored; then packets offered throughout.
        np.step(&NpIn {
            rst: true,
            ..pkt(42, ecn::CE)
        });
        assert_eq!(
            (np.interval(), np.since_cnp(42), np.busy_left()),
            (4000, None, 256)
        );
        let outs: Vec<NpOut> = (0..300).map(|_| np.step(&pkt(42, ecn::CE))).collect();
        let low = outs.iter().take_while(|o| !o.pkt_ready).count();
        assert_eq!(low, 256, "ready low exactly F cycles");
        assert!(outs[256..].iter().all(|o| o.pkt_ready));
        // The first packet accepted (cycle F + 1 after the reset) gets a CNP.
        let cnps: Vec<usize> = (0..300).filter(|&k| outs[k].cnp_valid).collect();
        assert_eq!(cnps, vec![256 + LATENCY]);
    }

    #[test]
    fn reset_during_clearing_restarts_it() {
        let mut np = cleared(shape(8, 12), 10);
        np.step(&rst());
        let mut low = 0;
        for _ in 0..100 {
            low += !np.step(&NpIn::default()).pkt_ready as u32;
        }
        np.step(&rst());
        assert_eq!(np.busy_left(), 256);
        let outs: Vec<NpOut> = (0..600).map(|_| np.step(&pkt(3, ecn::CE))).collect();
        low += outs.iter().take_while(|o| !o.pkt_ready).count() as u32;
        assert_eq!(low, 100 + 256);
        assert!(outs[256..].iter().all(|o| o.pkt_ready));
    }

    #[test]
    fn decisions_in_flight_are_dropped_by_reset() {
        let mut np = cleared(shape(8, 12), 0);
        let l = LATENCY;
        let mut ins: Vec<NpIn> = (0..l as u32 + 4).map(|f| pkt(f, ecn::CE)).collect();
        // Packets 0 ..= LATENCY - 1 in flight, packet LATENCY ignored.
        ins[l].rst = true;
        let outs: Vec<NpOut> = ins
            .iter()
            .chain(&[NpIn::default(); LATENCY + 4])
            .map(|i| np.step(i))
            .collect();
        let cnps: Vec<(usize, u32)> = (0..outs.len())
            .filter(|&k| outs[k].cnp_valid)
            .map(|k| (k, outs[k].cnp_flow))
            .collect();
        // Packet 0's decision shows during the reset cycle; none after it.
        assert_eq!(cnps, vec![(l, 0)]);
        assert!(outs.iter().all(|o| o.cnp_valid || o.cnp_flow == 0));
    }

    #[test]
    fn a_flow_silent_for_more_than_2_pow_stamp_bits_cycles_behaves_as_never_seen() {
        let sh = shape(8, 12);
        assert_eq!(sh.stamp_bits(), 14);
        let (w, n) = (1u64 << 14, 4095u64);
        let mut np = cleared(sh, n as u32);
        // Flow k requests at cycle a + k - 1, then sends a CE packet `gap`
        // cycles later (flow 6 twice). A timestamp wrapping modulo 2^14 would
        // see every gap but flow 2's and flow 6's second as below N.
        let plan: [(u32, u64, bool); 7] = [
            (1, w, true),
            (2, w - 3, true),
            (3, w + 1, true),
            (4, w + n - 1, true),
            (5, 3 * w + 17, true),
            (6, w + 10, true),
            (6, w + 10 + n - 1, false), // N - 1 after its CNP at a + 5 + w + 10
        ];
        let mut at: Vec<(u64, u32, bool)> = plan
            .iter()
            .map(|&(f, g, c)| (f as u64 - 1 + g, f, c))
            .collect();
        at.sort();
        let mut ins: Vec<NpIn> = (1..=6).map(|f| pkt(f, ecn::CE)).collect();
        for &(t, f, _) in &at {
            ins.resize(t as usize, NpIn::default());
            ins.push(pkt(f, ecn::CE));
        }
        let d = decisions(&mut np, &ins);
        assert!(d[..6]
            .iter()
            .enumerate()
            .all(|(k, d)| *d == Some(k as u32 + 1)));
        for (t, f, c) in at {
            assert_eq!(d[t as usize] == Some(f), c, "flow {f} at a + {t}");
        }
    }

    #[test]
    fn masked_ports_keep_only_their_low_bits() {
        let mut np = cleared(shape(8, 12), 1000);
        let d = decisions(&mut np, &[pkt(0x305, ecn::CE | 0xfc), pkt(0x5, ecn::CE)]);
        assert_eq!(d, vec![Some(5), None]);
        assert_eq!(np.since_cnp(0x105), Some(LATENCY as u64 + 2));
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        fn name<T: std::fmt::Debug>(r: Result<T, ParamError>) -> &'static str {
            r.unwrap_err().name
        }
        let mut c = NpConfig::default();
        assert_eq!((c.shape, c.reset.interval), (shape(16, 16), 10_000));
        assert!(c.validate().is_ok());
        c.shape.flow_bits = 9;
        assert_eq!(name(Np::new(c)), "flow_bits");
        c.shape = shape(8, 13);
        assert_eq!(name(c.validate()), "interval_bits");
        c.shape = shape(8, 12);
        assert_eq!(NpParams::reset_for(&c.shape).interval, 4095);
        c.reset.interval = 4096;
        assert_eq!(name(c.validate()), "interval");
        c.reset.interval = 4095;
        assert!(Np::new(c).is_ok());
        assert_eq!(interval_cycles(50.0, 200.0), Ok(10_000));
        assert_eq!(interval_cycles(0.0125, 200.0), Ok(3)); // 2.5 rounds away from 0
        assert_eq!(interval_cycles(1.0, 322.265625), Ok(322));
        for us in [-1.0, f64::NAN, f64::INFINITY, 5e7] {
            assert_eq!(name(interval_cycles(us, 100.0)), "interval");
        }
        for mhz in [-200.0, 0.0, f64::NAN] {
            assert_eq!(name(interval_cycles(50.0, mhz)), "clock_mhz");
        }
    }
}

/// Float reference: the rule of seed 004 §3.1 on real time.
pub mod reference {
    use std::collections::HashMap;

    /// The NP rule in seconds: a CE packet at time `t` requests a CNP iff
    /// its flow had no CNP requested in `(t - N, t]`.
    #[derive(Debug, Clone)]
    pub struct Np {
        interval_s: f64,
        last: HashMap<u32, f64>,
    }

    impl Np {
        pub fn new(interval_us: f64) -> Np {
            Np {
                interval_s: interval_us * 1e-6,
                last: HashMap::new(),
            }
        }

        /// A packet of `flow` at time `t` seconds (times non-decreasing);
        /// returns whether it requests a CNP.
        pub fn packet(&mut self, t: f64, flow: u32, ce: bool) -> bool {
            if !ce {
                return false;
            }
            let quiet = match self.last.get(&flow) {
                None => true,
                Some(&l) => l <= t - self.interval_s,
            };
            if quiet {
                self.last.insert(flow, t);
            }
            quiet
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::{ecn, interval_cycles, Np, NpConfig, NpIn, NpParams, NpShape, LATENCY};
        use super::Np as Real;
        use crate::xorshift;

        /// `(largest gap refused, smallest gap granted]` over CE packets of a
        /// flow with an earlier grant: the effective interval lies in it.
        fn bracket(
            pkts: &[(u64, usize)],
            granted: &[bool],
            time: impl Fn(u64) -> f64,
        ) -> (f64, f64) {
            let (mut lo, mut hi, mut last) = (0.0f64, f64::INFINITY, [None::<f64>; 2]);
            for (&(n, k), &g) in pkts.iter().zip(granted) {
                let t = time(n);
                if let Some(l) = last[k] {
                    if g {
                        hi = hi.min(t - l);
                    } else {
                        lo = lo.max(t - l);
                    }
                }
                if g {
                    last[k] = Some(t);
                }
            }
            (lo, hi)
        }

        /// Drives one random trace (2 flows, a packet in 15 cycles of 16, CE
        /// in 7 of 8, cycle `n` at time `n / f`) through the golden model
        /// (`N = interval_cycles(N_us, f)`) and the reference, brackets each
        /// one's effective interval from its decisions alone, and measures
        /// the golden's distance to `N_us`. Bound: at most `0.5 / f` µs.
        #[test]
        fn golden_interval_is_within_half_a_cycle_of_the_real_time_rule() {
            let mut rng = 0x9e37_79b9u32;
            let mut draw = || {
                rng = xorshift::next(rng);
                rng
            };
            let clocks = [100.0, 156.25, 200.0, 250.0, 322.265625];
            let mut cases: Vec<(f64, f64)> = vec![(50.0, 200.0)];
            for k in 0..20 {
                cases.push((0.05 + 9.95 * draw() as f64 / u32::MAX as f64, clocks[k % 5]));
            }
            let flows = [3u32, 200];
            let shape = NpShape {
                flow_bits: 8,
                interval_bits: 20,
            };
            let (mut worst_us, mut worst_cycles, mut differ, mut total) = (0.0f64, 0.0f64, 0, 0);
            for (case, &(n_us, f)) in cases.iter().enumerate() {
                let n_cyc = interval_cycles(n_us, f).unwrap();
                let reset = NpParams { interval: n_cyc };
                let mut gold = Np::new(NpConfig { shape, reset }).unwrap();
                let mut real = Real::new(n_us);
                gold.step(&NpIn {
                    rst: true,
                    ..NpIn::default()
                });
                while !gold.ready() {
                    gold.step(&NpIn::default());
                }
                let n0 = gold.cycle();
                let len = n0 + 150 * n_cyc as u64 + 100;
                let (mut pkts, mut g_granted, mut r_granted) =
                    (Vec::<(u64, usize)>::new(), vec![], vec![]);
                for n in n0..len + LATENCY as u64 {
                    let r = draw();
                    let (valid, k, ce) = (
                        n < len && r & 0xf != 0,
                        (r >> 4) as usize & 1,
                        (r >> 5) & 7 != 0,
                    );
                    let ecn = if ce { ecn::CE } else { ecn::ECT0 };
                    let i = NpIn {
                        pkt_valid: valid,
                        pkt_flow: flows[k],
                        pkt_ecn: ecn,
                        ..NpIn::default()
                    };
                    let out = gold.step(&i);
                    if pkts.len() > g_granted.len() && pkts[g_granted.len()].0 + LATENCY as u64 == n
                    {
                        assert!(!out.cnp_valid || out.cnp_flow == flows[pkts[g_granted.len()].1]);
                        g_granted.push(out.cnp_valid);
                    } else {
                        assert!(!out.cnp_valid, "a CNP for no CE packet");
                    }
                    if valid && ce {
                        pkts.push((n, k));
                        r_granted.push(real.packet(n as f64 / (f * 1e6), flows[k], true));
                    }
                }
                assert_eq!(g_granted.len(), pkts.len());
                total += pkts.len();
                differ += g_granted
                    .iter()
                    .zip(&r_granted)
                    .filter(|(a, b)| a != b)
                    .count();
                // The dense trace pins the golden's interval to one cycle.
                let (g_lo, g_hi) = bracket(&pkts, &g_granted, |n| n as f64);
                assert_eq!(
                    (g_lo + 1.0, g_hi),
                    (n_cyc as f64, n_cyc as f64),
                    "case {case}"
                );
                let (r_lo, r_hi) = bracket(&pkts, &r_granted, |n| n as f64 / (f * 1e6));
                let n_s = n_us * 1e-6;
                assert!(
                    r_lo < n_s * (1.0 + 1e-12) && r_hi >= n_s * (1.0 - 1e-12),
                    "reference {r_lo} {r_hi} {n_s}"
                );
                let diff_us = (g_hi / f - n_us).abs();
                worst_us = worst_us.max(diff_us);
                worst_cycles = worst_cycles.max(diff_us * f);
                assert!(
                    diff_us <= 0.5 / f + 1e-12,
                    "case {case}: {diff_us} µs > {} µs",
                    0.5 / f
                );
            }
            println!(
                "np: largest |golden interval - N_us| over {} cases = {worst_us:.6} µs \
                 ({worst_cycles:.4} cycles; bound 0.5 cycle = 0.5/f µs); \
                 {differ} of {total} CE packets decided differently by the reference",
                cases.len()
            );
        }
    }
}
