#!/usr/bin/env bash
# Loads the addon and runs the core vitest suites under each Node major the package supports, with
# Node binaries taken from the npm registry (the `node` package, through npx), one after another.
# The built addon must be in place (npm run build). Prints one summary line per version.
#   scripts/node-versions.sh [major ...]        (default: 20 22 24)
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(20 22 24)
suites=(__test__/exports.test.ts __test__/generated.test.ts __test__/generated-coverage.test.ts __test__/lossless.test.ts __test__/providers.test.ts __test__/manager.test.ts __test__/tokens.test.ts __test__/validate.test.ts __test__/bad-input.test.ts __test__/roo-2025.test.ts __test__/roo-truncate.test.ts __test__/roo-non-destructive.test.ts __test__/roo-today.test.ts __test__/roo-host.test.ts __test__/openai-format.test.ts)
status=0
summary=()
for v in "${versions[@]}"; do
  echo "=== Node $v"
  nodebin="$(npx -y -p "node@$v" -- node -p 'process.execPath')"
  version="$("$nodebin" --version)"
  napi="$("$nodebin" -p 'process.versions.napi')"
  "$nodebin" -e "const l = require('./lib/index.js'); if (l.countTokens('hello world') !== 2) process.exit(1)" || { summary+=("Node $version: the addon does not load"); status=1; continue; }
  if PATH="$(dirname "$nodebin"):$PATH" "$nodebin" node_modules/vitest/vitest.mjs run "${suites[@]}" > "node-$v.log" 2>&1; then
    tests="$(sed 's/\x1b\[[0-9;]*m//g' "node-$v.log" | grep -E '^ *Tests +[0-9]' | tr -s ' ' || true)"
    summary+=("Node $version (Node-API $napi): addon loads;$tests")
  else
    summary+=("Node $version (Node-API $napi): FAILED, see node-$v.log")
    status=1
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
