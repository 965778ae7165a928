#!/usr/bin/env bash
# deploy/dev/fuzz.sh — run every Go fuzz target for FUZZTIME (default 2s; `make fuzz` 60s).
# Targets: "package target" per line; the seed corpora live in each package's testdata/fuzz.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
FUZZTIME="${FUZZTIME:-2s}"
while read -r pkg target; do
  echo "fuzz $pkg $target ($FUZZTIME)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"
done <<'TARGETS'
./api FuzzBind
./api FuzzDecodeCursor
./domain/capex FuzzSafeCell
./domain/codehost FuzzExtractRefs
./domain/importer FuzzDecode
./domain/search/query FuzzParse
./domain/ticket FuzzParseRef
TARGETS
