//! Bit-exact, integer-only golden models of the ccrtl blocks.
//!
//! Each block has one model with one `step` per clock cycle. A model is
//! written from the algorithm (`../shared/ALGORITHMS.md` and the seed it
//! cites), never from the RTL: the RTL is checked against it, cycle by cycle.
//! No floating point is used in a model; the float references of the
//! published equations live in `reference` submodules beside them and are
//! used only by tests that measure the error between the two.
//!
//! This crate has no HDL dependency, so users can take it alone as the
//! reference for their own implementations.

pub mod cfr_cam;
pub mod cp;
pub mod crd;
pub mod dctcp_rx;
pub mod dctcp_tx;
pub mod ldcp_rx;
pub mod ldcp_tx;
pub mod error;
pub mod flow_shape;
pub mod nic;
pub mod np;
pub mod pacer;
pub mod rcc_sched;
pub mod register;
pub mod rp;
pub mod sar;
pub mod switch_port;
pub mod timely;
pub mod xorshift;

pub use error::ParamError;

/// The low `bits` bits set (all 32 from 32 up): a register's or port's
/// width as a mask, shared by the models.
pub(crate) fn mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}
