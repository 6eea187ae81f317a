#!/usr/bin/env bash
# What each test job of .github/workflows/release.yml runs once its target's binary is in the
# repository root (downloaded from the build job, or built here by `npm run build`): the vitest
# suites, the type check, and the pack-and-install check. The Rust suites run in the lint job
# (scripts/ci-rust.sh). With NAPI_RS_FORCE_WASI=true the same suites run on the WebAssembly build.
# Reads the real Roo histories when CONTEXT_CONDENSE_FIXTURES names them; skips those suites,
# saying so, when not (the public CI has only the generated ones).
set -euo pipefail
cd "$(dirname "$0")/.."
node --version
npm run test:js
npm run test:types
if [ "${NAPI_RS_FORCE_WASI:-}" = "" ]; then
  npm run test:install
else
  echo "ci-test: SKIPPED the pack-and-install check under NAPI_RS_FORCE_WASI (it packs a native platform package)"
fi
