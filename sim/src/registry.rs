//! The blocks. Adding a block is one line here (and its own files:
//! `golden/src/NAME.rs`, `hdl/src/NAME.rs`, `sim/src/NAME.rs`,
//! `tests/NAME.rs`, `docs/NAME.md`).

use crate::commands::{Entry, Registered};

/// Every block, by the one name it has everywhere.
pub static BLOCKS: &[&dyn Entry] = &[
    &Registered::<crate::cp::CpBlock>::NEW,
    &Registered::<crate::np::NpBlock>::NEW,
    &Registered::<crate::rp::RpBlock>::NEW,
    &Registered::<crate::pacer::PacerBlock>::NEW,
    &Registered::<crate::nic::NicBlock>::NEW,
    &Registered::<crate::cfr_cam::CfrCamBlock>::NEW,
    &Registered::<crate::sar::SarBlock>::NEW,
    &Registered::<crate::crd::CrdBlock>::NEW,
    &Registered::<crate::rcc_sched::RccSchedBlock>::NEW,
    &Registered::<crate::switch_port::SwitchPortBlock>::NEW,
    &Registered::<crate::dctcp_rx::DctcpRxBlock>::NEW,
    &Registered::<crate::ldcp_rx::LdcpRxBlock>::NEW,
    &Registered::<crate::dctcp_tx::DctcpTxBlock>::NEW,
    &Registered::<crate::ldcp_tx::LdcpTxBlock>::NEW,
    &Registered::<crate::timely::TimelyBlock>::NEW,
];

/// The names of the blocks.
pub fn names() -> Vec<&'static str> {
    BLOCKS.iter().map(|b| b.name()).collect()
}
