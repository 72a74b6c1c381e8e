//! SWITCH_PORT — one switch output port: cfr_cam, sar, cp, crd and
//! rcc_sched composed. The cycle contract is docs/switch_port.md ("The
//! cycle contract"), the page the golden model
//! `ccrtl_golden::switch_port` is written from; each block keeps its own
//! contract and its own RTL, instantiated here unchanged.
//!
//! # Generation-time parameters
//! - `D` = `cam_depth` (16 or 64), with cfr_cam's derived sizes `DB =
//!   log2 D`, `Q`, `N1` to `N6`, `VS`, `HP` (`ccrtl_hdl::cfr_cam_type!`);
//! - the inner shapes are fixed (docs/switch_port.md, "Shape"): cp
//!   `Cp<20, 14, 23, 1, 1>`, crd `Crd<1, 2, 20, 27>`, cfr_cam
//!   `CfrCam<104, D, ..>`, rcc_sched `RccSched<20, 22>`, sar
//!   `Sar<3, 8, 3, 4, 8>`;
//! - every block's registers' reset values.
//!
//! # Structure (the glue; everything else is the blocks)
//! - Delay line A (`a_*`, 11 stages, no reset): an arrival's length, ECN,
//!   port and group, beside cfr_cam's lookup; the CAM's `hit_valid` is
//!   their valid when they reach sar.
//! - Delay line B (`b_*`, 3 stages, no reset): the length, ECN and hit,
//!   beside sar's decision.
//! - Delay line C (`c_*`, 12 stages; `c_valid` reset): sar's decision
//!   (port, detour) and the hit, beside cp's decision.
//! - The grant register (`g` reset, `gl`): rcc_sched's grant and its
//!   length, cp's dequeue one cycle later.
//! - crd's results for queue 0 only (`fb_q0`), into rcc_sched and out.

use ccrtl_golden::switch_port::{SwitchPortConfig, SwitchPortIn, SwitchPortOut, LATENCY};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::cfr_cam::CfrCam;
use crate::cp::Cp;
use crate::crd::Crd;
use crate::rcc_sched::RccSched;
use crate::sar::Sar;

/// Stages of the delay lines (cfr_cam's, sar's and cp's latencies).
const LA: usize = ccrtl_golden::cfr_cam::LATENCY;
const LB: usize = ccrtl_golden::sar::LATENCY;
const LC: usize = ccrtl_golden::cp::LATENCY;
const _: () = assert!(LA + LB + LC == LATENCY);
// `update` writes the stage counts as literals (rust-hdl's kernels take no
// named constants): 11, 3 and 12.
const _: () = assert!(LA == 11 && LB == 3 && LC == 12);

#[derive(LogicBlock, Default)]
pub struct SwitchPort<const D: usize, const DB: usize, const Q: usize, const N1: usize, const N2: usize, const N3: usize, const N4: usize, const N5: usize, const N6: usize, const VS: usize, const HP: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous, active high: every block and the glue.
    pub rst: Signal<In, Bit>,

    // Arrivals routed to this port.
    pub s_arr_valid: Signal<In, Bit>,
    pub s_arr_key: Signal<In, Bits<104>>,
    pub s_arr_len: Signal<In, Bits<14>>,
    pub s_arr_ecn: Signal<In, Bits<2>>,
    pub s_arr_port: Signal<In, Bits<3>>,
    pub s_arr_group: Signal<In, Bits<3>>,
    // The class queues' head packets and the link.
    pub s_c_valid: Signal<In, Bit>,
    pub s_c_len: Signal<In, Bits<14>>,
    pub s_n_valid: Signal<In, Bit>,
    pub s_n_len: Signal<In, Bits<14>>,
    pub s_out_ready: Signal<In, Bit>,
    // The switch's degree bus (into sar).
    pub s_deg_valid: Signal<In, Bit>,
    pub s_deg_port: Signal<In, Bits<3>>,
    pub s_deg: Signal<In, Bits<8>>,
    // The downstream neighbour's degree (into crd, queue 0).
    pub s_cn_valid: Signal<In, Bit>,
    pub s_cn_fb: Signal<In, Bits<8>>,
    // The blocks' register ports.
    pub s_cp_cfg_valid: Signal<In, Bit>,
    pub s_cp_cfg_kmin: Signal<In, Bits<20>>,
    pub s_cp_cfg_kmax: Signal<In, Bits<20>>,
    pub s_cp_cfg_pmax: Signal<In, Bits<17>>,
    pub s_cp_cfg_kdrop: Signal<In, Bits<20>>,
    pub s_cp_cfg_buf_max: Signal<In, Bits<20>>,
    pub s_cp_cfg_seed: Signal<In, Bits<32>>,
    pub s_crd_cfg_valid: Signal<In, Bit>,
    pub s_crd_cfg_addr: Signal<In, Bits<3>>,
    pub s_crd_cfg_data: Signal<In, Bits<24>>,
    pub s_cam_cfg_valid: Signal<In, Bit>,
    pub s_cam_cfg_period: Signal<In, Bits<16>>,
    pub s_cam_cfg_thresh: Signal<In, Bits<9>>,
    pub s_rcc_cfg_valid: Signal<In, Bit>,
    pub s_rcc_cfg_addr: Signal<In, Bits<2>>,
    pub s_rcc_cfg_data: Signal<In, Bits<24>>,
    pub s_sar_cfg_valid: Signal<In, Bit>,
    pub s_sar_cfg_addr: Signal<In, Bits<4>>,
    pub s_sar_cfg_data: Signal<In, Bits<16>>,

    /// The decision of the arrival of `LATENCY` = 26 cycles ago.
    pub m_arr_valid: Signal<Out, Bit>,
    pub m_arr_port: Signal<Out, Bits<3>>,
    pub m_arr_detour: Signal<Out, Bit>,
    pub m_arr_class: Signal<Out, Bit>,
    pub m_arr_action: Signal<Out, Bits<2>>,
    pub m_arr_ecn: Signal<Out, Bits<2>>,
    /// rcc_sched's grants (combinational) and status.
    pub m_c_ready: Signal<Out, Bit>,
    pub m_n_ready: Signal<Out, Bit>,
    pub m_window: Signal<Out, Bit>,
    pub m_wc: Signal<Out, Bits<20>>,
    pub m_wnc: Signal<Out, Bits<20>>,
    /// crd's results for queue 0.
    pub m_fb_valid: Signal<Out, Bit>,
    pub m_fb: Signal<Out, Bits<8>>,
    pub m_fb_role: Signal<Out, Bits<2>>,
    /// cp's depth (3 cycles late) and sticky underflow.
    pub q_depth: Signal<Out, Bits<20>>,
    pub err_underflow: Signal<Out, Bit>,

    cam: CfrCam<104, D, DB, 13, 14, Q, N1, N2, N3, N4, N5, N6, VS, HP>,
    sar: Sar<3, 8, 3, 4, 8>,
    cp: Cp<20, 14, 23, 1, 1>,
    crd: Crd<1, 2, 20, 27>,
    rcc: RccSched<20, 22>,

    a_len: Vec<DFF<Bits<14>>>,
    a_ecn: Vec<DFF<Bits<2>>>,
    a_port: Vec<DFF<Bits<3>>>,
    a_group: Vec<DFF<Bits<3>>>,
    b_len: Vec<DFF<Bits<14>>>,
    b_ecn: Vec<DFF<Bits<2>>>,
    b_hit: Vec<DFF<Bit>>,
    c_valid: Vec<DFF<Bit>>,
    c_port: Vec<DFF<Bits<3>>>,
    c_detour: Vec<DFF<Bit>>,
    c_hit: Vec<DFF<Bit>>,
    g: DFF<Bit>,
    gl: DFF<Bits<14>>,
    /// crd's result is queue 0's.
    fb_q0: Signal<Local, Bit>,
    /// The grant of this cycle.
    grant: Signal<Local, Bit>,
}

impl<const D: usize, const DB: usize, const Q: usize, const N1: usize, const N2: usize, const N3: usize, const N4: usize, const N5: usize, const N6: usize, const VS: usize, const HP: usize> SwitchPort<D, DB, Q, N1, N2, N3, N4, N5, N6, VS, HP> {
    /// The port with the reset values of `config`. The caller has
    /// validated `config` and chosen `D` equal to its `cam_depth`.
    pub fn new(config: &SwitchPortConfig) -> Self {
        assert_eq!(config.shape.cam_depth as usize, D);
        assert!(1 << DB == D);
        fn line<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Self {
            cam: CfrCam::new(&config.cam_config()),
            sar: Sar::new(&config.sar_config()),
            cp: Cp::new(&config.cp_config()),
            crd: Crd::new(&config.crd_config()),
            rcc: RccSched::new(&config.rcc_config()),
            a_len: line(LA),
            a_ecn: line(LA),
            a_port: line(LA),
            a_group: line(LA),
            b_len: line(LB),
            b_ecn: line(LB),
            b_hit: line(LB),
            c_valid: line(LC),
            c_port: line(LC),
            c_detour: line(LC),
            c_hit: line(LC),
            ..Default::default()
        }
    }
}

impl<const D: usize, const DB: usize, const Q: usize, const N1: usize, const N2: usize, const N3: usize, const N4: usize, const N5: usize, const N6: usize, const VS: usize, const HP: usize> Logic
    for SwitchPort<D, DB, Q, N1, N2, N3, N4, N5, N6, VS, HP>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, g, gl);
        self.cam.clk.next = self.clk.val();
        self.sar.clk.next = self.clk.val();
        self.cp.clk.next = self.clk.val();
        self.crd.clk.next = self.clk.val();
        self.rcc.clk.next = self.clk.val();
        self.cam.rst.next = self.rst.val();
        self.sar.rst.next = self.rst.val();
        self.cp.rst.next = self.rst.val();
        self.crd.rst.next = self.rst.val();
        self.rcc.rst.next = self.rst.val();
        for k in 0..11 {
            self.a_len[k].clock.next = self.clk.val();
            self.a_ecn[k].clock.next = self.clk.val();
            self.a_port[k].clock.next = self.clk.val();
            self.a_group[k].clock.next = self.clk.val();
        }
        for k in 0..3 {
            self.b_len[k].clock.next = self.clk.val();
            self.b_ecn[k].clock.next = self.clk.val();
            self.b_hit[k].clock.next = self.clk.val();
        }
        for k in 0..12 {
            self.c_valid[k].clock.next = self.clk.val();
            self.c_port[k].clock.next = self.clk.val();
            self.c_detour[k].clock.next = self.clk.val();
            self.c_hit[k].clock.next = self.clk.val();
        }

        // ---- cfr_cam: every arrival looked up and a sampling candidate ----
        self.cam.s_look_valid.next = self.s_arr_valid.val();
        self.cam.s_look_key.next = self.s_arr_key.val();
        self.cam.s_pkt_valid.next = self.s_arr_valid.val();
        self.cam.s_pkt_key.next = self.s_arr_key.val();
        self.cam.s_cfg_valid.next = self.s_cam_cfg_valid.val();
        self.cam.s_cfg_period.next = self.s_cam_cfg_period.val();
        self.cam.s_cfg_thresh.next = self.s_cam_cfg_thresh.val();

        // ---- Delay line A (beside the lookup) ------------------------------
        self.a_len[0].d.next = self.s_arr_len.val();
        self.a_ecn[0].d.next = self.s_arr_ecn.val();
        self.a_port[0].d.next = self.s_arr_port.val();
        self.a_group[0].d.next = self.s_arr_group.val();
        for k in 1..11 {
            self.a_len[k].d.next = self.a_len[k - 1].q.val();
            self.a_ecn[k].d.next = self.a_ecn[k - 1].q.val();
            self.a_port[k].d.next = self.a_port[k - 1].q.val();
            self.a_group[k].d.next = self.a_group[k - 1].q.val();
        }

        // ---- sar: the arrival's request with its hit ------------------------
        self.sar.s_req_valid.next = self.cam.m_hit_valid.val();
        self.sar.s_req_hit.next = self.cam.m_hit.val();
        self.sar.s_req_port.next = self.a_port[10].q.val();
        self.sar.s_req_group.next = self.a_group[10].q.val();
        self.sar.s_deg_valid.next = self.s_deg_valid.val();
        self.sar.s_deg_port.next = self.s_deg_port.val();
        self.sar.s_deg.next = self.s_deg.val();
        self.sar.s_cfg_valid.next = self.s_sar_cfg_valid.val();
        self.sar.s_cfg_addr.next = self.s_sar_cfg_addr.val();
        self.sar.s_cfg_data.next = self.s_sar_cfg_data.val();

        // ---- Delay line B (beside sar) -------------------------------------
        self.b_len[0].d.next = self.a_len[10].q.val();
        self.b_ecn[0].d.next = self.a_ecn[10].q.val();
        self.b_hit[0].d.next = self.cam.m_hit.val();
        for k in 1..3 {
            self.b_len[k].d.next = self.b_len[k - 1].q.val();
            self.b_ecn[k].d.next = self.b_ecn[k - 1].q.val();
            self.b_hit[k].d.next = self.b_hit[k - 1].q.val();
        }

        // ---- cp: what stays is enqueued; the grant of the cycle before
        // leaves -------------------------------------------------------------
        self.cp.s_enq_valid.next = self.sar.m_dec_valid.val() & !self.sar.m_dec_detour.val();
        self.cp.s_enq_len.next = self.b_len[2].q.val();
        self.cp.s_enq_ecn.next = self.b_ecn[2].q.val();
        self.cp.s_enq_queue.next = 0.into();
        self.cp.s_deq_valid.next = self.g.q.val();
        self.cp.s_deq_len.next = self.gl.q.val();
        self.cp.s_deq_ecn.next = 0.into();
        self.cp.s_deq_queue.next = 0.into();
        self.cp.s_cfg_valid.next = self.s_cp_cfg_valid.val();
        self.cp.s_cfg_queue.next = 0.into();
        self.cp.s_cfg_kmin.next = self.s_cp_cfg_kmin.val();
        self.cp.s_cfg_kmax.next = self.s_cp_cfg_kmax.val();
        self.cp.s_cfg_pmax.next = self.s_cp_cfg_pmax.val();
        self.cp.s_cfg_kdrop.next = self.s_cp_cfg_kdrop.val();
        self.cp.s_cfg_buf_max.next = self.s_cp_cfg_buf_max.val();
        self.cp.s_cfg_seed.next = self.s_cp_cfg_seed.val();
        self.cp.depth_sel.next = 0.into();

        // ---- Delay line C (beside cp) --------------------------------------
        self.c_valid[0].d.next = self.sar.m_dec_valid.val() & !self.rst.val();
        self.c_port[0].d.next = self.sar.m_dec_port.val();
        self.c_detour[0].d.next = self.sar.m_dec_detour.val();
        self.c_hit[0].d.next = self.b_hit[2].q.val();
        for k in 1..12 {
            self.c_valid[k].d.next = self.c_valid[k - 1].q.val() & !self.rst.val();
            self.c_port[k].d.next = self.c_port[k - 1].q.val();
            self.c_detour[k].d.next = self.c_detour[k - 1].q.val();
            self.c_hit[k].d.next = self.c_hit[k - 1].q.val();
        }

        // ---- crd: queue 0 is cp's queue ------------------------------------
        self.crd.s_len_valid.next = true;
        self.crd.s_len_queue.next = 0.into();
        self.crd.s_len_bytes.next = self.cp.q_depth.val();
        self.crd.s_cn_valid.next = self.s_cn_valid.val();
        self.crd.s_cn_queue.next = 0.into();
        self.crd.s_cn_fb.next = self.s_cn_fb.val();
        self.crd.s_cfg_valid.next = self.s_crd_cfg_valid.val();
        self.crd.s_cfg_addr.next = self.s_crd_cfg_addr.val();
        self.crd.s_cfg_data.next = self.s_crd_cfg_data.val();
        self.fb_q0.next = self.crd.m_fb_valid.val() & !self.crd.m_fb_queue.val().any();

        // ---- rcc_sched: the port's own degree --------------------------------
        self.rcc.s_c_valid.next = self.s_c_valid.val();
        self.rcc.s_c_len.next = self.s_c_len.val();
        self.rcc.s_n_valid.next = self.s_n_valid.val();
        self.rcc.s_n_len.next = self.s_n_len.val();
        self.rcc.s_out_ready.next = self.s_out_ready.val();
        self.rcc.s_fb_valid.next = self.fb_q0.val();
        self.rcc.s_fb.next = 0.into();
        if self.fb_q0.val() {
            self.rcc.s_fb.next = self.crd.m_fb.val();
        }
        self.rcc.s_cfg_valid.next = self.s_rcc_cfg_valid.val();
        self.rcc.s_cfg_addr.next = self.s_rcc_cfg_addr.val();
        self.rcc.s_cfg_data.next = self.s_rcc_cfg_data.val();

        // ---- The grant register --------------------------------------------
        self.grant.next = self.rcc.m_c_ready.val() | self.rcc.m_n_ready.val();
        self.g.d.next = self.grant.val() & !self.rst.val();
        self.gl.d.next = self.s_n_len.val();
        if self.rcc.m_c_ready.val() {
            self.gl.d.next = self.s_c_len.val();
        }

        // ---- Outputs --------------------------------------------------------
        self.m_arr_valid.next = self.c_valid[11].q.val();
        self.m_arr_port.next = 0.into();
        self.m_arr_detour.next = false;
        self.m_arr_class.next = false;
        if self.c_valid[11].q.val() {
            self.m_arr_port.next = self.c_port[11].q.val();
            self.m_arr_detour.next = self.c_detour[11].q.val();
            self.m_arr_class.next = self.c_hit[11].q.val();
        }
        // cp decides exactly the arrivals that stayed (its dec_valid is
        // C's valid and not detoured), and its fields are 0 otherwise.
        self.m_arr_action.next = self.cp.m_dec_action.val();
        self.m_arr_ecn.next = self.cp.m_dec_ecn.val();
        self.m_c_ready.next = self.rcc.m_c_ready.val();
        self.m_n_ready.next = self.rcc.m_n_ready.val();
        self.m_window.next = self.rcc.m_window.val();
        self.m_wc.next = self.rcc.m_wc.val();
        self.m_wnc.next = self.rcc.m_wnc.val();
        self.m_fb_valid.next = self.fb_q0.val();
        self.m_fb.next = 0.into();
        self.m_fb_role.next = 0.into();
        if self.fb_q0.val() {
            self.m_fb.next = self.crd.m_fb.val();
            self.m_fb_role.next = self.crd.m_fb_role.val();
        }
        self.q_depth.next = self.cp.q_depth.val();
        self.err_underflow.next = self.cp.err_underflow.val().any();
    }
}

// ---- emission and simulation ---------------------------------------------

/// Expands `$make!(D, DB, Q, N1, .., N6, VS, HP)` for the configuration's
/// `cam_depth` (the sizes `cfr_cam_type!` derives; `CfrCam::new` checks them).
macro_rules! dispatch_depth {
    ($config:expr, $make:ident) => {
        match $config.shape.cam_depth {
            16 => $crate::own_frame(|| $make!(16, 4, 4, 2, 1, 0, 0, 0, 0, 6, 5)),
            64 => $crate::own_frame(|| $make!(64, 6, 16, 8, 4, 2, 1, 0, 0, 8, 3)),
            d => unreachable!("cam_depth {d} passed validation but has no instance"),
        }
    };
}

/// rust-hdl's Verilog for SWITCH_PORT, as `generate_verilog` writes it.
pub fn raw_verilog(config: &SwitchPortConfig) -> Result<String, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($d:literal, $db:literal, $($n:literal),*) => {{
            let mut b = SwitchPort::<$d, $db, $($n),*>::new(config);
            b.connect_all();
            generate_verilog(&b)
        }};
    }
    Ok(dispatch_depth!(config, make))
}

/// Signals of the top whose bits are left unread on purpose.
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    (
        "cp$m_deq_valid",
        "cp marks at enqueue here: its dequeue results carry nothing",
    ),
    ("cp$m_deq_mark", "as cp$m_deq_valid"),
    (
        "cp$m_dec_valid",
        "an arrival's decision is valid by delay line C; cp's dec_valid is C's valid and not \
         detoured, and cp's action and ECN are 0 without it",
    ),
    ("cp$m_deq_ecn", "as cp$m_deq_valid"),
    (
        "crd$m_fb_local",
        "the flags reach the port as m_fb_role (local | remote << 1)",
    ),
    ("crd$m_fb_remote", "as crd$m_fb_local"),
];

/// The finished Verilog file for SWITCH_PORT.
pub fn verilog(config: &SwitchPortConfig) -> Result<String, ParamError> {
    use crate::emit::waive_in;
    let raw = raw_verilog(config)?;
    let raw = waive_in(&raw, "top$crd", "UNUSEDSIGNAL", crate::crd::LINT_WAIVERS);
    let cam = crate::cfr_cam::lint_waivers(&config.cam_config());
    let cam: Vec<(&str, &str)> = cam.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    let raw = waive_in(&raw, "top$cam", "UNUSEDSIGNAL", &cam);
    let raw = waive_in(
        &raw,
        "top$rcc",
        "UNUSEDSIGNAL",
        crate::rcc_sched::LINT_WAIVERS,
    );
    let raw = crate::emit::waive_unused(&raw, LINT_WAIVERS);
    let c = config;
    let params = [
        ("cam_depth", c.shape.cam_depth.to_string()),
        (
            "inner shapes",
            "cfr_cam 104-bit keys; sar 8 ports, 8 groups; cp depth 20 bits, len 14 bits, \
             one queue, marking at enqueue; crd 2 queues, len 20 bits; rcc_sched win 20 bits"
                .to_string(),
        ),
        ("reset.cp", format!("{:?}", c.cp)),
        ("reset.crd", format!("{:?}", c.crd)),
        ("reset.cfr_cam", format!("{:?}", c.cam)),
        ("reset.rcc_sched", format!("{:?}", c.rcc)),
        ("reset.sar", format!("{:?}", c.sar)),
    ];
    Ok(crate::emit::finish(
        "switch_port",
        "one switch output port: cfr_cam classifies arrivals, sar may detour a miss, cp admits \
         what stays, crd's degree drives rcc_sched",
        &format!(
            "one arrival, one grant per cycle; an arrival's decision {LATENCY} cycles after it; \
             m_c_ready / m_n_ready combinational as rcc_sched's"
        ),
        &params,
        &raw,
    ))
}

/// The rust-hdl SWITCH_PORT block for a configuration.
pub fn sim(
    config: &SwitchPortConfig,
) -> Result<Box<dyn crate::sim::CycleSim<SwitchPortIn, SwitchPortOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($d:literal, $db:literal, $($n:literal),*) => {{
            let mut b = SwitchPort::<$d, $db, $($n),*>::new(config);
            b.connect_all();
            Box::new(SwitchPortSim(b)) as Box<dyn crate::sim::CycleSim<SwitchPortIn, SwitchPortOut>>
        }};
    }
    Ok(dispatch_depth!(config, make))
}

struct SwitchPortSim<const D: usize, const DB: usize, const Q: usize, const N1: usize, const N2: usize, const N3: usize, const N4: usize, const N5: usize, const N6: usize, const VS: usize, const HP: usize>(
    SwitchPort<D, DB, Q, N1, N2, N3, N4, N5, N6, VS, HP>,
);

fn b<const N: usize>(v: u32) -> Bits<N> {
    (v as u64).to_bits()
}

impl<const D: usize, const DB: usize, const Q: usize, const N1: usize, const N2: usize, const N3: usize, const N4: usize, const N5: usize, const N6: usize, const VS: usize, const HP: usize>
    crate::sim::CycleSim<SwitchPortIn, SwitchPortOut> for SwitchPortSim<D, DB, Q, N1, N2, N3, N4, N5, N6, VS, HP>
{
    fn cycle(&mut self, i: &SwitchPortIn) -> SwitchPortOut {
        let p = &mut self.0;
        p.clk.next = Clock { clk: false };
        p.rst.next = i.rst;
        p.s_arr_valid.next = i.arr_valid;
        p.s_arr_key.next = crate::cfr_cam::key_bits::<104>(i.arr_key);
        p.s_arr_len.next = b(i.arr_len);
        p.s_arr_ecn.next = b(i.arr_ecn as u32);
        p.s_arr_port.next = b(i.arr_port);
        p.s_arr_group.next = b(i.arr_group);
        p.s_c_valid.next = i.c_valid;
        p.s_c_len.next = b(i.c_len);
        p.s_n_valid.next = i.n_valid;
        p.s_n_len.next = b(i.n_len);
        p.s_out_ready.next = i.out_ready;
        p.s_deg_valid.next = i.deg_valid;
        p.s_deg_port.next = b(i.deg_port);
        p.s_deg.next = b(i.deg);
        p.s_cn_valid.next = i.cn_valid;
        p.s_cn_fb.next = b(i.cn_fb);
        p.s_cp_cfg_valid.next = i.cp_cfg_valid;
        p.s_cp_cfg_kmin.next = b(i.cp_cfg.kmin);
        p.s_cp_cfg_kmax.next = b(i.cp_cfg.kmax);
        p.s_cp_cfg_pmax.next = b(i.cp_cfg.pmax);
        p.s_cp_cfg_kdrop.next = b(i.cp_cfg.kdrop);
        p.s_cp_cfg_buf_max.next = b(i.cp_cfg.buf_max);
        p.s_cp_cfg_seed.next = b(i.cp_cfg.seed);
        p.s_crd_cfg_valid.next = i.crd_cfg_valid;
        p.s_crd_cfg_addr.next = b(i.crd_cfg_addr);
        p.s_crd_cfg_data.next = b(i.crd_cfg_data);
        p.s_cam_cfg_valid.next = i.cam_cfg_valid;
        p.s_cam_cfg_period.next = b(i.cam_cfg_period);
        p.s_cam_cfg_thresh.next = b(i.cam_cfg_thresh);
        p.s_rcc_cfg_valid.next = i.rcc_cfg_valid;
        p.s_rcc_cfg_addr.next = b(i.rcc_cfg_addr);
        p.s_rcc_cfg_data.next = b(i.rcc_cfg_data);
        p.s_sar_cfg_valid.next = i.sar_cfg_valid;
        p.s_sar_cfg_addr.next = b(i.sar_cfg_addr);
        p.s_sar_cfg_data.next = b(i.sar_cfg_data);
        assert!(
            simulate(p, crate::sim::MAX_ITERS),
            "SWITCH_PORT logic did not settle"
        );
        let out = SwitchPortOut {
            arr_valid: p.m_arr_valid.val(),
            arr_port: p.m_arr_port.val().index() as u32,
            arr_detour: p.m_arr_detour.val(),
            arr_class: p.m_arr_class.val(),
            arr_action: p.m_arr_action.val().index() as u8,
            arr_ecn: p.m_arr_ecn.val().index() as u8,
            c_ready: p.m_c_ready.val(),
            n_ready: p.m_n_ready.val(),
            window: p.m_window.val(),
            wc: p.m_wc.val().index() as u32,
            wnc: p.m_wnc.val().index() as u32,
            fb_valid: p.m_fb_valid.val(),
            fb: p.m_fb.val().index() as u32,
            fb_role: p.m_fb_role.val().index() as u8,
            depth: p.q_depth.val().index() as u32,
            underflow: p.err_underflow.val(),
        };
        p.clk.next = Clock { clk: true };
        assert!(
            simulate(p, crate::sim::MAX_ITERS),
            "SWITCH_PORT logic did not settle"
        );
        out
    }
}

/// The ports of SWITCH_PORT for a validated configuration, read from the
/// struct.
pub fn ports(config: &SwitchPortConfig) -> Vec<crate::ports::HdlPort> {
    macro_rules! make {
        ($d:literal, $db:literal, $($n:literal),*) => {{
            crate::ports::ports_of(&SwitchPort::<$d, $db, $($n),*>::new(config))
        }};
    }
    dispatch_depth!(config, make)
}
