// Package conformance holds the records of a run on real GPUs and puts
// observations side by side: gatesim's measured rows against nccl-tests'
// (Compare), and the report of a captured run checked against spec's
// prediction (CheckReport, WriteCheck; the check itself, which reads the
// log, is diagnose.CheckCapture).
//
// It also owns the records both sides share: RunResult and Row (a run's
// results.json and its nccl-tests-style table), Config and Capture (one
// configuration's capture directory, already read), and nccl-tests'
// conventions (per-rank counts, algbw and busbw, the program per
// collective, ParseNCCLTests for its output).
//
// Place in DESIGN.md's data flow: beside hw (which measures, reads and
// writes capture directories in these records) and below diagnose (which
// judges a log and a capture); it imports neither, so hw does not reach
// the log reader or diagnose.
// Pure: no cgo, no file I/O, no clocks; it builds and tests without a GPU.
package conformance
