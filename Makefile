# The two commands of the README, and a few more. Each installs what is
# missing first (scripts/setup.sh: Debian tools, the yowasp venv).

CARGO ?= cargo
CCRTL := ./target/release/ccrtl
CYCLES ?= 1000000
SEED ?= 1

.PHONY: run test setup bench synth clean

## Emit every block into build/verilog/ and verify each against its golden
## model for $(CYCLES) random cycles under Verilator.
run: setup
	$(CARGO) build --release --quiet
	$(CCRTL) emit all --out build/verilog
	$(CCRTL) verify all --cycles $(CYCLES) --seed $(SEED)

## The whole test suite (unit, golden, lockstep, proptest, planted bugs, CLI).
test: setup
	$(CARGO) test --release --workspace

setup:
	@bash scripts/setup.sh

## Lockstep throughput (golden + Verilator, one core): 10 M cycles per block.
bench: setup
	$(CARGO) build --release --quiet
	$(CCRTL) verify all --cycles 10000000 --seed 7 --json

## Resource counts (ECP5 and iCE40) of every emitted block; PNR=1 adds Fmax.
synth: run
	bash fpga/synth.sh $(if $(PNR),--pnr) ccrtl_cp build/verilog/ccrtl_cp.v

clean:
	rm -rf build
