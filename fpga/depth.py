#!/usr/bin/env python3
"""Deepest register-to-register paths of an ECP5 netlist, estimated.

nextpnr reports one critical path per clock; planning a pipeline needs all
of the deep ones. This reads the JSON netlist `ccrtl synth --target ecp5`
writes (build/synth/<block>/synth_ecp5.json: LUT4, PFUMX, L6MUX21, CCU2C,
TRELLIS_FF, DP16KD cells) and estimates the arrival time at every flip-flop
and block RAM input from a rough delay model: a cell's logic delay as in
nextpnr's ECP5 speed-8 reports (LUT4 0.18 ns, carry 0.06 ns a cell), and
0.45 ns + 0.18 ns x log2(fan-out) per net, which is pessimistic for nets of
large fan-out. Block inputs count as registers (ccrtl synth's place-and-
route wrapper drives them from flip-flops). Use it to rank paths, not to
predict Fmax: its figures run about 0.3-0.6 ns above nextpnr's routed ones.

usage: fpga/depth.py NETLIST.json TOP [THRESHOLD_NS [MAX_ROWS]]
prints: estimated ns, cells on the path, start bit -> end cell.port
"""
import json
import math
import sys
from collections import defaultdict


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, top = sys.argv[1], sys.argv[2]
    thr = float(sys.argv[3]) if len(sys.argv) > 3 else 6.0
    rows = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"depth.py: {path}: {e}")
    if top not in d.get("modules", {}):
        sys.exit(f"depth.py: {path}: no module {top}")
    m = d["modules"][top]
    cells = m["cells"]
    drv, loads = {}, defaultdict(list)
    for cn, c in cells.items():
        pd = c.get("port_directions", {})
        for p, bits in c["connections"].items():
            for b in bits:
                if isinstance(b, str):
                    continue
                if pd.get(p) == "output":
                    drv[b] = (cn, p)
                else:
                    loads[b].append((cn, p))
    name = {}
    for nn, n in m["netnames"].items():
        if n.get("hide_name"):
            continue
        for i, b in enumerate(n["bits"]):
            if isinstance(b, int) and (b not in name or len(nn) < len(name[b][0])):
                name[b] = (nn, i)

    def hop(b):
        return 0.45 + 0.18 * math.log2(max(1, len(loads[b])))

    memo, pred = {}, {}

    def arrival(b):
        # Iterative depth-first walk: netlists are deeper than Python's stack.
        stack = [b]
        while stack:
            x = stack[-1]
            if x in memo:
                stack.pop()
                continue
            if x not in drv:
                memo[x] = 0.0
                stack.pop()
                continue
            cn, p = drv[x]
            c = cells[cn]
            t = c["type"]
            if t == "TRELLIS_FF":
                memo[x] = 0.4
                stack.pop()
                continue
            if t == "DP16KD":
                memo[x] = 0.72
                stack.pop()
                continue
            ins = [
                (pp, bb)
                for pp, bits in c["connections"].items()
                if c["port_directions"].get(pp) == "input"
                for bb in bits
                if isinstance(bb, int)
            ]
            todo = [bb for _, bb in ins if bb not in memo]
            if todo:
                stack.extend(todo)
                continue
            best, bp = 0.0, None
            for pp, bb in ins:
                if t == "CCU2C":
                    a = memo[bb] + (0.06 if pp == "CIN" else hop(bb) + 0.35)
                elif t in ("PFUMX", "L6MUX21") and pp in ("ALUT", "BLUT", "D0", "D1"):
                    a = memo[bb]
                else:
                    a = memo[bb] + hop(bb)
                if a > best:
                    best, bp = a, bb
            if t == "CCU2C":
                memo[x] = best + (0.0 if p == "COUT" else 0.3)
            else:
                memo[x] = best + {"LUT4": 0.18, "PFUMX": 0.19}.get(t, 0.2)
            pred[x] = bp
            stack.pop()
        return memo[b]

    ends = []
    for cn, c in cells.items():
        if c["type"] not in ("TRELLIS_FF", "DP16KD"):
            continue
        for p, bits in c["connections"].items():
            if c["port_directions"].get(p) != "input" or p.startswith("CLK"):
                continue
            for b in bits:
                if isinstance(b, int) and b in drv:
                    ends.append((arrival(b) + hop(b) + 0.2, cn, p, b))
    ends.sort(reverse=True)
    seen, shown = set(), 0
    for a, cn, p, b in ends:
        if a < thr or shown >= rows:
            break
        s, n = b, 0
        while pred.get(s) is not None:
            s, n = pred[s], n + 1
        src = name.get(s, ("?", 0))
        key = (cn.split(".")[0], src[0])
        if key in seen:
            continue
        seen.add(key)
        shown += 1
        print(f"{a:5.2f} {n:2d} {src[0]}[{src[1]}] -> {cn}.{p}")


if __name__ == "__main__":
    main()
