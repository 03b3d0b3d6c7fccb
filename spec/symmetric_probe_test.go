package spec

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// TestSymmetricProbeRegBuff: the ncclGetAlgoInfo that
// ncclMakeSymmetricTaskList makes before it keeps an unforced LL kernel
// (2.29.2+) reads the task's regBuff like any other: buffers registered
// with ncclCommRegister under CTA policy EFFICIENCY make it NVLS/Simple, so
// the piece goes back to the cost table instead of running AllGather_LLMC.
func TestSymmetricProbeRegBuff(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v      Version
		env    Env
		kernel string // "" when the piece goes back
		algo   Algo
	}{
		{V2_29_2, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		{V2_29_7, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		{V2_30_7, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		// without the policy the cost table alone runs it with LL
		{V2_29_2, Env{"NCCL_SYM_NOWIN_ENABLE": "1"}, "AllGather_LLMC", AlgoNone},
	} {
		comm, err := Init(MustLoad(c.v), sys, c.env)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []LaunchMode{LaunchStream, LaunchGraph} {
			d, err := comm.SelectGroup([]GroupOp{{Op: Op{Func: AllGather, Count: 8 << 10, DataType: Float32, RedOp: Sum}, Buffers: BuffersRegistered}}, Launch{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			op, ch := d.Ops[0], d.Choices[0]
			if op.Kernel != c.kernel || op.Algo != c.algo || (c.kernel == "") != strings.Contains(ch.SymFallback, "cost table alone picks NVLS/Simple") {
				t.Errorf("%s %v %v: kernel %q %s/%s, fallback %q: want kernel %q algo %s", c.v, c.env, mode, op.Kernel, op.Algo, op.Proto, ch.SymFallback, c.kernel, c.algo)
			}
		}
	}
}

// TestSymRangeGroup: G-SCHED-SYMRANGE-1 reports each grouped symmetric
// task's pieces, and from 2.28.7 the pieces of a bin's tasks cover each
// task's bytes exactly once, within the blocks its plan launches.
func TestSymRangeGroup(t *testing.T) {
	for _, v := range Releases {
		rs := MustLoad(v)
		if !slices.ContainsFunc(rs.Rules(), func(r *Rule) bool { return r.ID == "G-SCHED-SYMRANGE-1" }) {
			continue
		}
		comm := h200x2Comm(t, v, nil)
		var g []GroupOp
		for _, kib := range []int64{1024, 257, 3072, 5} {
			g = append(g, GroupOp{Op: Op{Func: AllReduce, Count: kib << 8, DataType: Float32, RedOp: Sum}, Buffers: BuffersWindow})
		}
		d, err := comm.SelectGroup(g, Launch{})
		if err != nil || d.Err != nil {
			t.Fatalf("%s: %v %v", v, err, d.Err)
		}
		for i, op := range d.Ops {
			if op.Kernel == "" || len(op.SymParts) == 0 {
				t.Fatalf("%s op %d: kernel %q, parts %v: want a symmetric kernel's pieces", v, i, op.Kernel, op.SymParts)
			}
			found := false
			for _, vd := range d.Traces[i] {
				found = found || (vd.Rule == "G-SCHED-SYMRANGE-1" && vd.Outcome == Info && strings.Contains(vd.Why, "this task's bytes: "))
			}
			if !found {
				t.Errorf("%s op %d: no G-SCHED-SYMRANGE-1 verdict", v, i)
			}
			if !rs.Tuning.SymRangeOwnEnds {
				continue
			}
			parts := slices.Clone(op.SymParts)
			slices.SortFunc(parts, func(a, b tuning.SymPart) int { return int(a.Offset - b.Offset) })
			var at int64
			for _, p := range parts {
				if p.Offset != at || p.Missing != 0 || p.CTAHi >= op.SymChannels {
					t.Errorf("%s op %d: pieces %+v", v, i, op.SymParts)
				}
				at += p.Bytes
			}
			if at != op.Op.Bytes() {
				t.Errorf("%s op %d: pieces cover %d of %d bytes", v, i, at, op.Op.Bytes())
			}
		}
	}
}
