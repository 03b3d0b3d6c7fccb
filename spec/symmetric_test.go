package spec

import (
	"fmt"
	"strings"
	"testing"
)

// The symmetric kernel NCCL picks on window buffers (2 × H200, NVLS off):
// small AllReduces take the one-shot LL kernel, large ones the
// reduce-scatter/all-gather kernel; an AllGather takes the LL or the store
// kernel by size; every kernel's blocks lie within the CTA bounds; a group
// of two in one bin never takes an LL kernel; NCCL_SYM_KERNEL forces one
// kernel (and drops NCCL's estimate), an unknown name leaves none (the
// group fails with ncclInvalidUsage and NCCL's WARN); NCCL_SYM_CTAS fixes
// the blocks.
func TestSymmetricKernelChoice(t *testing.T) {
	pick := func(env Env, ops ...Op) *GroupDecision {
		t.Helper()
		c := h200x2Comm(t, V2_28_9, env)
		var g []GroupOp
		for _, o := range ops {
			g = append(g, GroupOp{Op: o, Buffers: BuffersWindow})
		}
		d, err := c.SelectGroup(g, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ar := func(n int64) Op { return Op{Func: AllReduce, Count: n, DataType: Float32, RedOp: Sum} }
	ag := func(n int64) Op { return Op{Func: AllGather, Count: n, DataType: Bfloat16} }
	for _, c := range []struct {
		op   Op
		want string
	}{
		{ar(1 << 10), "AllReduce_AGxLL_R"},
		{ar(64 << 20), "AllReduce_RSxLD_AGxST"},
		{ag(1 << 10), "AllGather_LL"},
		{ag(256 << 20), "AllGather_ST"},
		{Op{Func: ReduceScatter, Count: 1 << 10, DataType: Float16, RedOp: Sum}, "ReduceScatter_LL"},
		{Op{Func: ReduceScatter, Count: 64 << 20, DataType: Float16, RedOp: Sum}, "ReduceScatter_LD"},
	} {
		g := pick(nil, c.op)
		d := g.Ops[0]
		if d.Kernel != c.want || d.DecidedBy != "G-SEL-SIDE-1" || d.NThreads != 512 || d.NChannels < 1 || d.NChannels > 64 || d.TimeUs <= 0 {
			t.Errorf("%v %d: kernel %q by %s, %d blocks × %d threads, %g µs; want %s", c.op.Func, c.op.Count, d.Kernel, d.DecidedBy, d.NChannels, d.NThreads, d.TimeUs, c.want)
		}
		if len(g.Lines) != 1 || !strings.Contains(g.Lines[0], "[Symmetric]: ") || !strings.Contains(g.Lines[0], "Kernel "+c.want+" ") {
			t.Errorf("%v: lines %q", c.op.Func, g.Lines)
		}
	}
	// two small AllReduces of one bin: no LL kernel, one plan, cells in order
	g := pick(nil, ar(1<<10), ar(1<<10))
	if k := g.Ops[0].Kernel; strings.Contains(k, "LL") || k != g.Ops[1].Kernel || g.Plans != 1 {
		t.Errorf("a bin of two: kernels %q %q, %d plans", k, g.Ops[1].Kernel, g.Plans)
	}
	if !strings.Contains(g.Lines[0], "nWorks 2") {
		t.Errorf("a bin of two: %q", g.Lines)
	}
	// forced kernel, no estimate
	g = pick(Env{"NCCL_SYM_KERNEL": "AllReduce_RSxLD_AGxST"}, ar(1<<10))
	if d := g.Ops[0]; d.Kernel != "AllReduce_RSxLD_AGxST" || d.TimeUs != 0 {
		t.Errorf("NCCL_SYM_KERNEL: %q %g µs", d.Kernel, d.TimeUs)
	}
	// a name of no kernel of this function: no symmetric kernel
	g = pick(Env{"NCCL_SYM_KERNEL": "AllGather_ST"}, ar(1<<10))
	if d := g.Ops[0]; d.Kernel != "" || d.Algo == AlgoNone {
		t.Errorf("NCCL_SYM_KERNEL of another function: kernel %q, %s: want the cost table", d.Kernel, d.Algo)
	}
	// forcing an LL kernel on a bin of two leaves no kernel: the group
	// fails with NCCL's WARN
	g = pick(Env{"NCCL_SYM_KERNEL": "AllReduce_AGxLL_R"}, ar(1<<10), ar(1<<10))
	if g.Err == nil || g.Err.Result != InvalidUsage || !strings.Contains(g.Err.Message, "no symmetric kernel available for function AllReduce. NCCL_SYM_KERNEL was set to AllReduce_AGxLL_R") {
		t.Errorf("forced LL kernel on two: %+v", g.Err)
	}
	// NCCL_SYM_CTAS fixes the blocks; NCCL_MAX_CTAS bounds them
	g = pick(Env{"NCCL_SYM_CTAS": "5"}, ar(64<<20))
	if d := g.Ops[0]; d.NChannels != 5 {
		t.Errorf("NCCL_SYM_CTAS=5: %d blocks", d.NChannels)
	}
	g = pick(Env{"NCCL_MAX_CTAS": "3"}, ar(64<<20))
	if d := g.Ops[0]; d.NChannels > 3 || d.ChannelHi > 2 {
		t.Errorf("NCCL_MAX_CTAS=3: %d blocks, channels %d..%d", d.NChannels, d.ChannelLo, d.ChannelHi)
	}
}

// TestSymmetricReleases: window buffers at each tag from 2.26.6 to 2.28.9
// on 2 × H200. 2.26.6 has no symmetric kernel; 2.27.x (ncclPrepareTasks)
// tries one only for a group of exactly one collective, on its exact
// count, prints the line without nWorks and has no copy engines (CTA
// policy 2 is no policy there); 2.28.3+ bins the window buffers of any
// group (ncclMakeSymmetricTaskList) and sends an AllGather to the copy
// engines under CTA policy ZERO. Each row names the gate that decided.
func TestSymmetricReleases(t *testing.T) {
	ar := func(n int64) Op { return Op{Func: AllReduce, Count: n, DataType: Float32, RedOp: Sum} }
	ag := Op{Func: AllGather, Count: 1 << 20, DataType: Bfloat16}
	type row struct {
		v       Version
		env     Env
		ops     []Op
		by      RuleID // DecidedBy of the first operation
		kernel  string // "" for none
		line    string // a substring of the first line, "" for no line
		sideOut Outcome
	}
	var rows []row
	for _, v := range []Version{V2_27_3, V2_27_5, V2_27_6, V2_27_7} {
		rows = append(rows,
			row{v, nil, []Op{ar(1 << 10)}, "G-SEL-SIDE-1", "AllReduce_AGxLL_R", "AllReduce [Symmetric]: 4096 Bytes -> Kernel AllReduce_AGxLL_R nchannels ", Pass},
			row{v, nil, []Op{ar(64 << 20)}, "G-SEL-SIDE-1", "AllReduce_RSxLD_AGxST", "Kernel AllReduce_RSxLD_AGxST nchannels ", Pass},
			row{v, nil, []Op{ar(1 << 10), ar(1 << 10)}, "G-GROUP-PLAN-1", "", "channel{Lo..Hi}", Fail},
			row{v, Env{"NCCL_CTA_POLICY": "2"}, []Op{ag}, "G-SEL-SIDE-1", "AllGather_ST", "AllGather [Symmetric]: ", Pass},
		)
	}
	for _, v := range []Version{V2_28_3, V2_28_9} {
		rows = append(rows,
			row{v, nil, []Op{ar(1 << 10)}, "G-SEL-SIDE-1", "AllReduce_AGxLL_R", "nWorks 1", Pass},
			row{v, nil, []Op{ar(1 << 10), ar(1 << 10)}, "G-SEL-SIDE-1", "AllReduce_RSxLD_AGxST", "nWorks 2", Pass},
			row{v, Env{"NCCL_CTA_POLICY": "2"}, []Op{ag}, "G-SEL-SIDE-1", "", "", Pass},
		)
	}
	rows = append(rows, row{V2_26_6, nil, []Op{ar(1 << 10)}, "", "", "", Fail})
	for _, r := range rows {
		name := fmt.Sprintf("%s/%v×%d/%v", r.v, r.ops[0].Func, len(r.ops), r.env)
		t.Run(name, func(t *testing.T) {
			c := h200x2Comm(t, r.v, r.env)
			var g []GroupOp
			for _, o := range r.ops {
				g = append(g, GroupOp{Op: o, Buffers: BuffersWindow})
			}
			d, err := c.SelectGroup(g, Launch{})
			if r.v == V2_26_6 { // no ncclCommWindowRegister: refused
				if err == nil || !strings.Contains(err.Error(), "2.27.3") {
					t.Errorf("2.26.6 window: %v, want refused naming 2.27.3", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			op := d.Ops[0]
			if r.by != "" && op.DecidedBy != r.by {
				t.Errorf("decided by %s, want %s", op.DecidedBy, r.by)
			}
			if op.Kernel != r.kernel && !(r.kernel == "" && op.Kernel == "copy-engine") {
				t.Errorf("kernel %q, want %q", op.Kernel, r.kernel)
			}
			if r.kernel == "" && r.by == "G-SEL-SIDE-1" && op.Kernel != "copy-engine" {
				t.Errorf("kernel %q, want the copy engines", op.Kernel)
			}
			if r.kernel != "" && (op.ChannelLo != 0 || op.NChannels < 1 || op.NThreads != 512) {
				t.Errorf("%d blocks × %d threads from channel %d", op.NChannels, op.NThreads, op.ChannelLo)
			}
			if r.line == "" && len(d.Lines) > 0 && r.v != V2_26_6 {
				t.Errorf("lines %q, want none", d.Lines)
			}
			if r.line != "" && (len(d.Lines) == 0 || !strings.Contains(d.Lines[0], r.line)) {
				t.Errorf("lines %q, want one with %q", d.Lines, r.line)
			}
			if r.v < V2_28_3 && len(d.Lines) > 0 && strings.Contains(d.Lines[0], "nWorks") {
				t.Errorf("2.27 line %q has nWorks", d.Lines[0])
			}
			v, ok := d.Traces[0].Find("G-SEL-SIDE-1")
			if r.v == V2_26_6 {
				if ok {
					t.Errorf("2.26.6 has G-SEL-SIDE-1: %+v", v)
				}
				return
			}
			if !ok || v.Outcome != r.sideOut {
				t.Errorf("G-SEL-SIDE-1 %+v, want %s", v, r.sideOut)
			}
			if r.sideOut == Fail && r.v < V2_28_3 && !strings.Contains(v.Why, "exactly one collective") {
				t.Errorf("G-SEL-SIDE-1 says %q, want the group-of-one condition", v.Why)
			}
		})
	}
}

// TestCopyEngineAllToAll: from 2.28.3 ncclAlltoAll on window buffers under
// CTA policy ZERO goes to the copy engines (ncclCeImplemented lists it);
// otherwise, and in every release before, an AllToAll is send/recv tasks
// on the p2p path. A p2p operation in a 2.27 group keeps a window
// AllReduce off the symmetric kernels (ncclPrepareTasks wants no p2p).
func TestCopyEngineAllToAll(t *testing.T) {
	a2a := Op{Func: AllToAll, Count: 1 << 20, DataType: Float32}
	ar := Op{Func: AllReduce, Count: 1 << 10, DataType: Float32, RedOp: Sum}
	zero := Env{"NCCL_CTA_POLICY": "2"}
	for _, c := range []struct {
		v     Version
		env   Env
		ops   []GroupOp
		ce    bool   // the AllToAll goes to the copy engines
		arBy  RuleID // the AllReduce's deciding gate, when there is one
		arKer string
	}{
		{V2_28_9, zero, []GroupOp{{Op: a2a, Buffers: BuffersWindow}}, true, "", ""},
		{V2_28_3, zero, []GroupOp{{Op: a2a, Buffers: BuffersWindow}}, true, "", ""},
		{V2_28_9, nil, []GroupOp{{Op: a2a, Buffers: BuffersWindow}}, false, "", ""},
		{V2_28_9, zero, []GroupOp{{Op: a2a}}, false, "", ""},
		{V2_27_7, zero, []GroupOp{{Op: a2a, Buffers: BuffersWindow}}, false, "", ""},
		{V2_27_7, nil, []GroupOp{{Op: a2a}, {Op: ar, Buffers: BuffersWindow}}, false, "G-GROUP-PLAN-1", ""},
		{V2_27_7, nil, []GroupOp{{Op: ar, Buffers: BuffersWindow}}, false, "G-SEL-SIDE-1", "AllReduce_AGxLL_R"},
		{V2_28_9, nil, []GroupOp{{Op: a2a}, {Op: ar, Buffers: BuffersWindow}}, false, "G-SEL-SIDE-1", "AllReduce_AGxLL_R"},
	} {
		name := fmt.Sprintf("%s/%v/%d ops/%s", c.v, c.env, len(c.ops), c.ops[0].Buffers)
		t.Run(name, func(t *testing.T) {
			comm := h200x2Comm(t, c.v, c.env)
			g, err := comm.SelectGroup(c.ops, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range c.ops {
				d := g.Ops[i]
				switch {
				case o.Op.Func == AllToAll && c.ce:
					v, ok := g.Traces[i].Find("G-SEL-SIDE-1")
					if d.Kernel != "copy-engine" || d.DecidedBy != "G-SEL-SIDE-1" || d.P2P != nil || !ok || v.Outcome != Pass {
						t.Errorf("AllToAll: kernel %q by %s, p2p %v, side verdict %+v: want the copy engines", d.Kernel, d.DecidedBy, d.P2P, v)
					}
				case o.Op.Func == AllToAll:
					if d.P2P == nil || d.Kernel != "" || g.Choices[i].P2P != true {
						t.Errorf("AllToAll: p2p %v, kernel %q: want the p2p path", d.P2P, d.Kernel)
					}
				default:
					if d.DecidedBy != c.arBy || d.Kernel != c.arKer {
						t.Errorf("AllReduce: kernel %q by %s, want %q by %s", d.Kernel, d.DecidedBy, c.arKer, c.arBy)
					}
				}
			}
		})
	}
}

// TestSymmetricArgsSplit: a grouped symmetric plan passes one work per
// task in 4 KiB of kernel arguments after a header that grows with the
// device communicator, so NCCL cuts a bin of 60 window AllReduces after
// 58 tasks (2.28.3), 56 (2.28.7–2.29.3) or 55 (2.29.7+): two plans, two
// [Symmetric] lines, each pick on its own piece. Every block works on at
// most CTABytes, a whole number of 1 KiB cells, and the blocks together
// cover the piece.
func TestSymmetricArgsSplit(t *testing.T) {
	const n, count = 60, 16 << 10 // 64 KiB of float32 each
	for _, c := range []struct {
		v   Version
		per int
	}{
		{V2_28_3, 58}, {V2_28_7, 56}, {V2_28_9, 56}, {V2_29_2, 56}, {V2_29_3, 56},
		{V2_29_7, 55}, {V2_30_3, 55}, {V2_30_4, 55}, {V2_30_7, 55},
	} {
		t.Run(c.v.String(), func(t *testing.T) {
			comm := h200x2Comm(t, c.v, nil)
			g := make([]GroupOp, n)
			for i := range g {
				g[i] = GroupOp{Op: Op{Func: AllReduce, Count: count, DataType: Float32, RedOp: Sum}, Buffers: BuffersWindow}
			}
			d, err := comm.SelectGroup(g, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Err != nil || d.Plans != 2 || len(d.Lines) != 2 {
				t.Fatalf("%d plans, lines %q, err %v: want 2 plans", d.Plans, d.Lines, d.Err)
			}
			if !strings.HasSuffix(d.Lines[0], fmt.Sprintf("nWorks %d", c.per)) || !strings.HasSuffix(d.Lines[1], fmt.Sprintf("nWorks %d", n-c.per)) {
				t.Errorf("lines %q: want nWorks %d then %d", d.Lines, c.per, n-c.per)
			}
			for i, ch := range d.Choices {
				plan, works := 0, c.per
				if i >= c.per {
					plan, works = 1, n-c.per
				}
				if ch.Plan != plan || ch.Works != works {
					t.Errorf("op %d: plan %d of %d works, want plan %d of %d", i, ch.Plan, ch.Works, plan, works)
				}
				if d.Ops[i].CTABytes != ch.CTABytes || ch.CTABytes%1024 != 0 {
					t.Errorf("op %d: %d bytes per block (decision %d): want whole 1 KiB cells", i, ch.CTABytes, d.Ops[i].CTABytes)
				}
				total := int64(works) * count * 4
				if b := int64(ch.NChannels); ch.CTABytes*b < total || (ch.CTABytes-1024)*b >= total {
					t.Errorf("op %d: %d blocks × %d bytes for %d bytes", i, b, ch.CTABytes, total)
				}
				if ch.ArgsBytes > 4096 {
					t.Errorf("op %d: %d bytes of kernel arguments", i, ch.ArgsBytes)
				}
			}
		})
	}
}

// TestSymmetricFallback: from 2.29.2 a piece no symmetric kernel can run
// goes back to the cost table instead of failing the group (2.28.9:
// ncclInvalidUsage); at 2.29.2 and 2.29.3 an unforced LL kernel is kept
// only when the cost table alone would run the operation with LL, from
// 2.29.7 window buffers keep it.
func TestSymmetricFallback(t *testing.T) {
	ar := Op{Func: AllReduce, Count: 256, DataType: Float32, RedOp: Sum}
	two := []GroupOp{{Op: ar, Buffers: BuffersWindow}, {Op: ar, Buffers: BuffersWindow}}
	forced := Env{"NCCL_SYM_KERNEL": "AllReduce_AGxLL_R"}
	for _, v := range []Version{V2_28_9, V2_29_2, V2_29_7, V2_30_7} {
		d, err := h200x2Comm(t, v, forced).SelectGroup(two, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		fails := v < V2_29_2
		if (d.Err != nil) != fails || (!fails && (d.Ops[0].Kernel != "" || d.Ops[0].Algo == AlgoNone || d.Choices[0].SymFallback == "")) {
			t.Errorf("%s: a forced LL kernel on two: error %v, kernel %q, %s: want the error only before 2.29.2, the cost table after", v, d.Err, d.Ops[0].Kernel, d.Ops[0].Algo)
		}
	}
	// alone, unforced, the LL kernel: the cost table's protocol decides at
	// 2.29.2 and 2.29.3 only
	for _, env := range []Env{nil, {"NCCL_PROTO": "Simple"}} {
		for _, v := range []Version{V2_28_9, V2_29_2, V2_29_3, V2_29_7, V2_30_3} {
			c := h200x2Comm(t, v, env)
			alone, _, err := c.Select(ar)
			if err != nil {
				t.Fatal(err)
			}
			d, err := c.SelectGroup([]GroupOp{{Op: ar, Buffers: BuffersWindow}}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			back := v >= V2_29_2 && v < V2_29_7 && alone.Proto != LL
			if got := d.Ops[0].Kernel == ""; got != back {
				t.Errorf("%s %v: kernel %q (the cost table alone picks %s/%s): want the fallback %v", v, env, d.Ops[0].Kernel, alone.Algo, alone.Proto, back)
			}
			if back {
				if sv, ok := d.Traces[0].Find("G-SEL-SIDE-1"); !ok || sv.Outcome != Fail || !strings.Contains(sv.Why, "an LL kernel") {
					t.Errorf("%s %v: G-SEL-SIDE-1 %+v", v, env, sv)
				}
			}
		}
	}
}
