//! Simulation and checking for ccrtl: the Verilator driver, the lockstep
//! checker, stimulus generators, VCD traces, CSV replay and the params file.

pub mod block;
pub mod cfr_cam;
pub mod commands;
pub mod cp;
pub mod crd;
pub mod dctcp_rx;
pub mod dctcp_tx;
pub mod formal;
pub mod fsutil;
pub mod ldcp_rx;
pub mod ldcp_tx;
pub mod lockstep;
pub mod mutate;
pub mod nic;
pub mod np;
pub mod pacer;
pub mod params;
pub mod ports;
pub mod rcc_sched;
pub mod registry;
pub mod replay;
pub mod rng;
pub mod rp;
pub mod sar;
pub mod switch_port;
pub mod synth;
pub mod timely;
pub mod vcd;
pub mod verilator;
