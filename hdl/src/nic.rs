//! NIC — np, rp and the pacer behind AXI-Stream ports and an AXI4-Lite
//! register file. The cycle contract is docs/nic.md ("The cycle
//! contract"), the same page the golden model `ccrtl_golden::nic` is
//! written from; the blocks keep their own contracts.
//!
//! # Generation-time parameters
//! - `F` = the nic's `flow_bits`; `X1 = F + 1`, `X3 = F + 3`, `X16 = F +
//!   16` the `tdata` widths (rust-hdl has no const arithmetic in types);
//! - `NF, NN, NT`: np's shape (flow, interval, stamp bits), `RF, RW, RQ,
//!   RC`: rp's (flow, stamp, fifo bits, its derived width), `PF, PR, PT`:
//!   the pacer's (flow, refresh, stamp bits); each block's flow width is
//!   `F` or more (ids zero-extended in, cut to `F` bits out);
//! - the CNP FIFO's capacity `2^cnp_fifo_bits` (at most [`FIFO_SLOTS`]);
//! - the blocks' registers' reset values.
//!
//! # Structure
//! - The rx split and rp's event slot: combinational from the blocks'
//!   ready outputs (state) and the streams' valid and `tdata`; a
//!   transmitted-bytes event that loses the slot to a CNP waits in a skid
//!   register (one entry: `s_axis_tx_tready` is low while it is full).
//! - The CNP FIFO: [`FIFO_SLOTS`] registers as a shift register (slot 0 is
//!   the oldest, `m_axis_cnp_tdata`), a count; a push writes slot `count -
//!   pop`. The capacity is a parameter below the slot count.
//! - AXI4-Lite: a holding register per write channel (`aw`, `w`), the
//!   write made when both are held or moving and `bvalid` is low; the
//!   merged value (strobes over the value in force) is registered with its
//!   word address (`wr_*`), and in the next cycle it goes to the block's
//!   `cfg` port and into the nic's copy of the register, so the copy
//!   changes in the cycle the block's register does. Reads select from the
//!   copies and the nic's own registers into `rdata`.
//! - The per-flow bit "last rate at or below `r_min`": a [`PipeRam1`] of
//!   `2^F x 1` read for every rate-stream beat (word 5 cycles later), the
//!   new bit written at stage 5; the count is updated from stage 6 (seen 7
//!   cycles after the beat). No forwarding: rp visits a flow at most once
//!   in `DEPTH` = 64 cycles (its contract, `ccrtl_golden::rp`), so two
//!   beats of one flow are 64 or more cycles apart and each reads the bit
//!   the last one wrote. Cleared after a reset like np's table (flow 0 in
//!   the reset cycle, flows 1 to `2^F - 1` in the next `2^F` cycles).

use ccrtl_golden::nic::{NicConfig, NicIn, NicOut};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::np::Np;
use crate::pacer::Pacer;
use crate::param::Param;
use crate::ram::PipeRam1;
use crate::rp::Rp;

/// Registers of the CNP FIFO (its capacity is at most this).
pub const FIFO_SLOTS: usize = 16;
/// np's registers in the map (`interval`).
pub const NP_REGS: usize = 1;
/// rp's registers in the map.
pub const RP_REGS: usize = ccrtl_golden::rp::REGISTERS.len();
/// The pacer's registers in the map.
pub const PACER_REGS: usize = ccrtl_golden::pacer::REGISTERS.len();
/// The block registers the nic keeps a copy of: np's, then rp's, then the
/// pacer's.
pub const COPIES: usize = NP_REGS + RP_REGS + PACER_REGS;

// Word addresses (byte address / 4) of the nic's own registers, written
// as literals in `update` (rust-hdl's kernels take no named constants):
// id 0, shape 1, status 2, cnp_requests 4, cnp_drops 5, rate_cuts 6,
// rmin_flows 7.
/// Word addresses of the blocks' windows.
const W_NP: u64 = 0x100 / 4;
const W_RP: u64 = 0x200 / 4;
const W_PACER: u64 = 0x300 / 4;
/// rp's `r_min` register address.
const RP_R_MIN: usize = 4;

#[derive(LogicBlock, Default)]
pub struct Nic<
    const F: usize,
    const X1: usize,
    const X3: usize,
    const X16: usize,
    const NF: usize,
    const NN: usize,
    const NT: usize,
    const RF: usize,
    const RW: usize,
    const RQ: usize,
    const RC: usize,
    const PF: usize,
    const PR: usize,
    const PT: usize,
> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Received packets' metadata: {cnp, ecn[1:0], flow}.
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    pub s_axis_rx_tready: Signal<Out, Bit>,
    pub s_axis_rx_tdata: Signal<In, Bits<X3>>,
    // Transmitted bytes: {bytes[15:0], flow}.
    pub s_axis_tx_tvalid: Signal<In, Bit>,
    pub s_axis_tx_tready: Signal<Out, Bit>,
    pub s_axis_tx_tdata: Signal<In, Bits<X16>>,
    // Transmit requests: {bytes[15:0], flow}.
    pub s_axis_req_tvalid: Signal<In, Bit>,
    pub s_axis_req_tready: Signal<Out, Bit>,
    pub s_axis_req_tdata: Signal<In, Bits<X16>>,
    // CNP requests: flow.
    pub m_axis_cnp_tvalid: Signal<Out, Bit>,
    pub m_axis_cnp_tready: Signal<In, Bit>,
    pub m_axis_cnp_tdata: Signal<Out, Bits<F>>,
    // Decisions: {grant, flow}.
    pub m_axis_grant_tvalid: Signal<Out, Bit>,
    pub m_axis_grant_tdata: Signal<Out, Bits<X1>>,
    // AXI4-Lite slave.
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<12>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_araddr: Signal<In, Bits<12>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,

    // ---- The blocks ------------------------------------------------------
    np: Np<NF, NN, NT>,
    rp: Rp<RF, RW, RQ, RC>,
    pacer: Pacer<PF, PR, PT>,

    // ---- rp's event slot -------------------------------------------------
    skid_full: DFF<Bit>,
    skid_flow: DFF<Bits<F>>,
    skid_bytes: DFF<Bits<16>>,

    // ---- The CNP FIFO ----------------------------------------------------
    fifo: Vec<DFF<Bits<F>>>,
    fifo_count: DFF<Bits<5>>,

    // ---- AXI4-Lite -------------------------------------------------------
    aw_full: DFF<Bit>,
    aw_addr: DFF<Bits<12>>,
    w_full: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    b_valid: DFF<Bit>,
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    /// The write made in the last cycle: its word address and value.
    wr_go: DFF<Bit>,
    wr_word: DFF<Bits<10>>,
    wr_val: DFF<Bits<32>>,
    /// The copies of the blocks' registers (np's, rp's, the pacer's).
    copy: Vec<DFF<Bits<32>>>,

    // ---- Counters --------------------------------------------------------
    cnt_req: DFF<Bits<32>>,
    cnt_drop: DFF<Bits<32>>,
    cnt_cut: DFF<Bits<32>>,
    cnt_rmin: DFF<Bits<32>>,

    // ---- The per-flow r_min bits ---------------------------------------
    tbl: PipeRam1<1, F>,
    tbusy: DFF<Bit>,
    tptr: DFF<Bits<F>>,
    /// Beats: `tv[k]`, `tf[k]`, `tb[k]` (valid, flow, at r_min) at stage
    /// `k + 1` (stages 1 to 6; the flow to stage 5, its write).
    tv: Vec<DFF<Bit>>,
    tf: Vec<DFF<Bits<F>>>,
    tb: Vec<DFF<Bit>>,
    /// The flow's bit before the beat (stage 6).
    t6_old: DFF<Bit>,

    // ---- Combinational ---------------------------------------------------
    rx_ready: Signal<Local, Bit>,
    tx_ready: Signal<Local, Bit>,
    rx_go: Signal<Local, Bit>,
    rx_hi: Signal<Local, Bits<X3>>,
    rx_cnp: Signal<Local, Bit>,
    rx_flow: Signal<Local, Bits<F>>,
    tx_go: Signal<Local, Bit>,
    tx_flow: Signal<Local, Bits<F>>,
    tx_bytes: Signal<Local, Bits<16>>,
    cnp_v: Signal<Local, Bit>,
    cnp_f: Signal<Local, Bits<F>>,
    pop: Signal<Local, Bit>,
    store: Signal<Local, Bit>,
    slot: Signal<Local, Bits<5>>,
    aw_have: Signal<Local, Bit>,
    aw_a: Signal<Local, Bits<12>>,
    aw_w: Signal<Local, Bits<10>>,
    w_have: Signal<Local, Bit>,
    w_d: Signal<Local, Bits<32>>,
    w_s: Signal<Local, Bits<4>>,
    do_wr: Signal<Local, Bit>,
    m0: Signal<Local, Bits<8>>,
    m1: Signal<Local, Bits<8>>,
    m2: Signal<Local, Bits<8>>,
    m3: Signal<Local, Bits<8>>,
    smask: Signal<Local, Bits<32>>,
    /// The value in force of the register the write addresses.
    wr_cur: Signal<Local, Bits<32>>,
    ar_w: Signal<Local, Bits<10>>,
    rd_val: Signal<Local, Bits<32>>,
    ready: Signal<Local, Bit>,
    rp_hit: Signal<Local, Bit>,
    pacer_hit: Signal<Local, Bit>,
    rate_flow: Signal<Local, Bits<F>>,
    sweep: Signal<Local, Bit>,

    // ---- Generation-time constants ---------------------------------------
    /// `F`, the position of the bits above the flow in `tdata`.
    fpos: Param<Bits<8>>,
    fpos2: Param<Bits<8>>,
    fifo_cap: Param<Bits<5>>,
    slot_idx: Vec<Param<Bits<5>>>,
    copy_word: Vec<Param<Bits<10>>>,
    copy_mask: Vec<Param<Bits<32>>>,
    copy_reset: Vec<Param<Bits<32>>>,
    id: Param<Bits<32>>,
    shape: Param<Bits<32>>,
    ones: Param<Bits<32>>,
}

impl<
        const F: usize,
        const X1: usize,
        const X3: usize,
        const X16: usize,
        const NF: usize,
        const NN: usize,
        const NT: usize,
        const RF: usize,
        const RW: usize,
        const RQ: usize,
        const RC: usize,
        const PF: usize,
        const PR: usize,
        const PT: usize,
    > Nic<F, X1, X3, X16, NF, NN, NT, RF, RW, RQ, RC, PF, PR, PT>
{
    /// The block with the reset values of `config`. The caller has
    /// validated `config` and chosen the generics from its shape.
    pub fn new(config: &NicConfig) -> Self {
        const OK: &str = "a nic configuration is validated before its block is made";
        let blocks = config.shape.blocks().expect(OK);
        assert_eq!(config.shape.flow_bits as usize, F);
        assert!(X1 == F + 1 && X3 == F + 3 && X16 == F + 16);
        let cap = 1usize << blocks.cnp_fifo_bits;
        assert!(cap <= FIFO_SLOTS);
        let np_c = config.np_config().expect(OK);
        let rp_c = config.rp_config().expect(OK);
        let pacer_c = config.pacer_config().expect(OK);
        // (word, width, reset) of every copy, in the order of `copy`.
        let mut regs: Vec<(u64, u32, u32)> =
            vec![(W_NP, np_c.shape.interval_bits, np_c.reset.interval)];
        assert_eq!(ccrtl_golden::rp::REGISTERS.len(), RP_REGS);
        for r in ccrtl_golden::rp::REGISTERS {
            let v = rp_c.reset.read(r.addr).expect("a mapped register reads");
            regs.push((W_RP + r.addr as u64, r.bits, v));
        }
        for r in ccrtl_golden::pacer::REGISTERS {
            let v = pacer_c.reset.read(r.addr).expect("a mapped register reads");
            regs.push((W_PACER + r.addr as u64, r.bits, v));
        }
        assert_eq!(regs.len(), COPIES);
        // `update` reads r_min's copy as `copy[5]`.
        assert_eq!(ccrtl_golden::rp::REGISTERS[RP_R_MIN].name, "r_min");
        assert_eq!(NP_REGS + RP_R_MIN, 5);
        let mask = |b: u32| {
            if b >= 32 {
                u32::MAX as u64
            } else {
                (1u64 << b) - 1
            }
        };
        let fresh = |n: usize| -> Vec<DFF<Bit>> { (0..n).map(|_| DFF::default()).collect() };
        Self {
            np: Np::new(&np_c),
            rp: Rp::new(&rp_c),
            pacer: Pacer::new(&pacer_c),
            fifo: (0..FIFO_SLOTS).map(|_| DFF::default()).collect(),
            copy: (0..COPIES).map(|_| DFF::default()).collect(),
            tv: fresh(6),
            tf: (0..5).map(|_| DFF::default()).collect(),
            tb: fresh(6),
            fpos: Param::new((F as u64).to_bits()),
            fpos2: Param::new((F as u64 + 2).to_bits()),
            fifo_cap: Param::new((cap as u64).to_bits()),
            slot_idx: (0..FIFO_SLOTS)
                .map(|i| Param::new((i as u64).to_bits()))
                .collect(),
            copy_word: regs.iter().map(|r| Param::new(r.0.to_bits())).collect(),
            copy_mask: regs
                .iter()
                .map(|r| Param::new(mask(r.1).to_bits()))
                .collect(),
            copy_reset: regs
                .iter()
                .map(|r| Param::new((r.2 as u64).to_bits()))
                .collect(),
            id: Param::new((ccrtl_golden::nic::ID as u64).to_bits()),
            shape: Param::new(((F as u64) | (blocks.cnp_fifo_bits as u64) << 8).to_bits()),
            ones: Param::new((u32::MAX as u64).to_bits()),
            ..Default::default()
        }
    }
}

impl<
        const F: usize,
        const X1: usize,
        const X3: usize,
        const X16: usize,
        const NF: usize,
        const NN: usize,
        const NT: usize,
        const RF: usize,
        const RW: usize,
        const RQ: usize,
        const RC: usize,
        const PF: usize,
        const PR: usize,
        const PT: usize,
    > Logic for Nic<F, X1, X3, X16, NF, NN, NT, RF, RW, RQ, RC, PF, PR, PT>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, skid_full, skid_flow, skid_bytes, fifo_count, aw_full, aw_addr, w_full,
            w_data, w_strb, b_valid, r_valid, r_data, wr_go, wr_word, wr_val, cnt_req, cnt_drop,
            cnt_cut, cnt_rmin, tbusy, tptr, t6_old
        );
        for i in 0..FIFO_SLOTS {
            self.fifo[i].clock.next = self.clk.val();
            self.fifo[i].d.next = self.fifo[i].q.val();
        }
        for i in 0..COPIES {
            self.copy[i].clock.next = self.clk.val();
            self.copy[i].d.next = self.copy[i].q.val();
        }
        for i in 0..6 {
            self.tv[i].clock.next = self.clk.val();
            self.tb[i].clock.next = self.clk.val();
        }
        for i in 0..5 {
            self.tf[i].clock.next = self.clk.val();
        }
        self.np.clk.next = self.clk.val();
        self.rp.clk.next = self.clk.val();
        self.pacer.clk.next = self.clk.val();
        self.tbl.clock.next = self.clk.val();
        self.np.rst.next = self.rst.val();
        self.rp.rst.next = self.rst.val();
        self.pacer.rst.next = self.rst.val();

        // ---- The rx split and rp's event slot ------------------------------
        self.rx_ready.next = self.np.s_pkt_ready.val() & self.rp.s_evt_ready.val();
        self.tx_ready.next = self.rp.s_evt_ready.val() & !self.skid_full.q.val();
        self.rx_go.next = self.s_axis_rx_tvalid.val() & self.rx_ready.val();
        self.rx_hi.next = self.s_axis_rx_tdata.val() >> self.fpos2.val();
        self.rx_cnp.next = self.rx_hi.val().get_bit(0);
        self.rx_flow.next = bit_cast::<F, X3>(self.s_axis_rx_tdata.val());
        self.tx_go.next = self.s_axis_tx_tvalid.val() & self.tx_ready.val();
        self.tx_flow.next = bit_cast::<F, X16>(self.s_axis_tx_tdata.val());
        self.tx_bytes.next = bit_cast::<16, X16>(self.s_axis_tx_tdata.val() >> self.fpos.val());

        self.np.s_pkt_valid.next = self.rx_go.val() & !self.rx_cnp.val();
        self.np.s_pkt_flow.next = bit_cast::<NF, F>(self.rx_flow.val());
        self.np.s_pkt_ecn.next = bit_cast::<2, X3>(self.s_axis_rx_tdata.val() >> self.fpos.val());

        self.rp.s_evt_valid.next = false;
        self.rp.s_evt_kind.next = true;
        self.rp.s_evt_flow.next = bit_cast::<RF, F>(self.tx_flow.val());
        self.rp.s_evt_bytes.next = self.tx_bytes.val();
        if self.tx_go.val() {
            self.rp.s_evt_valid.next = true;
        }
        if self.skid_full.q.val() & self.rp.s_evt_ready.val() {
            self.rp.s_evt_valid.next = true;
            self.rp.s_evt_flow.next = bit_cast::<RF, F>(self.skid_flow.q.val());
            self.rp.s_evt_bytes.next = self.skid_bytes.q.val();
            self.skid_full.d.next = false;
        }
        if self.rx_go.val() & self.rx_cnp.val() {
            self.rp.s_evt_valid.next = true;
            self.rp.s_evt_kind.next = false;
            self.rp.s_evt_flow.next = bit_cast::<RF, F>(self.rx_flow.val());
            self.skid_full.d.next = self.skid_full.q.val();
            if self.tx_go.val() {
                self.skid_full.d.next = true;
                self.skid_flow.d.next = self.tx_flow.val();
                self.skid_bytes.d.next = self.tx_bytes.val();
            }
        }

        // ---- The pacer -------------------------------------------------------
        self.pacer.s_req_valid.next = self.s_axis_req_tvalid.val() & self.pacer.s_req_ready.val();
        self.pacer.s_req_flow.next =
            bit_cast::<PF, F>(bit_cast::<F, X16>(self.s_axis_req_tdata.val()));
        self.pacer.s_req_bytes.next =
            bit_cast::<16, X16>(self.s_axis_req_tdata.val() >> self.fpos.val());
        self.rate_flow.next = bit_cast::<F, RF>(self.rp.m_rate_flow.val());
        self.pacer.s_rate_valid.next = self.rp.m_rate_valid.val();
        self.pacer.s_rate_flow.next = bit_cast::<PF, F>(self.rate_flow.val());
        self.pacer.s_rate_rc.next = self.rp.m_rate_rc.val();

        self.m_axis_grant_tvalid.next = self.pacer.m_dec_valid.val();
        self.m_axis_grant_tdata.next =
            bit_cast::<X1, F>(bit_cast::<F, PF>(self.pacer.m_dec_flow.val()))
                | (bit_cast::<X1, 1>(self.pacer.m_dec_grant.val().into()) << self.fpos.val());

        // ---- The CNP FIFO ----------------------------------------------------
        self.cnp_v.next = self.np.m_cnp_valid.val();
        self.cnp_f.next = bit_cast::<F, NF>(self.np.m_cnp_flow.val());
        self.pop.next = (self.fifo_count.q.val() != 0) & self.m_axis_cnp_tready.val();
        self.store.next =
            self.cnp_v.val() & ((self.fifo_count.q.val() < self.fifo_cap.val()) | self.pop.val());
        self.slot.next = self.fifo_count.q.val();
        if self.pop.val() {
            self.slot.next = self.fifo_count.q.val() - 1;
            for i in 0..(FIFO_SLOTS - 1) {
                self.fifo[i].d.next = self.fifo[i + 1].q.val();
            }
        }
        if self.store.val() {
            for i in 0..FIFO_SLOTS {
                if self.slot.val() == self.slot_idx[i].val() {
                    self.fifo[i].d.next = self.cnp_f.val();
                }
            }
        }
        if self.store.val() & !self.pop.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() + 1;
        }
        if self.pop.val() & !self.store.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() - 1;
        }
        self.m_axis_cnp_tvalid.next = self.fifo_count.q.val() != 0;
        self.m_axis_cnp_tdata.next = 0.into();
        if self.fifo_count.q.val() != 0 {
            self.m_axis_cnp_tdata.next = self.fifo[0].q.val();
        }

        // ---- AXI4-Lite writes ------------------------------------------------
        self.aw_have.next = self.aw_full.q.val() | self.s_axil_awvalid.val();
        self.aw_a.next = self.s_axil_awaddr.val();
        if self.aw_full.q.val() {
            self.aw_a.next = self.aw_addr.q.val();
        }
        self.aw_w.next = bit_cast::<10, 12>(self.aw_a.val() >> 2);
        self.w_have.next = self.w_full.q.val() | self.s_axil_wvalid.val();
        self.w_d.next = self.s_axil_wdata.val();
        self.w_s.next = self.s_axil_wstrb.val();
        if self.w_full.q.val() {
            self.w_d.next = self.w_data.q.val();
            self.w_s.next = self.w_strb.q.val();
        }
        self.do_wr.next = self.aw_have.val() & self.w_have.val() & !self.b_valid.q.val();
        self.m0.next = 0.into();
        if self.w_s.val().get_bit(0) {
            self.m0.next = 255.into();
        }
        self.m1.next = 0.into();
        if self.w_s.val().get_bit(1) {
            self.m1.next = 255.into();
        }
        self.m2.next = 0.into();
        if self.w_s.val().get_bit(2) {
            self.m2.next = 255.into();
        }
        self.m3.next = 0.into();
        if self.w_s.val().get_bit(3) {
            self.m3.next = 255.into();
        }
        self.smask.next = bit_cast::<32, 8>(self.m0.val())
            | (bit_cast::<32, 8>(self.m1.val()) << 8)
            | (bit_cast::<32, 8>(self.m2.val()) << 16)
            | (bit_cast::<32, 8>(self.m3.val()) << 24);
        self.wr_cur.next = 0.into();
        for i in 0..COPIES {
            if self.aw_w.val() == self.copy_word[i].val() {
                self.wr_cur.next = self.copy[i].q.val();
            }
        }
        self.wr_go.d.next = self.do_wr.val();
        if self.do_wr.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.b_valid.d.next = true;
            self.wr_word.d.next = self.aw_w.val();
            self.wr_val.d.next =
                (self.wr_cur.val() & !self.smask.val()) | (self.w_d.val() & self.smask.val());
        } else {
            if self.s_axil_awvalid.val() & !self.aw_full.q.val() {
                self.aw_full.d.next = true;
                self.aw_addr.d.next = self.s_axil_awaddr.val();
            }
            if self.s_axil_wvalid.val() & !self.w_full.q.val() {
                self.w_full.d.next = true;
                self.w_data.d.next = self.s_axil_wdata.val();
                self.w_strb.d.next = self.s_axil_wstrb.val();
            }
        }
        if self.b_valid.q.val() & self.s_axil_bready.val() {
            self.b_valid.d.next = false;
        }

        // The write made in the last cycle: into the block and the copy.
        self.rp_hit.next = false;
        self.pacer_hit.next = false;
        for i in 0..COPIES {
            if self.wr_go.q.val() & (self.wr_word.q.val() == self.copy_word[i].val()) {
                self.copy[i].d.next = self.wr_val.q.val() & self.copy_mask[i].val();
            }
        }
        for i in NP_REGS..(NP_REGS + RP_REGS) {
            if self.wr_word.q.val() == self.copy_word[i].val() {
                self.rp_hit.next = true;
            }
        }
        for i in (NP_REGS + RP_REGS)..COPIES {
            if self.wr_word.q.val() == self.copy_word[i].val() {
                self.pacer_hit.next = true;
            }
        }
        self.np.s_cfg_valid.next =
            self.wr_go.q.val() & (self.wr_word.q.val() == self.copy_word[0].val());
        self.np.s_cfg_interval.next = bit_cast::<NN, 32>(self.wr_val.q.val());
        self.rp.s_cfg_valid.next = self.wr_go.q.val() & self.rp_hit.val();
        self.rp.s_cfg_addr.next = bit_cast::<5, 10>(self.wr_word.q.val());
        self.rp.s_cfg_data.next = self.wr_val.q.val();
        self.pacer.s_cfg_valid.next = self.wr_go.q.val() & self.pacer_hit.val();
        self.pacer.s_cfg_addr.next = bit_cast::<5, 10>(self.wr_word.q.val());
        self.pacer.s_cfg_data.next = self.wr_val.q.val();

        // ---- Counters ----------------------------------------------------------
        if self.cnp_v.val() & (self.cnt_req.q.val() != self.ones.val()) {
            self.cnt_req.d.next = self.cnt_req.q.val() + 1;
        }
        if self.wr_go.q.val() & (self.wr_word.q.val() == 4) {
            self.cnt_req.d.next = bit_cast::<32, 1>(self.cnp_v.val().into());
        }
        if self.cnp_v.val() & !self.store.val() & (self.cnt_drop.q.val() != self.ones.val()) {
            self.cnt_drop.d.next = self.cnt_drop.q.val() + 1;
        }
        if self.wr_go.q.val() & (self.wr_word.q.val() == 5) {
            self.cnt_drop.d.next = bit_cast::<32, 1>((self.cnp_v.val() & !self.store.val()).into());
        }
        if self.rp.m_rate_valid.val()
            & self.rp.m_rate_cut.val()
            & (self.cnt_cut.q.val() != self.ones.val())
        {
            self.cnt_cut.d.next = self.cnt_cut.q.val() + 1;
        }
        if self.wr_go.q.val() & (self.wr_word.q.val() == 6) {
            self.cnt_cut.d.next =
                bit_cast::<32, 1>((self.rp.m_rate_valid.val() & self.rp.m_rate_cut.val()).into());
        }

        // ---- The per-flow r_min bits -------------------------------------------
        // Stage 0: the beat, its bit against r_min in force; the read.
        self.tv[0].d.next = self.rp.m_rate_valid.val();
        self.tf[0].d.next = self.rate_flow.val();
        self.tb[0].d.next = bit_cast::<32, 19>(self.rp.m_rate_rc.val()) <= self.copy[5].q.val();
        self.tbl.read_address_a.next = self.rate_flow.val();
        for i in 1..6 {
            self.tv[i].d.next = self.tv[i - 1].q.val();
            self.tb[i].d.next = self.tb[i - 1].q.val();
        }
        for i in 1..5 {
            self.tf[i].d.next = self.tf[i - 1].q.val();
        }
        // Stage 5: the word.
        self.t6_old.d.next = self.tbl.read_data_a.val().any();
        // Stage 6: the count.
        if self.tv[5].q.val() & self.tb[5].q.val() & !self.t6_old.q.val() {
            self.cnt_rmin.d.next = self.cnt_rmin.q.val() + 1;
        }
        if self.tv[5].q.val() & !self.tb[5].q.val() & self.t6_old.q.val() {
            self.cnt_rmin.d.next = self.cnt_rmin.q.val() - 1;
        }
        // The clearing after a reset, else stage 5's write.
        self.sweep.next = self.rst.val() | (self.tbusy.q.val() & (self.tptr.q.val() != 0));
        self.tbl.write_enable.next = self.tv[4].q.val();
        self.tbl.write_address.next = self.tf[4].q.val();
        self.tbl.write_data.next = bit_cast::<1, 1>(self.tb[4].q.val().into());
        if self.sweep.val() {
            self.tbl.write_enable.next = true;
            self.tbl.write_address.next = self.tptr.q.val();
            self.tbl.write_data.next = 0.into();
        }
        if self.rst.val() {
            self.tbl.write_address.next = 0.into();
        }
        if self.tbusy.q.val() {
            self.tptr.d.next = self.tptr.q.val() + 1;
            if self.tptr.q.val() == 0 {
                self.tbusy.d.next = false;
            }
        }

        // ---- AXI4-Lite reads -----------------------------------------------------
        self.ready.next = self.np.s_pkt_ready.val()
            & self.rp.s_evt_ready.val()
            & self.pacer.s_rate_ready.val()
            & !self.tbusy.q.val();
        self.ar_w.next = bit_cast::<10, 12>(self.s_axil_araddr.val() >> 2);
        self.rd_val.next = 0.into();
        if self.ar_w.val() == 0 {
            self.rd_val.next = self.id.val();
        }
        if self.ar_w.val() == 1 {
            self.rd_val.next = self.shape.val();
        }
        if self.ar_w.val() == 2 {
            self.rd_val.next = bit_cast::<32, 1>(self.ready.val().into());
        }
        if self.ar_w.val() == 4 {
            self.rd_val.next = self.cnt_req.q.val();
        }
        if self.ar_w.val() == 5 {
            self.rd_val.next = self.cnt_drop.q.val();
        }
        if self.ar_w.val() == 6 {
            self.rd_val.next = self.cnt_cut.q.val();
        }
        if self.ar_w.val() == 7 {
            self.rd_val.next = self.cnt_rmin.q.val();
        }
        for i in 0..COPIES {
            if self.ar_w.val() == self.copy_word[i].val() {
                self.rd_val.next = self.copy[i].q.val();
            }
        }
        if self.s_axil_arvalid.val() & !self.r_valid.q.val() {
            self.r_valid.d.next = true;
            self.r_data.d.next = self.rd_val.val();
        }
        if self.r_valid.q.val() & self.s_axil_rready.val() {
            self.r_valid.d.next = false;
            self.r_data.d.next = 0.into();
        }

        // ---- Reset -----------------------------------------------------------------
        if self.rst.val() {
            self.skid_full.d.next = false;
            self.fifo_count.d.next = 0.into();
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.b_valid.d.next = false;
            self.r_valid.d.next = false;
            self.r_data.d.next = 0.into();
            self.wr_go.d.next = false;
            self.cnt_req.d.next = 0.into();
            self.cnt_drop.d.next = 0.into();
            self.cnt_cut.d.next = 0.into();
            self.cnt_rmin.d.next = 0.into();
            self.tbusy.d.next = true;
            self.tptr.d.next = 1.into();
            for i in 0..6 {
                self.tv[i].d.next = false;
            }
            for i in 0..COPIES {
                self.copy[i].d.next = self.copy_reset[i].val();
            }
        }

        // ---- Outputs -------------------------------------------------------------------
        self.s_axis_rx_tready.next = self.rx_ready.val();
        self.s_axis_tx_tready.next = self.tx_ready.val();
        self.s_axis_req_tready.next = self.pacer.s_req_ready.val();
        self.s_axil_awready.next = !self.aw_full.q.val();
        self.s_axil_wready.next = !self.w_full.q.val();
        self.s_axil_bvalid.next = self.b_valid.q.val();
        self.s_axil_bresp.next = 0.into();
        self.s_axil_arready.next = !self.r_valid.q.val();
        self.s_axil_rvalid.next = self.r_valid.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = 0.into();
    }
}

// ---- emission and simulation ---------------------------------------------

/// rust-hdl's Verilog for NIC, as `generate_verilog` writes it.
pub fn raw_verilog(config: &NicConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($($g:tt),*) => {{
            let mut b = Nic::<$($g),*>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_nic_shape!(config.shape, make))
}

/// The finished Verilog file for NIC.
pub fn verilog(config: &NicConfig) -> Result<String, ParamError> {
    use crate::emit::waive_in;
    let raw = raw_verilog(config)?;
    // The blocks' own waivers, in their modules here.
    let raw = waive_in(&raw, "top$rp", "UNUSEDSIGNAL", crate::rp::LINT_WAIVERS);
    let raw = waive_in(
        &raw,
        "top$pacer",
        "UNUSEDSIGNAL",
        crate::pacer::LINT_WAIVERS,
    );
    let raw = waive_in(
        &raw,
        "top",
        "UNUSEDSIGNAL",
        &[(
            "rx_hi",
            "the rx tdata shifted to the CNP flag: only its bit 0 is read",
        )],
    );
    let raw = waive_in(
        &raw,
        "top",
        "UNOPTFLAT",
        &[(
            "rp$s_evt_valid",
            "rp's event valid is computed from rp's s_evt_ready, which rp drives from a \
             register; rust-hdl writes each module's logic as one always block, so Verilator \
             sees a loop at that block's granularity (yosys `check` on the flattened design \
             finds none: tests/nic.rs)",
        )],
    );
    let b = config.shape.blocks()?;
    let mut params: Vec<(String, String)> = vec![
        ("flow_bits", config.shape.flow_bits.to_string()),
        ("cnp_fifo_bits", b.cnp_fifo_bits.to_string()),
        (
            "np shape",
            format!(
                "flow_bits {}, interval_bits {}",
                b.np.flow_bits, b.np.interval_bits
            ),
        ),
        (
            "rp shape",
            format!(
                "flow_bits {}, stamp_bits {}, fifo_bits {}",
                b.rp.flow_bits, b.rp.stamp_bits, b.rp.fifo_bits
            ),
        ),
        (
            "pacer shape",
            format!(
                "flow_bits {}, refresh_bits {}",
                b.pacer.flow_bits, b.pacer.refresh_bits
            ),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for e in ccrtl_golden::nic::register_map(config)? {
        if e.block != "nic" {
            params.push((
                format!("reset.{}.{}", e.block, e.name),
                format!("{} (at {:#05x})", e.reset, e.offset),
            ));
        }
    }
    let params: Vec<(&str, String)> = params
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    Ok(crate::emit::finish(
        "nic",
        "DCQCN in the NIC: np, rp and the pacer behind AXI-Stream ports and AXI4-Lite registers",
        "one event per stream per cycle; outputs depend on state only; the register map in docs/nic.md",
        &params,
        &raw,
    ))
}

/// The rust-hdl NIC block for a configuration.
pub fn sim(config: &NicConfig) -> Result<Box<dyn crate::sim::CycleSim<NicIn, NicOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($($g:tt),*) => {{
            let mut b = Nic::<$($g),*>::new(config);
            b.connect_all();
            Box::new(NicSim(b, config.shape.flow_bits))
                as Box<dyn crate::sim::CycleSim<NicIn, NicOut>>
        }};
    }
    Ok(crate::dispatch_nic_shape!(config.shape, make))
}

struct NicSim<
    const F: usize,
    const X1: usize,
    const X3: usize,
    const X16: usize,
    const NF: usize,
    const NN: usize,
    const NT: usize,
    const RF: usize,
    const RW: usize,
    const RQ: usize,
    const RC: usize,
    const PF: usize,
    const PR: usize,
    const PT: usize,
>(
    Nic<F, X1, X3, X16, NF, NN, NT, RF, RW, RQ, RC, PF, PR, PT>,
    u32,
);

impl<
        const F: usize,
        const X1: usize,
        const X3: usize,
        const X16: usize,
        const NF: usize,
        const NN: usize,
        const NT: usize,
        const RF: usize,
        const RW: usize,
        const RQ: usize,
        const RC: usize,
        const PF: usize,
        const PR: usize,
        const PT: usize,
    > crate::sim::CycleSim<NicIn, NicOut>
    for NicSim<F, X1, X3, X16, NF, NN, NT, RF, RW, RQ, RC, PF, PR, PT>
{
    fn cycle(&mut self, i: &NicIn) -> NicOut {
        let fb = self.1;
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_axis_rx_tvalid.next = i.rx_valid;
        b.s_axis_rx_tdata.next = i.rx_tdata(fb).to_bits();
        b.s_axis_tx_tvalid.next = i.tx_valid;
        b.s_axis_tx_tdata.next = i.tx_tdata(fb).to_bits();
        b.s_axis_req_tvalid.next = i.req_valid;
        b.s_axis_req_tdata.next = i.req_tdata(fb).to_bits();
        b.m_axis_cnp_tready.next = i.cnp_ready;
        b.s_axil_awvalid.next = i.awvalid;
        b.s_axil_awaddr.next = (i.awaddr as u64).to_bits();
        b.s_axil_wvalid.next = i.wvalid;
        b.s_axil_wdata.next = (i.wdata as u64).to_bits();
        b.s_axil_wstrb.next = (i.wstrb as u64).to_bits();
        b.s_axil_bready.next = i.bready;
        b.s_axil_arvalid.next = i.arvalid;
        b.s_axil_araddr.next = (i.araddr as u64).to_bits();
        b.s_axil_rready.next = i.rready;
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "NIC logic did not settle"
        );
        let g = b.m_axis_grant_tdata.val().to_u64();
        let out = NicOut {
            rx_ready: b.s_axis_rx_tready.val(),
            tx_ready: b.s_axis_tx_tready.val(),
            req_ready: b.s_axis_req_tready.val(),
            cnp_valid: b.m_axis_cnp_tvalid.val(),
            cnp_flow: b.m_axis_cnp_tdata.val().to_u32(),
            grant_valid: b.m_axis_grant_tvalid.val(),
            grant: (g >> fb) & 1 != 0,
            grant_flow: (g & ((1u64 << fb) - 1)) as u32,
            awready: b.s_axil_awready.val(),
            wready: b.s_axil_wready.val(),
            bvalid: b.s_axil_bvalid.val(),
            bresp: b.s_axil_bresp.val().to_u32() as u8,
            arready: b.s_axil_arready.val(),
            rvalid: b.s_axil_rvalid.val(),
            rdata: b.s_axil_rdata.val().to_u32(),
            rresp: b.s_axil_rresp.val().to_u32() as u8,
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "NIC logic did not settle"
        );
        out
    }
}

/// The ports of NIC for a validated configuration, read from the struct.
pub fn ports(config: &NicConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($($g:tt),*) => {{
            crate::ports::ports_of(&Nic::<$($g),*>::new(config))
        }};
    }
    crate::dispatch_nic_shape!(config.shape, make)
}

/// Expands `$make!(F, X1, X3, X16, NF, NN, NT, RF, RW, RQ, RC, PF, PR, PT)`
/// for the run-time shape `$shape`, over every row of the menu in
/// `ccrtl_golden::nic_shape_menu!` (the one place the menu is written). The
/// shape must be validated.
#[macro_export]
macro_rules! dispatch_nic_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::nic_shape_menu!([$crate::nic_dispatch] ; $shape, $make)
    };
}

/// One match arm per row of the menu (used by `dispatch_nic_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! nic_dispatch {
    (($shape:expr, $make:ident) ;
     [$(($f:literal, $nf:literal, $ni:literal, $rf:literal, $rs:literal,
         $rq:literal, $pf:literal, $pr:literal, $c:literal)),*]) => {{
        let shape = $shape;
        match shape.flow_bits {
            $($f => $crate::own_frame(|| $make!(
                $f, { $f + 1 }, { $f + 3 }, { $f + 16 },
                $nf, $ni, { if $nf > $ni { $nf + 2 } else { $ni + 2 } },
                $rf, $rs, $rq, { 14 + 2 * $rs },
                $pf, $pr, { $pf + $pr + 1 }
            )),)*
            f => unreachable!("flow_bits {f} passed validation but has no instance"),
        }
    }};
}
