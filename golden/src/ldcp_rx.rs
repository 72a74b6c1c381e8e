//! LDCP_RX — the LDCP receiver: which packets each ACK covers, and its ECE.
//!
//! Implements `../shared/ALGORITHMS.md` §"LDCP" ("Receiver"), which restates
//! seed 001 §2: an ACK per data packet echoing CE as ECE, or "a delayed ACK
//! for at most m data packets if they all are not marked, but ... an ACK
//! with ECE flag immediately once a CE marked packet is received", so that
//! the sender, which cuts its window by `n * beta` for an ECE ACK covering
//! `n` packets, knows exactly how many packets were marked. The contract is
//! `docs/ldcp_rx.md`.
//!
//! # The rule
//! Per flow a count `P` of unmarked packets received and not yet ACKed (0
//! after a reset). With `m' = max(m, 1)`, `m` the register in force, an
//! accepted event of flow `f` is:
//! - an unmarked packet (`ce` low): `P += 1`; if then `P >= m'`, an ACK of
//!   the `P` packets with ECE = 0 on the *ack* slot, and `P = 0`;
//! - a CE packet: if `P > 0`, an ACK of the `P` unmarked packets before it
//!   with ECE = 0 on the *flip* slot; then an ACK of the CE packet alone
//!   with ECE = 1 on the ack slot, whatever `m`; `P = 0`;
//! - a flush: if `P > 0`, an ACK of the `P` packets with ECE = 0 on the ack
//!   slot and `P = 0`; else nothing.
//!
//! So an ECE ACK always covers exactly one packet, and an ACK without ECE
//! covers only unmarked packets: "all not marked". A CE packet with
//! unmarked packets pending needs two ACKs (the pending group, then the CE
//! packet) and gets both slots in one cycle, the earlier packets on the flip
//! slot, as DCTCP_RX's CE change does.
//!
//! # Timing, ports, parameters
//! Those of [`crate::dctcp_rx`]: the same shell (flow table, `LATENCY` 8,
//! II = 1, reset and clearing, the `m` register, two ACK slots) with this
//! module's per-packet rule ([`Rule::Ldcp`]). The flow state is
//! [`FlowState`] with `ce` always false.

use crate::dctcp_rx::{Ack, Decision, DctcpRx, DctcpRxConfig, FlowState, Rule};
use crate::ParamError;

/// The LDCP receiver model: [`DctcpRx`]'s shell following [`Rule::Ldcp`].
pub type LdcpRx = DctcpRx;

/// A model as just after a reset (busy for its first `F` steps).
pub fn new(config: DctcpRxConfig) -> Result<LdcpRx, ParamError> {
    DctcpRx::with_rule(config, Rule::Ldcp)
}

/// A data packet with CE bit `ce`, under the `m` register `m` (already
/// masked to 4 bits): seed 001 §2's receiver.
pub fn packet(st: &mut FlowState, ce: bool, m: u32) -> Decision {
    let mut d = Decision::default();
    if ce {
        if st.pending > 0 {
            d.flip = Some(Ack {
                count: st.pending,
                ece: false,
            });
        }
        d.ack = Some(Ack {
            count: 1,
            ece: true,
        });
        st.pending = 0;
    } else {
        // pending < m' <= 15 before, so <= 15 here (4 bits).
        st.pending += 1;
        if st.pending >= m.max(1) {
            d.ack = Some(Ack {
                count: st.pending,
                ece: false,
            });
            st.pending = 0;
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dctcp_rx::tests::{cleared_with, decisions, flush, load, pkt, random_inputs};
    use crate::dctcp_rx::{DctcpRxIn, DctcpRxOut, DctcpRxParams, DctcpRxShape, LATENCY};
    use crate::mask;

    fn cleared(flow_bits: u32, m: u32) -> LdcpRx {
        cleared_with(Rule::Ldcp, flow_bits, m)
    }

    #[test]
    fn unmarked_packets_are_acked_every_m() {
        for m in 0..=15u32 {
            let mut rx = cleared(4, m);
            let d = decisions(&mut rx, &vec![pkt(3, false); 40]);
            let me = m.max(1) as usize;
            for (k, d) in d.iter().enumerate() {
                let want = if (k + 1) % me == 0 {
                    vec![(1, 3, me as u32, false)]
                } else {
                    vec![]
                };
                assert_eq!(*d, want, "m {m}, packet {k}");
            }
        }
    }

    #[test]
    fn every_ce_packet_is_acked_at_once_and_alone() {
        // m = 4: two unmarked, three CE, one unmarked, a flush.
        let mut rx = cleared(4, 4);
        let ins = [
            pkt(5, false),
            pkt(5, false),
            pkt(5, true),
            pkt(5, true),
            pkt(5, true),
            pkt(5, false),
            flush(5),
        ];
        let d = decisions(&mut rx, &ins);
        assert_eq!(
            d,
            vec![
                vec![],
                vec![],
                vec![(0, 5, 2, false), (1, 5, 1, true)],
                vec![(1, 5, 1, true)],
                vec![(1, 5, 1, true)],
                vec![],
                vec![(1, 5, 1, false)],
            ]
        );
        assert_eq!(rx.flow(5), FlowState::default());
    }

    #[test]
    fn back_to_back_and_spread_events_give_the_same_acks() {
        let seq = [
            pkt(2, false),
            pkt(2, false),
            pkt(2, true),
            load(pkt(2, false), 1),
            pkt(2, false),
            flush(2),
            pkt(2, true),
        ];
        let mut a = cleared(4, 3);
        let tight: Vec<_> = decisions(&mut a, &seq).into_iter().flatten().collect();
        let mut b = cleared(4, 3);
        let mut spread = vec![];
        for i in seq {
            spread.push(i);
            spread.extend([pkt(7, true), DctcpRxIn::default(), pkt(9, false)]);
        }
        let loose: Vec<_> = decisions(&mut b, &spread)
            .into_iter()
            .flatten()
            .filter(|a| a.1 == 2)
            .collect();
        assert_eq!(tight, loose);
        // The load of m = 1 comes with the fourth packet, which still uses
        // m = 3; the fifth completes a group of two; the flush finds none.
        assert_eq!(
            tight,
            vec![(0, 2, 2, false), (1, 2, 1, true), (1, 2, 2, false), (1, 2, 1, true)]
        );
    }

    /// Seed 001 §2's receiver written plainly: per flow the list of
    /// unacknowledged packets (all unmarked); a CE packet sends the list,
    /// then itself.
    #[derive(Default, Clone)]
    struct Seed {
        unacked: u32,
    }

    impl Seed {
        /// Returns the ACKs as (slot, count, ece).
        fn event(&mut self, flush: bool, ce: bool, m: u32) -> Vec<(u8, u32, bool)> {
            let mut out = vec![];
            let pending = std::mem::take(&mut self.unacked);
            if flush {
                if pending > 0 {
                    out.push((1, pending, false));
                }
            } else if ce {
                if pending > 0 {
                    out.push((0, pending, false));
                }
                out.push((1, 1, true));
            } else if pending + 1 >= m.max(1) {
                out.push((1, pending + 1, false));
            } else {
                self.unacked = pending + 1;
            }
            out
        }
    }

    #[test]
    fn matches_the_seed_receiver_over_random_traces() {
        for (seed, flow_bits) in [(0x2545_f491u32, 4u32), (0x9e37_79b9, 8)] {
            let ins = random_inputs(seed, 400_000, true);
            let mut rx = new(DctcpRxConfig {
                shape: DctcpRxShape { flow_bits },
                reset: DctcpRxParams { m: 3 },
            })
            .unwrap();
            let outs: Vec<DctcpRxOut> = ins.iter().map(|i| rx.step(i)).collect();
            let f = 1i64 << flow_bits;
            let mut seeds = vec![Seed::default(); f as usize];
            let (mut m, mut last_rst) = (3u32, -1i64);
            let (mut checked, mut both) = (0usize, 0usize);
            let mut due: Vec<Vec<(u8, u32, u32, bool)>> = vec![vec![]; ins.len() + LATENCY];
            for n in 0..ins.len() {
                let (i, c) = (ins[n], n as i64);
                assert_eq!(outs[n].evt_ready, c > last_rst + f, "ready in cycle {n}");
                // The ACKs due now, unless a reset since dropped them.
                let o = &outs[n];
                let mut got = vec![];
                if o.flip_valid {
                    got.push((0, o.flip_flow, o.flip_count, o.flip_ece));
                }
                if o.ack_valid {
                    got.push((1, o.ack_flow, o.ack_count, o.ack_ece));
                }
                assert_eq!(got, due[n], "cycle {n}");
                checked += got.len();
                both += (got.len() == 2) as usize;
                if i.rst {
                    seeds.fill(Seed::default());
                    (m, last_rst) = (3, c);
                    for d in &mut due[n + 1..n + LATENCY] {
                        d.clear();
                    }
                    continue;
                }
                if i.evt_valid && outs[n].evt_ready {
                    let flow = i.evt_flow & mask(flow_bits);
                    due[n + LATENCY] = seeds[flow as usize]
                        .event(i.evt_flush, i.evt_ce, m)
                        .into_iter()
                        .map(|(s, k, e)| (s, flow, k, e))
                        .collect();
                }
                if i.cfg_valid {
                    m = i.cfg_m & 0xf;
                }
            }
            assert!(checked > 100_000 && both > 1_000, "{checked} {both}");
        }
    }
}
