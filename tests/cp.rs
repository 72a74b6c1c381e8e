//! CP across crates: the conformance suite every block passes (emission on
//! every shape, three-way lockstep, proptest with shrinking, planted
//! mutants, the command line), instantiated by one line, plus CP's own
//! checks: step marking, the documented replay example, the hand-written
//! planted bugs of each class that random stimulus must catch.

#[macro_use]
mod common;

use std::path::PathBuf;

use ccrtl_golden::cp::{CpConfig, CpIn, CpParams, CpShape, MarkAt, LATENCY, PMAX_ONE};
use ccrtl_sim::block::Block;
use ccrtl_sim::cp::{random_params, CpBlock};
use ccrtl_sim::lockstep::VerilatorDut;
use ccrtl_sim::rng::Rng;
use common::conformance::{BlockTests, Equivalent};
use common::{ccrtl, model, tmp_dir, yosys_ok};
use proptest::prelude::*;

conformance_suite!(CpBlock);

fn config(depth_bits: u32, len_bits: u32) -> CpConfig {
    let shape = CpShape::new(depth_bits, len_bits);
    CpConfig {
        shape,
        reset: CpParams::reset_for(&shape),
    }
}

/// A parameter set whose thresholds are whole multiples of 1,000 bytes (one
/// off now and then), so that 1,000-byte packets put the depth exactly at
/// each threshold; drawn from `seed`.
fn threshold_params(seed: u64, shape: &CpShape) -> CpParams {
    let mut r = Rng::new(seed);
    let u = 1000u32.min(shape.len_max());
    let buf_max = (u * r.range(2, 20) + r.upto(1)).min(shape.depth_max());
    let a = u * r.upto(buf_max / u);
    let b = u * r.upto(buf_max / u);
    let p = CpParams {
        kmin: a.min(b),
        kmax: a.max(b),
        pmax: r.pick(&[0, 1, PMAX_ONE / 2, PMAX_ONE - 1, PMAX_ONE]),
        kdrop: u * r.upto(buf_max / u),
        buf_max,
        seed: r.next_u32(),
    };
    debug_assert!(p.validate(shape).is_ok(), "{p:?}");
    p
}

impl BlockTests for CpBlock {
    /// Reset, then up to 400 cycles: enqueues and dequeues of 1,000 bytes
    /// (most often), 0, 1, the largest length or any; a parameter load one
    /// cycle in 24 (half with thresholds at multiples of 1,000 bytes, so the
    /// depth lands exactly on them; half from the verify stimulus' drawing
    /// with small buffers); a reset one cycle in 48, mid-trace.
    fn traces(config: &CpConfig) -> BoxedStrategy<Vec<CpIn>> {
        let shape = config.shape;
        let len_max = shape.len_max();
        let len = prop_oneof![
            4 => Just(1000u32.min(len_max)),
            1 => Just(0u32),
            1 => Just(1u32),
            1 => Just(len_max),
            2 => 0..=len_max,
        ];
        let cycle = (
            0u8..48,
            any::<bool>(),
            len.clone(),
            0u8..4,
            any::<bool>(),
            len,
            any::<u64>(),
            any::<u16>(),
        );
        prop::collection::vec(cycle, 1..400)
            .prop_map(move |cycles| {
                let mut trace = vec![CpIn {
                    rst: true,
                    ..CpIn::default()
                }];
                let qmask = (1u16 << shape.queue_bits()) - 1;
                for (kind, enq, elen, ecn, deq, dlen, seed, qs) in cycles {
                    // Queue indices (any value the ports carry) and the
                    // dequeue's ECN, from the bits of `qs`.
                    let q = |k: u32| ((qs >> (3 * k)) & qmask) as u8;
                    let mut i = CpIn {
                        rst: kind == 0,
                        enq_valid: enq,
                        enq_len: elen,
                        enq_ecn: ecn,
                        enq_queue: q(0),
                        deq_valid: deq,
                        deq_len: dlen,
                        deq_ecn: (qs >> 12) as u8 & 3,
                        deq_queue: q(1),
                        cfg_queue: q(2),
                        depth_sel: q(3),
                        ..CpIn::default()
                    };
                    if kind == 1 {
                        i.cfg_valid = true;
                        i.cfg = threshold_params(seed, &shape).into();
                    } else if kind == 2 {
                        let mut r = Rng::new(seed);
                        let mut p = random_params(&mut r, &shape);
                        p.buf_max = p.buf_max.min(3 * len_max);
                        p.kmin = p.kmin.min(p.buf_max);
                        p.kmax = p.kmax.min(p.buf_max).max(p.kmin);
                        p.kdrop = p.kdrop.min(p.buf_max);
                        i.cfg_valid = true;
                        i.cfg = p.into();
                    }
                    trace.push(i);
                }
                trace
            })
            .boxed()
    }

    /// Two queues, marking at dequeue: the queue logic and both events'
    /// decisions are live (with one queue and marking at enqueue, the
    /// default, most of the stimulus checks the same paths).
    fn proptest_config() -> CpConfig {
        let mut c = config(16, 12);
        c.shape.queues = 2;
        c.shape.mark_at = MarkAt::Dequeue;
        c
    }

    /// Ramp-shaped reset values and a small buffer, so that a bug in
    /// restoring them after reset shows before the next parameter load;
    /// two queues and marking at dequeue, so that the per-queue logic and
    /// the dequeue's marking are live in the mutated Verilog (the lines
    /// that only marking at enqueue uses are listed in [`EQUIVALENT_CP`]
    /// with that reason; the lockstep runs of the default shape check
    /// them).
    fn mutation_config() -> CpConfig {
        let shape = CpShape {
            queues: 2,
            mark_at: MarkAt::Dequeue,
            ..CpShape::default()
        };
        CpConfig {
            shape,
            reset: CpParams {
                kmin: 3_000,
                kmax: 40_000,
                pmax: 21_000,
                kdrop: 30_000,
                buf_max: 60_000,
                seed: 0x1234_5678,
            },
        }
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_CP;

    /// Queue 0's tail-drop test forgets the packet's own length (the tail
    /// threshold `t = buf_max - len` becomes `buf_max`).
    fn planted_bug(verilog: &str) -> String {
        replace_line(
            verilog,
            "            a_lq$0$d = enq_s;",
            "            a_lq$0$d = 32'h0;",
        )
    }

    /// Reset, a load with a small buffer, the overflowing enqueue, a cycle
    /// to see the depth: shrinking gets near that from 400 cycles.
    const SHRUNK_MAX: usize = 12;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            (
                "[cp.reset]\nkmin = 500\nkmax = 400\nbuf_max = 1000\nkdrop = 10\n",
                "`kmin`",
            ),
            ("[cp.reset]\npmax = 1.5\n", "`pmax`"),
            (
                "[cp.reset]\nkdrop = 2000\nbuf_max = 1000\nkmin = 1\nkmax = 2\n",
                "`kdrop`",
            ),
            (
                "[cp]\ndepth_bits = 16\n[cp.reset]\nbuf_max = 70000\n",
                "`buf_max`",
            ),
            ("[cp]\ndepth_bits = 22\n", "`depth_bits`"),
            ("[cp]\nlen_bits = 18\n", "`len_bits`"),
            ("[cp]\nqueues = 3\n", "`queues`"),
            ("[cp]\nqueues = 16\n", "`queues`"),
            ("[cp]\nmark_at = \"departure\"\n", "`mark_at`"),
            (
                "[cp]\ndepth_bits = 16\nlen_bits = 16\n[cp.reset]\nkmin = 70000\n",
                "`kmin`",
            ),
            ("[cp]\ndepth = 16\n", "unknown field `depth`"),
            ("[cp]\ndepth_bits = -3\n", "line 2"),
        ]
    }
}

/// Why a 48-bit net of the products loses nothing without its top bit.
const WIDE_PRODUCT: &str = "every 48-bit net is a row, a partial sum or a whole product of \
     u * (kmax - kmin) < 2^16 * 2^28 = 2^44 or (q - kmin) * pmax < 2^28 * 2^17 = 2^45 on every \
     shape, so bit 47 is always 0";
/// Why the draw's 17-bit carriers lose nothing without their top bit.
const DRAW_16: &str = "the draw u is 16 bits, zero-extended to the 17-bit row selector of its \
     product: bit 16 is always 0";
/// Why the loop's zero-extended operands lose nothing without their top bit.
const LOOP_OPERAND: &str = "holds a length (< 2^16) or the depth (< 2^28) zero-extended to \
     S = D + 3 bits, so the top bit is always 0 (the sums that need it are other nets)";
/// Why the row of u's bit 16 is dead logic.
const ROW_16: &str = "in u * (kmax - kmin) the row selected by bit 16 of the zero-extended \
     draw is always 0, so the row, its shift and its add change nothing";
/// Why the tag of u * (kmax - kmin) needs no reset.
const KMAX_TAG: &str = "the tag of u * (kmax - kmin) carries only the q >= kmax flag, which \
     marks only together with the valid and ECT flags of the other product's tag; reset \
     clears those, so a set kmax flag after reset changes nothing";

/// Why an S-bit carrier of a D-bit quantity loses nothing without its top bit.
const ZERO_EXTENDED: &str = "holds a depth, threshold or length (< 2^D) zero-extended to \
     S = D + 3 bits (the depth: a sum whose sign selects 0 instead), so bit S - 1 is always 0";
/// Why the flags lose nothing without bit 10.
const FLAG_10: &str = "bit 10 (q >= kmax) is OR'd into mark stage 1 after `flags`; in \
     `flags` it is always 0";
/// Why the underflow parts of queues other than 1 lose nothing.
const UF_PARTS: &str = "uf_part$i is oh[i] (bit i alone) or 0: truncated to bit 0, part 0 \
     keeps its bit; with two queues parts 2 to 7 are always 0, so an operator between them \
     changes nothing";
/// Why a select's default is never used.
const SELECT_DEFAULT: &str = "the default of a select over the queues: with Q a power of two \
     every index names a queue, so one queue's case always assigns (the markable event's depth \
     `q_mark_s` is selected with no queue bit set only in the cycles after reset, when no \
     event is flagged)";
/// Why the copy of the length for a queue the next enqueue does not name is unused.
const OTHER_QUEUE: &str = "queue i's copy of the next event's length (or its change if \
     admitted) is read only when the enqueue names queue i, where it is assigned";
/// Why lines that only marking at enqueue uses are not shown by the mutation shape.
const ENQ_MARK_ONLY: &str = "used only with mark_at = enqueue (the enqueue's ECT flag, the \
     mark of an enqueue, the markable queue taken from the enqueue): the mutation shape marks \
     at dequeue (mark_deq = 1 is a constant), so these lines are dead there; the lockstep of \
     the default shape (marking at enqueue) checks them";
/// The select's default, and the clamp of the markable event's negative depth
/// copy written as 1 instead of 0.
const MARK_CLAMP_TO_ONE: &str = "the first line is the markable-depth select's default, which \
     an event that can be marked never reads (its queue's bit is set); on the other two a \
     dequeue after an underflow of its queue is marked at depth 1 instead of 0, which differs \
     only when kmin <= 1 and the ramp's draw falls in the one step between them: not shown in \
     1e6 cycles from 4 power-up states (not proven equivalent)";

/// Mutants of CP that no stimulus can tell apart from the original (found
/// by `every_planted_mutant_is_caught_or_shown_equivalent`; each one's reason).
const EQUIVALENT_CP: &[Equivalent] = &[
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.kdrop$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.buf_max$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.a_len$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.a_kd$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.a_bm$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.a_lq$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.depth$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.q_s$* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.q_mark_s [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.q_show [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "output reg  [26:0] q;",
        change: "width-truncated ccrtl_cp__a_bm__* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "output reg  [26:0] q;",
        change: "width-truncated ccrtl_cp__a_kd__* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "output reg  [26:0] q;",
        change: "width-truncated ccrtl_cp__a_lq__* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "output reg  [26:0] q;",
        change: "width-truncated ccrtl_cp__buf_max__* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "output reg  [26:0] q;",
        change: "width-truncated ccrtl_cp__depth__* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "output reg  [26:0] q;",
        change: "width-truncated ccrtl_cp__kdrop__* [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__a_len",
        original: "output reg  [26:0] q;",
        change: "width-truncated ccrtl_cp__a_len.q [26:0] -> [25:0]",
        reason: ZERO_EXTENDED,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.flags [10:0] -> [9:0]",
        reason: FLAG_10,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.uf_part$0 [1:0] -> [0:0]",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.uf_part$2 [1:0] -> [0:0]",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.uf_part$3 [1:0] -> [0:0]",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.uf_part$4 [1:0] -> [0:0]",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.uf_part$5 [1:0] -> [0:0]",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.uf_part$6 [1:0] -> [0:0]",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.uf_part$7 [1:0] -> [0:0]",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "err_underflow = uf_part$0 | uf_part$1 | uf_part$2 | uf_part$3 | uf_part$4 | uf_part$5 | uf_part$6 | uf_part$7;",
        change: "| -> & #3",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "err_underflow = uf_part$0 | uf_part$1 | uf_part$2 | uf_part$3 | uf_part$4 | uf_part$5 | uf_part$6 | uf_part$7;",
        change: "| -> & #4",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "err_underflow = uf_part$0 | uf_part$1 | uf_part$2 | uf_part$3 | uf_part$4 | uf_part$5 | uf_part$6 | uf_part$7;",
        change: "| -> & #5",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "err_underflow = uf_part$0 | uf_part$1 | uf_part$2 | uf_part$3 | uf_part$4 | uf_part$5 | uf_part$6 | uf_part$7;",
        change: "| -> & #6",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "err_underflow = uf_part$0 | uf_part$1 | uf_part$2 | uf_part$3 | uf_part$4 | uf_part$5 | uf_part$6 | uf_part$7;",
        change: "| -> & #7",
        reason: UF_PARTS,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "p_kmin = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: SELECT_DEFAULT,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "p_kmin = 32'h0;",
        change: "delete statement",
        reason: SELECT_DEFAULT,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "p_kmax = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: SELECT_DEFAULT,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "p_kmax = 32'h0;",
        change: "delete statement",
        reason: SELECT_DEFAULT,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "p_pmax = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: SELECT_DEFAULT,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "p_pmax = 32'h0;",
        change: "delete statement",
        reason: SELECT_DEFAULT,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "q_mark_s = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: MARK_CLAMP_TO_ONE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "q_mark_s = 32'h0;",
        change: "delete statement",
        reason: SELECT_DEFAULT,
        // The select's default; the same text twice after it is the clamp
        // of a negative depth copy, whose deletion is caught.
        nth: 1,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "a_lq$0$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "a_lq$0$d = 32'h0;",
        change: "delete statement",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "b_ca$0$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "b_ca$0$d = 32'h0;",
        change: "delete statement",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "b_ca$0$d = a_nd$q;",
        change: "delete statement",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "mq_hit$0 = eq_hit$0;",
        change: "delete statement",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "a_lq$1$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "a_lq$1$d = 32'h0;",
        change: "delete statement",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "b_ca$1$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "b_ca$1$d = 32'h0;",
        change: "delete statement",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "b_ca$1$d = a_nd$q;",
        change: "delete statement",
        reason: OTHER_QUEUE,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "mq_hit$1 = eq_hit$1;",
        change: "delete statement",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "a_ect$d = (s_enq_ecn == 32'h1) | (s_enq_ecn == 32'h2);",
        change: "*",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "b_ect$d = a_ect$q;",
        change: "*",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "c_ect$d = b_ect$q;",
        change: "*",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "m0_ect$d = c_ect$q;",
        change: "*",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "cand = admit & m0_ect$q;",
        change: "*",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "o_action$d = 32'h1;",
        change: "*",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "o_ecn$d = 32'h3;",
        change: "*",
        reason: ENQ_MARK_ONLY,
        nth: 0,
    },
    Equivalent {
        module: "",
        original: "",
        change: "width-truncated * [47:0] -> [46:0]",
        reason: WIDE_PRODUCT,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "reg  [16:0] m1_u$d;",
        change: "width-truncated ccrtl_cp.m1_u$d [16:0] -> [15:0]",
        reason: DRAW_16,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "wire  [16:0] m1_u$q;",
        change: "width-truncated ccrtl_cp.m1_u$q [16:0] -> [15:0]",
        reason: DRAW_16,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "reg  [16:0] lhs_mul$b;",
        change: "width-truncated ccrtl_cp.lhs_mul$b [16:0] -> [15:0]",
        reason: DRAW_16,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__m1_u",
        original: "output reg  [16:0] q;",
        change: "width-truncated ccrtl_cp__m1_u.q [16:0] -> [15:0]",
        reason: DRAW_16,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.enq_s *",
        reason: LOOP_OPERAND,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.deq_s *",
        reason: LOOP_OPERAND,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "",
        change: "width-truncated ccrtl_cp.q_s *",
        reason: LOOP_OPERAND,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "a_nd$d = ((32'h0) & 27'h7ffffff) - deq_s;",
        change: "27'h7ffffff -> 27'h0",
        reason: "the mask is rust-hdl's cast of the literal 0: 0 masked by anything is 0",
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp",
        original: "ge_kmin = m0_q$q >= m0_kmin$q;",
        change: ">= -> >",
        reason: "differs only at q == kmin, where (q - kmin) * pmax is 0 and no draw marks; \
                 when also q >= kmax the mark comes from the kmax flag alone",
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "t1$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: KMAX_TAG,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "t2$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: KMAX_TAG,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "t3$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: KMAX_TAG,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "t4$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: KMAX_TAG,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "t5$d = 32'h0;",
        change: "32'h0 -> 32'h1",
        reason: KMAX_TAG,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "r16 = a48;",
        change: "delete statement",
        reason: ROW_16,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "s4_1$d = s3_2$q << 32'h10;",
        change: "32'h10 -> 32'h11",
        reason: ROW_16,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "s4_1$d = s3_2$q << 32'h10;",
        change: "<< -> >>",
        reason: ROW_16,
        nth: 0,
    },
    Equivalent {
        module: "ccrtl_cp__lhs_mul",
        original: "s5$d = s4_0$q + s4_1$q;",
        change: "+ -> -",
        reason: ROW_16,
        nth: 0,
    },
];

/// `text` with the first line that starts with `prefix` replaced by `line`
/// (unchanged if there is none: the callers check that a bug was planted).
fn replace_line(text: &str, prefix: &str, line: &str) -> String {
    match text.find(prefix) {
        Some(start) => {
            let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
            format!("{}{}{}", &text[..start], line, &text[end..])
        }
        None => text.to_string(),
    }
}

/// `ccrtl emit all` with a params file holding `toml`; returns the command's
/// output and the directory it was asked to write.
fn emit_with_params(name: &str, toml: &str) -> (std::process::Output, PathBuf) {
    let dir = tmp_dir(name);
    let params = dir.join("p.toml");
    std::fs::write(&params, toml).unwrap();
    let out_dir = dir.join("out");
    let out = ccrtl(&[
        "emit",
        "all",
        "--out",
        out_dir.to_str().unwrap(),
        "--params",
        params.to_str().unwrap(),
    ]);
    (out, out_dir)
}

/// Reset, a load of `p`, `n` back-to-back 1,000-byte ECT(0) enqueues, idle
/// cycles to see the last decision.
fn load_then_enqueue(p: CpParams, n: usize) -> Vec<CpIn> {
    let mut trace = vec![
        CpIn {
            rst: true,
            ..CpIn::default()
        },
        CpIn {
            cfg_valid: true,
            cfg: p.into(),
            ..CpIn::default()
        },
    ];
    let enq = CpIn {
        enq_valid: true,
        enq_len: 1000,
        enq_ecn: 2,
        ..CpIn::default()
    };
    trace.extend(std::iter::repeat_n(enq, n));
    trace.extend(std::iter::repeat_n(CpIn::default(), LATENCY + 1));
    trace
}

/// Hand-written bugs of the kinds random stimulus used to miss, planted in
/// the emitted Verilog: each is caught by `ccrtl verify cp` with default
/// options within a million cycles (exit 1, the mismatch named).
#[test]
fn hand_written_bugs_of_every_class_are_caught_by_verify() {
    let dir = tmp_dir("cp-hand-bugs");
    let good = CpBlock::verilog(&CpConfig::default());
    let load_start = good.find("        if (s_cfg_valid) begin").unwrap();
    let load_end = load_start
        + good[load_start..]
            .find("        b_cn$0$d = 32'h0;")
            .unwrap();
    let load = &good[load_start..load_end];
    let late_load = format!("{}{}", &good[..load_start], &good[load_end..]).replacen(
        "        m_dec_valid = o_valid$q;",
        &format!("{load}        m_dec_valid = o_valid$q;"),
        1,
    );
    let bugs: Vec<(&str, String)> = vec![
        (
            "valid gating dropped: the admission without the enqueue's valid",
            good.replacen("admit = m0_valid$q & ~wred & ~tail;", "admit = ~wred & ~tail;", 1),
        ),
        (
            "valid gating dropped: the enqueue's queue without its valid",
            good.replacen(
                "a_eq$0$d = s_enq_valid & eq_hit$0;",
                "a_eq$0$d = eq_hit$0;",
                1,
            ),
        ),
        (
            "valid gating dropped: the dequeue's queue (and length) without s_deq_valid",
            good.replacen(
                "a_dq$0$d = s_deq_valid & dq_hit$0;",
                "a_dq$0$d = dq_hit$0;",
                1,
            ),
        ),
        ("a parameter load in a reset cycle wins over reset", late_load),
        (
            "a back-to-back parameter load is ignored",
            good.replacen(
                "        if (s_cfg_valid) begin",
                "        if (s_cfg_valid & ~cfg_prev) begin",
                1,
            )
            .replacen(
                "    // Update code\n",
                "    reg cfg_prev;\n    always @(posedge clk) cfg_prev <= s_cfg_valid;\n    // Update code\n",
                1,
            ),
        ),
        (
            "reset value taken from the wrong constant",
            good.replacen(
                "buf_max$0$d = ((reset_buf_max) & ",
                "buf_max$0$d = ((reset_kdrop) & ",
                1,
            ),
        ),
        (
            "a register never initialised: the output stage's valid not reset",
            good.replacen("            o_valid$d = 1'b0;\n", "", 1),
        ),
        (
            "a register never initialised: the underflow flag not reset",
            good.replacen("            underflow$0$d = 1'b0;\n", "", 1),
        ),
    ];
    for (k, (what, text)) in bugs.iter().enumerate() {
        assert_ne!(text, &good, "{what}: not planted");
        let f = dir.join(format!("bug{k}.v"));
        std::fs::write(&f, text).unwrap();
        let out = ccrtl(&["verify", "cp", "--verilog", f.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: not caught\n{err}");
        assert!(err.contains("MISMATCH cp: cycle "), "{what}: {err}");
    }
}

/// Random power-up state reaches every register: two instances with
/// different power-up seeds show different outputs before the first reset
/// (q_depth is a register read straight out), the same seed the same ones.
#[test]
fn power_up_state_is_random_and_seeded() {
    let c = CpConfig::default();
    let m = model::<CpBlock>(&c, &CpBlock::verilog(&c));
    let depth_at_power_up = |seed: u32| {
        let mut dut = VerilatorDut::new(&m, &CpBlock::ports(&c), seed);
        let mut o = vec![0u128; 8];
        dut.cycle_values(&[0u128; 18], &mut o).unwrap();
        o[6]
    };
    let a: Vec<u128> = (1..=8).map(depth_at_power_up).collect();
    let b: Vec<u128> = (1..=8).map(depth_at_power_up).collect();
    assert_eq!(a, b, "the same seed gives the same power-up state");
    let distinct: std::collections::HashSet<_> = a.iter().collect();
    assert!(distinct.len() >= 6, "power-up depths {a:?}");
}

/// Out-of-range loads (which the parameter checks refuse) are defined: the
/// rules apply literally, and golden and Verilator agree on them.
#[test]
fn out_of_range_loads_behave_as_documented() {
    let c = CpConfig::default();
    let m = model::<CpBlock>(&c, &CpBlock::verilog(&c));
    let mut dut = VerilatorDut::new(&m, &CpBlock::ports(&c), 3);
    let mut g = CpBlock::golden(&c);
    // kmin > kmax: marking is the step at kmax; pmax > 1.0; kdrop and the
    // thresholds beyond buf_max.
    let bad = CpParams {
        kmin: 9_000,
        kmax: 4_000,
        pmax: 100_000,
        kdrop: 50_000,
        buf_max: 20_000,
        seed: 9,
    };
    assert!(bad.validate(&c.shape).is_err());
    let trace = load_then_enqueue(bad, 30);
    let mut marks = vec![];
    for (k, i) in trace.iter().enumerate() {
        let mut v = vec![0u128; 18];
        CpBlock::encode_in(i, &mut v);
        let mut o = vec![0u128; 8];
        dut.cycle_values(&v, &mut o).unwrap();
        let e = CpBlock::golden_step(&mut g, i);
        if k > 0 {
            let mut ev = vec![0u128; 8];
            CpBlock::encode_out(&e, &mut ev);
            assert_eq!(o, ev, "cycle {k}");
        }
        if e.dec_valid {
            marks.push(e.dec_action);
        }
    }
    // Depths 0..3000 admitted, 4000.. marked (the step at kmax), and from
    // 20,000 bytes on tail drops (buf_max).
    assert_eq!(&marks[..4], &[0, 0, 0, 0]);
    assert!(marks[4..20].iter().all(|&a| a == 1), "{marks:?}");
    assert!(marks[20..].iter().all(|&a| a == 3), "{marks:?}");
}

#[test]
fn step_marking_marks_every_ect_packet_at_k_in_the_verilog() {
    // DCTCP step marking through the whole flow: golden and Verilator both
    // mark an ECT packet exactly when the depth is at or above K.
    let c = CpConfig::default();
    let k = 3000;
    let trace = load_then_enqueue(
        CpParams {
            kmin: k,
            kmax: k,
            pmax: PMAX_ONE,
            kdrop: 100_000,
            buf_max: 200_000,
            seed: 5,
        },
        4,
    );
    let m = model::<CpBlock>(&c, &CpBlock::verilog(&c));
    let mut dut = VerilatorDut::new(&m, &CpBlock::ports(&c), 1);
    let mut actions = vec![];
    for (k, i) in trace.iter().enumerate() {
        let mut v = vec![0u128; 18];
        CpBlock::encode_in(i, &mut v);
        let mut o = vec![0u128; 8];
        dut.cycle_values(&v, &mut o).unwrap();
        // Cycle 0 shows the random power-up state.
        if k > 0 && o[0] == 1 {
            actions.push(o[1]);
        }
    }
    // Depths seen: 0, 1000, 2000 (below K: admit), 3000 (at K: mark).
    assert_eq!(actions, vec![0, 0, 0, 1]);
}

#[test]
fn replay_example_in_the_docs_is_what_both_engines_print() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/replay.md")).unwrap();
    let stim = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/examples/cp-step.csv");
    let dir = tmp_dir("replay-doc");
    for engine in ["golden", "verilator"] {
        let out = dir.join(format!("{engine}.csv"));
        let o = ccrtl(&[
            "replay",
            "cp",
            "--stimulus",
            stim,
            "--out",
            out.to_str().unwrap(),
            "--engine",
            engine,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            doc.contains(&text),
            "docs/replay.md does not show what {engine} prints:\n{text}"
        );
    }
}

#[test]
fn emit_writes_each_blocks_verilog_and_core_with_the_params_file_applied() {
    let (out, out_dir) = emit_with_params(
        "emit-good",
        "[cp]\ndepth_bits = 20\nlen_bits = 12\n[cp.reset]\nkmin = 100\nkmax = 900\npmax = 0.25\nkdrop = 500\nbuf_max = 1000\nseed = 9\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    files.sort();
    let mut expected: Vec<std::ffi::OsString> = ccrtl_sim::registry::names()
        .iter()
        .flat_map(|b| {
            [
                ccrtl_hdl::emit::file_name(b).into(),
                ccrtl_hdl::emit::core_file_name(b).into(),
            ]
        })
        .collect();
    expected.sort();
    assert_eq!(
        files, expected,
        "the Verilog and its FuseSoC core per block, no temporary left"
    );
    let text = std::fs::read_to_string(out_dir.join("ccrtl_cp.v")).unwrap();
    assert!(text.contains("input wire  [19:0] s_cfg_kmin;"));
    assert!(text.contains("reset.pmax    = 16384 (Q1.16, = 0.25)"));
}

#[test]
fn emit_into_an_unusable_directory_fails_cleanly() {
    let dir = tmp_dir("emit-blocked");
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, "a file where the output directory should be").unwrap();
    let out = ccrtl(&["emit", "all", "--out", blocker.join("v").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not-a-dir/v"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("not-a-dir")]);
}

#[test]
fn header_states_block_parameters_version_and_revision() {
    let mut c = CpConfig::default();
    c.reset.kmin = 1234;
    c.reset.kmax = 5678;
    let text = CpBlock::verilog(&c);
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//")).collect();
    let h = header.join("\n");
    assert!(h.contains("Block `cp`"));
    assert!(h.contains("depth_bits    = 24"));
    assert!(h.contains("reset.kmin    = 1234"));
    assert!(h.contains("reset.kmax    = 5678"));
    assert!(h.contains(&format!("ccrtl {}", env!("CARGO_PKG_VERSION"))));
    assert!(h.contains("(git "));
}

// ---- command line -----------------------------------------------------------

#[test]
fn emitted_modules_are_all_prefixed_and_coexist_with_other_files() {
    let text = CpBlock::verilog(&CpConfig::default());
    let modules: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .map(|l| l.split('(').next().unwrap())
        .collect();
    assert!(modules.len() > 10);
    for m in &modules {
        assert!(m.starts_with("ccrtl_cp"), "module `{m}` is not prefixed");
        assert!(!m.contains('$'), "module `{m}`");
    }
    // A user design with rust-hdl's default names reads in beside it.
    let dir = tmp_dir("coexist");
    std::fs::write(dir.join("ccrtl_cp.v"), &text).unwrap();
    std::fs::write(
        dir.join("user.v"),
        "module top(input clk, output q); assign q = clk; endmodule\n\
         module top$depth(input d, output q); assign q = d; endmodule\n",
    )
    .unwrap();
    yosys_ok(&format!(
        "read_verilog {0}/ccrtl_cp.v {0}/user.v; hierarchy -check -top ccrtl_cp",
        dir.display()
    ));
}

/// `verify --verilog` on a file emitted with other generation-time
/// parameters is refused (exit 2) with both sets shown, not reported as a
/// stream of mismatches; with the same params file it passes.
#[test]
fn verify_refuses_a_file_emitted_with_other_parameters() {
    let toml =
        "[cp.reset]\nkmin = 3000\nkmax = 40000\npmax = 0.3\nkdrop = 30000\nbuf_max = 60000\n";
    let (out, out_dir) = emit_with_params("verify-header", toml);
    assert!(out.status.success());
    let file = out_dir.join("ccrtl_cp.v");
    let o = ccrtl(&[
        "verify",
        "cp",
        "--cycles",
        "1000",
        "--verilog",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("generated with other parameters") && err.contains("reset.kmin    = 3000"),
        "{err}"
    );
    let params = out_dir.parent().unwrap().join("p.toml");
    let o = ccrtl(&[
        "verify",
        "cp",
        "--cycles",
        "300000",
        "--verilog",
        file.to_str().unwrap(),
        "--params",
        params.to_str().unwrap(),
        "--allow-missed-coverage",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
