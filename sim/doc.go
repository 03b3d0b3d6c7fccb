// Package sim executes algos schedules: a data plane that does the real
// arithmetic of every NCCL datatype and reduction, and a discrete-event
// timing model over the machine's links.
//
// Place in DESIGN.md's data flow:
//
//	algos.Build ──> Schedule ──> sim.Verify / sim.Execute  (data plane)
//	                         └─> sim.New(...).Run          (timing) ──> Result
//
// Data plane (Execute, Verify): every rank's buffers hold real values; the
// steps move and combine them as NCCL's kernels do (Arith:
// src/device/reduce_kernel.h semantics, including fp16/bf16/fp8 rounding,
// PreMulSum and the integer average). Verify runs the schedule a second
// time on symbolic values, which records the exact reduction tree of every
// output element, and checks each element against a reference computed
// straight from the inputs: a plain fold for exact operations, the
// schedule's own tree for floating-point sums and products.
//
// Timing (New, Step, Run): integer picosecond time, events ordered by
// (time, sequence) when traced and otherwise run as soon as what they
// wait for has run (the same times), one goroutine, the caller drives
// Step. Links carry
// bandwidth and are shared max-min fairly by the connections of all
// channels; hops carry NCCL's own per-step latencies; FIFOs have NCCL's
// depth, so flow control and pipelining emerge from the schedule. Ranks and
// channels that the schedule makes identical are simulated once (see
// plan.go), uneven rings are solved in runs of ranks (ringruns.go) and
// chains (Ring Broadcast and Reduce) rank by rank (chain.go), which is how
// 100,000 ranks fit in seconds.
//
// Pure: no files, no clocks, no goroutines, no mutable package state.
package sim
