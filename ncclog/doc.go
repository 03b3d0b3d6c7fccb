// Package ncclog reads NCCL's debug log (NCCL_DEBUG=INFO/WARN/TRACE output of
// releases 2.4 through 2.30) and turns it into an observation with the same
// shape as a prediction.
//
// Place in DESIGN.md's data flow: it is the "observe" half of the cross-check.
// spec predicts a Trace and Decisions from (release, system, env, operation);
// this package observes them from what NCCL printed:
//
//	log text ──Parse──> *Log ──Observe──> Observation{Trace, Decisions, Evidence, Caps}
//	                                            │
//	            spec (predicted Trace) ─────────┴──> diagnose (findings, side by side)
//
// The parser is streaming: a Log keeps counters, aggregates and a bounded
// number of sample lines, never every line, so a 100 MB log is parsed with
// bounded memory. Every list of distinct records goes through one bounded
// aggregator (distinct.go), and a bounded memo of recent messages spares
// the expressions for the lines NCCL repeats on every rank. Every recognised message form is a Form of the Catalogue,
// keyed by NCCL's own format string and the release range it exists in, with
// the source reference (tag, file, function) that prints it. Lines that match
// no form are counted and sampled as unparsed, never fatal.
//
// Each capability's evidence ladder is data (ladder.go): rungs, each the
// line kinds that prove a level under a rule or show a gate stopping it,
// walked in order by one function, and the hints for the next level. The
// release boundaries the reader needs for logs of any release are named
// data too (sinceRelease), not comparisons in the code.
//
// An observation never promotes a line beyond what it proves: "NVLS multicast
// support is available" makes NVLS usable, not used; only a per-operation
// line makes an algorithm selected, and only a connector line (or selected
// plus the algorithm's own connection lines) makes it executed.
//
// Pure: no file or network I/O, no environment, no clocks, no goroutines.
// Parse takes an io.Reader and a name used in locations and errors; only the
// CLI opens files.
package ncclog
