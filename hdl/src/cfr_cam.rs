//! CFR_CAM — the congestion flow recognition CAM of a switch output queue
//! (seed 002 §3.3): one in `S` packets sampled, its flow ID written into
//! the entries cyclically, one lookup per cycle. The rule and the timing
//! contract are specified in `ccrtl_golden::cfr_cam`; `docs/cfr_cam.md` has
//! the port and parameter tables, the measured cost per entry and Fmax.
//!
//! # Generation-time parameters
//! - `KW` = `key_bits` in {32, 64, 104}: width of a key;
//! - `D` = `depth` in {8, 16, 32, 64, 128, 256}: entries;
//! - `C = KW / 8`: the key is compared in `C` chunks of 8 bits;
//! - the reset values of the `period` and `thresh` registers.
//!
//! # Entries
//! Each entry ([`CamEntry`], a module of its own in the Verilog) is a key
//! register and a `used` bit in flip-flops (a CAM compares every entry in
//! every cycle) with its part of the lookup: the chunk compares and their
//! AND. The write pointer `wp` is one-hot and rotates by one entry per
//! sample; the entry it selects is registered one cycle ahead of the write
//! (`w1_sel`).
//!
//! # Write path (a packet accepted in cycle `n`)
//! - n (ports): sampled = `s_pkt_valid & !rst & p_nz & s_zero`, one LUT
//!   from registers: the flags `p_nz` (S != 0), `p_one` (S == 1) and
//!   `s_zero` (skip == 0) are kept beside `period` and `skip`, which counts
//!   down the packets to the next sample. `w1_sel[i] = sampled & wp[i]` and
//!   the key are registered, `wp` rotates.
//! - n+1: the entry selected loads the key and sets `used`; seen by the
//!   compares of cycle `n + 2`, that is by lookups accepted from `n + 1`.
//!
//! # Lookup pipeline (II = 1, LATENCY 11; each stage at most three LUT4
//! levels or one short carry chain, for 200 MHz on ECP5)
//! - m (ports): the key and valid are registered (`l1_key`, `v[0]`), one
//!   copy that every entry reads; `thresh` enters its delay line (`tp`).
//! - m+1: each entry compares its eight-bit chunks with the key's (four
//!   LUT4s and their AND: two levels), `used` folded into chunk 0; `C` chunk
//!   matches registered per entry. The entries compared are those of the
//!   start of `m + 1`: written by the samples of cycles before `m`.
//! - m+2: each entry's `C` chunk matches ANDed (`em`, two levels for 14).
//! - m+3: the match bits counted in fours (`CamCount4`: 3 bits, one LUT4
//!   level per bit).
//! - m+4 .. m+1+DB: the adder tree (`CamSum`), one level per stage, pairs
//!   of `w`-bit counts into a `w + 1`-bit count: `DB - 2` levels, the root
//!   the count of the entries holding the key (`DB + 1` bits).
//! - m+2+DB: `hit = valid & count >= thresh` (the `thresh` of cycle `m`,
//!   from `tp`), registered (`hp[0]`);
//! - m+3+DB .. m+11: `hp` delays the answer by `8 - DB` more cycles, so
//!   that every depth has the same LATENCY; `hp[HP - 1]` drives `m_hit`.
//!
//! Every register holds a value that can change: each adder level is as
//! wide as its counts (a register bit stuck at 0 is a constant in the
//! netlist and a free bit in the RTL, which the netlist equivalence check
//! cannot prove), and the widening to nine bits for the compare is wiring.
//!
//! # Reset
//! `rst` clears every `used` bit, the pipeline's valids and answers, the
//! pointer and the count, and restores `period` and `thresh`; the keys and
//! the counts in the adder tree keep whatever they hold (random at
//! power-up), which no answer shows while its valid is low.

use ccrtl_golden::cfr_cam::{
    CfrCamConfig, CfrCamIn, CfrCamOut, LATENCY, PERIOD_BITS, THRESH_BITS,
};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;

const PB: usize = PERIOD_BITS as usize;
const TB: usize = THRESH_BITS as usize;

/// Four match bits counted (0 to 4, three bits), registered.
#[derive(LogicBlock, Default)]
pub struct CamCount4 {
    pub clk: Signal<In, Clock>,
    pub e0: Signal<In, Bit>,
    pub e1: Signal<In, Bit>,
    pub e2: Signal<In, Bit>,
    pub e3: Signal<In, Bit>,
    /// The count of the bits of the cycle before.
    pub c: Signal<Out, Bits<3>>,
    lo: Signal<Local, Bits<2>>,
    hi: Signal<Local, Bits<2>>,
    n: DFF<Bits<3>>,
}

impl Logic for CamCount4 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, n);
        self.lo.next = 0.into();
        if self.e0.val() | self.e1.val() {
            self.lo.next = 1.into();
        }
        if self.e0.val() & self.e1.val() {
            self.lo.next = 2.into();
        }
        self.hi.next = 0.into();
        if self.e2.val() | self.e3.val() {
            self.hi.next = 1.into();
        }
        if self.e2.val() & self.e3.val() {
            self.hi.next = 2.into();
        }
        self.n.d.next = bit_cast::<3, 2>(self.lo.val()) + bit_cast::<3, 2>(self.hi.val());
        self.c.next = self.n.q.val();
    }
}

/// Two `WI`-bit counts added into a `WO = WI + 1`-bit count, registered;
/// `w9` is the sum widened to the `thresh` compare's nine bits (wiring).
#[derive(LogicBlock, Default)]
pub struct CamSum<const WI: usize, const WO: usize> {
    pub clk: Signal<In, Clock>,
    pub a: Signal<In, Bits<WI>>,
    pub b: Signal<In, Bits<WI>>,
    pub s: Signal<Out, Bits<WO>>,
    pub w9: Signal<Out, Bits<TB>>,
    n: DFF<Bits<WO>>,
}

impl<const WI: usize, const WO: usize> Logic for CamSum<WI, WO> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, n);
        self.n.d.next = bit_cast::<WO, WI>(self.a.val()) + bit_cast::<WO, WI>(self.b.val());
        self.s.next = self.n.q.val();
        self.w9.next = bit_cast::<TB, WO>(self.n.q.val());
    }
}

/// One entry: its key and `used` bit, and its part of the lookup (stages 1
/// and 2: the chunk compares, then their AND).
#[derive(LogicBlock, Default)]
pub struct CamEntry<const KW: usize, const C: usize, const C1: usize> {
    pub clk: Signal<In, Clock>,
    /// Clears `used` (wins over a write).
    pub clear: Signal<In, Bit>,
    /// Write `wkey` and set `used`.
    pub we: Signal<In, Bit>,
    pub wkey: Signal<In, Bits<KW>>,
    /// The key looked up (registered by the top).
    pub lkey: Signal<In, Bits<KW>>,
    /// The entry matched the key looked up two cycles ago.
    pub em: Signal<Out, Bit>,
    key: DFF<Bits<KW>>,
    used: DFF<Bit>,
    /// Chunk `j` of the key equals chunk `j` of `lkey` (`used` folded into
    /// chunk 0).
    cm: Vec<DFF<Bit>>,
    /// `cand[j]`: chunks `0 .. j` match (`cand[0]` = 1).
    cand: Vec<Signal<Local, Bit>>,
    m: DFF<Bit>,
}

impl<const KW: usize, const C: usize, const C1: usize> CamEntry<KW, C, C1> {
    fn new() -> Self {
        Self {
            cm: (0..C).map(|_| DFF::default()).collect(),
            cand: (0..C1).map(|_| Signal::default()).collect(),
            ..Default::default()
        }
    }
}

impl<const KW: usize, const C: usize, const C1: usize> Logic for CamEntry<KW, C, C1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, key, used, m);
        for j in 0..C {
            self.cm[j].clock.next = self.clk.val();
        }
        self.em.next = self.m.q.val();
        if self.we.val() {
            self.key.d.next = self.wkey.val();
            self.used.d.next = true;
        }
        if self.clear.val() {
            self.used.d.next = false;
        }
        for j in 1..C {
            self.cm[j].d.next =
                self.lkey.val().get_bits::<8>(8 * j) == self.key.q.val().get_bits::<8>(8 * j);
        }
        self.cm[0].d.next = self.used.q.val()
            & (self.lkey.val().get_bits::<8>(0) == self.key.q.val().get_bits::<8>(0));
        self.cand[0].next = true;
        for j in 0..C {
            self.cand[j + 1].next = self.cand[j].val() & self.cm[j].q.val();
        }
        // (The last assignment stands: `cand[C]`.)
        for j in 0..C1 {
            self.m.d.next = self.cand[j].val();
        }
    }
}

#[derive(LogicBlock, Default)]
pub struct CfrCam<
    const KW: usize,
    const D: usize,
    const DB: usize,
    const C: usize,
    const C1: usize,
    const Q: usize,
    const N1: usize,
    const N2: usize,
    const N3: usize,
    const N4: usize,
    const N5: usize,
    const N6: usize,
    const VS: usize,
    const HP: usize,
> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high.
    pub rst: Signal<In, Bit>,

    // Packets leaving the output queue, one per cycle (always accepted).
    pub s_pkt_valid: Signal<In, Bit>,
    /// Flow ID (five-tuple) of the packet.
    pub s_pkt_key: Signal<In, Bits<KW>>,
    // Lookups, one per cycle (always accepted).
    pub s_look_valid: Signal<In, Bit>,
    pub s_look_key: Signal<In, Bits<KW>>,
    // Period load, in force from the next cycle.
    pub s_cfg_valid: Signal<In, Bit>,
    /// S: one packet in S is sampled; 0 samples none.
    pub s_cfg_period: Signal<In, Bits<PB>>,
    /// T: a lookup hits when T entries or more hold its key.
    pub s_cfg_thresh: Signal<In, Bits<TB>>,

    // Answers, LATENCY cycles after their lookups.
    pub m_hit_valid: Signal<Out, Bit>,
    /// At least T entries held the key; 0 when not valid.
    pub m_hit: Signal<Out, Bit>,

    period: DFF<Bits<PB>>,
    thr: DFF<Bits<TB>>,
    skip: DFF<Bits<PB>>,
    /// `period != 0`, `period == 1` and `skip == 0`, kept as flags so that
    /// the sampling decision is one LUT from registers.
    p_nz: DFF<Bit>,
    p_one: DFF<Bit>,
    s_zero: DFF<Bit>,
    /// Write pointer, one-hot: `wp[i]` selects entry `i`.
    wp: Vec<DFF<Bit>>,
    /// `wp[D - 1]`, the bit that rotates into `wp[0]`.
    wp_last: Signal<Local, Bit>,
    sampled: Signal<Local, Bit>,

    /// The entry the sample of the last cycle writes (one-hot).
    w1_sel: Vec<DFF<Bit>>,
    w1_key: DFF<Bits<KW>>,
    ent: Vec<CamEntry<KW, C, C1>>,

    l1_key: DFF<Bits<KW>>,
    /// `v[k]`: a lookup accepted in cycle `m` is valid in `v[k]` during
    /// `m + 1 + k` (`v[0]` is the registered `s_look_valid`).
    v: Vec<DFF<Bit>>,
    /// `tp[k]`: the `thresh` of cycle `m` during `m + 1 + k`.
    tp: Vec<DFF<Bits<TB>>>,
    /// The match bits counted in fours (`Q = D / 4`).
    c4: Vec<CamCount4>,
    /// The adder tree: level `j` has `N_j = D >> (j + 2)` sums of `2 + j`
    /// into `3 + j` bits (none for the levels above the root).
    s1: Vec<CamSum<3, 4>>,
    s2: Vec<CamSum<4, 5>>,
    s3: Vec<CamSum<5, 6>>,
    s4: Vec<CamSum<6, 7>>,
    s5: Vec<CamSum<7, 8>>,
    s6: Vec<CamSum<8, 9>>,
    /// The root count (the last level with sums), nine bits wide.
    cnt: Signal<Local, Bits<TB>>,
    /// The valid and `thresh` of the lookup whose count is at the root.
    vsel: Signal<Local, Bit>,
    tsel: Signal<Local, Bits<TB>>,
    /// `hp[k]`, `hv[k]`: the answer and its valid, `k` cycles after the
    /// compare; `hp[HP - 1]` and `hv[HP - 1]` are the outputs.
    hp: Vec<DFF<Bit>>,
    hv: Vec<DFF<Bit>>,

    reset_period: Param<Bits<PB>>,
    reset_thresh: Param<Bits<TB>>,
    reset_p_nz: Param<Bit>,
    reset_p_one: Param<Bit>,
}

impl<
        const KW: usize,
        const D: usize,
        const DB: usize,
        const C: usize,
        const C1: usize,
        const Q: usize,
        const N1: usize,
        const N2: usize,
        const N3: usize,
        const N4: usize,
        const N5: usize,
        const N6: usize,
        const VS: usize,
        const HP: usize,
    > CfrCam<KW, D, DB, C, C1, Q, N1, N2, N3, N4, N5, N6, VS, HP>
{
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `KW`, `D` equal to its shape, `DB = log2(D)`,
    /// `C = KW / 8`, `C1 = C + 1`, `Q = D / 4`, `N_j = D >> (j + 2)`,
    /// `VS = DB + 2` and `HP = 9 - DB` (`cfr_cam_type!` writes them).
    pub fn new(config: &CfrCamConfig) -> Self {
        assert_eq!(config.shape.key_bits as usize, KW);
        assert_eq!(config.shape.depth as usize, D);
        assert_eq!(1 << DB, D);
        assert_eq!(C * 8, KW);
        assert_eq!(C1, C + 1);
        assert_eq!(Q * 4, D);
        assert_eq!([N1, N2, N3, N4, N5, N6], [3, 4, 5, 6, 7, 8].map(|s| D >> s));
        assert_eq!(VS, DB + 2);
        assert_eq!(HP + DB, 9);
        assert_eq!(LATENCY, 11);
        Self {
            wp: (0..D).map(|_| DFF::default()).collect(),
            w1_sel: (0..D).map(|_| DFF::default()).collect(),
            ent: (0..D).map(|_| CamEntry::new()).collect(),
            v: (0..VS).map(|_| DFF::default()).collect(),
            tp: (0..VS).map(|_| DFF::default()).collect(),
            c4: (0..Q).map(|_| CamCount4::default()).collect(),
            s1: (0..N1).map(|_| CamSum::default()).collect(),
            s2: (0..N2).map(|_| CamSum::default()).collect(),
            s3: (0..N3).map(|_| CamSum::default()).collect(),
            s4: (0..N4).map(|_| CamSum::default()).collect(),
            s5: (0..N5).map(|_| CamSum::default()).collect(),
            s6: (0..N6).map(|_| CamSum::default()).collect(),
            hp: (0..HP).map(|_| DFF::default()).collect(),
            hv: (0..HP).map(|_| DFF::default()).collect(),
            reset_period: Param::new((config.reset.period as u64).to_bits()),
            reset_thresh: Param::new((config.reset.thresh as u64).to_bits()),
            reset_p_nz: Param::new(config.reset.period != 0),
            reset_p_one: Param::new(config.reset.period == 1),
            ..Default::default()
        }
    }
}

impl<
        const KW: usize,
        const D: usize,
        const DB: usize,
        const C: usize,
        const C1: usize,
        const Q: usize,
        const N1: usize,
        const N2: usize,
        const N3: usize,
        const N4: usize,
        const N5: usize,
        const N6: usize,
        const VS: usize,
        const HP: usize,
    > Logic for CfrCam<KW, D, DB, C, C1, Q, N1, N2, N3, N4, N5, N6, VS, HP>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, period, thr, skip, p_nz, p_one, s_zero, w1_key, l1_key);
        for i in 0..D {
            self.wp[i].clock.next = self.clk.val();
            self.w1_sel[i].clock.next = self.clk.val();
            self.ent[i].clk.next = self.clk.val();
        }
        for k in 0..VS {
            self.v[k].clock.next = self.clk.val();
            self.tp[k].clock.next = self.clk.val();
        }
        for k in 0..Q {
            self.c4[k].clk.next = self.clk.val();
        }
        for k in 0..N1 {
            self.s1[k].clk.next = self.clk.val();
        }
        for k in 0..N2 {
            self.s2[k].clk.next = self.clk.val();
        }
        for k in 0..N3 {
            self.s3[k].clk.next = self.clk.val();
        }
        for k in 0..N4 {
            self.s4[k].clk.next = self.clk.val();
        }
        for k in 0..N5 {
            self.s5[k].clk.next = self.clk.val();
        }
        for k in 0..N6 {
            self.s6[k].clk.next = self.clk.val();
        }
        for k in 0..HP {
            self.hp[k].clock.next = self.clk.val();
            self.hv[k].clock.next = self.clk.val();
        }

        // ---- Ports: sampling, lookup key --------------------------------------
        // (A packet of a reset cycle is not sampled: `sampled` carries no
        // write into the cycle after the reset.)
        self.sampled.next =
            self.s_pkt_valid.val() & !self.rst.val() & self.p_nz.q.val() & self.s_zero.q.val();
        if self.s_pkt_valid.val() & self.p_nz.q.val() {
            self.skip.d.next = self.skip.q.val() - 1;
            self.s_zero.d.next = self.skip.q.val() == 1;
            if self.s_zero.q.val() {
                self.skip.d.next = self.period.q.val() - 1;
                self.s_zero.d.next = self.p_one.q.val();
            }
        }
        if self.s_cfg_valid.val() {
            self.period.d.next = self.s_cfg_period.val();
            self.thr.d.next = self.s_cfg_thresh.val();
            self.p_nz.d.next = self.s_cfg_period.val().any();
            self.p_one.d.next = self.s_cfg_period.val() == 1;
            self.skip.d.next = 0.into();
            self.s_zero.d.next = true;
        }
        for i in 0..D {
            self.w1_sel[i].d.next = self.sampled.val() & self.wp[i].q.val();
        }
        // The pointer rotates by one entry per sample.
        for i in 0..D {
            self.wp[i].d.next = self.wp[i].q.val();
            self.wp_last.next = self.wp[i].q.val();
        }
        if self.sampled.val() {
            for i in 1..D {
                self.wp[i].d.next = self.wp[i - 1].q.val();
            }
            self.wp[0].d.next = self.wp_last.val();
        }
        self.w1_key.d.next = self.s_pkt_key.val();
        self.l1_key.d.next = self.s_look_key.val();
        // The valid and `thresh` of a lookup travel beside its count.
        self.v[0].d.next = self.s_look_valid.val();
        self.tp[0].d.next = self.thr.q.val();
        for k in 1..VS {
            self.v[k].d.next = self.v[k - 1].q.val();
            self.tp[k].d.next = self.tp[k - 1].q.val();
        }

        // ---- The entries: the write selected in the last cycle, stages 1-2 -------
        for i in 0..D {
            self.ent[i].clear.next = self.rst.val();
            self.ent[i].we.next = self.w1_sel[i].q.val();
            self.ent[i].wkey.next = self.w1_key.q.val();
            self.ent[i].lkey.next = self.l1_key.q.val();
        }

        // ---- Lookup stage 3: the match bits counted in fours ----------------------
        for k in 0..Q {
            self.c4[k].e0.next = self.ent[4 * k].em.val();
            self.c4[k].e1.next = self.ent[4 * k + 1].em.val();
            self.c4[k].e2.next = self.ent[4 * k + 2].em.val();
            self.c4[k].e3.next = self.ent[4 * k + 3].em.val();
        }
        // ---- Stages 4 .. 1 + DB: the adder tree, a level per stage ------------------
        for k in 0..N1 {
            self.s1[k].a.next = self.c4[2 * k].c.val();
            self.s1[k].b.next = self.c4[2 * k + 1].c.val();
        }
        for k in 0..N2 {
            self.s2[k].a.next = self.s1[2 * k].s.val();
            self.s2[k].b.next = self.s1[2 * k + 1].s.val();
        }
        for k in 0..N3 {
            self.s3[k].a.next = self.s2[2 * k].s.val();
            self.s3[k].b.next = self.s2[2 * k + 1].s.val();
        }
        for k in 0..N4 {
            self.s4[k].a.next = self.s3[2 * k].s.val();
            self.s4[k].b.next = self.s3[2 * k + 1].s.val();
        }
        for k in 0..N5 {
            self.s5[k].a.next = self.s4[2 * k].s.val();
            self.s5[k].b.next = self.s4[2 * k + 1].s.val();
        }
        for k in 0..N6 {
            self.s6[k].a.next = self.s5[2 * k].s.val();
            self.s6[k].b.next = self.s5[2 * k + 1].s.val();
        }
        // The root: the one sum of the last level that has any (the last
        // assignment stands).
        self.cnt.next = 0.into();
        for k in 0..N1 {
            self.cnt.next = self.s1[k].w9.val();
        }
        for k in 0..N2 {
            self.cnt.next = self.s2[k].w9.val();
        }
        for k in 0..N3 {
            self.cnt.next = self.s3[k].w9.val();
        }
        for k in 0..N4 {
            self.cnt.next = self.s4[k].w9.val();
        }
        for k in 0..N5 {
            self.cnt.next = self.s5[k].w9.val();
        }
        for k in 0..N6 {
            self.cnt.next = self.s6[k].w9.val();
        }
        // The valid and `thresh` of the same lookup: `v[DB + 1]`, `tp[DB + 1]`.
        for k in 0..VS {
            self.vsel.next = self.v[k].q.val();
            self.tsel.next = self.tp[k].q.val();
        }
        // ---- Stage 2 + DB: the compare; then the delay to LATENCY ----------------
        self.hv[0].d.next = self.vsel.val();
        self.hp[0].d.next = self.vsel.val() & (self.cnt.val() >= self.tsel.val());
        for k in 1..HP {
            self.hv[k].d.next = self.hv[k - 1].q.val();
            self.hp[k].d.next = self.hp[k - 1].q.val();
        }

        // ---- Reset (wins over every load above) ----------------------------------------
        if self.rst.val() {
            self.period.d.next = self.reset_period.val();
            self.thr.d.next = self.reset_thresh.val();
            self.p_nz.d.next = self.reset_p_nz.val();
            self.p_one.d.next = self.reset_p_one.val();
            self.skip.d.next = 0.into();
            self.s_zero.d.next = true;
            for i in 1..D {
                self.wp[i].d.next = false;
            }
            self.wp[0].d.next = true;
            for k in 0..VS {
                self.v[k].d.next = false;
            }
            for k in 0..HP {
                self.hv[k].d.next = false;
                self.hp[k].d.next = false;
            }
        }

        // ---- Outputs (last, after every register's next value) --------------
        // (The last assignment stands: `hv[HP - 1]`, `hp[HP - 1]`.)
        for k in 0..HP {
            self.m_hit_valid.next = self.hv[k].q.val();
            self.m_hit.next = self.hp[k].q.val();
        }
    }
}

// ---- emission and simulation ---------------------------------------------

/// rust-hdl's Verilog for CFR_CAM, as `generate_verilog` writes it.
pub fn raw_verilog(config: &CfrCamConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($k:literal, $d:literal, $db:tt) => {{
            let mut b =
                <crate::cfr_cam_type!($k, $d, $db)>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_cfr_cam_shape!(config.shape, make))
}

/// The signal of CFR_CAM's module left unread on purpose, with its reason:
/// the adder tree's root sum, read through its nine-bit widening (`w9`).
/// Its name depends on the depth. A design instantiating CFR_CAM applies
/// these to the instance's module (`crate::emit::waive_in`).
pub fn lint_waivers(config: &CfrCamConfig) -> Vec<(String, &'static str)> {
    let db = config.shape.depth.trailing_zeros();
    vec![(
        format!("s{}$0$s", db - 2),
        "the adder tree's root: its count is read as the nine-bit w9 for the compare",
    )]
}

/// The finished Verilog file for CFR_CAM.
pub fn verilog(config: &CfrCamConfig) -> Result<String, ParamError> {
    let raw = raw_verilog(config)?;
    let w = lint_waivers(config);
    let w: Vec<(&str, &str)> = w.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    let raw = crate::emit::waive_unused(&raw, &w);
    let s = &config.shape;
    let params = [
        ("key_bits", s.key_bits.to_string()),
        ("depth", s.depth.to_string()),
        ("reset.period", config.reset.period.to_string()),
        ("reset.thresh", config.reset.thresh.to_string()),
    ];
    Ok(crate::emit::finish(
        "cfr_cam",
        "congestion flow recognition: a CAM of one in S sampled flow IDs, written cyclically; a lookup hits when T entries hold its key",
        &format!(
            "II = 1 (one packet and one lookup per cycle); answer {LATENCY} cycles after its lookup; \
             a lookup sees the samples of earlier cycles"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl CFR_CAM block for a configuration.
pub fn sim(
    config: &CfrCamConfig,
) -> Result<Box<dyn crate::sim::CycleSim<CfrCamIn, CfrCamOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($k:literal, $d:literal, $db:tt) => {{
            let mut b =
                <crate::cfr_cam_type!($k, $d, $db)>::new(config);
            b.connect_all();
            Box::new(CfrCamSim(b)) as Box<dyn crate::sim::CycleSim<CfrCamIn, CfrCamOut>>
        }};
    }
    Ok(crate::dispatch_cfr_cam_shape!(config.shape, make))
}

struct CfrCamSim<
    const KW: usize,
    const D: usize,
    const DB: usize,
    const C: usize,
    const C1: usize,
    const Q: usize,
    const N1: usize,
    const N2: usize,
    const N3: usize,
    const N4: usize,
    const N5: usize,
    const N6: usize,
    const VS: usize,
    const HP: usize,
>(CfrCam<KW, D, DB, C, C1, Q, N1, N2, N3, N4, N5, N6, VS, HP>);

/// A key as a `Bits<KW>` (wider than 64 bits: built from two halves).
pub(crate) fn key_bits<const KW: usize>(k: u128) -> Bits<KW> {
    let lo: Bits<KW> = ((k as u64) as u128 as u64).to_bits();
    if KW <= 64 {
        return lo;
    }
    let hi: Bits<KW> = ((k >> 64) as u64).to_bits();
    (hi << 64) | lo
}

impl<
        const KW: usize,
        const D: usize,
        const DB: usize,
        const C: usize,
        const C1: usize,
        const Q: usize,
        const N1: usize,
        const N2: usize,
        const N3: usize,
        const N4: usize,
        const N5: usize,
        const N6: usize,
        const VS: usize,
        const HP: usize,
    > crate::sim::CycleSim<CfrCamIn, CfrCamOut> for CfrCamSim<KW, D, DB, C, C1, Q, N1, N2, N3, N4, N5, N6, VS, HP>
{
    fn cycle(&mut self, i: &CfrCamIn) -> CfrCamOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_pkt_valid.next = i.pkt_valid;
        b.s_pkt_key.next = key_bits::<KW>(i.pkt_key);
        b.s_look_valid.next = i.look_valid;
        b.s_look_key.next = key_bits::<KW>(i.look_key);
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_period.next = (i.cfg_period as u64).to_bits();
        b.s_cfg_thresh.next = (i.cfg_thresh as u64).to_bits();
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "CFR_CAM logic did not settle"
        );
        let out = CfrCamOut {
            hit_valid: b.m_hit_valid.val(),
            hit: b.m_hit.val(),
        };
        b.clk.next = Clock { clk: true };
        assert!(
            simulate(b, crate::sim::MAX_ITERS),
            "CFR_CAM logic did not settle"
        );
        out
    }
}

/// The ports of CFR_CAM for a validated configuration, read from the struct.
pub fn ports(config: &CfrCamConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($k:literal, $d:literal, $db:tt) => {{
            crate::ports::ports_of(&<crate::cfr_cam_type!($k, $d, $db)>::new(config))
        }};
    }
    crate::dispatch_cfr_cam_shape!(config.shape, make)
}

/// The `CfrCam` type of key width `$k`, depth `$d` and `$db = log2($d)`,
/// with the derived sizes its `new` checks.
#[doc(hidden)]
#[macro_export]
macro_rules! cfr_cam_type {
    ($k:literal, $d:literal, $db:tt) => {
        $crate::cfr_cam::CfrCam<
            $k,
            $d,
            $db,
            { $k / 8 },
            { $k / 8 + 1 },
            { $d / 4 },
            { $d >> 3 },
            { $d >> 4 },
            { $d >> 5 },
            { $d >> 6 },
            { $d >> 7 },
            { $d >> 8 },
            { ($db) + 2 },
            { 9 - ($db) },
        >
    };
}

/// Expands `$make!(KW, D, C)` for the run-time shape `$shape`, over every
/// (key_bits, depth) of the menu in `ccrtl_golden::cfr_cam_shape_menu!`
/// (the one place the menu is written). The shape must be validated.
#[macro_export]
macro_rules! dispatch_cfr_cam_shape {
    ($shape:expr, $make:ident) => {
        ccrtl_golden::cfr_cam_shape_menu!([$crate::cfr_cam_dispatch_keys] ; $shape, $make)
    };
}

/// One match arm per key width of the menu (used by `dispatch_cfr_cam_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! cfr_cam_dispatch_keys {
    (($shape:expr, $make:ident) ; [$($k:literal),*] ; $depths:tt) => {{
        let shape = $shape;
        match shape.key_bits {
            $($k => $crate::cfr_cam_dispatch_depths!(shape, $make, $k, $depths),)*
            k => unreachable!("key_bits {k} passed validation but has no instance"),
        }
    }};
}

/// One match arm per depth of the menu (used by `dispatch_cfr_cam_shape!`).
#[doc(hidden)]
#[macro_export]
macro_rules! cfr_cam_dispatch_depths {
    ($shape:ident, $make:ident, $k:literal, [$($d:literal),*]) => {
        match $shape.depth {
            $($d => $crate::own_frame(|| $make!($k, $d, { ($d as u32).trailing_zeros() as usize })),)*
            d => unreachable!("depth {d} passed validation but has no instance"),
        }
    };
}
