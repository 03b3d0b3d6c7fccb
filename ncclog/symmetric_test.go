package ncclog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// The [Symmetric] line rank 0 prints per symmetric plan, as NCCL's format
// strings write it (no capture of such a line exists yet, so the lines of
// these tests are synthetic, built from the format strings):
//
//	v2.27.3-1 src/enqueue.cc ncclPrepareTasks:
//	  "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d"
//	v2.28.9-1 src/scheduler/symmetric_sched.cc ncclSymmetricTaskScheduler
//	(v2.28.3-1 to v2.30.7-1 likewise):
//	  "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d"
func symLine27(f string, bytes int64, k string, nc, nt int) string {
	return fmt.Sprintf("%s [Symmetric]: %d Bytes -> Kernel %s nchannels %d nthreads %d", f, bytes, k, nc, nt)
}

func symLine28(f string, bytes int64, k string, nc, nt, nw int) string {
	return fmt.Sprintf("%s [Symmetric]: %d Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d", f, bytes, k, nc, nt, nw)
}

// TestParseSymmetricLines: both shapes are read into SymOps with every
// field; lines past the bounds (a byte count past int64, a kernel name of
// more than 64 characters, counts of more than 6 digits, trailing text)
// are not [Symmetric] lines.
func TestParseSymmetricLines(t *testing.T) {
	const pre = "h:1:1 [0] NCCL INFO "
	for _, tc := range []struct {
		msg  string
		want string // "coll bytes kernel nchannels nthreads nworks", or "" for no SymOp
	}{
		{symLine27("AllReduce", 1048576, "AllReduce_AGxLL_R", 8, 512), "AllReduce 1048576 AllReduce_AGxLL_R 8 512 -1"},
		{symLine28("AllGather", 16777216, "AllGather_STMC", 16, 512, 1), "AllGather 16777216 AllGather_STMC 16 512 1"},
		{symLine28("ReduceScatter", 4194304, "ReduceScatter_LDMC", 24, 1024, 4), "ReduceScatter 4194304 ReduceScatter_LDMC 24 1024 4"},
		// a function name NCCL does not have: kept, FuncKnown false
		{symLine28("Gather", 64, "Gather_X", 1, 32, 1), "? 64 Gather_X 1 32 1"},
		{symLine28("AllReduce", 1, "AllReduce_AGxLL_R", 1, 32, 1) + " [repeated 3x across cluster]", "AllReduce 1 AllReduce_AGxLL_R 1 32 1"},
		{"AllReduce [Symmetric]: 99999999999999999999 Bytes -> Kernel K nchannels 1 nthreads 1 nWorks 1", ""},
		{symLine28("AllReduce", 64, strings.Repeat("K", 65), 1, 32, 1), ""},
		{symLine28("AllReduce", 64, "K", 1234567, 32, 1), ""},
		{symLine28("AllReduce", 64, "K", 1, 32, 1) + " and more", ""},
		{"AllReduce [Symmetric]: 64 Bytes -> Kernel  nchannels 1 nthreads 32", ""},
	} {
		l := mustParse(t, pre+tc.msg+"\n")
		got := ""
		if len(l.SymOps) == 1 {
			s := l.SymOps[0]
			f := "?"
			if s.FuncKnown {
				f = s.Func.String()
			}
			got = fmt.Sprintf("%s %d %s %d %d %d", f, s.Bytes, s.Kernel, s.NChannels, s.NThreads, s.NWorks)
			if s.Count != 1 || s.First.Msg == "" {
				t.Errorf("%q: count %d, first %+v", tc.msg, s.Count, s.First)
			}
		} else if len(l.SymOps) > 1 {
			t.Fatalf("%q: %d SymOps", tc.msg, len(l.SymOps))
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// TestSymmetricLinesBounded: distinct [Symmetric] lines past the bound are
// counted, not kept; equal lines are one SymOp with a count.
func TestSymmetricLinesBounded(t *testing.T) {
	var b strings.Builder
	for i := range maxDistinctSymOps + 5 {
		b.WriteString("h:1:1 [0] NCCL INFO " + symLine28("AllReduce", int64(1024*(i+1)), "AllReduce_AGxLL_R", 8, 512, 1) + "\n")
	}
	b.WriteString("h:1:1 [0] NCCL INFO " + symLine28("AllReduce", 1024, "AllReduce_AGxLL_R", 8, 512, 1) + "\n")
	l := mustParse(t, b.String())
	if len(l.SymOps) != maxDistinctSymOps || l.SymOpsDropped != 5 {
		t.Fatalf("kept %d, dropped %d; want %d and 5", len(l.SymOps), l.SymOpsDropped, maxDistinctSymOps)
	}
	if l.SymOps[0].Count != 2 {
		t.Errorf("the repeated line counts %d, want 2", l.SymOps[0].Count)
	}
}

// TestSymDecisions: a [Symmetric] line is one decision per task, on the
// kernel with channels 0..nchannels-1 and no algorithm; a plan of nWorks
// equal tasks is a task of bytes/nWorks.
func TestSymDecisions(t *testing.T) {
	log := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n" +
		"h:1:1 [0] NCCL INFO " + symLine28("AllReduce", 4<<20, "AllReduce_AGxLL_R", 8, 512, 4) + "\n" +
		"h:1:1 [0] NCCL INFO " + symLine28("AllGather", 3000, "AllGather_LL", 2, 512, 7) + "\n"
	o := Observe(mustParse(t, log))
	if len(o.SymDecisions) != 2 || len(o.SymDecisionsAt) != 2 {
		t.Fatalf("sym decisions %+v", o.SymDecisions)
	}
	d := o.SymDecisions[0]
	if d.Op.Func != spec.AllReduce || d.Op.Bytes() != 1<<20 || d.Kernel != "AllReduce_AGxLL_R" || d.NChannels != 8 || d.ChannelLo != 0 || d.ChannelHi != 7 ||
		d.NThreads != 512 || d.Algo != spec.AlgoNone || d.DecidedBy != "G-SEL-SIDE-1" {
		t.Errorf("AllReduce: %+v", d)
	}
	if d.SymChannels != 8 {
		t.Errorf("AllReduce: the line's nchannels is the channels filled: %d", d.SymChannels)
	}
	if d := o.SymDecisions[1]; d.Op.Bytes() != 3000 || !strings.Contains(d.Undecided, "not comparable") {
		t.Errorf("bytes not divisible by nWorks name no task, not comparable: %d %q", d.Op.Bytes(), d.Undecided)
	}
	if len(o.Decisions) != 0 {
		t.Errorf("a [Symmetric] line is no cost-table decision: %+v", o.Decisions)
	}
}

// TestSymOpTaskBytes: a line sums its tasks' bytes; one task's bytes are
// the sum over nWorks when it divides, and none otherwise.
func TestSymOpTaskBytes(t *testing.T) {
	for _, tc := range []struct {
		bytes       int64
		nWorks      int
		want, tasks int
		ok          bool
	}{
		{4096, -1, 4096, 1, true}, // 2.27: one task, not printed
		{4096, 1, 4096, 1, true},
		{12288, 3, 4096, 3, true},
		{12296, 3, 0, 3, false},
		{0, 4, 0, 4, true},
	} {
		s := SymOp{Bytes: tc.bytes, NWorks: tc.nWorks}
		got, ok := s.TaskBytes()
		if got != int64(tc.want) || ok != tc.ok || s.Tasks() != tc.tasks {
			t.Errorf("%d bytes, nWorks %d: %d %v %d tasks, want %d %v %d", tc.bytes, tc.nWorks, got, ok, s.Tasks(), tc.want, tc.ok, tc.tasks)
		}
	}
}
