//! The proptest traces of the two ACK receivers (DCTCP_RX, LDCP_RX), which
//! share their ports: only the share of CE packets differs.

use ccrtl_golden::dctcp_rx::{DctcpRxConfig, DctcpRxIn};
use proptest::prelude::*;

/// Reset, then 30 to 300 cycles (the clearing of 16 flows takes the first
/// 16): an event in seven cycles in eight, of four flows most often (so
/// every forwarding distance comes), CE one packet in `ce_one_in`, a flush
/// one event in eight; an `m` load one cycle in 16 (0, 1 and 2 most often,
/// so groups are ACKed and left above `m`); a reset one cycle in 300.
pub fn traces(config: &DctcpRxConfig, ce_one_in: u8) -> BoxedStrategy<Vec<DctcpRxIn>> {
    let mask = config.shape.flows() - 1;
    let flow = prop_oneof![4 => 0u32..4, 1 => 0..=mask];
    let m = prop_oneof![3 => 0u32..3, 1 => 0u32..16];
    let cycle = (0u16..300, 0u8..8, flow, 0u8..8, 0..ce_one_in, 0u8..16, m);
    prop::collection::vec(cycle, 30..300)
        .prop_map(|cycles| {
            let mut trace = vec![DctcpRxIn {
                rst: true,
                ..DctcpRxIn::default()
            }];
            for (r, valid, flow, flush, ce, load, m) in cycles {
                trace.push(DctcpRxIn {
                    rst: r == 0,
                    evt_valid: valid != 0,
                    evt_flow: flow,
                    evt_flush: flush == 0,
                    evt_ce: ce == 0,
                    cfg_valid: load == 0,
                    cfg_m: m,
                });
            }
            trace
        })
        .boxed()
}
