#!/usr/bin/env bash
# Runs every Go fuzz target in the module for the given time each.
# go test -fuzz takes one target in one package per run, so list them first.
set -euo pipefail
t=${1:-20s}
cd "$(dirname "$0")/.."
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}' | sort -u); do
    echo "== $pkg $f ($t)"
    go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" "$pkg"
  done
done
