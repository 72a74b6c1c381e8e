//! Cycle-by-cycle driving of a block in rust-hdl's own simulator.
//!
//! One call of [`CycleSim::cycle`] is one clock cycle with the same timing as
//! the golden models' `step`: the inputs are applied while the clock is low,
//! the outputs are read just before the rising edge, then the edge is taken.

/// A block under simulation, one cycle at a time.
pub trait CycleSim<I, O> {
    fn cycle(&mut self, inputs: &I) -> O;
}

/// Delta cycles allowed for the logic to settle in one clock phase.
pub const MAX_ITERS: usize = 100;
