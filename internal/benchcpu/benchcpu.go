// Package benchcpu reports a benchmark's process CPU time per operation
// next to its wall-clock time. The development machine is shared: under
// load, wall-clock ns/op measures the other processes as much as the code,
// while CPU time (user + system, all threads, the garbage collector
// included) measures the work done.
package benchcpu

import "testing"

// Timer adds up the process's CPU time between Start and Stop, as
// b.StartTimer and b.StopTimer do for wall-clock time.
type Timer struct {
	start, total int64
	running      bool
}

// Start starts counting (after b.ResetTimer, or with b.StartTimer).
func (t *Timer) Start() {
	if !t.running {
		t.start, t.running = cpuNanos(), true
	}
}

// Stop stops counting (with b.StopTimer).
func (t *Timer) Stop() {
	if t.running {
		t.total += cpuNanos() - t.start
		t.running = false
	}
}

// Report stops the timer and adds "cpu-ns/op" (the CPU time counted,
// divided by b.N) and, with cores > 0, "req/s-cpu": how many operations
// per second that many idle cores would complete at that CPU cost.
func (t *Timer) Report(b *testing.B, cores int) {
	t.Stop()
	if t.total <= 0 || b.N == 0 {
		return // no CPU clock on this platform
	}
	ns := float64(t.total) / float64(b.N)
	b.ReportMetric(ns, "cpu-ns/op")
	if cores > 0 {
		b.ReportMetric(float64(cores)*1e9/ns, "req/s-cpu")
	}
}
