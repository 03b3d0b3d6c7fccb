package golden

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/spec"
)

// TestP2PSelfInPlaceGolden records, per release, what NCCL does with a
// send to self and the receive it pairs with on one buffer (G-SCHED-P2P-3,
// derived from scheduleP2pTasksToPlan and ncclLaunchPrepare of
// src/enqueue.cc and runSend of src/device/sendrecv.h at each tag): from
// 2.22.3 both are dropped without a work (no channel, nothing of the plan
// budget, and a plan left without work is not launched); before, they stay
// tasks whose copy the kernel skips. On 2 × H200 (NVLS off): a 64 KiB
// AllToAll in place and out of place, a stated send and recv to self in
// place alone, and the in-place AllToAll behind an AllReduce. Regenerate
// with go test ./golden -run TestP2PSelfInPlaceGolden -update and review
// the diff.
func TestP2PSelfInPlaceGolden(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	op := func(f spec.Func) spec.Op {
		o, err := spec.OpFromBytes(f, 64<<10, spec.Float32, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	a2a, ar, sr := op(spec.AllToAll), op(spec.AllReduce), op(spec.SendRecv)
	scenarios := []struct {
		name string
		ops  []spec.GroupOp
	}{
		{"AllToAll in place", []spec.GroupOp{{Op: a2a, InPlace: true}}},
		{"AllToAll out of place", []spec.GroupOp{{Op: a2a}}},
		{"send and recv to self in place", []spec.GroupOp{{Op: sr, InPlace: true, P2P: &spec.P2PCall{Send: true, Peer: 0}}, {Op: sr, InPlace: true, P2P: &spec.P2PCall{Peer: 0}}}},
		{"AllReduce + AllToAll in place", []spec.GroupOp{{Op: ar}, {Op: a2a, InPlace: true}}},
	}
	var b strings.Builder
	b.WriteString("# A send to self and its receive on one buffer (G-SCHED-P2P-3), 64 KiB on 2 × H200 (NCCL_NVLS_ENABLE=0)\n")
	b.WriteString("# scenario: kernel plans; per p2p operation rank 0's tasks; each listed plan's collectives+send/recv works and kernel argument bytes; the rule's verdict\n")
	for _, v := range spec.Releases {
		fmt.Fprintf(&b, "\n## %s\n", v)
		c, err := spec.Init(spec.MustLoad(v), sys, spec.Env{"NCCL_NVLS_ENABLE": "0"})
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range scenarios {
			g, err := c.SelectGroup(sc.ops, spec.Launch{})
			if err != nil || g.Err != nil {
				t.Fatalf("%s %s: %v %v", v, sc.name, err, g.Err)
			}
			fmt.Fprintf(&b, "%s: %d plan(s)", sc.name, g.Plans)
			verdict := "no verdict"
			for i, d := range g.Ops {
				if d.P2P == nil {
					continue
				}
				fmt.Fprintf(&b, "; op %d: %s", i, spec.FormatP2PTasks(d.P2P.Tasks, 0))
				if vd, ok := g.Traces[i].Find("G-SCHED-P2P-3"); ok {
					verdict = fmt.Sprintf("%s %s", vd.Outcome, vd.Why)
				}
			}
			for _, u := range g.Budget {
				fmt.Fprintf(&b, "; plan %d: %d+%d works, %d argument bytes", u.Plan, u.Works, u.P2PWorks, u.ArgsBytes)
			}
			fmt.Fprintf(&b, "; G-SCHED-P2P-3 %s\n", verdict)
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", "p2p_self.txt"), b.String(), *update)
}
