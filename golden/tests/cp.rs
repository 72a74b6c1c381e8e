//! Integration tests of the CP golden model (`ccrtl_golden::cp`).
//!
//! Source of truth: `../shared/ALGORITHMS.md` §"Switch congestion point (CP)",
//! which restates seed 001 §2.1 (RED/ECN marking on the instantaneous queue
//! `q`, drop above `buf_max`) and §2.3 eq. (3) (WRED drop of not-ECN-capable
//! packets at `q >= K`), plus the interface contract written in the module
//! documentation of `golden/src/cp.rs` (latency, depth output, parameter
//! loads, random source, reset).
//!
//! Every expected value below is derived by hand from those rules (the
//! derivation is in the comments), never copied from what the model prints.
//! The marking rule for an ECT packet is, for `kmin <= q < kmax`,
//! "mark with probability `(q - kmin) / (kmax - kmin) * pmax`"; with a Q0.16
//! uniform draw `u` and a Q1.16 `pmax` this is the integer test
//! `u * (kmax - kmin) < (q - kmin) * pmax` (both sides of `u / 2^16 < p`
//! multiplied by `2^16 * (kmax - kmin)`), which this file re-implements on its
//! own in [`expect_mark`] to predict single decisions.
//!
//! Conventions of this file: "cycle n" is the n-th call of `Cp::step`; the
//! value returned by `step` is the set of outputs seen *during* that cycle,
//! before its clock edge. A decision for an enqueue passed in cycle `n` is
//! therefore read from the value returned in cycle `n + 12`. The `depth` and
//! `underflow` outputs returned in cycle `n` are those the enqueue of cycle
//! `n - 3` saw (the state at the start of cycle `n - 3`); the depth the next
//! enqueue sees, without that lag, is `Cp::depth()` between two cycles.

use ccrtl_golden::cp::{
    ecn, reference, Action, Cp, CpConfig, CpIn, CpOut, CpParams, CpParamsPort, CpShape, DEPTH_LAG,
    LATENCY, PMAX_ONE, RESET_SEED, SUPPORTED_DEPTH_BITS, SUPPORTED_LEN_BITS,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The decision delay required by the interface contract: 12 cycles.
const DELAY: usize = 12;
/// The lag of the `depth` and `underflow` outputs required by the interface
/// contract: 3 cycles.
const LAG: usize = 3;

/// All four ECN codepoints (RFC 3168): 00 not-ECT, 01 ECT(1), 10 ECT(0), 11 CE.
const ALL_ECN: [u8; 4] = [ecn::NOT_ECT, ecn::ECT1, ecn::ECT0, ecn::CE];
/// The two ECN-capable-transport codepoints, the only ones that get marked.
const ECT: [u8; 2] = [ecn::ECT0, ecn::ECT1];

/// The action codes as raw port values.
const ADMIT: u8 = Action::Admit as u8;
const MARK: u8 = Action::Mark as u8;
const DROP_WRED: u8 = Action::DropWred as u8;
const DROP_TAIL: u8 = Action::DropTail as u8;

/// A 16-bit-depth, 12-bit-length shape: depths up to 65535, packets up to 4095.
const SMALL: CpShape = CpShape::new(16, 12);
/// A 20-bit-depth, 14-bit-length shape: depths up to 1_048_575, packets up to
/// 16383.
const MEDIUM: CpShape = CpShape::new(20, 14);

/// Runtime parameters with an explicit seed.
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

/// A fresh model (reset state) with the given shape and reset parameters.
fn model(shape: CpShape, reset: CpParams) -> Cp {
    Cp::new(CpConfig { shape, reset }).expect("the test configuration is valid")
}

/// A cycle with no input asserted.
fn idle() -> CpIn {
    CpIn::default()
}

/// A cycle with one enqueue of `len` bytes carrying ECN codepoint `ecn`.
fn enq(len: u32, ecn: u8) -> CpIn {
    CpIn {
        enq_valid: true,
        enq_len: len,
        enq_ecn: ecn,
        ..CpIn::default()
    }
}

/// A cycle with one dequeue of `len` bytes.
fn deq(len: u32) -> CpIn {
    CpIn {
        deq_valid: true,
        deq_len: len,
        ..CpIn::default()
    }
}

/// A cycle with a parameter load (and nothing else).
fn load(p: CpParams) -> CpIn {
    CpIn {
        cfg_valid: true,
        cfg: CpParamsPort::from(p),
        ..CpIn::default()
    }
}

/// A cycle with `rst` asserted.
fn reset() -> CpIn {
    CpIn {
        rst: true,
        ..CpIn::default()
    }
}

/// Fills the queue from its current depth up to exactly `q` bytes with CE
/// packets (ECN 11), which are never WRED-dropped (not ECN 00) and never
/// marked (already CE), then lets the fill's decisions drain out of the
/// pipeline. Needs `current depth <= q <= buf_max`.
fn fill(cp: &mut Cp, q: u32) {
    let len_max = cp.config().shape.len_max();
    let mut filled = cp.depth();
    assert!(filled <= q, "fill only adds");
    while filled < q {
        let len = len_max.min(q - filled);
        cp.step(&enq(len, ecn::CE));
        filled += len;
    }
    drain(cp);
    // The depth the next enqueue sees.
    assert_eq!(cp.depth(), q, "fill reached the wanted depth");
}

/// Steps idle cycles until every decision in flight has left the pipeline.
fn drain(cp: &mut Cp) {
    for _ in 0..DELAY {
        cp.step(&idle());
    }
}

/// Presents one enqueue and returns the outputs of the cycle that carries its
/// decision (`DELAY` cycles later), leaving the pipeline empty.
fn decide(cp: &mut Cp, len: u32, ecn: u8) -> CpOut {
    cp.step(&enq(len, ecn));
    for _ in 1..DELAY {
        cp.step(&idle());
    }
    cp.step(&idle())
}

/// Runs `inputs` one per cycle followed by `DELAY` idle cycles, and returns
/// for each input `i` the outputs of cycle `i + DELAY` (where the decision of
/// an enqueue presented in cycle `i` appears).
fn run(cp: &mut Cp, inputs: &[CpIn]) -> Vec<CpOut> {
    let mut outs: Vec<CpOut> = inputs.iter().map(|i| cp.step(i)).collect();
    for _ in 0..DELAY {
        outs.push(cp.step(&idle()));
    }
    outs.split_off(DELAY)
}

/// Asserts a decision: valid, with the given action and outgoing ECN.
#[track_caller]
fn assert_decision(out: CpOut, action: u8, ecn_out: u8, what: &str) {
    assert!(out.dec_valid, "{what}: dec_valid must be high");
    assert_eq!(
        (out.dec_action, out.dec_ecn),
        (action, ecn_out),
        "{what}: (action, ecn) = ({:?}, {:#04b}), expected ({:?}, {:#04b})",
        Action::from_code(out.dec_action),
        out.dec_ecn,
        Action::from_code(action),
        ecn_out
    );
}

/// Asserts there is no decision on the outputs: valid low and both codes 0.
#[track_caller]
fn assert_no_decision(out: CpOut, what: &str) {
    assert!(!out.dec_valid, "{what}: dec_valid must be low");
    assert_eq!(out.dec_action, 0, "{what}: action must be 0 when not valid");
    assert_eq!(out.dec_ecn, 0, "{what}: ecn must be 0 when not valid");
}

/// Marsaglia's xorshift32 (shift triple 13, 17, 5), written here again so the
/// tests do not trust `ccrtl_golden::xorshift`.
fn xs32(mut x: u32) -> u32 {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    x
}

/// The marking rule for an ECT packet, written from ALGORITHMS.md:
/// `p = 0` below `kmin`, `1` at or above `kmax`, else mark iff the Q0.16 draw
/// `u` satisfies `u / 2^16 < (q - kmin) / (kmax - kmin) * pmax / 2^16`, i.e.
/// `u * (kmax - kmin) < (q - kmin) * pmax` in integers.
fn expect_mark(q: u32, u: u32, kmin: u32, kmax: u32, pmax: u32) -> bool {
    if q >= kmax {
        true
    } else if q < kmin {
        false
    } else {
        (u as u64) * ((kmax - kmin) as u64) < ((q - kmin) as u64) * (pmax as u64)
    }
}

/// A test-local workload generator (SplitMix64), independent of the model's
/// random source.
struct TestRng(u64);

impl TestRng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the tiny modulo bias does not matter here).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random mix of enqueues (all ECN codepoints, lengths up to `len_max`),
/// dequeues and idle cycles, for comparing models with each other.
fn random_workload(seed: u64, cycles: usize, len_max: u32) -> Vec<CpIn> {
    let mut r = TestRng(seed);
    (0..cycles)
        .map(|_| CpIn {
            enq_valid: r.below(4) != 0,
            enq_len: r.below(len_max as u64 + 1) as u32,
            enq_ecn: r.below(4) as u8,
            deq_valid: r.below(2) == 0,
            deq_len: r.below(len_max as u64 + 1) as u32,
            ..CpIn::default()
        })
        .collect()
}

// ---------------------------------------------------------------------------
// 1. Decision rules (ALGORITHMS.md §CP; seed 001 §2.1, §2.3 eq. (3))
// ---------------------------------------------------------------------------

#[test]
fn wred_drops_not_ect_at_q_equal_kdrop_and_admits_at_kdrop_minus_one() {
    // Eq. (3): q < K -> no drop; q >= K -> drop. Only ECN 00 is subject to it.
    // kdrop = 1000, buf_max far away so the tail-drop rule cannot interfere;
    // kmin = kmax = buf_max so nothing is ever marked below buf_max.
    let p = params(60_000, 60_000, PMAX_ONE, 1000, 60_000, 7);

    // q = kdrop - 1 = 999: admitted unchanged, the depth grows by len.
    let mut cp = model(SMALL, p);
    fill(&mut cp, 999);
    let out = decide(&mut cp, 100, ecn::NOT_ECT);
    assert_decision(out, ADMIT, ecn::NOT_ECT, "ECN 00 at q = kdrop - 1");
    assert_eq!(cp.depth(), 999 + 100, "admitted length is added");

    // q = kdrop = 1000: WRED drop, ECN out 0, the depth is unchanged.
    let mut cp = model(SMALL, p);
    fill(&mut cp, 1000);
    let out = decide(&mut cp, 100, ecn::NOT_ECT);
    assert_decision(out, DROP_WRED, 0, "ECN 00 at q = kdrop");
    assert_eq!(cp.depth(), 1000, "dropped packet adds nothing");

    // q well above kdrop (and a zero-length packet): still a WRED drop.
    let mut cp = model(SMALL, p);
    fill(&mut cp, 30_000);
    let out = decide(&mut cp, 0, ecn::NOT_ECT);
    assert_decision(out, DROP_WRED, 0, "ECN 00 at q > kdrop");
}

#[test]
fn wred_drop_applies_only_to_not_ect_packets() {
    // ECN-capable packets (01, 10) are subject to marking, CE packets stay CE;
    // neither is WRED-dropped at q >= kdrop (seed 001 §2.3, last paragraph of
    // §3.1). Here q = 2000 >= kdrop = 1000 and q < kmin = 5000: no marking.
    let p = params(5000, 5000, PMAX_ONE, 1000, 60_000, 7);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 2000);
    for e in [ecn::ECT0, ecn::ECT1, ecn::CE] {
        let out = decide(&mut cp, 0, e);
        assert_decision(out, ADMIT, e, "ECN-capable packet at q >= kdrop");
    }
}

#[test]
fn tail_drop_exactly_when_q_plus_len_exceeds_buf_max_for_every_ecn() {
    // "Any packet: tail drop if the queue would exceed buf_max": the queue
    // after admission would be q + len, so q + len == buf_max is admitted and
    // q + len == buf_max + 1 is dropped. kdrop = kmin = kmax = buf_max so that
    // neither WRED (q < kdrop) nor marking (q < kmin) applies at q = 4000.
    let buf_max = 5000;
    let p = params(buf_max, buf_max, PMAX_ONE, buf_max, buf_max, 11);
    for e in ALL_ECN {
        let mut cp = model(SMALL, p);
        fill(&mut cp, 4000);
        let out = decide(&mut cp, 1001, e);
        assert_decision(out, DROP_TAIL, 0, "q + len = buf_max + 1");
        assert_eq!(cp.depth(), 4000, "tail-dropped adds nothing");

        let out = decide(&mut cp, 1000, e);
        assert_decision(out, ADMIT, e, "q + len = buf_max");
        assert_eq!(cp.depth(), buf_max, "the queue is exactly full");

        // Full queue: even a zero-length packet fits (q + 0 == buf_max), but
        // a one-byte packet does not. At q = buf_max = kmax an ECT packet is
        // marked, a not-ECT one is WRED-dropped (q >= kdrop, WRED first).
        let out = decide(&mut cp, 1, e);
        let expected = if e == ecn::NOT_ECT {
            DROP_WRED
        } else {
            DROP_TAIL
        };
        assert_decision(out, expected, 0, "one byte into a full queue");
        let out = decide(&mut cp, 0, e);
        match e {
            ecn::NOT_ECT => assert_decision(out, DROP_WRED, 0, "q = kdrop"),
            ecn::CE => assert_decision(out, ADMIT, ecn::CE, "CE stays CE"),
            _ => assert_decision(out, MARK, ecn::CE, "q >= kmax marks"),
        }
    }
}

#[test]
fn wred_is_checked_before_tail_drop() {
    // A not-ECT packet that breaks both rules (q >= kdrop and q + len >
    // buf_max) is reported as a WRED drop: WRED is the class policy, the
    // buffer limit the physical one behind it (cp.rs module doc, rule order).
    let p = params(2000, 2000, PMAX_ONE, 1000, 2000, 3);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 1500);
    let out = decide(&mut cp, 1000, ecn::NOT_ECT); // 1500 + 1000 > 2000
    assert_decision(out, DROP_WRED, 0, "not-ECT breaking WRED and buffer");
    // The same length on an ECT packet (not subject to WRED) is a tail drop.
    let out = decide(&mut cp, 1000, ecn::ECT0);
    assert_decision(out, DROP_TAIL, 0, "ECT breaking the buffer");
}

#[test]
fn ce_packets_stay_ce_with_action_admit_at_every_depth() {
    // "A packet already CE stays CE": it is admitted (not reported as a mark
    // by this queue) with ECN 11, below kmin, inside the ramp and above kmax.
    let p = params(1000, 3000, PMAX_ONE, 60_000, 60_000, 5);
    let mut cp = model(SMALL, p);
    for q in [0, 999, 1000, 2000, 2999, 3000, 40_000] {
        fill(&mut cp, q);
        let out = decide(&mut cp, 0, ecn::CE);
        assert_decision(out, ADMIT, ecn::CE, "CE packet");
    }
}

#[test]
fn ect_is_never_marked_below_kmin_even_with_pmax_one() {
    // p = 0 for q < kmin. With pmax = 1.0 and q = kmin - 1, 4000 ECT
    // packets of length 0 (the depth stays kmin - 1) are all admitted as is.
    let p = params(1000, 1100, PMAX_ONE, 60_000, 60_000, 0x5eed);
    for e in ECT {
        let mut cp = model(SMALL, p);
        fill(&mut cp, 999);
        let outs = run(&mut cp, &vec![enq(0, e); 4000]);
        for (i, out) in outs.into_iter().enumerate() {
            assert_decision(out, ADMIT, e, &format!("ECT at q = kmin - 1, #{i}"));
        }
    }
}

#[test]
fn ect_is_always_marked_at_and_above_kmax_even_with_pmax_zero() {
    // p = 1 for q >= kmax whatever pmax is; with pmax = 0 the ramp itself is
    // flat at 0, so q = kmax - 1 is never marked.
    let p = params(1000, 2000, 0, 60_000, 60_000, 0x5eed);
    for e in ECT {
        let mut cp = model(SMALL, p);
        fill(&mut cp, 1999);
        for (i, out) in run(&mut cp, &vec![enq(0, e); 2000]).into_iter().enumerate() {
            assert_decision(out, ADMIT, e, &format!("pmax 0, q = kmax - 1, #{i}"));
        }
        fill(&mut cp, 2000); // q = kmax
        for (i, out) in run(&mut cp, &vec![enq(0, e); 2000]).into_iter().enumerate() {
            assert_decision(out, MARK, ecn::CE, &format!("pmax 0, q = kmax, #{i}"));
        }
        fill(&mut cp, 22_000); // far above kmax
        for (i, out) in run(&mut cp, &vec![enq(0, e); 2000]).into_iter().enumerate() {
            assert_decision(out, MARK, ecn::CE, &format!("pmax 0, q > kmax, #{i}"));
        }
    }
}

#[test]
fn dctcp_step_marking_kmin_equal_kmax_marks_iff_q_at_least_k() {
    // DCTCP step marking: Kmin = Kmax = K, Pmax = 1 (65536 in Q1.16). Below K
    // p = 0, at or above K p = 1: deterministic, draw-independent.
    let k = 3000;
    let p = params(k, k, PMAX_ONE, 60_000, 60_000, 0xdc7c9);
    for e in ECT {
        let mut cp = model(SMALL, p);
        fill(&mut cp, k - 1);
        for out in run(&mut cp, &vec![enq(0, e); 3000]) {
            assert_decision(out, ADMIT, e, "step marking at q = K - 1");
        }
        // One byte more reaches K; the packet that brings q to K is itself
        // decided at q = K - 1 (the depth before it) and is not marked.
        let out = decide(&mut cp, 1, e);
        assert_decision(out, ADMIT, e, "packet decided at K - 1");
        for out in run(&mut cp, &vec![enq(0, e); 3000]) {
            assert_decision(out, MARK, ecn::CE, "step marking at q = K");
        }
    }
}

#[test]
fn not_ect_is_never_marked_even_above_kmax() {
    // Marking applies to ECN-capable packets only; a not-ECT packet below
    // kdrop is admitted with ECN 00 even where ECT would always be marked.
    let p = params(100, 200, PMAX_ONE, 50_000, 60_000, 9);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 10_000); // q >= kmax, q < kdrop
    for out in run(&mut cp, &vec![enq(0, ecn::NOT_ECT); 2000]) {
        assert_decision(out, ADMIT, ecn::NOT_ECT, "not-ECT above kmax");
    }
    // And inside the ramp.
    let mut cp = model(SMALL, p);
    fill(&mut cp, 150);
    for out in run(&mut cp, &vec![enq(0, ecn::NOT_ECT); 2000]) {
        assert_decision(out, ADMIT, ecn::NOT_ECT, "not-ECT in the ramp");
    }
}

#[test]
fn dropped_packets_leave_ecn_zero_for_every_incoming_ecn() {
    // Both drop kinds report ECN 0 (the packet does not leave at all).
    // Tail drop: q = 1000, len 1001 > buf_max - q = 1000, for all four ECNs
    // (kdrop = buf_max so ECN 00 is not WRED-dropped at q = 1000).
    let p = params(2000, 2000, PMAX_ONE, 2000, 2000, 1);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 1000);
    for e in ALL_ECN {
        assert_decision(decide(&mut cp, 1001, e), DROP_TAIL, 0, "tail drop");
    }
    // WRED drop of ECN 00.
    let p = params(2000, 2000, PMAX_ONE, 500, 2000, 1);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 1000);
    assert_decision(decide(&mut cp, 1, ecn::NOT_ECT), DROP_WRED, 0, "WRED");
}

#[test]
fn outputs_are_zero_when_dec_valid_is_low() {
    // After reset and between decisions, action and ECN are 0 whenever
    // dec_valid is low, even right after a decision with non-zero codes
    // (a mark: action 1, ECN 11).
    let p = params(0, 0, PMAX_ONE, 60_000, 60_000, 1);
    let mut cp = model(SMALL, p);
    for n in 0..5 {
        assert_no_decision(cp.step(&idle()), &format!("idle cycle {n} after reset"));
    }
    // q = 0 >= kmax = 0: an ECT packet is marked.
    let outs = run(
        &mut cp,
        &[enq(0, ecn::ECT0), idle(), enq(0, ecn::ECT1), idle()],
    );
    assert_decision(outs[0], MARK, ecn::CE, "mark");
    assert_no_decision(outs[1], "the cycle after a mark");
    assert_decision(outs[2], MARK, ecn::CE, "mark");
    assert_no_decision(outs[3], "the cycle after a mark");
    // A tail drop (action 3) followed by idle: 58000 + 4095 > 60000.
    fill(&mut cp, 58_000);
    let outs = run(&mut cp, &[enq(4095, ecn::CE), idle()]);
    assert_decision(outs[0], DROP_TAIL, 0, "tail drop");
    assert_no_decision(outs[1], "the cycle after a drop");
}

// ---------------------------------------------------------------------------
// 2. Timing (interface contract in the cp.rs module documentation)
// ---------------------------------------------------------------------------

#[test]
fn latency_is_twelve_cycles_and_depth_lag_is_three_cycles() {
    // The contract: a decision leaves 12 cycles after its enqueue, and the
    // depth and underflow outputs lag the depth enqueues see by 3 cycles.
    assert_eq!(LATENCY, 12);
    assert_eq!(DEPTH_LAG, 3);
}

#[test]
fn decision_appears_exactly_twelve_cycles_after_its_enqueue() {
    // A distinctive decision (a mark: q = 0 >= kmax = 0) presented in cycle 5
    // is on the outputs in cycle 5 + 12 = 17 and in no other cycle (in
    // particular not in cycle 16 or 18).
    let p = params(0, 0, PMAX_ONE, 60_000, 60_000, 1);
    let mut cp = model(SMALL, p);
    let mut outs = Vec::new();
    for n in 0..20 {
        let i = if n == 5 { enq(10, ecn::ECT0) } else { idle() };
        outs.push(cp.step(&i));
        if n == 5 {
            // No lag for the next enqueue: it sees the admitted 10 bytes.
            assert_eq!(cp.depth(), 10, "depth seen by an enqueue of cycle 6");
        }
    }
    for (n, out) in outs.iter().enumerate() {
        if n == 17 {
            assert_decision(*out, MARK, ecn::CE, "cycle n + 12");
        } else {
            assert_no_decision(*out, &format!("cycle {n}"));
        }
    }
    // The depth output of cycle n is the depth an enqueue of cycle n - 3
    // saw: the enqueue of cycle 5 saw 0, one of cycle 6 would see 10. So the
    // output is 0 up to cycle 5 + 3 = 8 and 10 from cycle 6 + 3 = 9 on,
    // still before the decision is visible (cycle 16).
    for (n, out) in outs.iter().enumerate() {
        let want = if n <= 8 { 0 } else { 10 };
        assert_eq!(out.depth, want, "depth output of cycle {n}");
        assert!(out.underflow == 0, "no underflow in cycle {n}");
    }
}

#[test]
fn back_to_back_enqueues_give_one_decision_per_cycle_in_order() {
    // Step marking at K = 2000, kdrop = 3000, buf_max = 10000. Each expected
    // decision below follows from the rules at the depth before the packet;
    // that is the depth `Cp::depth` gives before the packet's cycle, and the
    // depth output shows it 3 cycles later (cycle i + 3 for packet i).
    let p = params(2000, 2000, PMAX_ONE, 3000, 10_000, 1);
    let mut cp = model(SMALL, p);
    // (len, ecn in, depth before, action, ecn out)
    let script: [(u32, u8, u32, u8, u8); 8] = [
        (1500, ecn::NOT_ECT, 0, ADMIT, ecn::NOT_ECT), // q < kdrop
        (1000, ecn::ECT0, 1500, ADMIT, ecn::ECT0),    // q < K
        (1000, ecn::ECT1, 2500, MARK, ecn::CE),       // q >= K
        (500, ecn::NOT_ECT, 3500, DROP_WRED, 0),      // q >= kdrop
        (4000, ecn::CE, 3500, ADMIT, ecn::CE),        // CE stays CE
        (3000, ecn::ECT0, 7500, DROP_TAIL, 0),        // 10500 > buf_max
        (2500, ecn::ECT0, 7500, MARK, ecn::CE),       // 10000 = buf_max
        (0, ecn::ECT1, 10_000, MARK, ecn::CE),        // full queue, len 0
    ];
    let mut all = Vec::new();
    for (i, &(len, e, q, ..)) in script.iter().enumerate() {
        assert_eq!(cp.depth(), q, "depth seen by packet {i}");
        all.push(cp.step(&enq(len, e)));
    }
    for _ in 0..DELAY {
        all.push(cp.step(&idle()));
    }
    for (i, &(_, _, q, action, e)) in script.iter().enumerate() {
        assert_eq!(all[i + LAG].depth, q, "depth output in cycle {i} + 3");
        assert_decision(all[i + DELAY], action, e, &format!("packet {i}"));
    }
    // The first LAG cycles show the reset depth 0, the first DELAY cycles
    // carry no decision; after the last packet the depth is 10000 and the
    // pipeline is empty.
    for (n, out) in all[..LAG].iter().enumerate() {
        assert_eq!(out.depth, 0, "depth output of cycle {n} after reset");
    }
    for out in &all[..DELAY] {
        assert_no_decision(*out, "pipeline filling");
    }
    assert_eq!(cp.depth(), 10_000);
    assert_eq!(cp.outputs().depth, 10_000, "DELAY >= LAG idle cycles later");
    assert_no_decision(cp.step(&idle()), "pipeline drained");
}

#[test]
fn depth_output_of_cycle_n_is_the_depth_the_enqueue_of_cycle_n_minus_3_saw() {
    // Everything is admitted (thresholds and buffer 60000, depths far below;
    // nothing is WRED-dropped since q < kdrop). Per cycle: the input, the
    // depth an enqueue of that cycle sees (after every event of earlier
    // cycles, enqueue before dequeue), and the depth output during that
    // cycle: the second column three rows up, and 0 in the three cycles
    // after a reset (model creation, and the rst of cycle 20).
    let p = params(60_000, 60_000, PMAX_ONE, 60_000, 60_000, 1);
    let mut cp = model(SMALL, p);
    let both = |len: u32, d: u32| CpIn {
        deq_valid: true,
        deq_len: d,
        ..enq(len, ecn::CE)
    };
    let rst_cycle = 20;
    let script: [(CpIn, u32, u32); 27] = [
        (enq(100, ecn::NOT_ECT), 0, 0), // 0: -> 100; reset value shown
        (enq(200, ecn::ECT0), 100, 0),  // 1: -> 300
        (deq(50), 300, 0),              // 2: -> 250
        (idle(), 250, 0),               // 3: shows what cycle 0 saw
        (both(400, 100), 250, 100),     // 4: 250 + 400 - 100 -> 550
        (deq(250), 550, 300),           // 5: -> 300
        (enq(1000, ecn::CE), 300, 250), // 6: -> 1300
        (idle(), 1300, 250),            // 7
        (deq(1300), 1300, 550),         // 8: -> 0
        (both(7, 7), 0, 300),           // 9: 0 + 7 - 7 -> 0 (enqueue first)
        (enq(5, ecn::ECT1), 0, 1300),   // 10: -> 5
        (idle(), 5, 1300),              // 11
        (idle(), 5, 0),                 // 12: shows cycle 9
        (idle(), 5, 0),                 // 13: shows cycle 10
        (idle(), 5, 5),                 // 14: shows cycle 11
        (idle(), 5, 5),                 // 15
        (enq(1000, ecn::CE), 5, 5),     // 16: -> 1005
        (enq(2000, ecn::CE), 1005, 5),  // 17: -> 3005
        (enq(3000, ecn::CE), 3005, 5),  // 18: -> 6005
        (idle(), 6005, 5),              // 19
        (reset(), 6005, 1005),          // 20: rst; outputs normal (cycle 17)
        (enq(40, ecn::CE), 0, 0),       // 21: empty queue; -> 40
        (enq(60, ecn::CE), 40, 0),      // 22: -> 100
        (idle(), 100, 0),               // 23: last cycle of zeros
        (idle(), 100, 0),               // 24: shows what cycle 21 saw
        (idle(), 100, 40),              // 25: shows cycle 22
        (idle(), 100, 100),             // 26: shows cycle 23
    ];
    // The table itself follows the contract (a check of the hand-written
    // columns, not of the model).
    for (n, &(_, _, shown)) in script.iter().enumerate() {
        let zero = n < 3 || (rst_cycle < n && n <= rst_cycle + 3);
        let want = if zero { 0 } else { script[n - 3].1 };
        assert_eq!(shown, want, "table row {n}");
    }
    for (n, &(i, seen, shown)) in script.iter().enumerate() {
        assert_eq!(cp.depth(), seen, "depth seen by an enqueue of cycle {n}");
        let out = cp.step(&i);
        assert_eq!(out.depth, shown, "depth output of cycle {n}");
        assert!(out.underflow == 0, "no underflow in cycle {n}");
    }
}

#[test]
fn same_cycle_enqueue_sees_depth_before_both_and_dequeue_makes_no_room() {
    // Contract: the enqueue of cycle n sees the depth at the start of cycle n;
    // a dequeue in the same cycle does not make room for it.
    let both = |len: u32, e: u8, d: u32| CpIn {
        deq_valid: true,
        deq_len: d,
        ..enq(len, e)
    };

    // Tail drop: q = 2000, buf_max = 3000, enqueue 1500 (2000 + 1500 > 3000)
    // with a dequeue of 1000 in the same cycle: still dropped; depth 1000.
    let p = params(3000, 3000, PMAX_ONE, 3000, 3000, 1);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 2000);
    let outs = run(&mut cp, &[both(1500, ecn::ECT0, 1000)]);
    assert_decision(outs[0], DROP_TAIL, 0, "dequeue makes no room");
    assert_eq!(cp.depth(), 1000, "2000 - 1000, nothing added");

    // WRED: q = kdrop = 2000 with a dequeue of 500: still a WRED drop.
    let p = params(5000, 5000, PMAX_ONE, 2000, 5000, 1);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 2000);
    let outs = run(&mut cp, &[both(10, ecn::NOT_ECT, 500)]);
    assert_decision(outs[0], DROP_WRED, 0, "WRED sees q before dequeue");
    assert_eq!(cp.depth(), 1500);

    // Marking: step at K = 2000, q = 2000, dequeue 1000 in the same cycle:
    // marked (decided at 2000, not 1000).
    let p = params(2000, 2000, PMAX_ONE, 5000, 5000, 1);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 2000);
    let outs = run(&mut cp, &[both(300, ecn::ECT1, 1000)]);
    assert_decision(outs[0], MARK, ecn::CE, "marking sees q before dequeue");
    assert_eq!(cp.depth(), 2000 + 300 - 1000, "both applied");

    // Admission with both: q = 1000, +500 -300 = 1200; an empty queue with an
    // enqueue of 500 and a dequeue of 500 ends at 0 without underflow (the
    // enqueue is applied first). The underflow flag has no lag-free view:
    // it is read on the port after `run`'s DELAY >= LAG + 1 idle cycles,
    // when the port shows the state after the cycle of interest.
    let mut cp = model(SMALL, p);
    fill(&mut cp, 1000);
    run(&mut cp, &[both(500, ecn::NOT_ECT, 300)]);
    assert_eq!(cp.depth(), 1200);
    let mut cp = model(SMALL, p);
    run(&mut cp, &[both(500, ecn::NOT_ECT, 500)]);
    assert_eq!(cp.depth(), 0);
    assert_eq!(cp.outputs().depth, 0);
    assert!(cp.outputs().underflow == 0, "enqueue first: no underflow");
}

#[test]
fn parameter_load_in_cycle_n_affects_enqueues_from_cycle_n_plus_1_only() {
    // Old: step marking at 1000, kdrop 5000. New: step marking at 2000,
    // kdrop 1000. Depth 1500 throughout (zero-length packets).
    let old = params(1000, 1000, PMAX_ONE, 5000, 60_000, 1);
    let new = params(2000, 2000, PMAX_ONE, 1000, 60_000, 1);
    let with_load = |i: CpIn| CpIn {
        cfg_valid: true,
        cfg: new.into(),
        ..i
    };

    // Marking: the ECT enqueue of the load's cycle uses old (1500 >= 1000:
    // mark), the next one uses new (1500 < 2000: admit).
    let mut cp = model(SMALL, old);
    fill(&mut cp, 1500);
    let outs = run(&mut cp, &[with_load(enq(0, ecn::ECT0)), enq(0, ecn::ECT0)]);
    assert_decision(outs[0], MARK, ecn::CE, "enqueue in the load's cycle");
    assert_decision(outs[1], ADMIT, ecn::ECT0, "enqueue after the load");
    assert_eq!(cp.params(), CpParamsPort::from(new));

    // WRED: not-ECT at 1500 is admitted under old (1500 < 5000), dropped
    // under new (1500 >= 1000).
    let mut cp = model(SMALL, old);
    fill(&mut cp, 1500);
    let outs = run(
        &mut cp,
        &[with_load(enq(0, ecn::NOT_ECT)), enq(0, ecn::NOT_ECT)],
    );
    assert_decision(outs[0], ADMIT, ecn::NOT_ECT, "load cycle: old kdrop");
    assert_decision(outs[1], DROP_WRED, 0, "next cycle: new kdrop");

    // buf_max: lowered from 60000 to 1600 by the load. The 200-byte packet of
    // the load's cycle fits the old buffer (1500 + 200 <= 60000); the next
    // one does not fit the new one (1700 + 200 > 1600).
    let small_buf = params(1600, 1600, PMAX_ONE, 1600, 1600, 1);
    let mut cp = model(SMALL, old);
    fill(&mut cp, 1500);
    let outs = run(
        &mut cp,
        &[
            CpIn {
                cfg_valid: true,
                cfg: small_buf.into(),
                ..enq(200, ecn::CE)
            },
            enq(200, ecn::CE),
        ],
    );
    assert_decision(outs[0], ADMIT, ecn::CE, "load cycle: old buf_max");
    assert_decision(outs[1], DROP_TAIL, 0, "next cycle: new buf_max");
}

#[test]
fn underflow_output_rises_three_cycles_after_the_state_and_is_sticky_until_rst() {
    let p = params(60_000, 60_000, PMAX_ONE, 60_000, 60_000, 1);
    let mut cp = model(SMALL, p);
    fill(&mut cp, 1000);
    // Cycle n: a dequeue of exactly the depth is fine. The next enqueue sees
    // 0 at once; the output shows 1000 (what cycles n - 2 .. n saw) in
    // cycles n + 1 .. n + 3 and 0 (what cycle n + 1 sees) from n + 4; the
    // flag never rises.
    cp.step(&deq(1000));
    assert_eq!(cp.depth(), 0);
    for k in 1..=DELAY {
        let out = cp.step(&idle());
        assert!(
            out.underflow == 0,
            "exact dequeue is no underflow (n + {k})"
        );
        let want = if k <= 3 { 1000 } else { 0 };
        assert_eq!(out.depth, want, "depth output of cycle n + {k}");
    }

    // Cycle n: a dequeue of 1500 > 1000 underflows. The depth clamped at 0
    // and the flag are the state at the start of cycle n + 1, which the
    // output shows from cycle n + 1 + 3 = n + 4; cycles n .. n + 3 still
    // show depth 1000 and no flag.
    fill(&mut cp, 1000);
    let mut outs = vec![cp.step(&deq(1500))];
    assert_eq!(cp.depth(), 0, "clamped at 0, not wrapped");
    for _ in 0..DELAY {
        outs.push(cp.step(&idle()));
    }
    for (k, out) in outs.iter().enumerate() {
        let after = k >= 4;
        assert_eq!(
            out.underflow != 0,
            after,
            "underflow output of cycle n + {k}"
        );
        let want = if after { 0 } else { 1000 };
        assert_eq!(out.depth, want, "depth output of cycle n + {k}");
    }

    // Sticky: survives normal traffic, a valid dequeue (cycle d, 700 -> 0),
    // and a parameter load (cycle d + 1). In cycles d + 2 .. d + 11 the
    // depth output shows 700 (what cycles d - 1 and d saw) up to d + 3 and
    // 0 (what cycle d + 1 saw) from d + 4.
    fill(&mut cp, 700);
    cp.step(&deq(700));
    cp.step(&load(p));
    for k in 2..12 {
        let out = cp.step(&idle());
        assert!(out.underflow != 0, "underflow is sticky (d + {k})");
        let want = if k <= 3 { 700 } else { 0 };
        assert_eq!(out.depth, want, "depth output of cycle d + {k}");
    }
    // Only rst clears it. rst in cycle r: the outputs of cycle r are the
    // normal ones (flag still up); from cycle r + 1 on the flag is 0 (no lag)
    // and the depth 0.
    let out = cp.step(&reset());
    assert!(
        out.underflow != 0,
        "outputs during the rst cycle are normal"
    );
    for k in 1..=DELAY {
        let out = cp.step(&idle());
        assert!(out.underflow == 0, "rst clears underflow (cycle r + {k})");
        assert_eq!(out.depth, 0, "queue empty (cycle r + {k})");
    }
}

#[test]
fn rst_restores_reset_parameters_and_empties_queue_and_pipeline() {
    let reset_params = params(1000, 3000, 40_000, 2000, 60_000, 0xabcd_1234);
    let cfg = CpConfig {
        shape: SMALL,
        reset: reset_params,
    };
    let mut cp = Cp::new(cfg).unwrap();

    // Disturb every piece of state: other parameters and seed, a full-ish
    // queue, an underflow, and decisions in flight.
    cp.step(&load(params(0, 0, 0, 100, 50_000, 77)));
    fill(&mut cp, 5000);
    cp.step(&deq(4095));
    cp.step(&deq(4095)); // 5000 - 8190 < 0: underflow, depth 0
    fill(&mut cp, 3000);
    // Enqueues in the twelve cycles r - 12 .. r - 1 before the rst cycle r,
    // so that cycle r shows the decision of cycle r - 12 and the other
    // eleven are in flight. With kmax = 0 and kdrop = 100 every ECT packet
    // is marked and a not-ECT one (q >= 100) is WRED-dropped:
    //   r - 12: ECT0 at q = 3000, mark -> 3010;
    //   r - 11: not-ECT at q = 3010, WRED drop;
    //   r - 10 .. r - 1: ECT0 at q = 3010, 3020, ..., 3100, marks.
    cp.step(&enq(10, ecn::ECT0));
    cp.step(&enq(10, ecn::NOT_ECT));
    for _ in 0..10 {
        cp.step(&enq(10, ecn::ECT0));
    }
    // rst together with an enqueue and a load: both are ignored.
    let out = cp.step(&CpIn {
        rst: true,
        cfg_valid: true,
        cfg: params(5, 5, 5, 5, 5, 5).into(),
        ..enq(100, ecn::ECT0)
    });
    // The outputs of the rst cycle are the normal ones: the decision of cycle
    // r - 12, the depth the enqueue of cycle r - 3 saw (3080), the sticky
    // flag.
    assert_decision(out, MARK, ecn::CE, "rst cycle: decision of cycle r - 12");
    assert!(
        out.underflow != 0 && out.depth == 3080,
        "rst cycle shows old state"
    );

    assert_eq!(cp.params(), CpParamsPort::from(reset_params));
    assert_eq!(cp.depth(), 0, "queue empty after rst");
    // Cycles r + 1 .. r + 14: the decisions of cycles r - 11 .. r - 1 (due
    // in r + 1 .. r + 11) and of the rst cycle's enqueue (due in r + 12) are
    // gone.
    for n in 0..DELAY + 2 {
        let out = cp.step(&idle());
        assert_no_decision(out, &format!("cycle {n} after rst: nothing in flight"));
        assert_eq!(out.depth, 0, "queue empty after rst");
        assert!(out.underflow == 0, "underflow cleared by rst");
    }

    // From here the model must behave exactly like a fresh one that has been
    // idle for the same DELAY + 2 cycles (same random state, parameters,
    // queue), on a random workload.
    let mut fresh = Cp::new(cfg).unwrap();
    for _ in 0..DELAY + 2 {
        fresh.step(&idle());
    }
    let work = random_workload(42, 5000, SMALL.len_max());
    for (n, i) in work.iter().enumerate() {
        assert_eq!(cp.step(i), fresh.step(i), "cycle {n} after rst");
    }
}

// ---------------------------------------------------------------------------
// 3. Random source (xorshift32; cp.rs module doc "Random source")
// ---------------------------------------------------------------------------

/// Ramp parameters used by the random-source tests: kmin 1000, kmax 5000,
/// pmax 0.8 (52429), at q = 3000 the probability is 0.5 * 0.8 = 0.4.
fn ramp(seed: u32) -> CpParams {
    params(1000, 5000, 52_429, 60_000, 60_000, seed)
}

#[test]
fn xorshift32_reference_in_this_file_matches_marsaglia() {
    // Marsaglia (2003), "Xorshift RNGs", §3: from y = 2463534242 the (13, 17,
    // 5) generator's first output is 723471715 (checked with Python ints).
    assert_eq!(xs32(2_463_534_242), 723_471_715);
}

#[test]
fn same_seed_gives_identical_decisions_and_another_seed_differs() {
    let work: Vec<CpIn> = (0..20_000).map(|_| enq(0, ecn::ECT0)).collect();
    let outs = |seed: u32| {
        let mut cp = model(SMALL, ramp(seed));
        fill(&mut cp, 3000);
        run(&mut cp, &work)
    };
    let a = outs(0x1357_9bdf);
    let b = outs(0x1357_9bdf);
    let c = outs(0x2468_ace0);
    assert_eq!(a, b, "same seed, same inputs, same decisions");
    let marks = a.iter().filter(|o| o.dec_action == MARK).count();
    assert!(
        marks > 1000 && marks < 19_000,
        "both outcomes occur ({marks} marks)"
    );
    assert_ne!(a, c, "a different seed gives different decisions");

    // Also on a random mixed workload (drops, dequeues, all ECNs).
    let work = random_workload(7, 20_000, SMALL.len_max());
    let mut x = model(SMALL, ramp(99));
    let mut y = model(SMALL, ramp(99));
    for i in &work {
        assert_eq!(x.step(i), y.step(i));
    }
}

#[test]
fn loading_seed_zero_behaves_exactly_like_loading_reset_seed() {
    // Seed 0 is the fixed point of xorshift; the contract replaces it by
    // RESET_SEED. Loaded at run time ...
    let run_with = |seed: u32| {
        let mut cp = model(SMALL, ramp(0x0bad_cafe));
        for _ in 0..17 {
            cp.step(&idle());
        }
        cp.step(&load(ramp(seed)));
        fill(&mut cp, 3000);
        run(&mut cp, &vec![enq(0, ecn::ECT1); 10_000])
    };
    let zero = run_with(0);
    assert_eq!(zero, run_with(RESET_SEED), "load of seed 0 == RESET_SEED");
    assert_ne!(zero, run_with(RESET_SEED ^ 1), "the seed does matter");
    let marks = zero.iter().filter(|o| o.dec_action == MARK).count();
    assert!(marks > 0 && marks < zero.len(), "seed 0 does not lock up");

    // ... and as the generation-time reset seed.
    let fresh = |seed: u32| {
        let mut cp = model(SMALL, ramp(seed));
        fill(&mut cp, 3000);
        run(&mut cp, &vec![enq(0, ecn::ECT1); 10_000])
    };
    assert_eq!(fresh(0), fresh(RESET_SEED), "reset seed 0 == RESET_SEED");
}

#[test]
fn each_decision_uses_top_16_bits_of_a_xorshift32_state_advancing_every_cycle() {
    // Predict every decision with this file's own xorshift32 and marking
    // rule. The state after reset is the reset seed; it advances once per
    // cycle, idle cycles included; a load sets it to the loaded seed (or to
    // RESET_SEED for 0) for the next cycle; the draw of a cycle is the top 16
    // bits of the state in force during that cycle.
    let seed = 0x1234_5678;
    let p = ramp(seed);
    let (kmin, kmax, pmax) = (p.kmin, p.kmax, p.pmax);
    let mut cp = model(SMALL, p);
    let mut state = seed;
    let mut r = TestRng(2024);

    // Fill to q = 3000 with CE packets (not subject to marking); each cycle
    // still advances the state.
    let q = 3000;
    let mut filled = 0;
    while filled < q {
        let len = 1000.min(q - filled);
        cp.step(&enq(len, ecn::CE));
        state = xs32(state);
        filled += len;
    }

    // 20000 cycles: ~60 % zero-length ECT enqueues, the rest idle, with two
    // seed loads (one of them seed 0) carrying an enqueue in their own cycle.
    let loads = [(7_000usize, 0xfeed_f00d_u32), (13_000, 0)];
    let mut expected: Vec<Option<bool>> = Vec::new(); // per cycle: mark?
    let mut outs = Vec::new();
    for n in 0..20_000 {
        let mut i = if r.below(10) < 6 {
            enq(
                0,
                if r.below(2) == 0 {
                    ecn::ECT0
                } else {
                    ecn::ECT1
                },
            )
        } else {
            idle()
        };
        let u = state >> 16; // this cycle's draw
        expected.push(i.enq_valid.then(|| expect_mark(q, u, kmin, kmax, pmax)));
        state = xs32(state);
        if let Some(&(_, s)) = loads.iter().find(|&&(at, _)| at == n) {
            i = CpIn {
                cfg_valid: true,
                cfg: ramp(s).into(),
                ..enq(0, ecn::ECT0)
            };
            // The enqueue of the load's cycle uses the old state's draw.
            *expected.last_mut().unwrap() = Some(expect_mark(q, u, kmin, kmax, pmax));
            state = if s == 0 { RESET_SEED } else { s };
        }
        outs.push(cp.step(&i));
    }
    for _ in 0..DELAY {
        outs.push(cp.step(&idle()));
    }

    let (mut marks, mut admits) = (0, 0);
    for (n, e) in expected.iter().enumerate() {
        let out = outs[n + DELAY];
        match e {
            None => assert_no_decision(out, &format!("idle cycle {n}")),
            Some(true) => {
                marks += 1;
                assert_decision(out, MARK, ecn::CE, &format!("cycle {n}"));
            }
            Some(false) => {
                admits += 1;
                assert!(out.dec_valid && out.dec_action == ADMIT, "cycle {n}");
            }
        }
    }
    // p = 0.4: both outcomes must be well represented for the test to mean
    // anything.
    assert!(
        marks > 3000 && admits > 3000,
        "marks {marks}, admits {admits}"
    );
}

#[test]
fn draw_equal_to_the_threshold_is_not_marked_and_one_below_is() {
    // With p(q) = T / 2^16 exactly (T an integer), exactly the T draws
    // u = 0 .. T-1 satisfy u / 2^16 < p: the comparison is strict. The seed
    // port sets the whole state, so loading seed `(u << 16) | 1` makes the
    // draw of the next cycle exactly `u`.
    // kmin 1000, kmax 5000, pmax 52428, q 2000: T = 1000 * 52428 / 4000 =
    // 13107 (exact).
    let p = params(1000, 5000, 52_428, 60_000, 60_000, 1);
    let q = 2000;
    let t: u32 = (q - p.kmin) * p.pmax / (p.kmax - p.kmin);
    assert_eq!(t * (p.kmax - p.kmin), (q - p.kmin) * p.pmax, "T is exact");
    for (u, marked) in [(0, true), (t - 1, true), (t, false), (t + 1, false)] {
        let mut cp = model(SMALL, p);
        fill(&mut cp, q);
        let seeded = CpParams {
            seed: (u << 16) | 1,
            ..p
        };
        let outs = run(&mut cp, &[load(seeded), enq(0, ecn::ECT0)]);
        if marked {
            assert_decision(outs[1], MARK, ecn::CE, &format!("u = {u}, T = {t}"));
        } else {
            assert_decision(outs[1], ADMIT, ecn::ECT0, &format!("u = {u}, T = {t}"));
        }
    }
}

// ---------------------------------------------------------------------------
// 4. Float reference (cp::reference::mark_probability)
// ---------------------------------------------------------------------------

/// Binomial tolerance (5 standard deviations) plus the Q0.16 quantisation.
fn tolerance(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt() + 2f64.powi(-16)
}

#[test]
fn measured_mark_fraction_matches_float_reference_at_several_depths_and_pmax() {
    // Ramp from kmin = 20000 to kmax = 60000 (span 40000) on a 20-bit queue;
    // kdrop = buf_max = 1_000_000 keeps drops out of the way. Each point is
    // measured with n = 200_000 ECT packets of length 0 at a constant depth.
    let (kmin, kmax) = (20_000u32, 60_000u32);
    let span = kmax - kmin;
    let depths = [
        ("below kmin", kmin - 5000),
        ("kmin - 1", kmin - 1),
        ("kmin", kmin),
        ("25 %", kmin + span / 4),
        ("50 %", kmin + span / 2),
        ("90 %", kmin + span * 9 / 10),
        ("kmax - 1", kmax - 1),
        ("kmax", kmax),
        ("above kmax", kmax + 10_000),
    ];
    let n = 200_000usize;
    // Each point gets an unrelated seed. (Seeds taken from one xorshift orbit
    // would make the points' draw windows overlap: seed `xs32^k(s)` replays
    // the sequence of `s` shifted by `k` cycles.)
    let mut seeds = TestRng(0x0f0f_1234);
    for pmax_f in [0.1, 0.5, 1.0] {
        let pmax = reference::pmax_q16(pmax_f).unwrap();
        for (label, q) in depths {
            let seed = seeds.next() as u32 | 1;
            let mut cp = model(MEDIUM, params(kmin, kmax, pmax, 1_000_000, 1_000_000, seed));
            fill(&mut cp, q);
            let mut marks = 0usize;
            for c in 0..n + DELAY {
                let i = if c < n { enq(0, ecn::ECT0) } else { idle() };
                let out = cp.step(&i);
                if c >= DELAY {
                    assert!(out.dec_valid, "one decision per enqueue");
                    match out.dec_action {
                        MARK => marks += 1,
                        ADMIT => {}
                        a => panic!("unexpected action {a} at q = {q}"),
                    }
                }
            }
            assert_eq!(cp.depth(), q, "zero-length packets keep q");
            let frac = marks as f64 / n as f64;
            let p = reference::mark_probability(q as f64, kmin as f64, kmax as f64, pmax_f);
            let tol = tolerance(p, n);
            eprintln!(
                "mark fraction: pmax {pmax_f:>3}, q {q:>6} ({label:>10}): \
                 measured {frac:.5}, p(q) {p:.5}, |diff| {:.5} <= {tol:.5}",
                (frac - p).abs()
            );
            assert!(
                (frac - p).abs() <= tol,
                "pmax {pmax_f}, q {q} ({label}): fraction {frac} vs p {p} (tol {tol})"
            );
        }
    }
}

/// The exact marking probability of the integer rule at one point: the
/// fraction of the 65536 draws `u` for which `u * (kmax - kmin) < (q - kmin)
/// * pmax`, counted by brute force.
fn exact_fraction(q: u32, kmin: u32, kmax: u32, pmax: u32) -> f64 {
    let count = (0..1u32 << 16)
        .filter(|&u| expect_mark(q, u, kmin, kmax, pmax))
        .count();
    count as f64 / 65536.0
}

#[test]
fn quantisation_error_of_integer_ramp_is_below_two_to_minus_16() {
    // For many random (depth_bits, kmin, kmax, q, pmax) inside the ramp,
    // compare the exact integer marking probability with the float p(q).
    // Against the register's own pmax (pmax / 2^16) the only error is the
    // Q0.16 draw: strictly below 2^-16. Against the pmax the user asked for
    // (a float rounded to Q1.16 with error <= 2^-17), the bound is
    // 2^-16 + 2^-17.
    let lsb = 2f64.powi(-16);
    let mut r = TestRng(0xc0ffee);
    let mut worst_reg = (0.0f64, (0, 0, 0, 0));
    let mut worst_user = 0.0f64;
    let mut points = 0;

    // Hand-picked corners plus random points.
    let mut cases: Vec<(u32, u32, u32, u32)> = vec![
        (0, 0, 1, PMAX_ONE),                                      // one-byte ramp
        (99_999, 0, 100_000, PMAX_ONE),                           // just below kmax
        (1, 0, 3, 1),                                             // tiny pmax
        ((1 << 28) - 2, 0, (1 << 28) - 1, PMAX_ONE),              // widest queue
        (123_456, 100_000, (1 << 28) - 1, 65_535),                // long span
        (20_000 + 40_000 * 9 / 10, 20_000, 60_000, 6554),         // pmax 0.1
        (20_000 + 40_000 / 4, 20_000, 60_000, PMAX_ONE / 2),      // pmax 0.5
        (20_000 + 40_000 / 3 + 1, 20_000, 60_000, 3 * 65536 / 7), // odd ratios
    ];
    for _ in 0..600 {
        let bits = SUPPORTED_DEPTH_BITS[r.below(SUPPORTED_DEPTH_BITS.len() as u64) as usize];
        let max = (1u64 << bits) - 1;
        let a = r.below(max + 1) as u32;
        let b = r.below(max + 1) as u32;
        let (kmin, kmax) = (a.min(b), a.max(b));
        if kmin == kmax {
            continue;
        }
        let q = kmin + r.below((kmax - kmin) as u64) as u32; // kmin <= q < kmax
        let pmax = r.below(PMAX_ONE as u64 + 1) as u32;
        cases.push((q, kmin, kmax, pmax));
    }
    // User-facing pmax values (as floats), rounded with pmax_q16.
    let user_pmax = [0.1, 0.25, 0.3, 0.5, 0.7, 0.99, 1.0];

    for (q, kmin, kmax, pmax) in cases {
        let exact = exact_fraction(q, kmin, kmax, pmax);
        let p_reg = reference::mark_probability(
            q as f64,
            kmin as f64,
            kmax as f64,
            pmax as f64 / PMAX_ONE as f64,
        );
        let err = (exact - p_reg).abs();
        assert!(
            err < lsb,
            "q {q}, kmin {kmin}, kmax {kmax}, pmax {pmax}: exact {exact}, p {p_reg}"
        );
        // The integer rule can only round up (a fraction of a draw counts as
        // a whole one), never down.
        assert!(exact >= p_reg - 1e-15, "rounding is upward");
        if err > worst_reg.0 {
            worst_reg = (err, (q, kmin, kmax, pmax));
        }
        points += 1;

        let pf = user_pmax[r.below(user_pmax.len() as u64) as usize];
        let pq = reference::pmax_q16(pf).unwrap();
        let exact = exact_fraction(q, kmin, kmax, pq);
        let p_user = reference::mark_probability(q as f64, kmin as f64, kmax as f64, pf);
        let err = (exact - p_user).abs();
        assert!(
            err < lsb + lsb / 2.0,
            "user pmax {pf}: q {q}, kmin {kmin}, kmax {kmax}: {exact} vs {p_user}"
        );
        worst_user = worst_user.max(err);
        points += 1;
    }
    eprintln!(
        "quantisation: {points} points; largest |exact - p(q)| with the register pmax = \
         {:.3e} = {:.6} LSB (2^-16) at (q, kmin, kmax, pmax) = {:?}; \
         with a float pmax rounded to Q1.16 = {:.3e} = {:.6} LSB",
        worst_reg.0,
        worst_reg.0 / lsb,
        worst_reg.1,
        worst_user,
        worst_user / lsb
    );
}

// ---------------------------------------------------------------------------
// 5. Parameter validation
// ---------------------------------------------------------------------------

/// Asserts an `Err` naming one of `names`.
#[track_caller]
fn assert_err_names<T: std::fmt::Debug>(
    r: Result<T, ccrtl_golden::ParamError>,
    names: &[&str],
    what: &str,
) {
    match r {
        Ok(v) => panic!("{what}: expected an error naming {names:?}, got Ok({v:?})"),
        Err(e) => assert!(
            names.contains(&e.name),
            "{what}: error names `{}` ({}), expected one of {names:?}",
            e.name,
            e.message
        ),
    }
}

/// A valid parameter set for `SMALL` (depth_max 65535).
fn valid_small() -> CpParams {
    params(1000, 3000, 32_768, 2000, 50_000, 1)
}

#[test]
fn valid_configurations_are_accepted() {
    assert_eq!(valid_small().validate(&SMALL), Ok(()));
    assert!(CpConfig::default().validate().is_ok());
    assert!(Cp::new(CpConfig::default()).is_ok());
    // Every supported shape with len_bits <= depth_bits, with its reset values.
    for &d in SUPPORTED_DEPTH_BITS {
        for &l in SUPPORTED_LEN_BITS.iter().filter(|&&l| l <= d) {
            let shape = CpShape::new(d, l);
            assert_eq!(shape.validate(), Ok(()), "{shape:?}");
            let reset = CpParams::reset_for(&shape);
            assert_eq!(reset.validate(&shape), Ok(()), "{shape:?}");
            assert!(Cp::new(CpConfig { shape, reset }).is_ok(), "{shape:?}");
        }
    }
    // Boundary values that are allowed: kmin == kmax (step marking), pmax ==
    // 1.0, pmax == 0, thresholds == buf_max, buf_max == depth_max, seed 0.
    let edge = params(65_535, 65_535, PMAX_ONE, 65_535, 65_535, 0);
    assert_eq!(edge.validate(&SMALL), Ok(()));
    assert_eq!(params(0, 0, 0, 0, 0, 0).validate(&SMALL), Ok(()));
}

#[test]
fn kmin_greater_than_kmax_is_rejected_naming_kmin_or_kmax() {
    let p = CpParams {
        kmin: 3001,
        kmax: 3000,
        ..valid_small()
    };
    assert_err_names(p.validate(&SMALL), &["kmin", "kmax"], "kmin > kmax");
}

#[test]
fn pmax_above_one_is_rejected_naming_pmax() {
    let p = CpParams {
        pmax: PMAX_ONE + 1,
        ..valid_small()
    };
    assert_err_names(p.validate(&SMALL), &["pmax"], "pmax = 65537");
    let p = CpParams {
        pmax: PMAX_ONE,
        ..valid_small()
    };
    assert_eq!(p.validate(&SMALL), Ok(()), "pmax = 1.0 is allowed");
}

#[test]
fn thresholds_beyond_buf_max_are_rejected_naming_the_threshold() {
    let base = valid_small(); // buf_max 50000
    let kmax = CpParams {
        kmax: 50_001,
        ..base
    };
    assert_err_names(kmax.validate(&SMALL), &["kmax"], "kmax > buf_max");
    let kdrop = CpParams {
        kdrop: 50_001,
        ..base
    };
    assert_err_names(kdrop.validate(&SMALL), &["kdrop"], "kdrop > buf_max");
    // kmin beyond buf_max (with kmax too, so that kmin <= kmax still holds).
    let kmin = CpParams {
        kmin: 50_001,
        kmax: 50_001,
        ..base
    };
    assert_err_names(kmin.validate(&SMALL), &["kmin", "kmax"], "kmin > buf_max");
}

#[test]
fn buf_max_not_fitting_depth_bits_is_rejected_naming_buf_max() {
    // 16-bit depth: the largest depth is 65535.
    let p = CpParams {
        buf_max: 65_536,
        ..valid_small()
    };
    assert_err_names(p.validate(&SMALL), &["buf_max"], "buf_max = 2^16");
    // Through the whole configuration and the constructor as well.
    let cfg = CpConfig {
        shape: SMALL,
        reset: p,
    };
    assert_err_names(cfg.validate(), &["buf_max"], "CpConfig::validate");
    assert_err_names(Cp::new(cfg), &["buf_max"], "Cp::new");
}

#[test]
fn unsupported_depth_bits_or_len_bits_are_rejected_naming_the_width() {
    for d in [15, 17, 19, 32, 64] {
        assert!(!SUPPORTED_DEPTH_BITS.contains(&d));
        let s = CpShape::new(d, 12);
        assert_err_names(s.validate(), &["depth_bits"], &format!("depth_bits {d}"));
        let cfg = CpConfig {
            shape: s,
            reset: valid_small(),
        };
        assert_err_names(Cp::new(cfg), &["depth_bits"], "Cp::new");
    }
    for l in [0, 8, 13, 15, 20] {
        assert!(!SUPPORTED_LEN_BITS.contains(&l));
        let s = CpShape::new(24, l);
        assert_err_names(s.validate(), &["len_bits"], &format!("len_bits {l}"));
        let cfg = CpConfig {
            shape: s,
            reset: valid_small(),
        };
        assert_err_names(cfg.validate(), &["len_bits"], "CpConfig::validate");
    }
}

#[test]
fn len_bits_greater_than_depth_bits_is_rejected_naming_len_bits() {
    // A packet must fit the depth counter. With the supported lists (depth
    // >= 16, len <= 16) no supported pair has len_bits > depth_bits, so the
    // request reaches the error through whichever check comes first; it must
    // still name len_bits.
    for &d in SUPPORTED_DEPTH_BITS {
        for l in [d + 1, d + 4] {
            let s = CpShape::new(d, l);
            assert_err_names(s.validate(), &["len_bits"], &format!("{s:?}"));
        }
    }
    for &d in SUPPORTED_DEPTH_BITS {
        for &l in SUPPORTED_LEN_BITS {
            let s = CpShape::new(d, l);
            assert_eq!(s.validate().is_ok(), l <= d, "{s:?}");
        }
    }
}

#[test]
fn invalid_reset_params_make_new_fail_naming_the_parameter() {
    let bad = [
        (
            CpParams {
                pmax: PMAX_ONE + 1,
                ..valid_small()
            },
            &["pmax"][..],
        ),
        (
            CpParams {
                kdrop: 60_000,
                ..valid_small()
            },
            &["kdrop"][..],
        ),
        (
            CpParams {
                kmin: 4000,
                ..valid_small()
            },
            &["kmin", "kmax"][..], // kmin 4000 > kmax 3000
        ),
    ];
    for (reset, names) in bad {
        let cfg = CpConfig {
            shape: SMALL,
            reset,
        };
        assert_err_names(cfg.validate(), names, "CpConfig::validate");
        assert_err_names(Cp::new(cfg), names, "Cp::new");
    }
}
