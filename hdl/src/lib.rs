//! The rust-hdl blocks of ccrtl and their Verilog emission.
//!
//! Every block is written once, in rust-hdl 0.46, with its structural sizes as
//! const generics. `emit` turns a validated generation-time configuration into
//! one self-contained Verilog file; `sim` runs the same block in rust-hdl's own
//! simulator, the third leg of the lockstep checks.

pub mod cfr_cam;
pub mod cp;
pub mod crd;
pub mod dctcp_rx;
pub mod dctcp_tx;
pub mod emit;
pub mod fwd;
pub mod ldcp_rx;
pub mod ldcp_tx;
pub mod mul;
pub mod nic;
pub mod np;
pub mod pacer;
pub mod param;
pub mod ports;
pub mod ram;
pub mod rcc_sched;
pub mod rp;
pub mod rp_visit;
pub mod sar;
pub mod sim;
pub mod switch_port;
pub mod timely;

/// Runs `f` in a stack frame of its own. Each shape dispatch (the
/// `dispatch_*!` macros) calls its arm through this: without optimisation
/// (the release profile builds this crate at opt-level 0, Cargo.toml) a
/// function's frame holds a slot for the block of every arm, 2 MiB for
/// CP's menu, more than a thread's default stack. With it, the frame holds
/// one block.
#[inline(never)]
pub fn own_frame<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// `raw_verilog`, `sim` and `ports` of a block generic over its flow bits
/// only (`$block<const FB: usize>`, built by `$block::<FB>::new(config)`),
/// dispatched over every flow width of the menu; `$sim` wraps the block as
/// a `CycleSim<$in, $out>`. The caller has `ParamError`, `generate_verilog`
/// and `Logic` in scope.
#[macro_export]
macro_rules! flow_block_glue {
    ($name:literal, $block:ident, $config:ty, $sim:ident, $in:ty, $out:ty) => {
        #[doc = concat!("rust-hdl's Verilog for ", $name, ", as `generate_verilog` writes it.")]
        pub fn raw_verilog(config: &$config) -> Result<String, ParamError> {
            config.validate()?;
            macro_rules! make {
                ($f:literal) => {{
                    let mut b = $block::<$f>::new(config);
                    b.connect_all();
                    generate_verilog(&b)
                }};
            }
            Ok($crate::dispatch_flow_shape!(config.shape, make))
        }

        #[doc = concat!("The rust-hdl ", $name, " block for a configuration.")]
        pub fn sim(
            config: &$config,
        ) -> Result<Box<dyn $crate::sim::CycleSim<$in, $out>>, ParamError> {
            config.validate()?;
            macro_rules! make {
                ($f:literal) => {{
                    let mut b = $block::<$f>::new(config);
                    b.connect_all();
                    Box::new($sim(b)) as Box<dyn $crate::sim::CycleSim<$in, $out>>
                }};
            }
            Ok($crate::dispatch_flow_shape!(config.shape, make))
        }

        #[doc = concat!("The ports of ", $name, " for a validated configuration, read from the struct.")]
        pub fn ports(config: &$config) -> Vec<$crate::ports::HdlPort> {
            macro_rules! make {
                ($f:literal) => {{
                    $crate::ports::ports_of(&$block::<$f>::new(config))
                }};
            }
            $crate::dispatch_flow_shape!(config.shape, make)
        }
    };
}

/// Expands `$make!(FB)` for the run-time flow shape `$shape`
/// (`ccrtl_golden::flow_shape::FlowShape`, the shape of DCTCP_RX, LDCP_RX,
/// DCTCP_TX, LDCP_TX and TIMELY), over every flow width of the menu in
/// `ccrtl_golden::flow_shape_menu!` (the one place the menu is written).
/// The shape must be validated.
#[macro_export]
macro_rules! dispatch_flow_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::flow_shape_menu!([$crate::flow_shape_dispatch_arms] ; $shape, $make)
    };
}

/// One match arm per flow width of the menu (used by `dispatch_flow_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! flow_shape_dispatch_arms {
    (($shape:expr, $make:ident) ; [$($f:literal),*]) => {{
        let shape = $shape;
        match shape.flow_bits {
            $($f => $crate::own_frame(|| $make!($f)),)*
            f => unreachable!("flow_bits {f} passed validation but has no instance"),
        }
    }};
}
