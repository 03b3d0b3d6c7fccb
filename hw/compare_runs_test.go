package hw

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

var compareColls = []struct {
	prog string
	f    spec.Func
}{{"all_reduce", spec.AllReduce}, {"all_gather", spec.AllGather}, {"reduce_scatter", spec.ReduceScatter}, {"broadcast", spec.Broadcast}, {"reduce", spec.Reduce}}

func readNT(t *testing.T, paths ...string) *conformance.NTTable {
	t.Helper()
	all := &conformance.NTTable{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := conformance.ParseNCCLTests(f, p)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		all.Program = tab.Program
		all.Rows = append(all.Rows, tab.Rows...)
	}
	return all
}

func readRuns(t *testing.T, paths ...string) []*conformance.RunResult {
	t.Helper()
	var out []*conformance.RunResult
	for _, p := range paths {
		r, err := ReadRunResult(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

type tally struct{ ok, n int }

func (t *tally) add(rows []conformance.CompareRow, large bool) {
	for _, r := range rows {
		if r.Size == 0 || (large && !r.Large) || (!large && !r.Small) {
			continue
		}
		t.n++
		if r.MeetOK {
			t.ok++
		}
	}
}

// The figures docs/hw.md quotes, recomputed from the raw outputs.
func TestComparisonRunsFigures(t *testing.T) {
	dir := filepath.Join("testdata", "compare")
	var large2, small2, smallBest3, smallMedian3, graph3, agLarge3, graph4 tally
	for _, lib := range []string{"2.28.9", "2.28.3"} {
		for _, c := range compareColls {
			nt := readNT(t, filepath.Join(dir, "run2", "nt-"+c.prog+"-"+lib+".txt"))
			gs := readRuns(t, filepath.Join(dir, "run2", "gs-"+c.prog+"-"+lib+".json"))
			large2.add(conformance.Compare(c.f, gs[0], nt), true)
			small2.add(conformance.Compare(c.f, gs[0], nt), false)

			ev := readNT(t, filepath.Join(dir, "run3", "nt-ev-"+c.prog+"-"+lib+"-1.txt"), filepath.Join(dir, "run3", "nt-ev-"+c.prog+"-"+lib+"-2.txt"))
			runs := readRuns(t, filepath.Join(dir, "run3", "gs-ev-"+c.prog+"-"+lib+"-1.json"), filepath.Join(dir, "run3", "gs-ev-"+c.prog+"-"+lib+"-2.json"))
			smallBest3.add(conformance.CompareBest(c.f, runs, ev), false)
			smallMedian3.add(conformance.Compare(c.f, conformance.MergeResults(runs), ev), false)

			g := readNT(t, filepath.Join(dir, "run3", "nt-g-"+c.prog+"-"+lib+".txt"))
			graph3.add(conformance.Compare(c.f, readRuns(t, filepath.Join(dir, "run3", "gs-g-"+c.prog+"-"+lib+".json"))[0], g), false)

			g4 := readNT(t, filepath.Join(dir, "run4", "nt-g-"+c.prog+"-"+lib+".txt"))
			graph4.add(conformance.Compare(c.f, readRuns(t, filepath.Join(dir, "run4", "gs-g-"+c.prog+"-"+lib+".json"))[0], g4), false)
		}
		ag := readNT(t, filepath.Join(dir, "run3", "nt-ag-large-"+lib+".txt"))
		agLarge3.add(conformance.Compare(spec.AllGather, readRuns(t, filepath.Join(dir, "run3", "gs-ag-large-"+lib+".json"))[0], ag), true)
	}
	for _, c := range []struct {
		name      string
		got       tally
		ok, total int
	}{
		{"run 2, busbw >= 99% at >= 64 MiB", large2, 65, 70},
		{"run 2, median within 1 us at <= 4 KiB", small2, 26, 92},
		{"run 3 pinned, best within 1 us", smallBest3, 76, 92},
		{"run 3 pinned, median within 1 us", smallMedian3, 46, 92},
		{"run 3 CUDA graphs, within 1 us", graph3, 0, 92},
		{"run 3 AllGather >= 64 MiB", agLarge3, 11, 14},
		{"run 4 CUDA graphs (graph launched once untimed), within 1 us", graph4, 86, 92},
	} {
		t.Logf("%s: %d of %d", c.name, c.got.ok, c.got.n)
		if c.got.ok != c.ok || c.got.n != c.total {
			t.Errorf("%s: %d of %d, docs/hw.md says %d of %d", c.name, c.got.ok, c.got.n, c.ok, c.total)
		}
	}
}
