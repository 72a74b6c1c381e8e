//! Integration tests of the CP golden model's queues and dequeue marking
//! (`ccrtl_golden::cp`, shapes with `queues` in {1, 2, 4, 8} and
//! `mark_at` in {Enqueue, Dequeue}).
//!
//! Source of truth: `../shared/ALGORITHMS.md` §"Switch congestion point
//! (CP)" and the contract in the module documentation of `golden/src/cp.rs`,
//! sections "Queues and where marking happens" and "Timing". Every expected
//! value is derived from those texts: hand-worked tables with the numbers
//! written out (the derivation is in the comments), and two references
//! written here:
//!
//! - [`RefCp`], a deliberately plain model of the contract: per-queue
//!   vectors, a per-cycle history instead of shift registers (the outputs of
//!   cycle `n` are read from the records of cycles `n - 12` and `n - 3`), and
//!   the marking rule in its "number of marking draws" form
//!   `min(2^16, ceil((q - kmin) * pmax / (kmax - kmin)))` from the doc's
//!   "Fixed-point formats" section.
//! - [`PerQueueRef`], Q separate one-queue models (`queues = 1`), each fed
//!   only its queue's events. The random source is shared, so every instance
//!   is stepped every cycle (the state advances every cycle whatever the
//!   events are), and a load to queue `k` is given to queue `k`'s instance
//!   as is and to every other instance as a load of that instance's own
//!   current profile with the new seed: that reseeds it without changing its
//!   parameters, which is exactly what the contract says a load to another
//!   queue does to this one.
//!
//! Conventions (as in `tests/cp.rs`): "cycle n" is the n-th call of
//! `Cp::step`; the value returned by `step` is the outputs during that cycle.
//! The decisions of the events of cycle `n` are on the outputs of cycle
//! `n + 12`; the `depth`/`underflow` outputs of cycle `n` are the state at
//! the start of cycle `n - 3` (for the queue `depth_sel` named in `n - 3`).

use ccrtl_golden::cp::{
    ecn, Action, Cp, CpConfig, CpIn, CpOut, CpParams, CpParamsPort, CpShape, MarkAt, DEPTH_LAG,
    LATENCY, PMAX_ONE, RESET_SEED, SUPPORTED_QUEUES,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Decision delay required by the contract.
const DELAY: usize = 12;
/// Lag of the depth and underflow outputs required by the contract.
const LAG: usize = 3;
/// Longest packet of the test shapes (len_bits = 12).
const LEN_MAX: u32 = 4095;

const ADMIT: u8 = Action::Admit as u8;
const MARK: u8 = Action::Mark as u8;
const DROP_WRED: u8 = Action::DropWred as u8;
const DROP_TAIL: u8 = Action::DropTail as u8;
const NOT_ECT: u8 = ecn::NOT_ECT;
const ECT0: u8 = ecn::ECT0;
const ECT1: u8 = ecn::ECT1;
const CE: u8 = ecn::CE;

const ENQ: MarkAt = MarkAt::Enqueue;
const DEQ: MarkAt = MarkAt::Dequeue;

/// A 16-bit-depth, 12-bit-length shape with `queues` queues.
fn shape(queues: u32, mark_at: MarkAt) -> CpShape {
    CpShape {
        depth_bits: 16,
        len_bits: 12,
        queues,
        mark_at,
    }
}

fn params(kmin: u32, kmax: u32, pmax: u32, kdrop: u32, buf_max: u32, seed: u32) -> CpParams {
    CpParams {
        kmin,
        kmax,
        pmax,
        kdrop,
        buf_max,
        seed,
    }
}

/// Nothing is ever dropped or marked below 60000 bytes.
fn all_admit() -> CpParams {
    params(60_000, 60_000, PMAX_ONE, 60_000, 60_000, 1)
}

/// Ramp kmin 1000, kmax 5000, pmax 0.8: p(3000) = 0.4, p(2000) = 0.2.
fn ramp(seed: u32) -> CpParams {
    params(1000, 5000, 52_429, 60_000, 60_000, seed)
}

fn model(shape: CpShape, reset: CpParams) -> Cp {
    Cp::new(CpConfig { shape, reset }).expect("the test configuration is valid")
}

fn idle() -> CpIn {
    CpIn::default()
}

fn rst() -> CpIn {
    CpIn {
        rst: true,
        ..CpIn::default()
    }
}

/// Builder of one cycle's inputs: `idle().enq(q, len, ecn).deq(q, len, ecn)`.
trait Ev: Sized {
    fn enq(self, queue: u8, len: u32, e: u8) -> Self;
    fn deq(self, queue: u8, len: u32, e: u8) -> Self;
    fn load(self, queue: u8, p: CpParams) -> Self;
    fn sel(self, queue: u8) -> Self;
}

impl Ev for CpIn {
    fn enq(mut self, queue: u8, len: u32, e: u8) -> Self {
        self.enq_valid = true;
        self.enq_queue = queue;
        self.enq_len = len;
        self.enq_ecn = e;
        self
    }
    fn deq(mut self, queue: u8, len: u32, e: u8) -> Self {
        self.deq_valid = true;
        self.deq_queue = queue;
        self.deq_len = len;
        self.deq_ecn = e;
        self
    }
    fn load(mut self, queue: u8, p: CpParams) -> Self {
        self.cfg_valid = true;
        self.cfg_queue = queue;
        self.cfg = p.into();
        self
    }
    fn sel(mut self, queue: u8) -> Self {
        self.depth_sel = queue;
        self
    }
}

/// Marsaglia's xorshift32 (13, 17, 5), written again here.
fn xs32(mut x: u32) -> u32 {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    x
}

/// The state a seed selects: 0 selects RESET_SEED.
fn seed_rule(seed: u32) -> u32 {
    if seed == 0 {
        RESET_SEED
    } else {
        seed
    }
}

/// How many of the 2^16 Q0.16 draws mark an ECT packet at depth `q`: none
/// below kmin, all at or above kmax, and in the ramp the marking
/// probability `min(2^16, ceil((q - kmin) * pmax / (kmax - kmin))) / 2^16`
/// (cp.rs "Fixed-point formats"). The draws that mark are `0 .. count`.
fn marking_draws(q: u32, p: &CpParamsPort) -> u32 {
    if q >= p.kmax {
        1 << 16
    } else if q < p.kmin {
        0
    } else {
        let num = (q - p.kmin) as u64 * p.pmax as u64;
        let den = (p.kmax - p.kmin) as u64;
        (num.div_ceil(den)).min(1 << 16) as u32
    }
}

/// Is an ECT packet at depth `q` marked with the draw `u`?
fn red_marks(q: u32, u: u32, p: &CpParamsPort) -> bool {
    u < marking_draws(q, p)
}

fn is_ect(e: u8) -> bool {
    e == ECT0 || e == ECT1
}

/// SplitMix64, the test-local workload generator.
struct TestRng(u64);

impl TestRng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A model under test with a record of every cycle's outputs and of the
/// draw of every cycle, the latter predicted by this file's own rule: the
/// state is the reset seed after reset, advances by xorshift32 every cycle,
/// and a load (of any queue) sets it to the loaded seed (0 -> RESET_SEED)
/// for the next cycle; the draw is the top 16 bits of the state.
struct Bench {
    cp: Cp,
    queues: u32,
    reset_state: u32,
    state: u32,
    outs: Vec<CpOut>,
    draws: Vec<u32>,
}

impl Bench {
    fn new(shape: CpShape, reset: CpParams) -> Bench {
        let s = seed_rule(reset.seed);
        Bench {
            cp: model(shape, reset),
            queues: shape.queues,
            reset_state: s,
            state: s,
            outs: Vec::new(),
            draws: Vec::new(),
        }
    }

    /// Steps one cycle; returns its index.
    fn step(&mut self, i: CpIn) -> usize {
        let n = self.outs.len();
        self.draws.push(self.state >> 16);
        self.outs.push(self.cp.step(&i));
        self.state = if i.rst {
            self.reset_state
        } else if i.cfg_valid {
            seed_rule(i.cfg.seed)
        } else {
            xs32(self.state)
        };
        n
    }

    /// Steps every input; returns the index of the first one.
    fn steps(&mut self, inputs: &[CpIn]) -> usize {
        let n = self.outs.len();
        for i in inputs {
            self.step(*i);
        }
        n
    }

    fn idle(&mut self, k: usize) {
        for _ in 0..k {
            self.step(idle());
        }
    }

    /// Idle cycles until every decision in flight is out.
    fn drain(&mut self) {
        self.idle(DELAY);
    }

    /// The depth an event on queue `k` would see now.
    fn depth(&self, k: usize) -> u32 {
        self.cp.queue_depth(k)
    }

    /// Fills queue index `q` up to `target` bytes with CE packets (never
    /// WRED-dropped, never marked), then drains.
    fn fill(&mut self, q: u8, target: u32) {
        let k = q as usize % self.queues as usize;
        let mut have = self.depth(k);
        assert!(have <= target, "fill only adds");
        while have < target {
            let len = LEN_MAX.min(target - have);
            self.step(idle().enq(q, len, CE));
            have += len;
        }
        self.drain();
        assert_eq!(self.depth(k), target, "fill reached the wanted depth");
    }

    /// The outputs carrying the decisions of the events of cycle `n`.
    fn decision(&self, n: usize) -> CpOut {
        self.outs[n + DELAY]
    }
}

#[track_caller]
fn assert_enq(out: CpOut, action: u8, e: u8, what: &str) {
    assert!(out.dec_valid, "{what}: dec_valid must be high");
    assert_eq!(
        (out.dec_action, out.dec_ecn),
        (action, e),
        "{what}: (action, ecn) = ({:?}, {:#04b}), expected ({:?}, {:#04b})",
        Action::from_code(out.dec_action),
        out.dec_ecn,
        Action::from_code(action),
        e
    );
}

#[track_caller]
fn assert_no_enq(out: CpOut, what: &str) {
    assert!(
        !out.dec_valid && out.dec_action == 0 && out.dec_ecn == 0,
        "{what}: no enqueue decision expected, got {out:?}"
    );
}

#[track_caller]
fn assert_deq(out: CpOut, mark: bool, e: u8, what: &str) {
    assert!(out.deq_valid, "{what}: deq_valid must be high");
    assert_eq!(
        (out.deq_mark, out.deq_ecn),
        (mark, e),
        "{what}: (deq_mark, deq_ecn) = ({}, {:#04b}), expected ({mark}, {e:#04b})",
        out.deq_mark,
        out.deq_ecn
    );
}

#[track_caller]
fn assert_no_deq(out: CpOut, what: &str) {
    assert!(
        !out.deq_valid && !out.deq_mark && out.deq_ecn == 0,
        "{what}: no dequeue decision expected, got {out:?}"
    );
}

/// Expected decisions of one cycle of a hand-worked table.
#[derive(Clone, Copy)]
struct Expect {
    enq: Option<(u8, u8)>,
    deq: Option<(bool, u8)>,
}

fn e(action: u8, ecn_out: u8) -> Expect {
    Expect {
        enq: Some((action, ecn_out)),
        deq: None,
    }
}

fn d(mark: bool, ecn_out: u8) -> Expect {
    Expect {
        enq: None,
        deq: Some((mark, ecn_out)),
    }
}

fn ed(action: u8, ecn_out: u8, mark: bool, deq_ecn: u8) -> Expect {
    Expect {
        enq: Some((action, ecn_out)),
        deq: Some((mark, deq_ecn)),
    }
}

/// Runs a table of (input, expected decisions) from the bench's current
/// cycle, drains, and checks every decision at `+ DELAY`.
#[track_caller]
fn run_table(b: &mut Bench, table: &[(CpIn, Expect)], what: &str) -> usize {
    let first = b.outs.len();
    for (i, _) in table {
        b.step(*i);
    }
    b.drain();
    for (c, (_, x)) in table.iter().enumerate() {
        let out = b.decision(first + c);
        let w = format!("{what}, row {c}");
        match x.enq {
            Some((a, e)) => assert_enq(out, a, e, &w),
            None => assert_no_enq(out, &w),
        }
        match x.deq {
            Some((m, e)) => assert_deq(out, m, e, &w),
            None => assert_no_deq(out, &w),
        }
    }
    first
}

// ---------------------------------------------------------------------------
// References
// ---------------------------------------------------------------------------

/// The decisions taken for the events of one cycle.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct RefRecord {
    /// (action, ECN out) of the enqueue.
    enq: Option<(u8, u8)>,
    /// (marked, ECN out) of the dequeue.
    deq: Option<(bool, u8)>,
}

/// Coverage counters of a reference run.
#[derive(Clone, Copy, Default, Debug)]
struct Stats {
    enq_admit: usize,
    enq_mark: usize,
    wred: usize,
    tail: usize,
    deq_mark: usize,
    /// ECT events whose outcome depended on the draw (0 < marking draws < 2^16).
    ramp: usize,
    underflows: usize,
    loads: usize,
    resets: usize,
}

/// The contract, written plainly (see the file's doc).
struct RefCp {
    queues: usize,
    at_dequeue: bool,
    reset: CpParamsPort,
    reset_state: u32,
    depth: Vec<u32>,
    underflow: Vec<bool>,
    profile: Vec<CpParamsPort>,
    state: u32,
    /// Index of the current cycle.
    now: usize,
    /// First cycle after the last reset (0: the model was just built).
    since: usize,
    /// Per cycle: the decisions of its events.
    records: Vec<RefRecord>,
    /// Per cycle: the depth of the selected queue and the underflow bits at
    /// its start.
    shown: Vec<(u32, u8)>,
    stats: Stats,
}

impl RefCp {
    fn new(shape: CpShape, reset: CpParams) -> RefCp {
        let q = shape.queues as usize;
        RefCp {
            queues: q,
            at_dequeue: shape.mark_at == MarkAt::Dequeue,
            reset: reset.into(),
            reset_state: seed_rule(reset.seed),
            depth: vec![0; q],
            underflow: vec![false; q],
            profile: vec![reset.into(); q],
            state: seed_rule(reset.seed),
            now: 0,
            since: 0,
            records: Vec::new(),
            shown: Vec::new(),
            stats: Stats::default(),
        }
    }

    fn underflow_bits(&self) -> u8 {
        (0..self.queues)
            .filter(|&k| self.underflow[k])
            .map(|k| 1u8 << k)
            .sum()
    }

    fn outputs(&self) -> CpOut {
        let n = self.now;
        let mut o = CpOut::default();
        if n >= self.since + DELAY {
            let r = self.records[n - DELAY];
            if let Some((a, e)) = r.enq {
                o.dec_valid = true;
                o.dec_action = a;
                o.dec_ecn = e;
            }
            if let Some((m, e)) = r.deq {
                o.deq_valid = true;
                o.deq_mark = m;
                o.deq_ecn = e;
            }
        }
        if n >= self.since + LAG {
            let (dep, u) = self.shown[n - LAG];
            o.depth = dep;
            o.underflow = u;
        }
        o
    }

    fn step(&mut self, i: &CpIn) -> CpOut {
        let out = self.outputs();
        let n = self.now;
        self.now += 1;
        if i.rst {
            let q = self.queues;
            self.depth = vec![0; q];
            self.underflow = vec![false; q];
            self.profile = vec![self.reset; q];
            self.state = self.reset_state;
            self.since = n + 1;
            self.records.push(RefRecord::default());
            self.shown.push((0, 0));
            self.stats.resets += 1;
            return out;
        }
        let queues = self.queues;
        let pick = |x: u8| x as usize % queues;
        let u = self.state >> 16;
        // Every event sees the depths at the start of its cycle.
        let start = self.depth.clone();
        self.shown
            .push((start[pick(i.depth_sel)], self.underflow_bits()));
        let mut rec = RefRecord::default();
        if i.enq_valid {
            let k = pick(i.enq_queue);
            let p = self.profile[k];
            let q = start[k];
            rec.enq = Some(if i.enq_ecn == NOT_ECT && q >= p.kdrop {
                self.stats.wred += 1;
                (DROP_WRED, 0)
            } else if q as u64 + i.enq_len as u64 > p.buf_max as u64 {
                self.stats.tail += 1;
                (DROP_TAIL, 0)
            } else {
                self.depth[k] += i.enq_len;
                if is_ect(i.enq_ecn) && !self.at_dequeue {
                    let m = marking_draws(q, &p);
                    if m > 0 && m < 1 << 16 {
                        self.stats.ramp += 1;
                    }
                }
                if is_ect(i.enq_ecn) && !self.at_dequeue && red_marks(q, u, &p) {
                    self.stats.enq_mark += 1;
                    (MARK, CE)
                } else {
                    self.stats.enq_admit += 1;
                    (ADMIT, i.enq_ecn)
                }
            });
        }
        if i.deq_valid {
            let k = pick(i.deq_queue);
            let p = self.profile[k];
            let q = start[k]; // not counting the same cycle's enqueue
            if is_ect(i.deq_ecn) && self.at_dequeue {
                let m = marking_draws(q, &p);
                if m > 0 && m < 1 << 16 {
                    self.stats.ramp += 1;
                }
            }
            let marked = self.at_dequeue && is_ect(i.deq_ecn) && red_marks(q, u, &p);
            if marked {
                self.stats.deq_mark += 1;
            }
            rec.deq = Some((marked, if marked { CE } else { i.deq_ecn }));
            // The queue as the same cycle's enqueue left it.
            if i.deq_len > self.depth[k] {
                self.underflow[k] = true;
                self.depth[k] = 0;
                self.stats.underflows += 1;
            } else {
                self.depth[k] -= i.deq_len;
            }
        }
        self.records.push(rec);
        if i.cfg_valid {
            self.profile[pick(i.cfg_queue)] = i.cfg;
            self.state = seed_rule(i.cfg.seed);
            self.stats.loads += 1;
        } else {
            self.state = xs32(self.state);
        }
        out
    }
}

/// Q one-queue models, each fed only its queue's events (see the file doc).
struct PerQueueRef {
    queues: usize,
    cps: Vec<Cp>,
    /// The profile each instance holds (to reseed it without changing it).
    profile: Vec<CpParamsPort>,
    reset: CpParamsPort,
    /// Per cycle: the selected queue.
    sel: Vec<usize>,
}

impl PerQueueRef {
    fn new(shape: CpShape, reset: CpParams) -> PerQueueRef {
        let one = CpShape { queues: 1, ..shape };
        let q = shape.queues as usize;
        PerQueueRef {
            queues: q,
            cps: (0..q).map(|_| model(one, reset)).collect(),
            profile: vec![reset.into(); q],
            reset: reset.into(),
            sel: Vec::new(),
        }
    }

    fn depth(&self, k: usize) -> u32 {
        self.cps[k].queue_depth(0)
    }

    fn step(&mut self, i: &CpIn) -> CpOut {
        let q = self.queues;
        let pick = |x: u8| x as usize % q;
        let mut outs = Vec::with_capacity(q);
        for k in 0..q {
            let mut e = CpIn {
                rst: i.rst,
                ..CpIn::default()
            };
            if i.enq_valid && pick(i.enq_queue) == k {
                e = e.enq(0, i.enq_len, i.enq_ecn);
            }
            if i.deq_valid && pick(i.deq_queue) == k {
                e = e.deq(0, i.deq_len, i.deq_ecn);
            }
            if i.cfg_valid {
                e.cfg_valid = true;
                e.cfg = if pick(i.cfg_queue) == k {
                    i.cfg
                } else {
                    CpParamsPort {
                        seed: i.cfg.seed,
                        ..self.profile[k]
                    }
                };
            }
            outs.push(self.cps[k].step(&e));
        }
        if i.rst {
            self.profile = vec![self.reset; q];
        } else if i.cfg_valid {
            self.profile[pick(i.cfg_queue)] = i.cfg;
        }
        let n = self.sel.len();
        self.sel.push(pick(i.depth_sel));

        let mut o = CpOut::default();
        for (k, x) in outs.iter().enumerate() {
            if x.dec_valid {
                assert!(!o.dec_valid, "two queues decided an enqueue in one cycle");
                o.dec_valid = true;
                o.dec_action = x.dec_action;
                o.dec_ecn = x.dec_ecn;
            }
            if x.deq_valid {
                assert!(!o.deq_valid, "two queues decided a dequeue in one cycle");
                o.deq_valid = true;
                o.deq_mark = x.deq_mark;
                o.deq_ecn = x.deq_ecn;
            }
            if x.underflow != 0 {
                o.underflow |= 1 << k;
            }
        }
        // Right after a reset every instance shows 0, whichever is selected.
        o.depth = if n >= LAG {
            outs[self.sel[n - LAG]].depth
        } else {
            outs[0].depth
        };
        o
    }
}

/// A random valid profile for `shape` (thresholds anywhere in a buffer of at
/// least an eighth of the counter; step marking, pmax 0 and 1.0 and seed 0
/// each a quarter of the time).
fn random_params(r: &mut TestRng, shape: &CpShape) -> CpParams {
    let max = shape.depth_max();
    let buf = max / 8 + r.below((max - max / 8) as u64 + 1) as u32;
    let a = r.below(buf as u64 + 1) as u32;
    let b = r.below(buf as u64 + 1) as u32;
    let (kmin, mut kmax) = (a.min(b), a.max(b));
    if r.below(4) == 0 {
        kmax = kmin;
    }
    let p = CpParams {
        kmin,
        kmax,
        pmax: match r.below(4) {
            0 => 0,
            1 => PMAX_ONE,
            _ => r.below(PMAX_ONE as u64 + 1) as u32,
        },
        kdrop: r.below(buf as u64 + 1) as u32,
        buf_max: buf,
        seed: if r.below(4) == 0 { 0 } else { r.next() as u32 },
    };
    p.validate(shape).expect("random params are valid");
    p
}

/// A random multi-queue workload: enqueues and dequeues on raw 8-bit
/// indices (half of them above Q - 1), all ECN codepoints, lengths 0 ..
/// LEN_MAX, a load every ~500 cycles, a reset every ~7000, a random
/// `depth_sel`. The enqueue and dequeue rates change every 4000 cycles so
/// the queues wander over their whole range.
fn random_workload(seed: u64, shape: &CpShape, cycles: usize, resets: bool) -> Vec<CpIn> {
    let mut r = TestRng(seed);
    let q = shape.queues as u64;
    let (mut enq_pct, mut deq_pct) = (50, 50);
    let mut w = Vec::with_capacity(cycles);
    for n in 0..cycles {
        if n % 4000 == 0 {
            enq_pct = 30 + r.below(41);
            deq_pct = 30 + r.below(41);
        }
        let idx = |r: &mut TestRng| {
            if r.below(2) == 0 {
                r.below(q) as u8
            } else {
                r.below(256) as u8
            }
        };
        let len = |r: &mut TestRng| match r.below(8) {
            0 => 0,
            1 => LEN_MAX,
            _ => r.below(LEN_MAX as u64 + 1) as u32,
        };
        let mut i = idle();
        if r.below(100) < enq_pct {
            let (k, l, e) = (idx(&mut r), len(&mut r), r.below(4) as u8);
            i = i.enq(k, l, e);
        }
        if r.below(100) < deq_pct {
            let (k, l, e) = (idx(&mut r), len(&mut r), r.below(4) as u8);
            i = i.deq(k, l, e);
        }
        if r.below(500) == 0 {
            let k = idx(&mut r);
            i = i.load(k, random_params(&mut r, shape));
        }
        i.depth_sel = idx(&mut r);
        if resets && (r.below(15_000) == 0 || n % 13_331 == 13_330) {
            i.rst = true;
        }
        w.push(i);
    }
    w
}

// ---------------------------------------------------------------------------
// 0. The references themselves
// ---------------------------------------------------------------------------

#[test]
fn references_agree_with_hand_values() {
    // xorshift32: Marsaglia (2003), from 2463534242 the first output is
    // 723471715.
    assert_eq!(xs32(2_463_534_242), 723_471_715);
    // Ramp 1000..5000, pmax 52429 (0.8): at q = 3000 the probability is
    // 2000 / 4000 * 52429 / 65536 = 26214.5 / 65536, so 26215 draws mark
    // (u = 0 .. 26214): a fraction that is rounded up.
    let p: CpParamsPort = ramp(1).into();
    assert_eq!(marking_draws(3000, &p), 26_215);
    assert!(red_marks(3000, 26_214, &p) && !red_marks(3000, 26_215, &p));
    assert_eq!(marking_draws(999, &p), 0);
    assert_eq!(marking_draws(1000, &p), 0, "p(kmin) = 0");
    assert_eq!(marking_draws(4999, &p), 52_416); // ceil(3999 * 52429 / 4000)
    assert_eq!(marking_draws(5000, &p), 65_536);
    // Step marking K = 2000.
    let s: CpParamsPort = params(2000, 2000, PMAX_ONE, 3000, 9000, 1).into();
    assert_eq!(marking_draws(1999, &s), 0);
    assert_eq!(marking_draws(2000, &s), 65_536);
}

// ---------------------------------------------------------------------------
// 1. Isolation of the queues
// ---------------------------------------------------------------------------

#[test]
fn four_queues_hand_worked_each_event_sees_only_its_queue() {
    // Step marking at K = 2000, WRED at kdrop = 3000, buffer 10000, the same
    // reset profile for the four queues. Queue 0 starts at 2500 (above K),
    // the others empty: the same ECT packet is marked on queue 0 and not on
    // queue 1, not-ECT is dropped on the full queue 3 and not on queue 0.
    let p = params(2000, 2000, PMAX_ONE, 3000, 10_000, 1);
    let mut b = Bench::new(shape(4, ENQ), p);
    b.fill(0, 2500);
    // (input with depth_sel = its queue, depth of its queue at the start of
    // the cycle, expected decision)
    let script: [(CpIn, u32, Expect); 14] = [
        (idle().enq(1, 1000, ECT0).sel(1), 0, e(ADMIT, ECT0)), // q1 -> 1000
        (idle().enq(0, 100, ECT1).sel(0), 2500, e(MARK, CE)),  // q0 -> 2600
        (idle().enq(1, 1500, ECT0).sel(1), 1000, e(ADMIT, ECT0)), // q1 -> 2500
        (idle().enq(1, 10, ECT0).sel(1), 2500, e(MARK, CE)),   // q1 -> 2510
        (idle().enq(2, 500, NOT_ECT).sel(2), 0, e(ADMIT, NOT_ECT)), // q2 -> 500
        (idle().enq(0, 10, NOT_ECT).sel(0), 2600, e(ADMIT, NOT_ECT)), // q0 -> 2610
        (idle().deq(3, 100, NOT_ECT).sel(3), 0, d(false, NOT_ECT)), // q3 underflow
        (idle().enq(3, 4000, CE).sel(3), 0, e(ADMIT, CE)),     // q3 -> 4000
        (idle().enq(3, 10, NOT_ECT).sel(3), 4000, e(DROP_WRED, 0)), // 4000 >= 3000
        (idle().enq(0, 10, NOT_ECT).sel(0), 2610, e(ADMIT, NOT_ECT)), // q0 -> 2620
        (idle().enq(2, 4095, ECT1).sel(2), 500, e(ADMIT, ECT1)), // q2 -> 4595
        (idle().enq(0, 380, ECT0).sel(0), 2620, e(MARK, CE)),  // q0 -> 3000
        (idle().enq(0, 0, NOT_ECT).sel(0), 3000, e(DROP_WRED, 0)), // q0 = kdrop
        (idle().enq(1, 0, NOT_ECT).sel(1), 2510, e(ADMIT, NOT_ECT)), // q1 < kdrop
    ];
    let table: Vec<(CpIn, Expect)> = script.iter().map(|&(i, _, x)| (i, x)).collect();
    let first = run_table(&mut b, &table, "four queues");
    for (c, &(_, seen, _)) in script.iter().enumerate() {
        assert_eq!(
            b.outs[first + c + LAG].depth,
            seen,
            "depth output 3 cycles after row {c}"
        );
    }
    assert_eq!(
        (0..4).map(|k| b.depth(k)).collect::<Vec<_>>(),
        vec![3000, 2510, 4595, 4000]
    );
    assert_eq!(b.cp.underflow_bits(), 0b1000, "only queue 3 underflowed");
    assert_eq!(b.outs.last().unwrap().underflow, 0b1000);
}

#[test]
fn each_queue_behaves_like_a_one_queue_model_fed_only_its_events() {
    // Q one-queue models side by side (see PerQueueRef): every output of
    // every cycle and every queue's depth must be the same, in both marking
    // modes, with loads (seed 0 included) and resets in the workload.
    for (k, &q) in [2u32, 4, 8].iter().enumerate() {
        for mark_at in [ENQ, DEQ] {
            let s = shape(q, mark_at);
            let mut r = TestRng(0x5151 + k as u64);
            let reset = random_params(&mut r, &s);
            let mut cp = model(s, reset);
            let mut per = PerQueueRef::new(s, reset);
            let w = random_workload(0xa11ce + k as u64, &s, 30_000, true);
            for (n, i) in w.iter().enumerate() {
                let (a, b) = (cp.step(i), per.step(i));
                assert_eq!(a, b, "Q {q}, {mark_at:?}: cycle {n}, input {i:?}");
                for j in 0..q as usize {
                    assert_eq!(
                        cp.queue_depth(j),
                        per.depth(j),
                        "Q {q}: depth {j} after {n}"
                    );
                }
            }
        }
    }
}

#[test]
fn events_on_one_queue_never_change_another_queues_decisions_depth_or_underflow() {
    // Metamorphic: run a workload, and again with the events on one victim
    // queue removed, changed or added (loads, resets and the other queues'
    // events untouched). Every other queue must see no difference: its
    // depth in every cycle, its underflow bit, the depth output when it is
    // the selected queue, and the decisions of its events. This needs no
    // reference: the random draws do not depend on events.
    for (k, &q) in [2u32, 4, 8].iter().enumerate() {
        for mark_at in [ENQ, DEQ] {
            let s = shape(q, mark_at);
            let mut r = TestRng(0xbeef + k as u64);
            let reset = random_params(&mut r, &s);
            let w = random_workload(0x0dd + k as u64, &s, 20_000, true);
            let victim = r.below(q as u64) as usize;
            let on_victim = |x: u8| x as usize % q as usize == victim;
            let w2: Vec<CpIn> = w
                .iter()
                .map(|i| {
                    let mut j = *i;
                    if j.enq_valid && on_victim(j.enq_queue) {
                        match r.below(3) {
                            0 => j.enq_valid = false,
                            1 => {
                                j.enq_len = r.below(LEN_MAX as u64 + 1) as u32;
                                j.enq_ecn = r.below(4) as u8;
                            }
                            _ => {}
                        }
                    } else if !j.enq_valid && r.below(4) == 0 {
                        j = j.enq(
                            victim as u8 + q as u8 * r.below(4) as u8,
                            2000,
                            r.below(4) as u8,
                        );
                    }
                    if j.deq_valid && on_victim(j.deq_queue) {
                        match r.below(3) {
                            0 => j.deq_valid = false,
                            1 => {
                                j.deq_len = r.below(LEN_MAX as u64 + 1) as u32;
                                j.deq_ecn = r.below(4) as u8;
                            }
                            _ => {}
                        }
                    } else if !j.deq_valid && r.below(4) == 0 {
                        j = j.deq(
                            victim as u8,
                            r.below(LEN_MAX as u64 + 1) as u32,
                            r.below(4) as u8,
                        );
                    }
                    j
                })
                .collect();
            let run = |w: &[CpIn]| {
                let mut cp = model(s, reset);
                let mut outs = Vec::new();
                let mut depths = Vec::new();
                for i in w.iter().chain(std::iter::repeat_n(&idle(), DELAY)) {
                    outs.push(cp.step(i));
                    depths.push((
                        (0..q as usize)
                            .map(|j| cp.queue_depth(j))
                            .collect::<Vec<_>>(),
                        cp.underflow_bits(),
                    ));
                }
                (outs, depths)
            };
            let (oa, da) = run(&w);
            let (ob, db) = run(&w2);
            let others = !(1u8 << victim) & ((1u16 << q) - 1) as u8;
            let mut compared = 0;
            for n in 0..w.len() {
                let what = format!("Q {q}, {mark_at:?}, victim {victim}, cycle {n}");
                for j in (0..q as usize).filter(|&j| j != victim) {
                    assert_eq!(da[n].0[j], db[n].0[j], "{what}: depth of queue {j}");
                }
                assert_eq!(da[n].1 & others, db[n].1 & others, "{what}: underflow bits");
                assert_eq!(
                    oa[n].underflow & others,
                    ob[n].underflow & others,
                    "{what}: underflow out"
                );
                if n >= LAG && !on_victim(w[n - LAG].depth_sel) {
                    assert_eq!(oa[n].depth, ob[n].depth, "{what}: depth output");
                }
                let (a, b) = (oa[n + DELAY], ob[n + DELAY]);
                let enq_vic = |i: &CpIn| i.enq_valid && on_victim(i.enq_queue);
                let deq_vic = |i: &CpIn| i.deq_valid && on_victim(i.deq_queue);
                if !enq_vic(&w[n]) && !enq_vic(&w2[n]) {
                    assert_eq!(
                        (a.dec_valid, a.dec_action, a.dec_ecn),
                        (b.dec_valid, b.dec_action, b.dec_ecn),
                        "{what}: enqueue decision"
                    );
                    compared += w[n].enq_valid as usize;
                }
                if !deq_vic(&w[n]) && !deq_vic(&w2[n]) {
                    assert_eq!(
                        (a.deq_valid, a.deq_mark, a.deq_ecn),
                        (b.deq_valid, b.deq_mark, b.deq_ecn),
                        "{what}: dequeue decision"
                    );
                }
            }
            assert!(compared > 1000, "enough decisions compared ({compared})");
            assert_ne!(oa, ob, "the victim's changes are visible somewhere");
        }
    }
}

// ---------------------------------------------------------------------------
// 2. Back-to-back and same-cycle events
// ---------------------------------------------------------------------------

#[test]
fn back_to_back_events_on_one_queue_see_each_other() {
    // Queue 2 of 4, step marking at K = 2000, kdrop 3000, buffer 5000. Each
    // row sees the depth the previous row left (no lag between events).
    let p = params(2000, 2000, PMAX_ONE, 3000, 5000, 1);
    let mut b = Bench::new(shape(4, ENQ), p);
    // (input, depth of queue 2 at the start of the cycle, decision)
    let script: [(CpIn, u32, Expect); 10] = [
        (idle().enq(2, 1500, ECT0), 0, e(ADMIT, ECT0)), // -> 1500
        (idle().enq(2, 600, ECT1), 1500, e(ADMIT, ECT1)), // -> 2100
        (idle().enq(2, 10, ECT0), 2100, e(MARK, CE)),   // -> 2110
        (idle().deq(2, 200, ECT0), 2110, d(false, ECT0)), // -> 1910
        (idle().enq(2, 10, ECT0), 1910, e(ADMIT, ECT0)), // -> 1920
        (idle().enq(2, 3081, CE), 1920, e(DROP_TAIL, 0)), // 5001 > 5000
        (idle().enq(2, 3080, CE), 1920, e(ADMIT, CE)),  // -> 5000
        (idle().enq(2, 0, NOT_ECT), 5000, e(DROP_WRED, 0)), // >= kdrop
        (idle().deq(2, 2500, CE), 5000, d(false, CE)),  // -> 2500
        (idle().enq(2, 1, NOT_ECT), 2500, e(ADMIT, NOT_ECT)), // -> 2501
    ];
    let mut ins = Vec::new();
    for &(i, seen, _) in &script {
        assert_eq!(b.depth(2), seen, "depth seen by {i:?}");
        b.step(i.sel(2));
        ins.push(i);
    }
    b.drain();
    for (c, &(_, seen, x)) in script.iter().enumerate() {
        let out = b.decision(c);
        match x.enq {
            Some((a, e)) => assert_enq(out, a, e, &format!("row {c}")),
            None => assert_no_enq(out, &format!("row {c}")),
        }
        match x.deq {
            Some((m, e)) => assert_deq(out, m, e, &format!("row {c}")),
            None => assert_no_deq(out, &format!("row {c}")),
        }
        assert_eq!(b.outs[c + LAG].depth, seen, "depth output of row {c} + 3");
    }
    assert_eq!(b.depth(2), 2501);
    for k in [0, 1, 3] {
        assert_eq!(b.depth(k), 0, "queue {k} untouched");
    }
}

#[test]
fn same_cycle_enqueue_and_dequeue_on_one_queue_enqueue_first_no_room_made() {
    let sh = shape(4, ENQ);
    // Tail: q3 = 2000, buffer 3000, enqueue 1500 with a dequeue of 1000 in
    // the same cycle: 2000 + 1500 > 3000, dropped (the dequeue makes no
    // room); depth 2000 - 1000 = 1000.
    let mut b = Bench::new(sh, params(3000, 3000, PMAX_ONE, 3000, 3000, 1));
    b.fill(3, 2000);
    run_table(
        &mut b,
        &[(
            idle().enq(3, 1500, ECT0).deq(3, 1000, ECT0),
            ed(DROP_TAIL, 0, false, ECT0),
        )],
        "tail",
    );
    assert_eq!(b.depth(3), 1000);

    // WRED: q3 = kdrop = 2000 with a dequeue of 500: still dropped; 1500.
    let mut b = Bench::new(sh, params(5000, 5000, PMAX_ONE, 2000, 5000, 1));
    b.fill(3, 2000);
    run_table(
        &mut b,
        &[(
            idle().enq(3, 10, NOT_ECT).deq(3, 500, NOT_ECT),
            ed(DROP_WRED, 0, false, NOT_ECT),
        )],
        "wred",
    );
    assert_eq!(b.depth(3), 1500);

    // Marking: step at K = 2000, q3 = 2000, a dequeue of 1000 in the same
    // cycle: marked (decided at 2000); depth 2000 + 300 - 1000 = 1300.
    let mut b = Bench::new(sh, params(2000, 2000, PMAX_ONE, 5000, 5000, 1));
    b.fill(3, 2000);
    run_table(
        &mut b,
        &[(
            idle().enq(3, 300, ECT1).deq(3, 1000, ECT0),
            ed(MARK, CE, false, ECT0),
        )],
        "mark",
    );
    assert_eq!(b.depth(3), 1300);

    // Enqueue first: an empty queue with enqueue 500 and dequeue 500 ends
    // at 0 with no underflow; with dequeue 501 it underflows (the queue
    // held 500 when the dequeue was applied): depth 0, bit 3.
    let mut b = Bench::new(sh, all_admit());
    run_table(
        &mut b,
        &[(
            idle().enq(3, 500, CE).deq(3, 500, CE),
            ed(ADMIT, CE, false, CE),
        )],
        "exact",
    );
    assert_eq!((b.depth(3), b.cp.underflow_bits()), (0, 0));
    assert_eq!(b.outs.last().unwrap().underflow, 0);
    run_table(
        &mut b,
        &[(
            idle().enq(3, 500, CE).deq(3, 501, CE),
            ed(ADMIT, CE, false, CE),
        )],
        "one byte more",
    );
    assert_eq!((b.depth(3), b.cp.underflow_bits()), (0, 0b1000));
    assert_eq!(b.outs.last().unwrap().underflow, 0b1000);

    // A dropped enqueue adds nothing for its cycle's dequeue: q3 = 1000,
    // buffer 1200, enqueue 500 (tail drop) with dequeue 1000 -> 0, no
    // underflow; again with dequeue 1001 -> underflow.
    let mut b = Bench::new(sh, params(1200, 1200, PMAX_ONE, 1200, 1200, 1));
    b.fill(3, 1000);
    run_table(
        &mut b,
        &[(
            idle().enq(3, 500, CE).deq(3, 1000, CE),
            ed(DROP_TAIL, 0, false, CE),
        )],
        "drop + exact dequeue",
    );
    assert_eq!((b.depth(3), b.cp.underflow_bits()), (0, 0));
    b.fill(3, 1000);
    run_table(
        &mut b,
        &[(
            idle().enq(3, 500, CE).deq(3, 1001, CE),
            ed(DROP_TAIL, 0, false, CE),
        )],
        "drop + long dequeue",
    );
    assert_eq!((b.depth(3), b.cp.underflow_bits()), (0, 0b1000));
}

#[test]
fn same_cycle_events_on_different_queues_do_not_interact() {
    // Step K = 2000, kdrop 2500, buffer 3000 on all four queues.
    let p = params(2000, 2000, PMAX_ONE, 2500, 3000, 1);
    let mut b = Bench::new(shape(4, ENQ), p);
    b.fill(1, 2000);
    b.fill(0, 2500);
    let table = [
        // q1 2000 + 1000 = 3000 fits; the dequeue empties q0 (2500 -> 0).
        (
            idle().enq(1, 1000, CE).deq(0, 2500, ECT0),
            ed(ADMIT, CE, false, ECT0),
        ),
        // q1 full: one byte is a tail drop, whatever leaves queue 2.
        (
            idle().enq(1, 1, CE).deq(2, 0, ECT1),
            ed(DROP_TAIL, 0, false, ECT1),
        ),
        // q0 empty: admitted unmarked (0 < K) while q1 drains 3000 -> 0.
        (
            idle().enq(0, 1999, ECT0).deq(1, 3000, CE),
            ed(ADMIT, ECT0, false, CE),
        ),
        // q0 1999 < K: admitted -> 2000.
        (
            idle().enq(0, 1, ECT0).deq(1, 0, NOT_ECT),
            ed(ADMIT, ECT0, false, NOT_ECT),
        ),
        // q0 2000 >= K: marked; the dequeue on the empty q2 underflows
        // (the enqueue on q0 does not help it).
        (
            idle().enq(0, 0, ECT1).deq(2, 10, ECT0),
            ed(MARK, CE, false, ECT0),
        ),
        // q2 0 -> 100 while q0 2000 -> 0.
        (
            idle().enq(2, 100, CE).deq(0, 2000, ECT0),
            ed(ADMIT, CE, false, ECT0),
        ),
        // Same queue, for contrast: 0 + 50 - 50 = 0, no underflow on q3.
        (
            idle().enq(3, 50, NOT_ECT).deq(3, 50, NOT_ECT),
            ed(ADMIT, NOT_ECT, false, NOT_ECT),
        ),
        // q1 0 < kdrop: admitted; q2 100 -> 0.
        (
            idle().enq(1, 0, NOT_ECT).deq(2, 100, CE),
            ed(ADMIT, NOT_ECT, false, CE),
        ),
    ];
    run_table(&mut b, &table, "different queues");
    assert_eq!(
        (0..4).map(|k| b.depth(k)).collect::<Vec<_>>(),
        vec![0, 0, 0, 0]
    );
    assert_eq!(b.cp.underflow_bits(), 0b0100, "only queue 2 underflowed");
    assert_eq!(b.outs.last().unwrap().underflow, 0b0100);
}

// ---------------------------------------------------------------------------
// 3. Profiles
// ---------------------------------------------------------------------------

#[test]
fn a_load_changes_only_its_queues_profile_from_the_next_cycle() {
    // Reset A: step at 1000, kdrop 5000. B: step at 2000, kdrop 1000. D:
    // everything at 1600 (a 1600-byte buffer). All queues at 1500.
    let a = params(1000, 1000, PMAX_ONE, 5000, 60_000, 1);
    let bp = params(2000, 2000, PMAX_ONE, 1000, 60_000, 7);
    let dp = params(1600, 1600, PMAX_ONE, 1600, 1600, 9);
    let mut b = Bench::new(shape(4, ENQ), a);
    for k in 0..4 {
        b.fill(k, 1500);
    }
    let table = [
        // Load B into queue 2; the enqueue of the load's cycle uses A.
        (idle().enq(2, 0, ECT0).load(2, bp), e(MARK, CE)),
        (idle().enq(2, 0, ECT0), e(ADMIT, ECT0)), // B: 1500 < 2000
        (idle().enq(0, 0, ECT0), e(MARK, CE)),    // A
        (idle().enq(1, 0, ECT1), e(MARK, CE)),    // A
        (idle().enq(3, 0, ECT0), e(MARK, CE)),    // A
        (idle().enq(2, 0, NOT_ECT), e(DROP_WRED, 0)), // B: 1500 >= 1000
        (idle().enq(1, 0, NOT_ECT), e(ADMIT, NOT_ECT)), // A: 1500 < 5000
        (idle().enq(3, 0, NOT_ECT), e(ADMIT, NOT_ECT)), // A
        // Load D into queue 1 while queue 0 takes 200 (A: fits) -> 1700.
        (idle().enq(0, 200, CE).load(1, dp), e(ADMIT, CE)),
        (idle().enq(1, 200, CE), e(DROP_TAIL, 0)), // D: 1700 > 1600
        (idle().enq(3, 200, CE), e(ADMIT, CE)),    // A: -> 1700
        (idle().enq(1, 100, CE), e(ADMIT, CE)),    // D: 1600 <= 1600
        (idle().enq(0, 0, ECT1), e(MARK, CE)),     // A: 1700 >= 1000
        (idle().enq(1, 0, ECT1), e(MARK, CE)),     // D: 1600 >= 1600
    ];
    run_table(&mut b, &table, "profiles");
    let want: [CpParamsPort; 4] = [a.into(), dp.into(), bp.into(), a.into()];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(b.cp.queue_params(k), *w, "profile of queue {k}");
    }

    // Eight queues: a load to queue 7 leaves queues 0..6 alone.
    let mut b = Bench::new(shape(8, ENQ), a);
    b.step(idle().load(7, bp));
    for k in 0..7 {
        assert_eq!(b.cp.queue_params(k), CpParamsPort::from(a), "queue {k}");
    }
    assert_eq!(b.cp.queue_params(7), CpParamsPort::from(bp));
    b.fill(7, 1500);
    b.fill(6, 1500);
    run_table(
        &mut b,
        &[
            (idle().enq(7, 0, ECT0), e(ADMIT, ECT0)),
            (idle().enq(6, 0, ECT0), e(MARK, CE)),
        ],
        "eight queues",
    );
}

#[test]
fn every_load_of_any_queue_reseeds_the_shared_random_source() {
    // Ramp profile (p(3000) = 0.4) on four queues at 3000. Zero-length ECT
    // enqueues on random queues; each decision is predicted with this
    // file's xorshift and ramp: the draw of the enqueue's cycle, the profile
    // of its queue in force in that cycle. Loads to different queues (one
    // with seed 0, one that also makes queue 2 never mark) carry an
    // enqueue on the loaded queue in their own cycle (old profile, old
    // draw).
    let reset = ramp(0x1357_9bdf);
    let never = params(60_000, 60_000, PMAX_ONE, 60_000, 60_000, 0x0000_1234);
    let mut b = Bench::new(shape(4, ENQ), reset);
    for k in 0..4 {
        b.fill(k, 3000);
    }
    let loads = [
        (5_000usize, 3u8, ramp(0xfeed_f00d)),
        (9_000, 1, ramp(0)),
        (14_000, 2, never),
    ];
    let mut profile: [CpParamsPort; 4] = [reset.into(); 4];
    let mut r = TestRng(77);
    let mut expected = Vec::new();
    let first = b.outs.len();
    for n in 0..20_000 {
        let k = r.below(4) as u8;
        let mut i = idle().enq(k, 0, if r.below(2) == 0 { ECT0 } else { ECT1 });
        let load = loads.iter().find(|&&(at, _, _)| at == n);
        if let Some(&(_, lq, p)) = load {
            i = idle().enq(lq, 0, ECT0).load(lq, p);
        }
        let c = b.step(i);
        let q = i.enq_queue as usize;
        expected.push(red_marks(3000, b.draws[c], &profile[q]));
        if let Some(&(_, lq, p)) = load {
            profile[lq as usize] = p.into();
        }
        assert_eq!(
            b.cp.draw(),
            b.state >> 16,
            "draw of cycle {} (after {n})",
            c + 1
        );
    }
    b.drain();
    let mut marks = 0usize;
    for (n, &m) in expected.iter().enumerate() {
        let out = b.decision(first + n);
        if m {
            marks += 1;
            assert_enq(out, MARK, CE, &format!("enqueue {n}"));
        } else {
            assert!(
                out.dec_valid && out.dec_action == ADMIT,
                "enqueue {n}: {out:?}"
            );
        }
    }
    assert!(
        marks > 4000 && marks < 12_000,
        "both outcomes occur ({marks} marks)"
    );
}

#[test]
fn a_load_of_seed_zero_to_any_queue_selects_reset_seed() {
    // Three models with the same history up to a load in cycle 17: to
    // queue 1 with seed 0, to queue 3 with seed RESET_SEED, to queue 1 with
    // RESET_SEED ^ 1 (the same ramp profile each time, so the only
    // difference is the seed). Afterwards 10000 ECT enqueues on queue 0 at
    // p = 0.4: the first two must decide identically, the third not.
    let sh = shape(4, ENQ);
    let run_with = |queue: u8, seed: u32| {
        let mut b = Bench::new(sh, ramp(0x0bad_cafe));
        b.idle(17);
        b.step(idle().load(queue, ramp(seed)));
        assert_eq!(
            b.cp.draw(),
            seed_rule(seed) >> 16,
            "draw right after the load"
        );
        b.fill(0, 3000);
        let first = b.steps(&vec![idle().enq(0, 0, ECT1); 10_000]);
        b.drain();
        (first..first + 10_000)
            .map(|n| b.decision(n))
            .collect::<Vec<_>>()
    };
    let zero = run_with(1, 0);
    assert_eq!(
        zero,
        run_with(3, RESET_SEED),
        "seed 0 == RESET_SEED, any queue"
    );
    assert_ne!(zero, run_with(1, RESET_SEED ^ 1), "the seed matters");
    let marks = zero.iter().filter(|o| o.dec_action == MARK).count();
    assert!(marks > 1000 && marks < 9000, "{marks} marks");
    // As the configured reset seed, with four queues.
    let fresh = |seed: u32| {
        let mut b = Bench::new(sh, ramp(seed));
        b.fill(2, 3000);
        let first = b.steps(&vec![idle().enq(2, 0, ECT0); 5_000]);
        b.drain();
        (first..first + 5_000)
            .map(|n| b.decision(n))
            .collect::<Vec<_>>()
    };
    assert_eq!(fresh(0), fresh(RESET_SEED));
}

#[test]
fn rst_restores_the_same_reset_profile_for_every_queue() {
    // Reset profile R (step at 1000, kdrop 2000). Load a different profile
    // into each of eight queues, fill, underflow, then rst: every queue has R
    // again, is empty, and the block behaves like a fresh one.
    let reset = params(1000, 1000, PMAX_ONE, 2000, 60_000, 0xabc);
    let sh = shape(8, ENQ);
    let mut b = Bench::new(sh, reset);
    for k in 0..8u8 {
        let x = 100 * k as u32 + 3000;
        b.step(idle().load(k, params(x, x, PMAX_ONE, 50_000, 60_000, k as u32 + 1)));
    }
    for k in 0..8u8 {
        b.fill(k, 1000 + 500 * k as u32);
    }
    b.step(idle().deq(5, 4095, CE)); // 3500 - 4095: underflow on queue 5
    b.steps(&[idle().enq(1, 10, ECT0), idle().enq(4, 10, NOT_ECT), idle()]);
    // The underflow was in cycle r - 4: the state at the start of r - 3,
    // which the rst cycle r shows, has it.
    let r = b.step(rst().enq(2, 100, ECT0).load(3, params(5, 5, 5, 5, 5, 5)));
    assert_eq!(
        b.outs[r].underflow, 0b0010_0000,
        "the rst cycle shows the old state"
    );
    for k in 0..8 {
        assert_eq!(b.cp.queue_params(k), CpParamsPort::from(reset), "queue {k}");
        assert_eq!(b.depth(k), 0, "queue {k} empty");
    }
    assert_eq!(b.cp.underflow_bits(), 0);
    // Nothing in flight: 12 cycles of nothing.
    for c in 0..DELAY {
        let out = b.cp.step(&idle());
        assert_no_enq(out, &format!("cycle {c} after rst"));
        assert_no_deq(out, &format!("cycle {c} after rst"));
        assert_eq!((out.depth, out.underflow), (0, 0));
    }
    // The reset profile on every queue: at 1500, ECT is marked (>= 1000)
    // and not-ECT admitted (< 2000).
    let mut b = Bench::new(sh, reset);
    for k in 0..8u8 {
        b.step(idle().load(k, params(3000, 3000, PMAX_ONE, 3000, 60_000, 1)));
    }
    b.step(rst());
    for k in 0..8u8 {
        b.fill(k, 1500);
        run_table(
            &mut b,
            &[
                (idle().enq(k, 0, ECT0), e(MARK, CE)),
                (idle().enq(k, 0, NOT_ECT), e(ADMIT, NOT_ECT)),
            ],
            &format!("queue {k} after rst"),
        );
    }
    // Equivalence with a fresh model from the cycle after the rst, on a
    // random workload over all queues (same random state included).
    let mut cp = model(sh, reset);
    let mut r = TestRng(3);
    for _ in 0..1000 {
        let i = random_workload(r.next(), &sh, 1, false)[0];
        cp.step(&i);
    }
    cp.step(&rst());
    let mut fresh = model(sh, reset);
    for (n, i) in random_workload(99, &sh, 10_000, false).iter().enumerate() {
        assert_eq!(cp.step(i), fresh.step(i), "cycle {n} after rst");
    }
}

// ---------------------------------------------------------------------------
// 4. Queue index masking
// ---------------------------------------------------------------------------

#[test]
fn queue_bits_and_queue_of_use_the_low_log2_q_bits() {
    for (q, bits) in [(1u32, 1u32), (2, 1), (4, 2), (8, 3)] {
        let s = shape(q, ENQ);
        assert_eq!(s.queue_bits(), bits, "queue_bits for Q = {q}");
        for x in 0..=255u8 {
            let want = if q == 1 { 0 } else { x as usize % q as usize };
            assert_eq!(s.queue_of(x), want, "queue_of({x}) for Q = {q}");
        }
    }
    assert_eq!(CpShape::new(24, 14).queues, 1, "the one-queue constructor");
    assert_eq!(CpShape::default().queues, 1);
    assert_eq!(CpShape::default().mark_at, MarkAt::Enqueue);
}

#[test]
fn with_one_queue_every_index_names_queue_0() {
    // Step at 1000 (then 2000 after the load), nothing dropped.
    let p = params(1000, 1000, PMAX_ONE, 60_000, 60_000, 1);
    let p2 = params(2000, 2000, PMAX_ONE, 60_000, 60_000, 1);
    let mut b = Bench::new(shape(1, ENQ), p);
    let table = [
        (idle().enq(5, 300, ECT0).sel(7), e(ADMIT, ECT0)), // 0 -> 300
        (idle().enq(200, 800, ECT1).sel(255), e(ADMIT, ECT1)), // 300 -> 1100
        (idle().enq(1, 0, ECT0).sel(1), e(MARK, CE)),      // 1100 >= 1000
        (idle().deq(9, 100, ECT0).load(3, p2).sel(3), d(false, ECT0)), // -> 1000
        (idle().enq(6, 0, ECT0).sel(128), e(ADMIT, ECT0)), // p2: 1000 < 2000
        (idle().deq(128, 1001, CE).sel(64), d(false, CE)), // underflow
    ];
    let first = run_table(&mut b, &table, "one queue");
    for (c, want) in [0u32, 300, 1100, 1100, 1000, 1000].iter().enumerate() {
        assert_eq!(
            b.outs[first + c + LAG].depth,
            *want,
            "depth output of row {c} + 3"
        );
    }
    assert_eq!(b.cp.queue_params(0), CpParamsPort::from(p2));
    assert_eq!(b.cp.underflow_bits(), 1);
    assert_eq!(b.outs.last().unwrap().underflow, 1);
    assert_eq!(b.depth(0), 0);
}

#[test]
fn only_the_low_log2_q_bits_of_an_index_count() {
    // Four queues, all admitted: enq_queue 6 -> 2, 13 -> 1, 255 -> 3,
    // deq_queue 14 -> 2, 13 -> 1, depth_sel 9 -> 1, 10 -> 2, 7 -> 3, 4 -> 0.
    let k = params(100, 100, PMAX_ONE, 60_000, 60_000, 5);
    let mut b = Bench::new(shape(4, ENQ), all_admit());
    // (input, depth output expected 3 cycles later)
    let script: [(CpIn, u32); 7] = [
        (idle().enq(6, 300, CE).sel(2), 0),    // q2 -> 300
        (idle().enq(13, 200, CE).sel(6), 300), // q1 -> 200; shows q2
        (idle().deq(14, 50, CE).sel(9), 200),  // q2 -> 250; shows q1
        (idle().enq(255, 70, CE).sel(255), 0), // q3 -> 70; shows q3
        (idle().deq(13, 201, CE).sel(1), 200), // q1 underflow -> 0
        (idle().load(0xff, k).sel(10), 250),   // q3 profile; shows q2
        (idle().sel(7), 70),                   // shows q3
    ];
    let first = b.steps(&script.map(|(i, _)| i));
    b.drain();
    for (c, &(_, want)) in script.iter().enumerate() {
        assert_eq!(b.outs[first + c + LAG].depth, want, "row {c}");
    }
    assert_eq!(
        (0..4).map(|j| b.depth(j)).collect::<Vec<_>>(),
        vec![0, 0, 250, 70]
    );
    assert_eq!(b.cp.underflow_bits(), 0b0010, "bit of queue 1 (13 & 3)");
    for j in 0..3 {
        assert_eq!(b.cp.queue_params(j), CpParamsPort::from(all_admit()));
    }
    assert_eq!(b.cp.queue_params(3), CpParamsPort::from(k));

    // Every raw index, every Q: a one-byte enqueue on index x grows queue
    // x mod Q only.
    for q in SUPPORTED_QUEUES.iter().copied() {
        let mut cp = model(shape(q, ENQ), all_admit());
        let mut want = vec![0u32; q as usize];
        for x in 0..=255u8 {
            cp.step(&idle().enq(x, 1, CE));
            want[x as usize % q as usize] += 1;
            for (j, &w) in want.iter().enumerate() {
                assert_eq!(cp.queue_depth(j), w, "Q {q}, index {x}, queue {j}");
            }
        }
    }
}

#[test]
fn raw_indices_behave_exactly_like_their_low_bits() {
    // A random workload with raw 8-bit indices, and the same with every
    // index reduced mod Q (and with Q = 1 set to 0): identical outputs.
    for (n, &q) in SUPPORTED_QUEUES.iter().enumerate() {
        for mark_at in [ENQ, DEQ] {
            let s = shape(q, mark_at);
            let mut r = TestRng(0x1d + n as u64);
            let reset = random_params(&mut r, &s);
            let w = random_workload(0x3a5c + n as u64, &s, 10_000, true);
            let low = |x: u8| (x as u32 % q) as u8;
            let mut a = model(s, reset);
            let mut b = model(s, reset);
            let mut raw_high = 0;
            for (c, i) in w.iter().enumerate() {
                let j = CpIn {
                    enq_queue: low(i.enq_queue),
                    deq_queue: low(i.deq_queue),
                    cfg_queue: low(i.cfg_queue),
                    depth_sel: low(i.depth_sel),
                    ..*i
                };
                raw_high += (j != *i) as usize;
                assert_eq!(a.step(i), b.step(&j), "Q {q}, {mark_at:?}, cycle {c}");
            }
            assert!(raw_high > 1000, "the workload uses high index bits");
        }
    }
}

// ---------------------------------------------------------------------------
// 5. Depth and underflow outputs
// ---------------------------------------------------------------------------

#[test]
fn depth_output_shows_depth_sel_of_three_cycles_before_at_its_start() {
    // Four queues, everything admitted. The depth output of cycle n is the
    // depth of queue sel(n - 3) at the start of cycle n - 3; the depth_sel
    // of the current cycle has no effect yet. Rows: input; the depths
    // (q0, q1, q2, q3) at the start of the row's cycle are in the comment.
    let mut b = Bench::new(shape(4, ENQ), all_admit());
    let rows = [
        idle().enq(0, 100, CE).sel(0),                  // c0  (0, 0, 0, 0)
        idle().enq(1, 200, CE).sel(1),                  // c1  (100, 0, 0, 0)
        idle().enq(2, 300, CE).sel(0),                  // c2  (100, 200, 0, 0)
        idle().enq(3, 400, CE).sel(2),                  // c3  (100, 200, 300, 0)
        idle().deq(0, 50, CE).sel(3),                   // c4  (100, 200, 300, 400)
        idle().enq(1, 1000, CE).deq(1, 100, CE).sel(1), // c5 (50, 200, 300, 400)
        idle().sel(0),                                  // c6  (50, 1100, 300, 400)
        idle().deq(3, 400, CE).enq(2, 5, CE).sel(3),    // c7  (50, 1100, 300, 400)
        idle().sel(2),                                  // c8  (50, 1100, 305, 0)
        idle().sel(3),                                  // c9  (50, 1100, 305, 0)
        idle().sel(1),                                  // c10 (50, 1100, 305, 0)
        idle().sel(0),                                  // c11
        idle().sel(0),                                  // c12
        idle().sel(0),                                  // c13
        idle().sel(0),                                  // c14
        idle().sel(0),                                  // c15
        idle().sel(0),                                  // c16
    ];
    // Output of cycle n: 0 for n < 3 (reset), then sel(n-3) at start(n-3):
    //  3: c0 sel0 -> 0;    4: c1 sel1 -> 0;     5: c2 sel0 -> 100;
    //  6: c3 sel2 -> 300;  7: c4 sel3 -> 400;   8: c5 sel1 -> 200;
    //  9: c6 sel0 -> 50;  10: c7 sel3 -> 400;  11: c8 sel2 -> 305;
    // 12: c9 sel3 -> 0;   13: c10 sel1 -> 1100; 14..16: sel0 -> 50.
    let want = [
        0u32, 0, 0, 0, 0, 100, 300, 400, 200, 50, 400, 305, 0, 1100, 50, 50, 50,
    ];
    b.steps(&rows);
    for (n, &w) in want.iter().enumerate() {
        assert_eq!(b.outs[n].depth, w, "depth output of cycle {n}");
        assert_eq!(b.outs[n].underflow, 0, "no underflow in cycle {n}");
    }
}

#[test]
fn underflow_bits_are_per_queue_sticky_lag_three_cycles_and_clear_on_rst() {
    let mut b = Bench::new(shape(4, ENQ), all_admit());
    b.fill(1, 1000);
    // Cycle a: an exact dequeue is no underflow. a + 1: a dequeue on the
    // empty queue 2 sets bit 2 in the state at the start of a + 2, shown
    // from a + 2 + 3 = a + 5. a + 2: enqueue first, 10 - 5, no underflow.
    let a = b.steps(&[
        idle().deq(1, 1000, CE),
        idle().deq(2, 1, CE),
        idle().enq(0, 10, CE).deq(0, 5, CE),
    ]);
    assert_eq!(b.cp.underflow_bits(), 0b0100, "state, no lag");
    b.idle(8);
    for k in 0..=10 {
        let want = if k >= 5 { 0b0100 } else { 0 };
        assert_eq!(b.outs[a + k].underflow, want, "underflow output of a + {k}");
    }
    // Cycle c: queue 0 holds 5, a dequeue of 6 sets bit 0 from c + 4 on.
    let c = b.step(idle().deq(0, 6, CE));
    assert_eq!(b.cp.underflow_bits(), 0b0101);
    b.idle(8);
    for k in 0..=8 {
        let want = if k >= 4 { 0b0101 } else { 0b0100 };
        assert_eq!(b.outs[c + k].underflow, want, "underflow output of c + {k}");
    }
    // Sticky through loads of those queues and normal traffic on them.
    b.steps(&[
        idle().load(0, all_admit()),
        idle().load(2, all_admit()).enq(2, 1000, CE),
        idle().deq(2, 1000, CE).enq(0, 10, CE),
        idle().deq(0, 10, CE),
    ]);
    b.idle(8);
    assert_eq!(b.cp.underflow_bits(), 0b0101, "sticky");
    // rst in cycle r: cycle r shows the bits, r + 1 on shows 0 (and depth 0).
    let r = b.step(rst());
    assert_eq!(b.cp.underflow_bits(), 0);
    b.idle(6);
    assert_eq!(
        b.outs[r].underflow, 0b0101,
        "outputs of the rst cycle are normal"
    );
    for k in 1..=6 {
        assert_eq!(
            (b.outs[r + k].underflow, b.outs[r + k].depth),
            (0, 0),
            "r + {k}"
        );
    }
    // After rst: an underflow on queue 3 alone shows 0b1000.
    let u = b.step(idle().deq(3, 1, CE));
    b.idle(5);
    assert_eq!(b.outs[u + 3].underflow, 0);
    assert_eq!(b.outs[u + 4].underflow, 0b1000);

    // Eight queues: queue 7 is bit 7; queues 1..6 untouched.
    let mut b = Bench::new(shape(8, ENQ), all_admit());
    b.step(idle().deq(7, 1, CE));
    b.step(idle().deq(0, 1, CE));
    b.idle(4);
    assert_eq!(b.cp.underflow_bits(), 0b1000_0001);
    assert_eq!(b.outs.last().unwrap().underflow, 0b1000_0001);
    // Two queues: only bits 0 and 1 can ever rise, whatever the index.
    let mut b = Bench::new(shape(2, DEQ), all_admit());
    b.step(idle().deq(0xff, 1, CE));
    b.idle(4);
    assert_eq!(b.outs.last().unwrap().underflow, 0b10);
}

// ---------------------------------------------------------------------------
// 6. Marking at dequeue
// ---------------------------------------------------------------------------

#[test]
fn dequeue_mode_hand_worked_step_marking() {
    // Two queues, marking at dequeue, step at K = 2000, kdrop 3000, buffer
    // 10000. Queue 0 starts at 2500. The dequeue is marked on its queue's
    // depth at the start of its cycle; enqueues are admitted or dropped with
    // ECN unchanged.
    let p = params(2000, 2000, PMAX_ONE, 3000, 10_000, 1);
    let mut b = Bench::new(shape(2, DEQ), p);
    b.fill(0, 2500);
    let table = [
        (idle().deq(0, 0, ECT0), d(true, CE)),          // c0: 2500 >= K
        (idle().deq(0, 0, ECT1), d(true, CE)),          // c1
        (idle().deq(0, 0, NOT_ECT), d(false, NOT_ECT)), // c2: not ECT
        (idle().deq(0, 0, CE), d(false, CE)),           // c3: already CE
        (idle().deq(1, 0, ECT0), d(false, ECT0)),       // c4: q1 = 0
        (idle().deq(0, 501, ECT0), d(true, CE)),        // c5: 2500 -> 1999
        (idle().deq(0, 0, ECT0), d(false, ECT0)),       // c6: 1999 < K
        // c7: the same cycle's enqueue does not count: seen 1999 -> 2000.
        (
            idle().enq(0, 1, ECT0).deq(0, 0, ECT0),
            ed(ADMIT, ECT0, false, ECT0),
        ),
        (idle().deq(0, 0, ECT1), d(true, CE)), // c8: 2000, back to back
        (idle().enq(0, 100, ECT0), e(ADMIT, ECT0)), // c9: never marked -> 2100
        (idle().enq(0, 10, NOT_ECT), e(ADMIT, NOT_ECT)), // c10: < kdrop -> 2110
        (idle().enq(0, 900, CE), e(ADMIT, CE)), // c11: -> 3010
        (idle().enq(0, 0, NOT_ECT), e(DROP_WRED, 0)), // c12: 3010 >= kdrop
        (idle().enq(0, 4095, ECT0), e(ADMIT, ECT0)), // c13: -> 7105
        (idle().enq(0, 4095, ECT1), e(DROP_TAIL, 0)), // c14: 11200 > 10000
        // c15: enqueue 7105 + 2895 = 10000 fits; dequeue seen 7105: marked;
        // -> 6000.
        (
            idle().enq(0, 2895, ECT0).deq(0, 4000, ECT0),
            ed(ADMIT, ECT0, true, CE),
        ),
        (idle().deq(0, 4000, ECT0), d(true, CE)), // c16: 6000 -> 2000
        // c17: 2000 >= K, marked; q1 0 -> 2500 in the same cycle.
        (
            idle().deq(0, 0, ECT0).enq(1, 2500, CE),
            ed(ADMIT, CE, true, CE),
        ),
        (idle().deq(0, 2001, ECT0), d(true, CE)), // c18: 2000, underflow
        (idle().deq(0, 0, ECT1), d(false, ECT1)), // c19: 0
        (idle().deq(1, 0, ECT1), d(true, CE)),    // c20: q1 2500
    ];
    run_table(&mut b, &table, "dequeue mode");
    assert_eq!((b.depth(0), b.depth(1)), (0, 2500));
    assert_eq!(b.cp.underflow_bits(), 0b01);
}

#[test]
fn dequeue_mode_ramp_uses_the_draw_of_the_dequeues_cycle() {
    // Two queues, dequeue marking, ramp 1000..5000 pmax 0.8; queue 0 at 3000
    // (p = 0.4), queue 1 at 2000 (p = 0.2). Zero-length dequeues (all ECN
    // codepoints) and zero-length enqueues on random queues, sometimes both
    // in one cycle; three loads (seed 0 once, a steeper ramp on queue 1
    // once: 1000..3000 pmax 1.0, p(2000) = 0.5). Every dequeue decision is
    // predicted with the draw of its own cycle; enqueues are never marked.
    let reset = ramp(0x2468_ace1);
    let steep = params(1000, 3000, PMAX_ONE, 60_000, 60_000, 0xfeed_f00d);
    let mut b = Bench::new(shape(2, DEQ), reset);
    b.fill(0, 3000);
    b.fill(1, 2000);
    let depth = [3000u32, 2000];
    let loads = [
        (8_000usize, 0u8, ramp(0)),
        (16_000, 1, steep),
        (24_000, 0, ramp(77)),
    ];
    let mut profile: [CpParamsPort; 2] = [reset.into(); 2];
    let mut r = TestRng(0x99);
    // Per cycle: the enqueue's ECN (it must leave unchanged), the dequeue's
    // expected (marked, ECN out).
    type Row = (Option<u8>, Option<(bool, u8)>);
    let mut expected: Vec<Row> = Vec::new();
    let first = b.outs.len();
    let mut marks = [0usize; 2];
    let mut ect = [0usize; 2];
    for n in 0..30_000 {
        let mut i = idle();
        if r.below(10) < 5 {
            i = i.enq(r.below(2) as u8, 0, r.below(4) as u8);
        }
        if r.below(10) < 6 {
            i = i.deq(r.below(256) as u8, 0, r.below(4) as u8);
        }
        let load = loads.iter().find(|&&(at, _, _)| at == n);
        if let Some(&(_, lq, p)) = load {
            i = i.load(lq, p).deq(lq, 0, ECT0);
        }
        let c = b.step(i);
        let u = b.draws[c];
        let deq = i.deq_valid.then(|| {
            let k = i.deq_queue as usize % 2;
            let m = is_ect(i.deq_ecn) && red_marks(depth[k], u, &profile[k]);
            if is_ect(i.deq_ecn) {
                ect[k] += 1;
                marks[k] += m as usize;
            }
            (m, if m { CE } else { i.deq_ecn })
        });
        expected.push((i.enq_valid.then_some(i.enq_ecn), deq));
        if let Some(&(_, lq, p)) = load {
            profile[lq as usize] = p.into();
        }
    }
    b.drain();
    for (n, &(enq, deq)) in expected.iter().enumerate() {
        let out = b.decision(first + n);
        let w = format!("cycle {n}");
        match enq {
            Some(e) => assert_enq(out, ADMIT, e, &w),
            None => assert_no_enq(out, &w),
        }
        match deq {
            Some((m, e)) => assert_deq(out, m, e, &w),
            None => assert_no_deq(out, &w),
        }
    }
    for k in 0..2 {
        assert!(
            marks[k] > ect[k] / 10 && marks[k] < ect[k] * 7 / 10,
            "queue {k}: {} of {} ECT dequeues marked",
            marks[k],
            ect[k]
        );
    }
}

#[test]
fn dequeue_mode_never_marks_below_kmin_and_always_at_kmax() {
    for ect in [ECT0, ECT1] {
        // pmax 1.0: nothing below kmin = 1000.
        let mut b = Bench::new(
            shape(2, DEQ),
            params(1000, 2000, PMAX_ONE, 60_000, 60_000, 3),
        );
        b.fill(1, 999);
        let table: Vec<_> = (0..3000)
            .map(|_| (idle().deq(1, 0, ect), d(false, ect)))
            .collect();
        run_table(&mut b, &table, "q = kmin - 1, pmax 1");
        // pmax 0: nothing below kmax = 2000, everything at and above it.
        let mut b = Bench::new(shape(2, DEQ), params(1000, 2000, 0, 60_000, 60_000, 3));
        b.fill(1, 1999);
        let table: Vec<_> = (0..3000)
            .map(|_| (idle().deq(1, 0, ect), d(false, ect)))
            .collect();
        run_table(&mut b, &table, "q = kmax - 1, pmax 0");
        b.fill(1, 2000);
        let table: Vec<_> = (0..3000)
            .map(|_| (idle().deq(1, 0, ect), d(true, CE)))
            .collect();
        run_table(&mut b, &table, "q = kmax, pmax 0");
        b.fill(1, 30_000);
        let table: Vec<_> = (0..3000)
            .map(|_| (idle().deq(0x11, 0, ect), d(true, CE)))
            .collect();
        run_table(&mut b, &table, "q > kmax, pmax 0");
        // Queue 0 is still empty: a dequeue there is never marked.
        run_table(&mut b, &[(idle().deq(0, 0, ect), d(false, ect))], "queue 0");
    }
}

#[test]
fn dequeue_marking_uses_its_queues_profile_in_force_in_its_own_cycle() {
    // A: step at 1000, B: step at 2000. Both queues at 1500.
    let a = params(1000, 1000, PMAX_ONE, 60_000, 60_000, 1);
    let bp = params(2000, 2000, PMAX_ONE, 60_000, 60_000, 1);
    let mut b = Bench::new(shape(2, DEQ), a);
    b.fill(0, 1500);
    b.fill(1, 1500);
    let table = [
        (idle().deq(1, 0, ECT0).load(1, bp), d(true, CE)), // A in the load's cycle
        (idle().deq(1, 0, ECT0), d(false, ECT0)),          // B
        (idle().deq(0, 0, ECT1), d(true, CE)),             // queue 0 still A
        (idle().deq(1, 0, ECT1).load(0, bp), d(false, ECT1)), // B
        (idle().deq(0, 0, ECT0), d(false, ECT0)),          // queue 0 now B
    ];
    run_table(&mut b, &table, "dequeue profiles");
}

#[test]
fn dequeue_decision_leaves_exactly_latency_cycles_after_its_dequeue() {
    assert_eq!((LATENCY, DEPTH_LAG), (DELAY, LAG));
    // Step at 0: an ECT packet is marked at any depth (q >= kmax = 0) in
    // dequeue mode; in enqueue mode the dequeue is passed through.
    for (mark_at, mark, out_ecn) in [(DEQ, true, CE), (ENQ, false, ECT0)] {
        let mut b = Bench::new(shape(4, mark_at), params(0, 0, PMAX_ONE, 60_000, 60_000, 1));
        for n in 0..25 {
            b.step(if n == 5 {
                idle().deq(2, 0, ECT0)
            } else {
                idle()
            });
        }
        for (n, &out) in b.outs.iter().enumerate() {
            assert_no_enq(out, &format!("{mark_at:?} cycle {n}"));
            if n == 5 + DELAY {
                assert_deq(out, mark, out_ecn, &format!("{mark_at:?} cycle {n}"));
            } else {
                assert_no_deq(out, &format!("{mark_at:?} cycle {n}"));
            }
        }
    }
}

#[test]
fn enqueue_mode_dequeues_are_never_marked_and_keep_their_ecn() {
    // Step at 0 marks every admitted ECT enqueue; dequeues, whatever their
    // ECN and queue, come out unmarked with ECN out = ECN in, at LATENCY.
    for q in SUPPORTED_QUEUES.iter().copied() {
        let s = shape(q, ENQ);
        let mut b = Bench::new(s, params(0, 0, PMAX_ONE, 60_000, 60_000, 1));
        let mut r = TestRng(q as u64);
        let mut w = Vec::new();
        for _ in 0..5000 {
            let mut i = idle();
            if r.below(2) == 0 {
                i = i.enq(r.below(256) as u8, r.below(200) as u32, r.below(4) as u8);
            }
            if r.below(3) != 0 {
                i = i.deq(r.below(256) as u8, r.below(200) as u32, r.below(4) as u8);
            }
            w.push(i);
        }
        let first = b.steps(&w);
        b.drain();
        let mut marked = 0;
        for (n, i) in w.iter().enumerate() {
            let out = b.decision(first + n);
            if i.deq_valid {
                assert_deq(out, false, i.deq_ecn, &format!("Q {q}, cycle {n}"));
            } else {
                assert_no_deq(out, &format!("Q {q}, cycle {n}"));
            }
            if i.enq_valid && is_ect(i.enq_ecn) {
                assert_enq(out, MARK, CE, "ECT enqueue at q >= kmax = 0");
                marked += 1;
            }
        }
        assert!(marked > 500);
    }
}

// ---------------------------------------------------------------------------
// 7. Validation
// ---------------------------------------------------------------------------

#[test]
fn queues_outside_1_2_4_8_are_refused_naming_queues() {
    assert_eq!(SUPPORTED_QUEUES, &[1, 2, 4, 8]);
    for q in [0u32, 3, 5, 6, 7, 9, 10, 12, 16, 32, 255, 256, u32::MAX] {
        for mark_at in [ENQ, DEQ] {
            let s = shape(q, mark_at);
            let err = s.validate().expect_err("unsupported queue count");
            assert_eq!(err.name, "queues", "Q = {q}: {err}");
            let cfg = CpConfig {
                shape: s,
                reset: all_admit(),
            };
            assert_eq!(cfg.validate().unwrap_err().name, "queues", "Q = {q}");
            assert_eq!(Cp::new(cfg).unwrap_err().name, "queues", "Q = {q}");
        }
    }
    for q in [1u32, 2, 4, 8] {
        for mark_at in [ENQ, DEQ] {
            let s = shape(q, mark_at);
            assert_eq!(s.validate(), Ok(()), "Q = {q}, {mark_at:?}");
            assert!(Cp::new(CpConfig {
                shape: s,
                reset: CpParams::reset_for(&s)
            })
            .is_ok());
        }
    }
    for m in [ENQ, DEQ] {
        assert_eq!(MarkAt::from_name(m.name()), Some(m));
    }
    assert_eq!(MarkAt::from_name("arrival"), None);
}

// ---------------------------------------------------------------------------
// 8. Randomized differential test
// ---------------------------------------------------------------------------

#[test]
fn randomized_differential_against_both_references() {
    // Every supported Q in both marking modes, 40000 cycles each (320000
    // in all), fixed seeds: the model, RefCp and PerQueueRef must give the
    // same outputs in every cycle, and the model's depths and underflow
    // bits must be RefCp's.
    let mut total = Stats::default();
    for (n, &q) in SUPPORTED_QUEUES.iter().enumerate() {
        for (m, mark_at) in [ENQ, DEQ].into_iter().enumerate() {
            let s = shape(q, mark_at);
            let seed = 0xd1ff_0000 + (n * 2 + m) as u64;
            let mut r = TestRng(seed);
            let reset = random_params(&mut r, &s);
            let w = random_workload(seed ^ 0x5eed, &s, 40_000, true);
            let mut cp = model(s, reset);
            let mut re = RefCp::new(s, reset);
            let mut per = PerQueueRef::new(s, reset);
            for (c, i) in w.iter().enumerate() {
                let (a, b, p) = (cp.step(i), re.step(i), per.step(i));
                let what = format!("Q {q}, {mark_at:?}, cycle {c}, input {i:?}");
                assert_eq!(a, b, "model vs RefCp: {what}");
                assert_eq!(a, p, "model vs PerQueueRef: {what}");
                assert!(
                    (a.underflow as u32) < (1u32 << q),
                    "{what}: underflow bit beyond Q"
                );
                for j in 0..q as usize {
                    assert_eq!(cp.queue_depth(j), re.depth[j], "{what}: depth {j}");
                }
                assert_eq!(cp.underflow_bits(), re.underflow_bits(), "{what}");
            }
            let st = re.stats;
            eprintln!("Q {q}, {mark_at:?}: {st:?}");
            let marks = if mark_at == DEQ {
                assert_eq!(st.enq_mark, 0, "no enqueue is marked in dequeue mode");
                st.deq_mark
            } else {
                assert_eq!(st.deq_mark, 0, "no dequeue is marked in enqueue mode");
                st.enq_mark
            };
            assert!(
                marks > 500 && st.ramp > 500 && st.wred > 200 && st.tail > 200,
                "Q {q}, {mark_at:?}: coverage too thin: {st:?}"
            );
            assert!(
                st.underflows > 50 && st.loads > 50 && st.resets >= 1,
                "{st:?}"
            );
            total.ramp += st.ramp;
        }
    }
    assert!(total.ramp > 10_000);
}
