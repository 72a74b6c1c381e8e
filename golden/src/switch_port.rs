//! Golden model of `switch_port`: one switch output port built from five
//! blocks (docs/switch_port.md).
//!
//! The model owns one golden model of each inner block ([`CfrCam`], [`Sar`],
//! [`Cp`], [`Crd`], [`RccSched`]) and adds only the glue of the contract:
//!
//! - delay line A (4 registers, no valid) carries an arrival's `len, ecn,
//!   port, group` alongside the CAM lookup, so they meet its answer;
//! - delay line B (3 registers, no valid) carries `len, ecn` and the CAM's
//!   `hit` alongside sar's decision, so cp enqueues what sar keeps;
//! - delay line C (12 registers, with a valid) carries sar's decision and the
//!   `hit` alongside cp's decision, so both leave on `m_arr` together;
//! - the grant register holds rcc_sched's grant of the previous cycle and
//!   drives cp's dequeue.
//!
//! One [`SwitchPort::step`] is one clock cycle. Within a step the inner
//! models are stepped in dependency order (cfr_cam, sar, cp, crd,
//! rcc_sched): each `step` returns the block's outputs during the cycle,
//! which for the registered outputs depend only on the state before the
//! edge, so a block whose input in cycle `t` is another block's output in
//! cycle `t` gets exactly that value. The glue registers are loaded last,
//! from the values seen during the cycle.
//!
//! Input fields wider than their ports are masked to the port width before
//! they reach the glue or a block, so bits above a port's width never have an
//! effect. cp stores its profile load as given, so the glue masks it.
//!
//! A reset cycle goes to every block and clears the valid bits of the glue
//! (delay line C and the grant register); delay lines A and B have no valid
//! of their own (cfr_cam's and sar's pipelines, which the reset empties, are
//! their valids), so their payloads are left as they are.

use crate::cfr_cam::{CfrCam, CfrCamConfig, CfrCamIn, CfrCamParams, CfrCamShape};
use crate::cp::{Cp, CpConfig, CpIn, CpParams, CpParamsPort, CpShape, MarkAt};
use crate::crd::{Crd, CrdConfig, CrdIn, CrdParams, CrdShape};
use crate::error::ParamError;
use crate::mask;
use crate::rcc_sched::{RccSched, RccSchedConfig, RccSchedIn, RccSchedParams, RccSchedShape};
use crate::sar::{Sar, SarConfig, SarIn, SarParams, SarShape};

/// Stages of delay line A (cfr_cam's latency).
const A_STAGES: usize = crate::cfr_cam::LATENCY;
/// Stages of delay line B (sar's latency).
const B_STAGES: usize = crate::sar::LATENCY;
/// Stages of delay line C (cp's latency).
const C_STAGES: usize = crate::cp::LATENCY;

/// Cycles from an arrival on `s_arr_*` to its decision on `m_arr_*`.
pub const LATENCY: usize = A_STAGES + B_STAGES + C_STAGES;

/// The CAM depths the port is generated with.
pub const SUPPORTED_CAM_DEPTHS: &[u32] = &[16, 64];

// Port widths of the inputs the glue holds or passes on.
const KEY_BITS: u32 = 104;
const LEN_BITS: u32 = 14;
const ECN_BITS: u32 = 2;
const PORT_BITS: u32 = 3;
const GROUP_BITS: u32 = 3;
const DEG_BITS: u32 = 8;
const FB_BITS: u32 = 8;
const DEPTH_BITS: u32 = 20;
const PMAX_BITS: u32 = 17;
const SEED_BITS: u32 = 32;
const CRD_ADDR_BITS: u32 = 3;
const CRD_DATA_BITS: u32 = 24;
const CAM_PERIOD_BITS: u32 = crate::cfr_cam::PERIOD_BITS;
const CAM_THRESH_BITS: u32 = crate::cfr_cam::THRESH_BITS;
const RCC_ADDR_BITS: u32 = 2;
const RCC_DATA_BITS: u32 = 24;
const SAR_ADDR_BITS: u32 = 4;
const SAR_DATA_BITS: u32 = 16;

/// The one generation-time knob of the composition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchPortShape {
    /// Entries of the CAM (one of [`SUPPORTED_CAM_DEPTHS`]).
    pub cam_depth: u32,
}

impl Default for SwitchPortShape {
    fn default() -> Self {
        SwitchPortShape { cam_depth: 64 }
    }
}

impl SwitchPortShape {
    /// Refuses a CAM depth outside [`SUPPORTED_CAM_DEPTHS`], as `cam_depth`.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !SUPPORTED_CAM_DEPTHS.contains(&self.cam_depth) {
            return Err(ParamError::new(
                "cam_depth",
                format!(
                    "{} is not supported; choose one of {SUPPORTED_CAM_DEPTHS:?}",
                    self.cam_depth
                ),
            ));
        }
        Ok(())
    }

    fn cp_shape(&self) -> CpShape {
        CpShape {
            depth_bits: DEPTH_BITS,
            len_bits: LEN_BITS,
            queues: 1,
            mark_at: MarkAt::Enqueue,
        }
    }

    fn crd_shape(&self) -> CrdShape {
        CrdShape {
            queue_bits: 1,
            len_bits: DEPTH_BITS,
        }
    }

    fn cam_shape(&self) -> CfrCamShape {
        CfrCamShape {
            key_bits: KEY_BITS,
            depth: self.cam_depth,
        }
    }

    fn rcc_shape(&self) -> RccSchedShape {
        RccSchedShape { win_bits: 20 }
    }

    fn sar_shape(&self) -> SarShape {
        SarShape {
            port_bits: PORT_BITS,
            group_bits: GROUP_BITS,
        }
    }
}

/// Generation-time configuration: the shape and every block's reset values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchPortConfig {
    pub shape: SwitchPortShape,
    pub cp: CpParams,
    pub crd: CrdParams,
    pub cam: CfrCamParams,
    pub rcc: RccSchedParams,
    pub sar: SarParams,
}

impl SwitchPortConfig {
    /// Each block's default reset values for its inner shape in `shape`.
    pub fn reset_for(shape: SwitchPortShape) -> SwitchPortConfig {
        SwitchPortConfig {
            shape,
            cp: CpParams::reset_for(&shape.cp_shape()),
            crd: CrdParams::reset_for(&shape.crd_shape()),
            cam: CfrCamParams::default(),
            rcc: RccSchedParams::reset_for(&shape.rcc_shape()),
            sar: SarParams::default(),
        }
    }

    /// The shape first, then each block's configuration by its own rules
    /// (in the order of the fields: cp, crd, cfr_cam, rcc_sched, sar).
    pub fn validate(&self) -> Result<(), ParamError> {
        self.shape.validate()?;
        self.cp_config().validate()?;
        self.crd_config().validate()?;
        self.cam_config().validate()?;
        self.rcc_config().validate()?;
        self.sar_config().validate()
    }

    pub fn cp_config(&self) -> CpConfig {
        CpConfig {
            shape: self.shape.cp_shape(),
            reset: self.cp,
        }
    }

    pub fn crd_config(&self) -> CrdConfig {
        CrdConfig {
            shape: self.shape.crd_shape(),
            reset: self.crd,
        }
    }

    pub fn cam_config(&self) -> CfrCamConfig {
        CfrCamConfig {
            shape: self.shape.cam_shape(),
            reset: self.cam,
        }
    }

    pub fn rcc_config(&self) -> RccSchedConfig {
        RccSchedConfig {
            shape: self.shape.rcc_shape(),
            reset: self.rcc,
        }
    }

    pub fn sar_config(&self) -> SarConfig {
        SarConfig {
            shape: self.shape.sar_shape(),
            reset: self.sar,
        }
    }
}

impl Default for SwitchPortConfig {
    fn default() -> Self {
        SwitchPortConfig::reset_for(SwitchPortShape::default())
    }
}

/// Inputs of one clock cycle (the port's inputs, clock excluded). Only the
/// low port-width bits of each field are ports (docs/switch_port.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SwitchPortIn {
    pub rst: bool,
    pub arr_valid: bool,
    pub arr_key: u128,
    pub arr_len: u32,
    pub arr_ecn: u8,
    pub arr_port: u32,
    pub arr_group: u32,
    pub c_valid: bool,
    pub c_len: u32,
    pub n_valid: bool,
    pub n_len: u32,
    pub out_ready: bool,
    pub deg_valid: bool,
    pub deg_port: u32,
    pub deg: u32,
    pub cn_valid: bool,
    pub cn_fb: u32,
    pub cp_cfg_valid: bool,
    pub cp_cfg: CpParamsPort,
    pub crd_cfg_valid: bool,
    pub crd_cfg_addr: u32,
    pub crd_cfg_data: u32,
    pub cam_cfg_valid: bool,
    pub cam_cfg_period: u32,
    pub cam_cfg_thresh: u32,
    pub rcc_cfg_valid: bool,
    pub rcc_cfg_addr: u32,
    pub rcc_cfg_data: u32,
    pub sar_cfg_valid: bool,
    pub sar_cfg_addr: u32,
    pub sar_cfg_data: u32,
}

/// Outputs during one clock cycle. `c_ready` / `n_ready` are combinational
/// (rcc_sched's grants); every other field is registered. Each field is 0
/// when its valid is low.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SwitchPortOut {
    /// The decision of the arrival of [`LATENCY`] cycles ago.
    pub arr_valid: bool,
    /// sar's port for it.
    pub arr_port: u32,
    /// sar moved it to another port (it never entered this port's cp).
    pub arr_detour: bool,
    /// It hit the CAM (class `c`).
    pub arr_class: bool,
    /// cp's action code; 0 when detoured.
    pub arr_action: u8,
    /// cp's ECN codepoint; 0 when detoured.
    pub arr_ecn: u8,
    pub c_ready: bool,
    pub n_ready: bool,
    pub window: bool,
    pub wc: u32,
    pub wnc: u32,
    /// crd's result for queue 0.
    pub fb_valid: bool,
    pub fb: u32,
    pub fb_role: u8,
    /// cp's lagging depth output.
    pub depth: u32,
    /// cp's sticky underflow flag (queue 0).
    pub underflow: bool,
}

/// One entry of delay line A: an arrival's fields (masked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct StageA {
    len: u32,
    ecn: u8,
    port: u32,
    group: u32,
}

/// One entry of delay line B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct StageB {
    len: u32,
    ecn: u8,
    hit: bool,
}

/// One entry of delay line C (the payload is meaningful only with `valid`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct StageC {
    valid: bool,
    port: u32,
    detour: bool,
    hit: bool,
}

/// The golden model of `switch_port`: one [`SwitchPort::step`] per cycle.
#[derive(Debug, Clone)]
pub struct SwitchPort {
    config: SwitchPortConfig,
    cam: CfrCam,
    sar: Sar,
    cp: Cp,
    crd: Crd,
    rcc: RccSched,
    /// Delay lines: index 0 is loaded at the edge, the last index is read
    /// during the cycle.
    a: [StageA; A_STAGES],
    b: [StageB; B_STAGES],
    c: [StageC; C_STAGES],
    /// Bookkeeping only (not a register of the design): which entries of
    /// delay line A carry an arrival, mirroring cfr_cam's pipeline, for
    /// [`SwitchPort::in_flight`].
    a_valid: [bool; A_STAGES],
    /// The grant register: `g` and `gl`.
    g: bool,
    gl: u32,
}

impl SwitchPort {
    /// A model as just after a reset; refuses an invalid configuration.
    pub fn new(config: SwitchPortConfig) -> Result<SwitchPort, ParamError> {
        config.validate()?;
        Ok(SwitchPort {
            config,
            cam: CfrCam::new(config.cam_config())?,
            sar: Sar::new(config.sar_config())?,
            cp: Cp::new(config.cp_config())?,
            crd: Crd::new(config.crd_config())?,
            rcc: RccSched::new(config.rcc_config())?,
            a: [StageA::default(); A_STAGES],
            b: [StageB::default(); B_STAGES],
            c: [StageC::default(); C_STAGES],
            a_valid: [false; A_STAGES],
            g: false,
            gl: 0,
        })
    }

    pub fn config(&self) -> &SwitchPortConfig {
        &self.config
    }

    pub fn cam(&self) -> &CfrCam {
        &self.cam
    }

    pub fn sar(&self) -> &Sar {
        &self.sar
    }

    pub fn cp(&self) -> &Cp {
        &self.cp
    }

    pub fn crd(&self) -> &Crd {
        &self.crd
    }

    pub fn rcc(&self) -> &RccSched {
        &self.rcc
    }

    /// The grant register: `Some(gl)` when `g` is set (cp dequeues `gl`
    /// bytes in the next step).
    pub fn grant(&self) -> Option<u32> {
        self.g.then_some(self.gl)
    }

    /// Arrivals accepted but not yet past `m_arr`: in cfr_cam (delay line
    /// A), in sar (delay line B) or in delay line C, the one on the outputs
    /// of the next step included.
    pub fn in_flight(&self) -> usize {
        self.a_valid.iter().filter(|&&v| v).count()
            + self.sar.in_flight()
            + self.c.iter().filter(|s| s.valid).count()
    }

    /// The registered outputs of the current state (those of the next step;
    /// `c_ready` / `n_ready` are false here).
    pub fn outputs(&self) -> SwitchPortOut {
        let c = self.c[C_STAGES - 1];
        let cp = self.cp.outputs();
        let crd = self.crd.outputs();
        let rcc = self.rcc.status();
        let stays = c.valid && !c.detour;
        let fb_valid = crd.fb_valid && crd.fb_queue == 0;
        SwitchPortOut {
            arr_valid: c.valid,
            arr_port: if c.valid { c.port } else { 0 },
            arr_detour: c.valid && c.detour,
            arr_class: c.valid && c.hit,
            arr_action: if stays { cp.dec_action } else { 0 },
            arr_ecn: if stays { cp.dec_ecn } else { 0 },
            c_ready: false,
            n_ready: false,
            window: rcc.window,
            wc: rcc.wc,
            wnc: rcc.wnc,
            fb_valid,
            fb: if fb_valid { crd.fb } else { 0 },
            fb_role: if fb_valid { crd.fb_role } else { 0 },
            depth: cp.depth,
            underflow: cp.underflow & 1 != 0,
        }
    }

    /// One clock cycle: returns the outputs seen during the cycle, then
    /// applies the cycle's inputs at its rising edge.
    pub fn step(&mut self, i: &SwitchPortIn) -> SwitchPortOut {
        let mut out = self.outputs();
        let rst = i.rst;
        let key_mask = (1u128 << KEY_BITS) - 1;

        // cfr_cam: every arrival is looked up and offered for sampling.
        let cam = self.cam.step(&CfrCamIn {
            rst,
            pkt_valid: i.arr_valid,
            pkt_key: i.arr_key & key_mask,
            look_valid: i.arr_valid,
            look_key: i.arr_key & key_mask,
            cfg_valid: i.cam_cfg_valid,
            cfg_period: i.cam_cfg_period & mask(CAM_PERIOD_BITS),
            cfg_thresh: i.cam_cfg_thresh & mask(CAM_THRESH_BITS),
        });
        let a_out = self.a[A_STAGES - 1];

        // sar: the CAM's answer with the arrival's fields from delay line A.
        let sar = self.sar.step(&SarIn {
            rst,
            deg_valid: i.deg_valid,
            deg_port: i.deg_port & mask(PORT_BITS),
            deg: i.deg & mask(DEG_BITS),
            req_valid: cam.hit_valid,
            req_port: a_out.port,
            req_group: a_out.group,
            req_hit: cam.hit,
            cfg_valid: i.sar_cfg_valid,
            cfg_addr: i.sar_cfg_addr & mask(SAR_ADDR_BITS),
            cfg_data: i.sar_cfg_data & mask(SAR_DATA_BITS),
        });
        let b_out = self.b[B_STAGES - 1];

        // cp: enqueue what sar keeps; dequeue the registered grant.
        let cfg = CpParamsPort {
            kmin: i.cp_cfg.kmin & mask(DEPTH_BITS),
            kmax: i.cp_cfg.kmax & mask(DEPTH_BITS),
            pmax: i.cp_cfg.pmax & mask(PMAX_BITS),
            kdrop: i.cp_cfg.kdrop & mask(DEPTH_BITS),
            buf_max: i.cp_cfg.buf_max & mask(DEPTH_BITS),
            seed: i.cp_cfg.seed & mask(SEED_BITS),
        };
        let cp = self.cp.step(&CpIn {
            rst,
            enq_valid: sar.dec_valid && !sar.dec_detour,
            enq_len: b_out.len,
            enq_ecn: b_out.ecn,
            enq_queue: 0,
            deq_valid: self.g,
            deq_len: self.gl,
            deq_ecn: 0,
            deq_queue: 0,
            cfg_valid: i.cp_cfg_valid,
            cfg_queue: 0,
            cfg,
            depth_sel: 0,
        });

        // crd: queue 0 is cp's depth, reported every cycle.
        let crd = self.crd.step(&CrdIn {
            rst,
            len_valid: true,
            len_queue: 0,
            len_bytes: cp.depth,
            cn_valid: i.cn_valid,
            cn_queue: 0,
            cn_fb: i.cn_fb & mask(FB_BITS),
            cfg_valid: i.crd_cfg_valid,
            cfg_addr: i.crd_cfg_addr & mask(CRD_ADDR_BITS),
            cfg_data: i.crd_cfg_data & mask(CRD_DATA_BITS),
        });
        let fb_valid = crd.fb_valid && crd.fb_queue == 0;

        // rcc_sched: the port's own degree, the cycle it leaves crd.
        let c_len = i.c_len & mask(LEN_BITS);
        let n_len = i.n_len & mask(LEN_BITS);
        let rcc = self.rcc.step(&RccSchedIn {
            rst,
            c_valid: i.c_valid,
            c_len,
            n_valid: i.n_valid,
            n_len,
            out_ready: i.out_ready,
            fb_valid,
            fb: if fb_valid { crd.fb } else { 0 },
            cfg_valid: i.rcc_cfg_valid,
            cfg_addr: i.rcc_cfg_addr & mask(RCC_ADDR_BITS),
            cfg_data: i.rcc_cfg_data & mask(RCC_DATA_BITS),
        });
        out.c_ready = rcc.c_ready;
        out.n_ready = rcc.n_ready;

        // The glue registers, loaded at the edge.
        self.a.copy_within(0..A_STAGES - 1, 1);
        self.a[0] = StageA {
            len: i.arr_len & mask(LEN_BITS),
            ecn: i.arr_ecn & mask(ECN_BITS) as u8,
            port: i.arr_port & mask(PORT_BITS),
            group: i.arr_group & mask(GROUP_BITS),
        };
        self.a_valid.copy_within(0..A_STAGES - 1, 1);
        self.a_valid[0] = i.arr_valid && !rst;
        self.b.copy_within(0..B_STAGES - 1, 1);
        self.b[0] = StageB {
            len: a_out.len,
            ecn: a_out.ecn,
            hit: cam.hit,
        };
        self.c.copy_within(0..C_STAGES - 1, 1);
        self.c[0] = StageC {
            valid: sar.dec_valid,
            port: sar.dec_port,
            detour: sar.dec_detour,
            hit: b_out.hit,
        };
        self.g = rcc.c_ready || rcc.n_ready;
        self.gl = if rcc.c_ready { c_len } else { n_len };
        if rst {
            for s in &mut self.a_valid {
                *s = false;
            }
            for s in &mut self.c {
                s.valid = false;
            }
            self.g = false;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cp::{ecn, DEPTH_LAG};

    fn port() -> SwitchPort {
        SwitchPort::new(SwitchPortConfig::default()).unwrap()
    }

    fn arrival(key: u128, len: u32, ecn: u8, port: u32, group: u32) -> SwitchPortIn {
        SwitchPortIn {
            arr_valid: true,
            arr_key: key,
            arr_len: len,
            arr_ecn: ecn,
            arr_port: port,
            arr_group: group,
            ..SwitchPortIn::default()
        }
    }

    /// Steps `n` idle cycles, returning their outputs.
    fn idle(p: &mut SwitchPort, n: usize) -> Vec<SwitchPortOut> {
        (0..n).map(|_| p.step(&SwitchPortIn::default())).collect()
    }

    /// Steps `first` and then idle cycles until LATENCY + 5 cycles have
    /// passed; returns the outputs of every cycle (index = cycle).
    fn run_one(p: &mut SwitchPort, first: &SwitchPortIn) -> Vec<SwitchPortOut> {
        let mut outs = vec![p.step(first)];
        outs.extend(idle(p, LATENCY + 5));
        outs
    }

    fn valid_cycles(outs: &[SwitchPortOut]) -> Vec<usize> {
        (0..outs.len()).filter(|&t| outs[t].arr_valid).collect()
    }

    fn cp_cfg(kmin: u32, kmax: u32, kdrop: u32) -> SwitchPortIn {
        SwitchPortIn {
            cp_cfg_valid: true,
            cp_cfg: CpParamsPort {
                kmin,
                kmax,
                pmax: 1 << 16,
                kdrop,
                buf_max: (1 << 20) - 1,
                seed: 1,
            },
            ..SwitchPortIn::default()
        }
    }

    #[test]
    fn switch_port_miss_leaves_at_latency_with_cps_action() {
        // cp marks every ECT packet (kmin = kmax = 0) and WRED-drops every
        // not-ECT one (kdrop = 0), so cp's action is visible on m_arr.
        let mut p = port();
        p.step(&cp_cfg(0, 0, 0));
        idle(&mut p, 2);
        for (ecn_in, action, ecn_out) in [
            (ecn::ECT0, 1, ecn::CE),
            (ecn::NOT_ECT, 2, 0),
            (ecn::ECT1, 1, ecn::CE),
        ] {
            // High bits above each port's width must have no effect.
            let mut a = arrival(0x1234 | 1 << 110, 100 | 1 << 20, ecn_in | 0x40, 5 | 0x18, 2);
            a.arr_key = (a.arr_key & !(0xffu128)) | ecn_in as u128; // a new key each time
            let outs = run_one(&mut p, &a);
            assert_eq!(valid_cycles(&outs), vec![LATENCY]);
            let o = outs[LATENCY];
            assert_eq!(
                (
                    o.arr_port,
                    o.arr_detour,
                    o.arr_class,
                    o.arr_action,
                    o.arr_ecn
                ),
                (5, false, false, action, ecn_out)
            );
            assert_eq!(p.in_flight(), 0);
        }
        // Marked packets were admitted: two of 100 bytes in the queue.
        assert_eq!(p.cp().depth(), 200);
    }

    #[test]
    fn switch_port_admit_and_in_flight() {
        let mut p = port();
        let outs = run_one(&mut p, &arrival(7, 64, ecn::ECT0, 3, 0));
        let o = outs[LATENCY];
        assert!(o.arr_valid);
        assert_eq!((o.arr_port, o.arr_action, o.arr_ecn), (3, 0, ecn::ECT0));
        assert_eq!(p.cp().depth(), 64);
        // in_flight counts the arrival from its step to the step it leaves.
        let mut p = port();
        p.step(&arrival(7, 64, ecn::ECT0, 3, 0));
        for t in 1..LATENCY {
            assert_eq!(p.in_flight(), 1, "cycle {t}");
            assert!(!p.step(&SwitchPortIn::default()).arr_valid);
        }
        assert_eq!(p.in_flight(), 1);
        assert!(p.outputs().arr_valid);
        assert!(p.step(&SwitchPortIn::default()).arr_valid);
        assert_eq!(p.in_flight(), 0);
    }

    #[test]
    fn switch_port_hit_is_class_c() {
        // S = 64 and the count starts at 0: the first arrival is sampled, a
        // later one with the same key hits.
        let mut p = port();
        let first = run_one(&mut p, &arrival(0xabc, 100, ecn::ECT0, 1, 0));
        assert!(
            !first[LATENCY].arr_class,
            "the sampled arrival itself misses"
        );
        let outs = run_one(&mut p, &arrival(0xabc, 100, ecn::ECT0, 1, 0));
        assert_eq!(valid_cycles(&outs), vec![LATENCY]);
        assert!(outs[LATENCY].arr_class);
        assert!(!outs[LATENCY].arr_detour);
    }

    #[test]
    fn switch_port_detoured_miss() {
        let mut p = port();
        // sar: group 4's equal-cost ports are 2 and 5; margin 0.
        p.step(&SwitchPortIn {
            sar_cfg_valid: true,
            sar_cfg_addr: 4,
            sar_cfg_data: 1 << 2 | 1 << 5,
            ..SwitchPortIn::default()
        });
        p.step(&SwitchPortIn {
            sar_cfg_valid: true,
            sar_cfg_addr: 8,
            sar_cfg_data: 0,
            ..SwitchPortIn::default()
        });
        for (port, deg) in [(5, 100), (2, 10)] {
            p.step(&SwitchPortIn {
                deg_valid: true,
                deg_port: port,
                deg,
                ..SwitchPortIn::default()
            });
        }
        let depth0 = p.cp().depth();
        // The first arrival is sampled but misses (lookup before sample).
        let a = arrival(0x55, 100, ecn::ECT0, 5, 4);
        let mut outs = vec![p.step(&a)];
        for _ in 0..LATENCY + 5 {
            outs.push(p.step(&SwitchPortIn::default()));
            assert_eq!(p.cp().depth(), depth0);
        }
        assert_eq!(valid_cycles(&outs), vec![LATENCY]);
        let o = outs[LATENCY];
        assert_eq!(
            (
                o.arr_port,
                o.arr_detour,
                o.arr_class,
                o.arr_action,
                o.arr_ecn
            ),
            (2, true, false, 0, 0)
        );
        assert!(outs.iter().all(|o| o.depth == depth0));
        // The same packet in group 0 (no equal-cost ports) stays and counts.
        let outs = run_one(&mut p, &arrival(0x66, 100, ecn::ECT0, 5, 0));
        assert_eq!(valid_cycles(&outs), vec![LATENCY]);
        assert!(!outs[LATENCY].arr_detour);
        assert_eq!(p.cp().depth(), depth0 + 100);
    }

    #[test]
    fn switch_port_grant_leaves_depth_next_cycle() {
        let mut p = port();
        run_one(&mut p, &arrival(1, 300, ecn::ECT0, 0, 0));
        assert_eq!(p.cp().depth(), 300);
        idle(&mut p, DEPTH_LAG + 1);
        // Cycle t: the link takes the c head (300 bytes).
        let grant_in = SwitchPortIn {
            c_valid: true,
            c_len: 300 | 1 << 15, // above the 14-bit port: ignored
            out_ready: true,
            ..SwitchPortIn::default()
        };
        assert_eq!(p.grant(), None);
        let o = p.step(&grant_in);
        assert!(o.c_ready && !o.n_ready);
        assert_eq!(p.grant(), Some(300));
        assert_eq!(p.cp().depth(), 300, "not in the grant's own cycle");
        // Cycle t + 1: cp dequeues it.
        let mut outs = vec![p.step(&SwitchPortIn::default())];
        assert_eq!(p.grant(), None);
        assert_eq!(p.cp().depth(), 0);
        outs.extend(idle(&mut p, DEPTH_LAG + 2));
        // q_depth: an enqueue in t + 2 sees 0; the output shows it
        // DEPTH_LAG cycles later (outs[k] is cycle t + 1 + k).
        let first_zero = outs.iter().position(|o| o.depth == 0).unwrap();
        assert_eq!(first_zero, 1 + DEPTH_LAG);
        assert!(!outs.iter().any(|o| o.underflow));
    }

    #[test]
    fn switch_port_crd_queue1_reaches_neither_fb_nor_rcc() {
        let mut p = port();
        // crd period 16 (addr 0): one sample of each queue every 16 cycles.
        p.step(&SwitchPortIn {
            crd_cfg_valid: true,
            crd_cfg_addr: 0,
            crd_cfg_data: 16,
            ..SwitchPortIn::default()
        });
        let (mut q0, mut q1) = (0, 0);
        let mut taken = Vec::new();
        let mut q0_cycles = Vec::new();
        for _ in 0..200 {
            let t = p.rcc().cycle();
            let crd = p.crd().outputs();
            let o = p.step(&SwitchPortIn {
                cn_valid: true,
                cn_fb: 200,
                ..SwitchPortIn::default()
            });
            if crd.fb_valid && crd.fb_queue == 1 {
                q1 += 1;
                assert!(!o.fb_valid && o.fb == 0 && o.fb_role == 0);
            }
            if crd.fb_valid && crd.fb_queue == 0 {
                q0 += 1;
                q0_cycles.push(t);
                assert!(o.fb_valid);
                assert_eq!((o.fb, o.fb_role), (crd.fb, crd.fb_role));
            }
            // A queue-1 result offered while the update of queue 0's is in
            // flight would wait in rcc_sched's pending slot.
            assert_eq!(p.rcc().pending(), None);
            if let Some(f) = p.rcc().in_flight() {
                if !taken.contains(&f.taken) {
                    taken.push(f.taken);
                }
            }
        }
        assert!(q0 > 5 && q1 > 5);
        assert_eq!(taken, q0_cycles);
    }

    #[test]
    fn switch_port_reset_mid_flight() {
        let mut p = port();
        let mut outs = Vec::new();
        for k in 0..10u128 {
            outs.push(p.step(&arrival(k, 100, ecn::ECT0, 1, 0)));
        }
        p.step(&SwitchPortIn {
            rst: true,
            c_valid: true,
            out_ready: true,
            ..arrival(99, 100, ecn::ECT0, 1, 0)
        });
        assert_eq!(p.in_flight(), 0);
        assert_eq!(p.grant(), None);
        outs.extend(idle(&mut p, 2 * LATENCY));
        assert!(outs.iter().all(|o| !o.arr_valid));
        assert_eq!(p.cp().depth(), 0);
        // A grant just before the reset is cleared by it too.
        let mut p = port();
        p.step(&SwitchPortIn {
            c_valid: true,
            c_len: 10,
            out_ready: true,
            ..SwitchPortIn::default()
        });
        assert_eq!(p.grant(), Some(10));
        p.step(&SwitchPortIn {
            rst: true,
            ..SwitchPortIn::default()
        });
        assert_eq!(p.grant(), None);
        assert!(!p.step(&SwitchPortIn::default()).underflow);
        // And the port works after the reset.
        let outs = run_one(&mut p, &arrival(3, 100, ecn::ECT0, 6, 0));
        assert_eq!(valid_cycles(&outs), vec![LATENCY]);
        assert_eq!(outs[LATENCY].arr_port, 6);
    }

    #[test]
    fn switch_port_step_matches_outputs() {
        let mut p = port();
        let mut x = 0x9e37_79b9u32;
        for t in 0..2000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let before = p.outputs();
            let i = SwitchPortIn {
                rst: t % 701 == 700,
                arr_valid: x & 1 != 0,
                arr_key: (x >> 4 & 7) as u128,
                arr_len: x >> 8 & 0x3ff,
                arr_ecn: (x >> 20 & 3) as u8,
                arr_port: x >> 22,
                arr_group: x >> 25,
                c_valid: x & 2 != 0,
                c_len: x >> 12 & 0xff,
                n_valid: x & 4 != 0,
                n_len: x >> 16 & 0xff,
                out_ready: x & 8 != 0,
                deg_valid: x & 16 != 0,
                deg_port: x >> 28,
                deg: x >> 3,
                ..SwitchPortIn::default()
            };
            let o = p.step(&i);
            assert_eq!(
                SwitchPortOut {
                    c_ready: false,
                    n_ready: false,
                    ..o
                },
                before
            );
            assert!(!(o.c_ready && o.n_ready));
        }
    }

    #[test]
    fn switch_port_bad_configs_refused_by_name() {
        let shape = SwitchPortShape { cam_depth: 32 };
        assert_eq!(shape.validate().unwrap_err().name, "cam_depth");
        let cfg = SwitchPortConfig::reset_for(shape);
        assert_eq!(SwitchPort::new(cfg).unwrap_err().name, "cam_depth");
        for d in SUPPORTED_CAM_DEPTHS {
            let shape = SwitchPortShape { cam_depth: *d };
            SwitchPort::new(SwitchPortConfig::reset_for(shape)).unwrap();
        }
        let mut cfg = SwitchPortConfig::default();
        cfg.cp.kdrop = 1 << 20; // does not fit depth_bits = 20
        assert_eq!(SwitchPort::new(cfg).unwrap_err().name, "kdrop");
        let mut cfg = SwitchPortConfig::default();
        cfg.cam.period = 1 << 16;
        assert_eq!(cfg.validate().unwrap_err().name, "period");
        let mut cfg = SwitchPortConfig::default();
        cfg.sar.mask = 0x100;
        assert_eq!(cfg.validate().unwrap_err().name, "mask");
    }
}
