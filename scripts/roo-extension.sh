#!/usr/bin/env bash
# The whole Roo Code extension with the swap, end to end, as a Roo maintainer would try it before
# merging: Roo's own src/ unit suite, its check-types, its esbuild bundle, the bundle loaded outside
# VS Code and condensing a history, and the linux-x64 VSIX, for Roo as it is and with the swap.
#
#   scripts/roo-extension.sh <roo-code-git-dir> [commit] [--keep]
#
# <roo-code-git-dir>: a local copy of https://github.com/RooCodeInc/Roo-Code (a clone, or its .git
# directory); [commit]: default HEAD. Everything happens in a temporary folder outside this
# repository (removed at the end unless --keep):
#   1. the commit checked out (git clone --shared);
#   2. installed as Roo's maintainers do (scripts/roo-extension/install.mjs: pnpm at the root
#      package.json's packageManager version, BOOTSTRAP_IN_PROGRESS=1; install scripts that download
#      from outside the registry skipped, lockfile versions the registry no longer serves
#      overridden, each printed) and the workspace packages Roo's bundle imports built (what
#      turbo's ^build does for it);
#   3. Roo as it is: `pnpm bundle` (Roo's unit suite reads dist/, as `pnpm test` bundles first),
#      the src/ suite (vitest, JSON report), check-types (tsc --noEmit in src/);
#   4. the swap (scripts/roo-swap.mjs: the adapters of examples/roo-host, Roo's SUMMARY_PROMPT moved
#      into its host file, this package packed with its platform binary as a dependency, esbuild's
#      .node loader), installed;
#   5. with the swap: the bundle (the binary must be beside dist/extension.js), the suite,
#      check-types; dist/extension.js required with Roo's vscode mock and a history condensed
#      through the swapped modules inside it (scripts/roo-extension/load.cjs); `vsce package
#      --target linux-x64 --no-dependencies` and the .node files inside the VSIX;
#   6. the summary table (scripts/roo-extension/summary.mjs): exit 0 when every check passed.
# Needs the built addon (npm run build), Node 20.19+, network access to the npm registry, and about
# 15 to 25 minutes and 4 GB of disk. Not part of CI (it needs Roo's repository).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
git_dir="" commit="HEAD" keep=0
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) if [ -z "$git_dir" ]; then git_dir="$arg"; else commit="$arg"; fi ;;
  esac
done
if [ -z "$git_dir" ]; then echo "usage: scripts/roo-extension.sh <roo-code-git-dir> [commit] [--keep]" >&2; exit 2; fi
if [ -d "$git_dir/.git" ]; then git_dir="$git_dir/.git"; fi
git_dir="$(cd "$git_dir" && pwd)"
if ! git --git-dir="$git_dir" rev-parse --verify --quiet "$commit^{commit}" >/dev/null; then
  echo "roo-extension: $commit is not a commit of $git_dir" >&2; exit 2
fi
full="$(git --git-dir="$git_dir" rev-parse "$commit^{commit}")"
binary="$(node -e "
  const { platform, arch } = process
  const p = platform === 'linux' ? \`linux-\${arch}-\${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}\` : platform === 'win32' ? \`win32-\${arch}-msvc\` : \`\${platform}-\${arch}\`
  console.log(require('$repo/package.json').napi.binaryName + '.' + p + '.node')")"
if [ ! -f "$repo/$binary" ]; then echo "roo-extension: $repo/$binary is missing; run npm run build first" >&2; exit 2; fi

work="$(mktemp -d "${TMPDIR:-/tmp}/roo-extension.XXXXXX")"
case "$work" in "$repo"/*) echo "roo-extension: the temporary folder must be outside the repository" >&2; exit 2 ;; esac
if [ "$keep" = 0 ]; then trap 'rm -rf "$work"' EXIT; fi
roo="$work/roo" src="$work/roo/src" results="$work/results"
mkdir -p "$results" "$work/bin"
started=$SECONDS
step() { printf '\n== %s  (%s, %d min in)\n' "$1" "$(date +%H:%M:%S)" $(((SECONDS - started) / 60)); }

step "checkout: Roo Code ${full:0:10} into $roo"
git clone --quiet --shared --no-checkout "$git_dir" "$roo"
git -C "$roo" checkout --quiet "$full"

# pnpm at Roo's version for every pnpm command below, Roo's own scripts included (vsce runs
# `pnpm bundle --production` as the extension's vscode:prepublish).
pnpm_version="$(node -p "(/^pnpm@(\d+\.\d+\.\d+)/.exec(require('$roo/package.json').packageManager || '') || [])[1] || ''")"
if [ -z "$pnpm_version" ]; then echo "roo-extension: Roo's package.json names no pnpm@<version> packageManager" >&2; exit 1; fi
printf '#!/bin/sh\nexec npx -y pnpm@%s "$@"\n' "$pnpm_version" > "$work/bin/pnpm"
chmod +x "$work/bin/pnpm"
export PATH="$work/bin:$PATH" BOOTSTRAP_IN_PROGRESS=1

step "install (pnpm $pnpm_version)"
node "$here/roo-extension/install.mjs" "$roo" "$work/stubs"
name="$(node -p "require('$src/package.json').name")"
echo "\$ pnpm --filter '$name^...' run build   (the workspace packages the bundle imports, as turbo's ^build)"
(cd "$roo" && pnpm --filter "$name^..." run build > "$results/workspace-build.log" 2>&1) || { tail -30 "$results/workspace-build.log"; exit 1; }
grep -E "^[^ ]+ build: Done|build\$" "$results/workspace-build.log" | sed 's/^/  /' || true

# The bundle: Roo's `pnpm bundle` (node esbuild.mjs), then what it left in dist/.
bundle() {
  local label="$1"
  echo "\$ pnpm bundle   (in src/)"
  if (cd "$src" && pnpm bundle > "$results/bundle-$label.log" 2>&1) && [ -f "$src/dist/extension.js" ]; then
    node -e '
      const fs = require("fs"), path = require("path"), [dist, out] = process.argv.slice(1)
      const binaries = fs.readdirSync(dist).filter((f) => f.endsWith(".node")).map((f) => ({ name: f, bytes: fs.statSync(path.join(dist, f)).size }))
      fs.writeFileSync(out, JSON.stringify({ built: true, extensionBytes: fs.statSync(path.join(dist, "extension.js")).size, binaries }))
      console.log(`  dist/extension.js ${fs.statSync(path.join(dist, "extension.js")).size} bytes; .node beside it: ${binaries.map((b) => `${b.name} (${b.bytes} bytes)`).join(", ") || "none"}`)
    ' "$src/dist" "$results/bundle-$label.json"
  else
    tail -20 "$results/bundle-$label.log"
    node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({ built: false, error: "pnpm bundle failed" }))' "$results/bundle-$label.json"
  fi
}
# Roo's src/ unit suite: vitest with a JSON report (a failing suite is a result, not a stop).
suite() {
  local label="$1"
  echo "\$ pnpm exec vitest run --reporter=json   (in src/)"
  (cd "$src" && pnpm exec vitest run --reporter=json --outputFile="$results/$label.json" > "$results/$label.log" 2>&1) || true
  if [ -f "$results/$label.json" ]; then
    node -e '
      const r = require(process.argv[1])
      console.log(`  ${r.numTotalTestSuites} suites in ${r.testResults.length} files, ${r.numTotalTests} tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`)
    ' "$results/$label.json"
  else
    echo "  vitest wrote no report:"; tail -20 "$results/$label.log"
  fi
}
check_types() {
  local label="$1"
  echo "\$ pnpm check-types   (tsc --noEmit in src/)"
  (cd "$src" && pnpm exec tsc --noEmit > "$results/$label-tsc.log" 2>&1) || true
  echo "  $(grep -c 'error TS' "$results/$label-tsc.log" || true) errors"
  grep 'error TS' "$results/$label-tsc.log" | head -10 | sed 's/^/  /' || true
}

step "Roo as it is: bundle"
bundle before
step "Roo as it is: src/ suite"
suite before
step "Roo as it is: check-types"
check_types before

step "the swap: node scripts/roo-swap.mjs $roo"
node "$repo/scripts/roo-swap.mjs" "$roo" | sed 's/^/  /'
step "install with the swap"
node "$here/roo-extension/install.mjs" "$roo" "$work/stubs"

step "with the swap: bundle"
bundle after
step "with the swap: src/ suite"
suite after
step "with the swap: check-types"
check_types after

step "with the swap: require('dist/extension.js') with Roo's vscode mock, and condense a history"
node "$here/roo-extension/load.cjs" "$src" "$results/load.json" 2>&1 | grep -v '^{"t":' | sed 's/^/  /' || true

step "with the swap: vsce package --target linux-x64 --no-dependencies"
mkdir -p "$work/vsix"
if (cd "$src" && pnpm exec vsce package --target linux-x64 --no-dependencies --out "$work/vsix/roo-linux-x64.vsix" > "$results/vsix.log" 2>&1); then
  unzip -l "$work/vsix/roo-linux-x64.vsix" > "$results/vsix-files.txt"
  grep '\.node$' "$results/vsix-files.txt" | sed 's/^/  /' || echo "  no .node file inside"
  node -e '
    const fs = require("fs"), [vsix, list, out] = process.argv.slice(1)
    const binaries = fs.readFileSync(list, "utf8").split("\n").filter((l) => l.trim().endsWith(".node")).map((l) => { const [bytes, , , path] = l.trim().split(/\s+/); return { path, bytes: Number(bytes) } })
    fs.writeFileSync(out, JSON.stringify({ built: true, file: require("path").basename(vsix), bytes: fs.statSync(vsix).size, binaries }))
  ' "$work/vsix/roo-linux-x64.vsix" "$results/vsix-files.txt" "$results/vsix.json"
else
  tail -20 "$results/vsix.log"
  node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({ built: false, error: "vsce package failed" }))' "$results/vsix.json"
fi

step "summary ($(((SECONDS - started) / 60)) min)"
status=0
node "$here/roo-extension/summary.mjs" "$results" "${full:0:10}" || status=$?
if [ "$keep" = 1 ]; then echo "kept: $work"; fi
exit $status
