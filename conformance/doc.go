// Package conformance puts a prediction beside an observation: what spec
// predicts for a captured run (gates, capabilities, graphs, channels, the
// tuning table, each operation's algorithm, protocol and channels, errors)
// against what NCCL printed (read by ncclog), and gatesim's measured rows
// against nccl-tests' (Compare).
//
// It also owns the records both sides share: RunResult and Row (a run's
// results.json and its nccl-tests-style table), Config and Capture (one
// configuration's capture directory, already read), and nccl-tests'
// conventions (per-rank counts, algbw and busbw, the program per
// collective, ParseNCCLTests for its output).
//
// Place in DESIGN.md's data flow: after hw (which measures and reads
// capture directories) and diagnose (which judges a log), before the CLI.
// Pure: no cgo, no file I/O, no clocks; it builds and tests without a GPU.
package conformance
