//! CFR_CAM — congestion flow recognition: a CAM of sampled flow IDs at a
//! switch output queue (seed 002 §3.3, `../shared/ALGORITHMS.md` §RCM "CFR").
//!
//! The packets leaving an output queue are sampled periodically, one in
//! `S`, and the flow ID (the IP five-tuple, 104 bits) of each sampled
//! packet is written into a CAM of `D` entries in a cyclic way (the oldest
//! entry is overwritten). A flow whose ID is in the CAM is a congestion
//! flow: a flow that sends a share `p` of the packets is sampled with
//! probability `p` each time, so heavy flows are in the CAM far more often
//! than light ones ([`reference`] gives the probability and measures it).
//! A lookup counts the entries holding its key and hits when the count
//! reaches a runtime threshold `thresh`: 1 (the reset default) is the
//! seed's rule, "in the CAM"; a higher threshold keeps a flow sending a
//! modest share out of the congestion flows, since a heavy flow holds many
//! entries and a modest one few. The contract is `docs/cfr_cam.md`.
//!
//! # The rule, on the clock-cycle count
//! - A packet is *accepted* in cycle `n` when `pkt_valid` is high and `rst`
//!   low (every packet is accepted: there is no ready). With `S = period`
//!   in force in `n`: if `S = 0` nothing is sampled; otherwise the accepted
//!   packets are counted from the last reset or `period` load, and the
//!   first, the `S + 1`-th, the `2S + 1`-th, ... are *sampled*.
//! - A sampled packet writes its key (the low `key_bits` of `pkt_key`) into
//!   the entry at the write pointer, which then advances cyclically over
//!   the `D` entries. The CAM thus holds the keys of the last `D` samples
//!   since the last reset (fewer right after it).
//! - A lookup accepted in cycle `m` (`look_valid`, not a reset cycle) counts
//!   `c`, how many of the last `D` keys sampled in cycles before `m` since
//!   the last reset equal its key (the low `key_bits` of `look_key`), and
//!   *hits* if and only if `c >= T`, `T = thresh` in force in `m`. With
//!   `T = 1` a lookup hits iff its key is in the CAM; `T = 0` hits every
//!   lookup; `T > D` none.
//!   A sample in the same cycle `m` is not counted by that lookup (read
//!   before write): a key written in cycle `m` counts from lookups of
//!   `m + 1`, and the entry that write overwrites is still counted in `m`.
//!
//! # Timing (the interface contract the RTL must meet)
//! - One packet and one lookup per cycle (II = 1).
//! - A lookup accepted in cycle `m` has its answer on `hit_valid` / `hit`
//!   during cycle `m + LATENCY`; `hit` is 0 when `hit_valid` is low. The
//!   outputs are registered (they depend on state only).
//! - A load (`cfg_valid`) in cycle `n` sets `S = cfg_period` and
//!   `T = cfg_thresh` from `n + 1` and restarts the packet count: the first
//!   packet accepted from `n + 1` on is sampled (if the new `S` is not 0).
//!   A packet and a lookup in cycle `n` use the old `S`, count and `T`.
//! - `rst` in cycle `n` empties the CAM, restores `S` to its reset value,
//!   restores `T`, restarts the count and the write pointer, and drops every answer in
//!   flight (no `hit_valid` from `n + 1` on for lookups before `n`); packets,
//!   lookups and loads of a reset cycle are ignored.
//! - The RTL's outputs are undefined before its first reset. The model
//!   starts as if a reset had been applied in the cycle before its first step.

use crate::error::ParamError;

/// Cycles from an accepted lookup to its answer on the outputs.
pub const LATENCY: usize = 11;

/// Width of the `period` register.
pub const PERIOD_BITS: u32 = 16;

/// Width of the `thresh` register (a count of up to 256 entries, and 257..511:
/// no lookup hits).
pub const THRESH_BITS: u32 = 9;

/// The shape menu, written once: the key widths and the depths the RTL can
/// be generated with. `cfr_cam_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [key widths] ; [depths] }`.
#[macro_export]
macro_rules! cfr_cam_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [32, 64, 104] ; [8, 16, 32, 64, 128, 256] }
    };
}

macro_rules! menu_constants {
    (() ; [$($k:literal),*] ; [$($d:literal),*]) => {
        /// Key widths the RTL can be generated with (multiples of 8).
        pub const SUPPORTED_KEY_BITS: &[u32] = &[$($k),*];
        /// Depths (entries) the RTL can be generated with.
        pub const SUPPORTED_DEPTHS: &[u32] = &[$($d),*];
    };
}
cfr_cam_shape_menu!([menu_constants];);

/// Width of an IP five-tuple: two IPv4 addresses, two ports, the protocol.
pub const FIVE_TUPLE_BITS: u32 = 32 + 32 + 16 + 16 + 8;

/// Generation-time (structural) sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfrCamShape {
    /// Width of a key (flow ID).
    pub key_bits: u32,
    /// Number of entries `D`.
    pub depth: u32,
}

impl Default for CfrCamShape {
    /// 104-bit five-tuples, 64 entries.
    fn default() -> Self {
        CfrCamShape {
            key_bits: FIVE_TUPLE_BITS,
            depth: 64,
        }
    }
}

impl CfrCamShape {
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v, menu) in [
            ("key_bits", self.key_bits, SUPPORTED_KEY_BITS),
            ("depth", self.depth, SUPPORTED_DEPTHS),
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

    /// The low `key_bits` set.
    pub fn key_mask(&self) -> u128 {
        if self.key_bits >= 128 {
            u128::MAX
        } else {
            (1u128 << self.key_bits) - 1
        }
    }
}

/// Runtime parameters, held in registers and loadable while the block runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfrCamParams {
    /// `S`: one accepted packet in `S` is sampled; 0 samples none.
    pub period: u32,
    /// `T`: a lookup hits when at least `T` entries hold its key.
    pub thresh: u32,
}

impl Default for CfrCamParams {
    /// One packet in 64; a key held by one entry hits.
    fn default() -> Self {
        CfrCamParams {
            period: 64,
            thresh: 1,
        }
    }
}

impl CfrCamParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v, bits) in [
            ("period", self.period, PERIOD_BITS),
            ("thresh", self.thresh, THRESH_BITS),
        ] {
            if v >> bits != 0 {
                return Err(ParamError::new(
                    name,
                    format!(
                        "{v} does not fit the {bits}-bit register (max {})",
                        (1u32 << bits) - 1
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Generation-time configuration: sizes, and the reset value of `S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CfrCamConfig {
    pub shape: CfrCamShape,
    pub reset: CfrCamParams,
}

impl CfrCamConfig {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.reset.validate()
    }
}

/// Inputs of one clock cycle (the block's input ports, clock excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CfrCamIn {
    pub rst: bool,
    /// A packet leaves the output queue (a sampling candidate).
    pub pkt_valid: bool,
    /// Its flow ID (the low `key_bits` are the port).
    pub pkt_key: u128,
    /// A lookup.
    pub look_valid: bool,
    /// The flow ID looked up (the low `key_bits` are the port).
    pub look_key: u128,
    /// A load of `period` and `thresh`.
    pub cfg_valid: bool,
    /// The new `S` (the low [`PERIOD_BITS`] are the port).
    pub cfg_period: u32,
    /// The new `T` (the low [`THRESH_BITS`] are the port).
    pub cfg_thresh: u32,
}

/// Outputs during one clock cycle (registered: they depend only on state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CfrCamOut {
    /// The answer to the lookup of [`LATENCY`] cycles ago.
    pub hit_valid: bool,
    /// At least `T` entries held its key; 0 when `hit_valid` is low.
    pub hit: bool,
}

/// The golden model of CFR_CAM: one [`CfrCam::step`] per clock cycle.
#[derive(Clone)]
pub struct CfrCam {
    config: CfrCamConfig,
    /// The keys of the last (up to) `D` samples, oldest first.
    keys: std::collections::VecDeque<u128>,
    period: u32,
    thresh: u32,
    /// Accepted packets still to pass before the next sample (0: the next
    /// accepted packet is sampled).
    skip: u32,
    /// A ring: `pipe[(head + i) % LATENCY]` holds the answer of the lookup
    /// of `i + 1` cycles ago (`None`: no lookup).
    pipe: [Option<bool>; LATENCY],
    head: usize,
    samples: u64,
}

impl CfrCam {
    /// A model as just after a reset.
    pub fn new(config: CfrCamConfig) -> Result<CfrCam, ParamError> {
        config.validate()?;
        Ok(CfrCam {
            config,
            keys: std::collections::VecDeque::with_capacity(config.shape.depth as usize),
            period: config.reset.period,
            thresh: config.reset.thresh,
            skip: 0,
            pipe: [None; LATENCY],
            head: 0,
            samples: 0,
        })
    }

    pub fn config(&self) -> &CfrCamConfig {
        &self.config
    }

    /// `S` in force now (for the next step).
    pub fn period(&self) -> u32 {
        self.period
    }

    /// `T` in force now (for the next step).
    pub fn thresh(&self) -> u32 {
        self.thresh
    }

    /// Accepted packets the next step's packet would leave before the next
    /// sample: 0 means a packet in the next step is sampled (if `S != 0`).
    pub fn skip(&self) -> u32 {
        self.skip
    }

    /// The keys the CAM holds, oldest first (a lookup in the next step is
    /// answered against exactly these).
    pub fn keys(&self) -> impl Iterator<Item = &u128> {
        self.keys.iter()
    }

    /// Entries holding a key (at most `D`).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key the next sample overwrites (the oldest), if the CAM is full.
    pub fn oldest(&self) -> Option<u128> {
        if self.keys.len() == self.config.shape.depth as usize {
            self.keys.front().copied()
        } else {
            None
        }
    }

    /// Samples taken since the model was made (reset does not clear it).
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Whether an entry holds `key` now.
    pub fn contains(&self, key: u128) -> bool {
        self.count(key) > 0
    }

    /// How many entries hold `key` now (what a lookup in the next step counts).
    pub fn count(&self, key: u128) -> u32 {
        let key = key & self.config.shape.key_mask();
        self.keys.iter().filter(|&&k| k == key).count() as u32
    }

    /// Whether the answer of an earlier lookup still to come out is a hit
    /// (a reset now must drop it).
    pub fn hit_in_flight(&self) -> bool {
        self.pipe.contains(&Some(true))
    }

    /// Whether a lookup of `key` in the next step would hit.
    pub fn hits(&self, key: u128) -> bool {
        self.count(key) >= self.thresh
    }

    /// The outputs during the next step's cycle, before its clock edge.
    #[inline]
    pub fn outputs(&self) -> CfrCamOut {
        let d = self.pipe[(self.head + LATENCY - 1) % LATENCY];
        CfrCamOut {
            hit_valid: d.is_some(),
            hit: d.unwrap_or(false),
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    pub fn step(&mut self, i: &CfrCamIn) -> CfrCamOut {
        let out = self.outputs();
        self.head = (self.head + LATENCY - 1) % LATENCY;
        if i.rst {
            self.pipe = [None; LATENCY];
            self.keys.clear();
            self.period = self.config.reset.period;
            self.thresh = self.config.reset.thresh;
            self.skip = 0;
            return out;
        }
        // The lookup sees the CAM before this cycle's sample, and the old T.
        self.pipe[self.head] = i.look_valid.then(|| self.hits(i.look_key));
        if i.pkt_valid && self.period != 0 {
            if self.skip == 0 {
                if self.keys.len() == self.config.shape.depth as usize {
                    self.keys.pop_front();
                }
                self.keys
                    .push_back(i.pkt_key & self.config.shape.key_mask());
                self.samples += 1;
                self.skip = self.period - 1;
            } else {
                self.skip -= 1;
            }
        }
        if i.cfg_valid {
            self.period = i.cfg_period & ((1 << PERIOD_BITS) - 1);
            self.thresh = i.cfg_thresh & ((1 << THRESH_BITS) - 1);
            self.skip = 0;
        }
        out
    }
}

impl std::fmt::Debug for CfrCam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CfrCam")
            .field("config", &self.config)
            .field("period", &self.period)
            .field("thresh", &self.thresh)
            .field("skip", &self.skip)
            .field("entries", &self.keys.len())
            .finish_non_exhaustive()
    }
}

/// The statistics of recognition: which flows the CAM holds when flows
/// send at given shares of the packets. Floats, used only by tests.
pub mod reference {
    /// Probability that a flow sending a share `p` of the packets (each
    /// packet independently of that flow with probability `p`) is in a CAM
    /// of `depth` entries written with one packet in `period` (in steady
    /// state, `period >= 1`): the CAM holds the last `depth` samples, each
    /// of the flow with probability `p`, so `1 - (1 - p)^depth`. (With one
    /// packet in `period` sampled deterministically, the samples of an
    /// i.i.d. packet stream are still i.i.d.; `period` does not enter.)
    pub fn p_in_cam(p: f64, depth: u32) -> f64 {
        1.0 - (1.0 - p).powi(depth as i32)
    }

    /// Probability that a lookup of that flow hits with threshold
    /// `thresh`: at least `thresh` of the last `depth` samples are of the
    /// flow, the tail of the binomial distribution `B(depth, p)`, summed
    /// term by term in floats. `p_hit(p, d, 1) = p_in_cam(p, d)`.
    pub fn p_hit(p: f64, depth: u32, thresh: u32) -> f64 {
        let mut term = (1.0 - p).powi(depth as i32); // P(c = 0)
        let mut below = 0.0;
        for c in 0..thresh.min(depth + 1) {
            below += term;
            // P(c + 1) = P(c) * (d - c) / (c + 1) * p / (1 - p)
            term *= (depth - c) as f64 / (c + 1) as f64 * p / (1.0 - p);
        }
        (1.0 - below).max(0.0)
    }

    #[cfg(test)]
    mod tests {
        use super::super::*;
        use super::{p_hit, p_in_cam};
        use crate::xorshift;

        /// Heavy flows (20% and 5% of the packets) and 100 light ones
        /// (0.75% each) through a 16-entry CAM sampling one packet in 7:
        /// the share of lookups (one per cycle, of a random flow of the
        /// three kinds) that hit is measured against `p_hit`, at threshold
        /// 1 (`p_in_cam`) and 3, over 2e6 cycles (the figures are in
        /// docs/cfr_cam.md, "Recognition"; at most 0.0025 apart). The bound
        /// asserted, 0.01, tells the CAM from one an entry short (0.0207
        /// apart at threshold 1) and from a threshold one higher
        /// (`the_measurement_sees_one_entry_and_one_count`).
        #[test]
        fn hit_rates_follow_the_sampling_probability() {
            for thresh in [1, 3] {
                let worst = measure(thresh, 16, thresh);
                assert!(worst < 0.01, "threshold {thresh}: {worst:.4} apart");
            }
        }

        /// The bound is tight enough to matter: the same runs against the
        /// reference of 15 entries, or of a threshold one higher, break it.
        #[test]
        fn the_measurement_sees_one_entry_and_one_count() {
            for thresh in [1, 3] {
                assert!(measure(thresh, 15, thresh) > 0.01, "threshold {thresh}, 15 entries");
                assert!(measure(thresh, 16, thresh + 1) > 0.01, "threshold {thresh} + 1");
            }
        }

        #[test]
        fn p_hit_at_one_is_p_in_cam_and_the_tail_ends() {
            for p in [0.0, 0.01, 0.3, 0.9] {
                assert!((p_hit(p, 16, 1) - p_in_cam(p, 16)).abs() < 1e-12);
                assert_eq!(p_hit(p, 16, 0), 1.0);
                assert!(p_hit(p, 16, 17) < 1e-12);
            }
            // B(4, 1/2): P(c >= 2) = 11 / 16.
            assert!((p_hit(0.5, 4, 2) - 11.0 / 16.0).abs() < 1e-12);
        }

        /// Runs the mix through a CAM of 16 entries at threshold `thresh`
        /// and returns the largest gap between a kind's hit rate and
        /// `p_hit(p, ref_depth, ref_thresh)`.
        fn measure(thresh: u32, ref_depth: u32, ref_thresh: u32) -> f64 {
            const CYCLES: u32 = 2_000_000;
            let mut cam = CfrCam::new(CfrCamConfig {
                shape: CfrCamShape {
                    key_bits: 104,
                    depth: 16,
                },
                reset: CfrCamParams { period: 7, thresh },
            })
            .unwrap();
            // Keys with high bits set: the 104-bit width is used.
            let key = |f: u32| (0xA5u128 << 96) | ((f as u128) << 40) | 0x1234;
            let mut x = 0x1234_5678u32;
            let mut draw = |n: u32| {
                x = xorshift::next(x);
                x % n
            };
            // Flow of a packet: 0 w.p. 0.20, 1 w.p. 0.05, 2..102 else.
            let flow_of = |u: u32| match u {
                0..=199 => 0,
                200..=249 => 1,
                _ => 2 + (u - 250) % 100,
            };
            let mut hits = [0u64; 3];
            let mut looks = [0u64; 3];
            let mut pending: Vec<Option<usize>> = vec![];
            for cycle in 0..CYCLES {
                let pkt = flow_of(draw(1000));
                let kind = draw(3) as usize;
                let look = match kind {
                    0 => 0,
                    1 => 1,
                    _ => 2 + draw(100),
                };
                let o = cam.step(&CfrCamIn {
                    pkt_valid: true,
                    pkt_key: key(pkt),
                    look_valid: cycle > 10_000,
                    look_key: key(look),
                    ..CfrCamIn::default()
                });
                pending.push((cycle > 10_000).then_some(kind));
                if pending.len() > LATENCY {
                    let k = pending.remove(0);
                    assert_eq!(o.hit_valid, k.is_some());
                    if let Some(k) = k {
                        looks[k] += 1;
                        hits[k] += o.hit as u64;
                    }
                }
            }
            let mut worst = 0.0f64;
            for (k, p) in [0.20, 0.05, 0.0075].into_iter().enumerate() {
                let measured = hits[k] as f64 / looks[k] as f64;
                let expected = p_hit(p, ref_depth, ref_thresh);
                eprintln!(
                    "threshold {thresh} (reference: {ref_depth} entries, threshold {ref_thresh}), \
                     kind {k}: measured {measured:.4}, reference {expected:.4}"
                );
                worst = worst.max((measured - expected).abs());
            }
            worst
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam(key_bits: u32, depth: u32, period: u32) -> CfrCam {
        cam_t(key_bits, depth, period, 1)
    }

    fn cam_t(key_bits: u32, depth: u32, period: u32, thresh: u32) -> CfrCam {
        CfrCam::new(CfrCamConfig {
            shape: CfrCamShape { key_bits, depth },
            reset: CfrCamParams { period, thresh },
        })
        .unwrap()
    }

    fn pkt(key: u128) -> CfrCamIn {
        CfrCamIn {
            pkt_valid: true,
            pkt_key: key,
            ..CfrCamIn::default()
        }
    }

    fn look(key: u128) -> CfrCamIn {
        CfrCamIn {
            look_valid: true,
            look_key: key,
            ..CfrCamIn::default()
        }
    }

    /// Runs `ins` and LATENCY idle cycles; the answers of the lookups, in order.
    fn answers(c: &mut CfrCam, ins: &[CfrCamIn]) -> Vec<bool> {
        let mut outs = vec![];
        for i in ins {
            outs.push(c.step(i));
        }
        for _ in 0..LATENCY {
            outs.push(c.step(&CfrCamIn::default()));
        }
        let mut v = vec![];
        for (k, i) in ins.iter().enumerate() {
            let o = outs[k + LATENCY];
            assert_eq!(o.hit_valid, i.look_valid && !i.rst, "cycle {k}");
            if o.hit_valid {
                v.push(o.hit);
            } else {
                assert!(!o.hit, "hit without hit_valid, cycle {k}");
            }
        }
        v
    }

    #[test]
    fn a_sampled_key_hits_from_the_next_cycle() {
        let mut c = cam(104, 8, 1);
        let k = (1u128 << 103) | 77;
        // Written in cycle 0: a lookup in cycle 0 misses, in cycle 1 hits.
        let same = CfrCamIn {
            look_valid: true,
            look_key: k,
            ..pkt(k)
        };
        assert_eq!(answers(&mut c, &[same, look(k)]), vec![false, true]);
    }

    #[test]
    fn only_the_last_depth_samples_hit() {
        let mut c = cam(32, 8, 1);
        // Samples 10 to 18: 10 is overwritten by 18.
        let mut ins: Vec<CfrCamIn> = (10..19).map(pkt).collect();
        ins.extend((9..20).map(look));
        let mut want = vec![false, false];
        want.extend([true; 8]);
        want.push(false);
        assert_eq!(answers(&mut c, &ins), want);
    }

    #[test]
    fn the_entry_overwritten_in_a_cycle_is_still_seen_by_its_lookup() {
        let mut c = cam(32, 8, 1);
        let mut ins: Vec<CfrCamIn> = (1..9).map(pkt).collect();
        // Key 9 overwrites key 1 in this cycle; the lookup of 1 still hits.
        ins.push(CfrCamIn {
            look_valid: true,
            look_key: 1,
            ..pkt(9)
        });
        ins.push(look(1));
        assert_eq!(answers(&mut c, &ins), vec![true, false]);
    }

    #[test]
    fn one_packet_in_s_is_sampled_from_the_first() {
        // S = 3: packets 0, 3, 6 of the run are sampled.
        let mut c = cam(32, 16, 3);
        let mut ins: Vec<CfrCamIn> = (100..108).map(pkt).collect();
        ins.extend((100..108).map(look));
        assert_eq!(
            answers(&mut c, &ins),
            vec![true, false, false, true, false, false, true, false]
        );
        // Cycles without a packet do not count.
        let mut c = cam(32, 16, 2);
        let ins = [
            pkt(1),
            CfrCamIn::default(),
            pkt(2),
            CfrCamIn::default(),
            pkt(3),
            look(1),
            look(2),
            look(3),
        ];
        assert_eq!(answers(&mut c, &ins), vec![true, false, true]);
    }

    #[test]
    fn period_zero_samples_nothing_and_a_load_restarts_the_count() {
        let mut c = cam(32, 16, 0);
        let load = |s| CfrCamIn {
            cfg_valid: true,
            cfg_period: s,
            cfg_thresh: 1,
            ..CfrCamIn::default()
        };
        let mut ins = vec![pkt(1), pkt(2)];
        // A load with a packet: the packet uses S = 0; from the next cycle
        // S = 5 and the first packet (3) is sampled, 4 is not.
        ins.push(CfrCamIn {
            cfg_valid: true,
            cfg_period: 5,
            cfg_thresh: 1,
            ..pkt(9)
        });
        ins.extend([pkt(3), pkt(4)]);
        // A load mid-count: the next packet (6) is sampled again.
        ins.push(load(5));
        ins.push(pkt(6));
        ins.extend([1, 2, 9, 3, 4, 6].map(look));
        assert_eq!(
            answers(&mut c, &ins),
            vec![false, false, false, true, false, true]
        );
        // Bits of cfg_period above the register are ignored: 0x1_0002 is 2.
        let mut c = cam(32, 16, 0);
        let ins = [
            load(0x1_0002),
            pkt(1),
            pkt(2),
            pkt(3),
            look(1),
            look(2),
            look(3),
        ];
        assert_eq!(answers(&mut c, &ins), vec![true, false, true]);
    }

    #[test]
    fn reset_empties_the_cam_and_drops_answers_in_flight() {
        let mut c = cam(64, 8, 1);
        c.step(&pkt(42));
        c.step(&look(42));
        // Reset in the cycle after the lookup: its answer never comes.
        let o: Vec<CfrCamOut> = std::iter::once(c.step(&CfrCamIn {
            rst: true,
            ..look(42)
        }))
        .chain((0..LATENCY).map(|_| c.step(&CfrCamIn::default())))
        .collect();
        assert!(o.iter().all(|o| !o.hit_valid && !o.hit));
        // Packets of a reset cycle are not sampled; loads are ignored.
        let ins = [
            CfrCamIn {
                rst: true,
                cfg_valid: true,
                cfg_period: 0,
                ..pkt(7)
            },
            pkt(8),
            look(42),
            look(7),
            look(8),
        ];
        assert_eq!(answers(&mut c, &ins), vec![false, false, true]);
    }

    #[test]
    fn key_bits_above_the_width_are_ignored() {
        let mut c = cam(32, 8, 1);
        let ins = [pkt(0xFFFF_0000_0000_0005), look(5), look(0x77_0000_0005)];
        assert_eq!(answers(&mut c, &ins), vec![true, true]);
        // At 104 bits, bit 103 counts and bit 104 does not.
        let mut c = cam(104, 8, 1);
        let hi = 1u128 << 103;
        let ins = [
            pkt(hi | 5),
            look(5),
            look(hi | 5),
            look((1 << 104) | hi | 5),
        ];
        assert_eq!(answers(&mut c, &ins), vec![false, true, true]);
    }

    #[test]
    fn a_lookup_hits_when_thresh_entries_hold_its_key() {
        // Key 5 in 3 entries, 6 in 2, 7 in 1 (S = 1, eight entries).
        let fill = [5, 6, 5, 7, 6, 5].map(pkt);
        for (t, want) in [
            (0, [true, true, true, true]),
            (1, [true, true, true, false]),
            (2, [true, true, false, false]),
            (3, [true, false, false, false]),
            (4, [false, false, false, false]),
            (9, [false, false, false, false]),
            (511, [false, false, false, false]),
        ] {
            let mut c = cam_t(32, 8, 1, t);
            let mut ins = fill.to_vec();
            ins.extend([5, 6, 7, 8].map(look));
            assert_eq!(answers(&mut c, &ins), want, "thresh {t}");
        }
        // Every entry holding one key: a count of D hits at T = D only.
        for (t, want) in [(8, true), (9, false)] {
            let mut c = cam_t(32, 8, 1, t);
            let mut ins = vec![pkt(3); 12];
            ins.push(look(3));
            assert_eq!(answers(&mut c, &ins), vec![want], "thresh {t}");
        }
    }

    #[test]
    fn the_count_drops_as_entries_are_overwritten() {
        // T = 2, D = 8: two samples of 4, then seven of others: the first 4
        // is overwritten by the eighth sample after it.
        let mut c = cam_t(32, 8, 1, 2);
        let mut ins = vec![pkt(4), pkt(4)];
        ins.extend((10..16).map(pkt));
        ins.push(CfrCamIn {
            look_valid: true,
            look_key: 4,
            ..pkt(16) // overwrites the first 4 at this cycle's edge
        });
        ins.push(look(4));
        assert_eq!(answers(&mut c, &ins), vec![true, false]);
    }

    #[test]
    fn a_thresh_load_is_in_force_from_the_next_cycle() {
        let mut c = cam_t(32, 8, 1, 1);
        let load = |t| CfrCamIn {
            cfg_valid: true,
            cfg_period: 1,
            cfg_thresh: t,
            ..CfrCamIn::default()
        };
        let ins = [
            pkt(5),
            // The lookup of the load's cycle uses the old T (1).
            CfrCamIn {
                look_valid: true,
                look_key: 5,
                ..load(2)
            },
            look(5),
            pkt(5),
            look(5),
            // Bits above the register: 0x200 | 1 is 1.
            load(0x201),
            look(5),
        ];
        assert_eq!(answers(&mut c, &ins), vec![true, false, true, true]);
        // A reset restores the reset value.
        let ins = [
            load(3),
            CfrCamIn {
                rst: true,
                ..CfrCamIn::default()
            },
            pkt(5),
            look(5),
        ];
        assert_eq!(answers(&mut c, &ins), vec![true]);
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        let bad = |shape, period| {
            CfrCamConfig {
                shape,
                reset: CfrCamParams { period, thresh: 1 },
            }
            .validate()
            .unwrap_err()
            .name
        };
        let ok = CfrCamShape::default();
        assert_eq!(
            bad(
                CfrCamShape {
                    key_bits: 100,
                    ..ok
                },
                1
            ),
            "key_bits"
        );
        assert_eq!(bad(CfrCamShape { depth: 48, ..ok }, 1), "depth");
        assert_eq!(bad(ok, 1 << 16), "period");
        let t = |thresh| {
            CfrCamConfig {
                reset: CfrCamParams { period: 1, thresh },
                ..CfrCamConfig::default()
            }
            .validate()
        };
        assert_eq!(t(512).unwrap_err().name, "thresh");
        assert!(t(511).is_ok());
        assert!(CfrCamConfig::default().validate().is_ok());
    }
}
