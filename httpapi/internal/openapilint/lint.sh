#!/usr/bin/env bash
# Lints an OpenAPI document with Redocly's and Spectral's recommended
# rulesets, at the versions package-lock.json pins, and fails on any error
# or warning of either. Run by make lint-openapi (and so by .ci/run).
#   httpapi/internal/openapilint/lint.sh httpapi/openapi.json
set -euo pipefail
# No network here: no usage reports, no update checks.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true SCARF_ANALYTICS=false
doc="$(realpath "$1")"
cd "$(dirname "$0")"

# Redocly CLI 2 needs Node.js 20.19 or later (Debian 12's own nodejs is 18).
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "lint-openapi: Node.js $(node --version) is too old: the pinned Redocly CLI needs 20.19 or later" >&2
  exit 1
fi

# The pinned linters, installed once (again when the lock file changes).
if [ ! -e node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "lint-openapi: installing the pinned linters (npm ci)…"
  npm ci --no-audit --no-fund --loglevel=error
fi

status=0
echo "lint-openapi: Redocly (recommended) on $doc"
# Redocly exits non-zero on errors only: its JSON totals count the warnings.
report="$(npx --no-install redocly lint --config redocly.yaml --format json "$doc" 2>/dev/null || true)"
totals="$(printf '%s' "$report" | node -e '
  let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
    try { const t = JSON.parse(s).totals; console.log(t.errors + " " + t.warnings); }
    catch (e) { console.log("unreadable"); }
  });')"
if [ "$totals" != "0 0" ]; then
  npx --no-install redocly lint --config redocly.yaml --format stylish "$doc" 2>&1 || true
  echo "lint-openapi: Redocly reports (errors warnings) $totals" >&2
  status=1
fi

echo "lint-openapi: Spectral (spectral:oas) on $doc"
npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity warn "$doc" || status=1
exit "$status"
