//! LDCP_RX in the generic machinery: DCTCP_RX's ports, encoding, stimulus
//! and coverage points (sim/src/dctcp_rx.rs), with LDCP's golden model and
//! RTL. With LDCP's rule a flow's CE bit stays 0, so the stimulus's "flip"
//! is a CE packet, its rate the share of CE packets (4 to 144 in 256,
//! changing now and then): unmarked groups grow to `m`, up to 15, and CE
//! packets meet groups pending at every `m`.

use ccrtl_golden::dctcp_rx::{DctcpRx, DctcpRxConfig, DctcpRxIn, DctcpRxOut, Rule};

use crate::block::{Block, Coverage};
use crate::dctcp_rx::{self as rx, DctcpRxStimulus, COVER, FLIP_TO_NOT_CE};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct LdcpRxBlock;

impl Block for LdcpRxBlock {
    const NAME: &'static str = "ldcp_rx";
    type Config = DctcpRxConfig;
    type In = DctcpRxIn;
    type Out = DctcpRxOut;
    type Golden = DctcpRx;
    type Stimulus = DctcpRxStimulus;

    fn ports(c: &DctcpRxConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::ldcp_rx::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &DctcpRxIn, v: &mut [u128]) {
        rx::encode_in(i, v)
    }

    #[inline]
    fn decode_in(v: &[u128]) -> DctcpRxIn {
        rx::decode_in(v)
    }

    #[inline]
    fn encode_out(o: &DctcpRxOut, v: &mut [u128]) {
        rx::encode_out(o, v)
    }

    fn golden(c: &DctcpRxConfig) -> DctcpRx {
        ccrtl_golden::ldcp_rx::new(*c).expect("LDCP_RX configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut DctcpRx, i: &DctcpRxIn) -> DctcpRxOut {
        g.step(i)
    }

    fn verilog(c: &DctcpRxConfig) -> String {
        ccrtl_hdl::ldcp_rx::verilog(c).expect("LDCP_RX configuration must be validated before use")
    }

    fn hdl_sim(c: &DctcpRxConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<DctcpRxIn, DctcpRxOut>> {
        ccrtl_hdl::ldcp_rx::sim(c).expect("LDCP_RX configuration must be validated before use")
    }

    fn default_config() -> DctcpRxConfig {
        DctcpRxConfig::default()
    }

    /// 256 flows (a 256-cycle clearing), reset `m` 3.
    const SHORT_PARAMS: &'static str = "[ldcp_rx]\nflow_bits = 8\n[ldcp_rx.reset]\nm = 3\n";

    fn parse_config(text: &str, path: &str) -> Result<DctcpRxConfig, ParamsError> {
        rx::parse_config(text, path, Rule::Ldcp)
    }

    fn menu() -> Vec<DctcpRxConfig> {
        rx::menu()
    }

    fn random_reset(c: &DctcpRxConfig, r: &mut Rng) -> DctcpRxConfig {
        rx::random_reset(c, r)
    }

    fn describe(c: &DctcpRxConfig) -> String {
        rx::describe(c)
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    /// Every point but "CE change to not CE" (a flow's CE bit stays 0).
    fn coverage_applies(_: &DctcpRxConfig) -> Vec<bool> {
        (0..COVER.len()).map(|k| k != FLIP_TO_NOT_CE).collect()
    }

    #[inline]
    fn cover(g: &DctcpRx, prev: &DctcpRxIn, i: &DctcpRxIn, cov: &mut Coverage) {
        rx::cover(g, prev, i, cov)
    }
}
