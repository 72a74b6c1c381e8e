//! What the generic machinery (lockstep, VCD, replay, CLI) needs to know of a
//! block. Each block implements [`Block`] once, in `sim/src/<block>.rs`.

use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

/// Named corner-case counters filled while a run checks a block. A point
/// that cannot be reached in the configuration under test (a queue switch
/// with one queue) is counted but never reported as missed or listed.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    points: Vec<(&'static str, u64)>,
    applies: Vec<bool>,
}

impl Coverage {
    /// `applies[i]`: point `i` can be reached in this configuration.
    pub fn new(names: &[&'static str], applies: Vec<bool>) -> Coverage {
        assert_eq!(names.len(), applies.len(), "one flag per coverage point");
        Coverage {
            points: names.iter().map(|&n| (n, 0)).collect(),
            applies,
        }
    }
    #[inline]
    pub fn hit(&mut self, index: usize) {
        self.points[index].1 += 1;
    }
    /// The points of this configuration with their hit counts.
    pub fn points(&self) -> Vec<(&'static str, u64)> {
        self.points
            .iter()
            .zip(&self.applies)
            .filter(|(_, &a)| a)
            .map(|(p, _)| *p)
            .collect()
    }
    /// Names of the points of this configuration never hit.
    pub fn missed(&self) -> Vec<&'static str> {
        self.points()
            .into_iter()
            .filter(|p| p.1 == 0)
            .map(|p| p.0)
            .collect()
    }
}

pub trait Block: 'static {
    /// Name used everywhere: `golden/src/NAME.rs`, `ccrtl_NAME.v`, CLI.
    const NAME: &'static str;
    /// Generation-time configuration (sizes and reset values).
    type Config: Clone + std::fmt::Debug + Send + Sync;
    type In: Copy + Default + std::fmt::Debug;
    type Out: Copy + Default + PartialEq + std::fmt::Debug;
    type Golden: Clone;
    /// Closed-loop random stimulus: may look at the golden model's state to
    /// aim at corners (a depth exactly at a threshold, a full buffer).
    type Stimulus: Stimulus<Self>;

    /// Name of the clock input.
    const CLOCK: &'static str = "clk";
    /// Name of the synchronous reset input (active high). Outputs are
    /// compared from the cycle after the first cycle that asserts it: the
    /// power-up state before it is random in the Verilator model.
    const RESET: &'static str = "rst";

    /// Input ports then output ports, the clock excluded.
    fn ports(config: &Self::Config) -> Vec<Port>;
    fn encode_in(i: &Self::In, values: &mut [u128]);
    fn decode_in(values: &[u128]) -> Self::In;
    fn encode_out(o: &Self::Out, values: &mut [u128]);

    fn golden(config: &Self::Config) -> Self::Golden;
    fn golden_step(g: &mut Self::Golden, i: &Self::In) -> Self::Out;

    /// The finished Verilog file.
    fn verilog(config: &Self::Config) -> String;
    /// The block in rust-hdl's simulator (the third leg of the lockstep).
    fn hdl_sim(config: &Self::Config) -> Box<dyn ccrtl_hdl::sim::CycleSim<Self::In, Self::Out>>;

    /// The configuration without a params file.
    fn default_config() -> Self::Config;
    /// Params text (the block's table) of a configuration whose behaviour
    /// shows within a few ten thousand cycles, for the checks that run that
    /// long (the rust-hdl leg, the netlists, replay, the planted bug of the
    /// mismatch report); empty for the defaults. NP's default takes 65,536
    /// cycles to clear its flow table after reset, so it names a smaller
    /// table.
    const SHORT_PARAMS: &'static str = "";
    /// [`Self::SHORT_PARAMS`] parsed.
    fn short_config() -> Self::Config {
        Self::parse_config(Self::SHORT_PARAMS, "SHORT_PARAMS")
            .expect("a block's SHORT_PARAMS must be a valid params table")
    }
    /// The block's table (`[NAME]`) of a params file, parsed and checked.
    /// `text` is the whole file (other blocks' tables are not looked at
    /// here); `path` names it in errors.
    fn parse_config(text: &str, path: &str) -> Result<Self::Config, ParamsError>;
    /// Every shape of the block's menu, each with its default reset values.
    fn menu() -> Vec<Self::Config>;
    /// `config` with random valid reset values of the runtime registers
    /// (same shape), drawn so that extreme settings appear often.
    fn random_reset(config: &Self::Config, r: &mut Rng) -> Self::Config;
    /// The shape and the reset values, on one line.
    fn describe(config: &Self::Config) -> String;

    /// The corner-case points this block's runs count.
    fn coverage_points() -> &'static [&'static str];
    /// Whether each point can be reached in `config` (all by default).
    fn coverage_applies(config: &Self::Config) -> Vec<bool> {
        let _ = config;
        vec![true; Self::coverage_points().len()]
    }
    /// Counts the points that the cycle about to run (`i` applied to state
    /// `g`, `prev` the inputs of the cycle before) hits.
    fn cover(g: &Self::Golden, prev: &Self::In, i: &Self::In, cov: &mut Coverage);
}

pub trait Stimulus<B: Block + ?Sized> {
    fn new(config: &B::Config, seed: u64) -> Self;
    /// Writes the inputs of the next cycle into `i`, which holds
    /// `B::In::default()`, given the golden model's current state. (Written
    /// in place: the lockstep keeps the inputs where they are built.)
    fn next_into(&mut self, g: &B::Golden, i: &mut B::In);
    /// The inputs of the next cycle.
    fn next(&mut self, g: &B::Golden) -> B::In {
        let mut i = B::In::default();
        self.next_into(g, &mut i);
        i
    }
}
