package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// TestSymmetricOutsideWindows: from 2.29.2 ncclMakeSymmetricTaskList lists
// every task ncclSymkAvailable allows, whatever its buffers; on buffers
// outside windows only the LL kernels are left and the kernel stays only
// when NCCL_SYM_KERNEL forced it or, under NCCL_SYM_NOWIN_ENABLE=1, when
// the cost table alone would run the task with LL. Before 2.29.2 such
// buffers always take the cost table. 2 × H200, NVLS off, float sums.
func TestSymmetricOutsideWindows(t *testing.T) {
	ar := func(n int64) GroupOp {
		return GroupOp{Op: Op{Func: AllReduce, Count: n, DataType: Float32, RedOp: Sum}}
	}
	win := func(g GroupOp) GroupOp { g.Buffers = BuffersWindow; return g }
	nowin := Env{"NCCL_SYM_NOWIN_ENABLE": "1"}
	forcedLL := Env{"NCCL_SYM_KERNEL": "AllReduce_AGxLL_R"}
	forcedST := Env{"NCCL_SYM_KERNEL": "AllReduce_RSxLD_AGxST"}
	type row struct {
		env     Env
		ops     []GroupOp
		kernels []string // per operation, "" for the cost table
		back    string   // a substring of the first operation's SymFallback, "" for none
	}
	rows := func(v Version) []row {
		if v < V2_29_2 {
			return []row{
				{nowin, []GroupOp{ar(1 << 10)}, []string{""}, ""},
				{forcedLL, []GroupOp{ar(16 << 20)}, []string{""}, ""},
				{nowin, []GroupOp{win(ar(1 << 10)), ar(1 << 10)}, []string{"AllReduce_AGxLL_R", ""}, ""},
			}
		}
		return []row{
			{nil, []GroupOp{ar(1 << 10)}, []string{""}, ""},
			{nowin, []GroupOp{ar(1 << 10)}, []string{"AllReduce_AGxLL_R"}, ""},
			// the cost table alone runs 16 MiB with Simple: back to it
			{nowin, []GroupOp{ar(16 << 20)}, []string{""}, "the cost table alone picks Ring/Simple"},
			// forced, the LL kernel stays whatever the cost table says
			{forcedLL, []GroupOp{ar(16 << 20)}, []string{"AllReduce_AGxLL_R"}, ""},
			// a forced kernel that is not LL is not one these buffers take
			{forcedST, []GroupOp{ar(16 << 20)}, []string{""}, "take only the LL kernels"},
			// two of one bin: no grouped LL kernel, so none is left
			{nowin, []GroupOp{ar(1 << 10), ar(1 << 10)}, []string{"", ""}, "take only the LL kernels"},
			// window and outside-window tasks of one (function, op, type)
			// are two bins (winRegType): each alone keeps its LL kernel
			{nowin, []GroupOp{win(ar(1 << 10)), ar(1 << 10)}, []string{"AllReduce_AGxLL_R", "AllReduce_AGxLL_R"}, ""},
		}
	}
	for _, v := range []Version{V2_28_9, V2_29_2, V2_29_3, V2_29_7, V2_30_3, V2_30_7} {
		for _, r := range rows(v) {
			t.Run(fmt.Sprintf("%s/%v/%d", v, r.env, len(r.ops)), func(t *testing.T) {
				c := h200x2Comm(t, v, r.env)
				g, err := c.SelectGroup(r.ops, Launch{})
				if err != nil {
					t.Fatal(err)
				}
				if g.Err != nil {
					t.Fatalf("group error %v", g.Err)
				}
				for i, want := range r.kernels {
					d := g.Ops[i]
					if d.Kernel != want {
						t.Errorf("op %d: kernel %q (%s/%s), want %q", i, d.Kernel, d.Algo, d.Proto, want)
					}
					if want == "" && d.Algo == AlgoNone {
						t.Errorf("op %d: no algorithm: want the cost table's", i)
					}
					if want != "" && (d.DecidedBy != "G-SEL-SIDE-1" || d.NThreads != 512) {
						t.Errorf("op %d: decided by %s on %d threads", i, d.DecidedBy, d.NThreads)
					}
				}
				if got := g.Choices[0].SymFallback; (r.back == "") != (got == "") || !strings.Contains(got, r.back) {
					t.Errorf("fallback %q, want %q", got, r.back)
				}
				if r.back != "" {
					sv, ok := g.Traces[0].Find("G-SEL-SIDE-1")
					if !ok || sv.Outcome != Fail || !strings.HasPrefix(sv.Why, "buffers outside windows: ") {
						t.Errorf("G-SEL-SIDE-1 %+v", sv)
					}
				}
				if r.kernels[len(r.kernels)-1] != "" && r.ops[len(r.ops)-1].Buffers != BuffersWindow {
					sv, ok := g.Traces[len(r.ops)-1].Find("G-SEL-SIDE-1")
					if !ok || sv.Outcome != Pass || !strings.HasPrefix(sv.Why, "buffers outside windows: symmetric kernel AllReduce_AGxLL_R") {
						t.Errorf("G-SEL-SIDE-1 %+v", sv)
					}
				}
				if c.SymmetricOutsideWindows() != (v >= V2_29_2 && r.env != nil) {
					t.Errorf("SymmetricOutsideWindows %v", c.SymmetricOutsideWindows())
				}
			})
		}
	}
}

// TestSymmetricAllNVLink: from 2.29.2 ncclSymkAvailable wants every GPU
// pair of the node one NVLink hop (comm->isAllDirectNvlink); without it
// window buffers take the cost table. 2.28.9 does not ask.
func TestSymmetricAllNVLink(t *testing.T) {
	op := tuning.Call{Op: Op{Func: AllReduce, Count: 1 << 10, DataType: Float32, RedOp: Sum}, Buffers: BuffersWindow}
	for _, c := range []struct {
		v      Version
		direct bool
		want   string
	}{
		{V2_28_9, true, "AllReduce_AGxLL_R"},
		{V2_28_9, false, "AllReduce_AGxLL_R"},
		{V2_29_2, true, "AllReduce_AGxLL_R"},
		{V2_29_2, false, ""},
		{V2_30_7, true, "AllReduce_AGxLL_R"},
		{V2_30_7, false, ""},
	} {
		m := *h200x2Comm(t, c.v, nil).Model
		m.In.AllDirectNVLink = c.direct
		g, err := tuning.ChooseGroup(&m, []tuning.Call{op})
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Ops[0].Kernel; got != c.want {
			t.Errorf("%s isAllDirectNvlink %v: kernel %q, want %q", c.v, c.direct, got, c.want)
		}
	}
}

// TestSymmetricTMA: 2.30.3's TMA kernels take the place of the store and
// load kernels whose model they share (they come first in the kernel
// order) on sm100 under NCCL_SYM_TMA_ENABLE=1; the multimem reductions
// have none. 8 × B200 with NVLS on (an AllGather takes AllGather_STMC) and
// off, AllGathers below NCCL_SYM_CE_THRESHOLD (8 Mi elements, above it the
// copy engines take them); 2 × H200 (sm90) never.
func TestSymmetricTMA(t *testing.T) {
	tma := "1"
	type row struct {
		v     Version
		sys   string
		tma   bool
		nvls  bool
		fn    Func
		count int64
		want  string
	}
	var rows []row
	for _, v := range []Version{V2_29_7, V2_30_3, V2_30_4, V2_30_7} {
		has := v >= V2_30_3
		pick := func(with, without string) string {
			if has {
				return with
			}
			return without
		}
		rows = append(rows,
			row{v, "dgx-b200", false, false, AllReduce, 64 << 20, "AllReduce_RSxLD_AGxST"},
			row{v, "dgx-b200", true, false, AllReduce, 64 << 20, pick("AllReduce_RSxTmaLD_AGxTmaST", "AllReduce_RSxLD_AGxST")},
			row{v, "dgx-b200", true, false, AllGather, 4 << 20, pick("AllGather_TmaST", "AllGather_ST")},
			row{v, "dgx-b200", true, false, ReduceScatter, 64 << 20, pick("ReduceScatter_TmaLD", "ReduceScatter_LD")},
			row{v, "dgx-b200", true, true, AllGather, 4 << 20, pick("AllGather_TmaSTMC", "AllGather_STMC")},
			row{v, "dgx-b200", true, true, AllReduce, 64 << 20, "AllReduce_RSxLDMC_AGxSTMC"},
			row{v, "dgx-b200", true, false, AllReduce, 1 << 10, "AllReduce_AGxLL_R"},
			row{v, "h200x2", true, false, AllReduce, 64 << 20, "AllReduce_RSxLD_AGxST"},
		)
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s/%s/tma=%v/nvls=%v/%v/%d", r.v, r.sys, r.tma, r.nvls, r.fn, r.count), func(t *testing.T) {
			sys, err := Preset(r.sys, PresetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			env := Env{}
			if r.tma {
				env["NCCL_SYM_TMA_ENABLE"] = tma
			}
			if !r.nvls {
				env["NCCL_NVLS_ENABLE"] = "0"
			}
			c, err := Init(MustLoad(r.v), sys, env)
			if err != nil {
				t.Fatal(err)
			}
			dt := Float32
			if r.fn == AllGather {
				dt = Bfloat16
			}
			g, err := c.SelectGroup([]GroupOp{{Op: Op{Func: r.fn, Count: r.count, DataType: dt, RedOp: Sum}, Buffers: BuffersWindow}}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			if d := g.Ops[0]; d.Kernel != r.want {
				t.Errorf("kernel %q, want %q", d.Kernel, r.want)
			}
			if len(g.Lines) != 1 || !strings.Contains(g.Lines[0], "Kernel "+r.want+" ") {
				t.Errorf("lines %q", g.Lines)
			}
		})
	}
}

// TestSymmetricMultimemRanks: from 2.29.7 the multimem kernels need an LSA
// team of more than two ranks (symkState.hasLsaMultimem), so 2 × H200 with
// NVLS on loses them where 2.29.2 picks them; 8 × H100 keeps them.
func TestSymmetricMultimemRanks(t *testing.T) {
	for _, c := range []struct {
		v    Version
		sys  string
		want string
	}{
		{V2_29_2, "h200x2", "AllReduce_RSxLDMC_AGxSTMC"},
		{V2_29_3, "h200x2", "AllReduce_RSxLDMC_AGxSTMC"},
		{V2_29_7, "h200x2", "AllReduce_RSxLD_AGxST"},
		{V2_30_7, "h200x2", "AllReduce_RSxLD_AGxST"},
		{V2_29_7, "dgx-h100", "AllReduce_RSxLDMC_AGxSTMC"},
		{V2_30_7, "dgx-h100", "AllReduce_RSxLDMC_AGxSTMC"},
	} {
		sys, err := Preset(c.sys, PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		comm, err := Init(MustLoad(c.v), sys, Env{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := comm.SelectGroup([]GroupOp{{Op: Op{Func: AllReduce, Count: 64 << 20, DataType: Bfloat16, RedOp: Sum}, Buffers: BuffersWindow}}, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Ops[0].Kernel; got != c.want {
			t.Errorf("%s %s: kernel %q, want %q", c.v, c.sys, got, c.want)
		}
	}
}
