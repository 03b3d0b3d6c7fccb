package hw

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// rowSimulator simulates the rows measured on one machine under one
// environment: the communicator spec builds from the capture's topology,
// its layout and NCCL's nodes mapped onto the machine (sim.MachineForComm).
type rowSimulator struct {
	comm *spec.Comm
	l    *algos.Layout
	m    sim.Machine
	err  error // the communicator, layout or machine could not be built
	done map[string]error
}

func newRowSimulator(cache *spec.Cache, rel spec.Version, topoPath string, topoXML []byte, env spec.Env) *rowSimulator {
	x := &rowSimulator{done: map[string]error{}}
	rs, err := spec.Load(rel)
	if err != nil {
		x.err = err
		return x
	}
	sys, err := spec.SystemFromTopology(topoPath, topoXML, 1)
	if err != nil {
		x.err = err
		return x
	}
	if x.comm, err = cache.Init(rs, sys, env); err != nil {
		x.err = err
		return x
	}
	if x.comm.Err != nil {
		x.err = fmt.Errorf("NCCL refuses the communicator: %s", x.comm.Err.Message)
		return x
	}
	if x.l, err = algos.LayoutFromComm(x.comm); err != nil {
		x.err = err
		return x
	}
	x.m, x.err = sim.MachineForComm(sys, x.comm)
	return x
}

// rowOutcome is what became of one nccl-tests row.
type rowOutcome int

const (
	rowSimulated rowOutcome = iota // NCCL's choice simulated, time > 0
	rowError                       // NCCL returned an error, and spec predicts one
	rowDiscarded                   // count 0: NCCL discards the call, nothing runs
	rowFailed                      // the row could not be simulated
)

// simulate runs one row: NCCL's decision for it, the schedule, the timing
// (in and out of place when the table has both columns).
func (x *rowSimulator) simulate(f spec.Func, count uint64, dt spec.DataType, redop string, root int, ncclErr, inPlace bool) (rowOutcome, error) {
	if x.err != nil {
		return rowFailed, x.err
	}
	op := spec.Op{Func: f, Count: int64(count), DataType: dt, Root: max(0, root)}
	if redop != "none" && redop != "" {
		r, err := spec.ParseRedOp(redop)
		if err != nil {
			return rowFailed, err
		}
		op.RedOp = r
	}
	d, _, err := x.comm.Select(op)
	if err != nil {
		return rowFailed, err
	}
	switch {
	case ncclErr && d.Err != nil:
		return rowError, nil
	case ncclErr:
		return rowFailed, fmt.Errorf("NCCL returned an error, spec predicts %s", d.Algo)
	case d.Err != nil:
		return rowFailed, fmt.Errorf("NCCL ran it, spec predicts %s", d.Err.Result)
	case d.Discarded:
		return rowDiscarded, nil
	}
	key := fmt.Sprintf("%v %d %v %v %d %v", f, count, dt, op.RedOp, op.Root, inPlace)
	if err, ok := x.done[key]; ok {
		return rowSimulated, err
	}
	err = func() error {
		o, sel, err := algos.FromDecision(d)
		if err != nil {
			return err
		}
		for _, ip := range []bool{false, true}[:map[bool]int{false: 1, true: 2}[inPlace]] {
			s, err := algos.Build(o, sel, x.l, algos.Options{InPlace: ip && !f.IsP2P()})
			if err != nil {
				return err
			}
			res, err := sim.Simulate(s, sim.Config{Machine: x.m})
			if err != nil {
				return err
			}
			if res.TimeUs <= 0 {
				return fmt.Errorf("simulated time %g µs", res.TimeUs)
			}
		}
		return nil
	}()
	x.done[key] = err
	if err != nil {
		return rowFailed, err
	}
	return rowSimulated, nil
}

// rowTally counts outcomes and keeps the first failures.
type rowTally struct {
	n        [4]int
	failures []string
}

func (t *rowTally) add(o rowOutcome, err error, where string) {
	t.n[o]++
	if o == rowFailed && len(t.failures) < 20 {
		t.failures = append(t.failures, fmt.Sprintf("%s: %v", where, err))
	}
}

func (t *rowTally) rows() int { return t.n[0] + t.n[1] + t.n[2] + t.n[3] }

var (
	releaseInName = regexp.MustCompile(`(\d+\.\d+\.\d+)`)
	// longest first: "reduce" is inside "all_reduce" and "reduce_scatter"
	progInName = []struct {
		prog string
		f    spec.Func
	}{{"reduce_scatter", spec.ReduceScatter}, {"all_reduce", spec.AllReduce}, {"all_gather", spec.AllGather}, {"ag-large", spec.AllGather},
		{"broadcast", spec.Broadcast}, {"sendrecv", spec.SendRecv}, {"alltoall", spec.AllToAll}, {"reduce", spec.Reduce}}
)

// TestEveryCapturedRowSimulates: every nccl-tests row the repository holds
// (the captures of golden/testdata/captured, 20 configurations × 2
// releases, and the comparison runs of hw/testdata/compare, both nccl-tests'
// tables and gatesim's) is simulated on the machine it was measured on
// under its environment: NCCL's decision for the row, its schedule, its
// time. Rows where NCCL returned an error must be predicted as errors, and
// count-0 rows are discarded by NCCL (nothing runs). The NET configuration
// (P2P and SHM off: NCCL's two NET nodes on one host) simulates on
// sim.MachineForComm's split of the host. Missing data fails the test.
func TestEveryCapturedRowSimulates(t *testing.T) {
	cache := spec.NewCache(0)
	var caps, cmp rowTally
	baseline := map[spec.Version]*conformance.Capture{}
	for _, v := range []spec.Version{spec.V2_28_9, spec.V2_28_3} {
		set := committedCaptures(t, v)
		for _, c := range set {
			if c.Config.Name == "baseline" {
				baseline[v] = c
			}
			x := newRowSimulator(cache, v, filepath.Join(c.Dir, conformance.CaptureTopo), c.Topo, conformance.NCCLEnv(c.Result.Env))
			for _, row := range c.Result.Rows {
				o, err := x.simulate(row.Func, row.Count, row.Type, row.RedOp, row.Root, row.Err != nil, false)
				caps.add(o, err, fmt.Sprintf("%s/%s %s %d B", v, c.Config.Name, row.Func, row.Size))
			}
		}
	}
	dir := filepath.Join("testdata", "compare")
	runs, err := filepath.Glob(filepath.Join(dir, "run*", "*"))
	if err != nil || len(runs) == 0 {
		t.Fatalf("no comparison runs under %s (%v)", dir, err)
	}
	sort.Strings(runs)
	for _, p := range runs {
		name := filepath.Base(p)
		if !strings.HasPrefix(name, "nt-") && !strings.HasPrefix(name, "gs-") {
			continue
		}
		m := releaseInName.FindString(name)
		v, err := spec.ParseVersion(m)
		if err != nil {
			t.Fatalf("%s: no release in the name", p)
		}
		b := baseline[v]
		if b == nil {
			t.Fatalf("%s: no baseline capture of NCCL %s for its machine", p, v)
		}
		if strings.HasPrefix(name, "gs-") {
			r, err := ReadRunResult(p)
			if err != nil {
				t.Fatal(err)
			}
			x := newRowSimulator(cache, v, filepath.Join(b.Dir, conformance.CaptureTopo), b.Topo, conformance.NCCLEnv(r.Env))
			for _, row := range r.Rows {
				o, err := x.simulate(row.Func, row.Count, row.Type, row.RedOp, row.Root, row.Err != nil, false)
				cmp.add(o, err, fmt.Sprintf("%s %s %d B", p, row.Func, row.Size))
			}
			continue
		}
		f := spec.Func(-1)
		for _, c := range progInName {
			if strings.Contains(name, c.prog) {
				f = c.f
				break
			}
		}
		if f < 0 {
			t.Fatalf("%s: no nccl-tests program in the name", p)
		}
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := conformance.ParseNCCLTests(fh, p)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		// nccl-tests ran with gatesim's safety environment (commands.txt)
		x := newRowSimulator(cache, v, filepath.Join(b.Dir, conformance.CaptureTopo), b.Topo, spec.Env{"NCCL_NVLS_ENABLE": "0"})
		for _, row := range tab.Rows {
			dt, err := spec.ParseDataType(row.Type)
			if err != nil {
				t.Fatalf("%s line %d: %v", p, row.Line, err)
			}
			o, err := x.simulate(f, row.Count, dt, row.RedOp, row.Root, false, row.InPlace != nil)
			cmp.add(o, err, fmt.Sprintf("%s line %d", p, row.Line))
		}
	}
	for _, c := range []struct {
		name string
		t    *rowTally
		want int
	}{{"golden/testdata/captured", &caps, 2 * len(StandardMatrix) * 5 * 16}, {"hw/testdata/compare", &cmp, 0}} {
		t.Logf("%s: %d rows: %d simulated, %d NCCL errors predicted, %d discarded (count 0), %d not simulated",
			c.name, c.t.rows(), c.t.n[rowSimulated], c.t.n[rowError], c.t.n[rowDiscarded], c.t.n[rowFailed])
		if c.want > 0 && c.t.rows() != c.want || c.t.rows() == 0 {
			t.Errorf("%s: %d rows, want %d", c.name, c.t.rows(), c.want)
		}
		if c.t.n[rowFailed] > 0 {
			t.Errorf("%s: %d rows do not simulate:\n%s", c.name, c.t.n[rowFailed], strings.Join(c.t.failures, "\n"))
		}
	}
}
