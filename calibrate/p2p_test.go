package calibrate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// nccl-tests' sendrecv_perf and alltoall_perf rows load as NCCL's p2p
// path and simulate like every other row: the per-peer schedule
// (algos/p2p.go) on the p2p channels, at a bandwidth the machine's links
// allow.
func TestP2PRowsSimulate(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		prog  string
		f     spec.Func
		redop string
		// per-rank bytes (nccl-tests' size) → count column
		perCount func(size int64) int64
	}{
		{"sendrecv_perf", spec.SendRecv, "sum", func(s int64) int64 { return s / 4 }},
		// alltoall: nccl-tests prints the count per peer
		{"alltoall_perf", spec.AllToAll, "none", func(s int64) int64 { return s / 4 / 2 }},
	}
	for _, c := range cases {
		var b strings.Builder
		b.WriteString("# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22809\n# Collective test starting: " + c.prog + "\n")
		b.WriteString("# nThread 1 nGpus 2 minBytes 8 maxBytes 4096 step: 2(factor) warmup iters: 10 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n")
		sizes := []int64{1024, 1 << 20, 64 << 20, 1 << 30}
		for _, s := range sizes {
			// 100 us: algbw is size / time, as nccl-tests prints it
			bw := float64(s) / 100e3
			fmt.Fprintf(&b, "%12d %12d     float %7s      -1    100.0  %6.2f  %6.2f       0    100.0  %6.2f  %6.2f       0\n", s, c.perCount(s), c.redop, bw, bw, bw, bw)
		}
		p := write(t, dir, "nt-"+c.prog+".txt", b.String())
		rows, err := Load([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(sizes) {
			t.Fatalf("%s: %d rows", c.prog, len(rows))
		}
		cs, err := Prepare(rows, "h200x2")
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range cs {
			if k.Func != c.f || !k.Simulable() {
				t.Fatalf("%s %d bytes: %v, not simulable: %s", c.prog, k.Bytes, k.Func, k.Why)
			}
			if !strings.HasPrefix(k.Cell(), "p2p/") {
				t.Errorf("%s %d bytes: cell %q", c.prog, k.Bytes, k.Cell())
			}
			us, err := k.Simulate(nil)
			if err != nil {
				t.Fatal(err)
			}
			// per direction at most NCCL's NVLink figure of the pair (18 ×
			// 20.6 GB/s on sm90), and at 1 GiB well above a tenth of it
			moved := float64(k.Bytes)
			if c.f == spec.AllToAll {
				moved /= 2 // half of each rank's buffer crosses to the peer
			}
			bw := moved / us / 1e3
			if bw > 371 || (i == len(cs)-1 && bw < 37) {
				t.Errorf("%s %d bytes: %.1f µs, %.1f GB/s per direction", c.prog, k.Bytes, us, bw)
			}
		}
	}
}
