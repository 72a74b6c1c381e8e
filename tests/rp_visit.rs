//! The rp_visit pipeline against the golden visit of every profile, the
//! kill path, and its Verilog's lint. A test of the top package, not of
//! the hdl crate: the hdl crate is compiled at opt-level 0 (Cargo.toml),
//! and `RpVisit<14, 10>`, instantiated here, is compiled at this test's
//! opt-level 3, so that rust-hdl simulates its 192,000 visits at full
//! speed.

use ccrtl_golden::rp::{
    visit, Arith, Control, Exact, Powers, Profile, RateState, RpParams, VisitCtx,
};
use ccrtl_hdl::rp_visit::*;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// The shape under test: 2^14 flows, stamps of 10 bits (the default).
const FBT: usize = 14;
const WT: usize = 10;
const WMASK: u32 = (1 << WT) - 1;

/// xorshift64* (test stimulus only).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 11) % n.max(1)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    /// True with probability `num / den`.
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

/// One visit: the flow's state and the context.
#[derive(Clone, Copy, Debug)]
struct Visit {
    flow: u32,
    ctl: Control,
    st: RateState<u32, u32>,
    tick: u32,
    apn: u32,
    cnp: bool,
    bc_event: bool,
}

/// A visit's result as the outputs show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outcome {
    flow: u32,
    ctl: Control,
    rc: u32,
    rt: u32,
    alpha: u32,
    changed: bool,
    cut: bool,
}

/// The golden visit.
fn golden(p: &RpParams, pw: &Powers, v: &Visit) -> Outcome {
    let ctx = VisitCtx {
        p,
        stamp_bits: WT as u32,
        steps: STEPS,
        tick: v.tick,
        apn: v.apn,
        cnp: v.cnp,
        bc_event: v.bc_event,
    };
    let (mut ctl, mut st) = (v.ctl, v.st);
    let log = visit(&Exact(pw), &ctx, &mut ctl, &mut st);
    let before = if v.ctl.limited { v.st.rc } else { p.line_rate };
    Outcome {
        flow: v.flow,
        ctl,
        rc: st.rc,
        rt: st.rt,
        alpha: st.alpha,
        changed: ctl.limited && st.rc != before,
        cut: ctl.limited && st.rc != before && log.cut,
    }
}

/// The block in rust-hdl's simulator, one call a clock cycle (inputs
/// applied with the clock low, outputs read before the rising edge).
struct Bench {
    b: Box<RpVisit<FBT, WT>>,
}

impl Bench {
    fn new() -> Bench {
        let mut b = Box::new(RpVisit::<FBT, WT>::new());
        b.connect_all();
        Bench { b }
    }

    fn regs(&mut self, p: &RpParams) {
        let b = &mut self.b;
        b.profile.next = (p.profile as u64).to_bits();
        b.line_rate.next = (p.line_rate as u64).to_bits();
        b.r_min.next = (p.r_min as u64).to_bits();
        b.r_ai.next = (p.r_ai as u64).to_bits();
        b.r_hai.next = (p.r_hai as u64).to_bits();
        b.first_cnp_rate.next = (p.first_cnp_rate as u64).to_bits();
        b.g.next = (p.g as u64).to_bits();
        b.alpha_init.next = (p.alpha_init as u64).to_bits();
        b.alpha_period.next = (p.alpha_period as u64).to_bits();
        b.dec_shift.next = (p.dec_shift as u64).to_bits();
        b.t_inc.next = (p.t_inc as u64).to_bits();
        b.byte_counter_on.next = p.byte_counter != 0;
        b.f.next = (p.f as u64).to_bits();
        b.gd.next = (p.gd as u64).to_bits();
        b.max_dec.next = (p.max_dec as u64).to_bits();
        b.clamp_tgt_rate.next = p.clamp_tgt_rate;
        b.clamp_after_time_inc.next = p.clamp_after_time_inc;
    }

    /// One cycle; returns the output if `out_valid`, and `fill_busy`.
    fn cycle(
        &mut self,
        rst: bool,
        kill: bool,
        fill: bool,
        v: Option<&Visit>,
    ) -> (Option<Outcome>, bool) {
        let b = &mut self.b;
        b.clk.next = Clock { clk: false };
        b.rst.next = rst;
        b.kill.next = kill;
        b.fill.next = fill;
        b.in_valid.next = v.is_some();
        if let Some(v) = v {
            b.in_flow.next = (v.flow as u64).to_bits();
            b.in_rc.next = (v.st.rc as u64).to_bits();
            b.in_rt.next = (v.st.rt as u64).to_bits();
            b.in_alpha.next = (v.st.alpha as u64).to_bits();
            b.in_t.next = (v.ctl.t as u64).to_bits();
            b.in_bc.next = (v.ctl.bc as u64).to_bits();
            b.in_inc_stamp.next = (v.ctl.inc_stamp as u64).to_bits();
            b.in_a_stamp.next = (v.ctl.a_stamp as u64).to_bits();
            b.in_limited.next = v.ctl.limited;
            b.in_inc_on.next = v.ctl.inc_on;
            b.in_amark.next = v.ctl.amark;
            b.in_dmark.next = v.ctl.dmark;
            b.in_tick.next = (v.tick as u64).to_bits();
            b.in_apn.next = (v.apn as u64).to_bits();
            b.in_cnp.next = v.cnp;
            b.in_bc_event.next = v.bc_event;
        }
        assert!(
            simulate(&mut **b, ccrtl_hdl::sim::MAX_ITERS),
            "RpVisit did not settle"
        );
        let out = b.out_valid.val().then(|| Outcome {
            flow: b.out_flow.val().to_u32(),
            ctl: Control {
                limited: b.out_limited.val(),
                inc_on: b.out_inc_on.val(),
                amark: b.out_amark.val(),
                dmark: b.out_dmark.val(),
                t: b.out_t.val().to_u32() as u8,
                bc: b.out_bc.val().to_u32() as u8,
                inc_stamp: b.out_inc_stamp.val().to_u32(),
                a_stamp: b.out_a_stamp.val().to_u32(),
            },
            rc: b.out_rc.val().to_u32(),
            rt: b.out_rt.val().to_u32(),
            alpha: b.out_alpha.val().to_u32(),
            changed: b.out_changed.val(),
            cut: b.out_cut.val(),
        });
        assert!(
            b.out_valid.val() || !b.out_changed.val(),
            "out_changed without out_valid"
        );
        let busy = b.fill_busy.val();
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(&mut **b, ccrtl_hdl::sim::MAX_ITERS),
            "RpVisit did not settle"
        );
        (out, busy)
    }
}

/// Registers as the loader's constructors make them, then randomised
/// within their widths (not necessarily values the loader accepts: the
/// function must match for any). `wild`: also the rates, `gd` below 10
/// and `max_dec` above 4096 (cuts that reduce by more than `Rc`).
fn random_params(r: &mut Rng, profile: Profile, wild: bool) -> RpParams {
    let lr = r.range(1_000, 500_000) as f64;
    let mut p = match profile {
        Profile::Paper => RpParams::paper(lr, 150, 1 << 14),
        Profile::Nvidia => RpParams::nvidia(lr, 150, 1 << 14),
        Profile::Ns3 => RpParams::ns3(lr, 150, 1 << 14),
    };
    let timer = |r: &mut Rng| match r.below(10) {
        0 => 0,
        1 => r.range(1, 65_535) as u32,
        2 | 3 => r.range(1, 4) as u32,
        _ => r.range(1, 80) as u32,
    };
    p.t_inc = timer(r);
    p.alpha_period = if profile == Profile::Paper || r.chance(1, 4) {
        timer(r)
    } else {
        r.range(0, 3) as u32
    };
    p.f = if r.chance(3, 4) {
        r.below(8) as u32
    } else {
        r.below(32) as u32
    };
    p.gd = r.range(10, 15) as u32;
    p.max_dec = r.below(4097) as u32;
    p.clamp_tgt_rate = r.chance(1, 2);
    p.clamp_after_time_inc = r.chance(1, 2);
    p.first_cnp_rate = if r.chance(1, 4) {
        0
    } else {
        r.below(p.line_rate as u64 + 1) as u32
    };
    p.dec_shift = r.below(16) as u32;
    p.g = match r.below(8) {
        0 => 0,
        1 => r.below(1 << 16) as u32,
        _ => r.range(1, 4096) as u32,
    };
    p.alpha_init = r.below(1 << 14) as u32;
    p.byte_counter = if r.chance(3, 4) { 1 << 20 } else { 0 };
    if wild {
        // A cut that would take more than Rc (the saturation): gd
        // below 10 and max_dec above 4096, which the other runs never
        // draw (drawn from 0..16 and 2048..8191, both wild runs missed
        // it a third of the time).
        p.gd = r.below(10) as u32;
        p.max_dec = r.range(4097, 8191) as u32;
        p.r_ai = r.below(1 << 19) as u32;
        p.r_hai = r.below(1 << 19) as u32;
        p.r_min = r.below(1 << 19) as u32;
        p.first_cnp_rate = r.below(1 << 19) as u32;
    }
    p
}

/// A random flow state and context: stamps near the times they are
/// compared with most of the time (so that every count of expiries
/// and every decrease-tick case comes up), anywhere sometimes; rates
/// ordered as a limited flow keeps them, or any 19-bit words.
fn random_visit(r: &mut Rng, p: &RpParams) -> Visit {
    let w = WMASK;
    let ap = p.alpha_period.max(1);
    let ti = p.t_inc.max(1);
    let tick = r.below(1 << WT) as u32;
    let apn = r.below(1 << WT) as u32;
    let near = |r: &mut Rng, now: u32, period: u32| -> u32 {
        if r.chance(1, 6) {
            r.below(1 << WT) as u32
        } else {
            let back = r.below(5 * period as u64 + 3) as u32;
            now.wrapping_sub(back) & w
        }
    };
    let a_stamp = if p.profile == Profile::Paper {
        near(r, tick, ap)
    } else {
        near(r, apn, 1 << p.dec_shift.min(5))
    };
    // nvidia/ns3: the increase stamp near the decrease tick after a_stamp
    // half of the time (expiries before and at it), near now otherwise.
    let inc_stamp = if p.profile != Profile::Paper && r.chance(1, 2) {
        let sh = p.dec_shift.min(WT as u32);
        let next = ((a_stamp >> sh) + 1).wrapping_shl(sh) & w;
        let b_tick = next.wrapping_mul(ap) & w;
        near(r, b_tick, ti)
    } else {
        near(r, tick, ti)
    };
    let count = |r: &mut Rng| match r.below(6) {
        0 => 31,
        1 => r.below(32) as u8,
        _ => r.below(8) as u8,
    };
    let lr = p.line_rate;
    let (rc, rt) = if r.chance(1, 5) {
        (r.below(1 << 19) as u32, r.below(1 << 19) as u32)
    } else {
        let lo = p.r_min.min(lr) as u64;
        let rt = match r.below(4) {
            0 => lr,
            _ => r.range(lo, lr as u64) as u32,
        };
        let rc = match r.below(4) {
            0 => rt,
            _ => r.range(lo, rt as u64) as u32,
        };
        (rc, rt)
    };
    Visit {
        flow: r.below(1 << FBT) as u32,
        ctl: Control {
            limited: r.chance(7, 8),
            inc_on: r.chance(4, 5),
            amark: r.chance(1, 2),
            dmark: r.chance(1, 2),
            t: count(r),
            bc: count(r),
            inc_stamp,
            a_stamp,
        },
        st: RateState {
            rc,
            rt,
            alpha: r.below(1 << 14) as u32,
        },
        tick,
        apn,
        cnp: r.chance(1, 3),
        bc_event: r.chance(1, 3),
    }
}

/// What the runs covered: visits compared, and how many took each path.
#[derive(Default, Debug)]
struct Cover {
    visits: u64,
    cycles: u64,
    first_cnp: u64,
    idle: u64,
    /// nvidia/ns3 decrease ticks; with increases before them.
    decrease: u64,
    increases_before_decrease: u64,
    /// Visits by increase events (0..=4).
    increases: [u64; 5],
    byte: u64,
    cut_cnp: u64,
    changed: u64,
    /// Changes that are cuts.
    cut: u64,
    /// Decays: with `k = 1`, `k > 1`, `k >= 64`; with the raise.
    decay_k1: u64,
    decay_kn: u64,
    decay_k64: u64,
    decay_mark: u64,
    /// Cuts limited by `max_dec`; by alpha; floored at `r_min`; with the
    /// reduction above `Rc` (saturated).
    cut_cap: u64,
    cut_alpha: u64,
    cut_floor: u64,
    cut_sat: u64,
    /// Increases: `Rt` capped at line rate; `Rc` capped; a hyper step
    /// `i r_hai` with `i > 1`.
    rt_cap: u64,
    rc_cap: u64,
    hyper: u64,
    /// `dec_shift >= W` (the period boundary at the stamps' wrap).
    shift_at_w: u64,
}

/// The golden's integers (`Exact`), with each case counted.
struct Probe<'a> {
    e: Exact<'a>,
    c: std::cell::RefCell<&'a mut Cover>,
}

impl Arith for Probe<'_> {
    type Rate = u32;
    type Alpha = u32;
    fn rate(&self, units: u32) -> u32 {
        units
    }
    fn alpha(&self, a: u32) -> u32 {
        a
    }
    fn decay(&self, a: u32, k: u32, mark: bool) -> u32 {
        let mut c = self.c.borrow_mut();
        c.decay_k1 += (k == 1) as u64;
        c.decay_kn += (k > 1) as u64;
        c.decay_k64 += (k >= 64) as u64;
        c.decay_mark += mark as u64;
        self.e.decay(a, k, mark)
    }
    fn cut(&self, rc: u32, a: u32, p: &RpParams) -> u32 {
        let by_alpha = (rc as u64 * a as u64) >> (p.gd + 4);
        let cap = (rc as u64 * p.max_dec as u64) >> 12;
        let red = by_alpha.min(cap);
        let mut c = self.c.borrow_mut();
        c.cut_cap += (cap < by_alpha) as u64;
        c.cut_alpha += (by_alpha < cap) as u64;
        c.cut_sat += (red > rc as u64) as u64;
        c.cut_floor += ((rc as u64).saturating_sub(red) < p.r_min as u64) as u64;
        self.e.cut(rc, a, p)
    }
    fn increase(&self, rt: u32, rc: u32, step: u64, lr: u32) -> (u32, u32) {
        let mut c = self.c.borrow_mut();
        let nrt = (rt as u64 + step).min(lr as u64);
        c.rt_cap += (rt as u64 + step > lr as u64) as u64;
        c.rc_cap += ((nrt + rc as u64) >> 1 > lr as u64) as u64;
        self.e.increase(rt, rc, step, lr)
    }
    fn min(&self, a: u32, b: u32) -> u32 {
        a.min(b)
    }
    fn max(&self, a: u32, b: u32) -> u32 {
        a.max(b)
    }
}

/// Counts what `v` exercises (the golden visit again, on a [`Probe`]).
fn count(cover: &mut Cover, p: &RpParams, pw: &Powers, v: &Visit) {
    let ctx = VisitCtx {
        p,
        stamp_bits: WT as u32,
        steps: STEPS,
        tick: v.tick,
        apn: v.apn,
        cnp: v.cnp,
        bc_event: v.bc_event,
    };
    let (mut ctl, mut st) = (v.ctl, v.st);
    let log = {
        let probe = Probe {
            e: Exact(pw),
            c: std::cell::RefCell::new(&mut *cover),
        };
        visit(&probe, &ctx, &mut ctl, &mut st)
    };
    cover.first_cnp += (!v.ctl.limited && v.cnp) as u64;
    cover.idle += (!v.ctl.limited && !v.cnp) as u64;
    cover.decrease += log.decrease as u64;
    cover.increases[log.increases as usize] += 1;
    cover.byte += log.byte_increase as u64;
    cover.cut_cnp += (log.cnp && p.profile == Profile::Paper && v.ctl.limited) as u64;
    cover.shift_at_w += (p.dec_shift >= WT as u32 && log.decrease) as u64;
    // Increases strictly before the decrease tick (the golden's n1).
    if log.decrease && v.ctl.inc_on {
        let w = WMASK;
        let sh = p.dec_shift.min(WT as u32);
        let to_b = ((v.ctl.a_stamp >> sh) + 1)
            .wrapping_shl(sh)
            .wrapping_sub(v.ctl.a_stamp)
            & w;
        let b_tick = (v.ctl.a_stamp.wrapping_add(to_b) & w).wrapping_mul(p.alpha_period.max(1)) & w;
        let eb = b_tick.wrapping_sub(v.ctl.inc_stamp) & w;
        cover.increases_before_decrease += (eb.saturating_sub(1) / p.t_inc.max(1) > 0) as u64;
    }
    // paper's hyper stage with i > 1: both counts above F after counting.
    if p.profile == Profile::Paper && v.ctl.limited && log.increases > 0 {
        let t = (v.ctl.t as u32 + log.increases).min(31);
        cover.hyper += (t.min(v.ctl.bc as u32) > p.f) as u64;
    }
}

/// Runs `visits` random visits, one a cycle, against the golden model;
/// returns the mismatches (printed as they come, the first ten).
fn run(
    bench: &mut Bench,
    r: &mut Rng,
    p: &RpParams,
    visits: u64,
    cover: &mut Cover,
    gap_per_mille: u64,
) -> u64 {
    let pw = Powers::new(p.g, WT as u32);
    let mut expected: VecDeque<(u64, Visit, Outcome)> = VecDeque::new();
    let mut mismatches = 0;
    let mut sent = 0;
    let mut n = 0u64;
    loop {
        let v = (sent < visits && !r.chance(gap_per_mille, 1000)).then(|| random_visit(r, p));
        if let Some(v) = &v {
            let o = golden(p, &pw, v);
            expected.push_back((n, *v, o));
            sent += 1;
            count(cover, p, &pw, v);
            cover.changed += o.changed as u64;
            cover.cut += o.cut as u64;
        }
        let (out, _) = bench.cycle(false, false, false, v.as_ref());
        cover.cycles += 1;
        if let Some(got) = out {
            let (at, vin, want) = expected
                .pop_front()
                .expect("an output with no visit in flight");
            assert_eq!(n - at, LATENCY as u64, "latency");
            cover.visits += 1;
            if got != want {
                mismatches += 1;
                if mismatches <= 10 {
                    eprintln!(
                        "MISMATCH cycle {n} (visit of cycle {at})\n  params {p:?}\n  input  {vin:?}\n  golden {want:?}\n  rtl    {got:?}"
                    );
                }
            }
        } else if let Some((at, _, _)) = expected.front() {
            assert!(n - at < LATENCY as u64, "visit of cycle {at} lost");
        }
        n += 1;
        if sent == visits && expected.is_empty() {
            return mismatches;
        }
    }
}

/// A reset (`rst`) or a fill (`fill`) in one cycle, the registers `p`
/// from the next (as the top's registers load at the write's edge),
/// then idle until `4 x 2^W` cycles after the pulse, when the next
/// visit comes: the golden's busy time.
fn reset_and_fill(bench: &mut Bench, rst: bool, p: &RpParams) {
    bench.cycle(rst, false, !rst, None);
    bench.regs(p);
    let mut busy_cycles = 0;
    let mut busy = true;
    for _ in 1..(4 << WT) {
        let (out, b) = bench.cycle(false, false, false, None);
        assert!(out.is_none());
        busy_cycles += b as u32;
        busy = b;
    }
    assert!(!busy, "the fill outlasts 4 x 2^W cycles");
    assert!(busy_cycles > 4 * ((1 << WT) - 2), "{busy_cycles}");
}

/// Several register sets, each for `per_run` visits one a cycle: the
/// first after a reset, then alternately registers with a new `g` (a
/// fill) and new registers with the same `g` and no pause at all (a
/// visit in the cycle after they change: the derived values' latency).
/// One run in four has wild registers (`random_params`), one in four
/// leaves a cycle without a visit now and then.
fn conformance(profile: Profile, seed: u64, runs: u32, per_run: u64) -> Cover {
    let mut r = Rng(seed);
    let mut bench = Bench::new();
    let mut cover = Cover::default();
    let mut mismatches = 0;
    let mut p = random_params(&mut r, profile, false);
    reset_and_fill(&mut bench, true, &p);
    for k in 0..runs {
        if k > 0 {
            let g = p.g;
            p = random_params(&mut r, profile, k % 4 == 2);
            if k % 2 == 1 {
                p.g = g;
                bench.regs(&p);
            } else {
                reset_and_fill(&mut bench, false, &p);
            }
        }
        let gaps = if k % 4 == 3 { 100 } else { 0 };
        mismatches += run(&mut bench, &mut r, &p, per_run, &mut cover, gaps);
    }
    eprintln!(
        "{profile:?}: {} visits compared in {} cycles, {mismatches} mismatches\n  {cover:?}",
        cover.visits, cover.cycles
    );
    assert_eq!(
        mismatches, 0,
        "{profile:?}: RTL differs from the golden visit"
    );
    cover
}

/// Every path of the visit came up.
fn assert_covered(profile: Profile, c: &Cover) {
    let mut need = vec![
        ("first_cnp", c.first_cnp),
        ("idle", c.idle),
        ("byte", c.byte),
        ("changed", c.changed),
        ("cut", c.cut),
        ("decay k = 1", c.decay_k1),
        ("decay k > 1", c.decay_kn),
        ("decay with raise", c.decay_mark),
        ("cut by max_dec", c.cut_cap),
        ("cut by alpha", c.cut_alpha),
        ("cut floored at r_min", c.cut_floor),
        ("cut saturated", c.cut_sat),
        ("Rt capped", c.rt_cap),
        ("Rc capped", c.rc_cap),
    ];
    for (i, &n) in c.increases.iter().enumerate() {
        need.push(("increases (index = count)", n + (i == 5) as u64));
    }
    if profile == Profile::Paper {
        need.push(("paper's CNP cut", c.cut_cnp));
        need.push(("paper's hyper step", c.hyper));
    } else {
        need.push(("decrease tick", c.decrease));
        need.push(("increases before the decrease", c.increases_before_decrease));
        need.push(("decay k >= 64", c.decay_k64));
        need.push(("dec_shift >= W", c.shift_at_w));
    }
    for (name, n) in need {
        assert!(n > 0, "{profile:?}: path never taken: {name}");
    }
}

/// 64,000 visits, one a cycle, against `ccrtl_golden::rp::visit`,
/// every output field compared 57 cycles later; every path of the
/// visit taken (the fast tier; the deep tier runs 800,000 a profile).
#[test]
fn rp_visit_matches_the_golden_visit_paper() {
    let c = conformance(Profile::Paper, 0x5eed_0001, 8, 8_000);
    assert_eq!(c.visits, 64_000);
    assert_covered(Profile::Paper, &c);
}

#[test]
fn rp_visit_matches_the_golden_visit_nvidia() {
    let c = conformance(Profile::Nvidia, 0x5eed_0002, 8, 8_000);
    assert_eq!(c.visits, 64_000);
    assert_covered(Profile::Nvidia, &c);
}

#[test]
fn rp_visit_matches_the_golden_visit_ns3() {
    let c = conformance(Profile::Ns3, 0x5eed_0003, 8, 8_000);
    assert_eq!(c.visits, 64_000);
    assert_covered(Profile::Ns3, &c);
}

/// Deep tier: 800,000 visits in each profile, other seeds.
#[test]
#[ignore = "deep tier: make test-deep"]
fn rp_visit_matches_the_golden_visit_long() {
    for (k, profile) in [Profile::Paper, Profile::Nvidia, Profile::Ns3]
        .into_iter()
        .enumerate()
    {
        let c = conformance(profile, 0x5eed_1000 + k as u64, 8, 100_000);
        assert_eq!(c.visits, 800_000);
        assert_covered(profile, &c);
    }
}

/// `kill` (and `rst`) drop every visit in flight, and the visits after
/// it come out 57 cycles after they went in, right.
#[test]
fn rp_visit_kill_drops_the_visits_in_flight() {
    let mut r = Rng(0x5eed_0004);
    let mut bench = Bench::new();
    let p = random_params(&mut r, Profile::Nvidia, false);
    reset_and_fill(&mut bench, true, &p);
    let pw = Powers::new(p.g, WT as u32);
    let mut want: VecDeque<(u64, Outcome)> = VecDeque::new();
    let (mut got, mut n) = (0, 0u64);
    for _ in 0..400 {
        let kill = n == 100 || n == 130 || n == 250;
        let v = random_visit(&mut r, &p);
        if !kill {
            want.push_back((n, golden(&p, &pw, &v)));
        }
        if kill {
            // Only the visit leaving in this cycle survives; the ones in
            // flight and the one on the ports are dropped.
            want.retain(|&(at, _)| at + LATENCY as u64 <= n);
        }
        let (out, _) = bench.cycle(false, kill, false, Some(&v));
        if let Some(o) = out {
            let (at, w) = want.pop_front().expect("a killed visit came out");
            assert_eq!(n - at, LATENCY as u64);
            assert_eq!(o, w, "cycle {n}");
            got += 1;
        }
        n += 1;
    }
    // Out by cycle 399: the visits of cycles 0..=342 but 44..=130 and
    // 194..=250 (a kill in cycle n drops those of n - 56 ..= n).
    assert_eq!(got, 343 - (130 - 44 + 1) - (250 - 194 + 1));
}

/// The Verilog of `RpVisit<14, 10>` (the default shape) passes
/// `verilator --lint-only -Wall` with the two waivers of docs/lint.md
/// (skipped if Verilator is not installed). Written to the temporary
/// directory as `ccrtl_rp_visit.v`.
#[test]
fn rp_visit_verilog_is_lint_clean() {
    let mut b = Box::new(RpVisit::<14, 10>::new());
    b.connect_all();
    let raw = generate_verilog(&*b);
    let v = ccrtl_hdl::emit::finish(
        "rp_visit",
        "RP's visit pipeline (the golden rp::visit)",
        &format!("II = 1; results {LATENCY} cycles after the visit"),
        &[
            ("flow_bits", "14".into()),
            ("stamp_bits", "10".into()),
            ("steps", STEPS.to_string()),
        ],
        &raw,
    );
    let path = std::env::temp_dir().join("ccrtl_rp_visit.v");
    std::fs::write(&path, &v).unwrap();
    let out = match std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "ccrtl_rp_visit"])
        .arg(&path)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("verilator not run ({e}); {} written", path.display());
            return;
        }
    };
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && msg.trim().is_empty(), "{msg}");
}
