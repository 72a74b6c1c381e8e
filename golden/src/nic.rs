//! NIC — DCQCN in the NIC: np, rp and the pacer behind AXI ports.
//!
//! The `nic` top composes the three blocks ([`crate::np`], [`crate::rp`],
//! [`crate::pacer`]) behind AXI4-Stream ports and an AXI4-Lite register
//! file. The contract is `docs/nic.md`; this module implements it as
//! written there, with the three blocks' own golden models inside (each
//! keeps its own contract: the nic only decides what enters each block in
//! a cycle). `F` is the nic's `flow_bits`.
//!
//! # The cycle contract (docs/nic.md), as this model applies it
//! Every output is a function of the state only ([`Nic::outputs`]); a beat
//! *moves* in a cycle where its `valid` input and the nic's `ready` output
//! are both high, and a payload is read only in a cycle where it moves.
//! In a cycle `n` with `rst` low:
//! - *rx*: `rx_ready = np.pkt_ready & rp.evt_ready`. A moving beat with
//!   `cnp` low is np's packet (`pkt_flow = flow`, `pkt_ecn = ecn`); with
//!   `cnp` high it is rp's CNP event of `flow` (its `ecn` is not used).
//! - *tx*: `tx_ready = rp.evt_ready & !skid_full`. rp's event of the cycle
//!   is, in this order: the moving CNP beat; else the skid's bytes event, if
//!   rp is ready (the skid empties); else the moving tx beat. A tx beat that
//!   moves in a cycle where rp takes a CNP goes into the skid (full from
//!   `n + 1`).
//! - *req*: `req_ready = pacer.req_ready`; a moving beat is the pacer's
//!   request in the same cycle.
//! - rp's rate stream (`rate_valid`, `rate_flow`, `rate_rc`) is the pacer's
//!   rate port in the same cycle.
//! - *grant*: the pacer's decision port (`dec_valid`, `dec_grant`,
//!   `dec_flow`), its flow cut to `F` bits.
//! - *CNP FIFO* (`2^cnp_fifo_bits` entries): `cnp_valid` is high while it
//!   holds an entry, `cnp_flow` its oldest (0 when empty). np's request of
//!   cycle `n` (np's `cnp_valid` output in `n`) is stored if the FIFO holds
//!   fewer than `2^cnp_fifo_bits` entries or its oldest moves out in `n`,
//!   else dropped; either way counted in `cnp_requests`, and a drop in
//!   `cnp_drops`. An entry stored in `n` can move out from `n + 1`.
//! - *AXI4-Lite write*: `awready` is high while the nic holds no write
//!   address, `wready` while it holds no write data; a moving beat is held
//!   until the other channel's comes. The write is *made* in the first
//!   cycle `n` where the nic has both (held or moving) and `bvalid` is low:
//!   both held beats are let go (both readies high from `n + 1`) and
//!   `bvalid` is high from `n + 1` until the cycle after `bready`
//!   (`bresp = 0`). The value written is `wdata` with each byte whose
//!   `wstrb` bit is 0 taken from the register's value in force in `n`,
//!   masked to the register's width. A block register gets it on the
//!   block's `cfg` port in `n + 1` (in force from `n + 2`), and the nic's
//!   copy of it changes at the same edge. A write to a counter clears it:
//!   its value from `n + 2` is the events of `n + 1`.
//! - *AXI4-Lite read*: `arready = !rvalid`. A read whose address moves in
//!   `n` gives `rvalid` from `n + 1` until the cycle after `rready`
//!   (`rresp = 0`) and `rdata` = the register's value in force in `n`.
//! - Addresses are 12-bit byte addresses, bits `[1:0]` ignored; an address
//!   with no register ([`register_map`]) reads 0 and a write to it is
//!   ignored (`OKAY` both).
//! - *Counters* (32 bits, saturating at `2^32 - 1`): an event of cycle `n`
//!   is in the value from `n + 1`. *`rmin_flows`*: the number of flows
//!   whose last rate-stream beat since the reset had `Rc <= r_min`, with
//!   `r_min` the value of rp's register in force in the cycle of the beat;
//!   a beat of cycle `n` is in the value from `n + 7` ([`RMIN_LATENCY`]).
//!   *`status.ready`*: np's `pkt_ready`, rp's `evt_ready`, the pacer's
//!   `rate_ready` and the nic's per-flow bit table all done clearing.
//!
//! # What the page leaves open, decided here
//! - *A reset cycle.* With `rst` high in cycle `n` the nic takes nothing:
//!   beats that move in it (the readies are state, so they may be high) are
//!   discarded, no write or read is made, np's request and rp's rate beat of
//!   the cycle are neither stored nor counted, and a block write due in `n`
//!   (made in `n - 1`) is not issued. From `n + 1` the nic's own state is as
//!   after reset: CNP FIFO and skid empty, no held write address or data,
//!   `bvalid` and `rvalid` low, `rdata` 0, the counters 0, every register
//!   copy at its reset value, and the per-flow bit table clearing in cycles
//!   `n + 1 ..= n + 2^F` (one flow a cycle, as np's table, so it never
//!   holds `status.ready` low longer than np does), `rmin_flows` 0.
//!   The blocks get `rst` on their own port (and reset as their contracts
//!   say). As every block, the model starts as if a reset had been applied
//!   in the cycle before its first step. A master that had a beat taken in
//!   a reset cycle (or a write or read in flight) is expected to be reset
//!   with the nic.
//! - *The skid and a busy rp.* The skid hands its event to rp only in a
//!   cycle where rp's `evt_ready` is high (after a write of one of rp's
//!   forgetting registers rp is busy with the skid full: the event waits,
//!   and enters rp once it is ready, so it is not lost).
//! - *The rate stream during the bit table's clearing.* A beat in a cycle of
//!   the clearing would be ignored by the table (still passed to the pacer
//!   and counted in `rate_cuts`); it cannot come, since rp clears for at
//!   least `2^F` cycles after the same reset and makes no visit meanwhile.
//! - *`r_min` of `rmin_flows`* is the nic's copy of rp's `r_min` in the
//!   beat's cycle, which is rp's register as written (the value its capture
//!   reads), not the engine's possibly older copy that the visit which made
//!   the beat used.
//! - *The register copies* hold the written value masked to the register's
//!   width, as the block's register does: rp's 2-bit `profile` written 3
//!   reads 3 (rp runs it as `ns3`).
//! - *`wstrb` = 0* still makes the write: a block register gets its own
//!   value again on the `cfg` port (so a write of one of rp's forgetting
//!   registers forgets every flow), and a counter is cleared (any write
//!   clears, whatever `wdata` and `wstrb`).
//! - *Read-only registers* (`id`, `shape`, `status`, `rmin_flows`) ignore
//!   writes; the write still completes with `bvalid` and `OKAY`.
//! - `rdata` is 0 while `rvalid` is low; `bresp` and `rresp` are always 0.
//! - *Widths in the map*: `id` 32, `shape` 16, `status` 1, the counters 32,
//!   `rmin_flows` `F + 1` (it counts to `2^F`).
//! - *Flow ids*: rx, tx and req flows are cut to `F` bits and zero-extended
//!   into a block generated with more (rp of the 12-bit shape has 14);
//!   every block output flow is cut to `F` bits: np's `cnp_flow` before the
//!   CNP FIFO, rp's `rate_flow` before the pacer and the bit table, the
//!   pacer's `dec_flow` on the grant port.
//! - *Reads of rp's registers* return the register as written, in force
//!   (for rp's capture, time base and round robin) from `n + 2` for a
//!   write made in `n`; rp's engine takes a written value later, once its
//!   visits in flight are done (docs/rp.md), and the read does not show
//!   that delay.
//! - *rp's `flows_in_use`* may be written above `2^F`: flows at or above
//!   `2^F` never get an event, so they are never limited and make no
//!   rate-stream beat (only the visit spacing grows).

use crate::mask;
use std::collections::VecDeque;

use crate::error::ParamError;
use crate::np::{Np, NpConfig, NpIn, NpParams, NpShape};
use crate::pacer::{self, Pacer, PacerConfig, PacerIn, PacerParams, PacerShape};
use crate::rp::{self, Rp, RpConfig, RpIn, RpParams, RpShape};

/// The `id` register's value, "nic1" in ASCII.
pub const ID: u32 = 0x6E69_6331;
/// Width of the AXI4-Lite byte addresses.
pub const ADDR_BITS: u32 = 12;
/// Width of a packet's or a request's `bytes` field.
pub const BYTES_BITS: u32 = 16;
/// Base of np's registers: register `a` at `NP_BASE + 4 a`.
pub const NP_BASE: u32 = 0x100;
/// Base of rp's registers: register `a` at `RP_BASE + 4 a`.
pub const RP_BASE: u32 = 0x200;
/// Base of the pacer's registers: register `a` at `PACER_BASE + 4 a`.
pub const PACER_BASE: u32 = 0x300;
/// A rate-stream beat of cycle `n` is counted in `rmin_flows` from cycle
/// `n + RMIN_LATENCY` (the bit is read from block RAM, then written).
pub const RMIN_LATENCY: usize = 7;

/// The shape menu, written once: each `flow_bits` of the nic names the
/// three blocks' shapes (from their own menus) and the CNP FIFO's size.
/// `nic_shape_menu!([callback] ; ARGS)` expands
/// `callback!{ (ARGS) ; [(F, np_flow, np_interval, rp_flow, rp_stamp,
/// rp_fifo, pacer_flow, pacer_refresh, cnp_fifo_bits), ...] }`; the
/// constants below and the hdl crate's const-generic dispatch are generated
/// from it.
#[macro_export]
macro_rules! nic_shape_menu {
    ([$($callback:tt)*] ; $($args:tt)*) => {
        $($callback)*! { ($($args)*) ;
            [(12, 12, 16, 14, 10, 9, 12, 10, 4), (4, 4, 4, 4, 8, 2, 4, 2, 2)] }
    };
}

macro_rules! menu_constants {
    (() ; [$(($f:literal, $nf:literal, $ni:literal, $rf:literal, $rs:literal,
              $rq:literal, $pf:literal, $pr:literal, $c:literal)),*]) => {
        /// Flow-id widths (`F`) the nic can be generated with.
        pub const SUPPORTED_FLOW_BITS: &[u32] = &[$($f),*];
        /// The menu: each `F` with its blocks' shapes.
        pub const SHAPE_MENU: &[(u32, NicBlockShapes)] = &[$((
            $f,
            NicBlockShapes {
                np: NpShape { flow_bits: $nf, interval_bits: $ni },
                rp: RpShape {
                    flow_bits: $rf,
                    stamp_bits: $rs,
                    fifo_bits: $rq,
                    steps: rp::RTL_STEPS,
                },
                pacer: PacerShape { flow_bits: $pf, refresh_bits: $pr },
                cnp_fifo_bits: $c,
            },
        )),*];
    };
}
nic_shape_menu!([menu_constants];);

/// The shapes a nic shape names: the three blocks' and the CNP FIFO's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicBlockShapes {
    pub np: NpShape,
    /// `steps` = [`rp::RTL_STEPS`].
    pub rp: RpShape,
    pub pacer: PacerShape,
    /// The CNP FIFO holds `2^cnp_fifo_bits` requests.
    pub cnp_fifo_bits: u32,
}

/// The blocks' shapes for a nic of `flow_bits`, if the menu has it.
pub fn block_shapes(flow_bits: u32) -> Option<NicBlockShapes> {
    SHAPE_MENU
        .iter()
        .find(|(f, _)| *f == flow_bits)
        .map(|(_, b)| *b)
}

/// Generation-time (structural) size of the nic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicShape {
    /// `F`: width of a flow id on the ports; `2^F` flows.
    pub flow_bits: u32,
}

impl Default for NicShape {
    fn default() -> Self {
        // 4,096 flows: the three blocks place on an ECP5-85 (docs/nic.md).
        NicShape { flow_bits: 12 }
    }
}

impl NicShape {
    /// Refuses (as `flow_bits`) a width that is not in the menu.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.blocks().map(|_| ())
    }

    /// The blocks' shapes of this nic shape (the menu's row).
    pub fn blocks(&self) -> Result<NicBlockShapes, ParamError> {
        block_shapes(self.flow_bits).ok_or_else(|| {
            ParamError::new(
                "flow_bits",
                format!(
                    "{} is not supported by the nic; choose one of {SUPPORTED_FLOW_BITS:?}",
                    self.flow_bits
                ),
            )
        })
    }

    /// `2^F`, the flows on the ports (also the cycles the bit table's
    /// clearing takes).
    pub fn flows(&self) -> u32 {
        1 << self.flow_bits
    }
}

/// Generation-time configuration: the shape and the reset values of the
/// three blocks' registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicConfig {
    pub shape: NicShape,
    pub np: NpParams,
    pub rp: RpParams,
    pub pacer: PacerParams,
}

impl Default for NicConfig {
    /// `F` = 12 with each block's reset values for its shape, rp's
    /// `flows_in_use` = 4,096.
    fn default() -> Self {
        let shape = NicShape::default();
        let Some(b) = block_shapes(shape.flow_bits) else {
            unreachable!("the default flow_bits is in the menu");
        };
        NicConfig::with_blocks(shape, &b)
    }
}

impl NicConfig {
    /// The reset values for a shape: each block's `reset_for` of its shape,
    /// except rp's `flows_in_use` = `2^F` (its round robin visits only the
    /// nic's flows).
    pub fn reset_for(shape: NicShape) -> Result<NicConfig, ParamError> {
        let b = shape.blocks()?;
        Ok(NicConfig::with_blocks(shape, &b))
    }

    fn with_blocks(shape: NicShape, b: &NicBlockShapes) -> NicConfig {
        let mut rp = RpParams::reset_for(&b.rp);
        rp.flows_in_use = shape.flows();
        NicConfig {
            shape,
            np: NpParams::reset_for(&b.np),
            rp,
            pacer: PacerParams::reset_for(&b.pacer),
        }
    }

    /// np's configuration (its shape from the menu, these reset values).
    pub fn np_config(&self) -> Result<NpConfig, ParamError> {
        Ok(NpConfig {
            shape: self.shape.blocks()?.np,
            reset: self.np,
        })
    }

    /// rp's configuration.
    pub fn rp_config(&self) -> Result<RpConfig, ParamError> {
        Ok(RpConfig {
            shape: self.shape.blocks()?.rp,
            reset: self.rp,
        })
    }

    /// The pacer's configuration.
    pub fn pacer_config(&self) -> Result<PacerConfig, ParamError> {
        Ok(PacerConfig {
            shape: self.shape.blocks()?.pacer,
            reset: self.pacer,
        })
    }

    /// The shape is in the menu, every block's configuration passes its own
    /// check (rp's shape is one of the RTL's), and the pacer's clearing
    /// after a reset ends no later than rp's.
    pub fn validate(&self) -> Result<(), ParamError> {
        let b = self.shape.blocks()?;
        self.np_config()?.validate()?;
        b.rp.validate_rtl()?;
        self.rp_config()?.validate()?;
        self.pacer_config()?.validate()?;
        clearing_order(&b.rp, &b.pacer)
    }
}

/// rp makes no visit, so no rate-stream beat, while it clears after a
/// reset; the pacer takes no rate update while it clears. Its clearing
/// (`2^flow_bits` cycles) must end no later than rp's
/// ([`RpShape::clear_cycles`]) so that no rate update is lost.
fn clearing_order(rp: &RpShape, pacer: &PacerShape) -> Result<(), ParamError> {
    if pacer.flows() > rp.clear_cycles() {
        return Err(ParamError::new(
            "flow_bits",
            format!(
                "the pacer's clearing after a reset ({} cycles) would end after rp's ({} cycles): rate updates would be lost",
                pacer.flows(),
                rp.clear_cycles()
            ),
        ));
    }
    Ok(())
}

/// One register of the nic's AXI4-Lite map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapEntry {
    /// Byte address (a multiple of 4, below `2^ADDR_BITS`).
    pub offset: u32,
    /// `"nic"`, `"np"`, `"rp"` or `"pacer"`.
    pub block: &'static str,
    pub name: &'static str,
    /// Width in bits (a read returns it zero-extended to 32).
    pub width: u32,
    /// Value after a reset.
    pub reset: u32,
    /// `"read"`, `"read, write clears"` or `"read/write"`.
    pub access: &'static str,
    pub doc: &'static str,
}

/// The register map, from the one source: the nic's own registers
/// (docs/nic.md), np's `interval` at `0x100`, and rp's and the pacer's
/// `REGISTERS` at `0x200 + 4 a` and `0x300 + 4 a`; reset values from the
/// configuration. In offset order. Refuses an invalid configuration.
pub fn register_map(config: &NicConfig) -> Result<Vec<MapEntry>, ParamError> {
    config.validate()?;
    let b = config.shape.blocks()?;
    let f = config.shape.flow_bits;
    let own = |offset, name, width, reset, access, doc| MapEntry {
        offset,
        block: "nic",
        name,
        width,
        reset,
        access,
        doc,
    };
    let mut map = vec![
        own(0x000, "id", 32, ID, "read", "0x6E696331 (\"nic1\")"),
        own(
            0x004,
            "shape",
            16,
            f | b.cnp_fifo_bits << 8,
            "read",
            "F (flow_bits) in bits [7:0], cnp_fifo_bits in [15:8]",
        ),
        own(
            0x008,
            "status",
            1,
            0,
            "read",
            "bit 0 ready: np, rp, the pacer and the nic's per-flow bit table have finished clearing",
        ),
        own(
            0x010,
            "cnp_requests",
            32,
            0,
            "read, write clears",
            "np's CNP requests, stored or dropped (saturates at 2^32 - 1)",
        ),
        own(
            0x014,
            "cnp_drops",
            32,
            0,
            "read, write clears",
            "CNP requests dropped at a full CNP FIFO (saturates)",
        ),
        own(
            0x018,
            "rate_cuts",
            32,
            0,
            "read, write clears",
            "rate-stream beats of a visit that applied a cut (saturates)",
        ),
        own(
            0x01C,
            "rmin_flows",
            f + 1,
            0,
            "read",
            "flows whose last rate-stream beat since the reset had Rc <= r_min (7 cycles after the beat)",
        ),
        MapEntry {
            offset: NP_BASE,
            block: "np",
            name: "interval",
            width: b.np.interval_bits,
            reset: config.np.interval,
            access: "read/write",
            doc: "N, cycles: at most one CNP request per flow per N cycles",
        },
    ];
    for r in rp::REGISTERS {
        map.push(MapEntry {
            offset: RP_BASE + 4 * r.addr,
            block: "rp",
            name: r.name,
            width: r.bits,
            reset: config.rp.read(r.addr).unwrap_or(0),
            access: "read/write",
            doc: r.doc,
        });
    }
    for r in pacer::REGISTERS {
        map.push(MapEntry {
            offset: PACER_BASE + 4 * r.addr,
            block: "pacer",
            name: r.name,
            width: r.bits,
            reset: config.pacer.read(r.addr).unwrap_or(0),
            access: "read/write",
            doc: r.doc,
        });
    }
    map.sort_by_key(|e| e.offset);
    Ok(map)
}

/// The register map as a Markdown table (columns Offset, Block, Name,
/// Width, Reset, Access, Meaning), for the docs page.
pub fn regmap_markdown(config: &NicConfig) -> Result<String, ParamError> {
    let mut s = String::from(
        "| Offset | Block | Name | Width | Reset | Access | Meaning |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for e in register_map(config)? {
        s += &format!(
            "| `0x{:03X}` | {} | `{}` | {} | `0x{:X}` | {} | {} |\n",
            e.offset,
            e.block,
            e.name,
            e.width,
            e.reset,
            e.access,
            e.doc.replace('|', "\\|")
        );
    }
    Ok(s)
}

/// Inputs of one clock cycle (the nic's input ports, clock excluded). Only
/// the low port-width bits of each field are ports, and a payload is read
/// only in a cycle where its beat moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NicIn {
    pub rst: bool,
    /// `s_axis_rx_tvalid`.
    pub rx_valid: bool,
    /// `s_axis_rx_tdata[F + 2]`: the packet is a CNP.
    pub rx_cnp: bool,
    /// `s_axis_rx_tdata[F + 1 : F]`: its IP ECN field (low 2 bits).
    pub rx_ecn: u8,
    /// `s_axis_rx_tdata[F - 1 : 0]` (low `F` bits).
    pub rx_flow: u32,
    /// `s_axis_tx_tvalid`.
    pub tx_valid: bool,
    /// `s_axis_tx_tdata[F + 15 : F]`: bytes transmitted (low 16 bits).
    pub tx_bytes: u32,
    /// `s_axis_tx_tdata[F - 1 : 0]`.
    pub tx_flow: u32,
    /// `s_axis_req_tvalid`.
    pub req_valid: bool,
    /// `s_axis_req_tdata[F + 15 : F]`: the packet's bytes (low 16 bits).
    pub req_bytes: u32,
    /// `s_axis_req_tdata[F - 1 : 0]`.
    pub req_flow: u32,
    /// `m_axis_cnp_tready`.
    pub cnp_ready: bool,
    /// `s_axil_awvalid`, `s_axil_awaddr` (low 12 bits; bits `[1:0]` ignored).
    pub awvalid: bool,
    pub awaddr: u32,
    /// `s_axil_wvalid`, `s_axil_wdata`, `s_axil_wstrb` (low 4 bits).
    pub wvalid: bool,
    pub wdata: u32,
    pub wstrb: u8,
    /// `s_axil_bready`.
    pub bready: bool,
    /// `s_axil_arvalid`, `s_axil_araddr` (low 12 bits; bits `[1:0]` ignored).
    pub arvalid: bool,
    pub araddr: u32,
    /// `s_axil_rready`.
    pub rready: bool,
}

/// Outputs during one clock cycle (they depend only on state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NicOut {
    /// `s_axis_rx_tready`.
    pub rx_ready: bool,
    /// `s_axis_tx_tready`.
    pub tx_ready: bool,
    /// `s_axis_req_tready`.
    pub req_ready: bool,
    /// `m_axis_cnp_tvalid`: the CNP FIFO holds an entry.
    pub cnp_valid: bool,
    /// `m_axis_cnp_tdata`: its oldest entry's flow (0 when empty).
    pub cnp_flow: u32,
    /// `m_axis_grant_tvalid`.
    pub grant_valid: bool,
    /// `m_axis_grant_tdata[F]`: 1 send now, 0 ask again (low when
    /// `grant_valid` is).
    pub grant: bool,
    /// `m_axis_grant_tdata[F - 1 : 0]` (0 when `grant_valid` is low).
    pub grant_flow: u32,
    /// `s_axil_awready`, `s_axil_wready`.
    pub awready: bool,
    pub wready: bool,
    /// `s_axil_bvalid`, `s_axil_bresp` (always 0, OKAY).
    pub bvalid: bool,
    pub bresp: u8,
    /// `s_axil_arready`.
    pub arready: bool,
    /// `s_axil_rvalid`, `s_axil_rdata` (0 when `rvalid` is low),
    /// `s_axil_rresp` (always 0, OKAY).
    pub rvalid: bool,
    pub rdata: u32,
    pub rresp: u8,
}

impl NicIn {
    /// `s_axis_rx_tdata` as the port carries it: `{cnp, ecn, flow}`.
    pub fn rx_tdata(&self, flow_bits: u32) -> u64 {
        (self.rx_cnp as u64) << (flow_bits + 2)
            | ((self.rx_ecn & 3) as u64) << flow_bits
            | (self.rx_flow & mask(flow_bits)) as u64
    }
    /// `s_axis_tx_tdata`: `{bytes, flow}`.
    pub fn tx_tdata(&self, flow_bits: u32) -> u64 {
        stream_tdata(self.tx_bytes, self.tx_flow, flow_bits)
    }
    /// `s_axis_req_tdata`: `{bytes, flow}`.
    pub fn req_tdata(&self, flow_bits: u32) -> u64 {
        stream_tdata(self.req_bytes, self.req_flow, flow_bits)
    }
}

impl NicOut {
    /// `m_axis_grant_tdata`: `{grant, flow}`.
    pub fn grant_tdata(&self, flow_bits: u32) -> u64 {
        (self.grant as u64) << flow_bits | (self.grant_flow & mask(flow_bits)) as u64
    }
}

fn stream_tdata(bytes: u32, flow: u32, flow_bits: u32) -> u64 {
    ((bytes & mask(BYTES_BITS)) as u64) << flow_bits | (flow & mask(flow_bits)) as u64
}

/// What a register of the map is to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// A block register (the nic's copy in `values`), with its `cfg` address.
    Np,
    Rp(u32),
    Pacer(u32),
    /// A constant (`id`, `shape`): its reset value.
    Fixed,
    Status,
    Counter(usize),
    RminFlows,
}

/// The counters' indices.
const CNP_REQUESTS: usize = 0;
const CNP_DROPS: usize = 1;
const RATE_CUTS: usize = 2;

/// A write made in the last cycle, applied in this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// A block register's new value (map index, value).
    Write(usize, u32),
    /// A counter's clear.
    Clear(usize),
}

/// The per-flow bit table of `rmin_flows` (`2^F` bits) and its count, as
/// seen `RMIN_LATENCY` cycles late.
#[derive(Debug, Clone)]
struct RminTable {
    /// Flow `f`'s last beat since the reset had `Rc <= r_min`.
    bits: Vec<bool>,
    /// The count's change by each of the last `RMIN_LATENCY - 1` cycles'
    /// beats, the oldest first.
    pipe: VecDeque<i32>,
    /// The count as the register shows it.
    visible: u32,
    /// Cycles of clearing still to come (0 when ready).
    busy_left: u32,
}

impl RminTable {
    fn new(flows: u32) -> RminTable {
        let mut t = RminTable {
            bits: vec![false; flows as usize],
            pipe: VecDeque::new(),
            visible: 0,
            busy_left: 0,
        };
        t.reset();
        t
    }

    fn reset(&mut self) {
        self.bits.fill(false);
        self.pipe = std::iter::repeat_n(0, RMIN_LATENCY - 1).collect();
        self.visible = 0;
        self.busy_left = self.bits.len() as u32;
    }

    /// One cycle with the beat `(flow, Rc <= r_min)`, if any. Each beat
    /// sees the bit as the beat before it left it, however close.
    fn step(&mut self, beat: Option<(u32, bool)>) {
        let mut delta = 0;
        if self.busy_left > 0 {
            // Clearing (no beat can come: rp clears at least as long).
            self.busy_left -= 1;
        } else if let Some((f, low)) = beat {
            let b = &mut self.bits[f as usize];
            delta = low as i32 - *b as i32;
            *b = low;
        }
        self.pipe.push_back(delta);
        if let Some(d) = self.pipe.pop_front() {
            self.visible = self.visible.wrapping_add_signed(d);
        }
    }
}

/// The golden model of the nic: one [`Nic::step`] per clock cycle.
#[derive(Clone)]
pub struct Nic {
    config: NicConfig,
    blocks: NicBlockShapes,
    flow_mask: u32,
    map: Vec<MapEntry>,
    slots: Vec<Slot>,
    /// The register copies (block registers; the other entries unused).
    values: Vec<u32>,
    /// The map index of rp's `r_min`.
    r_min_index: usize,
    np: Np,
    rp: Rp,
    pacer: Pacer,
    /// The CNP FIFO, the oldest at the front.
    fifo: VecDeque<u32>,
    /// A transmitted-bytes event waiting for rp: (flow, bytes).
    skid: Option<(u32, u32)>,
    /// The held write address (bits `[1:0]` cleared) and data (`wdata`, `wstrb`).
    aw: Option<u32>,
    w: Option<(u32, u8)>,
    bvalid: bool,
    rvalid: bool,
    rdata: u32,
    pending: Option<Pending>,
    counters: [u32; 3],
    rmin: RminTable,
    cycle: u64,
}

impl Nic {
    /// A model as just after a reset (`status.ready` low until every
    /// block's and the bit table's clearing is done).
    pub fn new(config: NicConfig) -> Result<Nic, ParamError> {
        config.validate()?;
        let blocks = config.shape.blocks()?;
        let map = register_map(&config)?;
        let slots: Vec<Slot> = map
            .iter()
            .map(|e| match (e.block, e.name) {
                ("np", _) => Slot::Np,
                ("rp", _) => Slot::Rp((e.offset - RP_BASE) / 4),
                ("pacer", _) => Slot::Pacer((e.offset - PACER_BASE) / 4),
                (_, "status") => Slot::Status,
                (_, "cnp_requests") => Slot::Counter(CNP_REQUESTS),
                (_, "cnp_drops") => Slot::Counter(CNP_DROPS),
                (_, "rate_cuts") => Slot::Counter(RATE_CUTS),
                (_, "rmin_flows") => Slot::RminFlows,
                _ => Slot::Fixed,
            })
            .collect();
        let r_min_index = map
            .iter()
            .position(|e| e.block == "rp" && e.name == "r_min")
            .ok_or_else(|| ParamError::new("r_min", "rp's map has no r_min register"))?;
        Ok(Nic {
            config,
            blocks,
            flow_mask: mask(config.shape.flow_bits),
            values: map.iter().map(|e| e.reset).collect(),
            map,
            slots,
            r_min_index,
            np: Np::new(config.np_config()?)?,
            rp: Rp::new(config.rp_config()?)?,
            pacer: Pacer::new(config.pacer_config()?)?,
            fifo: VecDeque::new(),
            skid: None,
            aw: None,
            w: None,
            bvalid: false,
            rvalid: false,
            rdata: 0,
            pending: None,
            counters: [0; 3],
            rmin: RminTable::new(config.shape.flows()),
            cycle: 0,
        })
    }

    pub fn config(&self) -> &NicConfig {
        &self.config
    }
    /// The blocks' shapes.
    pub fn blocks(&self) -> &NicBlockShapes {
        &self.blocks
    }
    /// The register map the model decodes.
    pub fn map(&self) -> &[MapEntry] {
        &self.map
    }
    /// Steps taken (the number of the next step's cycle).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
    /// The blocks' models, as they are for the next step.
    pub fn np(&self) -> &Np {
        &self.np
    }
    pub fn rp(&self) -> &Rp {
        &self.rp
    }
    pub fn pacer(&self) -> &Pacer {
        &self.pacer
    }
    /// Entries in the CNP FIFO.
    pub fn cnp_fifo_len(&self) -> usize {
        self.fifo.len()
    }
    /// The CNP FIFO's capacity, `2^cnp_fifo_bits`.
    pub fn cnp_fifo_capacity(&self) -> usize {
        1 << self.blocks.cnp_fifo_bits
    }
    /// The bytes event in the skid register, `(flow, bytes)`.
    pub fn skid(&self) -> Option<(u32, u32)> {
        self.skid
    }
    /// The counters in force (what a read in the next step returns).
    pub fn cnp_requests(&self) -> u32 {
        self.counters[CNP_REQUESTS]
    }
    pub fn cnp_drops(&self) -> u32 {
        self.counters[CNP_DROPS]
    }
    pub fn rate_cuts(&self) -> u32 {
        self.counters[RATE_CUTS]
    }
    /// `rmin_flows` in force.
    pub fn rmin_flows(&self) -> u32 {
        self.rmin.visible
    }
    /// `status.ready` in the next step.
    pub fn ready(&self) -> bool {
        self.np.ready() && self.rp.ready() && self.pacer.rate_ready() && self.rmin.busy_left == 0
    }

    /// The map index of a byte address (bits `[1:0]` and those above 12
    /// ignored), if a register is there.
    fn decode(&self, addr: u32) -> Option<usize> {
        let a = addr & mask(ADDR_BITS) & !3;
        self.map.iter().position(|e| e.offset == a)
    }

    fn value(&self, k: usize) -> u32 {
        match self.slots[k] {
            Slot::Np | Slot::Rp(_) | Slot::Pacer(_) => self.values[k],
            Slot::Fixed => self.map[k].reset,
            Slot::Status => self.ready() as u32,
            Slot::Counter(c) => self.counters[c],
            Slot::RminFlows => self.rmin.visible,
        }
    }

    /// The value a read whose address moves in the next step returns: the
    /// register in force then (0 for an address with no register).
    pub fn read_register(&self, addr: u32) -> u32 {
        self.decode(addr).map_or(0, |k| self.value(k))
    }

    /// The outputs during the next step's cycle, before its clock edge.
    pub fn outputs(&self) -> NicOut {
        let (npo, rpo, pao) = (self.np.outputs(), self.rp.outputs(), self.pacer.outputs());
        NicOut {
            rx_ready: npo.pkt_ready && rpo.evt_ready,
            tx_ready: rpo.evt_ready && self.skid.is_none(),
            req_ready: pao.req_ready,
            cnp_valid: !self.fifo.is_empty(),
            cnp_flow: self.fifo.front().copied().unwrap_or(0),
            grant_valid: pao.dec_valid,
            grant: pao.dec_grant,
            grant_flow: pao.dec_flow & self.flow_mask,
            awready: self.aw.is_none(),
            wready: self.w.is_none(),
            bvalid: self.bvalid,
            bresp: 0,
            arready: !self.rvalid,
            rvalid: self.rvalid,
            rdata: self.rdata,
            rresp: 0,
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    pub fn step(&mut self, i: &NicIn) -> NicOut {
        let out = self.outputs();
        let (npo, rpo) = (self.np.outputs(), self.rp.outputs());
        self.cycle += 1;
        if i.rst {
            self.np.step(&NpIn {
                rst: true,
                ..NpIn::default()
            });
            self.rp.step(&RpIn {
                rst: true,
                ..RpIn::default()
            });
            self.pacer.step(&PacerIn {
                rst: true,
                ..PacerIn::default()
            });
            self.reset();
            return out;
        }
        let fm = self.flow_mask;

        // The AXI4-Lite channels, on the values in force in this cycle.
        let read = (!self.rvalid && i.arvalid).then(|| self.read_register(i.araddr));
        let aw = self
            .aw
            .or((i.awvalid && out.awready).then_some(i.awaddr & mask(ADDR_BITS) & !3));
        let w = self
            .w
            .or((i.wvalid && out.wready).then_some((i.wdata, i.wstrb & 0xf)));
        let mut made = None;
        match (aw, w) {
            (Some(addr), Some((data, strb))) if !self.bvalid => {
                made = self.decode(addr).and_then(|k| self.write_of(k, data, strb));
                (self.aw, self.w) = (None, None);
                self.bvalid = true;
            }
            _ => {
                (self.aw, self.w) = (aw, w);
                if self.bvalid && i.bready {
                    self.bvalid = false;
                }
            }
        }
        match read {
            Some(v) => (self.rvalid, self.rdata) = (true, v),
            None if self.rvalid && i.rready => (self.rvalid, self.rdata) = (false, 0),
            None => {}
        }

        // The streams into the blocks.
        let rx_move = i.rx_valid && out.rx_ready;
        let rx_flow = i.rx_flow & fm;
        let tx_move = i.tx_valid && out.tx_ready;
        let tx = (i.tx_flow & fm, i.tx_bytes & mask(BYTES_BITS));
        let evt = if rx_move && i.rx_cnp {
            if tx_move {
                self.skid = Some(tx);
            }
            Some((rp::kind::CNP, rx_flow, 0))
        } else if let Some(s) = self.skid.filter(|_| rpo.evt_ready) {
            self.skid = None;
            Some((rp::kind::BYTES, s.0, s.1))
        } else if tx_move {
            Some((rp::kind::BYTES, tx.0, tx.1))
        } else {
            None
        };
        let mut np_in = NpIn {
            pkt_valid: rx_move && !i.rx_cnp,
            pkt_flow: rx_flow,
            pkt_ecn: i.rx_ecn & 3,
            ..NpIn::default()
        };
        let mut rp_in = RpIn {
            evt_valid: evt.is_some(),
            evt_kind: evt.map_or(0, |e| e.0),
            evt_flow: evt.map_or(0, |e| e.1),
            evt_bytes: evt.map_or(0, |e| e.2),
            ..RpIn::default()
        };
        let req_move = i.req_valid && out.req_ready;
        let mut pacer_in = PacerIn {
            req_valid: req_move,
            req_flow: i.req_flow & fm,
            req_bytes: i.req_bytes & mask(BYTES_BITS),
            rate_valid: rpo.rate_valid,
            rate_flow: rpo.rate_flow & fm,
            rate_rc: rpo.rate_rc,
            ..PacerIn::default()
        };

        // The write made in the last cycle: a block's cfg port, or a clear.
        let pending = self.pending.take();
        let mut clear = [false; 3];
        match pending {
            Some(Pending::Write(k, v)) => match self.slots[k] {
                Slot::Np => (np_in.cfg_valid, np_in.cfg_interval) = (true, v),
                Slot::Rp(a) => (rp_in.cfg_valid, rp_in.cfg_addr, rp_in.cfg_data) = (true, a, v),
                Slot::Pacer(a) => {
                    (pacer_in.cfg_valid, pacer_in.cfg_addr, pacer_in.cfg_data) = (true, a, v)
                }
                _ => {}
            },
            Some(Pending::Clear(c)) => clear[c] = true,
            None => {}
        }
        self.np.step(&np_in);
        self.rp.step(&rp_in);
        self.pacer.step(&pacer_in);

        // The CNP FIFO: the oldest leaves first, so a full FIFO whose oldest
        // moves out stores the request.
        let mut events = [false; 3];
        if out.cnp_valid && i.cnp_ready {
            self.fifo.pop_front();
        }
        if npo.cnp_valid {
            events[CNP_REQUESTS] = true;
            if self.fifo.len() < self.cnp_fifo_capacity() {
                self.fifo.push_back(npo.cnp_flow & fm);
            } else {
                events[CNP_DROPS] = true;
            }
        }

        // The rate stream's counts, with r_min in force in this cycle.
        events[RATE_CUTS] = rpo.rate_valid && rpo.rate_cut;
        let r_min = self.values[self.r_min_index];
        self.rmin.step(
            rpo.rate_valid
                .then_some((rpo.rate_flow & fm, rpo.rate_rc <= r_min)),
        );
        for c in 0..3 {
            self.counters[c] = if clear[c] {
                events[c] as u32
            } else {
                self.counters[c].saturating_add(events[c] as u32)
            };
        }

        // The copy changes with the block's register (in force from n + 2).
        if let Some(Pending::Write(k, v)) = pending {
            self.values[k] = v;
        }
        self.pending = made;
        out
    }

    /// The effect of a write made now to map entry `k`: the value (merged
    /// with the value in force by `wstrb`, masked to the width) for a block
    /// register, a clear for a counter; `None` for a read-only register.
    fn write_of(&self, k: usize, data: u32, strb: u8) -> Option<Pending> {
        match self.slots[k] {
            Slot::Np | Slot::Rp(_) | Slot::Pacer(_) => {
                let bytes = (0..4)
                    .filter(|b| strb >> b & 1 != 0)
                    .fold(0u32, |m, b| m | 0xff << (8 * b));
                let v = (data & bytes) | (self.values[k] & !bytes);
                Some(Pending::Write(k, v & mask(self.map[k].width)))
            }
            Slot::Counter(c) => Some(Pending::Clear(c)),
            Slot::Fixed | Slot::Status | Slot::RminFlows => None,
        }
    }

    /// The nic's own state after a reset (the blocks reset on their port).
    fn reset(&mut self) {
        self.fifo.clear();
        self.skid = None;
        (self.aw, self.w) = (None, None);
        (self.bvalid, self.rvalid, self.rdata) = (false, false, 0);
        self.pending = None;
        self.counters = [0; 3];
        for (v, e) in self.values.iter_mut().zip(&self.map) {
            *v = e.reset;
        }
        self.rmin.reset();
    }
}

impl std::fmt::Debug for Nic {
    /// The nic's own registers and the blocks' summaries, without tables.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nic")
            .field("config", &self.config)
            .field("cycle", &self.cycle)
            .field("fifo", &self.fifo)
            .field("skid", &self.skid)
            .field("aw", &self.aw)
            .field("w", &self.w)
            .field("bvalid", &self.bvalid)
            .field("rvalid", &self.rvalid)
            .field("rdata", &self.rdata)
            .field("pending", &self.pending)
            .field("counters", &self.counters)
            .field("rmin_flows", &self.rmin.visible)
            .field("np", &self.np)
            .field("rp", &self.rp)
            .field("pacer", &self.pacer)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::np::{ecn, LATENCY as NP_LATENCY};
    use crate::pacer::LATENCY as PACER_LATENCY;
    use crate::rp::kind;
    use crate::xorshift;

    /// The 16-flow shape with its reset values.
    fn small() -> NicConfig {
        NicConfig::reset_for(NicShape { flow_bits: 4 }).unwrap()
    }

    fn idle() -> NicIn {
        NicIn::default()
    }

    /// A model past its first clearing (`status.ready` high).
    fn cleared(c: NicConfig) -> Nic {
        let mut n = Nic::new(c).unwrap();
        while !n.ready() {
            n.step(&idle());
        }
        n
    }

    fn aw(addr: u32) -> NicIn {
        NicIn {
            awvalid: true,
            awaddr: addr,
            ..idle()
        }
    }

    fn w(data: u32, strb: u8) -> NicIn {
        NicIn {
            wvalid: true,
            wdata: data,
            wstrb: strb,
            ..idle()
        }
    }

    /// Address and data offered together.
    fn aw_w(addr: u32, data: u32, strb: u8) -> NicIn {
        NicIn {
            awvalid: true,
            awaddr: addr,
            ..w(data, strb)
        }
    }

    fn ar(addr: u32) -> NicIn {
        NicIn {
            arvalid: true,
            araddr: addr,
            ..idle()
        }
    }

    fn rx(cnp: bool, ecn: u8, flow: u32) -> NicIn {
        NicIn {
            rx_valid: true,
            rx_cnp: cnp,
            rx_ecn: ecn,
            rx_flow: flow,
            ..idle()
        }
    }

    fn tx(flow: u32, bytes: u32) -> NicIn {
        NicIn {
            tx_valid: true,
            tx_flow: flow,
            tx_bytes: bytes,
            ..idle()
        }
    }

    /// A whole read through the AXI4-Lite read channel, starting in the
    /// model's next cycle `k` (rvalid low): checks the handshake's cycles
    /// and returns `rdata`, the value in force in cycle `k`.
    fn read(n: &mut Nic, addr: u32) -> u32 {
        let o = n.step(&ar(addr));
        assert!(o.arready && !o.rvalid && o.rdata == 0 && o.rresp == 0);
        let o = n.step(&idle());
        assert!(o.rvalid && !o.arready);
        let v = o.rdata;
        let o = n.step(&NicIn {
            rready: true,
            ..idle()
        });
        assert!(o.rvalid && o.rdata == v && !o.arready);
        let o = n.step(&idle());
        assert!(!o.rvalid && o.rdata == 0 && o.arready);
        v
    }

    /// A whole write (address and data together), then the response taken.
    fn write(n: &mut Nic, addr: u32, data: u32, strb: u8) {
        let o = n.step(&aw_w(addr, data, strb));
        assert!(o.awready && o.wready && !o.bvalid);
        let o = n.step(&NicIn {
            bready: true,
            ..idle()
        });
        assert!(o.bvalid && o.bresp == 0);
        assert!(!n.outputs().bvalid);
    }

    #[test]
    fn write_with_the_address_before_the_data() {
        let mut n = cleared(small());
        assert_eq!((n.pacer().bucket(), n.pacer().byte_time()), (16_384, 1_200));
        // Cycle 0: the address of `bucket` moves and is held.
        let o = n.step(&aw(0x300));
        assert!(o.awready && o.wready && !o.bvalid);
        // Cycle 1: the master offers its next address (not taken: one is
        // held) and the data, which moves: the write is made (to 0x300).
        let o = n.step(&NicIn {
            wvalid: true,
            wdata: 1000,
            wstrb: 0xf,
            ..aw(0x304)
        });
        assert!(!o.awready && o.wready && !o.bvalid);
        // The pacer gets it in cycle 2, in force from cycle 3.
        assert_eq!(
            (n.pacer().bucket(), n.read_register(0x300)),
            (16_384, 16_384)
        );
        // Cycle 2: both ready again; the address 0x304 moves and is held.
        let o = n.step(&aw(0x304));
        assert!(o.awready && o.wready && o.bvalid && o.bresp == 0);
        assert_eq!((n.pacer().bucket(), n.read_register(0x300)), (1000, 1000));
        // Cycle 3: data moves, but bvalid is high: no write; both held.
        let o = n.step(&w(2000, 0xf));
        assert!(!o.awready && o.wready && o.bvalid);
        // Cycle 4: bready; bvalid low from 5.
        let o = n.step(&NicIn {
            bready: true,
            ..idle()
        });
        assert!(!o.awready && !o.wready && o.bvalid);
        // Cycle 5: the held write is made.
        let o = n.step(&idle());
        assert!(!o.awready && !o.wready && !o.bvalid);
        assert_eq!(n.pacer().byte_time(), 1_200);
        // Cycle 6: bvalid again; byte_time in force from 7.
        let o = n.step(&idle());
        assert!(o.awready && o.wready && o.bvalid);
        assert_eq!(
            (n.pacer().byte_time(), n.read_register(0x304)),
            (2000, 2000)
        );
        assert_eq!(n.pacer().bucket(), 1000);
    }

    #[test]
    fn write_with_the_data_before_the_address() {
        let mut n = cleared(small());
        assert_eq!(n.np().interval(), 15);
        let o = n.step(&w(7, 0x1)); // cycle 0: data held
        assert!(o.awready && o.wready);
        let o = n.step(&NicIn {
            wvalid: true,
            wdata: 9, // the next data, not taken: one is held
            wstrb: 0xf,
            ..aw(0x100)
        }); // cycle 1: the address moves: made
        assert!(o.awready && !o.wready && !o.bvalid);
        assert_eq!(n.np().interval(), 15);
        let o = n.step(&idle()); // cycle 2: np's cfg port
        assert!(o.awready && o.wready && o.bvalid);
        assert_eq!((n.np().interval(), n.read_register(0x100)), (7, 7));
    }

    #[test]
    fn write_with_address_and_data_together_to_each_block() {
        // (address, value, the register in force as the block holds it)
        type Held = fn(&Nic) -> u32;
        let regs: [(u32, u32, Held); 3] = [
            (0x100, 3, |n| n.np().interval()),
            (0x214, 77, |n| n.rp().regs().r_ai),
            (0x308, 5_000, |n| n.pacer().init_rate()),
        ];
        for (addr, v, held) in regs {
            let mut n = cleared(small());
            let old = held(&n);
            assert_ne!(old, v);
            let o = n.step(&aw_w(addr, v, 0xf)); // cycle 0: made
            assert!(o.awready && o.wready && !o.bvalid);
            assert_eq!((held(&n), n.read_register(addr)), (old, old));
            // Cycle 1: bvalid and bready; the next write's beats move and
            // are held (bvalid is high in this cycle).
            let o = n.step(&NicIn {
                bready: true,
                ..aw_w(addr, v + 1, 0xf)
            });
            assert!(o.awready && o.wready && o.bvalid);
            assert_eq!((held(&n), n.read_register(addr)), (v, v));
            // Cycle 2: bvalid low; the held write is made.
            let o = n.step(&idle());
            assert!(!o.awready && !o.wready && !o.bvalid);
            let o = n.step(&idle());
            assert!(o.awready && o.wready && o.bvalid);
            assert_eq!((held(&n), n.read_register(addr)), (v + 1, v + 1));
        }
    }

    #[test]
    fn a_read_returns_the_masked_value_in_force_in_its_address_cycle() {
        let mut n = cleared(small());
        // byte_time is 14 bits: 0xFFFF_FFFF is written as 0x3FFF, made in
        // cycle 0, in force (pacer and copy) from cycle 2.
        n.step(&aw_w(0x304, 0xFFFF_FFFF, 0xf));
        let mut a = n.clone();
        assert_eq!(read(&mut a, 0x304), 1_200); // address in cycle 1
        n.step(&NicIn {
            bready: true,
            ..idle()
        });
        let mut b = n.clone();
        assert_eq!(read(&mut b, 0x304), 0x3FFF); // address in cycle 2
        assert_eq!(b.pacer().byte_time(), 0x3FFF);
        // The other registers; address bits [1:0] and above 12 ignored.
        assert_eq!(read(&mut b, 0x000), ID);
        assert_eq!(read(&mut b, 0x004), 4 | 2 << 8);
        assert_eq!(read(&mut b, 0x008), 1);
        assert_eq!(read(&mut b, 0x303), 16_384);
        assert_eq!(read(&mut b, 0xF302), 16_384);
        assert_eq!(read(&mut b, 0x100), 15);
        assert_eq!(read(&mut b, 0x200), 0); // profile: paper
        assert_eq!(read(&mut b, 0x208), 16); // flows_in_use = 2^F
        assert_eq!(read(&mut b, 0x20C), 100_000); // line_rate
        assert_eq!(read(&mut b, 0x244), 3); // clamp: both bits
                                            // Addresses with no register read 0.
        for addr in [
            0x00C, 0x020, 0x0FC, 0x104, 0x248, 0x2FC, 0x30C, 0x400, 0xFFC,
        ] {
            assert_eq!(read(&mut b, addr), 0, "{addr:#x}");
        }
        // Writes to them and to read-only registers are ignored (OKAY).
        for addr in [0x000, 0x004, 0x008, 0x01C, 0x00C, 0x104, 0x248, 0x30C] {
            write(&mut b, addr, 0x5A5A_5A5A, 0xf);
        }
        assert_eq!(read(&mut b, 0x000), ID);
        assert_eq!(read(&mut b, 0x004), 0x204);
        assert_eq!(read(&mut b, 0x01C), 0);
        assert_eq!(read(&mut b, 0x00C), 0);
        assert_eq!(read(&mut b, 0x104), 0);
        // A 2-bit register written 3 holds 3 (rp runs it as ns3).
        write(&mut b, 0x200, 0xFFFF_FFFF, 0xf);
        assert_eq!(read(&mut b, 0x200), 3);
    }

    #[test]
    fn strobes_merge_with_the_value_in_force_then_mask_to_the_width() {
        let mut n = cleared(small());
        assert_eq!(n.read_register(0x308), 0x186A0); // init_rate 100,000
                                                     // Bytes 0 and 2 from wdata, 1 and 3 from 0x000186A0: 0x00BB86DD;
                                                     // 19 bits of it: 0x386DD.
        write(&mut n, 0x308, 0xAABB_CCDD, 0b0101);
        assert_eq!(
            (n.read_register(0x308), n.pacer().init_rate()),
            (0x386DD, 0x386DD)
        );
        // Byte 1 from wdata: 0x000333DD.
        write(&mut n, 0x308, 0x1122_3344, 0b0010);
        assert_eq!(read(&mut n, 0x308), 0x333DD);
        // No strobe: the same value.
        write(&mut n, 0x308, 0xFFFF_FFFF, 0);
        assert_eq!(
            (read(&mut n, 0x308), n.pacer().init_rate()),
            (0x333DD, 0x333DD)
        );
        // ... but the write is made: rp's `profile` written with no strobe
        // forgets every flow (rp busy from the cycle after its cfg cycle).
        assert!(n.rp().ready());
        let o = n.step(&aw_w(0x200, 2, 0)); // made
        assert!(o.awready && o.wready);
        n.step(&idle()); // rp's cfg port
        assert!(!n.rp().ready() && !n.ready());
        assert_eq!(n.read_register(0x200), 0);
        assert_eq!(n.rp().regs().profile, rp::Profile::Paper);
        assert_eq!(n.read_register(0x008), 0);
    }

    /// Steps `cycles` cycles with `input(k)`; returns each cycle's outputs
    /// and the counters in force in it: (cnp_requests, cnp_drops,
    /// rate_cuts, rmin_flows).
    fn run(
        n: &mut Nic,
        cycles: usize,
        mut input: impl FnMut(usize, &Nic) -> NicIn,
    ) -> (Vec<NicOut>, Vec<[u32; 4]>) {
        let (mut outs, mut regs) = (vec![], vec![]);
        for k in 0..cycles {
            regs.push([
                n.cnp_requests(),
                n.cnp_drops(),
                n.rate_cuts(),
                n.rmin_flows(),
            ]);
            let i = input(k, n);
            outs.push(n.step(&i));
        }
        (outs, regs)
    }

    #[test]
    fn a_counter_write_clears_it_keeping_the_next_cycles_events() {
        let mut c = small();
        c.np.interval = 0; // a CNP request for every CE packet
        let mut n = cleared(c);
        // CE packets of flow 1 in cycles 0 ..= 29: requests in 8 ..= 37
        // (np's latency), every one stored (cnp_ready high).
        let l = NP_LATENCY;
        assert_eq!(l, 8);
        let (outs, regs) = run(&mut n, 60, |k, _| {
            let mut i = if k < 30 {
                rx(false, ecn::CE, 1)
            } else {
                idle()
            };
            i.cnp_ready = true;
            i.bready = true;
            match k {
                20 => NicIn {
                    ..aw_w(0x010, 0x1234, 0xf)
                }
                .with_stream(&i),
                22 => ar(0x010).with_stream(&i),
                37 => aw_w(0x010, 0, 0).with_stream(&i), // no strobe: clears too
                _ => i,
            }
        });
        // Without a clear, the value of cycle k is the requests before k.
        assert_eq!(regs[20][0], 12);
        assert_eq!(regs[21][0], 13); // + the request of 20
        assert_eq!(regs[22][0], 1); // the request of 21 alone
        assert_eq!(regs[23][0], 2);
        assert_eq!(outs[23].rdata, 1); // read in 22: its value in 22
        assert!(outs[23].rvalid);
        assert_eq!(regs[37][0], 16); // requests 21 ..= 36
        assert_eq!(regs[38][0], 17); // + 37's
        assert_eq!(regs[39][0], 0); // the events of 38: none
        assert!(regs.iter().all(|r| r[1] == 0 && r[2] == 0));
        assert!(outs.iter().all(|o| o.rx_ready));
    }

    impl NicIn {
        /// `self`'s AXI4-Lite fields with `s`'s stream fields.
        fn with_stream(self, s: &NicIn) -> NicIn {
            NicIn {
                rst: s.rst,
                rx_valid: s.rx_valid,
                rx_cnp: s.rx_cnp,
                rx_ecn: s.rx_ecn,
                rx_flow: s.rx_flow,
                tx_valid: s.tx_valid,
                tx_bytes: s.tx_bytes,
                tx_flow: s.tx_flow,
                req_valid: s.req_valid,
                req_bytes: s.req_bytes,
                req_flow: s.req_flow,
                cnp_ready: s.cnp_ready,
                bready: self.bready || s.bready,
                rready: self.rready || s.rready,
                ..self
            }
        }
    }

    #[test]
    fn the_cnp_fifo_drops_a_request_only_when_full_and_not_moving() {
        let mut c = small();
        c.np.interval = 0;
        let mut n = cleared(c);
        assert_eq!(n.cnp_fifo_capacity(), 4);
        // CE packets of flows 1 ..= 6 in cycles 0 ..= 5: requests in
        // 8 ..= 13. cnp_ready low before 13.
        let (outs, regs) = run(&mut n, 24, |k, _| NicIn {
            cnp_ready: k >= 13,
            ..if k < 6 {
                rx(false, ecn::CE, k as u32 + 1)
            } else {
                idle()
            }
        });
        // Stored in 8 ..= 11; flow 5 dropped in 12 (full, nothing leaves);
        // flow 6 stored in 13 as flow 1 leaves.
        assert!(!outs[8].cnp_valid && outs[8].cnp_flow == 0);
        assert!(outs[9..=13].iter().all(|o| o.cnp_valid && o.cnp_flow == 1));
        let order: Vec<(bool, u32)> = outs[14..=18]
            .iter()
            .map(|o| (o.cnp_valid, o.cnp_flow))
            .collect();
        assert_eq!(
            order,
            vec![(true, 2), (true, 3), (true, 4), (true, 6), (false, 0)]
        );
        assert_eq!(regs[12][..2], [4, 0]);
        assert_eq!(regs[13][..2], [5, 1]);
        assert_eq!(regs[14][..2], [6, 1]);
        assert_eq!(regs[23][..2], [6, 1]);
        // An entry stored in cycle n moves out from n + 1.
        let (outs, _) = run(&mut n, 12, |k, _| NicIn {
            cnp_ready: true,
            ..if k == 0 {
                rx(false, ecn::CE, 9)
            } else {
                idle()
            }
        });
        assert_eq!(
            (0..12).filter(|&k| outs[k].cnp_valid).collect::<Vec<_>>(),
            vec![NP_LATENCY + 1]
        );
        assert_eq!(outs[NP_LATENCY + 1].cnp_flow, 9);
    }

    /// rp's event of a cycle: (kind, flow, bytes).
    type Evt = Option<(u8, u32, u32)>;

    #[test]
    fn cnps_win_rp_s_event_slot_and_the_skid_loses_no_bytes_event() {
        let mut c = small();
        c.rp.byte_counter = 1 << 16; // each flow's event below makes it pending
        let mut n = Nic::new(c).unwrap();
        let mut reference = Rp::new(c.rp_config().unwrap()).unwrap();
        while !n.ready() {
            n.step(&idle());
            reference.step(&RpIn::default());
        }
        let with = |a: NicIn, b: NicIn| NicIn {
            tx_valid: b.tx_valid,
            tx_flow: b.tx_flow,
            tx_bytes: b.tx_bytes,
            ..a
        };
        let cnp = |f| Some((kind::CNP, f, 0));
        let bytes = |f, b| Some((kind::BYTES, f, b));
        // (input, tx_ready, rp's event) per cycle, from the contract.
        let plan: Vec<(NicIn, bool, Evt)> = vec![
            (tx(2, 65_535), true, bytes(2, 65_535)),
            (tx(4, 65_535), true, bytes(4, 65_535)),
            (tx(5, 65_535), true, bytes(5, 65_535)),
            (idle(), true, None),
            // CNP of 1 and bytes of 2 together: the bytes wait in the skid.
            (with(rx(true, ecn::CE, 1), tx(2, 10)), true, cnp(1)),
            // Skid full: the bytes of 4 do not move; the CNP of 3 wins.
            (with(rx(true, ecn::CE, 3), tx(4, 20)), false, cnp(3)),
            // No CNP: the skid's event; the bytes of 4 still wait.
            (tx(4, 20), false, bytes(2, 10)),
            // Skid empty: the bytes of 4 enter rp in the cycle they move.
            (tx(4, 20), true, bytes(4, 20)),
            (with(rx(true, ecn::CE, 6), tx(5, 30)), true, cnp(6)),
            // A non-CNP packet is np's, not rp's: the skid's event goes.
            (rx(false, ecn::CE, 7), false, bytes(5, 30)),
            (idle(), true, None),
        ];
        let steps = plan.len() + 300;
        for k in 0..steps {
            let (i, ready, evt) = plan.get(k).copied().unwrap_or((idle(), true, None));
            let o = n.step(&i);
            assert_eq!((o.tx_ready, o.rx_ready), (ready, true), "cycle {k}");
            reference.step(&RpIn {
                evt_valid: evt.is_some(),
                evt_kind: evt.map_or(0, |e| e.0),
                evt_flow: evt.map_or(0, |e| e.1),
                evt_bytes: evt.map_or(0, |e| e.2),
                ..RpIn::default()
            });
            let r = n.rp();
            assert_eq!(r.outputs(), reference.outputs(), "cycle {k}");
            assert_eq!(r.fifo_len(), reference.fifo_len(), "cycle {k}");
            assert_eq!(r.last_visit(), reference.last_visit(), "cycle {k}");
            for f in 0..16 {
                assert_eq!(r.pending(f), reference.pending(f), "cycle {k} flow {f}");
                assert_eq!(
                    r.flow_rates(f),
                    reference.flow_rates(f),
                    "cycle {k} flow {f}"
                );
            }
        }
        assert_eq!(n.skid(), None);
        // The CNP beats (ECN CE) did not reach np; the packet of 7 did.
        for f in [1, 3, 6] {
            assert_eq!(n.np().since_cnp(f), None);
        }
        assert!(n.np().since_cnp(7).is_some());
    }

    #[test]
    fn the_rmin_bit_table_forwards_back_to_back_beats_and_is_seven_cycles_late() {
        let mut t = RminTable::new(16);
        // Clearing: 16 cycles; a beat in it is ignored.
        for k in 0..16 {
            t.step((k == 3).then_some((2, true)));
        }
        assert_eq!(t.busy_left, 0);
        // Beats from cycle 0: flow 3 in four cycles (low, high, low, low),
        // then flow 5 (low). Counts after each: 1, 0, 1, 1, 2.
        let beats = [
            Some((3, true)),
            Some((3, false)),
            Some((3, true)),
            Some((3, true)),
            Some((5, true)),
        ];
        let mut seen = vec![];
        for k in 0..20 {
            seen.push(t.visible);
            t.step(beats.get(k).copied().flatten());
        }
        let mut want = vec![0; 7];
        want.extend([1, 0, 1, 1]);
        want.extend([2; 9]);
        assert_eq!(seen, want);
        assert_eq!(RMIN_LATENCY, 7);
        t.reset();
        assert_eq!((t.visible, t.busy_left), (0, 16));
    }

    #[test]
    fn rmin_flows_counts_each_flow_s_last_beat_against_r_min_in_force() {
        let c = small();
        let mut n = cleared(c);
        // Two rounds of CNPs of flows 1, 2, 3 (cycles 0 ..= 2 and 400 ..=
        // 402): each CNP makes a cut beat. r_min (100 at reset) is written
        // 60,000 in the cycle of round 1's first beat and 100 in the cycle
        // of round 2's first beat (each in force two cycles later).
        let mut first_beat = [None; 2];
        let mut writes: Vec<(usize, u32)> = vec![];
        let mut beats: Vec<(usize, u32, u32, bool)> = vec![];
        let (_, regs) = run(&mut n, 700, |k, n| {
            let r = n.rp().outputs();
            let round = (k >= 400) as usize;
            if r.rate_valid {
                beats.push((k, r.rate_flow, r.rate_rc, r.rate_cut));
                first_beat[round].get_or_insert(k);
            }
            let mut i = match k {
                0..=2 => rx(true, 0, k as u32 + 1),
                400..=402 => rx(true, 0, k as u32 - 399),
                _ => idle(),
            };
            i.bready = true;
            if first_beat[round] == Some(k) {
                let v = [60_000, 100][round];
                writes.push((k, v));
                i = aw_w(0x210, v, 0xf).with_stream(&i);
            }
            i
        });
        // r_min in force in cycle k: written in w, in force from w + 2.
        let r_min = |k: usize| {
            writes
                .iter()
                .rev()
                .find(|w| w.0 + 2 <= k)
                .map_or(100, |w| w.1)
        };
        let mut bits = [false; 16];
        let mut count_after = vec![0u32; 700];
        let mut cuts_after = vec![0u32; 700];
        let (mut count, mut cuts) = (0, 0);
        for k in 0..700 {
            for b in beats.iter().filter(|b| b.0 == k) {
                bits[b.1 as usize] = b.2 <= r_min(k);
                count = bits.iter().filter(|b| **b).count() as u32;
                cuts += b.3 as u32;
            }
            (count_after[k], cuts_after[k]) = (count, cuts);
        }
        for k in 0..700 {
            let want = if k >= 7 { count_after[k - 7] } else { 0 };
            assert_eq!(regs[k][3], want, "rmin_flows in cycle {k}");
            let want = if k >= 1 { cuts_after[k - 1] } else { 0 };
            assert_eq!(regs[k][2], want, "rate_cuts in cycle {k}");
        }
        // The scenario: six cut beats. Round 1's come in consecutive
        // cycles from the first write's, so its second sees r_min 100 and
        // its third 60,000. Round 2's visits run with r_min 60,000, which
        // floors their Rc at 60,000: its first beat (the second write's
        // cycle) counts (Rc = r_min), the later ones see 100 and do not.
        let flows: Vec<u32> = beats.iter().map(|b| b.1).collect();
        assert_eq!(flows, vec![1, 2, 3, 1, 2, 3], "{beats:?}");
        assert!(beats.iter().all(|b| b.3));
        assert_eq!(writes.len(), 2);
        let ks: Vec<usize> = beats.iter().map(|b| b.0).collect();
        assert_eq!(ks[..3], [writes[0].0, writes[0].0 + 1, writes[0].0 + 2]);
        assert!(
            ks[3] == writes[1].0 && ks[4] >= writes[1].0 + 2,
            "{beats:?}"
        );
        assert!(beats[..3].iter().all(|b| b.2 > 100 && b.2 < 60_000));
        assert!(beats[3..].iter().all(|b| b.2 == 60_000));
        let counted: Vec<bool> = beats.iter().map(|b| b.2 <= r_min(b.0)).collect();
        assert_eq!(counted, [false, false, true, true, false, false]);
        // The count: 1 (flow 3) from round 1's third beat + 7, then 2
        // (flows 1, 3), then 1 (flow 1) once flow 3's beat is seen.
        let at = |b: usize, d: usize| regs[beats[b].0 + d][3];
        assert_eq!((at(2, RMIN_LATENCY - 1), at(2, RMIN_LATENCY)), (0, 1));
        assert_eq!((at(3, RMIN_LATENCY - 1), at(3, RMIN_LATENCY)), (1, 2));
        assert_eq!((at(4, RMIN_LATENCY), at(5, RMIN_LATENCY - 1)), (2, 2));
        assert_eq!(at(5, RMIN_LATENCY), 1);
        assert_eq!(regs[699][2..], [6, 1]);
        assert_eq!(read(&mut n, 0x01C), 1);
        assert_eq!(read(&mut n, 0x018), 6);
    }

    #[test]
    fn a_reset_empties_the_nic_and_ready_waits_for_every_clearing() {
        let mut c = small();
        c.np.interval = 0;
        let mut n = cleared(c);
        // Fill the CNP FIFO, the skid; a held write address; a read
        // answered but not taken; then a write made in the cycle before
        // the reset (its cfg cycle is the reset's).
        let (_, _) = run(&mut n, 20, |k, _| match k {
            0..=5 => rx(false, ecn::CE, k as u32),
            6 => NicIn {
                tx_valid: true,
                tx_flow: 2,
                tx_bytes: 100,
                ..rx(true, 0, 1)
            },
            7 => aw(0x300),
            8 => ar(0x000),
            _ => idle(),
        });
        assert_eq!(n.cnp_fifo_len(), 4);
        assert_eq!(n.cnp_drops(), 2);
        // (The skid's event went into rp in the cycle after the CNP.)
        let o = n.outputs();
        assert!(!o.awready && o.wready && o.rvalid && o.rdata == ID && o.cnp_valid);
        n.step(&w(9, 0xf)); // the write to 0x300 is made
        n.step(&NicIn {
            rst: true,
            ..aw_w(0x214, 1, 0xf)
        });
        let o = n.outputs();
        assert!(o.awready && o.wready && !o.bvalid && !o.rvalid && o.rdata == 0);
        assert!(o.arready && !o.cnp_valid && o.cnp_flow == 0);
        assert!(!o.rx_ready && !o.tx_ready && !o.req_ready);
        assert_eq!(
            [
                n.cnp_requests(),
                n.cnp_drops(),
                n.rate_cuts(),
                n.rmin_flows()
            ],
            [0; 4]
        );
        assert_eq!(n.read_register(0x300), 16_384);
        assert_eq!(n.pacer().bucket(), 16_384);
        assert_eq!(n.read_register(0x214), n.rp().regs().r_ai);
        assert_eq!(n.read_register(0x214), c.rp.r_ai);
        assert_eq!((n.cnp_fifo_len(), n.skid()), (0, None));
        // status.ready low in r + 1 ..= r + 1025 (rp's clearing is the
        // longest: max(16, 4 x 2^8) + 1), high from r + 1026.
        assert_eq!(n.rp().config().shape.clear_cycles(), 1025);
        let mut low = 0;
        while n.read_register(0x008) == 0 {
            assert!(!n.ready());
            n.step(&idle());
            low += 1;
        }
        assert_eq!(low, 1025);
        assert!(n.ready() && n.outputs().rx_ready && n.outputs().tx_ready);
    }

    #[test]
    fn requests_get_their_grants_sixteen_cycles_later() {
        let mut n = cleared(small());
        // (flow, bytes); each request held until it moves.
        let reqs = [(3u32, 100u32), (0xFFF3, 20_000), (5, 16_384)];
        let mut next = 0;
        let mut moved = vec![];
        let (outs, _) = run(&mut n, 40, |k, n| {
            let Some(&(f, b)) = reqs.get(next) else {
                return idle();
            };
            if n.outputs().req_ready {
                moved.push(k);
                next += 1;
            }
            NicIn {
                req_valid: true,
                req_flow: f,
                req_bytes: b | 0xF_0000,
                ..idle()
            }
        });
        assert_eq!(PACER_LATENCY, 16);
        assert_eq!(moved.len(), 3);
        let got: Vec<(usize, bool, u32)> = (0..40)
            .filter(|&k| outs[k].grant_valid)
            .map(|k| (k, outs[k].grant, outs[k].grant_flow))
            .collect();
        // Full buckets of 16,384 bytes: 100 and 16,384 granted, 20,000 not.
        let want: Vec<(usize, bool, u32)> = vec![
            (moved[0] + 16, true, 3),
            (moved[1] + 16, false, 3),
            (moved[2] + 16, true, 5),
        ];
        assert_eq!(got, want);
        assert!(outs
            .iter()
            .all(|o| o.grant_valid || (!o.grant && o.grant_flow == 0)));
        // The pacer's refresh cycles (1 in 4) are the cycles req_ready is low.
        assert!(outs.iter().filter(|o| !o.req_ready).count() >= 9);
    }

    #[test]
    fn garbage_above_the_port_widths_and_in_idle_payloads_changes_nothing() {
        let mut clean = Nic::new(small()).unwrap();
        let mut dirty = clean.clone();
        // Cycles with a CNP out, a grant, a write response, read data not 0.
        let mut seen = [0u32; 4];
        let mut r = 0x2545_f491u32;
        let mut draw = || {
            r = xorshift::next(r);
            r
        };
        let addrs = [
            0x000, 0x010, 0x014, 0x01C, 0x100, 0x214, 0x210, 0x300, 0x304, 0x308, 0x0F0,
        ];
        for k in 0..30_000 {
            let (a, b, c) = (draw(), draw(), draw());
            let v = |bit: u32| a >> bit & 1 != 0 && a >> (bit + 8) & 1 != 0;
            let i = NicIn {
                rst: k == 5000 || (k > 6000 && a % 9000 == 0),
                rx_valid: v(0),
                rx_cnp: b & 1 != 0,
                rx_ecn: (b >> 1) as u8 & 3,
                rx_flow: b >> 4 & 15,
                tx_valid: v(1),
                tx_bytes: c & 0xffff,
                tx_flow: c >> 16 & 15,
                req_valid: v(2),
                req_bytes: c >> 8 & 0xffff,
                req_flow: b >> 8 & 15,
                cnp_ready: v(3),
                awvalid: v(4),
                awaddr: addrs[(b >> 12) as usize % addrs.len()],
                wvalid: v(5),
                wdata: c,
                wstrb: (b >> 16) as u8 & 15,
                bready: v(6),
                arvalid: v(7),
                araddr: addrs[(b >> 20) as usize % addrs.len()],
                rready: a >> 16 & 1 != 0,
            };
            // The payloads only while their valid is high, and masked.
            let keep = |valid: bool, x: u32| if valid { x } else { 0 };
            let ci = NicIn {
                rx_cnp: i.rx_valid && i.rx_cnp,
                rx_ecn: keep(i.rx_valid, i.rx_ecn as u32) as u8,
                rx_flow: keep(i.rx_valid, i.rx_flow),
                tx_bytes: keep(i.tx_valid, i.tx_bytes),
                tx_flow: keep(i.tx_valid, i.tx_flow),
                req_bytes: keep(i.req_valid, i.req_bytes),
                req_flow: keep(i.req_valid, i.req_flow),
                awaddr: keep(i.awvalid, i.awaddr),
                wdata: keep(i.wvalid, i.wdata),
                wstrb: keep(i.wvalid, i.wstrb as u32) as u8,
                araddr: keep(i.arvalid, i.araddr),
                ..i
            };
            let g = draw();
            let junk = |valid: bool, x: u32, width: u32| {
                if valid {
                    x | g << width
                } else {
                    g
                }
            };
            let di = NicIn {
                rx_cnp: if i.rx_valid { i.rx_cnp } else { g & 1 != 0 },
                rx_ecn: junk(i.rx_valid, i.rx_ecn as u32, 2) as u8,
                rx_flow: junk(i.rx_valid, i.rx_flow, 4),
                tx_bytes: junk(i.tx_valid, i.tx_bytes, 16),
                tx_flow: junk(i.tx_valid, i.tx_flow, 4),
                req_bytes: junk(i.req_valid, i.req_bytes, 16),
                req_flow: junk(i.req_valid, i.req_flow, 4),
                awaddr: junk(i.awvalid, i.awaddr, 12) | keep(i.awvalid, g & 3),
                wdata: if i.wvalid { i.wdata } else { g },
                wstrb: junk(i.wvalid, i.wstrb as u32, 4) as u8,
                araddr: junk(i.arvalid, i.araddr, 12) | keep(i.arvalid, g >> 2 & 3),
                ..i
            };
            let (oc, od) = (clean.outputs(), dirty.outputs());
            assert_eq!(clean.step(&ci), oc, "outputs are state only");
            assert_eq!(dirty.step(&di), od);
            assert_eq!(oc, od, "cycle {k}");
            assert!(oc.rvalid || oc.rdata == 0);
            assert!(oc.cnp_valid || oc.cnp_flow == 0);
            assert!(oc.bresp == 0 && oc.rresp == 0);
            for (s, b) in
                seen.iter_mut()
                    .zip([oc.cnp_valid, oc.grant_valid, oc.bvalid, oc.rdata != 0])
            {
                *s += b as u32;
            }
        }
        assert!(seen.iter().all(|&s| s > 100), "{seen:?}");
    }

    #[test]
    fn the_copies_equal_the_blocks_registers() {
        // Random writes of every block register, with random strobes: the
        // copy read back is what the block holds (rp's profile as its
        // 2-bit value).
        let mut n = cleared(small());
        let mut r = 0x1357_9bdfu32;
        let map: Vec<MapEntry> = n.map().to_vec();
        for _ in 0..300 {
            r = xorshift::next(r);
            let e = &map[r as usize % map.len()];
            if e.block == "nic"
                || (e.block == "rp" && rp::FORGETTING.contains(&((e.offset - RP_BASE) / 4)))
            {
                continue;
            }
            let old = n.read_register(e.offset);
            let strb = (r >> 8) as u8 & 15;
            let data = xorshift::next(r);
            write(&mut n, e.offset, data, strb);
            let m: u32 = (0..4)
                .filter(|b| strb >> b & 1 != 0)
                .map(|b| 0xffu32 << (8 * b))
                .sum();
            let want = ((data & m) | (old & !m)) & ((1u64 << e.width) - 1) as u32;
            assert_eq!(n.read_register(e.offset), want, "{}", e.name);
            let held = match e.block {
                "np" => n.np().interval(),
                "rp" => n.rp().regs().read((e.offset - RP_BASE) / 4).unwrap(),
                _ => n
                    .pacer()
                    .params()
                    .read((e.offset - PACER_BASE) / 4)
                    .unwrap(),
            };
            assert_eq!(held, want, "{}", e.name);
        }
    }

    #[test]
    fn the_register_map_has_every_block_register_once() {
        for c in [NicConfig::default(), small()] {
            let map = register_map(&c).unwrap();
            let b = c.shape.blocks().unwrap();
            let f = c.shape.flow_bits;
            let mut offsets: Vec<u32> = map.iter().map(|e| e.offset).collect();
            assert!(offsets.windows(2).all(|p| p[0] < p[1]), "sorted and unique");
            offsets.dedup();
            assert_eq!(offsets.len(), map.len());
            assert!(map.iter().all(|e| e.offset % 4 == 0 && e.offset < 0x400));
            let own: Vec<(u32, &str, u32, u32, &str)> = map
                .iter()
                .filter(|e| e.block == "nic")
                .map(|e| (e.offset, e.name, e.width, e.reset, e.access))
                .collect();
            let clears = "read, write clears";
            assert_eq!(
                own,
                vec![
                    (0x000, "id", 32, 0x6E69_6331, "read"),
                    (0x004, "shape", 16, f | b.cnp_fifo_bits << 8, "read"),
                    (0x008, "status", 1, 0, "read"),
                    (0x010, "cnp_requests", 32, 0, clears),
                    (0x014, "cnp_drops", 32, 0, clears),
                    (0x018, "rate_cuts", 32, 0, clears),
                    (0x01C, "rmin_flows", f + 1, 0, "read"),
                ]
            );
            let np: Vec<&MapEntry> = map.iter().filter(|e| e.block == "np").collect();
            assert_eq!(np.len(), 1);
            assert_eq!(
                (np[0].offset, np[0].name, np[0].width, np[0].reset),
                (0x100, "interval", b.np.interval_bits, c.np.interval)
            );
            type Regs = Vec<(crate::register::Register, Option<u32>)>;
            let blocks: [(&str, u32, Regs); 2] = [
                (
                    "rp",
                    0x200,
                    rp::REGISTERS
                        .iter()
                        .map(|r| (*r, c.rp.read(r.addr)))
                        .collect(),
                ),
                (
                    "pacer",
                    0x300,
                    pacer::REGISTERS
                        .iter()
                        .map(|r| (*r, c.pacer.read(r.addr)))
                        .collect(),
                ),
            ];
            for (block, base, regs) in blocks {
                assert_eq!(map.iter().filter(|e| e.block == block).count(), regs.len());
                for (r, reset) in regs {
                    let e = map.iter().find(|e| e.offset == base + 4 * r.addr).unwrap();
                    assert_eq!(
                        (e.block, e.name, e.width, Some(e.reset), e.access, e.doc),
                        (block, r.name, r.bits, reset, "read/write", r.doc)
                    );
                }
            }
            assert!(map
                .iter()
                .all(|e| e.reset < (1u64 << e.width) as u32 || e.width == 32));
            let md = regmap_markdown(&c).unwrap();
            assert_eq!(md.lines().count(), map.len() + 2);
            assert!(
                md.starts_with("| Offset | Block | Name | Width | Reset | Access | Meaning |\n")
            );
            assert!(md.contains("\n| `0x000` | nic | `id` | 32 | `0x6E696331` | read | "));
            assert!(md.contains(&format!(
                "\n| `0x208` | rp | `flows_in_use` | 18 | `0x{:X}` | read/write | ",
                1u32 << f
            )));
        }
        let map = register_map(&NicConfig::default()).unwrap();
        let e = map.iter().find(|e| e.name == "profile").unwrap();
        assert_eq!((e.offset, e.block), (0x200, "rp"));
        let e = map.iter().find(|e| e.name == "bucket").unwrap();
        assert_eq!((e.offset, e.reset), (0x300, 16_384));
        let e = map.iter().find(|e| e.name == "shape").unwrap();
        assert_eq!(e.reset, 0x040C);
    }

    #[test]
    fn the_menu_names_shapes_from_the_blocks_menus() {
        assert_eq!(SUPPORTED_FLOW_BITS, &[12, 4]);
        assert_eq!(
            block_shapes(12),
            Some(NicBlockShapes {
                np: NpShape {
                    flow_bits: 12,
                    interval_bits: 16
                },
                rp: RpShape {
                    flow_bits: 14,
                    stamp_bits: 10,
                    fifo_bits: 9,
                    steps: 4
                },
                pacer: PacerShape {
                    flow_bits: 12,
                    refresh_bits: 10
                },
                cnp_fifo_bits: 4,
            })
        );
        assert_eq!(
            block_shapes(4),
            Some(NicBlockShapes {
                np: NpShape {
                    flow_bits: 4,
                    interval_bits: 4
                },
                rp: RpShape {
                    flow_bits: 4,
                    stamp_bits: 8,
                    fifo_bits: 2,
                    steps: 4
                },
                pacer: PacerShape {
                    flow_bits: 4,
                    refresh_bits: 2
                },
                cnp_fifo_bits: 2,
            })
        );
        for &(f, b) in SHAPE_MENU {
            b.np.validate().unwrap();
            b.rp.validate_rtl().unwrap();
            b.pacer.validate().unwrap();
            assert_eq!((b.np.flow_bits, b.pacer.flow_bits), (f, f));
            assert!(b.rp.flow_bits >= f);
            clearing_order(&b.rp, &b.pacer).unwrap();
            let c = NicConfig::reset_for(NicShape { flow_bits: f }).unwrap();
            c.validate().unwrap();
            assert_eq!(c.rp.flows_in_use, 1 << f);
        }
        let c = NicConfig::default();
        assert_eq!(c.shape.flow_bits, 12);
        assert_eq!((c.rp.flows_in_use, c.np.interval), (4096, 10_000));
        assert_eq!(
            RpParams {
                flows_in_use: 16_384,
                ..c.rp
            },
            RpParams::reset_for(&block_shapes(12).unwrap().rp)
        );
        assert_eq!(
            c.pacer,
            PacerParams::reset_for(&block_shapes(12).unwrap().pacer)
        );
        assert!(Nic::new(c).is_ok());
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        fn name<T>(r: Result<T, ParamError>) -> &'static str {
            match r {
                Ok(_) => "ok",
                Err(e) => e.name,
            }
        }
        for f in [0, 8, 13, 16] {
            let s = NicShape { flow_bits: f };
            assert_eq!(name(s.validate()), "flow_bits");
            assert_eq!(name(NicConfig::reset_for(s)), "flow_bits");
            let c = NicConfig {
                shape: s,
                ..NicConfig::default()
            };
            assert_eq!(name(c.validate()), "flow_bits");
            assert_eq!(name(Nic::new(c)), "flow_bits");
            assert_eq!(name(register_map(&c)), "flow_bits");
            assert_eq!(name(c.np_config()), "flow_bits");
        }
        let mut c = small();
        c.np.interval = 16; // 4 bits
        assert_eq!(name(Nic::new(c)), "interval");
        let mut c = small();
        c.rp.r_min = c.rp.line_rate + 1;
        assert_eq!(name(Nic::new(c)), "r_min");
        let mut c = small();
        c.rp.flows_in_use = 17;
        assert_eq!(name(c.validate()), "flows_in_use");
        let mut c = small();
        c.pacer.init_rate = 1 << 19;
        assert_eq!(name(regmap_markdown(&c)), "init_rate");
        // The default config's rp (16,384 flows in use) on the default
        // shape is valid, but on the small shape refused.
        let c = NicConfig {
            rp: RpParams::reset_for(&RpShape::default()),
            ..small()
        };
        assert_eq!(name(c.validate()), "flows_in_use");
        // A pacer that would clear longer than rp.
        let rp = RpShape {
            flow_bits: 4,
            stamp_bits: 6,
            fifo_bits: 2,
            steps: 4,
        };
        assert_eq!(rp.clear_cycles(), 257);
        let pacer = PacerShape {
            flow_bits: 12,
            refresh_bits: 2,
        };
        assert_eq!(name(clearing_order(&rp, &pacer)), "flow_bits");
        let pacer = PacerShape {
            flow_bits: 8,
            refresh_bits: 2,
        };
        assert_eq!(name(clearing_order(&rp, &pacer)), "ok");
    }
}
