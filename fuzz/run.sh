#!/usr/bin/env bash
# Runs the fuzz targets for a given time each, corpora seeded from the fixtures.
#   fuzz/run.sh [seconds per target, default 1800] [target ...]   (targets: parse providers)
# Needs cargo-fuzz (`cargo install cargo-fuzz`); the stable toolchain is enough with
# RUSTC_BOOTSTRAP=1, which this script sets. Logs go to fuzz/logs/, findings to fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-1800}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse providers)
export RUSTC_BOOTSTRAP=1
[ -d corpus/providers ] || node seed.mjs
mkdir -p logs
cargo fuzz build -O
for t in "${targets[@]}"; do
  echo "fuzzing $t for ${secs}s (log: fuzz/logs/$t.log)"
  cargo fuzz run -O "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 \
    > "logs/$t.log" 2>&1 || { echo "$t: FINDING, see fuzz/logs/$t.log and fuzz/artifacts/$t/"; exit 1; }
  grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "logs/$t.log" | tail -2
done
