#!/usr/bin/env bash
# Builds the addon for one Rust target, as each build job of .github/workflows/release.yml does,
# and leaves the binary in the repository root, where the job
# uploads it and `napi artifacts` later picks it up. Without an argument: this machine's target.
#   scripts/ci-build.sh [target]
# Cross builds: Linux gnu targets through napi-rs's cross toolchain (--use-napi-cross), musl through
# cargo-zigbuild (-x); macOS builds both of its targets natively. The target's Rust standard library
# must be installed (rustup target add <target>). Never publishes anything.
set -euo pipefail
cd "$(dirname "$0")/.."
host="$(rustc -vV | sed -n 's/^host: //p')"
target="${1:-$host}"
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx "$target"; then
  echo "ci-build: the Rust target $target is not installed: rustup target add $target" >&2
  exit 1
fi
# The binding crate (crates/binding), its addon, index.js and index.d.ts written here as npm run
# build writes them (scripts/build.mjs). Release builds leave out its test-only `probes` feature
# (countMessages, the panic probe).
args=(--platform --release --manifest-path crates/binding/Cargo.toml --output-dir . --target "$target")
if [ "$target" != "$host" ]; then
  case "$target" in
    *-unknown-linux-musl) args+=(-x) ;;
    *-unknown-linux-gnu) args+=(--use-napi-cross) ;;
  esac
fi
npx napi build "${args[@]}"
ls -l context-condense.*.node 2>/dev/null || { echo "ci-build: no binary was written for $target" >&2; exit 1; }
# A native build for this machine can be loaded: it must not export the test-only functions.
if [ "$target" = "$host" ] && ls context-condense.*.node >/dev/null 2>&1; then
  node -e "if (typeof require('./index.js').countMessages === 'function') { console.error('ci-build: the release binary exports countMessages (the probes feature is on)'); process.exit(1) }"
fi
