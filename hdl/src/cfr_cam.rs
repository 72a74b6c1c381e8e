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
//! - the reset value of the `period` register.
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
//! # Lookup pipeline (II = 1, LATENCY 4; each stage at most three LUT4
//! levels, for 200 MHz on ECP5)
//! - m (ports): the key and valid are registered (`l1`), one copy that
//!   every entry reads.
//! - m+1: each entry compares its eight-bit chunks with the key's (four
//!   LUT4s and their AND: two levels), `used` folded into chunk 0; `C` chunk
//!   matches registered per entry. The entries compared are those of the
//!   start of `m + 1`: written by the samples of cycles before `m`.
//! - m+2: each entry's `C` chunk matches ANDed (`em`, two levels for 14).
//! - m+3: the `D` entry matches ORed into `hit` (groups of eight, then the
//!   groups; synthesis balances the OR), ANDed with valid.
//! - m+4: `m_hit_valid`, `m_hit`.
//!
//! # Reset
//! `rst` clears every `used` bit, the pipeline's valids, the pointer and
//! the count, and restores `period`; the keys keep whatever they hold
//! (random at power-up), which no lookup sees while `used` is low.

use ccrtl_golden::cfr_cam::{CfrCamConfig, CfrCamIn, CfrCamOut, LATENCY, PERIOD_BITS};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::param::Param;

const PB: usize = PERIOD_BITS as usize;

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
    const G: usize,
    const G1: usize,
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

    // Answers, LATENCY cycles after their lookups.
    pub m_hit_valid: Signal<Out, Bit>,
    /// The key is in the CAM; 0 when not valid.
    pub m_hit: Signal<Out, Bit>,

    period: DFF<Bits<PB>>,
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

    l1_valid: DFF<Bit>,
    l1_key: DFF<Bits<KW>>,
    l2_valid: DFF<Bit>,
    l3_valid: DFF<Bit>,
    /// `grp[k]`: one of entries `8k .. 8k + 7` matched.
    grp: Vec<Signal<Local, Bit>>,
    /// `any[k]`: one of groups `0 .. k` matched.
    any: Vec<Signal<Local, Bit>>,
    o_valid: DFF<Bit>,
    o_hit: DFF<Bit>,

    reset_period: Param<Bits<PB>>,
    reset_p_nz: Param<Bit>,
    reset_p_one: Param<Bit>,
}

impl<
        const KW: usize,
        const D: usize,
        const DB: usize,
        const C: usize,
        const C1: usize,
        const G: usize,
        const G1: usize,
    > CfrCam<KW, D, DB, C, C1, G, G1>
{
    /// The block with the reset values of `config`. The caller has validated
    /// `config` and chosen `KW`, `D` equal to its shape, `DB = log2(D)`,
    /// `C = KW / 8`, `C1 = C + 1`, `G = D / 8` and `G1 = G + 1`.
    pub fn new(config: &CfrCamConfig) -> Self {
        assert_eq!(config.shape.key_bits as usize, KW);
        assert_eq!(config.shape.depth as usize, D);
        assert_eq!(1 << DB, D);
        assert_eq!(C * 8, KW);
        assert_eq!(C1, C + 1);
        assert_eq!(G * 8, D);
        assert_eq!(G1, G + 1);
        Self {
            wp: (0..D).map(|_| DFF::default()).collect(),
            w1_sel: (0..D).map(|_| DFF::default()).collect(),
            ent: (0..D).map(|_| CamEntry::new()).collect(),
            grp: (0..G).map(|_| Signal::default()).collect(),
            any: (0..G1).map(|_| Signal::default()).collect(),
            reset_period: Param::new((config.reset.period as u64).to_bits()),
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
        const G: usize,
        const G1: usize,
    > Logic for CfrCam<KW, D, DB, C, C1, G, G1>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, period, skip, p_nz, p_one, s_zero, w1_key, l1_valid, l1_key, l2_valid, l3_valid, o_valid,
            o_hit
        );
        for i in 0..D {
            self.wp[i].clock.next = self.clk.val();
            self.w1_sel[i].clock.next = self.clk.val();
            self.ent[i].clk.next = self.clk.val();
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
        self.l1_valid.d.next = self.s_look_valid.val();
        self.l1_key.d.next = self.s_look_key.val();

        // ---- The entries: the write selected in the last cycle, stages 1-2 -------
        for i in 0..D {
            self.ent[i].clear.next = self.rst.val();
            self.ent[i].we.next = self.w1_sel[i].q.val();
            self.ent[i].wkey.next = self.w1_key.q.val();
            self.ent[i].lkey.next = self.l1_key.q.val();
        }
        self.l2_valid.d.next = self.l1_valid.q.val();
        self.l3_valid.d.next = self.l2_valid.q.val();

        // ---- Lookup stage 3: the entries ORed (groups of eight, then the groups)
        for k in 0..G {
            self.grp[k].next = self.ent[8 * k].em.val()
                | self.ent[8 * k + 1].em.val()
                | self.ent[8 * k + 2].em.val()
                | self.ent[8 * k + 3].em.val()
                | self.ent[8 * k + 4].em.val()
                | self.ent[8 * k + 5].em.val()
                | self.ent[8 * k + 6].em.val()
                | self.ent[8 * k + 7].em.val();
        }
        self.any[0].next = false;
        for k in 0..G {
            self.any[k + 1].next = self.any[k].val() | self.grp[k].val();
        }
        self.o_valid.d.next = self.l3_valid.q.val();
        // (The last assignment stands: `any[G]`.)
        for k in 0..G1 {
            self.o_hit.d.next = self.l3_valid.q.val() & self.any[k].val();
        }

        // ---- Reset (wins over every load above) ----------------------------------------
        if self.rst.val() {
            self.period.d.next = self.reset_period.val();
            self.p_nz.d.next = self.reset_p_nz.val();
            self.p_one.d.next = self.reset_p_one.val();
            self.skip.d.next = 0.into();
            self.s_zero.d.next = true;
            for i in 1..D {
                self.wp[i].d.next = false;
            }
            self.wp[0].d.next = true;
            self.l1_valid.d.next = false;
            self.l2_valid.d.next = false;
            self.l3_valid.d.next = false;
            self.o_valid.d.next = false;
            self.o_hit.d.next = false;
        }

        // ---- Outputs (last, after every register's next value) --------------
        self.m_hit_valid.next = self.o_valid.q.val();
        self.m_hit.next = self.o_hit.q.val();
    }
}

// ---- emission and simulation ---------------------------------------------

/// rust-hdl's Verilog for CFR_CAM, as `generate_verilog` writes it.
pub fn raw_verilog(config: &CfrCamConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($k:literal, $d:literal, $db:tt) => {{
            let mut b =
                CfrCam::<$k, $d, $db, { $k / 8 }, { $k / 8 + 1 }, { $d / 8 }, { $d / 8 + 1 }>::new(
                    config,
                );
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(crate::dispatch_cfr_cam_shape!(config.shape, make))
}

/// The finished Verilog file for CFR_CAM.
pub fn verilog(config: &CfrCamConfig) -> Result<String, ParamError> {
    let raw = raw_verilog(config)?;
    let s = &config.shape;
    let params = [
        ("key_bits", s.key_bits.to_string()),
        ("depth", s.depth.to_string()),
        ("reset.period", config.reset.period.to_string()),
    ];
    Ok(crate::emit::finish(
        "cfr_cam",
        "congestion flow recognition: a CAM of one in S sampled flow IDs, written cyclically",
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
                CfrCam::<$k, $d, $db, { $k / 8 }, { $k / 8 + 1 }, { $d / 8 }, { $d / 8 + 1 }>::new(
                    config,
                );
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
    const G: usize,
    const G1: usize,
>(CfrCam<KW, D, DB, C, C1, G, G1>);

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
        const G: usize,
        const G1: usize,
    > crate::sim::CycleSim<CfrCamIn, CfrCamOut> for CfrCamSim<KW, D, DB, C, C1, G, G1>
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
            crate::ports::ports_of(&CfrCam::<
                $k,
                $d,
                $db,
                { $k / 8 },
                { $k / 8 + 1 },
                { $d / 8 },
                { $d / 8 + 1 },
            >::new(config))
        }};
    }
    crate::dispatch_cfr_cam_shape!(config.shape, make)
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
            $($d => $make!($k, $d, { ($d as u32).trailing_zeros() as usize }),)*
            d => unreachable!("depth {d} passed validation but has no instance"),
        }
    };
}
