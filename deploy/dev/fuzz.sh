#!/usr/bin/env bash
# deploy/dev/fuzz.sh — run every Go fuzz target for FUZZTIME (default 2000x; `make fuzz` 60s).
# `make test` gives a count of inputs (2000x), not a duration: with a duration, Go's fuzz
# coordinator races its own deadline on a loaded machine and fails with a bare "context
# deadline exceeded" and no failing input (golang/go#51484, #75804; seen in a CI run here).
# Targets: "package target" per line; the seed corpora live in each package's testdata/fuzz.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
FUZZTIME="${FUZZTIME:-2000x}"
while read -r pkg target; do
  echo "fuzz $pkg $target ($FUZZTIME)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"
done <<'TARGETS'
./api FuzzBind
./api FuzzDecodeCursor
./domain FuzzJSONNames
./domain/capex FuzzSafeCell
./domain/codehost FuzzExtractRefs
./domain/exchange/importer FuzzDecode
./domain/exchange/sources FuzzJira
./domain/exchange/sources FuzzGitHub
./domain/search FuzzSearchCursor
./internal/searchquery FuzzParse
./domain/ticket FuzzParseRef
TARGETS
