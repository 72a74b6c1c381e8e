//! Cycle-by-cycle lockstep of a golden model and one or more designs under
//! test, comparing every output port every cycle.
//!
//! The run goes in batches: the stimulus and the golden model produce a
//! batch of cycles (packed input words, packed expected output words), each
//! design runs the whole batch (the Verilator model in one FFI call), then
//! the outputs are compared word for word.
//!
//! Stimulus discipline, for every block: whatever the block's contract says
//! it ignores is random. A payload port of a stream (`s_<x>_<field>` beside
//! `s_<x>_valid`) carries a fresh random value in every cycle where its valid
//! is low or the reset is high ([`crate::ports::cares`]); the golden model
//! sees the same values.
//!
//! Outputs are compared from the cycle after the first reset cycle: before
//! it the Verilator model's registers hold their random power-up values.
//!
//! On the first mismatching cycle every differing port is reported (cycle,
//! design, signal, expected, actual); the run goes on for
//! [`RunOptions::after`] cycles and stops, and a VCD of the
//! [`RunOptions::before`] cycles before the mismatch to the end is written.
//! A VCD that cannot be written leaves the mismatch reported, with a warning.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::block::{Block, Coverage, Stimulus};
use crate::ports::{self, Care, Dir, Port};
use crate::rng::Rng;
use crate::vcd::VcdTrace;
use crate::verilator::{self, DesignStop};

/// A design under test, a batch of cycles per call.
pub trait Dut<B: Block> {
    fn name(&self) -> &str;
    /// Runs `n` cycles. `in_words` holds the inputs packed (one packed
    /// array per cycle), `ins` the same as structs (kept only if some
    /// design [`Dut::uses_structs`]); `out_words` receives the packed outputs. If the
    /// design stops itself in cycle `k` of the batch, the outputs of cycles
    /// `0..k` are valid and `Err((k, why))` is returned.
    fn run(
        &mut self,
        n: usize,
        ins: &[B::In],
        in_words: &[u32],
        out_words: &mut [u32],
    ) -> Result<(), (usize, DesignStop)>;
    /// Whether [`Dut::run`] reads `ins`; when no design does, the lockstep
    /// does not keep the inputs as structs.
    fn uses_structs(&self) -> bool {
        true
    }
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
    /// An instance of `model` whose power-up state is drawn with `seed`.
    pub fn new(model: &verilator::Model, ports: &[Port], seed: u32) -> VerilatorDut {
        let ins: Vec<Port> = ports.iter().filter(|p| p.dir == Dir::In).copied().collect();
        let outs: Vec<Port> = ports
            .iter()
            .filter(|p| p.dir == Dir::Out)
            .copied()
            .collect();
        VerilatorDut {
            inst: model.instantiate(seed),
            in_words: vec![0; verilator::words_of(ports, Dir::In)],
            out_words: vec![0; verilator::words_of(ports, Dir::Out)],
            ins,
            outs,
        }
    }

    /// The seed of the instance's random power-up state.
    pub fn seed(&self) -> u32 {
        self.inst.seed()
    }

    /// One cycle on encoded values.
    pub fn cycle_values(
        &mut self,
        inputs: &[u128],
        outputs: &mut [u128],
    ) -> Result<(), DesignStop> {
        ports::pack(&self.ins, inputs, &mut self.in_words);
        self.inst.cycle(&self.in_words, &mut self.out_words)?;
        ports::unpack(&self.outs, &self.out_words, outputs);
        Ok(())
    }
}

impl<B: Block> Dut<B> for VerilatorDut {
    fn name(&self) -> &str {
        "verilator"
    }
    fn run(
        &mut self,
        n: usize,
        _ins: &[B::In],
        in_words: &[u32],
        out_words: &mut [u32],
    ) -> Result<(), (usize, DesignStop)> {
        self.inst.cycles(n, in_words, out_words)
    }
    fn uses_structs(&self) -> bool {
        false
    }
}

/// A rust-hdl simulation as a design under test.
pub struct HdlDut<B: Block> {
    sim: Box<dyn ccrtl_hdl::sim::CycleSim<B::In, B::Out>>,
    outs: Vec<Port>,
    values: Vec<u128>,
}

impl<B: Block> HdlDut<B> {
    pub fn new(
        config: &B::Config,
        sim: Box<dyn ccrtl_hdl::sim::CycleSim<B::In, B::Out>>,
    ) -> HdlDut<B> {
        let outs: Vec<Port> = B::ports(config)
            .into_iter()
            .filter(|p| p.dir == Dir::Out)
            .collect();
        HdlDut {
            sim,
            values: vec![0; outs.len()],
            outs,
        }
    }
}

impl<B: Block> Dut<B> for HdlDut<B> {
    fn name(&self) -> &str {
        "rust-hdl"
    }
    fn run(
        &mut self,
        n: usize,
        ins: &[B::In],
        _in_words: &[u32],
        out_words: &mut [u32],
    ) -> Result<(), (usize, DesignStop)> {
        let w = out_words.len() / n.max(1);
        for (k, i) in ins[..n].iter().enumerate() {
            let o = self.sim.cycle(i);
            B::encode_out(&o, &mut self.values);
            ports::pack(&self.outs, &self.values, &mut out_words[k * w..(k + 1) * w]);
        }
        Ok(())
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
    /// Seed of the random values driven into don't-care inputs; `None`
    /// leaves the stimulus' values as they are (replaying a file).
    pub dont_care_seed: Option<u64>,
    /// Cycles per batch.
    pub batch: usize,
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
            dont_care_seed: Some(0x00d0_c0de),
            batch: 1024,
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
    /// Cycles run.
    pub cycles: u64,
    /// Cycles whose outputs were compared (those after the first reset).
    pub compared: u64,
    /// Mismatching (cycle, design, port) triples seen before stopping.
    pub mismatches: u64,
    /// The differing ports of the first mismatching cycle.
    pub first: Vec<Mismatch>,
    pub coverage: Coverage,
    pub elapsed: Duration,
    /// Of `elapsed`, the time spent inside the designs (`Dut::run`).
    pub dut_time: Duration,
    /// The VCD written around the first mismatch, if any.
    pub mismatch_vcd: Option<PathBuf>,
    /// Why the mismatch VCD could not be written.
    pub vcd_warning: Option<String>,
    /// A design ended the run itself: the cycle, the design, and why.
    pub design_stop: Option<(u64, String, DesignStop)>,
}

impl Report {
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A batch of cycles as packed words.
struct Batch<I> {
    start: u64,
    n: usize,
    ins: Vec<I>,
    in_words: Vec<u32>,
    expected: Vec<u32>,
    /// One packed output array per design.
    actual: Vec<Vec<u32>>,
}

/// Runs `duts` against the golden model of `config` for `opts.cycles`
/// cycles of the stimulus seeded with `seed`. An error is a VCD that could
/// not be written, or (kind `Other`, nothing else gives it) a stimulus value
/// that does not fit its input port.
pub fn run<B: Block>(
    config: &B::Config,
    seed: u64,
    duts: &mut [&mut dyn Dut<B>],
    opts: &RunOptions,
) -> std::io::Result<Report> {
    let mut stim = B::Stimulus::new(config, seed);
    let mut opts = opts.clone();
    if opts.dont_care_seed.is_some() {
        opts.dont_care_seed = Some(seed ^ 0x5eed_d0c0_dec0_ffee);
    }
    run_with::<B, _>(
        config,
        &mut |g: &B::Golden, i: &mut B::In| stim.next_into(g, i),
        duts,
        &opts,
    )
}

/// As [`run`], with any stimulus source (a replayed file, a proptest case):
/// `stimulus(g, i)` writes the next cycle's inputs into `i` (at its defaults).
pub fn run_with<B: Block, S: FnMut(&B::Golden, &mut B::In)>(
    config: &B::Config,
    stimulus: &mut S,
    duts: &mut [&mut dyn Dut<B>],
    opts: &RunOptions,
) -> std::io::Result<Report> {
    let ports = B::ports(config);
    let ins: Vec<Port> = ports.iter().filter(|p| p.dir == Dir::In).copied().collect();
    let outs: Vec<Port> = ports
        .iter()
        .filter(|p| p.dir == Dir::Out)
        .copied()
        .collect();
    let iw = verilator::words_of(&ports, Dir::In);
    let ow = verilator::words_of(&ports, Dir::Out);
    let cares = ports::cares(&ins);
    let (in_layout, out_layout) = (ports::Layout::new(&ins), ports::Layout::new(&outs));
    let reset = ins.iter().position(|p| p.name == B::RESET);
    // The packed word that holds the 1-bit reset input.
    let reset_word: Option<usize> = reset.map(|x| ins[..x].iter().map(|p| p.words()).sum());
    let mut dont_care = opts
        .dont_care_seed
        .map(|seed| DontCare::new(&ins, &cares, reset, seed));
    let bsize = opts.batch.max(1);

    let mut golden = B::golden(config);
    let mut cov = Coverage::new(B::coverage_points(), B::coverage_applies(config));
    let mut out_values = vec![0u128; outs.len()];
    // The batch's encoded values, one row per cycle, packed after the
    // batch's last cycle in one pass.
    let (nin, nout) = (ins.len(), outs.len());
    let mut in_rows = vec![0u128; bsize * nin.max(1)];
    let mut out_rows = vec![0u128; bsize * nout.max(1)];
    let mut act_values = vec![0u128; outs.len()];
    let mut full = match &opts.full_vcd {
        Some(p) => Some(VcdTrace::create(p, B::NAME, &ports)?),
        None => None,
    };
    let bar = progress_bar(opts);
    let keep = opts.before.div_ceil(bsize) + 1;
    let n_duts = duts.len();
    let keep_structs = duts.iter().any(|d| d.uses_structs());
    let mut history: VecDeque<Batch<B::In>> = VecDeque::new();
    let new_batch = || Batch {
        start: 0,
        n: 0,
        ins: Vec::with_capacity(bsize),
        in_words: vec![0u32; bsize * iw],
        expected: vec![0u32; bsize * ow],
        actual: vec![vec![0u32; bsize * ow]; n_duts],
    };

    let start = Instant::now();
    let mut dut_time = Duration::ZERO;
    let mut mismatches = 0u64;
    let mut first: Vec<Mismatch> = vec![];
    let mut first_dut = 0usize;
    let mut stop_at: Option<u64> = None;
    let mut design_stop = None;
    // Outputs are compared once a reset cycle has run (from the start for a
    // block without a reset input).
    let mut armed = reset.is_none();
    let mut compared_from: Option<u64> = armed.then_some(0);
    let mut trace = TraceWriter::new(&ins, &outs);
    let mut prev = B::In::default();
    let mut compared = 0u64;
    let mut cycle = 0u64;
    while cycle < opts.cycles && stop_at.is_none_or(|s| cycle < s) && design_stop.is_none() {
        let mut limit = opts.cycles - cycle;
        if let Some(s) = stop_at {
            limit = limit.min(s - cycle);
        }
        let n = (bsize as u64).min(limit) as usize;
        let mut b = if stop_at.is_none() && history.len() >= keep {
            history.pop_front().expect("history is not empty")
        } else {
            new_batch()
        };
        b.start = cycle;
        b.n = n;
        b.ins.clear();
        // Fresh random values for the don't-care inputs of this batch.
        if let Some(dc) = dont_care.as_mut() {
            dc.refill();
        }
        // Stimulus and golden model. Each cycle's inputs are built in a
        // local, completed (don't-care values) and checked there, and kept
        // in the batch once.
        for ((k, vals), ovals) in in_rows
            .chunks_exact_mut(nin.max(1))
            .take(n)
            .enumerate()
            .zip(out_rows.chunks_exact_mut(nout.max(1)))
        {
            let (vals, ovals) = (&mut vals[..nin], &mut ovals[..nout]);
            let mut i = B::In::default();
            stimulus(&golden, &mut i);
            B::encode_in(&i, vals);
            // A value wider than its port would reach the Verilator model
            // unmasked (its port variables are wider than the port) while
            // the golden model masks it: the two would see different inputs.
            if let Some(j) = (0..nin).find(|&j| ins[j].width < 128 && vals[j] >> ins[j].width != 0)
            {
                return Err(std::io::Error::other(format!(
                    "{}: the stimulus drove {} into input `{}` ({} bits) in cycle {}; \
                     every value must fit its port (a bug of the stimulus)",
                    B::NAME,
                    vals[j],
                    ins[j].name,
                    ins[j].width,
                    cycle + k as u64
                )));
            }
            if let Some(dc) = &dont_care {
                if dc.complete(k, vals) {
                    i = B::decode_in(vals);
                }
            }
            B::cover(&golden, &prev, &i, &mut cov);
            let o = B::golden_step(&mut golden, &i);
            B::encode_out(&o, ovals);
            if keep_structs {
                b.ins.push(i);
            }
            prev = i;
        }
        in_layout.pack_rows(&in_rows[..n * nin], &mut b.in_words[..n * iw]);
        out_layout.pack_rows(&out_rows[..n * nout], &mut b.expected[..n * ow]);
        // The designs.
        let mut ran = n;
        let dut_start = Instant::now();
        for (d, dut) in duts.iter_mut().enumerate() {
            if let Err((k, why)) = dut.run(
                n,
                &b.ins[..b.ins.len().min(n)],
                &b.in_words[..n * iw],
                &mut b.actual[d][..n * ow],
            ) {
                if k < ran || design_stop.is_none() {
                    ran = ran.min(k);
                    design_stop = Some((cycle + k as u64, dut.name().to_string(), why));
                }
            }
        }
        dut_time += dut_start.elapsed();
        // Compare. Mostly every design matches the whole batch: one
        // comparison of the batch's words, and no work per cycle (unless
        // the whole run goes to a VCD, or the comparison is not armed yet).
        let whole_batch_matches = armed
            && stop_at.is_none()
            && full.is_none()
            && b.actual
                .iter()
                .all(|a| a[..ran * ow] == b.expected[..ran * ow]);
        if whole_batch_matches {
            compared += ran as u64;
        }
        for k in 0..if whole_batch_matches { 0 } else { ran } {
            let c = cycle + k as u64;
            if stop_at.is_some_and(|s| c >= s) {
                ran = k;
                break;
            }
            let exp = &b.expected[k * ow..(k + 1) * ow];
            if armed {
                compared += 1;
                for (d, dut) in duts.iter().enumerate() {
                    let act = &b.actual[d][k * ow..(k + 1) * ow];
                    // A few words: a loop beats a call to memcmp.
                    if act.iter().zip(exp).all(|(a, e)| a == e) {
                        continue;
                    }
                    ports::unpack(&outs, exp, &mut out_values);
                    ports::unpack(&outs, act, &mut act_values);
                    for (j, p) in outs.iter().enumerate() {
                        if act_values[j] != out_values[j] {
                            mismatches += 1;
                            if stop_at.is_none() {
                                first.push(Mismatch {
                                    cycle: c,
                                    dut: dut.name().to_string(),
                                    signal: p.name,
                                    expected: out_values[j],
                                    actual: act_values[j],
                                });
                            }
                        }
                    }
                    if stop_at.is_none() {
                        first_dut = d;
                    }
                }
                if stop_at.is_none() && !first.is_empty() {
                    stop_at = Some(c + 1 + opts.after);
                }
            }
            if let Some(f) = full.as_mut() {
                trace.cycle(f, &b, k, first_dut, compared_from)?;
            }
            if !armed && reset_word.is_some_and(|w| b.in_words[k * iw + w] & 1 == 1) {
                armed = true;
                compared_from = Some(c + 1);
            }
        }
        let ran_batch = ran;
        b.n = ran_batch;
        cycle += ran_batch as u64;
        history.push_back(b);
        if let Some(bar) = &bar {
            bar.set_position(cycle);
        }
        if stop_at.is_some_and(|s| cycle >= s) {
            break;
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
    let mut vcd_warning = None;
    if let (Some(path), Some(m)) = (&opts.mismatch_vcd, first.first()) {
        let from = m.cycle.saturating_sub(opts.before as u64);
        let written = (|| -> std::io::Result<PathBuf> {
            let mut t = VcdTrace::create(path, B::NAME, &ports)?;
            for b in &history {
                for k in 0..b.n {
                    if b.start + k as u64 >= from {
                        trace.cycle(&mut t, b, k, first_dut, compared_from)?;
                    }
                }
            }
            t.finish(cycle)
        })();
        match written {
            Ok(p) => mismatch_vcd = Some(p),
            Err(e) => {
                vcd_warning = Some(format!(
                    "the VCD of the mismatch could not be written to {}: {e}",
                    path.display()
                ))
            }
        }
    }
    Ok(Report {
        block: B::NAME,
        cycles: cycle,
        compared,
        mismatches,
        first,
        coverage: cov,
        elapsed,
        dut_time,
        mismatch_vcd,
        vcd_warning,
        design_stop,
    })
}

/// Random values for the don't-care inputs (the module comment): a table
/// of `POOL` values per payload port, drawn once a batch and used in a
/// rotating order (cheaper than a draw per port per cycle; every value is
/// still random and changes cycle to cycle). Cycle `k` of a batch gives
/// payload port `g` (counted over the payload ports) entry
/// `(37 k + offset + 11 g) mod POOL` of its table.
struct DontCare {
    rng: Rng,
    /// Index of the reset input.
    reset: Option<usize>,
    /// The payload ports as runs of consecutive ports of one stream.
    runs: Vec<Run>,
    /// Every payload port as (run, index in it), in port order: the order
    /// the tables are drawn in.
    order: Vec<(usize, usize)>,
    /// Where this batch's cycles start in the tables.
    offset: usize,
    /// Largest value of every input port.
    max: Vec<u128>,
}

const POOL: usize = 64;

/// Consecutive payload ports gated by one valid.
struct Run {
    valid: usize,
    first: usize,
    n: usize,
    /// The ports' tables as `POOL` rows of `n` values, each port's table
    /// rotated by its `11 g`: in cycle `k` the ports take row
    /// `(37 k + offset) mod POOL` as it is.
    rows: Vec<u128>,
}

impl DontCare {
    fn new(ins: &[Port], cares: &[Care], reset: Option<usize>, seed: u64) -> DontCare {
        let mut runs: Vec<Run> = vec![];
        let mut order = vec![];
        for (j, c) in cares.iter().enumerate() {
            let Care::Gated(v) = *c else { continue };
            match runs.last_mut() {
                Some(r) if r.valid == v && r.first + r.n == j => r.n += 1,
                _ => runs.push(Run {
                    valid: v,
                    first: j,
                    n: 1,
                    rows: vec![],
                }),
            }
            let r = runs.len() - 1;
            order.push((r, runs[r].n - 1));
        }
        for r in &mut runs {
            r.rows = vec![0; POOL * r.n];
        }
        DontCare {
            rng: Rng::new(seed),
            reset,
            runs,
            order,
            offset: 0,
            max: ins.iter().map(|p| p.max()).collect(),
        }
    }

    /// New tables for the next batch.
    fn refill(&mut self) {
        let r = &mut self.rng;
        let mut table = [0u128; POOL];
        for (g, &(run, q)) in self.order.iter().enumerate() {
            let run = &mut self.runs[run];
            let max = self.max[run.first + q];
            for x in table.iter_mut() {
                let mut v = r.next_u64() as u128;
                if max > u64::MAX as u128 {
                    v |= (r.next_u64() as u128) << 64;
                }
                *x = v & max;
            }
            for (e, row) in run.rows.chunks_exact_mut(run.n).enumerate() {
                row[q] = table[(e + g * 11) & (POOL - 1)];
            }
        }
        self.offset = r.next_u32() as usize;
    }

    /// Gives the don't-care inputs of cycle `k` of the batch (`values`, one
    /// per input port) their random values; whether any changed.
    #[inline]
    fn complete(&self, k: usize, values: &mut [u128]) -> bool {
        let in_reset = self.reset.is_some_and(|x| values[x] != 0);
        let mut changed = false;
        let e = k.wrapping_mul(37).wrapping_add(self.offset) & (POOL - 1);
        for r in &self.runs {
            if in_reset || values[r.valid] == 0 {
                let row = &r.rows[e * r.n..(e + 1) * r.n];
                for (v, &x) in values[r.first..r.first + r.n].iter_mut().zip(row) {
                    *v = x;
                }
                changed = true;
            }
        }
        changed
    }
}

/// Writes batches' cycles to a VCD: the actual outputs of one design, shown
/// equal to the expected ones before the first compared cycle.
struct TraceWriter<'a> {
    ins: &'a [Port],
    outs: &'a [Port],
    iw: usize,
    ow: usize,
    i: Vec<u128>,
    e: Vec<u128>,
    a: Vec<u128>,
}

impl<'a> TraceWriter<'a> {
    fn new(ins: &'a [Port], outs: &'a [Port]) -> TraceWriter<'a> {
        TraceWriter {
            ins,
            outs,
            iw: ins.iter().map(|p| p.words()).sum(),
            ow: outs.iter().map(|p| p.words()).sum(),
            i: vec![0; ins.len()],
            e: vec![0; outs.len()],
            a: vec![0; outs.len()],
        }
    }

    /// Cycle `k` of batch `b`, the outputs of design `d`, compared from
    /// cycle `from` on (`None`: not yet).
    fn cycle<I>(
        &mut self,
        t: &mut VcdTrace,
        b: &Batch<I>,
        k: usize,
        d: usize,
        from: Option<u64>,
    ) -> std::io::Result<()> {
        let (iw, ow) = (self.iw, self.ow);
        let c = b.start + k as u64;
        ports::unpack(self.ins, &b.in_words[k * iw..(k + 1) * iw], &mut self.i);
        ports::unpack(self.outs, &b.expected[k * ow..(k + 1) * ow], &mut self.e);
        match b.actual.get(d) {
            Some(act) if from.is_some_and(|f| c >= f) => {
                ports::unpack(self.outs, &act[k * ow..(k + 1) * ow], &mut self.a)
            }
            _ => self.a.copy_from_slice(&self.e),
        }
        t.cycle(c, &self.i, &self.e, &self.a)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The don't-care values are those of the first scheme (one table of
    /// `POOL` draws per payload port in port order, then the batch's
    /// offset; cycle `k` gives payload port `g` entry `37 k + offset + 11 g`),
    /// whether a stream's ports are consecutive or not, and only payloads of
    /// streams whose valid is low (or all of them in reset) change.
    #[test]
    fn dont_care_values_follow_the_tables() {
        let ins = [
            Port::input("rst", 1),
            Port::input("s_a_valid", 1),
            Port::input("s_a_x", 14),
            Port::input("s_a_y", 2),
            Port::input("s_b_valid", 1),
            Port::input("s_b_z", 100),
            Port::input("mode", 3),
            Port::input("s_a_w", 24),
        ];
        let cares = ports::cares(&ins);
        let mut dc = DontCare::new(&ins, &cares, Some(0), 99);
        let gated: Vec<usize> = (0..ins.len())
            .filter(|&j| matches!(cares[j], Care::Gated(_)))
            .collect();
        let mut r = Rng::new(99);
        let mut stim = Rng::new(5);
        for _batch in 0..3 {
            dc.refill();
            let mut tables = vec![[0u128; POOL]; gated.len()];
            for (g, &j) in gated.iter().enumerate() {
                for e in 0..POOL {
                    let mut x = r.next_u64() as u128;
                    if ins[j].width > 64 {
                        x |= (r.next_u64() as u128) << 64;
                    }
                    tables[g][e] = x & ins[j].max();
                }
            }
            let offset = r.next_u32() as usize;
            for k in 0..200 {
                let mut values: Vec<u128> = ins
                    .iter()
                    .map(|p| (stim.next_u64() as u128) & p.max())
                    .collect();
                values[0] = stim.chance(20) as u128;
                let before = values.clone();
                let changed = dc.complete(k, &mut values);
                let e = (k * 37 + offset) & (POOL - 1);
                let mut any = false;
                for j in 0..ins.len() {
                    let expect = match cares[j] {
                        Care::Gated(v) if before[0] != 0 || before[v] == 0 => {
                            any = true;
                            let g = gated.iter().position(|&x| x == j).unwrap();
                            tables[g][(e + g * 11) & (POOL - 1)]
                        }
                        _ => before[j],
                    };
                    assert_eq!(values[j], expect, "cycle {k}, port {}", ins[j].name);
                }
                assert_eq!(changed, any);
            }
        }
    }
}
