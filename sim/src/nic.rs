//! NIC in the generic machinery: ports, value encoding, random stimulus and
//! the corner-case points a run must hit.
//!
//! The ports carry packed `tdata` words whose layout depends on `flow_bits`,
//! so the machinery's values are [`NicPortsIn`] / [`NicPortsOut`] (one
//! field per port, as the port carries it), unpacked for the golden model
//! and the rust-hdl block with the configuration's `flow_bits`.
//!
//! The stimulus follows the protocols: a stream's beat, once `tvalid` is
//! high, holds its `tdata` until it moves; an AXI4-Lite master holds each
//! channel's `valid` and payload until its `ready`, sends a write's address
//! and data in either order or together, and takes `bvalid` / `rvalid`
//! after random delays. Within that it aims at the glue's corners:
//! - received packets of a few hot flows, CE often (np's CNP requests),
//!   CNPs of the same flows (rp's cuts), and transmitted-bytes beats in the
//!   same cycles as CNPs (the skid register), back to back;
//! - `m_axis_cnp_tready` low for stretches (the CNP FIFO fills and drops)
//!   or toggling;
//! - register writes to every block's registers (coherent values from the
//!   blocks' own stimuli, and raw words with high bits and partial
//!   strobes), to the counters (clears), to read-only and unmapped
//!   offsets, in runs; reads of the same, right after writes;
//! - `r_min` written close to line rate now and then, so that cuts reach
//!   it (`rmin_flows` up and down);
//! - resets mid-traffic, held for a few cycles, with traffic in them.
//!
//! Payloads whose valid is low (and every payload during a reset) are
//! randomised by the lockstep machinery, not here.

use ccrtl_golden::nic::{
    register_map, MapEntry, Nic, NicConfig, NicIn, NicOut, NicShape, SUPPORTED_FLOW_BITS,
};
use ccrtl_golden::np::ecn;
use serde::Deserialize;

use crate::block::{Block, Coverage, Stimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rng::Rng;

pub struct NicBlock;

/// The input ports' values, as the ports carry them (in port order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NicPortsIn {
    pub rst: bool,
    pub rx_tvalid: bool,
    pub rx_tdata: u64,
    pub tx_tvalid: bool,
    pub tx_tdata: u64,
    pub req_tvalid: bool,
    pub req_tdata: u64,
    pub cnp_tready: bool,
    pub awvalid: bool,
    pub awaddr: u32,
    pub wvalid: bool,
    pub wdata: u32,
    pub wstrb: u8,
    pub bready: bool,
    pub arvalid: bool,
    pub araddr: u32,
    pub rready: bool,
}

/// The output ports' values, as the ports carry them (in port order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NicPortsOut {
    pub rx_tready: bool,
    pub tx_tready: bool,
    pub req_tready: bool,
    pub cnp_tvalid: bool,
    pub cnp_tdata: u32,
    pub grant_tvalid: bool,
    pub grant_tdata: u64,
    pub awready: bool,
    pub wready: bool,
    pub bvalid: bool,
    pub bresp: u8,
    pub arready: bool,
    pub rvalid: bool,
    pub rdata: u32,
    pub rresp: u8,
}

impl NicPortsIn {
    /// The golden model's inputs: `tdata` split at `flow_bits`.
    pub fn unpack(&self, flow_bits: u32) -> NicIn {
        let m = (1u64 << flow_bits) - 1;
        NicIn {
            rst: self.rst,
            rx_valid: self.rx_tvalid,
            rx_cnp: (self.rx_tdata >> (flow_bits + 2)) & 1 != 0,
            rx_ecn: ((self.rx_tdata >> flow_bits) & 3) as u8,
            rx_flow: (self.rx_tdata & m) as u32,
            tx_valid: self.tx_tvalid,
            tx_bytes: ((self.tx_tdata >> flow_bits) & 0xffff) as u32,
            tx_flow: (self.tx_tdata & m) as u32,
            req_valid: self.req_tvalid,
            req_bytes: ((self.req_tdata >> flow_bits) & 0xffff) as u32,
            req_flow: (self.req_tdata & m) as u32,
            cnp_ready: self.cnp_tready,
            awvalid: self.awvalid,
            awaddr: self.awaddr,
            wvalid: self.wvalid,
            wdata: self.wdata,
            wstrb: self.wstrb,
            bready: self.bready,
            arvalid: self.arvalid,
            araddr: self.araddr,
            rready: self.rready,
        }
    }
}

impl NicPortsOut {
    /// The ports' values of the golden model's outputs.
    pub fn pack(o: &NicOut, flow_bits: u32) -> NicPortsOut {
        NicPortsOut {
            rx_tready: o.rx_ready,
            tx_tready: o.tx_ready,
            req_tready: o.req_ready,
            cnp_tvalid: o.cnp_valid,
            cnp_tdata: o.cnp_flow,
            grant_tvalid: o.grant_valid,
            grant_tdata: o.grant_tdata(flow_bits),
            awready: o.awready,
            wready: o.wready,
            bvalid: o.bvalid,
            bresp: o.bresp,
            arready: o.arready,
            rvalid: o.rvalid,
            rdata: o.rdata,
            rresp: o.rresp,
        }
    }
}

/// The rust-hdl block behind the ports' values.
struct HdlNic {
    inner: Box<dyn ccrtl_hdl::sim::CycleSim<NicIn, NicOut>>,
    flow_bits: u32,
}

impl ccrtl_hdl::sim::CycleSim<NicPortsIn, NicPortsOut> for HdlNic {
    fn cycle(&mut self, i: &NicPortsIn) -> NicPortsOut {
        let o = self.inner.cycle(&i.unpack(self.flow_bits));
        NicPortsOut::pack(&o, self.flow_bits)
    }
}

impl Block for NicBlock {
    const NAME: &'static str = "nic";
    type Config = NicConfig;
    type In = NicPortsIn;
    type Out = NicPortsOut;
    type Golden = Nic;
    type Stimulus = NicStimulus;

    fn ports(c: &NicConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::nic::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &NicPortsIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.rx_tvalid as u128;
        v[2] = i.rx_tdata as u128;
        v[3] = i.tx_tvalid as u128;
        v[4] = i.tx_tdata as u128;
        v[5] = i.req_tvalid as u128;
        v[6] = i.req_tdata as u128;
        v[7] = i.cnp_tready as u128;
        v[8] = i.awvalid as u128;
        v[9] = i.awaddr as u128;
        v[10] = i.wvalid as u128;
        v[11] = i.wdata as u128;
        v[12] = i.wstrb as u128;
        v[13] = i.bready as u128;
        v[14] = i.arvalid as u128;
        v[15] = i.araddr as u128;
        v[16] = i.rready as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> NicPortsIn {
        // Values were checked against the port widths by the caller.
        NicPortsIn {
            rst: v[0] != 0,
            rx_tvalid: v[1] != 0,
            rx_tdata: v[2] as u64,
            tx_tvalid: v[3] != 0,
            tx_tdata: v[4] as u64,
            req_tvalid: v[5] != 0,
            req_tdata: v[6] as u64,
            cnp_tready: v[7] != 0,
            awvalid: v[8] != 0,
            awaddr: v[9] as u32,
            wvalid: v[10] != 0,
            wdata: v[11] as u32,
            wstrb: v[12] as u8,
            bready: v[13] != 0,
            arvalid: v[14] != 0,
            araddr: v[15] as u32,
            rready: v[16] != 0,
        }
    }

    #[inline]
    fn encode_out(o: &NicPortsOut, v: &mut [u128]) {
        v[0] = o.rx_tready as u128;
        v[1] = o.tx_tready as u128;
        v[2] = o.req_tready as u128;
        v[3] = o.cnp_tvalid as u128;
        v[4] = o.cnp_tdata as u128;
        v[5] = o.grant_tvalid as u128;
        v[6] = o.grant_tdata as u128;
        v[7] = o.awready as u128;
        v[8] = o.wready as u128;
        v[9] = o.bvalid as u128;
        v[10] = o.bresp as u128;
        v[11] = o.arready as u128;
        v[12] = o.rvalid as u128;
        v[13] = o.rdata as u128;
        v[14] = o.rresp as u128;
    }

    fn golden(c: &NicConfig) -> Nic {
        Nic::new(*c).expect("NIC configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut Nic, i: &NicPortsIn) -> NicPortsOut {
        let fb = g.config().shape.flow_bits;
        let o = g.step(&i.unpack(fb));
        NicPortsOut::pack(&o, fb)
    }

    fn verilog(c: &NicConfig) -> String {
        ccrtl_hdl::nic::verilog(c).expect("NIC configuration must be validated before use")
    }

    fn hdl_sim(c: &NicConfig) -> Box<dyn ccrtl_hdl::sim::CycleSim<NicPortsIn, NicPortsOut>> {
        Box::new(HdlNic {
            inner: ccrtl_hdl::nic::sim(c).expect("NIC configuration must be validated before use"),
            flow_bits: c.shape.flow_bits,
        })
    }

    fn default_config() -> NicConfig {
        NicConfig::default()
    }

    /// 16 flows: rp's clearing (the longest) takes 1,024 cycles.
    const SHORT_PARAMS: &'static str = "[nic]\nflow_bits = 4\n";

    fn parse_config(text: &str, path: &str) -> Result<NicConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<NicConfig> {
        SUPPORTED_FLOW_BITS
            .iter()
            .map(|&flow_bits| {
                NicConfig::reset_for(NicShape { flow_bits })
                    .expect("every flow_bits of the menu has a configuration")
            })
            .collect()
    }

    fn random_reset(c: &NicConfig, r: &mut Rng) -> NicConfig {
        let b = c.shape.blocks().expect("a validated shape");
        let mut n = *c;
        n.np.interval = crate::np::random_interval(r, &b.np);
        n.rp = crate::rp::random_params(r, &b.rp);
        n.pacer = ccrtl_golden::pacer::PacerParams {
            bucket: crate::pacer::random_value(r, 0),
            byte_time: crate::pacer::random_value(r, 1),
            init_rate: crate::pacer::random_value(r, 2),
        };
        n
    }

    fn describe(c: &NicConfig) -> String {
        let regs: Vec<String> = register_map(c)
            .map(|m| {
                m.iter()
                    .filter(|e| e.block != "nic")
                    .map(|e| format!("{}.{}={}", e.block, e.name, e.reset))
                    .collect()
            })
            .unwrap_or_default();
        format!("flow_bits={} reset: {}", c.shape.flow_bits, regs.join(" "))
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &Nic, prev: &NicPortsIn, i: &NicPortsIn, cov: &mut Coverage) {
        if i.rst {
            if prev.rst {
                cov.hit(RESET_HELD);
            } else {
                cov.hit(RESET_MID_RUN);
            }
            if i.rx_tvalid || i.tx_tvalid || i.awvalid || i.wvalid {
                cov.hit(TRAFFIC_IN_RESET);
            }
            return;
        }
        let fb = g.config().shape.flow_bits;
        let x = i.unpack(fb);
        let o = g.outputs();
        let rx_go = x.rx_valid && o.rx_ready;
        let tx_go = x.tx_valid && o.tx_ready;
        if x.rx_valid && !o.rx_ready {
            cov.hit(RX_WAITS);
        }
        if rx_go && x.rx_cnp {
            cov.hit(RX_CNP);
            if tx_go {
                cov.hit(CNP_WITH_TX);
            }
            if g.skid().is_some() {
                cov.hit(CNP_BEFORE_SKID);
            }
        }
        if rx_go && !x.rx_cnp && x.rx_ecn == ecn::CE {
            cov.hit(RX_CE);
        }
        if g.skid().is_some() && !(rx_go && x.rx_cnp) && g.rp().ready() {
            cov.hit(SKID_DRAINS);
        }
        if x.tx_valid && g.skid().is_some() {
            cov.hit(TX_WAITS_FOR_SKID);
        }
        let npo = g.np().outputs();
        let full = g.cnp_fifo_len() == g.cnp_fifo_capacity();
        let pop = o.cnp_valid && x.cnp_ready;
        if npo.cnp_valid && full {
            cov.hit(if pop { CNP_FULL_POP } else { CNP_DROP });
        }
        if o.cnp_valid && !x.cnp_ready {
            cov.hit(CNP_HELD);
        }
        if g.cnp_fifo_len() == 0 && npo.cnp_valid {
            cov.hit(CNP_INTO_EMPTY);
        }
        let rpo = g.rp().outputs();
        if rpo.rate_valid {
            cov.hit(if rpo.rate_cut { RATE_CUT } else { RATE_RISE });
            if rpo.rate_rc <= g.rp().regs().r_min {
                cov.hit(RATE_AT_RMIN);
            }
        }
        let aw_go = x.awvalid && o.awready;
        let w_go = x.wvalid && o.wready;
        if aw_go && w_go {
            cov.hit(AW_W_TOGETHER);
        } else if aw_go && !o.wready {
            cov.hit(W_BEFORE_AW);
        } else if w_go && !o.awready {
            cov.hit(AW_BEFORE_W);
        }
        if (aw_go || w_go) && o.bvalid {
            cov.hit(WRITE_HELD_FOR_B);
        }
        if o.bvalid && !x.bready {
            cov.hit(B_HELD);
        }
        if x.arvalid && o.arready {
            let a = x.araddr & 0xffc;
            match entry(g.map(), a) {
                Some(e) if e.block == "nic" => cov.hit(READ_NIC),
                Some(e) if e.block == "np" => cov.hit(READ_NP),
                Some(e) if e.block == "rp" => cov.hit(READ_RP),
                Some(_) => cov.hit(READ_PACER),
                None => cov.hit(READ_UNMAPPED),
            }
            if prev.awvalid && prev.awaddr & 0xffc == a {
                cov.hit(READ_AFTER_WRITE);
            }
        }
        if o.rvalid && !x.rready {
            cov.hit(R_HELD);
        }
        if aw_go {
            let a = x.awaddr & 0xffc;
            match entry(g.map(), a) {
                Some(e) if e.access == "read, write clears" => cov.hit(WRITE_CLEARS),
                Some(e) if e.block == "nic" => cov.hit(WRITE_READ_ONLY),
                Some(_) => cov.hit(WRITE_BLOCK),
                None => cov.hit(WRITE_UNMAPPED),
            }
        }
        if g.rmin_flows() > 0 {
            cov.hit(RMIN_NONZERO);
        }
    }
}

fn entry(map: &[MapEntry], addr: u32) -> Option<&MapEntry> {
    map.iter().find(|e| e.offset == addr)
}

const COVER: &[&str] = &[
    "reset mid-traffic",
    "reset held for several cycles",
    "stream or AXI4-Lite traffic in a reset cycle",
    "received beat waiting for its ready",
    "received CNP into rp",
    "received CNP with a transmitted-bytes beat in the same cycle (skid loaded)",
    "received CNP while the skid holds a bytes event",
    "received CE packet into np",
    "skid register drains into rp",
    "transmitted-bytes beat waiting while the skid is full",
    "CNP request dropped at a full FIFO",
    "CNP request into a full FIFO in a cycle it pops",
    "m_axis_cnp held (tready low)",
    "CNP request into an empty FIFO",
    "rate-stream beat that is a cut",
    "rate-stream beat that is not a cut",
    "rate-stream beat at or below r_min",
    "write address and data in one cycle",
    "write address before its data",
    "write data before its address",
    "write channel beat taken while bvalid is pending",
    "bvalid held (bready low)",
    "read of a nic register",
    "read of np's register",
    "read of an rp register",
    "read of a pacer register",
    "read of an unmapped offset",
    "read of the offset written in the cycle before",
    "rvalid held (rready low)",
    "write that clears a counter",
    "write to a read-only nic register",
    "write to a block register",
    "write to an unmapped offset",
    "rmin_flows above 0",
];
const RESET_MID_RUN: usize = 0;
const RESET_HELD: usize = 1;
const TRAFFIC_IN_RESET: usize = 2;
const RX_WAITS: usize = 3;
const RX_CNP: usize = 4;
const CNP_WITH_TX: usize = 5;
const CNP_BEFORE_SKID: usize = 6;
const RX_CE: usize = 7;
const SKID_DRAINS: usize = 8;
const TX_WAITS_FOR_SKID: usize = 9;
const CNP_DROP: usize = 10;
const CNP_FULL_POP: usize = 11;
const CNP_HELD: usize = 12;
const CNP_INTO_EMPTY: usize = 13;
const RATE_CUT: usize = 14;
const RATE_RISE: usize = 15;
const RATE_AT_RMIN: usize = 16;
const AW_W_TOGETHER: usize = 17;
const W_BEFORE_AW: usize = 18;
const AW_BEFORE_W: usize = 19;
const WRITE_HELD_FOR_B: usize = 20;
const B_HELD: usize = 21;
const READ_NIC: usize = 22;
const READ_NP: usize = 23;
const READ_RP: usize = 24;
const READ_PACER: usize = 25;
const READ_UNMAPPED: usize = 26;
const READ_AFTER_WRITE: usize = 27;
const R_HELD: usize = 28;
const WRITE_CLEARS: usize = 29;
const WRITE_READ_ONLY: usize = 30;
const WRITE_BLOCK: usize = 31;
const WRITE_UNMAPPED: usize = 32;
const RMIN_NONZERO: usize = 33;

/// A beat held until it moves: its `tdata`.
type Beat = Option<u64>;

/// Random valid NIC stimulus (see the module comment).
pub struct NicStimulus {
    rng: Rng,
    config: NicConfig,
    map: Vec<MapEntry>,
    fb: u32,
    flow_mask: u32,
    hot: [u32; 4],
    cycle: u64,
    reset_in: u64,
    reset_left: u32,
    /// Cycles before another write of an rp register that forgets every
    /// flow may be made (each keeps rp busy `max(2^flow_bits, 4 x
    /// 2^stamp_bits)` cycles).
    forget_hold: u64,
    rx: Beat,
    tx: Beat,
    req: Beat,
    /// Per 64 cycles: beats offered on rx, tx, req.
    rx_64: u32,
    tx_64: u32,
    req_64: u32,
    /// Of rx beats, per 64: CNPs, CE packets.
    cnp_64: u32,
    ce_64: u32,
    /// `m_axis_cnp_tready`: low for this many more cycles, then high for
    /// `cnp_high` more.
    cnp_low: u32,
    cnp_high: u32,
    aw: Option<u32>,
    w: Option<(u32, u8)>,
    /// Cycles before the data (address) of a write whose address (data)
    /// went first.
    w_delay: u32,
    ar: Option<u32>,
    /// Cycles to the next write / read.
    wr_in: u32,
    rd_in: u32,
    /// The last write's address, read soon after.
    last_aw: u32,
    b_wait: u32,
    r_wait: u32,
}

impl NicStimulus {
    fn flow(&mut self) -> u32 {
        if self.rng.chance(192) {
            let k = self.rng.upto(3) as usize;
            self.hot[k]
        } else {
            self.rng.next_u32() & self.flow_mask
        }
    }

    fn bytes(&mut self) -> u64 {
        match self.rng.upto(7) {
            0 => 0,
            1 => 0xffff,
            2 => self.rng.range(64, 1_500) as u64,
            _ => self.rng.pick(&[64u64, 1_024, 1_500, 4_096, 9_000]),
        }
    }

    /// An address and data for a write.
    fn write(&mut self, g: &Nic) -> (u32, u32, u8) {
        let b = g.blocks();
        let low = self.rng.upto(3); // bits [1:0] are ignored
        let strb = if self.rng.chance(224) {
            0xf
        } else {
            self.rng.upto(15) as u8
        };
        let (addr, data) = match self.rng.upto(19) {
            0..=7 => {
                // rp: a coherent value from rp's stimulus, r_min high now and then.
                let p = crate::rp::random_params(&mut self.rng, &b.rp);
                let mut a = self.rng.upto(ccrtl_golden::rp::REGISTERS.len() as u32 - 1);
                // The forgetting registers (profile, g, alpha_period)
                // rarely (and never in the hold below).
                if matches!(a, 0 | 7 | 9) && self.rng.chance(192) {
                    a = 4;
                }
                let mut v = p.read(a).unwrap_or(0);
                if a == 4 && self.rng.chance(128) {
                    v = g.rp().regs().line_rate.saturating_sub(self.rng.upto(2_000));
                }
                (0x200 + 4 * a, v)
            }
            8..=9 => {
                let a = self.rng.upto(2);
                (0x300 + 4 * a, crate::pacer::random_value(&mut self.rng, a))
            }
            10..=11 => (0x100, crate::np::random_interval(&mut self.rng, &b.np)),
            12..=13 => (0x010 + 4 * self.rng.upto(2), self.rng.next_u32()),
            14 => (4 * self.rng.pick(&[0, 1, 2, 7]), self.rng.next_u32()),
            15 => (self.rng.upto(0xfff) & !3, self.rng.next_u32()),
            _ => {
                let k = self.rng.upto(self.map.len() as u32 - 1) as usize;
                (self.map[k].offset, self.rng.next_u32())
            }
        };
        // After a write of a forgetting register none for twice the time
        // rp takes to forget (as rp's own stimulus): back to back they
        // kept rp forgetting most of a run, with no rate increase in some
        // 1e6-cycle runs. Every path above can reach one (the map's too):
        // a write of one starts the hold, one in the hold goes to np's
        // interval register instead.
        let addr = if matches!(addr, 0x200 | 0x21c | 0x224) {
            if self.forget_hold > 0 {
                0x100
            } else {
                self.forget_hold = self.busy_cycles() * 2 + self.rng.upto(20_000) as u64;
                addr
            }
        } else {
            addr
        };
        let data = if self.rng.chance(16) {
            data | self.rng.next_u32() & 0xfff8_0000
        } else {
            data
        };
        (addr | low, data, strb)
    }

    fn read_addr(&mut self) -> u32 {
        let low = self.rng.upto(3);
        let a = match self.rng.upto(9) {
            0..=2 => self.last_aw,
            3..=5 => self.map[self.rng.upto(self.map.len() as u32 - 1) as usize].offset,
            6..=7 => 0x010 + 4 * self.rng.upto(3),
            _ => self.rng.upto(0xfff),
        };
        (a & !3) | low
    }

    /// The cycles rp is busy forgetting every flow (after a reset or a
    /// forgetting write).
    fn busy_cycles(&self) -> u64 {
        self.config.shape.blocks().map_or(1 << 14, |b| {
            (1u64 << b.rp.flow_bits).max(4 << b.rp.stamp_bits)
        })
    }

    fn reset_gap(&mut self) -> u64 {
        let clear = 4 * self.busy_cycles();
        clear + self.rng.next_u64() % (clear * 8 + 40_000)
    }
}

impl Stimulus<NicBlock> for NicStimulus {
    fn new(config: &NicConfig, seed: u64) -> NicStimulus {
        let mut rng = Rng::new(seed);
        let fb = config.shape.flow_bits;
        let flow_mask = (1u32 << fb) - 1;
        let hot = [
            0,
            flow_mask,
            rng.next_u32() & flow_mask,
            rng.next_u32() & flow_mask,
        ];
        let mut s = NicStimulus {
            rng,
            config: *config,
            map: register_map(config).expect("a validated configuration has a map"),
            fb,
            flow_mask,
            hot,
            cycle: 0,
            reset_in: 0,
            reset_left: 2,
            forget_hold: 0,
            rx: None,
            tx: None,
            req: None,
            rx_64: 32,
            tx_64: 32,
            req_64: 48,
            cnp_64: 8,
            ce_64: 32,
            cnp_low: 0,
            cnp_high: 100,
            aw: None,
            w: None,
            w_delay: 0,
            ar: None,
            wr_in: 30,
            rd_in: 10,
            last_aw: 0x010,
            b_wait: 0,
            r_wait: 0,
        };
        s.reset_in = s.reset_gap();
        s
    }

    fn next_into(&mut self, g: &Nic, i: &mut NicPortsIn) {
        self.cycle += 1;
        self.forget_hold = self.forget_hold.saturating_sub(1);
        let o = g.outputs();
        let fb = self.fb;
        // A beat or an AXI4-Lite channel that moved in the last cycle was
        // taken off below, when it was driven; what is held is still owed.
        if self.reset_left == 0 {
            self.reset_in = self.reset_in.saturating_sub(1);
            if self.reset_in == 0 {
                self.reset_left = 1 + if self.rng.chance(64) {
                    self.rng.upto(3)
                } else {
                    0
                };
                self.reset_in = self.reset_gap();
            }
        }
        let in_reset = self.reset_left > 0;
        if in_reset {
            self.reset_left -= 1;
            i.rst = true;
        }
        if self.rng.upto(4_095) == 0 {
            self.rx_64 = self.rng.pick(&[4, 16, 32, 60, 64]);
            self.tx_64 = self.rng.pick(&[0, 8, 32, 64]);
            self.req_64 = self.rng.pick(&[8, 32, 64]);
            self.cnp_64 = self.rng.pick(&[1, 4, 8, 32]);
            self.ce_64 = self.rng.pick(&[4, 32, 60]);
        }

        // Streams: a beat is offered, then held until it moves.
        if self.rx.is_none() && self.rng.upto(63) < self.rx_64 {
            let flow = self.flow() as u64;
            let k = self.rng.upto(63);
            let (cnp, e) = if k < self.cnp_64 {
                (1u64, self.rng.upto(3) as u64)
            } else if k < self.cnp_64 + self.ce_64 {
                (0, ecn::CE as u64)
            } else {
                (0, self.rng.upto(2) as u64)
            };
            self.rx = Some(cnp << (fb + 2) | e << fb | flow);
        }
        if self.tx.is_none() && self.rng.upto(63) < self.tx_64 {
            let f = self.flow() as u64;
            self.tx = Some(self.bytes() << fb | f);
        }
        if self.req.is_none() && self.rng.upto(63) < self.req_64 {
            let f = self.flow() as u64;
            self.req = Some(self.bytes() << fb | f);
        }
        // (In a reset cycle a beat may be offered; it moves or not as the
        // ready says, and is taken off only when it moves outside a reset.)
        if let Some(d) = self.rx {
            i.rx_tvalid = true;
            i.rx_tdata = d;
            if o.rx_ready || in_reset {
                self.rx = None;
            }
        }
        if let Some(d) = self.tx {
            i.tx_tvalid = true;
            i.tx_tdata = d;
            if o.tx_ready || in_reset {
                self.tx = None;
            }
        }
        if let Some(d) = self.req {
            i.req_tvalid = true;
            i.req_tdata = d;
            if o.req_ready || in_reset {
                self.req = None;
            }
        }
        // m_axis_cnp_tready: stretches low, stretches high, or toggling.
        if self.cnp_low == 0 && self.cnp_high == 0 {
            match self.rng.upto(3) {
                0 => self.cnp_low = self.rng.range(1, 200),
                1 => self.cnp_high = self.rng.range(1, 200),
                _ => {
                    self.cnp_low = 1;
                    self.cnp_high = 1;
                }
            }
        }
        if self.cnp_low > 0 {
            self.cnp_low -= 1;
        } else {
            self.cnp_high -= 1;
            i.cnp_tready = true;
        }

        // AXI4-Lite writes.
        // (Now and then the next write starts while `bvalid` is pending:
        // its channels wait in the nic.)
        if self.aw.is_none() && self.w.is_none() && (!o.bvalid || self.rng.chance(8)) {
            self.wr_in = self.wr_in.saturating_sub(1);
            if self.wr_in == 0 {
                self.wr_in = if self.rng.chance(48) {
                    1
                } else {
                    self.rng.range(2, 400)
                };
                let (a, d, s) = self.write(g);
                self.last_aw = a;
                self.aw = Some(a);
                self.w = Some((d, s));
                self.w_delay = match self.rng.upto(3) {
                    0 | 1 => 0,
                    _ => self.rng.range(1, 6),
                };
                if self.rng.chance(128) {
                    // Data first.
                    self.w_delay |= 0x100;
                }
            }
        }
        let data_first = self.w_delay & 0x100 != 0;
        let delay = self.w_delay & 0xff;
        if let Some(a) = self.aw {
            if !(data_first && delay > 0) {
                i.awvalid = true;
                i.awaddr = a;
                if o.awready || in_reset {
                    self.aw = None;
                }
            }
        }
        if let Some((d, s)) = self.w {
            if data_first || delay == 0 {
                i.wvalid = true;
                i.wdata = d;
                i.wstrb = s;
                if o.wready || in_reset {
                    self.w = None;
                }
            }
        }
        if delay > 0 {
            self.w_delay = (self.w_delay & 0x100) | (delay - 1);
        }
        if o.bvalid {
            if self.b_wait == 0 {
                self.b_wait = if self.rng.chance(160) {
                    1
                } else {
                    self.rng.range(2, 8)
                };
            }
            self.b_wait -= 1;
            i.bready = self.b_wait == 0;
        } else {
            i.bready = self.rng.chance(128);
        }
        // Reads.
        if self.ar.is_none() && !o.rvalid {
            self.rd_in = self.rd_in.saturating_sub(1);
            if self.rd_in == 0 {
                self.rd_in = if self.rng.chance(64) {
                    1
                } else {
                    self.rng.range(2, 200)
                };
                self.ar = Some(self.read_addr());
            }
        }
        if let Some(a) = self.ar {
            i.arvalid = true;
            i.araddr = a;
            if o.arready || in_reset {
                self.ar = None;
            }
        }
        if o.rvalid {
            if self.r_wait == 0 {
                self.r_wait = if self.rng.chance(160) {
                    1
                } else {
                    self.rng.range(2, 8)
                };
            }
            self.r_wait -= 1;
            i.rready = self.r_wait == 0;
        } else {
            i.rready = self.rng.chance(128);
        }
        if in_reset {
            // The nic forgets held channels in a reset: so does the master.
            self.aw = None;
            self.w = None;
            self.ar = None;
            self.b_wait = 0;
            self.r_wait = 0;
        }
    }
}

// ---- The params file ------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
struct NicFile {
    nic: Option<NicTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NicTable {
    flow_bits: Option<u32>,
    np: Option<toml::Table>,
    rp: Option<toml::Table>,
    pacer: Option<toml::Table>,
}

/// Parses and validates NIC's table of params text; `path` names it. The
/// blocks' tables `[nic.np]`, `[nic.rp]`, `[nic.pacer]` hold only their
/// `reset` tables (the shapes are the menu's), read by the blocks' own
/// parsers.
pub fn parse_config(text: &str, path: &str) -> Result<NicConfig, ParamsError> {
    let file: NicFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.nic.unwrap_or_default();
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    let shape = NicShape {
        flow_bits: t.flow_bits.unwrap_or(NicShape::default().flow_bits),
    };
    let mut config = NicConfig::reset_for(shape).map_err(perr)?;
    let b = shape.blocks().map_err(perr)?;
    // A block's table as its own parser reads it: its shape from the menu,
    // the user's reset table.
    let block_text = |name: &str,
                      table: &Option<toml::Table>,
                      shape: toml::Table,
                      defaults: toml::Table|
     -> Result<String, ParamsError> {
        let mut reset = defaults;
        if let Some(tb) = table {
            for (k, v) in tb {
                if k != "reset" {
                    return Err(ParamsError::File {
                        path: path.to_string(),
                        message: format!(
                            "[nic.{name}]: unknown key `{k}`; only `[nic.{name}.reset]` is read (the block's shape is the nic menu's)"
                        ),
                    });
                }
                let toml::Value::Table(r) = v else {
                    return Err(ParamsError::File {
                        path: path.to_string(),
                        message: format!("[nic.{name}]: `reset` must be a table"),
                    });
                };
                for (rk, rv) in r {
                    reset.insert(rk.clone(), rv.clone());
                }
            }
        }
        let mut inner = shape;
        inner.insert("reset".into(), toml::Value::Table(reset));
        let mut doc = toml::Table::new();
        doc.insert(name.into(), toml::Value::Table(inner));
        Ok(toml::to_string(&doc).expect("a table serialises"))
    };
    let located = |name: &'static str| {
        move |e: ParamsError| match e {
            ParamsError::File { path, message } => ParamsError::File {
                path,
                message: format!("[nic.{name}.reset]: {message}"),
            },
            ParamsError::Param { path, error } => ParamsError::Param {
                path: format!("{path}: [nic.{name}.reset]"),
                error,
            },
        }
    };
    let table = |pairs: &[(&str, i64)]| -> toml::Table {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), toml::Value::Integer(*v)))
            .collect()
    };
    let np = crate::np::parse_config(
        &block_text(
            "np",
            &t.np,
            table(&[
                ("flow_bits", b.np.flow_bits as i64),
                ("interval_bits", b.np.interval_bits as i64),
            ]),
            toml::Table::new(),
        )?,
        path,
    )
    .map_err(located("np"))?;
    let rp = crate::rp::parse_config(
        &block_text(
            "rp",
            &t.rp,
            table(&[
                ("flow_bits", b.rp.flow_bits as i64),
                ("stamp_bits", b.rp.stamp_bits as i64),
                ("fifo_bits", b.rp.fifo_bits as i64),
            ]),
            table(&[("flows_in_use", config.rp.flows_in_use as i64)]),
        )?,
        path,
    )
    .map_err(located("rp"))?;
    let pacer = crate::pacer::parse_config(
        &block_text(
            "pacer",
            &t.pacer,
            table(&[
                ("flow_bits", b.pacer.flow_bits as i64),
                ("refresh_bits", b.pacer.refresh_bits as i64),
            ]),
            toml::Table::new(),
        )?,
        path,
    )
    .map_err(located("pacer"))?;
    config.np = np.reset;
    config.rp = rp.reset;
    config.pacer = pacer.reset;
    config.validate().map_err(perr)?;
    Ok(config)
}
