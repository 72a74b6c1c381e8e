# The two commands of the README, and a few more. Each installs what is
# missing first (scripts/setup.sh: Debian tools, the yowasp venv).

CARGO ?= cargo
CCRTL := ./target/release/ccrtl
CYCLES ?= 1000000
SEED ?= 1

.PHONY: run test test-deep setup bench soak synth formal netlist clean

## Emit every block into build/verilog/ and verify each against its golden
## model for $(CYCLES) random cycles under Verilator.
run: setup
	$(CARGO) build --release --quiet
	$(CCRTL) emit all --out build/verilog
	$(CCRTL) verify all --cycles $(CYCLES) --seed $(SEED)

## The fast tier of the test suite (what CI runs): unit, golden, the
## conformance suite of every block (every shape emitted and linted, a
## rotating sample of shapes verified, three-way lockstep, proptest, a
## sample of planted mutants, the command line).
test: setup
	$(CARGO) test --release --workspace

## Everything, the deep tier too: every planted mutant for 1e6 cycles, every
## shape with random reset values for 2e6 cycles.
test-deep: setup
	$(CARGO) test --release --workspace -- --include-ignored

## Many seeds on all cores: SOAK_CYCLES per block (random shapes of the
## menu, random reset values, random power-up states); prints the table.
SOAK_CYCLES ?= 1000000000
soak: setup
	$(CARGO) build --release --quiet
	$(CCRTL) soak all --cycles $(SOAK_CYCLES)

setup:
	@bash scripts/setup.sh

## Prove the properties of every block (formal/<block>/) with SymbiYosys or
## yosys sat:
## one row per property (method, depth, result, seconds); results and
## counterexample traces in build/formal/<block>/ (docs/formal.md).
formal: setup
	$(CARGO) build --release --quiet
	$(CCRTL) formal all

## Lockstep throughput (golden + Verilator, one core): 10 M cycles per block.
bench: setup
	$(CARGO) build --release --quiet
	$(CCRTL) verify all --cycles 10000000 --seed 7 --json

## Every block synthesized for ECP5 (LFE5U-85F, LFE5U-25F), iCE40 (UP5K,
## HX8K) and Xilinx 7-series into build/synth/, placed and routed over SEEDS
## placer seeds for Fmax (ECP5, iCE40); then every shape of fpga/shapes/
## (<block>-<name>.toml: generation-time parameters) on ECP5 into
## build/synth/shapes/<block>-<name>/; then docs/fpga.md rewritten from all
## the reports (fpga/README.md). PNR=0: resources only, and docs/fpga.md is
## left alone.
PNR ?= 1
SEEDS ?= 3
SHAPES := $(sort $(wildcard fpga/shapes/*.toml))
synth: setup
	$(CARGO) build --release --quiet
ifeq ($(PNR),0)
	$(CCRTL) synth all
else
	$(CCRTL) synth all --pnr --seeds $(SEEDS)
	set -e; for f in $(SHAPES); do n=$$(basename $$f .toml); \
	  $(CCRTL) synth $${n%%-*} --params $$f --target ecp5 --pnr --seeds $(SEEDS) \
	    --out build/synth/shapes/$$n; done
	$(CCRTL) synth-doc build/synth/summary.json \
	  $(patsubst fpga/shapes/%.toml,build/synth/shapes/%/report.json,$(SHAPES)) \
	  --out docs/fpga.md
endif

## Every block's yosys netlist (generic, ECP5, iCE40) in the Verilator
## lockstep for NETLIST_CYCLES, and the RTL/generic-netlist equivalence check
## (docs/verification.md "Netlist equivalence").
NETLIST_CYCLES ?= 100000
netlist: setup
	$(CARGO) build --release --quiet
	$(CCRTL) netlist all --cycles $(NETLIST_CYCLES) --equiv

clean:
	rm -rf build
