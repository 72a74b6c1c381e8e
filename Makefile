# The two commands of the README, and a few more. Each installs what is
# missing first (scripts/setup.sh: Debian tools, the yowasp venv).

CARGO ?= cargo
CCRTL := ./target/release/ccrtl
CYCLES ?= 1000000
SEED ?= 1

.PHONY: run test test-deep setup bench soak synth formal clean

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

## Prove the properties of every block (formal/<block>/) with SymbiYosys:
## one row per property (method, depth, result, seconds); results and
## counterexample traces in build/formal/<block>/ (docs/formal.md).
formal: setup
	$(CARGO) build --release --quiet
	$(CCRTL) formal all

## Lockstep throughput (golden + Verilator, one core): 10 M cycles per block.
bench: setup
	$(CARGO) build --release --quiet
	$(CCRTL) verify all --cycles 10000000 --seed 7 --json

## Resource counts (ECP5 and iCE40) of every emitted block; PNR=1 adds Fmax.
synth: run
	bash fpga/synth.sh $(if $(PNR),--pnr) ccrtl_cp build/verilog/ccrtl_cp.v

clean:
	rm -rf build
