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
