#!/usr/bin/env bash
# The Rust checks of .github/workflows/release.yml's lint job: formatting, clippy with warnings as
# errors, and every cargo test suite (--no-fail-fast: one failing suite does not hide the rest).
# Runs the same here. Changes no file.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt -- --check
# The engine and the binding crate (crates/binding), then the binding with its test-only probes.
cargo clippy --workspace -- -D warnings
cargo clippy -p context_condense_binding --features probes -- -D warnings
# The engine's tests, without Node (the root package only: the binding is tested through vitest).
cargo test --no-fail-fast
