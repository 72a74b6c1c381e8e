//! The conformance suite: every check every block must pass, written once.
//! A block's test file implements [`BlockTests`] (its own stimulus strategy,
//! equivalent mutants, bad parameters, a planted bug) and instantiates the
//! suite with one line: `conformance_suite!(CpBlock);`.
//!
//! Tiers: the tests run by `make test` (CI) are the fast tier. Those marked
//! `#[ignore]` are the deep tier (`make test-deep`): every mutant for a
//! million cycles, long runs on every shape.
//!
//! Random choices that rotate from run to run (which shapes, which mutants)
//! come from `CCRTL_TEST_SEED` if set, else from the clock; the seed is
//! printed so a failure can be reproduced.

use std::path::{Path, PathBuf};

use ccrtl_sim::block::{Block, Stimulus};
use ccrtl_sim::lockstep::{self, Dut, HdlDut, RunOptions, VerilatorDut};
use ccrtl_sim::mutate::{self, MutantClass};
use ccrtl_sim::ports::{Dir, Port};
use ccrtl_sim::rng::Rng;
use proptest::prelude::*;
use proptest::test_runner::{
    Config as PtConfig, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner,
};

use ccrtl_sim::synth::gate;
pub use ccrtl_sim::synth::gate::GateTarget;

use super::{ccrtl, model, tmp_dir, verilator_lint, yosys, yosys_ok};

/// What a block brings to the conformance suite.
pub trait BlockTests: Block {
    /// Short traces for property-based equivalence: reset first, then
    /// random cycles with mid-trace resets and values exactly at the
    /// block's thresholds.
    fn traces(config: &Self::Config) -> BoxedStrategy<Vec<Self::In>>;
    /// The shape proptest runs on (a small one, so thresholds are reached).
    fn proptest_config() -> Self::Config;
    /// The configuration the mutants are planted in: reset values chosen so
    /// that a bug in restoring them shows before the first parameter load.
    fn mutation_config() -> Self::Config;
    /// Mutants no stimulus can tell apart from the original, each with the
    /// reason (see [`Equivalent`] for how an entry matches).
    const EQUIVALENT: &'static [Equivalent];
    /// Survivors of the block's last full mutant run that are neither
    /// caught nor shown equivalent yet (an entry matches as in
    /// [`EQUIVALENT`], its reason says what is known). The fast tier's
    /// sample does not draw them, so CI does not fail on a known open
    /// item at random; the deep tier runs them and fails on each that
    /// survives, naming it as unexamined, and on each that is caught (the
    /// list must stay true). The block's docs list them as open.
    const UNEXAMINED: &'static [Equivalent] = &[];

    /// Mutants the fast tier's sample does not draw until the block's full
    /// run of their class is redone on the present stimulus (each entry's
    /// reason says why): unlike [`UNEXAMINED`] they are not known
    /// survivors, so the deep tier treats them as any other mutant.
    const SAMPLE_SKIPS: &'static [Equivalent] = &[];
    /// A plausible bug planted in the block's Verilog (must change it).
    fn planted_bug(verilog: &str) -> String;
    /// The most cycles the shrunk trace of `planted_bug` may have.
    const SHRUNK_MAX: usize;
    /// Params files that must be refused: the TOML and a text the error
    /// names (the parameter, or the line).
    fn bad_params() -> Vec<(&'static str, &'static str)>;
    /// Plant mutants in the top module only: a composition of blocks
    /// whose own suites plant theirs brings only its glue.
    const MUTATE_TOP_ONLY: bool = false;
    /// Cycles of the fast tier's three-way lockstep (golden, rust-hdl,
    /// Verilator), per configuration; the deep tier runs [`HDL_CYCLES_DEEP`].
    /// rust-hdl simulates the hdl crate's code, which is compiled at
    /// opt-level 0 for the CI budget (Cargo.toml): a block whose rust-hdl
    /// simulation is slow runs fewer. The golden-Verilator lockstep runs
    /// millions of cycles either way.
    const HDL_CYCLES: u64 = 5_000;
    /// A check of the emitted text that the lockstep cannot make
    /// exhaustively (a ROM's every word against the golden table); `Err`
    /// says what is wrong. The emitted file passes it, and a mutant it
    /// rejects counts as caught without a run (`check_mutants`): a ROM of
    /// 512 words brings a thousand mutants, most of which random stimulus
    /// shows only by chance (an operand a register holds).
    fn static_check(_verilog: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Cycles of the deep tier's three-way lockstep, per configuration.
pub const HDL_CYCLES_DEEP: u64 = 30_000;

/// The mutants of the block's mutation configuration (the top module's
/// only with [`BlockTests::MUTATE_TOP_ONLY`]).
fn block_mutants<B: BlockTests>(good: &str) -> Vec<mutate::Mutant> {
    let top = top::<B>();
    let mut all = mutate::mutants(good, &top);
    if B::MUTATE_TOP_ONLY {
        all.retain(|m| m.module == top);
    }
    all
}

/// The rotating seed of this test run (printed once per use).
pub fn run_seed() -> u64 {
    let s = std::env::var("CCRTL_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() / 60)
                .unwrap_or(0)
        });
    eprintln!("rotating choices drawn with CCRTL_TEST_SEED={s}");
    s
}

fn inputs<B: Block>(c: &B::Config) -> Vec<Port> {
    B::ports(c)
        .into_iter()
        .filter(|p| p.dir == Dir::In)
        .collect()
}

fn outputs<B: Block>(c: &B::Config) -> Vec<Port> {
    B::ports(c)
        .into_iter()
        .filter(|p| p.dir == Dir::Out)
        .collect()
}

fn top<B: Block>() -> String {
    ccrtl_hdl::emit::top_module(B::NAME)
}

/// Golden against Verilator for `cycles` of the block's stimulus.
pub fn verilator_run<B: Block>(
    c: &B::Config,
    verilog: &str,
    seed: u64,
    cycles: u64,
) -> lockstep::Report {
    let m = model::<B>(c, verilog);
    let mut dut = VerilatorDut::new(&m, &B::ports(c), seed as u32 ^ 0x5a5a);
    lockstep::run::<B>(c, seed, &mut [&mut dut], &RunOptions::new(cycles)).unwrap()
}

/// Bugs written by hand into a block's emitted Verilog, each `(what, the
/// line as emitted, its replacement)`: every line is found exactly once,
/// and every bug is caught by the default stimulus within `cycles` (seed
/// 1). Prints the cycle each was caught at.
pub fn hand_written_bugs_are_caught<B: Block>(
    c: &B::Config,
    bugs: &[(&str, &str, &str)],
    cycles: u64,
) {
    let good = B::verilog(c);
    for (what, from, to) in bugs {
        assert_eq!(
            good.matches(from).count(),
            1,
            "{what}: `{from}` not found once"
        );
        let bad = good.replace(from, to);
        let r = verilator_run::<B>(c, &bad, 1, cycles);
        assert!(r.mismatches > 0, "{what}: not caught in {cycles} cycles");
        eprintln!("{what}: caught at cycle {}", r.first[0].cycle);
    }
}

/// The ports a Verilog file declares in its top module: (name, input?, width).
fn declared_ports(verilog: &str, top: &str) -> Vec<(String, bool, u32)> {
    let mut out = vec![];
    let mut inside = false;
    for l in verilog.lines() {
        let t = l.trim();
        if t.starts_with(&format!("module {top}(")) {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if t.starts_with("endmodule") {
            break;
        }
        let (input, rest) = if let Some(r) = t.strip_prefix("input wire") {
            (true, r)
        } else if let Some(r) = t.strip_prefix("output reg") {
            (false, r)
        } else if let Some(r) = t.strip_prefix("output wire") {
            (false, r)
        } else {
            continue;
        };
        let rest = rest.trim().trim_end_matches(';');
        let (width, name) = match rest.strip_prefix('[') {
            Some(r) => {
                let (range, name) = r.split_once(']').unwrap();
                let msb: u32 = range.split(':').next().unwrap().trim().parse().unwrap();
                (msb + 1, name.trim())
            }
            None => (1, rest),
        };
        out.push((name.to_string(), input, width));
    }
    out
}

// ---- emission ---------------------------------------------------------------

/// Every shape of the menu: emitted, its ports those of the struct, lint
/// clean with exactly the documented waivers, no latch, every module
/// prefixed, the header naming block and shape.
pub fn every_shape_emits_lints_and_has_the_struct_ports<B: Block>() {
    let dir = tmp_dir(&format!("{}-shapes", B::NAME));
    let top = top::<B>();
    let menu = B::menu();
    assert!(!menu.is_empty());
    for (k, c) in menu.iter().enumerate() {
        let text = B::verilog(c);
        // Ports: the file declares exactly the struct's ports.
        let mut want: Vec<(String, bool, u32)> = B::ports(c)
            .iter()
            .map(|p| (p.name.to_string(), p.dir == Dir::In, p.width))
            .collect();
        want.push((B::CLOCK.to_string(), true, 1));
        want.sort();
        let sorted = |t: &str| {
            let mut v = declared_ports(t, &top);
            v.sort();
            v
        };
        assert_eq!(sorted(&text), want, "shape {k} ({c:?})");
        if k == 0 {
            // The comparison can fail: one input a bit wider is seen.
            let p = B::ports(c)
                .into_iter()
                .find(|p| p.dir == Dir::In && p.width > 1)
                .unwrap();
            let decl = format!("input wire  [{}:0] {};", p.width - 1, p.name);
            let wider = format!("input wire  [{}:0] {};", p.width, p.name);
            assert_ne!(sorted(&text.replacen(&decl, &wider, 1)), want);
        }
        // Header and prefixes.
        let header: String = text
            .lines()
            .take_while(|l| l.starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(header.contains(&format!("Block `{}`", B::NAME)), "{header}");
        for m in text.lines().filter_map(|l| l.strip_prefix("module ")) {
            let name = m.split('(').next().unwrap();
            assert!(name.starts_with(&top), "module `{name}` is not prefixed");
            assert!(!name.contains('$'), "module `{name}`");
        }
        assert!(!text.contains("initial begin"), "no power-up values");
        // Lint, and the lint can fail: without the waivers it does.
        let path = dir.join(format!("shape{k}.v"));
        std::fs::write(&path, &text).unwrap();
        let lint = verilator_lint(&path, &top);
        assert!(
            lint.status.success(),
            "shape {k}: {}",
            String::from_utf8_lossy(&lint.stderr)
        );
        // Latches: none, and the check can fail.
        let no_latch = |p: &Path| {
            format!(
                "read_verilog {}; hierarchy -check -top {top}; proc; \
                 select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
                p.display()
            )
        };
        yosys_ok(&no_latch(&path));
        if k == 0 {
            let bare = dir.join("bare.v");
            std::fs::write(&bare, text.replace("lint_off", "lint_on")).unwrap();
            assert!(!verilator_lint(&bare, &top).status.success());
            // Deleting the default of a register assigned only under a
            // condition makes a latch, and the check sees it.
            let defaults: Vec<&str> = text
                .lines()
                .filter(|l| {
                    let t = l.trim();
                    t.strip_suffix(';')
                        .and_then(|t| t.split_once(" = "))
                        .is_some_and(|(a, b)| {
                            a.ends_with("$d") && b == format!("{}$q", a.trim_end_matches("$d"))
                        })
                })
                .collect();
            assert!(!defaults.is_empty());
            let latch = dir.join("latch.v");
            let seen = defaults.iter().any(|line| {
                std::fs::write(&latch, text.replacen(line, "", 1)).unwrap();
                !yosys(&no_latch(&latch)).status.success()
            });
            assert!(
                seen,
                "no deleted register default made the latch check fail"
            );
        }
    }
}

/// The golden model's encoding of inputs and outputs fits the struct's
/// ports on every shape: every value within its port's width, and inputs
/// decode back to themselves.
pub fn golden_encoding_fits_the_struct_ports_on_every_shape<B: Block>()
where
    B::In: PartialEq,
{
    for c in B::menu() {
        let (ins, outs) = (inputs::<B>(&c), outputs::<B>(&c));
        if let Some(problem) = encoding_problem::<B>(&c, &ins, &outs) {
            panic!("{}: {problem}", B::describe(&c));
        }
    }
    // The check can fail: against a port list with one port a bit
    // narrower, the encodings no longer fit.
    let c = B::short_config();
    let (mut ins, mut outs) = (inputs::<B>(&c), outputs::<B>(&c));
    ins.iter_mut()
        .for_each(|p| p.width = p.width.saturating_sub(1).max(1));
    assert!(encoding_problem::<B>(&c, &ins, &outs).is_some());
    // (A block whose outputs are all one bit wide has no narrower list.)
    if outs.iter().any(|p| p.width > 1) {
        let ins = inputs::<B>(&c);
        outs.iter_mut()
            .for_each(|p| p.width = p.width.saturating_sub(1).max(1));
        assert!(encoding_problem::<B>(&c, &ins, &outs).is_some());
    }
}

/// The first way the golden model's encodings of 20,000 stimulus cycles do
/// not fit `ins` and `outs`: a value wider than its port, or inputs that do
/// not decode back to themselves.
fn encoding_problem<B: Block>(c: &B::Config, ins: &[Port], outs: &[Port]) -> Option<String>
where
    B::In: PartialEq,
{
    let mut stim = B::Stimulus::new(c, 3);
    let mut g = B::golden(c);
    let mut iv = vec![0u128; ins.len()];
    let mut ov = vec![0u128; outs.len()];
    for _ in 0..20_000 {
        let i = stim.next(&g);
        B::encode_in(&i, &mut iv);
        for (p, v) in ins.iter().zip(&iv) {
            if *v > p.max() {
                return Some(format!("input `{}` = {v} exceeds {} bits", p.name, p.width));
            }
        }
        if B::decode_in(&iv) != i {
            return Some("decode_in(encode_in(i)) != i".into());
        }
        let o = B::golden_step(&mut g, &i);
        B::encode_out(&o, &mut ov);
        for (p, v) in outs.iter().zip(&ov) {
            if *v > p.max() {
                return Some(format!(
                    "output `{}` = {v} exceeds {} bits",
                    p.name, p.width
                ));
            }
        }
    }
    None
}

// ---- lockstep ---------------------------------------------------------------

/// A rotating sample of shapes, each with random reset values, verified
/// with every coverage point hit.
pub fn rotating_shapes_with_random_reset_values_match_golden<B: Block>(n: usize, cycles: u64) {
    let seed = run_seed();
    let mut r = Rng::new(seed);
    let menu = B::menu();
    for k in 0..n {
        let shape = &menu[(r.next_u32() as usize + k) % menu.len()];
        let c = B::random_reset(shape, &mut r);
        let rep = verilator_run::<B>(&c, &B::verilog(&c), seed + k as u64, cycles);
        assert_eq!(rep.mismatches, 0, "{}: {:?}", B::describe(&c), rep.first);
        assert!(rep.design_stop.is_none(), "{:?}", rep.design_stop);
        assert_eq!(rep.cycles, cycles);
        assert!(
            rep.coverage.missed().is_empty(),
            "{}: stimulus missed {:?}",
            B::describe(&c),
            rep.coverage.missed()
        );
    }
}

/// Golden, rust-hdl and Verilator agree cycle by cycle.
pub fn golden_rusthdl_and_verilator_agree<B: Block>(cycles: u64, both: bool) {
    let seed = run_seed();
    let mut r = Rng::new(seed ^ 0x3);
    let menu = B::menu();
    let mut configs = vec![B::short_config()];
    configs.push(B::random_reset(
        &menu[r.next_u32() as usize % menu.len()],
        &mut r,
    ));
    // The fast tier runs one of the two, rotating with the seed: rust-hdl
    // simulates the hdl crate's code unoptimised (25 to 60 s of CPU per
    // configuration for the larger blocks).
    if !both {
        let k = (seed % 2) as usize;
        configs = vec![configs.swap_remove(k)];
        eprintln!("three-way lockstep on {}", if k == 0 { "the short configuration" } else { "a random shape" });
    }
    for (k, c) in configs.iter().enumerate() {
        let m = model::<B>(c, &B::verilog(c));
        let mut vl = VerilatorDut::new(&m, &B::ports(c), 11 + k as u32);
        let mut hdl = HdlDut::<B>::new(c, B::hdl_sim(c));
        let duts: &mut [&mut dyn Dut<B>] = &mut [&mut hdl, &mut vl];
        let rep = lockstep::run::<B>(c, seed + k as u64, duts, &RunOptions::new(cycles)).unwrap();
        assert_eq!(rep.mismatches, 0, "{}: {:?}", B::describe(c), rep.first);
        assert_eq!(rep.cycles, cycles);
        assert!(rep.compared > 0);
    }
}

/// A planted bug is reported with cycle, signal, expected and actual, the
/// run stops shortly after, and the VCD holds the window around it; if the
/// VCD cannot be written the mismatch is still reported.
pub fn a_mismatch_is_reported_with_its_vcd<B: BlockTests>() {
    let c = B::short_config();
    let good = B::verilog(&c);
    let bad = B::planted_bug(&good);
    assert_ne!(good, bad);
    let m = model::<B>(&c, &bad);
    let mut dut = VerilatorDut::new(&m, &B::ports(&c), 1);
    let vcd = tmp_dir(&format!("{}-lockstep-vcd", B::NAME)).join("m.vcd");
    let mut opts = RunOptions::new(1_000_000);
    opts.mismatch_vcd = Some(vcd.clone());
    let r = lockstep::run::<B>(&c, 1, &mut [&mut dut], &opts).unwrap();
    assert!(r.mismatches > 0, "the planted bug was not caught");
    let first = &r.first[0];
    assert!(
        r.cycles <= first.cycle + 1 + opts.after,
        "run stops shortly after"
    );
    assert_ne!(first.expected, first.actual);
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(text.contains(" mismatch $end"));
    assert!(text.contains("$scope module expected $end"));
    assert!(text.contains("$scope module actual $end"));
    let stamps: Vec<u64> = text
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|t| t.parse().unwrap())
        .collect();
    assert!(*stamps.first().unwrap() <= first.cycle.saturating_sub(60) * 10);
    assert!(*stamps.last().unwrap() >= (first.cycle + opts.after) * 10);

    // An unwritable VCD path: the mismatch is reported all the same.
    let mut dut = VerilatorDut::new(&m, &B::ports(&c), 1);
    let blocked = tmp_dir(&format!("{}-vcd-blocked", B::NAME)).join("file");
    std::fs::write(&blocked, "not a directory").unwrap();
    opts.mismatch_vcd = Some(blocked.join("m.vcd"));
    let r2 = lockstep::run::<B>(&c, 1, &mut [&mut dut], &opts).unwrap();
    assert_eq!(r2.first, r.first);
    assert!(r2.mismatch_vcd.is_none());
    assert!(r2.vcd_warning.as_deref().unwrap().contains("m.vcd"));
}

// ---- property-based equivalence ------------------------------------------------

fn equivalent<B: Block>(
    c: &B::Config,
    m: &ccrtl_sim::verilator::Model,
    trace: &[B::In],
    vcd: &PathBuf,
) -> Result<(), TestCaseError> {
    let mut dut = VerilatorDut::new(m, &B::ports(c), 7);
    let mut k = 0;
    let mut next = |_: &B::Golden, i: &mut B::In| {
        *i = trace[k.min(trace.len() - 1)];
        k += 1;
    };
    let mut opts = RunOptions::new(trace.len() as u64);
    opts.full_vcd = Some(vcd.clone());
    opts.after = 0;
    let r = lockstep::run_with::<B, _>(c, &mut next, &mut [&mut dut], &opts).unwrap();
    if r.mismatches == 0 {
        let _ = std::fs::remove_file(vcd);
        Ok(())
    } else {
        Err(TestCaseError::fail(format!("{}", r.first[0])))
    }
}

fn pt_config(cases: u32) -> PtConfig {
    PtConfig {
        cases,
        failure_persistence: None,
        ..PtConfig::default()
    }
}

/// Random short traces (with mid-trace resets and values at thresholds):
/// golden and Verilator agree on every one. A fresh proptest seed each run.
pub fn proptest_golden_and_verilator_are_equivalent<B: BlockTests>(cases: u32) {
    let c = B::proptest_config();
    let m = model::<B>(&c, &B::verilog(&c));
    let vcd = tmp_dir(&format!("proptest-{}", B::NAME)).join("failing-trace.vcd");
    let result = TestRunner::new(pt_config(cases))
        .run(&B::traces(&c), |t| equivalent::<B>(&c, &m, &t, &vcd));
    if let Err(e) = result {
        panic!("{e}\nminimal failing trace: {}", vcd.display());
    }
}

/// On the planted bug proptest fails, shrinks to a short trace and leaves
/// its VCD.
pub fn proptest_shrinks_a_planted_bug<B: BlockTests>() {
    let c = B::proptest_config();
    let bad = B::planted_bug(&B::verilog(&c));
    let m = model::<B>(&c, &bad);
    let vcd = tmp_dir(&format!("proptest-{}-planted", B::NAME)).join("failing-trace.vcd");
    // A block whose bug needs a long prefix (RP: a reset and its clearing,
    // 1,100 cycles) takes thousands of removals to shrink; the budget is a
    // ceiling, not a cost, for the blocks that shrink fast.
    let mut runner = TestRunner::new_with_rng(
        PtConfig {
            max_shrink_iters: 50_000,
            ..pt_config(500)
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    match runner.run(&B::traces(&c), |t| equivalent::<B>(&c, &m, &t, &vcd)) {
        Err(TestError::Fail(_, trace)) => {
            assert!(
                trace.len() <= B::SHRUNK_MAX,
                "not shrunk: {} cycles",
                trace.len()
            );
            let text = std::fs::read_to_string(&vcd).expect("VCD of the failing trace");
            assert!(text.starts_with("$timescale"));
        }
        other => panic!("the planted bug was not found: {other:?}"),
    }
}

// ---- ROM contents ----------------------------------------------------------------

/// Checks the `case` ROMs of an emitted file: `copies` modules hold lines
/// `<item><i>: <lhs><value>;` (e.g. item `9'd`, lhs `data <= 27'h`, `radix`
/// 16), and in each the lines are `i = 0, 1, ...` in order with the value
/// `expected[i]`, every index once. `Err` names the module and the index.
pub fn check_case_rom(
    verilog: &str,
    item: &str,
    lhs: &str,
    radix: u32,
    expected: &[u64],
    copies: usize,
) -> Result<(), String> {
    let mut roms: Vec<(String, Vec<(u64, u64)>)> = vec![];
    let mut module = String::new();
    for (n, line) in verilog.lines().enumerate() {
        if let Some(m) = line.strip_prefix("module ") {
            module = m.split('(').next().unwrap_or("").to_string();
            continue;
        }
        let Some(rest) = line.trim().strip_prefix(item) else {
            continue;
        };
        let bad = || format!("line {}: `{}` is not a ROM word", n + 1, line.trim());
        let (index, rest) = rest.split_once(": ").ok_or_else(bad)?;
        let value = rest
            .strip_prefix(lhs)
            .and_then(|v| v.strip_suffix(';'))
            .ok_or_else(bad)?;
        let index = index.parse::<u64>().map_err(|_| bad())?;
        let value = u64::from_str_radix(value, radix).map_err(|_| bad())?;
        match roms.last_mut() {
            Some((m, words)) if *m == module => words.push((index, value)),
            _ => roms.push((module.clone(), vec![(index, value)])),
        }
    }
    if roms.len() != copies {
        return Err(format!("{} ROMs of `{item}` lines, not {copies}", roms.len()));
    }
    for (m, words) in &roms {
        if words.len() != expected.len() {
            return Err(format!("{m}: {} words, not {}", words.len(), expected.len()));
        }
        for (k, (&(i, v), &want)) in words.iter().zip(expected).enumerate() {
            if i != k as u64 || v != want {
                return Err(format!("{m}: word {k} is `{i}: {v:#x}`, not `{k}: {want:#x}`"));
            }
        }
    }
    Ok(())
}

// ---- planted mutants ---------------------------------------------------------

/// One entry of a block's list of equivalent mutants.
pub struct Equivalent {
    /// The module of the changed line (`Mutant::module`); "" for any;
    /// each `*` standing for any text as in `change` (e.g.
    /// `ccrtl_pacer__ma*`: an instance and its submodules).
    pub module: &'static str,
    /// The changed line's original text, trimmed; "" for any line.
    pub original: &'static str,
    /// The change (`Mutant::change`), exactly, or with each `*` standing
    /// for any text (e.g. `width-truncated * [47:0] -> [46:0]`).
    pub change: &'static str,
    /// Why no stimulus can show it.
    pub reason: &'static str,
    /// 0: every line with `original`'s text; k: only the k-th line of the
    /// emitted file with that text (1-based), where the same text is also
    /// logic that can be caught (e.g. a select's default and a clamp).
    pub nth: usize,
}

/// An [`Equivalent`] entry for every line with `original`'s text in
/// `module` (`nth` 0).
pub const fn eq_in(
    module: &'static str,
    change: &'static str,
    original: &'static str,
    reason: &'static str,
) -> Equivalent {
    Equivalent {
        module,
        original,
        change,
        reason,
        nth: 0,
    }
}

impl Equivalent {
    fn matches(&self, m: &mutate::Mutant, good: &str) -> bool {
        let change = mutate::glob(self.change, &m.change);
        // The line count last: only for an entry that matches otherwise.
        change
            && (self.module.is_empty() || mutate::glob(self.module, &m.module))
            && (self.original.is_empty() || m.original == self.original)
            && (self.nth == 0
                || good
                    .lines()
                    .take(m.line)
                    .filter(|l| l.trim() == self.original)
                    .count()
                    == self.nth)
    }
}

fn is_equivalent<B: BlockTests>(m: &mutate::Mutant, good: &str) -> bool {
    B::EQUIVALENT.iter().any(|e| e.matches(m, good))
}

/// Runs `mutants` and fails on any survivor not listed as equivalent (and on
/// any listed one that is caught: the list must stay true).
fn check_mutants<B: BlockTests>(mutants: &[mutate::Mutant], cycles: u64) {
    let c = B::mutation_config();
    let good = B::verilog(&c);
    if let Err(e) = B::static_check(&good) {
        panic!("the emitted file fails the block's static check: {e}");
    }
    // Caught by the static check: not run.
    let (statically, mutants): (Vec<_>, Vec<_>) = mutants
        .iter()
        .cloned()
        .partition(|m| B::static_check(&m.text).is_err());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let out = mutate::run_mutants::<B>(
        &c,
        &mutants,
        cycles,
        1,
        threads,
        &super::test_root().join("verilator"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut per_class = std::collections::BTreeMap::<&str, (u32, u32)>::new();
    let mut unexplained = vec![];
    let mut wrongly_listed = vec![];
    let mut late = vec![];
    for m in &statically {
        let e = per_class.entry(m.class.name()).or_default();
        e.0 += 1;
        e.1 += 1;
        if is_equivalent::<B>(m, &good) {
            wrongly_listed.push(m.id());
        }
    }
    for o in &out {
        let e = per_class.entry(o.mutant.class.name()).or_default();
        e.0 += 1;
        let unexamined = B::UNEXAMINED.iter().any(|e| e.matches(&o.mutant, &good));
        if o.caught() {
            e.1 += 1;
            // A listed truncation whose lost bit the lint sees selected
            // (SELRANGE) stays listed: its bound holds, the lint catches it
            // besides. Caught by the run or left undriven, it was wrong.
            let run_or_undriven = o.caught_at.is_some() || o.lint == Some("UNDRIVEN");
            let is_late = cycles > MUTANT_SAMPLE_CYCLES
                && o.caught_at.is_some_and(|c| c >= MUTANT_SAMPLE_CYCLES);
            // A late catch may be listed UNEXAMINED (open: the sample must
            // not draw it); the full run still reports it, as late.
            if run_or_undriven
                && (is_equivalent::<B>(&o.mutant, &good) || (unexamined && !is_late))
            {
                wrongly_listed.push(o.mutant.id());
            }
            if is_late {
                let tag = if unexamined { " (listed UNEXAMINED)" } else { "" };
                late.push(format!(
                    "{} at cycle {} `{}`{tag}",
                    o.mutant.id(),
                    o.caught_at.unwrap_or_default(),
                    o.mutant.original
                ));
            }
        } else if !is_equivalent::<B>(&o.mutant, &good) {
            let tag = if unexamined { " (listed UNEXAMINED)" } else { "" };
            unexplained.push(format!("{} `{}`{tag}", o.mutant.id(), o.mutant.original));
        }
    }
    for (class, (n, caught)) in &per_class {
        eprintln!("mutants {class}: {n} planted, {caught} caught");
    }
    let caught = out.iter().filter(|o| o.caught()).count() + statically.len();
    let linted = |w: &str| out.iter().filter(|o| o.lint == Some(w)).count();
    let (undriven, selrange) = (linted("UNDRIVEN"), linted("SELRANGE"));
    let planted = out.len() + statically.len();
    eprintln!(
        "mutants: {planted} planted, {caught} caught ({} by the static check without a run, \
         by the lint {undriven} leaving a signal undriven and {selrange} selecting bits a \
         narrowed vector lost), {} survived (all shown equivalent unless listed below)",
        statically.len(),
        planted - caught
    );
    // All three lists at once: a long run's every finding in one report.
    let mut failures = vec![];
    if !unexplained.is_empty() {
        failures.push(format!("surviving mutants:\n{}", unexplained.join("\n")));
    }
    if !wrongly_listed.is_empty() {
        failures.push(format!("listed as equivalent or unexamined but caught: {wrongly_listed:?}"));
    }
    if !late.is_empty() {
        failures.push(format!(
            "caught only after the fast tier's {MUTANT_SAMPLE_CYCLES} cycles (its sample would \
             report them surviving):\n{}",
            late.join("\n")
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Mutants the fast tier draws from each rotating pool (loads one cycle
/// late, registers not cleared by reset, the rest): each is a Verilator
/// build and a lockstep of 5e5 cycles, about 4 s of CPU, so a block's
/// sample of about 35 takes 70 s of the CI's two cores (10 a pool: 49 for
/// TIMELY, 136 s). Over runs every mutant is drawn; the deep tier runs all.
pub const MUTANT_SAMPLE: usize = 6;

/// The cycles of the fast tier's mutant sample. The stimulus seed and the
/// power-up seeds are the same in the sample and in the full run, so a
/// mutant the full run catches only after these cycles would survive the
/// sample: the full run fails on it (a stimulus gap to close, as the
/// survivor of CI's sample with `CCRTL_TEST_SEED=29938720` was: caught at
/// more than 5e5 cycles in the full run, not in the sample).
pub const MUTANT_SAMPLE_CYCLES: u64 = 500_000;

/// Fast tier: every mutant of the classes that model hand-written bugs
/// (valid gating, reset constant, stage not cleared, load early), a
/// rotating sample of the loads one cycle late and a rotating sample of the
/// rest.
pub fn planted_mutants_sample_is_caught<B: BlockTests>(sample: usize, cycles: u64) {
    let good = B::verilog(&B::mutation_config());
    let mut all = block_mutants::<B>(&good);
    // Those the static check catches are not drawn (the deep tier counts
    // them): the sample's draws are of the mutants the lockstep must show.
    let n = all.len();
    all.retain(|m| B::static_check(&m.text).is_ok());
    if all.len() < n {
        eprintln!("{} of {n} mutants caught by the static check, not drawn", n - all.len());
    }
    let n = all.len();
    all.retain(|m| !B::UNEXAMINED.iter().any(|e| e.matches(m, &good)));
    if all.len() < n {
        eprintln!(
            "{} survivors of the last full run not examined yet (UNEXAMINED), not drawn",
            n - all.len()
        );
    }
    let n = all.len();
    all.retain(|m| !B::SAMPLE_SKIPS.iter().any(|e| e.matches(m, &good)));
    if all.len() < n {
        eprintln!(
            "{} mutants awaiting their class's full rerun (SAMPLE_SKIPS), not drawn",
            n - all.len()
        );
    }
    let mut r = Rng::new(run_seed());
    let (mut chosen, rest): (Vec<_>, Vec<_>) = all.into_iter().partition(|m| {
        matches!(
            m.class,
            MutantClass::ValidGating
                | MutantClass::ResetConstant
                | MutantClass::LoadEarly
        )
    });
    // A register read one cycle late, and a register not cleared by reset:
    // one of each per register of the block (CRD: 44 not cleared of 86
    // mutants), so a rotating sample of each (as many as `sample`; every
    // one over runs, all in the deep tier), then `sample` others.
    let (mut late, rest): (Vec<_>, Vec<_>) = rest
        .into_iter()
        .partition(|m| m.class == MutantClass::LoadLate);
    let (mut uncleared, mut rest): (Vec<_>, Vec<_>) = rest
        .into_iter()
        .partition(|m| m.class == MutantClass::ResetNotCleared);
    for pool in [&mut late, &mut uncleared, &mut rest] {
        for _ in 0..sample.min(pool.len()) {
            let k = r.upto(pool.len() as u32 - 1) as usize;
            chosen.push(pool.swap_remove(k));
        }
    }
    check_mutants::<B>(&chosen, cycles);
}

/// No mutant listed as equivalent is a deleted assignment that leaves its
/// variable without a driver: the lint every emitted design passes reports
/// such a deletion (`UNDRIVEN`, [`mutate::Outcome::undriven`]), so the
/// list would not be true of it. Every listed deletion is linted (a
/// fraction of a second each); the check fails on the planted case: the
/// design's first assignment of a variable assigned once in its module,
/// deleted, is reported.
pub fn listed_deletions_leave_no_signal_undriven<B: BlockTests>() {
    let good = B::verilog(&B::mutation_config());
    let top = top::<B>();
    let dir = tmp_dir(&format!("{}-undriven", B::NAME));
    let all = block_mutants::<B>(&good);
    let deletions: Vec<_> = all
        .iter()
        .filter(|m| m.class == MutantClass::DeleteStatement)
        .collect();
    let mut undriven = vec![];
    for m in deletions.iter().filter(|m| is_equivalent::<B>(m, &good)) {
        if mutate::lint_reports(m, "UNDRIVEN", &top, &dir).unwrap_or_else(|e| panic!("{e}")) {
            undriven.push(format!("{} `{}`", m.id(), m.original));
        }
    }
    assert!(
        undriven.is_empty(),
        "listed as equivalent, but the lint reports a signal undriven: {undriven:?}"
    );
    // The check can fail: a deletion of the only assignment of a
    // combinational variable or register input of its module.
    let once = deletions.iter().find(|m| {
        let lhs = m.original.split(['=', '<']).next().unwrap_or("").trim();
        let head = format!("module {}(", m.module);
        !lhs.is_empty()
            && !lhs.contains(['[', ' '])
            && good
                .lines()
                .skip_while(|l| !l.starts_with(&head))
                .take_while(|l| !l.starts_with("endmodule"))
                .filter(|l| {
                    let t = l.trim_start();
                    t.strip_prefix(lhs)
                        .is_some_and(|r| r.trim_start().starts_with('=') || r.trim_start().starts_with("<="))
                })
                .count()
                == 1
    });
    if let Some(m) = once {
        assert!(
            mutate::lint_reports(m, "UNDRIVEN", &top, &dir).unwrap_or_else(|e| panic!("{e}")),
            "{}: not reported undriven",
            m.id()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Deep tier: every mutant. `CCRTL_MUTANT_LINES=1455,1594` runs only the
/// mutants of those lines of the emitted file (to look again at survivors
/// the full run listed, by the line of their `L<line>:` id);
/// `CCRTL_MUTANT_CLASS=width-truncated` only those of one class, or of a
/// comma-separated list of classes (a large block's run split over
/// sittings).
pub fn every_planted_mutant_is_caught_or_shown_equivalent<B: BlockTests>(cycles: u64) {
    let good = B::verilog(&B::mutation_config());
    let mut all = block_mutants::<B>(&good);
    assert!(all.len() > 50, "only {} mutants", all.len());
    if let Ok(classes) = std::env::var("CCRTL_MUTANT_CLASS") {
        let names: Vec<&str> = MutantClass::ALL.iter().map(|c| c.name()).collect();
        let wanted: Vec<&str> = classes.split(',').map(str::trim).collect();
        for class in &wanted {
            assert!(
                names.contains(class),
                "CCRTL_MUTANT_CLASS: `{class}` is not a class (one of {names:?})"
            );
        }
        all.retain(|m| wanted.contains(&m.class.name()));
        eprintln!("CCRTL_MUTANT_CLASS={classes}: {} mutants", all.len());
    }
    if let Ok(lines) = std::env::var("CCRTL_MUTANT_LINES") {
        let lines: Vec<usize> = lines
            .split(',')
            .map(|l| {
                l.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("CCRTL_MUTANT_LINES: `{l}` is not a line number"))
            })
            .collect();
        all.retain(|m| lines.contains(&m.line));
        assert!(
            !all.is_empty(),
            "CCRTL_MUTANT_LINES: no mutant on lines {lines:?}"
        );
    }
    check_mutants::<B>(&all, cycles);
}

// ---- command line --------------------------------------------------------------

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `verify` passes good Verilog (random reset values, printed), fails a
/// planted bug with exit 1 naming cycle and signal, refuses a port of the
/// wrong width, a design that calls `$finish` and too few cycles. The
/// passing run is 100,000 cycles: this checks the command, the million-cycle
/// runs are `rotating_shapes_with_random_reset_values_match_golden`'s and
/// `make run`'s (with a million, the NIC's took 96 s of the fast tier). So
/// it allows missed coverage: 100,000 cycles do not reach every point of
/// every block (NP's default table takes 65,536 cycles to clear after each
/// reset); the exit status of missed coverage is checked below.
pub fn verify_cli_exit_status<B: BlockTests>() {
    let name = B::NAME;
    let dir = tmp_dir(&format!("{name}-cli"));
    let out = ccrtl(&[
        "verify",
        name,
        "--cycles",
        "100000",
        "--seed",
        "5",
        "--json",
        "--allow-missed-coverage",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["block"], name);
    assert_eq!(v[0]["cycles"], 100000);
    assert_eq!(v[0]["mismatches"], 0);
    assert_eq!(v[0]["random_reset"], true);
    assert!(v[0]["power_up_seed"].as_u64().unwrap() > 0);
    assert!(v[0]["config"].as_str().unwrap().contains("reset"));

    // A planted bug: exit 1, the cycle and the signal named.
    let good = B::verilog(&B::short_config());
    let bad = write(&dir, "bad.v", &B::planted_bug(&good));
    let vcd = dir.join("mismatch.vcd");
    let args = vec![
        "verify",
        name,
        "--cycles",
        "1000000",
        "--verilog",
        bad.to_str().unwrap(),
        "--mismatch-vcd",
        vcd.to_str().unwrap(),
    ];
    let short = short_params::<B>(&dir);
    // `verify` of a file made from the short configuration's Verilog.
    let verify_short = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(short.iter().map(String::as_str));
        ccrtl(&args)
    };
    let out = verify_short(&args);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("MISMATCH") && err.contains("cycle ") && err.contains("signal `"),
        "{err}"
    );
    assert!(err.contains("--power-up-seed"), "{err}");
    assert!(vcd.exists());

    // The VCD cannot be written: the mismatch is still reported, exit 1.
    let blocked = write(&dir, "blocker", "a file");
    let out = verify_short(&[
        "verify",
        name,
        "--cycles",
        "1000000",
        "--verilog",
        bad.to_str().unwrap(),
        "--mismatch-vcd",
        blocked.join("m.vcd").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("MISMATCH") && err.contains("WARNING") && err.contains("blocker/m.vcd"),
        "{err}"
    );

    // A port of another width is named.
    let c = B::short_config();
    let p = B::ports(&c)
        .into_iter()
        .find(|p| p.dir == Dir::In && p.width > 1)
        .unwrap();
    let decl = format!("input wire  [{}:0] {};", p.width - 1, p.name);
    assert!(good.contains(&decl), "{decl}");
    let wide = write(
        &dir,
        "ports.v",
        &good.replacen(
            &decl,
            &format!("input wire  [{}:0] {};", p.width, p.name),
            1,
        ),
    );
    let out = verify_short(&[
        "verify",
        name,
        "--cycles",
        "10",
        "--verilog",
        wide.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "port `{}` is {} bits wide, expected {}",
            p.name,
            p.width + 1,
            p.width
        )),
        "{err}"
    );

    // A design that calls $finish never passes: exit 2, the file named.
    let fin = write(&dir, "finish.v", &super::with_finish_after(&good, 500));
    let out = verify_short(&[
        "verify",
        name,
        "--cycles",
        "100000",
        "--verilog",
        fin.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("$finish") && err.contains("finish.v:"),
        "{err}"
    );

    // Too few cycles to hit every coverage point: exit 1 and the points
    // listed; --allow-missed-coverage relaxes it. --cycles 0 is refused.
    let out = ccrtl(&["verify", name, "--cycles", "20"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("coverage point not hit"));
    // With --json the reason of the exit status is on stderr too.
    let out = ccrtl(&["verify", name, "--cycles", "20", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("coverage points not hit") && err.contains("--allow-missed-coverage"),
        "{err}"
    );
    let out = ccrtl(&["verify", name, "--cycles", "20", "--allow-missed-coverage"]);
    assert_eq!(out.status.code(), Some(0));
    let out = ccrtl(&["verify", name, "--cycles", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // One cycle is the reset: nothing compared, which proves nothing.
    let out = ccrtl(&["verify", name, "--cycles", "1", "--allow-missed-coverage"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no cycle was compared"));
}

/// Bad params files are refused by name with exit 2 and nothing written;
/// an unknown block is refused listing the blocks.
pub fn bad_parameters_are_refused_by_name<B: BlockTests>() {
    let mut cases = B::bad_params();
    cases.push(("[nosuchblock]\nx = 1\n", "unknown table `nosuchblock`"));
    for (k, (toml, expect)) in cases.iter().enumerate() {
        let dir = tmp_dir(&format!("{}-bad-params-{k}", B::NAME));
        let params = write(&dir, "p.toml", toml);
        let out_dir = dir.join("out");
        let out = ccrtl(&[
            "emit",
            B::NAME,
            "--out",
            out_dir.to_str().unwrap(),
            "--params",
            params.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "case {k}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expect), "case {k}: {err}");
        assert!(!out_dir.exists(), "case {k}: something was written");
    }
    let out = ccrtl(&["verify", "nosuchblock", "--cycles", "10"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown block `nosuchblock`") && err.contains(B::NAME),
        "{err}"
    );
}

/// A trace of the block's own stimulus replays to the same outputs on
/// both engines; unknown outputs before the first reset are `x`.
pub fn replay_engines_agree<B: Block>() {
    let dir = tmp_dir(&format!("{}-replay", B::NAME));
    let c = B::short_config();
    let ins = inputs::<B>(&c);
    let mut stim = B::Stimulus::new(&c, 11);
    let mut g = B::golden(&c);
    let mut csv = ins.iter().map(|p| p.name).collect::<Vec<_>>().join(",");
    csv.push_str("\r\n"); // CRLF, as a spreadsheet writes it
    let mut v = vec![0u128; ins.len()];
    for _ in 0..5000 {
        let i = stim.next(&g);
        B::golden_step(&mut g, &i);
        B::encode_in(&i, &mut v);
        csv.push_str(
            &v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(","),
        );
        csv.push_str("\r\n");
    }
    let stim_path = write(&dir, "in.csv", &csv);
    let short = short_params::<B>(&dir);
    let run = |engine: &str| {
        let out = dir.join(format!("{engine}.csv"));
        let mut args = vec![
            "replay",
            B::NAME,
            "--stimulus",
            stim_path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--engine",
            engine,
        ];
        args.extend(short.iter().map(String::as_str));
        let o = ccrtl(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let golden = run("golden");
    let verilator = run("verilator");
    assert_eq!(golden.lines().count(), 5001);
    assert!(golden.lines().nth(1).unwrap().ends_with(",x"));
    assert_eq!(golden, verilator);

    // --out may not be the stimulus, nor a link to it.
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink(&stim_path, &link).unwrap();
    let o = ccrtl(&[
        "replay",
        B::NAME,
        "--stimulus",
        stim_path.to_str().unwrap(),
        "--out",
        link.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&stim_path).unwrap(),
        csv,
        "stimulus intact"
    );
}

/// The block's registry entry and its default params.
fn entry_of<B: Block>() -> (
    &'static dyn ccrtl_sim::commands::Entry,
    ccrtl_sim::params::ParamsFile,
) {
    let e = ccrtl_sim::commands::named(B::NAME).unwrap();
    let dir = tmp_dir(&format!("{}-entry", B::NAME));
    let path = short_params::<B>(&dir).get(1).map(PathBuf::from);
    let p = ccrtl_sim::params::ParamsFile::load(path.as_deref(), &ccrtl_sim::registry::names())
        .unwrap();
    (e[0], p)
}

/// `--params FILE` holding the block's [`Block::SHORT_PARAMS`] (written
/// into `dir`), or nothing if it has none.
fn short_params<B: Block>(dir: &Path) -> Vec<String> {
    if B::SHORT_PARAMS.is_empty() {
        return vec![];
    }
    let p = write(dir, "short.toml", B::SHORT_PARAMS);
    vec!["--params".into(), p.to_string_lossy().into_owned()]
}

/// The fast tier's gate-level target: one of generic, ECP5 and iCE40,
/// drawn with the run's rotating seed (each netlist is a yosys run and a
/// large Verilator build; the deep tier runs all three).
pub fn rotating_target() -> GateTarget {
    let t = GateTarget::ALL[(run_seed() % GateTarget::ALL.len() as u64) as usize];
    eprintln!("gate-level target of this run: {}", t.key());
    t
}

/// One block in [`NETLIST_ONE_IN`] runs its fast-tier netlist in a run:
/// each netlist is a yosys synthesis and a gate-level Verilator build (40
/// to 90 s of CPU a block), so over CI runs the draw rotates over the
/// blocks, as the target rotates over the three; the deep tier runs every
/// block on every target.
pub const NETLIST_ONE_IN: u32 = 4;

/// Whether this run draws `what` (a name), one in `one_in`, with the
/// rotating seed: the same name draws the same in one run, other names
/// independently, and over runs every name is drawn.
pub fn drawn_one_in(what: &str, one_in: u32) -> bool {
    let h = what.bytes().fold(0u64, |h, b| h.wrapping_mul(131).wrapping_add(b as u64));
    Rng::new(run_seed() ^ h.rotate_left(17)).upto(one_in - 1) == 0
}

/// Whether this run draws block `B`'s fast-tier netlist (printed either way).
pub fn netlist_drawn<B: Block>() -> bool {
    let drawn = drawn_one_in(B::NAME, NETLIST_ONE_IN);
    eprintln!(
        "{}'s netlist {} drawn in this run (one block in {NETLIST_ONE_IN})",
        B::NAME,
        if drawn { "is" } else { "is not" }
    );
    drawn
}

fn netlist_opts(targets: Vec<GateTarget>, cycles: u64, out: &Path) -> gate::NetlistOpts {
    gate::NetlistOpts {
        targets,
        cycles,
        seed: 11,
        equiv_seq: None,
        out: out.to_path_buf(),
        build_dir: super::test_root(),
        power_up_seed: Some(7),
    }
}

/// Gate-level simulation: the yosys netlist of each of `targets` (generic,
/// ECP5 and iCE40 with their cell models) in the Verilator lockstep
/// against the golden model for `cycles` cycles, no mismatch.
pub fn netlists_match_golden<B: Block>(targets: &[GateTarget], cycles: u64) {
    let (e, p) = entry_of::<B>();
    let out = tmp_dir(&format!("netlist-{}-{cycles}", B::NAME));
    let rows = gate::run(e, &p, &netlist_opts(targets.to_vec(), cycles, &out)).unwrap();
    assert_eq!(rows.len(), targets.len(), "one row per target");
    for r in &rows {
        let rep = &r.verify.report;
        eprintln!(
            "{} {}: {} cells, {} cycles compared, {} mismatches, {:.0} cycles/s",
            B::NAME,
            r.netlist.target.key(),
            r.netlist.cell_count(),
            rep.compared,
            rep.mismatches,
            rep.cycles_per_second()
        );
        assert!(
            rep.compared + 100 >= cycles,
            "{}: too few cycles compared",
            r.netlist.target.key()
        );
        assert_eq!(
            rep.mismatches,
            0,
            "{}: {:?}",
            r.netlist.target.key(),
            rep.first
        );
        assert!(rep.design_stop.is_none());
    }
}

/// A bug planted in a target's netlist: the generic netlist gets one flip-flop
/// whose D input is inverted (the middle one of the file), the ECP5 and iCE40
/// netlists one LUT whose function is inverted (all 16 INIT bits of the
/// first LUT4 / SB_LUT4). Returns the changed text and what was changed.
pub fn plant_in_netlist(target: GateTarget, text: &str) -> (String, String) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match target {
        GateTarget::Generic => {
            let flops: Vec<usize> = (1..lines.len())
                .filter(|&i| {
                    lines[i - 1].trim() == "always @(posedge clk)"
                        && lines[i].contains(" <= ")
                        && !lines[i].contains("if (")
                        && lines[i].trim_end().ends_with(';')
                })
                .collect();
            assert!(
                !flops.is_empty(),
                "no flip-flop found in the generic netlist"
            );
            let i = flops[flops.len() / 2];
            let (lhs, rhs) = lines[i].split_once(" <= ").unwrap();
            let rhs = rhs.trim_end().trim_end_matches(';');
            let what = format!("line {}: `{}` now takes ~D", i + 1, lhs.trim());
            lines[i] = format!("{lhs} <= ~({rhs});");
            (lines.join("\n") + "\n", what)
        }
        GateTarget::Ecp5 | GateTarget::Ice40 => {
            let key = if target == GateTarget::Ecp5 {
                ".INIT(16'h"
            } else {
                ".LUT_INIT(16'h"
            };
            let i = lines
                .iter()
                .position(|l| l.contains(key))
                .unwrap_or_else(|| panic!("no {key} in the netlist"));
            let at = lines[i].find(key).unwrap() + key.len();
            let hex = &lines[i][at..at + 4];
            let v = u16::from_str_radix(hex, 16).unwrap();
            let new = format!("{:04x}", !v);
            let what = format!("line {}: LUT INIT 16'h{hex} -> 16'h{new}", i + 1);
            lines[i].replace_range(at..at + 4, &new);
            (lines.join("\n") + "\n", what)
        }
    }
}

/// The gate-level lockstep catches a bug planted in each target's netlist
/// (and the header check still holds: the planted file keeps its header).
pub fn a_bug_planted_in_a_netlist_is_caught<B: Block>(targets: &[GateTarget]) {
    let (e, p) = entry_of::<B>();
    let keys: Vec<&str> = targets.iter().map(|t| t.key()).collect();
    let out = tmp_dir(&format!("netlist-planted-{}-{}", B::NAME, keys.join("-")));
    let mut opts = netlist_opts(targets.to_vec(), 2_000, &out);
    let rows = gate::run(e, &p, &opts).unwrap();
    for r in rows {
        let text = std::fs::read_to_string(&r.netlist.path).unwrap();
        let (bad, what) = plant_in_netlist(r.netlist.target, &text);
        let path = r.netlist.dir.join("planted.v");
        std::fs::write(&path, bad).unwrap();
        opts.cycles = 20_000;
        let row = e
            .verify(
                &p,
                &ccrtl_sim::commands::VerifyOpts {
                    cycles: opts.cycles,
                    seed: opts.seed,
                    verilog: Some(path.clone()),
                    vcd: None,
                    mismatch_vcd: Some(r.netlist.dir.join("planted.vcd")),
                    progress: false,
                    power_up_seed: Some(7),
                    random_reset: false,
                    build_dir: super::test_root(),
                },
            )
            .unwrap();
        let rep = &row.report;
        eprintln!(
            "{} {} planted ({what}): {} mismatches, first {:?}",
            B::NAME,
            r.netlist.target.key(),
            rep.mismatches,
            rep.first.first().map(|m| m.to_string())
        );
        assert!(
            rep.mismatches > 0,
            "{}: planted bug ({what}) not caught",
            r.netlist.target.key()
        );
    }
}

/// yosys's equivalence check of the RTL against the generic netlist, and
/// against the same netlist with a planted bug: the planted one must leave
/// more `$equiv` cells unproven, among them the planted flip-flop's.
pub fn equivalence_check_sees_a_planted_netlist_bug<B: Block>() {
    let (e, p) = entry_of::<B>();
    let out = tmp_dir(&format!("netlist-equiv-{}", B::NAME));
    let mut opts = netlist_opts(vec![GateTarget::Generic], 1_000, &out);
    opts.equiv_seq = Some(5);
    let rows = gate::run(e, &p, &opts).unwrap();
    let r = &rows[0];
    let clean = r.equivalence.clone().unwrap();
    let gate_file = r.netlist.dir.join(gate::EQUIV_GATE);
    let text = std::fs::read_to_string(&gate_file).unwrap();
    let (bad, what) = plant_in_netlist(GateTarget::Generic, &text);
    std::fs::write(&gate_file, bad).unwrap();
    let top = ccrtl_hdl::emit::top_module(B::NAME);
    let planted = gate::equivalence(&r.netlist, &top, 5).unwrap();
    eprintln!(
        "{}: clean {} of {} unproven ({:.0} s); planted ({what}) {} of {} unproven ({:.0} s)",
        B::NAME,
        clean.unproven,
        clean.cells,
        clean.seconds,
        planted.unproven,
        planted.cells,
        planted.seconds
    );
    assert!(!planted.proven());
    assert!(
        planted.unproven > clean.unproven,
        "the planted bug left no new unproven cell"
    );
}

/// Instantiates the suite for a block implementing [`BlockTests`].
#[macro_export]
macro_rules! conformance_suite {
    ($b:ty) => {
        mod conformance {
            use super::*;
            use $crate::common::conformance as c;

            #[test]
            fn every_shape_emits_lints_and_has_the_struct_ports() {
                c::every_shape_emits_lints_and_has_the_struct_ports::<$b>();
            }
            #[test]
            fn golden_encoding_fits_the_struct_ports_on_every_shape() {
                c::golden_encoding_fits_the_struct_ports_on_every_shape::<$b>();
            }
            #[test]
            fn rotating_shapes_with_random_reset_values_match_golden() {
                c::rotating_shapes_with_random_reset_values_match_golden::<$b>(2, 1_000_000);
            }
            #[test]
            #[ignore = "deep tier: make test-deep"]
            fn every_shape_with_random_reset_values_matches_golden_deep() {
                c::rotating_shapes_with_random_reset_values_match_golden::<$b>(
                    <$b as ccrtl_sim::block::Block>::menu().len(),
                    2_000_000,
                );
            }
            #[test]
            fn golden_rusthdl_and_verilator_agree_cycle_by_cycle() {
                c::golden_rusthdl_and_verilator_agree::<$b>(
                    <$b as c::BlockTests>::HDL_CYCLES,
                    false,
                );
            }
            #[test]
            #[ignore = "deep tier: make test-deep"]
            fn golden_rusthdl_and_verilator_agree_cycle_by_cycle_deep() {
                c::golden_rusthdl_and_verilator_agree::<$b>(c::HDL_CYCLES_DEEP, true);
            }
            #[test]
            fn a_mismatch_is_reported_with_its_vcd() {
                c::a_mismatch_is_reported_with_its_vcd::<$b>();
            }
            #[test]
            fn proptest_golden_and_verilator_are_equivalent() {
                c::proptest_golden_and_verilator_are_equivalent::<$b>(300);
            }
            #[test]
            fn proptest_shrinks_a_planted_bug_to_a_short_trace_with_its_vcd() {
                c::proptest_shrinks_a_planted_bug::<$b>();
            }
            #[test]
            fn planted_mutants_sample_is_caught() {
                c::planted_mutants_sample_is_caught::<$b>(c::MUTANT_SAMPLE, c::MUTANT_SAMPLE_CYCLES);
            }
            #[test]
            #[ignore = "deep tier: make test-deep"]
            fn every_planted_mutant_is_caught_or_shown_equivalent() {
                c::every_planted_mutant_is_caught_or_shown_equivalent::<$b>(1_000_000);
            }
            #[test]
            fn listed_deletions_leave_no_signal_undriven() {
                c::listed_deletions_leave_no_signal_undriven::<$b>();
            }
            #[test]
            fn verify_cli_exit_status() {
                c::verify_cli_exit_status::<$b>();
            }
            #[test]
            fn bad_parameters_are_refused_by_name() {
                c::bad_parameters_are_refused_by_name::<$b>();
            }
            #[test]
            fn replay_engines_agree() {
                c::replay_engines_agree::<$b>();
            }
            #[test]
            fn netlist_of_a_rotating_target_matches_golden() {
                if c::netlist_drawn::<$b>() {
                    c::netlists_match_golden::<$b>(&[c::rotating_target()], 20_000);
                }
            }
            #[test]
            #[ignore = "deep tier: make test-deep"]
            fn netlists_of_every_target_match_golden_deep() {
                c::netlists_match_golden::<$b>(&c::GateTarget::ALL, 200_000);
            }
            #[test]
            #[ignore = "deep tier: make test-deep (CI budget)"]
            fn a_bug_planted_in_the_generic_netlist_is_caught() {
                c::a_bug_planted_in_a_netlist_is_caught::<$b>(&[c::GateTarget::Generic]);
            }
            #[test]
            #[ignore = "deep tier: make test-deep"]
            fn a_bug_planted_in_an_ecp5_or_ice40_netlist_is_caught() {
                c::a_bug_planted_in_a_netlist_is_caught::<$b>(&[
                    c::GateTarget::Ecp5,
                    c::GateTarget::Ice40,
                ]);
            }
            #[test]
            #[ignore = "deep tier: make test-deep"]
            fn equivalence_check_sees_a_planted_netlist_bug() {
                c::equivalence_check_sees_a_planted_netlist_bug::<$b>();
            }
        }
    };
}
