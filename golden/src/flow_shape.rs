//! The generation-time shape of the per-flow NIC blocks whose only size is
//! the flow count (DCTCP_RX and LDCP_RX, DCTCP_TX, LDCP_TX, TIMELY): one
//! flow table of `F = 2^flow_bits` entries. Each block names it as its own
//! shape (`DctcpTxShape` is this type), so that its configuration reads as
//! the block's; the menu, the default and the check are written here once.

use crate::error::ParamError;

/// The shape menu, written once: the flow-id widths the RTL of these
/// blocks can be generated with. `flow_shape_menu!([callback] ; ARGS)`
/// expands `callback!{ (ARGS) ; [flow widths] }`; the constant below and
/// the hdl crate's const-generic dispatch (`dispatch_flow_shape!`) are
/// generated from it.
#[macro_export]
macro_rules! flow_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ; [4, 8, 12, 16] }
    };
}

macro_rules! menu_constants {
    (() ; [$($f:literal),*]) => {
        /// Flow-id widths the RTL can be generated with.
        pub const SUPPORTED_FLOW_BITS: &[u32] = &[$($f),*];
    };
}
flow_shape_menu!([menu_constants];);

/// Generation-time (structural) sizes of a per-flow block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowShape {
    /// Width of a flow id: `F = 2^flow_bits` flows are tracked.
    pub flow_bits: u32,
}

impl Default for FlowShape {
    /// 4,096 flows.
    fn default() -> Self {
        FlowShape { flow_bits: 12 }
    }
}

impl FlowShape {
    /// Refuses, by name, a `flow_bits` off the menu ([`SUPPORTED_FLOW_BITS`]).
    pub fn validate(&self) -> Result<(), ParamError> {
        if !SUPPORTED_FLOW_BITS.contains(&self.flow_bits) {
            return Err(ParamError::new(
                "flow_bits",
                format!(
                    "{} is not supported; choose one of {SUPPORTED_FLOW_BITS:?}",
                    self.flow_bits
                ),
            ));
        }
        Ok(())
    }

    /// Number of flows, `2^flow_bits` (also the cycles a reset's clearing takes).
    pub fn flows(&self) -> u32 {
        1 << self.flow_bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_bits_off_the_menu_is_refused_by_name() {
        assert_eq!(FlowShape::default().flow_bits, 12);
        assert_eq!(FlowShape::default().flows(), 4096);
        for f in SUPPORTED_FLOW_BITS {
            assert!(FlowShape { flow_bits: *f }.validate().is_ok());
        }
        for bad in [0, 3, 5, 13, 17, 32] {
            let e = FlowShape { flow_bits: bad }.validate().unwrap_err();
            assert_eq!(e.name, "flow_bits");
        }
    }
}
