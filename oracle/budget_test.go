package oracle

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/gatesim/gatesim/spec"
)

// A request past the time budget is answered invalid naming its line and
// the budget, and the lines after it are answered as usual.
func TestTimeBudget(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	o := New(func(string) ([]byte, error) {
		<-release // a request that never ends within the budget
		return nil, fmt.Errorf("released")
	})
	o.Timeout = 2 * time.Second
	o.Workers = 1
	in := `{"id":1,"nccl":"2.28.9","system":"slow.json","op":{"coll":"allreduce","bytes":4}}` + "\n" + fmt.Sprintf(goodReq, 2) + "\n"
	ms := answers(t, o, in, 0)
	if len(ms) != 2 {
		t.Fatalf("%d answers, want 2: %v", len(ms), ms)
	}
	msg := fmt.Sprint(ms[0]["invalid"])
	if ms[0]["status"] != "invalid" || ms[0]["id"] != float64(1) || !strings.Contains(msg, "line 1:") ||
		!strings.Contains(msg, "2s") || !strings.Contains(msg, "--timeout") {
		t.Errorf("slow request answered %v", ms[0])
	}
	if ms[1]["status"] != "ok" || ms[1]["id"] != float64(2) {
		t.Errorf("the line after it answered %v", ms[1])
	}
}

// Requests whose memory estimate is over the budget are refused before any
// work, naming the line, the estimate and the budget; smaller ones on the
// same oracle are answered.
func TestMemoryBudget(t *testing.T) {
	group := func(n int) string {
		return strings.TrimSuffix(strings.Repeat(`{"coll":"allreduce","bytes":"1MiB"},`, n), ",")
	}
	o := New(nil)
	o.MaxMemory = 32 << 20
	o.MaxRanks = 1 << 17
	in := strings.Join([]string{
		fmt.Sprintf(goodReq, 1),
		`{"id":2,"nccl":"2.28.9","system":"dgx-h100","nodes":4096,"op":{"coll":"allreduce","bytes":4}}`,
		`{"id":3,"nccl":"2.28.9","system":"v100x4","group":[` + group(512) + `]}`,
		`{"id":4,"nccl":"2.28.9","system":"v100x4","group":[` + group(64) + `]}`,
	}, "\n")
	ms := answers(t, o, in, 0)
	if len(ms) != 4 {
		t.Fatalf("%d answers, want 4", len(ms))
	}
	for i, want := range []struct{ line, field, what string }{{"line 2:", "system", "32768 ranks"}, {"line 3:", "group", "512 operations"}} {
		m := ms[i+1]
		inv, _ := m["invalid"].(map[string]any)
		msg := fmt.Sprint(inv["message"])
		if m["status"] != "invalid" || inv["field"] != want.field || !strings.Contains(msg, want.line) ||
			!strings.Contains(msg, want.what) || !strings.Contains(msg, "at most 32 MiB") || !strings.Contains(msg, "--max-memory") {
			t.Errorf("request %d answered %v", i+2, m)
		}
	}
	if ms[0]["status"] != "ok" || ms[3]["status"] != "ok" {
		t.Errorf("requests within the budget answered %v, %v", ms[0], ms[3])
	}
	// The ranks budget names the line too.
	o.MaxRanks = 64
	ms = answers(t, o, "\n"+`{"nccl":"2.28.9","system":"dgx-h100","nodes":9,"op":{"coll":"allreduce","bytes":4}}`, 0)
	if len(ms) != 1 || !strings.Contains(fmt.Sprint(ms[0]["invalid"]), "line 2: 72 ranks") {
		t.Errorf("over the ranks budget: %v", ms)
	}
}

// heapObjects is the heap's bytes in objects (live or not yet swept).
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// The memory estimate bounds what a request adds to the heap at its peak,
// on the shapes that drive it: many ranks, a group of many operations.
func TestMemoryEstimateBoundsUse(t *testing.T) {
	if testing.Short() {
		t.Skip("measures requests of seconds")
	}
	cases := []struct {
		line       string
		ranks, ops int
	}{
		{`{"nccl":"2.28.9","system":"dgx-h100","nodes":2048,"op":{"coll":"allreduce","bytes":"1GiB"}}`, 16384, 1},
		{`{"nccl":"2.28.9","system":"dgx-a100","nodes":2,"sharp":true,"env":{"NCCL_COLLNET_ENABLE":"1"},"group":[` +
			strings.TrimSuffix(strings.Repeat(`{"coll":"allreduce","bytes":"1MiB"},`, 512), ",") + `]}`, 16, 512},
	}
	for _, c := range cases {
		o := New(nil)
		o.MaxRanks = 1 << 17
		runtime.GC()
		base := heapObjects()
		peak := base
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					peak = max(peak, heapObjects())
				}
			}
		}()
		out := o.HandleLine([]byte(c.line))
		close(stop)
		<-done
		peak = max(peak, heapObjects())
		if !strings.Contains(string(out), `"status":"ok"`) {
			t.Fatalf("%.80s: %.300s", c.line, out)
		}
		used, est := int64(peak-base), requestMemory(c.ranks, c.ops)
		t.Logf("%d ranks, %d operations: %d MiB at the peak, estimate %d MiB", c.ranks, c.ops, used>>20, est>>20)
		if used > est {
			t.Errorf("%d ranks, %d operations: %d MiB at the peak, over the estimate of %d MiB", c.ranks, c.ops, used>>20, est>>20)
		}
	}
}

// The default memory budget admits every request the other defaults allow:
// it is there for operators who lower it, not to refuse ordinary requests.
func TestDefaultMemoryBudgetAdmitsTheDefaults(t *testing.T) {
	if est := requestMemory(DefaultMaxRanks, spec.MaxGroupOps); est > DefaultMaxMemory {
		t.Fatalf("%d ranks and %d operations: estimate %d MiB, over the default budget of %d MiB",
			DefaultMaxRanks, spec.MaxGroupOps, est>>20, DefaultMaxMemory>>20)
	}
}
