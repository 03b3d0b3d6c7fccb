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
	return RunTuned(points, workers, sim, nil, progress)
}

// RunTuned is Run with a tuner plugin loaded into every communicator
// (host nil: none); the plugins are finalized before it returns.
func RunTuned(points []Point, workers int, sim Simulator, host TunerHost, progress func(done int)) []Result {
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
			e := &Evaluator{Sim: sim, Topo: topoCache, Tuner: host}
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
