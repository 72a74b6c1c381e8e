//! SWITCH_PORT in the generic machinery: ports, value encoding, random
//! stimulus and the corner-case points a run must hit.
//!
//! The stimulus is the blocks' own stimuli where a block's input is the
//! port's input, and the port's own where the glue decides:
//! - **The blocks' register ports, the degree bus, the neighbour's
//!   notifications and the class queues' heads** come from the inner
//!   blocks' stimuli (`CpStimulus`, `CrdStimulus`, `CfrCamStimulus`,
//!   `SarStimulus`, `RccSchedStimulus`), each run on its own block's
//!   golden state inside the port, so their aimed loads and degree bursts
//!   reach the blocks as they would alone. Their resets and the inputs the
//!   glue drives (cp's enqueues and dequeues, crd's reports, sar's
//!   requests, cfr_cam's lookups and samples, rcc_sched's degrees) are
//!   not used.
//! - **Arrivals**: phases of 200 to 3,000 cycles that fill the queue
//!   (arrivals in most cycles, the link rarely ready: cp's depth climbs
//!   past crd's `qeq`, crd's degree turns positive and rcc_sched enters
//!   window mode) or drain it (arrivals rare, the link ready as
//!   rcc_sched's stimulus has it), or mix. Keys come from a hot set of six
//!   flows (sampled into the CAM, so hits) three times in four, else any
//!   104-bit value; ports mostly one number per run (this port), groups
//!   mostly from two (any of the eight one time in eight); lengths 64,
//!   1500, 9000, the longest or any.
//! - **Resets** in the first cycle, then every 2,000 to 8,000 cycles, held one to three cycles,
//!   with traffic in them; some aimed while arrivals are in flight; none
//!   while cfr_cam's stimulus keeps a large period for two samples.
//!
//! Payloads of streams whose valid is low are randomised by the lockstep
//! machinery, not here.

use ccrtl_golden::cp::{Action, CpShape};
use ccrtl_golden::rcc_sched::Class;
use ccrtl_golden::switch_port::{
    SwitchPort, SwitchPortConfig, SwitchPortIn, SwitchPortOut, SwitchPortShape,
    SUPPORTED_CAM_DEPTHS,
};
use toml::Value;

use crate::block::{Block, Coverage, Stimulus};
use crate::cfr_cam::{CfrCamBlock, CfrCamStimulus};
use crate::cp::{CpBlock, CpStimulus};
use crate::crd::{CrdBlock, CrdStimulus};
use crate::params::ParamsError;
use crate::ports::Port;
use crate::rcc_sched::{RccSchedBlock, RccSchedStimulus};
use crate::rng::Rng;
use crate::sar::{SarBlock, SarStimulus};

pub struct SwitchPortBlock;

impl Block for SwitchPortBlock {
    const NAME: &'static str = "switch_port";
    type Config = SwitchPortConfig;
    type In = SwitchPortIn;
    type Out = SwitchPortOut;
    type Golden = SwitchPort;
    type Stimulus = SwitchPortStimulus;

    fn ports(c: &SwitchPortConfig) -> Vec<Port> {
        crate::ports::from_hdl(&ccrtl_hdl::switch_port::ports(c), Self::CLOCK)
    }

    #[inline]
    fn encode_in(i: &SwitchPortIn, v: &mut [u128]) {
        v[0] = i.rst as u128;
        v[1] = i.arr_valid as u128;
        v[2] = i.arr_key;
        v[3] = i.arr_len as u128;
        v[4] = i.arr_ecn as u128;
        v[5] = i.arr_port as u128;
        v[6] = i.arr_group as u128;
        v[7] = i.c_valid as u128;
        v[8] = i.c_len as u128;
        v[9] = i.n_valid as u128;
        v[10] = i.n_len as u128;
        v[11] = i.out_ready as u128;
        v[12] = i.deg_valid as u128;
        v[13] = i.deg_port as u128;
        v[14] = i.deg as u128;
        v[15] = i.cn_valid as u128;
        v[16] = i.cn_fb as u128;
        v[17] = i.cp_cfg_valid as u128;
        v[18] = i.cp_cfg.kmin as u128;
        v[19] = i.cp_cfg.kmax as u128;
        v[20] = i.cp_cfg.pmax as u128;
        v[21] = i.cp_cfg.kdrop as u128;
        v[22] = i.cp_cfg.buf_max as u128;
        v[23] = i.cp_cfg.seed as u128;
        v[24] = i.crd_cfg_valid as u128;
        v[25] = i.crd_cfg_addr as u128;
        v[26] = i.crd_cfg_data as u128;
        v[27] = i.cam_cfg_valid as u128;
        v[28] = i.cam_cfg_period as u128;
        v[29] = i.cam_cfg_thresh as u128;
        v[30] = i.rcc_cfg_valid as u128;
        v[31] = i.rcc_cfg_addr as u128;
        v[32] = i.rcc_cfg_data as u128;
        v[33] = i.sar_cfg_valid as u128;
        v[34] = i.sar_cfg_addr as u128;
        v[35] = i.sar_cfg_data as u128;
    }

    #[inline]
    fn decode_in(v: &[u128]) -> SwitchPortIn {
        // Values were checked against the port widths by the caller.
        let mut i = SwitchPortIn {
            rst: v[0] != 0,
            arr_valid: v[1] != 0,
            arr_key: v[2],
            arr_len: v[3] as u32,
            arr_ecn: v[4] as u8,
            arr_port: v[5] as u32,
            arr_group: v[6] as u32,
            c_valid: v[7] != 0,
            c_len: v[8] as u32,
            n_valid: v[9] != 0,
            n_len: v[10] as u32,
            out_ready: v[11] != 0,
            deg_valid: v[12] != 0,
            deg_port: v[13] as u32,
            deg: v[14] as u32,
            cn_valid: v[15] != 0,
            cn_fb: v[16] as u32,
            cp_cfg_valid: v[17] != 0,
            ..Default::default()
        };
        i.cp_cfg.kmin = v[18] as u32;
        i.cp_cfg.kmax = v[19] as u32;
        i.cp_cfg.pmax = v[20] as u32;
        i.cp_cfg.kdrop = v[21] as u32;
        i.cp_cfg.buf_max = v[22] as u32;
        i.cp_cfg.seed = v[23] as u32;
        i.crd_cfg_valid = v[24] != 0;
        i.crd_cfg_addr = v[25] as u32;
        i.crd_cfg_data = v[26] as u32;
        i.cam_cfg_valid = v[27] != 0;
        i.cam_cfg_period = v[28] as u32;
        i.cam_cfg_thresh = v[29] as u32;
        i.rcc_cfg_valid = v[30] != 0;
        i.rcc_cfg_addr = v[31] as u32;
        i.rcc_cfg_data = v[32] as u32;
        i.sar_cfg_valid = v[33] != 0;
        i.sar_cfg_addr = v[34] as u32;
        i.sar_cfg_data = v[35] as u32;
        i
    }

    #[inline]
    fn encode_out(o: &SwitchPortOut, v: &mut [u128]) {
        v[0] = o.arr_valid as u128;
        v[1] = o.arr_port as u128;
        v[2] = o.arr_detour as u128;
        v[3] = o.arr_class as u128;
        v[4] = o.arr_action as u128;
        v[5] = o.arr_ecn as u128;
        v[6] = o.c_ready as u128;
        v[7] = o.n_ready as u128;
        v[8] = o.window as u128;
        v[9] = o.wc as u128;
        v[10] = o.wnc as u128;
        v[11] = o.fb_valid as u128;
        v[12] = o.fb as u128;
        v[13] = o.fb_role as u128;
        v[14] = o.depth as u128;
        v[15] = o.underflow as u128;
    }

    fn golden(c: &SwitchPortConfig) -> SwitchPort {
        SwitchPort::new(*c).expect("SWITCH_PORT configuration must be validated before use")
    }

    #[inline]
    fn golden_step(g: &mut SwitchPort, i: &SwitchPortIn) -> SwitchPortOut {
        g.step(i)
    }

    fn verilog(c: &SwitchPortConfig) -> String {
        ccrtl_hdl::switch_port::verilog(c)
            .expect("SWITCH_PORT configuration must be validated before use")
    }

    fn hdl_sim(
        c: &SwitchPortConfig,
    ) -> Box<dyn ccrtl_hdl::sim::CycleSim<SwitchPortIn, SwitchPortOut>> {
        ccrtl_hdl::switch_port::sim(c)
            .expect("SWITCH_PORT configuration must be validated before use")
    }

    fn default_config() -> SwitchPortConfig {
        SwitchPortConfig::default()
    }

    /// The small CAM, and crd sampling every 64 cycles with a low `qeq`,
    /// so that the degree and window mode show within a few thousand
    /// cycles.
    const SHORT_PARAMS: &'static str = "[switch_port]\ncam_depth = 16\n\
        [switch_port.crd.reset]\nperiod = 64\nqeq = 8192\n\
        [switch_port.rcc_sched.reset]\nwindow = 20000\nwc_min = 1000\n";

    fn parse_config(text: &str, path: &str) -> Result<SwitchPortConfig, ParamsError> {
        parse_config(text, path)
    }

    fn menu() -> Vec<SwitchPortConfig> {
        SUPPORTED_CAM_DEPTHS
            .iter()
            .map(|&cam_depth| SwitchPortConfig::reset_for(SwitchPortShape { cam_depth }))
            .collect()
    }

    fn random_reset(c: &SwitchPortConfig, r: &mut Rng) -> SwitchPortConfig {
        let mut n = *c;
        n.cp = CpBlock::random_reset(&c.cp_config(), r).reset;
        n.crd = CrdBlock::random_reset(&c.crd_config(), r).reset;
        n.cam = CfrCamBlock::random_reset(&c.cam_config(), r).reset;
        n.rcc = RccSchedBlock::random_reset(&c.rcc_config(), r).reset;
        n.sar = SarBlock::random_reset(&c.sar_config(), r).reset;
        n
    }

    fn describe(c: &SwitchPortConfig) -> String {
        format!(
            "cam_depth={} reset: cp {{{}}} crd {{{}}} cfr_cam {{{}}} rcc_sched {{{}}} sar {{{}}}",
            c.shape.cam_depth,
            CpBlock::describe(&c.cp_config()),
            CrdBlock::describe(&c.crd_config()),
            CfrCamBlock::describe(&c.cam_config()),
            RccSchedBlock::describe(&c.rcc_config()),
            SarBlock::describe(&c.sar_config()),
        )
    }

    fn coverage_points() -> &'static [&'static str] {
        COVER
    }

    #[inline]
    fn cover(g: &SwitchPort, prev: &SwitchPortIn, i: &SwitchPortIn, cov: &mut Coverage) {
        if i.rst {
            if prev.rst {
                cov.hit(RESET_HELD);
            } else if g.in_flight() > 0 {
                cov.hit(RESET_IN_FLIGHT);
            }
            if i.arr_valid || i.c_valid || i.n_valid {
                cov.hit(TRAFFIC_IN_RESET);
            }
            return;
        }
        if i.arr_valid && prev.arr_valid && !prev.rst {
            cov.hit(ARRIVALS_BACK_TO_BACK);
        }
        let o = g.outputs();
        if o.arr_valid {
            if o.arr_detour {
                cov.hit(DETOURED);
            } else if o.arr_class {
                cov.hit(HIT_STAYS);
            } else {
                cov.hit(MISS_STAYS);
            }
            match Action::from_code(o.arr_action) {
                Some(Action::Mark) if !o.arr_detour => cov.hit(MARKED),
                Some(Action::DropWred) => cov.hit(DROPPED_WRED),
                Some(Action::DropTail) => cov.hit(DROPPED_TAIL),
                _ => {}
            }
        }
        if let Some(len) = g.grant() {
            cov.hit(GRANT_LEAVES);
            if len > g.cp().depth() {
                cov.hit(GRANT_LONGER_THAN_DEPTH);
            }
        }
        match g.rcc().grant(false, i.c_valid, i.n_valid, i.out_ready) {
            Some(Class::C) => cov.hit(GRANT_C),
            Some(Class::N) => cov.hit(GRANT_N),
            None => {}
        }
        let fo = g.crd().outputs();
        if fo.fb_valid {
            if fo.fb_queue != 0 {
                cov.hit(FB_QUEUE_1);
            } else if fo.fb > 0 {
                cov.hit(FB_POSITIVE);
            } else {
                cov.hit(FB_ZERO);
            }
            if fo.fb_queue == 0 && fo.fb_remote {
                cov.hit(FB_REMOTE);
            }
        }
        if o.window {
            cov.hit(WINDOW_MODE);
            if i.c_valid && i.n_valid && i.out_ready {
                cov.hit(WINDOW_BOTH_BACKLOGGED);
            }
        }
        if o.underflow {
            cov.hit(UNDERFLOW);
        }
        if i.cp_cfg_valid {
            cov.hit(CFG_CP);
        }
        if i.crd_cfg_valid {
            cov.hit(CFG_CRD);
        }
        if i.cam_cfg_valid {
            cov.hit(CFG_CAM);
        }
        if i.rcc_cfg_valid {
            cov.hit(CFG_RCC);
        }
        if i.sar_cfg_valid {
            cov.hit(CFG_SAR);
        }
        if i.deg_valid && g.cam().outputs().hit_valid {
            cov.hit(DEGREE_WITH_REQUEST);
        }
        if i.cn_valid {
            cov.hit(NOTIFICATION);
        }
    }
}

const COVER: &[&str] = &[
    "reset held for several cycles",
    "reset with arrivals in flight",
    "traffic in a reset cycle",
    "arrivals back to back",
    "arrival detoured by sar (not enqueued)",
    "CAM hit stays (class c)",
    "CAM miss stays (class n)",
    "arrival marked CE by cp",
    "arrival dropped by WRED",
    "arrival dropped at the tail",
    "grant leaves cp's depth in the next cycle",
    "grant longer than cp's depth (underflow)",
    "c granted",
    "n granted",
    "crd result of queue 1 (not the port's)",
    "crd degree of queue 0 above 0 (into rcc_sched)",
    "crd degree of queue 0 is 0 (congestion cleared)",
    "crd degree of queue 0 mixes a neighbour's",
    "rcc_sched in window mode",
    "window mode with both classes backlogged",
    "cp underflow flag up",
    "cp profile load",
    "crd register write",
    "cfr_cam period load",
    "rcc_sched register write",
    "sar register write",
    "degree on the bus while sar takes a request",
    "neighbour's notification",
];

const RESET_HELD: usize = 0;
const RESET_IN_FLIGHT: usize = 1;
const TRAFFIC_IN_RESET: usize = 2;
const ARRIVALS_BACK_TO_BACK: usize = 3;
const DETOURED: usize = 4;
const HIT_STAYS: usize = 5;
const MISS_STAYS: usize = 6;
const MARKED: usize = 7;
const DROPPED_WRED: usize = 8;
const DROPPED_TAIL: usize = 9;
const GRANT_LEAVES: usize = 10;
const GRANT_LONGER_THAN_DEPTH: usize = 11;
const GRANT_C: usize = 12;
const GRANT_N: usize = 13;
const FB_QUEUE_1: usize = 14;
const FB_POSITIVE: usize = 15;
const FB_ZERO: usize = 16;
const FB_REMOTE: usize = 17;
const WINDOW_MODE: usize = 18;
const WINDOW_BOTH_BACKLOGGED: usize = 19;
const UNDERFLOW: usize = 20;
const CFG_CP: usize = 21;
const CFG_CRD: usize = 22;
const CFG_CAM: usize = 23;
const CFG_RCC: usize = 24;
const CFG_SAR: usize = 25;
const DEGREE_WITH_REQUEST: usize = 26;
const NOTIFICATION: usize = 27;

/// The arrival phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Arrivals in most cycles, the link rarely ready.
    Fill,
    /// Arrivals rare, the link as rcc_sched's stimulus has it.
    Drain,
    /// Arrivals at a random share, the link as rcc_sched's stimulus.
    Mix,
}

pub struct SwitchPortStimulus {
    rng: Rng,
    cp: CpStimulus,
    crd: CrdStimulus,
    cam: CfrCamStimulus,
    rcc: RccSchedStimulus,
    sar: SarStimulus,
    phase: Phase,
    phase_left: u32,
    /// Arrivals in `share / 256` of the cycles.
    share: u32,
    /// The hot flows' keys.
    hot: [u128; 6],
    /// This port's number (most arrivals' port).
    home: u32,
    reset_in: u32,
    reset_left: u32,
}

fn random_key(r: &mut Rng) -> u128 {
    ((r.next_u64() as u128) << 64 | r.next_u64() as u128) & ((1u128 << 104) - 1)
}

impl SwitchPortStimulus {
    fn arrival(&mut self, i: &mut SwitchPortIn) {
        let r = &mut self.rng;
        i.arr_valid = r.upto(255) < self.share;
        if !i.arr_valid {
            return;
        }
        i.arr_key = if r.chance(192) {
            r.pick(&self.hot)
        } else {
            random_key(r)
        };
        let lmax = CpShape::new(20, 14).len_max();
        i.arr_len = match r.upto(7) {
            0 | 1 => 64,
            2 | 3 => 1500,
            4 => 9000,
            5 => lmax,
            _ => r.upto(lmax),
        };
        i.arr_ecn = r.upto(3) as u8;
        i.arr_port = if r.chance(200) { self.home } else { r.upto(7) };
        // Mostly two groups (their masks get rewritten often enough to
        // matter), any of the eight one time in eight: with groups 0 and 1
        // only, a group cut to two bits between the ports and sar went
        // unseen by the glue's mutant run.
        i.arr_group = if r.chance(224) { r.upto(1) } else { r.upto(7) };
    }
}

impl Stimulus<SwitchPortBlock> for SwitchPortStimulus {
    fn new(c: &SwitchPortConfig, seed: u64) -> SwitchPortStimulus {
        let mut rng = Rng::new(seed);
        let hot = [(); 6].map(|_| random_key(&mut rng));
        let home = rng.upto(7);
        SwitchPortStimulus {
            cp: CpStimulus::new(&c.cp_config(), seed ^ 0x1),
            crd: CrdStimulus::new(&c.crd_config(), seed ^ 0x2),
            cam: CfrCamStimulus::new(&c.cam_config(), seed ^ 0x3),
            rcc: RccSchedStimulus::new(&c.rcc_config(), seed ^ 0x4),
            sar: SarStimulus::new(&c.sar_config(), seed ^ 0x5),
            rng,
            phase: Phase::Fill,
            phase_left: 0,
            share: 0,
            hot,
            home,
            // The first cycle is a reset (the lockstep compares from it).
            reset_in: 0,
            reset_left: 0,
        }
    }

    fn next_into(&mut self, g: &SwitchPort, i: &mut SwitchPortIn) {
        // The blocks' own stimuli, on their blocks' states.
        let cpi = self.cp.next(g.cp());
        let crdi = self.crd.next(g.crd());
        let cami = self.cam.next(g.cam());
        let rcci = self.rcc.next(g.rcc());
        let sari = self.sar.next(g.sar());
        i.cp_cfg_valid = cpi.cfg_valid && cpi.cfg_queue == 0;
        i.cp_cfg = cpi.cfg;
        i.crd_cfg_valid = crdi.cfg_valid;
        i.crd_cfg_addr = crdi.cfg_addr;
        i.crd_cfg_data = crdi.cfg_data;
        i.cn_valid = crdi.cn_valid && crdi.cn_queue & 1 == 0;
        i.cn_fb = crdi.cn_fb;
        i.cam_cfg_valid = cami.cfg_valid;
        i.cam_cfg_period = cami.cfg_period;
        i.cam_cfg_thresh = cami.cfg_thresh;
        i.rcc_cfg_valid = rcci.cfg_valid;
        i.rcc_cfg_addr = rcci.cfg_addr;
        i.rcc_cfg_data = rcci.cfg_data;
        i.c_valid = rcci.c_valid;
        i.c_len = rcci.c_len;
        i.n_valid = rcci.n_valid;
        i.n_len = rcci.n_len;
        i.out_ready = rcci.out_ready;
        i.sar_cfg_valid = sari.cfg_valid;
        i.sar_cfg_addr = sari.cfg_addr;
        i.sar_cfg_data = sari.cfg_data;
        i.deg_valid = sari.deg_valid;
        i.deg_port = sari.deg_port;
        i.deg = sari.deg;

        // Phases.
        if self.phase_left == 0 {
            let r = &mut self.rng;
            self.phase = r.pick(&[Phase::Fill, Phase::Fill, Phase::Drain, Phase::Mix]);
            self.phase_left = r.range(200, 3_000);
            self.share = match self.phase {
                Phase::Fill => r.range(160, 255),
                Phase::Drain => r.range(0, 24),
                Phase::Mix => r.upto(255),
            };
            if r.chance(32) {
                self.home = r.upto(7);
            }
        }
        self.phase_left -= 1;
        if self.phase == Phase::Fill {
            i.out_ready = self.rng.chance(24);
        }
        self.arrival(i);

        // Resets. None while cfr_cam's stimulus keeps a large period for
        // two samples: 2,000 to 8,000 cycles between resets never let a
        // count of 2^15 packets complete, so the period's top bit cut
        // between the port and the CAM went unseen by the glue's mutants.
        if self.cam.holding(g.cam()) {
            // (Held off.)
        } else if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
        } else if self.reset_in == 0 {
            let r = &mut self.rng;
            self.reset_left = r.upto(2);
            self.reset_in = r.range(2_000, 8_000);
            i.rst = true;
        } else {
            self.reset_in -= 1;
            // Aim a reset now and then at arrivals in flight.
            if self.reset_in > 100 && g.in_flight() > 3 && self.rng.upto(20_000) == 0 {
                self.reset_in = 0;
            }
        }
    }
}

/// Parses and validates SWITCH_PORT's table of params text; `path` names
/// it. The table is `[switch_port]` with `cam_depth`, and one sub-table per
/// block holding only that block's `reset` table, in the block's own
/// syntax (`[switch_port.cp.reset]`, `[switch_port.crd.reset]`,
/// `[switch_port.cfr_cam.reset]`, `[switch_port.rcc_sched.reset]`,
/// `[switch_port.sar.reset]`); the inner shapes are fixed. Each block's
/// reset values are checked by that block's own parser.
pub fn parse_config(text: &str, path: &str) -> Result<SwitchPortConfig, ParamsError> {
    let file_err = |message: String| ParamsError::File {
        path: path.to_string(),
        message,
    };
    let doc: Value =
        toml::from_str(text).map_err(|e| file_err(e.to_string().trim_end().to_string()))?;
    let empty = toml::map::Map::new();
    let t = match doc.get("switch_port") {
        None => &empty,
        Some(Value::Table(t)) => t,
        Some(_) => return Err(file_err("`switch_port` must be a table".into())),
    };
    const BLOCKS: [&str; 5] = ["cp", "crd", "cfr_cam", "rcc_sched", "sar"];
    for k in t.keys() {
        if k != "cam_depth" && !BLOCKS.contains(&k.as_str()) {
            return Err(file_err(format!(
                "[switch_port]: unknown key `{k}` (expected `cam_depth` or one of {BLOCKS:?})"
            )));
        }
    }
    let cam_depth = match t.get("cam_depth") {
        None => SwitchPortShape::default().cam_depth,
        Some(Value::Integer(v)) if (0..=u32::MAX as i64).contains(v) => *v as u32,
        Some(v) => {
            return Err(file_err(format!(
                "[switch_port]: `cam_depth` = {v} is not a whole number"
            )))
        }
    };
    let shape = SwitchPortShape { cam_depth };
    shape.validate().map_err(|error| ParamsError::Param {
        path: path.to_string(),
        error,
    })?;
    let mut c = SwitchPortConfig::reset_for(shape);
    // Each block's table: its fixed shape and the reset values given.
    let inner = |name: &str, shape_keys: Vec<(&str, Value)>| -> Result<String, ParamsError> {
        let mut bt = toml::map::Map::new();
        for (k, v) in shape_keys {
            bt.insert(k.to_string(), v);
        }
        match t.get(name) {
            None => {}
            Some(Value::Table(sub)) => {
                for (k, v) in sub {
                    if k != "reset" {
                        return Err(file_err(format!(
                            "[switch_port.{name}]: `{k}` cannot be set: the inner shapes are \
                             fixed (docs/switch_port.md); only `reset` is read"
                        )));
                    }
                    bt.insert(k.clone(), v.clone());
                }
            }
            Some(_) => return Err(file_err(format!("`switch_port.{name}` must be a table"))),
        }
        let mut top = toml::map::Map::new();
        top.insert(name.to_string(), Value::Table(bt));
        Ok(toml::to_string(&Value::Table(top)).expect("a TOML table serialises"))
    };
    let sub_err = |name: &str| {
        let path = path.to_string();
        let name = name.to_string();
        move |e: ParamsError| match e {
            ParamsError::Param { error, .. } => ParamsError::File {
                path: path.clone(),
                message: format!("[switch_port.{name}.reset]: {error}"),
            },
            ParamsError::File { message, .. } => ParamsError::File {
                path: path.clone(),
                message: format!("[switch_port.{name}]: {message}"),
            },
        }
    };
    let i = |v: u32| Value::Integer(v as i64);
    let cps = c.cp_config().shape;
    c.cp = crate::cp::parse_config(
        &inner(
            "cp",
            vec![
                ("depth_bits", i(cps.depth_bits)),
                ("len_bits", i(cps.len_bits)),
                ("queues", i(cps.queues)),
                ("mark_at", Value::String(cps.mark_at.name().into())),
            ],
        )?,
        path,
    )
    .map_err(sub_err("cp"))?
    .reset;
    let crs = c.crd_config().shape;
    c.crd = crate::crd::parse_config(
        &inner(
            "crd",
            vec![
                ("queue_bits", i(crs.queue_bits)),
                ("len_bits", i(crs.len_bits)),
            ],
        )?,
        path,
    )
    .map_err(sub_err("crd"))?
    .reset;
    let cms = c.cam_config().shape;
    c.cam = crate::cfr_cam::parse_config(
        &inner(
            "cfr_cam",
            vec![("key_bits", i(cms.key_bits)), ("depth", i(cms.depth))],
        )?,
        path,
    )
    .map_err(sub_err("cfr_cam"))?
    .reset;
    let rcs = c.rcc_config().shape;
    c.rcc = crate::rcc_sched::parse_config(
        &inner("rcc_sched", vec![("win_bits", i(rcs.win_bits))])?,
        path,
    )
    .map_err(sub_err("rcc_sched"))?
    .reset;
    let sas = c.sar_config().shape;
    c.sar = crate::sar::parse_config(
        &inner(
            "sar",
            vec![
                ("port_bits", i(sas.port_bits)),
                ("group_bits", i(sas.group_bits)),
            ],
        )?,
        path,
    )
    .map_err(sub_err("sar"))?
    .reset;
    c.validate().map_err(|error| ParamsError::Param {
        path: path.to_string(),
        error,
    })?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(c: &SwitchPortConfig, seed: u64, cycles: u64) -> Coverage {
        let mut g = SwitchPortBlock::golden(c);
        let mut s = SwitchPortStimulus::new(c, seed);
        let mut cov = Coverage::new(COVER, SwitchPortBlock::coverage_applies(c));
        let mut prev = SwitchPortIn::default();
        for _ in 0..cycles {
            let i = s.next(&g);
            SwitchPortBlock::cover(&g, &prev, &i, &mut cov);
            g.step(&i);
            prev = i;
        }
        cov
    }

    #[test]
    fn stimulus_hits_every_coverage_point_in_2e5_cycles_on_every_shape() {
        let mut r = Rng::new(7);
        for (k, shape) in SwitchPortBlock::menu().iter().enumerate() {
            for c in [*shape, SwitchPortBlock::random_reset(shape, &mut r)] {
                let cov = run(&c, 1 + k as u64, 200_000);
                eprintln!("{}: {:?}", SwitchPortBlock::describe(&c), cov.points());
                assert!(
                    cov.missed().is_empty(),
                    "{}: missed {:?}\n{:?}",
                    SwitchPortBlock::describe(&c),
                    cov.missed(),
                    cov.points()
                );
            }
        }
    }

    #[test]
    fn coverage_points_are_named_once() {
        let mut names = COVER.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), COVER.len());
        assert_eq!(COVER.len(), NOTIFICATION + 1);
    }

    #[test]
    fn params_table_is_parsed_and_checked_by_name() {
        assert_eq!(
            parse_config("", "p.toml").unwrap(),
            SwitchPortConfig::default()
        );
        let c = parse_config(SwitchPortBlock::SHORT_PARAMS, "p.toml").unwrap();
        assert_eq!(c.shape.cam_depth, 16);
        assert_eq!((c.crd.period, c.crd.qeq), (64, 8192));
        assert_eq!((c.rcc.window, c.rcc.wc_min), (20000, 1000));
        let e = parse_config("[switch_port]\ncam_depth = 32\n", "p.toml").unwrap_err();
        assert!(e.to_string().contains("`cam_depth`"), "{e}");
        let e = parse_config("[switch_port.cp]\ndepth_bits = 24\n", "p.toml").unwrap_err();
        assert!(e.to_string().contains("`depth_bits`"), "{e}");
        let e = parse_config(
            "[switch_port.rcc_sched.reset]\nwindow = 2000000\n",
            "p.toml",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("switch_port.rcc_sched") && e.to_string().contains("`window`"),
            "{e}"
        );
        let e = parse_config("[switch_port]\nwindow = 1\n", "p.toml").unwrap_err();
        assert!(e.to_string().contains("`window`"), "{e}");
    }
}
