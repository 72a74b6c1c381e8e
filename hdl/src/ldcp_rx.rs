//! LDCP_RX — the LDCP receiver (seed 001 §2): delayed ACKs of at most `m`
//! unmarked packets, every CE packet ACKed at once and alone with ECE. The
//! rule and the timing contract are specified in `ccrtl_golden::ldcp_rx`;
//! `docs/ldcp_rx.md` has the design notes. The RTL is DCTCP_RX's
//! (hdl/src/dctcp_rx.rs) with its generation-time flag `ldcp` set: the same
//! flow table, forwarding, clearing and ports.

use ccrtl_golden::dctcp_rx::{DctcpRxConfig, DctcpRxIn, DctcpRxOut, Rule};
use ccrtl_golden::ParamError;

/// The finished Verilog file for LDCP_RX.
pub fn verilog(config: &DctcpRxConfig) -> Result<String, ParamError> {
    crate::dctcp_rx::verilog_of(config, Rule::Ldcp)
}

/// The rust-hdl LDCP_RX block for a configuration.
pub fn sim(
    config: &DctcpRxConfig,
) -> Result<Box<dyn crate::sim::CycleSim<DctcpRxIn, DctcpRxOut>>, ParamError> {
    crate::dctcp_rx::sim_of(config, Rule::Ldcp)
}

/// The ports of LDCP_RX (DCTCP_RX's).
pub fn ports(config: &DctcpRxConfig) -> Vec<crate::ports::HdlPort> {
    crate::dctcp_rx::ports(config)
}
