#!/usr/bin/env bash
# Runs Roo Code's own condense / sliding-window / context-management specs against this package.
#
#   scripts/roo-compat.sh <roo-code-git-dir> [commit] [--roo] [--keep]
#   scripts/roo-compat.sh <roo-code-git-dir> [commit] --time
#
# <roo-code-git-dir>: a local copy of https://github.com/RooCodeInc/Roo-Code (a clone, or its .git
# directory); [commit]: default HEAD. The specs at that commit are exported to a temporary folder
# (never into this repository), with the host adapter of that Roo's era from examples/roo-host put
# where a maintainer puts it, verbatim, in place of Roo's condense and context-management (2025:
# sliding-window) modules, and Roo's SUMMARY_PROMPT moved into its host file, as
# scripts/roo-swap.mjs does to a checkout (context-condense/roo for fresh-start summaries,
# context-condense/roo-2026-01 before them, context-condense/roo-2025 for a Roo that still has
# src/core/sliding-window). The specs are not rewritten, and nothing is configured outside the
# adapter: Roo's prompts reach the entry through the adapter. Roo's host is stubbed
# (scripts/roo-compat/tree: telemetry, i18n with Roo's English strings, BaseProvider counting with
# Roo's tiktoken code).
# --roo runs Roo's own implementation in the same harness instead (it should pass everything: the
# harness is fair). --keep leaves the temporary folder and prints its path.
# Prints passed/failed per spec file and the totals. Not part of CI (it needs Roo's repository).
# --time instead times one automatic condensing of a generated million-token history by Roo's own
# implementation and by the entry, alternating in one process after the same warm-up
# (scripts/roo-compat/timing.spec.ts),
# and prints both medians and their ratio.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
git_dir="" commit="HEAD" mode="entry" keep=0 time=0
for arg in "$@"; do
  case "$arg" in
    --roo) mode="roo" ;;
    --time) time=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) if [ -z "$git_dir" ]; then git_dir="$arg"; else commit="$arg"; fi ;;
  esac
done
if [ -z "$git_dir" ]; then echo "usage: scripts/roo-compat.sh <roo-code-git-dir> [commit] [--roo] [--keep] | --time" >&2; exit 2; fi
if [ -d "$git_dir/.git" ]; then git_dir="$git_dir/.git"; fi
if ! git --git-dir="$git_dir" rev-parse --verify --quiet "$commit^{commit}" >/dev/null; then
  echo "roo-compat: $commit is not a commit of $git_dir" >&2; exit 2
fi
if [ ! -d "$repo/node_modules/vitest" ]; then echo "roo-compat: run npm install in $repo first" >&2; exit 2; fi
full="$(git --git-dir="$git_dir" rev-parse "$commit^{commit}")"
if [ "$time" = 1 ]; then
  # One harness with both implementations: Roo's own and the entry, alternating in one process.
  work="$(mktemp -d "${TMPDIR:-/tmp}/roo-compat.XXXXXX")"
  case "$work" in "$repo"/*) echo "roo-compat: the temporary folder must be outside the repository" >&2; exit 2 ;; esac
  if [ "$keep" = 0 ]; then trap 'rm -rf "$work"' EXIT; fi
  node "$here/roo-compat/prepare.mjs" "$git_dir" "$full" "$work" entry time > "$work/prepared.json"
  (cd "$work" && node "$repo/node_modules/vitest/vitest.mjs" run --config vitest.config.mts \
    src/core/condense/__tests__/timing.spec.ts > "$work/vitest.log" 2>&1) || true
  if [ ! -f "$work/timing.json" ]; then echo "roo-compat: the timing run failed:" >&2; tail -40 "$work/vitest.log" >&2; exit 1; fi
  node -e '
    const [commit, file] = process.argv.slice(1)
    const t = JSON.parse(require("fs").readFileSync(file, "utf8"))
    console.log(`Roo Code ${commit.slice(0, 10)}: one automatic condensing of a generated 1M-token history, Roo and the entry alternating in one process (median of ${t.xml.roo.ms.length} calls each, ms)`)
    for (const [f, x] of Object.entries(t)) {
      console.log(`  ${f} tools (${x.messages} messages): Roo ${x.roo.median.toFixed(2)}, entry ${x.entry.median.toFixed(2)} = ${(x.entry.median / x.roo.median).toFixed(2)}x`)
    }' "$full" "$work/timing.json"
  if [ "$keep" = 1 ]; then echo "kept: $work"; fi
  exit 0
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/roo-compat.XXXXXX")"
case "$work" in "$repo"/*) echo "roo-compat: the temporary folder must be outside the repository" >&2; exit 2 ;; esac
if [ "$keep" = 0 ]; then trap 'rm -rf "$work"' EXIT; fi
node "$here/roo-compat/prepare.mjs" "$git_dir" "$full" "$work" "$mode" > "$work/prepared.json"
(cd "$work" && node "$repo/node_modules/vitest/vitest.mjs" run --config vitest.config.mts \
  --reporter=json --outputFile="$work/results.json" > "$work/vitest.log" 2>&1) || true
node "$here/roo-compat/summary.mjs" "$work" "$full"
if [ "$keep" = 1 ]; then echo "kept: $work"; fi
