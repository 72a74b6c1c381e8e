//! Cycle-by-cycle driving of a block in rust-hdl's own simulator.
//!
//! One call of [`CycleSim::cycle`] is one clock cycle with the same timing as
//! the golden models' `step`: the inputs are applied while the clock is low,
//! the outputs are read just before the rising edge, then the edge is taken.

use ccrtl_golden::cp::{CpConfig, CpIn, CpOut};
use ccrtl_golden::ParamError;
use rust_hdl::prelude::*;

use crate::cp::Cp;

/// A block under simulation, one cycle at a time.
pub trait CycleSim<I, O> {
    fn cycle(&mut self, inputs: &I) -> O;
}

/// The rust-hdl CP block for a configuration, behind a trait object so that
/// the structural sizes can be chosen at run time.
pub fn cp_sim(config: &CpConfig) -> Result<Box<dyn CycleSim<CpIn, CpOut>>, ParamError> {
    config.validate()?;
    macro_rules! make {
        ($d:literal, $l:literal) => {{
            let mut b = Cp::<$d, $l>::new(config);
            b.connect_all();
            Box::new(CpSim(b)) as Box<dyn CycleSim<CpIn, CpOut>>
        }};
    }
    Ok(crate::dispatch_cp_shape!(config.shape, make))
}

struct CpSim<const D: usize, const L: usize>(Cp<D, L>);

const MAX_ITERS: usize = 100;

impl<const D: usize, const L: usize> CycleSim<CpIn, CpOut> for CpSim<D, L> {
    fn cycle(&mut self, i: &CpIn) -> CpOut {
        let b = &mut self.0;
        b.clk.next = Clock { clk: false };
        b.rst.next = i.rst;
        b.s_enq_valid.next = i.enq_valid;
        b.s_enq_len.next = (i.enq_len as u64).to_bits();
        b.s_enq_ecn.next = (i.enq_ecn as u64).to_bits();
        b.s_deq_valid.next = i.deq_valid;
        b.s_deq_len.next = (i.deq_len as u64).to_bits();
        b.s_cfg_valid.next = i.cfg_valid;
        b.s_cfg_kmin.next = (i.cfg.kmin as u64).to_bits();
        b.s_cfg_kmax.next = (i.cfg.kmax as u64).to_bits();
        b.s_cfg_pmax.next = (i.cfg.pmax as u64).to_bits();
        b.s_cfg_kdrop.next = (i.cfg.kdrop as u64).to_bits();
        b.s_cfg_buf_max.next = (i.cfg.buf_max as u64).to_bits();
        b.s_cfg_seed.next = (i.cfg.seed as u64).to_bits();
        assert!(simulate(b, MAX_ITERS), "CP logic did not settle");
        let out = CpOut {
            dec_valid: b.m_dec_valid.val(),
            dec_action: b.m_dec_action.val().to_u8(),
            dec_ecn: b.m_dec_ecn.val().to_u8(),
            depth: b.q_depth.val().to_u32(),
            underflow: b.err_underflow.val(),
        };
        b.clk.next = Clock { clk: true };
        assert!(simulate(b, MAX_ITERS), "CP logic did not settle");
        out
    }
}
