package whatif

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gatesim/gatesim/spec"
)

const chunk = 64

// Run evaluates points on workers goroutines (each with its own
// Evaluator) and returns the results in the points' order, so the output
// does not depend on scheduling. progress, when set, is called with the
// number of points done (from any goroutine).
func Run(points []Point, workers int, sim Simulator, progress func(done int)) []Result {
	return RunWith(points, workers, RunOptions{Sim: sim}, progress)
}

// RunTuned is Run with a tuner plugin loaded into every communicator
// (host nil: none); the plugins are finalized before it returns.
func RunTuned(points []Point, workers int, sim Simulator, host TunerHost, progress func(done int)) []Result {
	return RunWith(points, workers, RunOptions{Sim: sim, Tuner: host}, progress)
}

// RunOptions are what every point of a run shares: the simulator (nil:
// none), a tuner plugin (nil: none) and how each point's operation is
// issued (the zero Issue: alone on a stream).
type RunOptions struct {
	Sim   Simulator
	Tuner TunerHost
	Issue spec.Issue
}

// RunWith is Run with options.
func RunWith(points []Point, workers int, o RunOptions, progress func(done int)) []Result {
	if workers < 1 {
		workers = 1
	}
	out := make([]Result, len(points))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	topoCache := spec.NewCache(0) // workers share the topology searches
	// A panic in a worker is re-raised on the caller's goroutine, where the
	// CLI's recover reports it, naming the point.
	var crash atomic.Pointer[string]
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := -1
			defer func() {
				if r := recover(); r != nil {
					msg := fmt.Sprintf("%v (at point %d: %+v)", r, cur, points[cur])
					crash.CompareAndSwap(nil, &msg)
				}
			}()
			e := &Evaluator{Sim: o.Sim, Topo: topoCache, Tuner: o.Tuner, Issue: o.Issue}
			defer e.Close()
			for {
				// chunks keep neighbouring points (same communicator) together
				lo := int(next.Add(chunk) - chunk)
				if lo >= len(points) {
					return
				}
				hi := min(lo+chunk, len(points))
				for i := lo; i < hi; i++ {
					cur = i
					out[i] = e.Evaluate(points[i])
				}
				if n := done.Add(int64(hi - lo)); progress != nil {
					progress(int(n))
				}
			}
		}()
	}
	wg.Wait()
	if msg := crash.Load(); msg != nil {
		panic(*msg)
	}
	return out
}
