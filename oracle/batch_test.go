package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gatesim/gatesim/internal/benchcpu"
	"github.com/gatesim/gatesim/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// variedBatch is a fixed, varied batch of n requests: DGX H100 of 1–128
// nodes (uniform, so most sizes are not powers of two) with and without
// SHARP, the other presets, three releases, every collective, sizes from
// 0 B to 4 GiB, a few NCCL_* settings and a few malformed requests. A
// linear congruential generator keeps it the same on every run; seed
// varies it. newSizes gives DGX H100 request i the node count 1 + i%128,
// so the first 128 of them each name a machine size no earlier one did.
func variedBatch(n int, seed uint64, newSizes bool) [][]byte {
	x := seed
	next := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int((x >> 33) % uint64(m))
	}
	releases := []string{`"2.22.3"`, `"2.28.9"`, `"2.28.3"`, `22809`}
	// point-to-point operations are rare: the oracle declines them
	colls := []string{"allreduce", "allreduce", "allreduce", "allgather", "allgather", "reducescatter", "reducescatter",
		"broadcast", "reduce", "allreduce", "allgather", "reducescatter", "broadcast", "reduce", "sendrecv"}
	dtypes := []string{"", "float16", "bfloat16", "int8", "float64"}
	envs := []string{"", "", "", `"env":{"NCCL_ALGO":"Ring"},`, `"env":{"NCCL_PROTO":"LL128"},`,
		`"env":{"NCCL_COLLNET_ENABLE":"1"},`, `"env":{"NCCL_NVLS_ENABLE":"0"},`, `"env":{"NCCL_ALGO":"NVLS"},`,
		`"env":{"NCCL_MIN_NCHANNELS":"4","NCCL_MAX_NCHANNELS":"8"},`}
	others := []string{"v100x4", "h200x2", "dgx-a100", "hgx-h200", "gb200-nvl72"}
	out := make([][]byte, 0, n)
	for i := range n {
		var sys string
		switch r := next(10); {
		case r < 7:
			nodes := 1 + next(128)
			if newSizes {
				nodes = 1 + i%128
			}
			sys = fmt.Sprintf(`"system":"dgx-h100","nodes":%d,"sharp":%v,`, nodes, next(2) == 0)
		case r < 9:
			p := others[next(len(others))]
			nodes := 1 + next(4)
			if p == "v100x4" || p == "h200x2" {
				nodes = 1
			}
			sys = fmt.Sprintf(`"system":%q,"nodes":%d,`, p, nodes)
		default:
			sys = `"system":{"preset":"dgx-a100","nodes":2},`
		}
		bytes := fmt.Sprint(int64(8) << next(30))
		switch next(16) {
		case 0:
			bytes = fmt.Sprint(8 * next(100000))
		case 1:
			bytes = fmt.Sprint(next(100000)) // often not whole elements
		}
		op := fmt.Sprintf(`"op":{"coll":%q,"bytes":%s`, colls[next(len(colls))], bytes)
		if dt := dtypes[next(len(dtypes))]; dt != "" {
			op += fmt.Sprintf(`,"dtype":%q`, dt)
		}
		op += "}"
		line := fmt.Sprintf(`{"id":%d,"nccl":%s,%s%s%s}`, i, releases[next(len(releases))], sys, envs[next(len(envs))], op)
		if next(50) == 0 { // malformed: the answer names the field
			line = strings.Replace(line, `"op"`, `"opp"`, 1)
		}
		out = append(out, []byte(line))
	}
	return out
}

// answerBatch answers the batch in order, one answer per line.
func answerBatch(o *Oracle, batch [][]byte) string {
	var sb strings.Builder
	for _, l := range batch {
		sb.Write(o.HandleLine(l))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestBatchGolden holds the oracle's answers to a fixed varied batch: the
// answers without their traces, the first requests' answers with traces in
// full, and a SHA-256 of the whole batch's answers with traces (too large
// to commit as text). Caching and workers must leave every byte as it was.
func TestBatchGolden(t *testing.T) {
	batch := variedBatch(500, 1, false)
	plain := New(nil)
	plain.Trace = false
	full := answerBatch(New(nil), batch)
	sum := sha256.Sum256([]byte(full))
	var got strings.Builder
	fmt.Fprintf(&got, "# gatesim oracle answers to variedBatch(500, seed 1) (oracle/batch_test.go)\n")
	fmt.Fprintf(&got, "# sha256 of all 500 answers with traces: %x\n", sum)
	got.WriteString(answerBatch(plain, batch))
	lines := strings.SplitAfter(full, "\n")
	for _, l := range lines[:12] {
		got.WriteString(l)
	}
	goldenfile.Check(t, "testdata/batch.golden", got.String(), *update)
}

// TestCachedEqualsCold answers a varied batch (with traces) on one
// oracle, whose communicator and topology caches and encoded init traces
// serve most requests, and every request again on a fresh oracle: each
// answer must be the same bytes. New machine sizes are part of the batch
// (most DGX H100 sizes appear once), so an answer built from cached nodes
// of other sizes is compared too.
func TestCachedEqualsCold(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	batch := append(variedBatch(n/2, 3, false), variedBatch(n/2, 5, true)...)
	o := New(nil)
	o.Workers = 2
	for i, l := range batch {
		cached := o.HandleLine(l)
		cold := New(nil).HandleLine(l)
		if string(cached) != string(cold) {
			t.Fatalf("request %d (%s): the cached answer differs from the cold one:\ncached %s\ncold   %s", i, l, cached, cold)
		}
	}
}

// seenBatch is the benchmarks' batch and an oracle that has answered it
// once (built once per test binary: answering it the first time takes
// minutes on a loaded machine).
var seenBatch = sync.OnceValues(func() ([][]byte, *Oracle) {
	batch := variedBatch(10000, 7, false)
	o := New(nil)
	answerBatch(o, batch)
	return batch, o
})

// BenchmarkOracleSeen answers 10,000 varied requests on an oracle that has
// answered them once already (the machines are known: a conformance run's
// steady state), on GOMAXPROCS goroutines as gatesim oracle's workers do.
// One op is one request. req/s-cpu is the rate GOMAXPROCS idle cores would
// reach at the measured CPU time per request (the development machine is
// shared, so its wall-clock rate varies with the load).
func BenchmarkOracleSeen(b *testing.B) {
	batch, o := seenBatch()
	b.ReportAllocs()
	b.ResetTimer()
	var cpu benchcpu.Timer
	cpu.Start()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o.HandleLine(batch[int(next.Add(1))%len(batch)])
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	cpu.Report(b, runtime.GOMAXPROCS(0))
}

// BenchmarkOracleSeenMachines is BenchmarkOracleSeen with operations
// never asked before: request i is the seen batch's request i%10,000 with
// its size replaced by the count 1,000+i, so its communicator is kept but
// its answer is not (the path of a conformance run that sweeps sizes on
// known machines).
func BenchmarkOracleSeenMachines(b *testing.B) {
	batch, o := seenBatch()
	lines := make([][]byte, b.N)
	for i := range lines {
		l := batch[i%len(batch)]
		at := bytes.Index(l, []byte(`"bytes":`))
		if at < 0 {
			lines[i] = l
			continue
		}
		end := at + len(`"bytes":`)
		for end < len(l) && l[end] != ',' && l[end] != '}' {
			end++
		}
		lines[i] = append(append(append([]byte{}, l[:at]...), fmt.Sprintf(`"count":%d`, 1000+i)...), l[end:]...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var cpu benchcpu.Timer
	cpu.Start()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o.HandleLine(lines[int(next.Add(1)-1)%len(lines)])
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	cpu.Report(b, runtime.GOMAXPROCS(0))
}

// BenchmarkOracleNewMachines answers requests that each name a DGX H100
// size (3–130 nodes) the oracle has not seen, on hosts it has: before each
// 128 requests (outside the timer) a fresh oracle answers the same
// requests at 1 and 2 nodes. One op is one request, answered on one
// goroutine; req/s-cpu is the rate of one idle core.
func BenchmarkOracleNewMachines(b *testing.B) {
	one, two, batch := newMachineBatches(b)
	b.ReportAllocs()
	var o *Oracle
	var cpu benchcpu.Timer
	i := 0
	for b.Loop() {
		if i%len(batch) == 0 {
			b.StopTimer()
			cpu.Stop()
			o = New(nil)
			answerBatch(o, one)
			answerBatch(o, two)
			b.StartTimer()
			cpu.Start()
		}
		o.HandleLine(batch[i%len(batch)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	cpu.Report(b, 1)
}

// newMachineBatches are the new-machine benchmarks' requests: 128 varied
// requests on DGX H100 of 3–130 nodes (each size once), and the same
// requests at 1 and 2 nodes, which a fresh oracle answers first (outside
// the timer) so that its hosts are known.
func newMachineBatches(b *testing.B) (one, two, batch [][]byte) {
	base := variedBatch(128, 11, true)
	at := func(nodes func(i int) int) [][]byte {
		out := make([][]byte, len(base))
		for i, l := range base {
			r := map[string]any{}
			if err := json.Unmarshal(l, &r); err != nil {
				b.Fatal(err)
			}
			r["system"], r["nodes"] = "dgx-h100", nodes(i)
			out[i], _ = json.Marshal(r)
		}
		return out
	}
	return at(func(int) int { return 1 }), at(func(int) int { return 2 }), at(func(i int) int { return 3 + i })
}

// BenchmarkOracleNewMachinesWorkers is BenchmarkOracleNewMachines answered
// as gatesim oracle answers a stream: on GOMAXPROCS workers (its --workers
// default), each taking the next request. One op is one request;
// req/s-cpu is the rate GOMAXPROCS idle cores would reach at the measured
// CPU time per request.
func BenchmarkOracleNewMachinesWorkers(b *testing.B) {
	one, two, batch := newMachineBatches(b)
	workers := runtime.GOMAXPROCS(0)
	b.ReportAllocs()
	b.ResetTimer()
	var cpu benchcpu.Timer
	for done := 0; done < b.N; {
		n := min(len(batch), b.N-done)
		b.StopTimer()
		cpu.Stop()
		o := New(nil)
		answerBatch(o, one)
		answerBatch(o, two)
		b.StartTimer()
		cpu.Start()
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
					o.HandleLine(batch[i])
				}
			})
		}
		wg.Wait()
		done += n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	cpu.Report(b, workers)
}
