//! Cycle-by-cycle lockstep of a golden model and one or more designs under
//! test, comparing every output port every cycle.
//!
//! On the first mismatching cycle every differing port is reported (cycle,
//! design, signal, expected, actual); the run goes on for
//! [`RunOptions::after`] cycles and stops, and a VCD of the
//! [`RunOptions::before`] cycles before the mismatch to the end is written.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::block::{Block, Coverage, Stimulus};
use crate::ports::{self, Dir, Port};
use crate::vcd::VcdTrace;
use crate::verilator;

/// A design under test, one cycle per call.
pub trait Dut<B: Block> {
    fn name(&self) -> &str;
    /// Runs one cycle with inputs `i` (also given encoded, one value per
    /// input port) and writes one value per output port.
    fn cycle(&mut self, i: &B::In, inputs: &[u128], outputs: &mut [u128]);
}

/// A Verilator model as a design under test.
pub struct VerilatorDut {
    inst: verilator::Instance,
    ins: Vec<Port>,
    outs: Vec<Port>,
    in_words: Vec<u32>,
    out_words: Vec<u32>,
}

impl VerilatorDut {
    pub fn new(model: &verilator::Model, ports: &[Port]) -> VerilatorDut {
        let ins: Vec<Port> = ports.iter().filter(|p| p.dir == Dir::In).copied().collect();
        let outs: Vec<Port> = ports
            .iter()
            .filter(|p| p.dir == Dir::Out)
            .copied()
            .collect();
        VerilatorDut {
            inst: model.instantiate(),
            in_words: vec![0; verilator::words_of(ports, Dir::In)],
            out_words: vec![0; verilator::words_of(ports, Dir::Out)],
            ins,
            outs,
        }
    }

    /// One cycle on encoded values.
    pub fn cycle_values(&mut self, inputs: &[u128], outputs: &mut [u128]) {
        ports::pack(&self.ins, inputs, &mut self.in_words);
        self.inst.cycle(&self.in_words, &mut self.out_words);
        ports::unpack(&self.outs, &self.out_words, outputs);
    }
}

impl<B: Block> Dut<B> for VerilatorDut {
    fn name(&self) -> &str {
        "verilator"
    }
    fn cycle(&mut self, _i: &B::In, inputs: &[u128], outputs: &mut [u128]) {
        self.cycle_values(inputs, outputs)
    }
}

/// A rust-hdl simulation as a design under test.
pub struct HdlDut<B: Block>(pub Box<dyn ccrtl_hdl::sim::CycleSim<B::In, B::Out>>);

impl<B: Block> Dut<B> for HdlDut<B> {
    fn name(&self) -> &str {
        "rust-hdl"
    }
    fn cycle(&mut self, i: &B::In, _inputs: &[u128], outputs: &mut [u128]) {
        let o = self.0.cycle(i);
        B::encode_out(&o, outputs);
    }
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub cycles: u64,
    /// Where to write the VCD of the cycles around a mismatch.
    pub mismatch_vcd: Option<PathBuf>,
    /// Where to write the VCD of the whole run.
    pub full_vcd: Option<PathBuf>,
    /// Cycles kept before a mismatch for its VCD.
    pub before: usize,
    /// Cycles run after the first mismatch before stopping.
    pub after: u64,
    /// Show a progress bar (only on a terminal, never under CI).
    pub progress: bool,
}

impl RunOptions {
    pub fn new(cycles: u64) -> RunOptions {
        RunOptions {
            cycles,
            mismatch_vcd: None,
            full_vcd: None,
            before: 64,
            after: 16,
            progress: false,
        }
    }
}

/// One output port that differed in one cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub dut: String,
    pub signal: &'static str,
    pub expected: u128,
    pub actual: u128,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cycle {}: {} signal `{}` expected {:#x} actual {:#x}",
            self.cycle, self.dut, self.signal, self.expected, self.actual
        )
    }
}

#[derive(Debug, Clone)]
pub struct Report {
    pub block: &'static str,
    /// Cycles compared.
    pub cycles: u64,
    /// Mismatching (cycle, design, port) triples seen before stopping.
    pub mismatches: u64,
    /// The differing ports of the first mismatching cycle.
    pub first: Vec<Mismatch>,
    pub coverage: Coverage,
    pub elapsed: Duration,
    /// The VCD written around the first mismatch, if any.
    pub mismatch_vcd: Option<PathBuf>,
}

impl Report {
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

struct Sample {
    cycle: u64,
    inputs: Vec<u128>,
    expected: Vec<u128>,
    actual: Vec<Vec<u128>>,
}

/// Runs `duts` against the golden model of `config` for `opts.cycles`
/// cycles of the stimulus seeded with `seed`.
pub fn run<B: Block>(
    config: &B::Config,
    seed: u64,
    duts: &mut [&mut dyn Dut<B>],
    opts: &RunOptions,
) -> std::io::Result<Report> {
    let mut stim = B::Stimulus::new(config, seed);
    run_with(config, &mut |g| stim.next(g), duts, opts)
}

/// As [`run`], with any stimulus source (a replayed file, a proptest case).
pub fn run_with<B: Block>(
    config: &B::Config,
    stimulus: &mut dyn FnMut(&B::Golden) -> B::In,
    duts: &mut [&mut dyn Dut<B>],
    opts: &RunOptions,
) -> std::io::Result<Report> {
    let ports = B::ports(config);
    let n_in = ports.iter().filter(|p| p.dir == Dir::In).count();
    let outs: Vec<Port> = ports
        .iter()
        .filter(|p| p.dir == Dir::Out)
        .copied()
        .collect();
    let mut golden = B::golden(config);
    let mut cov = Coverage::new(B::coverage_points());
    let mut inputs = vec![0u128; n_in];
    let mut expected = vec![0u128; outs.len()];
    let mut actual = vec![vec![0u128; outs.len()]; duts.len()];
    let ring_len = opts.before + 1;
    let mut ring: std::collections::VecDeque<Sample> =
        std::collections::VecDeque::with_capacity(ring_len);
    let mut full = match &opts.full_vcd {
        Some(p) => Some(VcdTrace::create(p, B::NAME, &ports)?),
        None => None,
    };
    let bar = progress_bar(opts);

    let start = Instant::now();
    let mut mismatches = 0u64;
    let mut first: Vec<Mismatch> = vec![];
    let mut stop_at: Option<u64> = None;
    let mut window: Vec<Sample> = vec![];
    let mut cycle = 0u64;
    while cycle < opts.cycles && stop_at.is_none_or(|s| cycle < s) {
        let i = stimulus(&golden);
        B::cover(&golden, &i, &mut cov);
        B::encode_in(&i, &mut inputs);
        let o = B::golden_step(&mut golden, &i);
        B::encode_out(&o, &mut expected);
        let mut bad_dut = None;
        for (d, dut) in duts.iter_mut().enumerate() {
            dut.cycle(&i, &inputs, &mut actual[d]);
            if actual[d] != expected {
                bad_dut.get_or_insert(d);
                for (k, p) in outs.iter().enumerate() {
                    if actual[d][k] != expected[k] {
                        mismatches += 1;
                        if stop_at.is_none() {
                            first.push(Mismatch {
                                cycle,
                                dut: dut.name().to_string(),
                                signal: p.name,
                                expected: expected[k],
                                actual: actual[d][k],
                            });
                        }
                    }
                }
            }
        }
        if let Some(f) = full.as_mut() {
            f.cycle(cycle, &inputs, &expected, &actual[bad_dut.unwrap_or(0)])?;
        }
        let sample = || Sample {
            cycle,
            inputs: inputs.clone(),
            expected: expected.clone(),
            actual: actual.clone(),
        };
        if stop_at.is_some() {
            window.push(sample());
        } else if bad_dut.is_some() {
            stop_at = Some(cycle + 1 + opts.after);
            window.extend(ring.drain(..));
            window.push(sample());
        } else if ring_len > 1 {
            if ring.len() == ring_len - 1 {
                // Reuse the oldest slot's buffers.
                let mut s = ring.pop_front().expect("ring is full");
                s.cycle = cycle;
                s.inputs.copy_from_slice(&inputs);
                s.expected.copy_from_slice(&expected);
                for (a, b) in s.actual.iter_mut().zip(&actual) {
                    a.copy_from_slice(b);
                }
                ring.push_back(s);
            } else {
                ring.push_back(sample());
            }
        }
        cycle += 1;
        if let Some(b) = &bar {
            if cycle % 65536 == 0 {
                b.set_position(cycle);
            }
        }
    }
    let elapsed = start.elapsed();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(f) = full {
        f.finish(cycle)?;
    }
    let mut mismatch_vcd = None;
    if let (Some(path), Some(m)) = (&opts.mismatch_vcd, first.first()) {
        let d = duts.iter().position(|d| d.name() == m.dut).unwrap_or(0);
        let mut t = VcdTrace::create(path, B::NAME, &ports)?;
        for s in &window {
            t.cycle(s.cycle, &s.inputs, &s.expected, &s.actual[d])?;
        }
        mismatch_vcd = Some(t.finish(cycle)?);
    }
    Ok(Report {
        block: B::NAME,
        cycles: cycle,
        mismatches,
        first,
        coverage: cov,
        elapsed,
        mismatch_vcd,
    })
}

fn progress_bar(opts: &RunOptions) -> Option<indicatif::ProgressBar> {
    if !opts.progress || std::env::var_os("CI").is_some() || !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new(opts.cycles);
    b.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cycles {per_sec} eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(b)
}
