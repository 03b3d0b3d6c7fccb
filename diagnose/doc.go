// Package diagnose answers "did SHARP / NVLS / IB / my plugin actually get
// used, and if not, why?" from an NCCL log, with evidence.
//
// Place in DESIGN.md's data flow: it sits after hw/ncclog on the observe
// side. ncclog turns the log into an Observation (per capability, the
// highest rung of the evidence ladder a line proves, the lines that prove
// it and the gates seen failing); diagnose walks the decision tree of the
// ladder over that observation and reports Findings, each naming the
// capability, the level reached, what is missing for the next level, the
// gate rule (spec's G-* ID) and the evidence lines (file:line). Compare puts
// a predicted Trace and Decisions (from spec) beside the observed ones, gate
// by gate and operation by operation; CheckCapture does the same for a
// whole captured run (conformance.Capture: its topology dump, log and
// results) and writes a conformance.CheckReport.
//
// Pure: values in, values out; the CLI (cmd/gatesim diagnose) reads files.
package diagnose
