//! [`Param`]: a generation-time constant of a block (a reset value), emitted
//! as a Verilog `localparam` exactly as rust-hdl's `Constant`, but with
//! `Default` (zero), so that a block derives `Default` and its constructor
//! sets only its constants: `Self { reset_x: Param::new(v), ..Default::default() }`.

use rust_hdl::prelude::*;

#[derive(Clone, Copy, Debug)]
pub struct Param<T: Synth>(Constant<T>);

impl<T: Synth> Param<T> {
    pub fn new(val: T) -> Param<T> {
        Param(Constant::new(val))
    }
    /// The value (usable in HDL kernels, like `Constant::val`).
    pub fn val(&self) -> T {
        self.0.val()
    }
}

impl<T: Synth + Default> Default for Param<T> {
    fn default() -> Self {
        Param::new(T::default())
    }
}

impl<T: Synth> Logic for Param<T> {
    fn update(&mut self) {}
    fn connect(&mut self) {}
}

impl<T: Synth> rust_hdl::core::block::Block for Param<T> {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        self.0.accept(name, probe);
    }
}
