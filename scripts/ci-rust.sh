#!/usr/bin/env bash
# The Rust checks of .github/workflows/release.yml's lint job: formatting, clippy with warnings as
# errors, and every cargo test suite (--no-fail-fast: one failing suite does not hide the rest).
# Runs the same here. Changes no file.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt -- --check
cargo clippy --features node -- -D warnings
cargo clippy --features node,probes -- -D warnings
cargo test --no-default-features --no-fail-fast
