package diagnose

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// opLog is a 2.28.9 log of 2 × H200 whose operation lines are fn's, in
// order: (bytes, lo, hi) of AllReduce RING.
func opLog(lines [][3]int) string {
	var b strings.Builder
	b.WriteString("vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n")
	b.WriteString("vm:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "vm:1:1 [0] NCCL INFO AllReduce: %d Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={%d..%d}\n", l[0], l[1], l[2])
	}
	return b.String()
}

// TestInferGroup: lines of one (collective, size) whose channel ranges
// tile the channels in order reveal a group; lone operations, whose
// ranges all start at channel 0, do not; runs of different lengths name
// no one size.
func TestInferGroup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		log   string
		ops   int // 0: no size
		keys  int
		sizes []int // nil: no guess at all
	}{
		{"-m 8 at 2.28.9, boundaries shared and not", groupLog(), 8, 2, []int{8}},
		{"lone operations start at 0", opLog([][3]int{{1 << 20, 0, 23}, {1 << 20, 0, 11}, {2 << 20, 0, 23}, {4 << 20, 0, 23}}), 0, 0, nil},
		{"one line per size", opLog([][3]int{{1 << 20, 0, 23}, {2 << 20, 0, 23}}), 0, 0, nil},
		{"a run not from channel 0", opLog([][3]int{{1 << 20, 2, 3}, {1 << 20, 4, 5}}), 0, 0, nil},
		{"a gap between ranges", opLog([][3]int{{1 << 20, 0, 1}, {1 << 20, 4, 5}}), 0, 0, nil},
		{"lone and grouped mixed", opLog([][3]int{{1 << 20, 0, 11}, {1 << 20, 12, 23}, {2 << 20, 0, 23}, {2 << 20, 0, 11}}), 0, 0, nil},
		{"runs of 4 and 8", opLog([][3]int{
			{1 << 10, 0, 0}, {1 << 10, 1, 1}, {1 << 10, 2, 2}, {1 << 10, 3, 3},
			{1 << 20, 0, 2}, {1 << 20, 3, 5}, {1 << 20, 6, 8}, {1 << 20, 9, 11}, {1 << 20, 12, 14}, {1 << 20, 15, 17}, {1 << 20, 18, 20}, {1 << 20, 21, 23}}), 0, 2, []int{4, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, sys := parseOnH200x2(t, tc.log)
			g := InferGroup(l)
			if tc.sizes == nil {
				if g != nil {
					t.Fatalf("a group guessed: %+v", g)
				}
			} else if g == nil || g.Ops != tc.ops || g.Keys != tc.keys || fmt.Sprint(g.Sizes) != fmt.Sprint(tc.sizes) {
				t.Fatalf("guess %+v, want %d ops over %d pairs, sizes %v", g, tc.ops, tc.keys, tc.sizes)
			}
			rep := Diagnose(l, Options{})
			found := false
			for _, f := range rep.Findings {
				if f.ID == "ops.group" {
					found = true
					if tc.ops > 0 && !strings.Contains(f.Title, fmt.Sprintf("one group of %d operations (nccl-tests -m %d)", tc.ops, tc.ops)) {
						t.Errorf("finding %q", f.Title)
					}
				}
			}
			if found != (tc.sizes != nil) {
				t.Errorf("ops.group finding %v, want %v", found, tc.sizes != nil)
			}
			p, err := PredictLaunch(l, 0, sys, spec.Env{"NCCL_NVLS_ENABLE": "0"}, nil, spec.Launch{})
			if err != nil {
				t.Fatal(err)
			}
			inferred := strings.Contains(strings.Join(p.Notes, "\n"), "(inferred:")
			if inferred != (tc.ops > 0) {
				t.Errorf("prediction notes %q: inferred %v, want %v", p.Notes, inferred, tc.ops > 0)
			}
		})
	}
	// the user reported -m 8 log: every line agrees with the size inferred,
	// as with --agg 8 given; an explicit --agg 1 still predicts them alone
	if agree, differ, ops := agreeOnH200x2(t, groupLog(), 16, spec.Launch{}); agree != 16 || differ != 0 {
		t.Errorf("inferred: %d agree, %d differ: %+v", agree, differ, ops)
	}
	if _, differ, _ := agreeOnH200x2(t, groupLog(), 16, spec.Launch{Agg: 1}); differ == 0 {
		t.Errorf("--agg 1 was overridden by the inference")
	}
}

// TestInferGroupCaptured: every real capture of two ranks on one H200
// (2.30.3, 2.30.4, 2.30.7) that ran -m 8 reveals its group of 8 in 25
// (collective, size) pairs and, diagnosed with no group size, every
// distinct operation line agrees; every capture of lone operations
// reveals no group.
func TestInferGroupCaptured(t *testing.T) {
	grouped, lone := 0, 0
	for _, rel := range []string{"2.30.3", "2.30.4", "2.30.7"} {
		dir := filepath.Join("..", "hw", "testdata", "device", "multirank", rel)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "results.json")); err != nil {
				continue // the dup-on/dup-off init logs: no capture
			}
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "nccl.log")); err != nil {
				continue // procs-r0/r1: a process per rank, a log each
			}
			l, sys, env, launch, lines := readGroupCapture(t, filepath.Join(dir, e.Name()))
			g := InferGroup(l)
			if launch.Agg <= 1 {
				lone++
				if g != nil {
					t.Errorf("%s %s: lone operations guessed as a group of %d", rel, e.Name(), g.Ops)
				}
				continue
			}
			if len(l.Ops) == 0 {
				// window-m8: [Symmetric] lines only, which name their
				// group themselves (nWorks)
				if g != nil {
					t.Errorf("%s %s: a group guessed from no operation line", rel, e.Name())
				}
				continue
			}
			grouped++
			if g == nil || g.Ops != launch.Agg || g.Keys != 25 {
				t.Fatalf("%s %s: guess %+v, want %d ops over 25 pairs", rel, e.Name(), g, launch.Agg)
			}
			p, err := PredictLaunch(l, 0, sys, env, nil, spec.Launch{Mode: launch.Mode})
			if err != nil {
				t.Fatal(err)
			}
			agree := 0
			for _, r := range Compare(p, Diagnose(l, Options{}).Obs).Ops {
				if r.Agreement == Agree {
					agree++
				}
			}
			if agree != lines {
				t.Errorf("%s %s inferred: %d of %d lines agree (notes %q)", rel, e.Name(), agree, lines, p.Notes)
			}
		}
	}
	if grouped < 3 || lone < 3 {
		t.Errorf("%d grouped and %d lone captures checked: the committed captures are missing", grouped, lone)
	}
	t.Logf("%d grouped, %d lone captures", grouped, lone)
}
