//! CFR_CAM across crates: the conformance suite every block passes,
//! instantiated by one line, plus its own check: keys of every width cross
//! the Verilator driver bit for bit.

#[macro_use]
mod common;

use ccrtl_golden::cfr_cam::{CfrCamConfig, CfrCamIn, CfrCamParams, CfrCamShape, LATENCY};
use ccrtl_sim::block::Block;
use ccrtl_sim::cfr_cam::CfrCamBlock;
use common::conformance::{eq_in, BlockTests, Equivalent};
use proptest::prelude::*;

conformance_suite!(CfrCamBlock);

fn shape(key_bits: u32, depth: u32, period: u32, thresh: u32) -> CfrCamConfig {
    CfrCamConfig {
        shape: CfrCamShape { key_bits, depth },
        reset: CfrCamParams { period, thresh },
    }
}

impl BlockTests for CfrCamBlock {
    /// rust-hdl simulates the CAM's compare array at a few hundred cycles
    /// a second (hdl at opt-level 0); the golden-Verilator lockstep runs
    /// millions.
    const HDL_CYCLES: u64 = 2_000;

    /// Reset, then 8 to 200 cycles: packets in most cycles, from six keys
    /// (one of them a one-bit neighbour of another) most often; lookups
    /// of the same keys; a load one cycle in 16 (periods 0 to 3 and
    /// thresholds 0 to 3 most often); a reset one cycle in 150.
    fn traces(config: &CfrCamConfig) -> BoxedStrategy<Vec<CfrCamIn>> {
        let bits = config.shape.key_bits;
        let top = 1u128 << (bits - 1);
        let keys = [1u128, 2, top | 1, top | 3, top, (top - 1) & 0xF0F0_F0F0];
        let mask = (top << 1) - 1;
        let key = prop_oneof![
            5 => (0usize..6).prop_map(move |k| keys[k]),
            1 => any::<u128>().prop_map(move |k| k & mask),
        ];
        let cycle = (
            0u16..150,
            0u8..8,
            key.clone(),
            any::<bool>(),
            key,
            0u8..16,
            prop_oneof![3 => 0u32..4, 1 => 0u32..=0xFFFF],
            prop_oneof![3 => 0u32..4, 1 => 0u32..=511],
        );
        prop::collection::vec(cycle, 8..200)
            .prop_map(|cycles| {
                let mut trace = vec![CfrCamIn {
                    rst: true,
                    ..CfrCamIn::default()
                }];
                for (r, p, pkt_key, look, look_key, load, period, thresh) in cycles {
                    trace.push(CfrCamIn {
                        rst: r == 0,
                        pkt_valid: p != 0,
                        pkt_key,
                        look_valid: look || p == 1,
                        look_key,
                        cfg_valid: load == 0,
                        cfg_period: period,
                        cfg_thresh: thresh,
                    });
                }
                trace
            })
            .boxed()
    }

    /// 104-bit keys, eight entries (the fewest), every packet sampled: the
    /// CAM wraps in eight packets; a key hits when two entries hold it.
    fn proptest_config() -> CfrCamConfig {
        shape(104, 8, 1, 2)
    }

    /// 104-bit keys, 8 entries, reset period 3 and threshold 2: a reset
    /// that restores another period or threshold shows in the first
    /// packets.
    fn mutation_config() -> CfrCamConfig {
        shape(104, 8, 3, 2)
    }

    const EQUIVALENT: &'static [Equivalent] = EQUIVALENT_CFR_CAM;

    /// The count compared with `>` instead of `>=`: a lookup of a key
    /// held by exactly `T` entries shows it.
    fn planted_bug(verilog: &str) -> String {
        let from = "(cnt >= tsel)";
        assert!(verilog.contains(from));
        verilog.replace(from, "(cnt > tsel)")
    }

    /// Reset, two packets of one key and its lookup (or a load of `T = 0`
    /// and a lookup), then the eleven cycles to the answer: 15 cycles.
    const SHRUNK_MAX: usize = 16;

    fn bad_params() -> Vec<(&'static str, &'static str)> {
        vec![
            ("[cfr_cam]\nkey_bits = 100\n", "`key_bits`"),
            ("[cfr_cam]\ndepth = 48\n", "`depth`"),
            ("[cfr_cam]\ndepth = 512\n", "`depth`"),
            ("[cfr_cam]\n[cfr_cam.reset]\nperiod = 70000\n", "`period`"),
            ("[cfr_cam]\n[cfr_cam.reset]\nthresh = 512\n", "`thresh`"),
            ("[cfr_cam]\nentries = 16\n", "unknown field `entries`"),
            ("[cfr_cam]\ndepth = -3\n", "line 2"),
        ]
    }
}

/// The assignments a later one in the same block overwrites (rust-hdl
/// cannot index a signal by a constant other than a loop variable, so the
/// last of a loop's assignments stands for `cand[C]`, the adder tree's
/// root, the valid and threshold beside it and the last delay stage): any
/// change to them is invisible.
const OVERWRITTEN: &str = "overwritten by the next assignment of the same register in the same \
                           block (the loop's last assignment stands)";

/// Mutants of CFR_CAM that no stimulus can tell apart from the original
/// (found by `every_planted_mutant_is_caught_or_shown_equivalent`), each
/// with its reason. `mutation_config`: 104-bit keys (13 chunks), 8 entries
/// (one group of eight).
const EQUIVALENT_CFR_CAM: &[Equivalent] = &[
    eq_in(
        "",
        "*",
        "wp$d = 32'h0;",
        "after a reset every entry is unused, and the samples fill the \
         entries in cyclic order from wherever the pointer is: which entry \
         holds which of the last D keys is not visible at the ports",
    ),
    eq_in(
        "",
        "*",
        "skip$d = 32'h0;",
        "the count is read only while `s_zero` is low; a reset or a period \
         load sets `s_zero`, and the next packet reloads the count from the \
         period, so what a reset or load leaves in it is never read",
    ),
    eq_in("", "*", "m$d = cand$0;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$1;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$2;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$3;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$4;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$5;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$6;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$7;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$8;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$9;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$10;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$11;", OVERWRITTEN),
    eq_in("", "*", "m$d = cand$12;", OVERWRITTEN),
    eq_in("", "*", "cnt = 32'h0;", OVERWRITTEN),
    eq_in("", "*", "vsel = v$0$q;", OVERWRITTEN),
    eq_in("", "*", "vsel = v$1$q;", OVERWRITTEN),
    eq_in("", "*", "vsel = v$2$q;", OVERWRITTEN),
    eq_in("", "*", "vsel = v$3$q;", OVERWRITTEN),
    eq_in("", "*", "tsel = tp$0$q;", OVERWRITTEN),
    eq_in("", "*", "tsel = tp$1$q;", OVERWRITTEN),
    eq_in("", "*", "tsel = tp$2$q;", OVERWRITTEN),
    eq_in("", "*", "tsel = tp$3$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit_valid = hv$0$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit_valid = hv$1$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit_valid = hv$2$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit_valid = hv$3$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit_valid = hv$4$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit = hp$0$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit = hp$1$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit = hp$2$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit = hp$3$q;", OVERWRITTEN),
    eq_in("", "*", "m_hit = hp$4$q;", OVERWRITTEN),
    eq_in("", "*", "wp_last = wp$0$q;", OVERWRITTEN),
    eq_in("", "*", "wp_last = wp$1$q;", OVERWRITTEN),
    eq_in("", "*", "wp_last = wp$2$q;", OVERWRITTEN),
    eq_in("", "*", "wp_last = wp$3$q;", OVERWRITTEN),
    eq_in("", "*", "wp_last = wp$4$q;", OVERWRITTEN),
    eq_in("", "*", "wp_last = wp$5$q;", OVERWRITTEN),
    eq_in("", "*", "wp_last = wp$6$q;", OVERWRITTEN),
    eq_in(
        "",
        "width-truncated ccrtl_cfr_cam.cnt [8:0] -> [7:0]",
        "",
        "the count of matching entries is at most the depth, 8 in the mutation \
         configuration: bit 8 is never set (the threshold it is compared with keeps \
         its 9 bits)",
    ),
    eq_in(
        "ccrtl_cfr_cam__ent__*",
        "width-truncated *.lkey [103:0] -> [102:0]",
        "input wire  [103:0] lkey;",
        "a Verilator artifact: with the entry's lookup-key port one bit \
         short, the compare's part-select `lkey[96 +: 8]` still reads bit \
         103 from the connected 104-bit word, so the simulated entry sees \
         the whole key (the same truncation of `wkey`, `key$d` or `key$q` \
         is caught within 1,314 cycles); no Verilator lockstep can show it",
    ),
];

/// Keys with a single bit set at every position of the widest key, and
/// their complements, written and looked up through the Verilator model:
/// each hits exactly itself (a key word lost or shifted in the driver, or
/// a chunk compare on the wrong bits, would make one miss or another hit).
#[test]
fn keys_of_every_width_cross_the_driver_bit_for_bit() {
    for key_bits in [32u32, 64, 104] {
        let c = shape(key_bits, 8, 1, 1);
        let m = common::model::<CfrCamBlock>(&c, &CfrCamBlock::verilog(&c));
        let ports = CfrCamBlock::ports(&c);
        let mut dut = ccrtl_sim::lockstep::VerilatorDut::new(&m, &ports, 7);
        let mut g = CfrCamBlock::golden(&c);
        let mask = (1u128 << key_bits) - 1;
        let mut trace = vec![CfrCamIn {
            rst: true,
            ..CfrCamIn::default()
        }];
        for b in 0..key_bits {
            for k in [1u128 << b, mask ^ (1u128 << b)] {
                trace.push(CfrCamIn {
                    pkt_valid: true,
                    pkt_key: k,
                    ..CfrCamIn::default()
                });
                // The key itself, and its neighbours one bit away.
                for l in [
                    k,
                    k ^ (1u128 << ((b + 1) % key_bits)),
                    k ^ 1u128 << ((b + key_bits - 1) % key_bits),
                ] {
                    trace.push(CfrCamIn {
                        look_valid: true,
                        look_key: l,
                        ..CfrCamIn::default()
                    });
                }
            }
        }
        trace.extend((0..LATENCY).map(|_| CfrCamIn::default()));
        let mut k = 0;
        let mut next = |_: &_, i: &mut CfrCamIn| {
            *i = trace[k.min(trace.len() - 1)];
            k += 1;
        };
        let mut opts = ccrtl_sim::lockstep::RunOptions::new(trace.len() as u64);
        opts.after = 0;
        let r =
            ccrtl_sim::lockstep::run_with::<CfrCamBlock, _>(&c, &mut next, &mut [&mut dut], &opts)
                .unwrap();
        let mut hits = 0;
        for i in &trace {
            let o = g.step(i);
            hits += o.hit as u32;
        }
        assert_eq!(r.mismatches, 0, "key_bits {key_bits}: {r:?}");
        // Each key hits itself only (its neighbours are not written).
        assert_eq!(hits, 2 * key_bits, "key_bits {key_bits}");
    }
}
