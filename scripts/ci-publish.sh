#!/usr/bin/env bash
# The publish job of .github/workflows/release.yml: moves the binaries the build jobs uploaded
# (artifacts/bindings-<target>/) into the platform packages (npm/<platform>/), checks that each
# holds its binary, writes optionalDependencies (napi pre-publish), publishes every platform
# package and then the main package, with provenance.
#   scripts/ci-publish.sh            publish (CI only: needs NODE_AUTH_TOKEN and an OIDC token)
#   scripts/ci-publish.sh --dry-run  everything but the upload; here, on a copy of the repository,
#                                    with this machine's binary standing in for the build jobs'
#                                    (package.json and npm/ are put back as they were)
set -euo pipefail
cd "$(dirname "$0")/.."
dry=()
[ "${1:-}" = "--dry-run" ] && dry=(--dry-run)
name="$(node -p "require('./package.json').napi.binaryName")"
artifacts=artifacts
if [ ${#dry[@]} -gt 0 ]; then
  # Only this machine's target, staged as its build job would upload it; package.json names just
  # that target for the run (napi artifacts wants the binary of every target it is told about) and
  # is put back on exit.
  host="$(rustc -vV | sed -n 's/^host: //p')"
  artifacts=artifacts-dry-run
  rm -rf "$artifacts"
  mkdir -p "$artifacts/bindings-$host"
  cp "$name".*.node "$artifacts/bindings-$host/"
  backup=artifacts-dry-run.orig
  rm -rf "$backup" && mkdir "$backup"
  cp package.json "$backup/package.json"
  cp -R npm "$backup/npm"
  trap 'cp "$backup/package.json" package.json && rm -rf npm && mv "$backup/npm" npm && rm -rf "$backup"' EXIT
  node -e "const fs = require('fs'); const p = JSON.parse(fs.readFileSync('package.json', 'utf8')); p.napi.targets = ['$host']; fs.writeFileSync('package.json', JSON.stringify(p, null, 2) + '\\n')"
fi
npx napi create-npm-dirs
npx napi artifacts --output-dir "$artifacts" --npm-dir npm --build-output-dir .
missing=0
for dir in npm/*/; do
  main="$(node -p "require('./${dir}package.json').main")"
  if [ -f "$dir$main" ]; then echo "ci-publish: $dir holds $main"; else echo "ci-publish: $dir has no $main" >&2; missing=$((missing + 1)); fi
done
if [ "$missing" -gt 0 ] && [ ${#dry[@]} -eq 0 ]; then
  echo "ci-publish: $missing platform package(s) without their binary; nothing published" >&2
  exit 1
fi
if [ ${#dry[@]} -gt 0 ]; then
  # What would be uploaded: each platform package that has its binary, then the main package.
  for dir in npm/*/; do
    main="$(node -p "require('./${dir}package.json').main")"
    [ -f "$dir$main" ] && (cd "$dir" && npm publish --dry-run --access public)
  done
  npx napi pre-publish -t npm --skip-optional-publish --dry-run
  npm publish --dry-run --ignore-scripts --access public
  exit 0
fi
# npm publish runs prepublishOnly (napi pre-publish -t npm), which publishes npm/<platform>/ first.
npm config set provenance true
npm publish --access public
