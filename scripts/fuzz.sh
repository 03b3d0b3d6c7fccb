#!/usr/bin/env bash
# Runs every Go fuzz target in the module for the given time each, then
# prints how many executions each reached.
# go test -fuzz takes one target in one package per run, so list them first.
# -fuzzminimizetime bounds the minimisation of each new input (100
# executions): left at its default (60s) some targets spent their whole
# budget minimising and ran fewer than 10 executions, and at 3s a target
# finding many new inputs early still ran 38.
set -euo pipefail
t=${1:-20s}
mt=${FUZZMINTIME:-100x}
cd "$(dirname "$0")/.."
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
status=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}' | sort -u); do
    echo "== $pkg $f ($t)"
    out=$(go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" -fuzzminimizetime "$mt" "$pkg" 2>&1) || { status=1; echo "$out"; }
    echo "$out" | tail -3
    execs=$(echo "$out" | grep -oE 'execs: [0-9]+' | tail -1 | awk '{print $2}')
    printf '| %s | %s | %s |\n' "${pkg#github.com/gatesim/gatesim/}" "$f" "${execs:-?}" >>"$summary"
  done
done
echo
echo "| package | target | executions in $t |"
echo "|---|---|--:|"
cat "$summary"
exit $status
