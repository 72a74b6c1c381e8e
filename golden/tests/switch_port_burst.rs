//! The seed's micro-benchmark shape on one switch output port (the golden
//! model of `switch_port`, which the RTL matches cycle by cycle): four
//! steady flows fill the link, then a burst flow at line rate joins them
//! for 4,000 cycles (20 us at 200 MHz). The port's class queues and the
//! link are modelled here; the port decides classes, admission and the
//! grants.
//!
//! Link: 64 bytes a cycle (about 100 Gb/s at 200 MHz); packets 1,024
//! bytes, 16 cycles on the link. Steady flows: one packet every 50 to 83
//! cycles each (uniform: 96% of the link together, so no standing queue
//! before the burst; the jitter keeps the CAM's one-in-S sampling from
//! locking onto the arrival pattern). Burst: one packet every 15 to 17
//! cycles (line rate).
//! Run with `--nocapture` to see the per-bin shares.

use ccrtl_golden::cp::Action;
use ccrtl_golden::switch_port::{SwitchPort, SwitchPortConfig, SwitchPortIn, SwitchPortShape};
use std::collections::VecDeque;

const LINK_BYTES: u32 = 64;
const PKT: u32 = 1024;
const STEADY: usize = 4;
const BURST: usize = STEADY;
const T_BURST: u64 = 30_000;
const BURST_CYCLES: u64 = 4_000;
const END: u64 = 40_000;
const BIN: u64 = 500;

struct Run {
    /// Bytes sent per flow per bin.
    bins: Vec<[u64; STEADY + 1]>,
    /// First cycle in window mode at or after the burst's start.
    window_at: Option<u64>,
    /// Steady packets classed c during the burst, and all of them.
    steady_c: (u64, u64),
    /// Burst packets classed c, and all of them.
    burst_c: (u64, u64),
    drops: u64,
    /// Bytes class c sent per bin.
    c_bins: Vec<u64>,
    /// Window mode in the 5,000 cycles before the burst.
    window_before: bool,
}

fn config(rcm: bool) -> SwitchPortConfig {
    let mut c = SwitchPortConfig::reset_for(SwitchPortShape { cam_depth: 16 });
    c.cam.period = 4;
    c.crd.period = 200;
    c.crd.qeq = if rcm { 8 * PKT } else { (1 << 20) - 1 };
    c.sar.mask = 0;
    c
}

fn run(rcm: bool) -> Run {
    let mut p = SwitchPort::new(config(rcm)).expect("a valid configuration");
    let keys: Vec<u128> = (0..=STEADY as u128)
        .map(|f| {
            (0x0a00_0001u128 + f) << 72 | 0x0a00_0100 << 40 | (4000 + f) << 24 | 4791 << 8 | 17
        })
        .collect();
    // Arrivals waiting for the port's one-per-cycle input, and those in
    // the port (decisions come in order, LATENCY cycles later).
    let mut waiting: VecDeque<usize> = VecDeque::new();
    let mut inside: VecDeque<usize> = VecDeque::new();
    let mut cq: VecDeque<usize> = VecDeque::new();
    let mut nq: VecDeque<usize> = VecDeque::new();
    let mut busy = 0u32;
    // Each flow's next arrival; a fixed-seed generator for the jitter.
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next_rand = move |lo: u64, hi: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        lo + rng % (hi - lo + 1)
    };
    let mut next: Vec<u64> = (0..STEADY).map(|f| f as u64 * 16).collect();
    next.push(T_BURST);
    let mut r = Run {
        bins: vec![[0; STEADY + 1]; (END / BIN) as usize],
        window_at: None,
        steady_c: (0, 0),
        burst_c: (0, 0),
        drops: 0,
        c_bins: vec![0; (END / BIN) as usize],
        window_before: false,
    };
    let mut i = SwitchPortIn {
        rst: true,
        ..Default::default()
    };
    p.step(&i);
    i.rst = false;
    for t in 0..END {
        for f in 0..STEADY {
            if t == next[f] {
                waiting.push_back(f);
                next[f] = t + next_rand(50, 83);
            }
        }
        if t == next[BURST] && t < T_BURST + BURST_CYCLES {
            waiting.push_back(BURST);
            next[BURST] = t + next_rand(15, 17);
        }
        i.arr_valid = false;
        if let Some(f) = waiting.pop_front() {
            i.arr_valid = true;
            i.arr_key = keys[f];
            i.arr_len = PKT;
            i.arr_ecn = 0b10;
            i.arr_port = 0;
            i.arr_group = 0;
            inside.push_back(f);
        }
        i.c_valid = !cq.is_empty();
        i.c_len = PKT;
        i.n_valid = !nq.is_empty();
        i.n_len = PKT;
        i.out_ready = busy == 0;
        let o = p.step(&i);
        if o.arr_valid {
            let f = inside.pop_front().expect("a decision for each arrival");
            let admitted = !o.arr_detour
                && matches!(
                    Action::from_code(o.arr_action),
                    Some(Action::Admit | Action::Mark)
                );
            if !admitted {
                r.drops += 1;
            } else {
                let during = (T_BURST..T_BURST + BURST_CYCLES).contains(&t);
                if f == BURST {
                    r.burst_c.1 += 1;
                    r.burst_c.0 += o.arr_class as u64;
                } else if during {
                    r.steady_c.1 += 1;
                    r.steady_c.0 += o.arr_class as u64;
                }
                if o.arr_class {
                    cq.push_back(f);
                } else {
                    nq.push_back(f);
                }
            }
        }
        let sent = if o.c_ready {
            cq.pop_front()
        } else if o.n_ready {
            nq.pop_front()
        } else {
            None
        };
        if let Some(f) = sent {
            busy = PKT.div_ceil(LINK_BYTES);
            r.bins[(t / BIN) as usize][f] += PKT as u64;
            if o.c_ready {
                r.c_bins[(t / BIN) as usize] += PKT as u64;
            }
        }
        busy = busy.saturating_sub(1);
        if (T_BURST - 5_000..T_BURST).contains(&t) && o.window {
            r.window_before = true;
        }
        if o.window && t >= T_BURST && r.window_at.is_none() {
            r.window_at = Some(t);
        }
    }
    r
}

/// Shares of the link's capacity over cycles `from..to`: the burst's and
/// the steady flows' together.
fn shares(r: &Run, from: u64, to: u64) -> (f64, f64) {
    let cap = ((to - from) * LINK_BYTES as u64) as f64;
    let (mut b, mut s) = (0u64, 0u64);
    for k in (from / BIN)..(to / BIN) {
        let bin = r.bins[k as usize];
        b += bin[BURST];
        s += bin[..STEADY].iter().sum::<u64>();
    }
    (b as f64 / cap, s as f64 / cap)
}

/// Class c's share of the link over cycles `from..to`.
fn c_share(r: &Run, from: u64, to: u64) -> f64 {
    let cap = ((to - from) * LINK_BYTES as u64) as f64;
    let c: u64 = ((from / BIN)..(to / BIN))
        .map(|k| r.c_bins[k as usize])
        .sum();
    c as f64 / cap
}

/// What the seed's micro-benchmark shape gives at one port, measured
/// (docs/switch_port.md, "The burst-flow benchmark"): when the port is in
/// window mode after the burst starts, how the flows are classed, and the
/// shares of the burst, the steady flows and class c, with window mode and
/// without (the same traffic, `qeq` out of reach). Asserted: the steady
/// flows fill the link before the burst, the CAM classes the burst flow as
/// a congestion flow, and window mode is on within 1,000 cycles of the
/// burst's start. Not asserted, because it does not hold: that the burst
/// flow's share is cut. A flow with a fraction `f` of the arrivals is among
/// the last `D` samples with probability `1 - (1 - f)^D` (88% for each
/// steady flow at `f = 1/8`, `D = 16`), so the steady flows share class c
/// with the burst and window mode cuts them with it.
#[test]
fn burst_flow_benchmark_shape() {
    let with = run(true);
    let without = run(false);
    for (name, r) in [("window mode", &with), ("no window mode", &without)] {
        eprintln!(
            "{name}: window mode at {:?}, drops {}",
            r.window_at, r.drops
        );
        eprintln!(
            "{name}: burst packets classed c {}/{}, steady packets classed c during the burst {}/{}",
            r.burst_c.0, r.burst_c.1, r.steady_c.0, r.steady_c.1
        );
        for k in (T_BURST / BIN - 2)..((T_BURST + BURST_CYCLES) / BIN + 4) {
            let (b, s) = shares(r, k * BIN, (k + 1) * BIN);
            let c = c_share(r, k * BIN, (k + 1) * BIN);
            eprintln!(
                "{name}: cycles {:>6}..: burst {b:.3} steady {s:.3} class c {c:.3}",
                k * BIN
            );
        }
    }
    let before = shares(&with, T_BURST - 5_000, T_BURST);
    assert!(before.1 > 0.9, "steady flows before the burst: {before:?}");
    let w_at = with.window_at.expect("window mode during the burst");
    let to = T_BURST + BURST_CYCLES;
    let from = T_BURST + 1_000;
    let (b_w, s_w) = shares(&with, from, to);
    let (b_0, s_0) = shares(&without, from, to);
    let (c_w, c_0) = (c_share(&with, from, to), c_share(&without, from, to));
    eprintln!(
        "window mode on {} cycles after the burst starts (in the 5,000 before: {}); cycles {from}..{to}: \
         with window mode burst {b_w:.3} steady {s_w:.3} class c {c_w:.3}; \
         without burst {b_0:.3} steady {s_0:.3} class c {c_0:.3}",
        w_at - T_BURST,
        with.window_before
    );
    assert!(
        without.window_at.is_none(),
        "the baseline never enters window mode"
    );
    assert!(
        w_at - T_BURST < 1_000,
        "window mode {} cycles after the burst",
        w_at - T_BURST
    );
    assert!(
        with.burst_c.0 * 10 >= with.burst_c.1 * 9,
        "the CAM classes the burst flow as a congestion flow: {:?}",
        with.burst_c
    );
}
