// Package params is gatesim's registry of NCCL's environment parameters and
// its `NCCL_*` linter. In DESIGN.md's data flow it sits on the "NCCL_*
// environment" input of spec.Init: it says, per release, which variables NCCL
// reads at all, how it parses each one, what value it will actually use and
// which gates a variable feeds, before the rule engine runs.
//
// It has three layers:
//
//   - the generated registry (data/<tag>.tsv, embedded): every variable NCCL
//     reads at a release tag, with type, default, read sites, comparisons and
//     config overrides, produced from NCCL's source by tools/genparams and
//     checked in byte for byte (see Table, Row, Load);
//   - the curated layer (curated.go): hand-written facts the generator
//     cannot see, each with its spec.Ref: deprecated and removed names and
//     their replacements, values a release treats specially, accepted value
//     sets, and the gate rule IDs (docs/research nccl-gates.md) each variable
//     affects;
//   - the linter (lint.go, script.go, strtoll.go): a job-script reader that
//     turns `export A=B`, `A=B cmd` and `#SBATCH --export=` lines into
//     assignments, NCCL's own integer parse (glibc strtoll base 0, as
//     ncclLoadParam calls it), and Lint, which returns Findings.
//
// The package is pure: tables are embedded at build time, parsers take bytes
// and a name for messages, nothing reads files, the environment or a clock.
package params
