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

/// The coverage points of a block's front end that every block with a
/// table cleared after reset and a register port shares: resets (mid-run,
/// during the clearing, held), an event and a write in a reset cycle,
/// writes back to back and beside an event, a write to an unused address,
/// an event refused while the table is cleared (right after a reset too).
/// Each field is the point's index in the block's list.
#[derive(Debug, Clone, Copy)]
pub struct FrontPoints {
    pub reset_mid_run: usize,
    pub reset_while_clearing: usize,
    pub reset_held: usize,
    pub event_in_reset: usize,
    pub cfg_in_reset: usize,
    pub cfg_back_to_back: usize,
    pub cfg_with_event: usize,
    /// For a block whose address space has unused addresses.
    pub cfg_ignored: Option<usize>,
    pub refused_while_clearing: usize,
    pub right_after_reset: usize,
}

/// One cycle's front-end inputs ([`FrontPoints`]).
#[derive(Debug, Clone, Copy)]
pub struct Front {
    pub rst: bool,
    /// An event (packet, ACK) presented.
    pub event: bool,
    /// A register write presented.
    pub cfg: bool,
    /// The write's address is one no register has.
    pub cfg_unused: bool,
}

impl FrontPoints {
    /// Hits the front-end points of the cycle about to run, with inputs
    /// `now` after `prev`, `ready` low while the table is cleared. True
    /// when the cycle's event is accepted: the block's own points follow.
    #[inline]
    pub fn cover(&self, cov: &mut Coverage, ready: bool, prev: Front, now: Front) -> bool {
        if now.rst {
            if prev.rst {
                cov.hit(self.reset_held);
            } else if !ready {
                cov.hit(self.reset_while_clearing);
            } else {
                cov.hit(self.reset_mid_run);
            }
            if now.event {
                cov.hit(self.event_in_reset);
            }
            if now.cfg {
                cov.hit(self.cfg_in_reset);
            }
            return false;
        }
        if now.cfg {
            if prev.cfg && !prev.rst {
                cov.hit(self.cfg_back_to_back);
            }
            if now.event {
                cov.hit(self.cfg_with_event);
            }
            if let (true, Some(k)) = (now.cfg_unused, self.cfg_ignored) {
                cov.hit(k);
            }
        }
        if !now.event {
            return false;
        }
        if !ready {
            cov.hit(self.refused_while_clearing);
            if prev.rst {
                cov.hit(self.right_after_reset);
            }
            return false;
        }
        true
    }
}
