//! RP — the DCQCN reaction point: per-flow rate control at the sending NIC.
//!
//! The cycle-exact golden model is still to come; its contract and
//! architecture are `docs/rp.md`. For now this module holds only the float
//! reference of the published rules, per profile (`paper`, `nvidia`, `ns3`),
//! against which that model will be measured.

/// Float reference: the reaction point's rules of `docs/rp.md` §"Three
/// profiles" in continuous time (f64, time in µs, rates in Mb/s, alpha in
/// `[0, 1]`), nothing rounded.
///
/// Event-driven: a `Flow` is told of CNPs (`Flow::cnp`) and of bytes sent
/// (`Flow::bytes_sent`) at non-decreasing times, and `Flow::advance` fires
/// every timer due by then, in time order. Timers that expire at the same
/// instant fire the alpha update first, then the decrease (monitor) tick,
/// then the increase timer (the order chosen in the research behind
/// docs/rp.md, its question 14; HPCC's `rdma-hw.cc` delays its decrease
/// check by 1 ns for the same reason). A CNP or a byte count at time `t` is
/// applied after every timer due at `t`.
pub mod reference {
    /// Which rule set a flow follows (`docs/rp.md` §"Three profiles").
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Profile {
        /// Seed 004 §3.1 and Figure 7 (`../shared/ALGORITHMS.md`).
        Paper,
        /// NVIDIA's ConnectX parameters, read as Isekai models them.
        Nvidia,
        /// HPCC's ns-3 "Mellanox version" (`rdma-hw.cc`, run.py `dcqcn`).
        Ns3,
    }

    /// Every parameter of `docs/rp.md`'s tables in one profile-neutral form
    /// (times µs, rates Mb/s); fields may be set after a constructor.
    ///
    /// | field | meaning | `paper` | `nvidia` | `ns3` (run.py `dcqcn`) |
    /// |---|---|---|---|---|
    /// | `line_rate` | `LR`: start rate, cap of `Rc`, `Rt` | | | |
    /// | `r_min` | floor of `Rc` | `R_min` 100 | `rpg_min_rate` 1 | `m_minRate` 1,000 |
    /// | `g` | alpha gain | 1/256 | `(1024 - dce_tcp_g)/1024`, 5/1024 | 1/256 |
    /// | `alpha_period` | alpha timer | `K` 55, restarted by CNPs | `dce_tcp_rtt` 1, free-running | 1, free-running |
    /// | `alpha_init` | alpha at the first CNP | 1 | `initial_alpha_value/1024`, 1023/1024 | 1 |
    /// | `t_inc` | increase timer `Ti` | 55 | `rpg_time_reset` 300 | 300 |
    /// | `byte_counter` | `B` in bytes, 0 = none | 10 MB (10^7) | `rpg_byte_reset` 32767 x 64 B | 0 |
    /// | `f` | stage threshold | `F` 5 | `rpg_threshold` 1 | 1 |
    /// | `r_ai` | additive step of `Rt` | 40 | `rpg_ai_rate` 5 | 5 per 25 Gb/s of `LR` |
    /// | `r_hai` | hyper step of `Rt` | 200 (times `i`) | `rpg_hai_rate` 50 | 50 per 25 Gb/s |
    /// | `dec_period` | decrease (monitor) tick | unused | `rate_reduce_monitor_period` 4 | 4 |
    /// | `gd` | cut `Rc alpha 2^(10 - gd)`, 11 = `Rc alpha/2` | 11 | `rpg_gd` 11 (on the 10-bit alpha) | 11 |
    /// | `min_dec_fac` | % of `Rc` a cut leaves at least | 0 | `rpg_min_dec_fac` 50 | 0 |
    /// | `first_cnp_rate` | `Rc = Rt =` it at the first CNP, 0 keeps `Rc` | unused | `rate_to_set_on_first_cnp` 0 | 0 (HPCC's factor 1.0) |
    /// | `clamp_tgt_rate` | `Rt = Rc` at every cut | 1 (equation (1)) | `clamp_tgt_rate` 0 | 0 |
    /// | `clamp_after_time_inc` | also `Rt = Rc` at a cut with `T > 0` | 1 | `clamp_tgt_rate_after_time_inc` 1 | 1 (HPCC: `m_rpTimeStage != 0`) |
    ///
    /// A cut with `BC > 0` always sets `Rt = Rc` (docs/rp.md §`nvidia`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct Params {
        pub profile: Profile,
        pub line_rate: f64,
        pub r_min: f64,
        pub g: f64,
        pub alpha_period: f64,
        pub alpha_init: f64,
        pub t_inc: f64,
        pub byte_counter: u64,
        pub f: u32,
        pub r_ai: f64,
        pub r_hai: f64,
        pub dec_period: f64,
        pub gd: u32,
        pub min_dec_fac: f64,
        pub first_cnp_rate: f64,
        pub clamp_tgt_rate: bool,
        pub clamp_after_time_inc: bool,
    }

    /// NVIDIA's `rpg_byte_reset` unit in bytes (docs/rp.md, Isekai).
    pub const NVIDIA_BYTE_UNIT: u64 = 64;

    impl Params {
        /// Seed 004 §3.1 with the values of docs/rp.md §`paper`.
        pub fn paper(line_rate_mbps: f64) -> Params {
            Params {
                profile: Profile::Paper,
                r_min: 100.0,
                g: 1.0 / 256.0,
                alpha_period: 55.0,
                alpha_init: 1.0,
                t_inc: 55.0,
                byte_counter: 10_000_000,
                f: 5,
                r_ai: 40.0,
                r_hai: 200.0,
                dec_period: 0.0,
                min_dec_fac: 0.0,
                clamp_tgt_rate: true,
                ..Params::nvidia(line_rate_mbps)
            }
        }

        /// NVIDIA's defaults (docs/rp.md §`nvidia`).
        pub fn nvidia(line_rate_mbps: f64) -> Params {
            let dce_tcp_g = 1019.0;
            Params {
                profile: Profile::Nvidia,
                line_rate: line_rate_mbps,
                r_min: 1.0,
                g: (1024.0 - dce_tcp_g) / 1024.0,
                alpha_period: 1.0,
                alpha_init: 1023.0 / 1024.0,
                t_inc: 300.0,
                byte_counter: 32767 * NVIDIA_BYTE_UNIT,
                f: 1,
                r_ai: 5.0,
                r_hai: 50.0,
                dec_period: 4.0,
                gd: 11,
                min_dec_fac: 50.0,
                first_cnp_rate: 0.0,
                clamp_tgt_rate: false,
                clamp_after_time_inc: true,
            }
        }

        /// HPCC's run.py `dcqcn` set (docs/rp.md §`ns3`): NVIDIA's periods,
        /// threshold and clamps, with these differences.
        pub fn ns3(line_rate_mbps: f64) -> Params {
            Params {
                profile: Profile::Ns3,
                r_min: 1000.0,
                g: 1.0 / 256.0,
                alpha_init: 1.0,
                byte_counter: 0,
                r_ai: 5.0 * line_rate_mbps / 25_000.0,
                r_hai: 50.0 * line_rate_mbps / 25_000.0,
                min_dec_fac: 0.0,
                ..Params::nvidia(line_rate_mbps)
            }
        }
    }

    /// A periodic timer: expiries at `origin + k period`, `k = 1, 2, ...`
    /// (multiples, not a running sum, so coinciding periods tie exactly).
    #[derive(Debug, Clone, Copy, Default)]
    struct Timer {
        on: bool,
        origin: f64,
        period: f64,
        k: u64,
    }

    impl Timer {
        fn start(&mut self, t: f64, period: f64) {
            *self = Timer {
                on: true,
                origin: t,
                period,
                k: 1,
            };
        }
        fn next(&self) -> Option<f64> {
            self.on.then_some(self.origin + self.k as f64 * self.period)
        }
    }

    /// One flow's reaction point.
    #[derive(Debug, Clone)]
    pub struct Flow {
        p: Params,
        now: f64,
        rc: f64,
        rt: f64,
        alpha: f64,
        /// `T`, `BC`: increase events of the timer and of the byte counter
        /// since the last cut.
        t_count: u32,
        bc_count: u32,
        /// Bytes sent since the last byte-counter event or restart.
        byte_acc: u64,
        /// A first CNP has come (nvidia: the rate limiter is allocated).
        limited: bool,
        /// nvidia/ns3: a CNP in the current alpha period, and since the
        /// last decrease tick.
        cnp_alpha: bool,
        cnp_dec: bool,
        alpha_timer: Timer,
        dec_timer: Timer,
        inc_timer: Timer,
    }

    impl Flow {
        /// A new flow: at line rate, alpha at `alpha_init`, no timer running.
        pub fn new(p: &Params) -> Flow {
            assert!(p.line_rate > 0.0 && p.r_min > 0.0 && p.r_min <= p.line_rate);
            assert!(p.alpha_period > 0.0 && p.t_inc > 0.0);
            assert!(p.profile == Profile::Paper || p.dec_period > 0.0);
            assert!((10..=11).contains(&p.gd) && (0.0..=100.0).contains(&p.min_dec_fac));
            Flow {
                p: p.clone(),
                now: f64::NEG_INFINITY,
                rc: p.line_rate,
                rt: p.line_rate,
                alpha: p.alpha_init,
                t_count: 0,
                bc_count: 0,
                byte_acc: 0,
                limited: false,
                cnp_alpha: false,
                cnp_dec: false,
                alpha_timer: Timer::default(),
                dec_timer: Timer::default(),
                inc_timer: Timer::default(),
            }
        }

        /// Current rate `Rc`, Mb/s.
        pub fn rc(&self) -> f64 {
            self.rc
        }
        /// Target rate `Rt`, Mb/s.
        pub fn rt(&self) -> f64 {
            self.rt
        }
        /// Congestion estimate alpha in `[0, 1]`.
        pub fn alpha(&self) -> f64 {
            self.alpha
        }

        /// Fires every timer expiry at or before `t_us`, in time order
        /// (ties: alpha, decrease, increase).
        pub fn advance(&mut self, t_us: f64) {
            assert!(t_us >= self.now, "time went back: {t_us} < {}", self.now);
            self.now = t_us;
            loop {
                let mut due: Option<(f64, usize)> = None;
                let timers = [self.alpha_timer, self.dec_timer, self.inc_timer];
                for (i, tm) in timers.iter().enumerate() {
                    if let Some(x) = tm.next() {
                        if x <= t_us && due.is_none_or(|(d, _)| x < d) {
                            due = Some((x, i));
                        }
                    }
                }
                match due {
                    None => return,
                    Some((_, 0)) => {
                        self.alpha_timer.k += 1;
                        self.alpha_expiry();
                    }
                    Some((x, 1)) => {
                        self.dec_timer.k += 1;
                        self.decrease_tick(x);
                    }
                    Some(_) => {
                        self.inc_timer.k += 1;
                        self.increase_event(false);
                    }
                }
            }
        }

        /// A CNP reaches the flow at `t_us`.
        ///
        /// `Paper` (seed 004 §3.1 equation (1) and Figure 7): `Rt = Rc`, the
        /// cut with the alpha from before the CNP, `alpha = (1 - g) alpha +
        /// g`, and `T`, `BC`, the byte counter, the increase timer and the
        /// alpha timer restart. `Nvidia`/`Ns3`: the first CNP sets alpha to
        /// `alpha_init`, `Rc = Rt =` the first-CNP rate, starts the alpha and
        /// decrease periods and marks the flow for a cut at the next tick
        /// without raising alpha (HPCC `cnp_received_mlx`; docs/rp.md);
        /// later CNPs mark both the alpha period and the next decrease tick.
        pub fn cnp(&mut self, t_us: f64) {
            self.advance(t_us);
            let p = self.p.clone();
            if p.profile == Profile::Paper {
                let old = self.alpha;
                self.cut(old);
                self.alpha = (1.0 - p.g) * old + p.g;
                self.alpha_timer.start(t_us, p.alpha_period);
                self.inc_timer.start(t_us, p.t_inc);
                self.limited = true;
            } else if !self.limited {
                self.limited = true;
                self.alpha = p.alpha_init;
                if p.first_cnp_rate > 0.0 {
                    self.rc = p.first_cnp_rate.clamp(p.r_min, p.line_rate);
                }
                self.rt = self.rc;
                self.cnp_alpha = false;
                self.cnp_dec = true;
                self.t_count = 0;
                self.bc_count = 0;
                self.byte_acc = 0;
                self.alpha_timer.start(t_us, p.alpha_period);
                self.dec_timer.start(t_us, p.dec_period);
            } else {
                self.cnp_alpha = true;
                self.cnp_dec = true;
            }
        }

        /// The flow sent `bytes` at `t_us`. The byte counter runs only while
        /// the increase timer does (paper: from the first CNP; nvidia: from
        /// the first cut; ns3 has none) and gives one increase event per `B`
        /// bytes, the remainder kept (Isekai; the research's question 16).
        pub fn bytes_sent(&mut self, t_us: f64, bytes: u64) {
            self.advance(t_us);
            let b = self.p.byte_counter;
            if b == 0 || !self.inc_timer.on {
                return;
            }
            self.byte_acc += bytes;
            while self.byte_acc >= b {
                self.byte_acc -= b;
                self.increase_event(true);
            }
        }

        /// The multiplicative decrease: `Rt = Rc` if clamping (paper always
        /// by default; nvidia `clamp_tgt_rate || BC > 0 ||
        /// (clamp_tgt_rate_after_time_inc && T > 0)`, docs/rp.md; ns3 the
        /// same with `BC = 0`), then `Rc -= min(Rc alpha 2^(10-gd), Rc (100 -
        /// min_dec_fac)/100)` floored at `R_min`; `T`, `BC` and the byte
        /// counter restart.
        fn cut(&mut self, alpha: f64) {
            let p = &self.p;
            if p.clamp_tgt_rate || self.bc_count > 0 || (p.clamp_after_time_inc && self.t_count > 0)
            {
                self.rt = self.rc;
            }
            let red = (self.rc * alpha * 2f64.powi(10 - p.gd as i32))
                .min(self.rc * (100.0 - p.min_dec_fac) / 100.0);
            self.rc = (self.rc - red).max(p.r_min);
            self.t_count = 0;
            self.bc_count = 0;
            self.byte_acc = 0;
        }

        /// Paper: no CNP for `K` gives `alpha = (1 - g) alpha` (equation
        /// (2)). nvidia/ns3: once per period, `(1 - g) alpha + g` with a CNP
        /// in the period, `(1 - g) alpha` without (NVIDIA community page
        /// DOC-2790, Isekai; HPCC `UpdateAlphaMlx`).
        fn alpha_expiry(&mut self) {
            let g = self.p.g;
            let raise = if self.cnp_alpha { g } else { 0.0 };
            self.alpha = (1.0 - g) * self.alpha + raise;
            self.cnp_alpha = false;
        }

        /// nvidia/ns3 decrease tick: a cut with the current alpha if a CNP
        /// came since the last tick (at most one per period); the increase
        /// timer restarts at the cut (HPCC `CheckRateDecreaseMlx`).
        fn decrease_tick(&mut self, x: f64) {
            if self.cnp_dec {
                self.cnp_dec = false;
                self.cut(self.alpha);
                self.inc_timer.start(x, self.p.t_inc);
            }
        }

        /// One increase event of the timer (`byte == false`) or the byte
        /// counter. Paper (Figure 7): the count first, then the stage.
        /// nvidia (Isekai) and ns3 (HPCC `RateIncEventTimerMlx`): the stage
        /// from the counts before the event, then the count.
        fn increase_event(&mut self, byte: bool) {
            let paper = self.p.profile == Profile::Paper;
            let count = |f: &mut Flow| *[&mut f.t_count, &mut f.bc_count][byte as usize] += 1;
            if paper {
                count(self);
            }
            // `Rt` raised by the stage's step and capped at line rate, then
            // `Rc = (Rt + Rc) / 2` with the new `Rt` (seed 004 Figure 7;
            // HPCC `rdma-hw.cc` AI/HAI).
            self.rt = (self.rt + self.rt_step()).min(self.p.line_rate);
            self.rc = ((self.rt + self.rc) / 2.0).min(self.p.line_rate);
            if !paper {
                count(self);
            }
        }

        /// The stage's step of `Rt` from the current counts (docs/rp.md):
        /// fast recovery 0, additive `R_AI`, hyper `i R_HAI`:
        /// - paper: fast recovery if `max(T, BC) < F`, additive if
        ///   `min(T, BC) < F`, else hyper with `i = min(T, BC) - F + 1`;
        /// - nvidia: hyper (`i = 1`) if `min(T, BC) > F`, additive if
        ///   `max(T, BC) >= F`, else fast recovery;
        /// - ns3: fast recovery if `T < F`, additive if `T == F`, else hyper
        ///   (`i = 1`).
        fn rt_step(&self) -> f64 {
            let (t, bc, f, p) = (self.t_count, self.bc_count, self.p.f, &self.p);
            let (lo, hi) = (t.min(bc), t.max(bc));
            match p.profile {
                Profile::Paper if hi < f => 0.0,
                Profile::Paper if lo < f => p.r_ai,
                Profile::Paper => (lo - f + 1) as f64 * p.r_hai,
                Profile::Nvidia if lo > f => p.r_hai,
                Profile::Nvidia if hi >= f => p.r_ai,
                Profile::Nvidia => 0.0,
                Profile::Ns3 if t < f => 0.0,
                Profile::Ns3 if t == f => p.r_ai,
                Profile::Ns3 => p.r_hai,
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::xorshift;

        fn close(got: f64, want: f64, what: &str) {
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{what}: got {got}, want {want}"
            );
        }

        /// A flow of `p` with CNPs at `cnps`, advanced to `until`.
        fn run(p: &Params, cnps: &[f64], until: f64) -> Flow {
            let mut f = Flow::new(p);
            cnps.iter().for_each(|&t| f.cnp(t));
            f.advance(until);
            f
        }

        /// nvidia defaults: alpha at the first CNP's cut at 4 (1023/1024,
        /// not raised by it, decayed by 1019/1024 at 1, 2, 3, 4).
        fn nv_a4() -> f64 {
            1023.0 / 1024.0 * (1019.0f64 / 1024.0).powi(4)
        }

        fn check(f: &Flow, rc: f64, rt: f64, alpha: f64, what: &str) {
            close(f.rc(), rc, &format!("{what}: Rc"));
            close(f.rt(), rt, &format!("{what}: Rt"));
            close(f.alpha(), alpha, &format!("{what}: alpha"));
        }

        /// Paper, LR 40,000, timer only. CNP at 0: Rt = 40,000, Rc =
        /// 40,000 (1 - 1/2) = 20,000, alpha = (1 - g) 1 + g = 1. Timers (alpha
        /// K = 55, increase Ti = 55) restart at 0; at every 55 µs the alpha
        /// decays first (alpha = (255/256)^k), then T += 1 and, with BC = 0,
        /// max(T, 0) = T < 5 is fast recovery: Rc = (40,000 + Rc)/2 gives
        /// 30,000, 35,000, 37,500, 38,750; at 275 T = 5 >= F > min = 0:
        /// additive, Rt = min(40,000, 40,040) = 40,000, Rc = 39,375.
        /// A second CNP at 300 cuts with the old alpha (255/256)^5:
        /// Rt = 39,375, Rc = 39,375 (1 - (255/256)^5 / 2), then alpha =
        /// (255/256)^6 + 1/256; both timers restart at 300, so the next
        /// expiry is at 355 (not 330): T = 1, fast recovery towards 39,375.
        #[test]
        fn paper_timer_only_trace() {
            let f = run(&Params::paper(40_000.0), &[], 1000.0); // nothing runs
            check(&f, 40_000.0, 40_000.0, 1.0, "before");
            let mut f = Flow::new(&Params::paper(40_000.0));
            f.cnp(0.0);
            check(&f, 20_000.0, 40_000.0, 1.0, "after the CNP");
            f.advance(54.9);
            check(&f, 20_000.0, 40_000.0, 1.0, "54.9 us");
            let q: f64 = 255.0 / 256.0;
            let rcs = [30_000.0, 35_000.0, 37_500.0, 38_750.0, 39_375.0];
            for (k, &rc) in rcs.iter().enumerate() {
                f.advance(55.0 * (k + 1) as f64);
                check(&f, rc, 40_000.0, q.powi(k as i32 + 1), "increase");
            }
            assert_eq!((f.t_count, f.bc_count), (5, 0));
            f.cnp(300.0);
            let rc = 39_375.0 * (1.0 - q.powi(5) / 2.0);
            let alpha = q.powi(6) + 1.0 / 256.0;
            check(&f, rc, 39_375.0, alpha, "second CNP");
            f.advance(354.9);
            check(&f, rc, 39_375.0, alpha, "354.9 us");
            f.advance(355.0);
            check(&f, (rc + 39_375.0) / 2.0, 39_375.0, alpha * q, "355 us");
        }

        /// Paper with F = 2, B = 1,000 bytes, LR 40,000. CNP at 0: Rt 40,000,
        /// Rc 20,000, alpha 1; CNP at 1 (alpha still 1): Rt 20,000, Rc
        /// 10,000, timers now due at 56, 111, 166, 221. Each event counts
        /// first, then (Figure 7) picks the stage; `i = min - F + 1`:
        /// - bytes at 2: BC 1, max 1 < 2, FR: Rc 15,000
        /// - bytes at 3: BC 2, min 0 < 2 <= max: AI, Rt 20,040, Rc 17,520
        /// - timer 56: T 1, min 1 < 2: AI, Rt 20,080, Rc 18,800
        /// - timer 111: T 2, min 2: HAI i 1, Rt 20,280, Rc 19,540
        /// - bytes 112, 113: BC 3, 4, i 1: Rt 20,480 Rc 20,010; Rt 20,680 Rc 20,345
        /// - timer 166: T 3, min 3: i 2, Rt 21,080, Rc 20,712.5
        /// - 2,500 bytes at 167: two events (BC 5, 6; i 2), 500 left:
        ///   Rt 21,480 Rc 21,096.25; Rt 21,880 Rc 21,488.125
        /// - 499 bytes at 167.5 (999, no event), 1 at 168: BC 7, Rt 22,280
        ///   Rc 21,884.0625
        /// - timer 221: T 4, min 4: i 3, Rt 22,880, Rc 22,382.03125
        #[test]
        fn paper_stages_and_hyper_increase_multiplier() {
            let mut p = Params::paper(40_000.0);
            p.f = 2;
            p.byte_counter = 1000;
            let mut f = Flow::new(&p);
            f.bytes_sent(0.0, 5000); // no byte counter before the first CNP
            check(&f, 40_000.0, 40_000.0, 1.0, "before");
            f.cnp(0.0);
            f.cnp(1.0);
            check(&f, 10_000.0, 20_000.0, 1.0, "two CNPs");
            let steps: [(f64, u64, f64, f64); 11] = [
                (2.0, 1000, 15_000.0, 20_000.0),
                (3.0, 1000, 17_520.0, 20_040.0),
                (56.0, 0, 18_800.0, 20_080.0),
                (111.0, 0, 19_540.0, 20_280.0),
                (112.0, 1000, 20_010.0, 20_480.0),
                (113.0, 1000, 20_345.0, 20_680.0),
                (166.0, 0, 20_712.5, 21_080.0),
                (167.0, 2500, 21_488.125, 21_880.0),
                (167.5, 499, 21_488.125, 21_880.0),
                (168.0, 1, 21_884.062_5, 22_280.0),
                (221.0, 0, 22_382.031_25, 22_880.0),
            ];
            for (t, bytes, rc, rt) in steps {
                f.bytes_sent(t, bytes);
                close(f.rc(), rc, &format!("Rc at {t}"));
                close(f.rt(), rt, &format!("Rt at {t}"));
            }
            assert_eq!((f.t_count, f.bc_count, f.byte_acc), (4, 7, 0));
        }

        /// ns3 (run.py `dcqcn`), LR 40,000: R_AI 8, R_HAI 80 (5 and 50 per
        /// 25 Gb/s). First CNP at 0: Rc = Rt = 40,000, alpha 1, not raised.
        /// Alpha decays at 1, 2, 3, 4; the poll at 4 (after the alpha update)
        /// cuts with a4 = (255/256)^4: Rc1 = 40,000 (1 - a4/2), Rt stays
        /// 40,000 (T = 0). Increase timer from 4: 304 T = 0 < F = 1: FR,
        /// Rc2 = (Rc1 + 40,000)/2. A CNP at 400.5 raises alpha at 401:
        /// a = (255/256)^401 + 1/256, then decays at 402..404; the poll at 404
        /// cuts with it, and T = 1 > 0 clamps Rt = Rc2: Rc3 = Rc2 (1 - a/2).
        /// From 404: 704 FR (T 0) Rc4 = (Rc3 + Rc2)/2; 1004 T == 1: AI once,
        /// Rt = Rc2 + 8; then 1304, 1604 HAI, + 80 each (constant).
        #[test]
        fn ns3_run_py_trace() {
            let p = Params::ns3(40_000.0);
            assert_eq!((p.r_ai, p.r_hai, p.r_min), (8.0, 80.0, 1000.0));
            let q: f64 = 255.0 / 256.0;
            let mut f = Flow::new(&p);
            f.cnp(0.0);
            check(&f, 40_000.0, 40_000.0, 1.0, "first CNP");
            f.advance(3.9);
            check(&f, 40_000.0, 40_000.0, q.powi(3), "3.9 us");
            f.advance(4.0);
            let a4 = q.powi(4);
            let rc1 = 40_000.0 * (1.0 - a4 / 2.0);
            check(&f, rc1, 40_000.0, a4, "cut at 4");
            f.advance(303.9);
            close(f.rc(), rc1, "no increase before 304");
            f.advance(304.0);
            let rc2 = (rc1 + 40_000.0) / 2.0;
            check(&f, rc2, 40_000.0, q.powi(304), "FR at 304");
            f.cnp(400.5);
            f.advance(403.9);
            close(f.alpha(), (q.powi(401) + 1.0 / 256.0) * q.powi(2), "403.9");
            close(f.rc(), rc2, "no cut before 404");
            f.advance(404.0);
            let a = (q.powi(401) + 1.0 / 256.0) * q.powi(3);
            let rc3 = rc2 * (1.0 - a / 2.0);
            check(&f, rc3, rc2, a, "cut at 404");
            f.advance(704.0);
            let rc4 = (rc3 + rc2) / 2.0;
            check(&f, rc4, rc2, a * q.powi(300), "FR at 704");
            let (mut rc, mut rt) = (rc4, rc2);
            for (t, step) in [(1004.0, 8.0), (1304.0, 80.0), (1604.0, 80.0)] {
                f.advance(t);
                rt += step;
                rc = (rc + rt) / 2.0;
                close(f.rt(), rt, &format!("Rt at {t}"));
                close(f.rc(), rc, &format!("Rc at {t}"));
            }
        }

        /// nvidia defaults, LR 100,000: first CNP at 0 sets alpha 1023/1024
        /// without raising it; alpha decays by 1019/1024 at 1..4; the monitor
        /// tick at 4 cuts Rc (1 - a4/2) (rpg_gd 11 on the 10-bit alpha), Rt
        /// unclamped (T = BC = 0). With rpg_min_dec_fac 80 the factor
        /// 1 - a4/2 ~ 0.51 is bounded: Rc = 80,000. With
        /// rate_to_set_on_first_cnp 30,000: Rc = Rt = 30,000 at the CNP.
        #[test]
        fn nvidia_first_cnp_cut_and_bounds() {
            let d: f64 = 1019.0 / 1024.0;
            let (a0, a4) = (1023.0 / 1024.0, nv_a4());
            let p = Params::nvidia(100_000.0);
            assert_eq!(p.byte_counter, 2_097_088);
            let mut f = Flow::new(&p);
            f.cnp(0.0);
            check(&f, 100_000.0, 100_000.0, a0, "first CNP");
            f.advance(3.99);
            close(f.rc(), 100_000.0, "no cut before the tick");
            f.advance(4.0);
            let rc4 = 100_000.0 * (1.0 - a4 / 2.0);
            check(&f, rc4, 100_000.0, a4, "cut at 4");
            f.advance(7.99);
            close(f.rc(), rc4, "no CNP, no cut at 8");
            // A CNP at 5.5 raises alpha at 6 and is cut at 8.
            let f = run(&p, &[0.0, 5.5], 8.0);
            let a8 = (a0 * d.powi(5) * d + 5.0 / 1024.0) * d.powi(2);
            let rc8 = rc4 * (1.0 - a8 / 2.0);
            check(&f, rc8, 100_000.0, a8, "second cut, T = BC = 0: Rt kept");

            let mut q = p.clone();
            q.min_dec_fac = 80.0;
            close(run(&q, &[0.0], 4.0).rc(), 80_000.0, "min_dec_fac 80");
            q.gd = 10; // 1 - a4 ~ 0.02, bounded all the same
            close(run(&q, &[0.0], 4.0).rc(), 80_000.0, "min_dec_fac 80, gd 10");

            let mut q = p.clone();
            q.first_cnp_rate = 30_000.0;
            let mut f = run(&q, &[0.0], 0.0);
            check(&f, 30_000.0, 30_000.0, a0, "rate_to_set_on_first_cnp");
            f.advance(4.0);
            check(&f, 30_000.0 * (1.0 - a4 / 2.0), 30_000.0, a4, "its cut");

            // dce_tcp_g 1000 (g = 24/1024): a CNP at 0.5 in the period (0, 1]
            // raises alpha at 1 to (1000/1024)(1023/1024) + 24/1024; none in
            // (1, 2] decays it at 2 by 1000/1024.
            let mut q = p.clone();
            q.g = (1024.0 - 1000.0) / 1024.0;
            let mut f = run(&q, &[0.0, 0.5], 1.0);
            let a1 = 1000.0 / 1024.0 * 1023.0 / 1024.0 + 24.0 / 1024.0;
            close(f.alpha(), a1, "dce_tcp_g, a CNP in the period");
            f.advance(2.0);
            close(f.alpha(), a1 * 1000.0 / 1024.0, "dce_tcp_g, none");
        }

        /// Rt at a cut: Rt = Rc iff clamp_tgt_rate, or BC > 0, or
        /// (clamp_tgt_rate_after_time_inc and T > 0). Runs from the
        /// default case (a0, a4, rc4 as above): a timer FR at 304
        /// (pre-increment T 0 < 1) gives rc304 = (rc4 + 100,000)/2, T = 1;
        /// a CNP at 305.5 is cut at 308.
        #[test]
        fn nvidia_target_clamp() {
            let rc4 = 100_000.0 * (1.0 - nv_a4() / 2.0);
            let rc304 = (rc4 + 100_000.0) / 2.0;
            for (clamp, ati, rt_want) in [
                (false, true, rc304),
                (false, false, 100_000.0),
                (true, false, rc304),
            ] {
                let mut p = Params::nvidia(100_000.0);
                (p.clamp_tgt_rate, p.clamp_after_time_inc) = (clamp, ati);
                let mut f = run(&p, &[0.0], 304.0);
                close(f.rc(), rc304, "FR at 304");
                f.cnp(305.5);
                f.advance(308.0);
                close(f.rt(), rt_want, &format!("Rt, clamp {clamp} ati {ati}"));
            }
            // clamp_tgt_rate clamps with T = BC = 0 too: the first cut sets
            // Rt = 100,000 (Rc before it), a CNP at 5.5 is cut at 8 with Rt = rc4.
            let mut p = Params::nvidia(100_000.0);
            p.clamp_tgt_rate = true;
            close(
                run(&p, &[0.0, 5.5], 8.0).rt(),
                rc4,
                "clamp_tgt_rate, second cut",
            );
        }

        /// nvidia stages (Isekai: the stage from the counts before the
        /// event) with a 64-byte byte counter, rate_to_set_on_first_cnp
        /// 30,000 and clamp_tgt_rate_after_time_inc off. Cut at 4: Rc0 =
        /// 30,000 (1 - a4/2), Rt 30,000; then (T, BC) before each event:
        /// bytes 5 (0,0) FR; bytes 6 (0,1) max >= 1: AI +5; timer 304 (0,2)
        /// AI; bytes 305 (1,2) min 1 not > 1: AI; timer 604 (1,3) AI; bytes
        /// 605 (2,3) min 2 > 1: HAI +50 (constant). A CNP at 606.5 is cut at
        /// 608 with Rt = Rc since BC > 0.
        #[test]
        fn nvidia_stages_and_byte_clamp() {
            let a4 = nv_a4();
            let mut p = Params::nvidia(100_000.0);
            (p.byte_counter, p.first_cnp_rate, p.clamp_after_time_inc) = (64, 30_000.0, false);
            let mut f = Flow::new(&p);
            f.cnp(0.0);
            f.bytes_sent(1.0, 640); // no increase before the first cut
            f.advance(4.0);
            let (mut rc, mut rt) = (30_000.0 * (1.0 - a4 / 2.0), 30_000.0);
            close(f.rc(), rc, "cut at 4");
            let steps = [
                (5.0, 64, 0.0),
                (6.0, 64, 5.0),
                (304.0, 0, 5.0),
                (305.0, 64, 5.0),
                (604.0, 0, 5.0),
                (605.0, 64, 50.0),
            ];
            for (t, bytes, add) in steps {
                f.bytes_sent(t, bytes);
                rt += add;
                rc = (rc + rt) / 2.0;
                close(f.rt(), rt, &format!("Rt at {t}"));
                close(f.rc(), rc, &format!("Rc at {t}"));
            }
            f.cnp(606.5);
            f.advance(608.0);
            close(f.rt(), rc, "BC > 0 clamps");
        }

        /// R_min <= Rc <= Rt <= LR and 0 <= alpha <= 1 after every call of a
        /// long random trace, per profile and a few parameter variants.
        #[test]
        fn invariants_over_random_traces() {
            let lr = 100_000.0;
            let mut variants = vec![Params::paper(lr), Params::nvidia(lr), Params::ns3(lr)];
            for base in variants.clone() {
                let mut p = base;
                (p.byte_counter, p.f, p.r_hai) = (3000, 2, 5000.0);
                (p.clamp_tgt_rate, p.first_cnp_rate, p.gd) = (false, 20.0, 10);
                (p.min_dec_fac, p.t_inc, p.r_min) = (10.0, 7.0, 50.0);
                variants.push(p);
            }
            let mut rng = 0x2545_f491u32;
            let mut draw = |n: u32| {
                rng = xorshift::next(rng);
                rng % n
            };
            for p in &variants {
                let mut f = Flow::new(p);
                let (mut t, mut ups, mut downs) = (0.0, 0, 0);
                for i in 0..20_000 {
                    let rc = f.rc();
                    // Congested and quiet phases in turn.
                    let cnp_odds = if (i / 2000) % 2 == 0 { 8 } else { 1000 };
                    t += match draw(4) {
                        0 => 0.0,
                        1 => draw(8) as f64,
                        _ => draw(4000) as f64 / 100.0,
                    };
                    if draw(cnp_odds) == 0 {
                        f.cnp(t);
                    } else if draw(2) == 0 {
                        f.bytes_sent(t, draw(4000) as u64);
                    } else {
                        f.advance(t);
                    }
                    let ok = p.r_min <= f.rc() && f.rc() <= f.rt() && f.rt() <= p.line_rate;
                    assert!(ok && (0.0..=1.0).contains(&f.alpha()), "at {t}: {f:?}");
                    ups += (f.rc() > rc) as u32;
                    downs += (f.rc() < rc) as u32;
                }
                // The trace exercises both directions.
                assert!(ups > 300 && downs > 300, "{:?}: {ups} {downs}", p.profile);
            }
        }
    }
}
