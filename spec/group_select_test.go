package spec

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// groupRanges is "Algo/Proto lo..hi" per operation.
func groupRanges(g *GroupDecision) string {
	var s []string
	for _, d := range g.Ops {
		if d.Err != nil {
			s = append(s, "error")
			continue
		}
		s = append(s, fmt.Sprintf("%s/%s %d..%d", d.Algo, d.Proto, d.ChannelLo, d.ChannelHi))
	}
	return strings.Join(s, ", ")
}

func h200x2Comm(t *testing.T, v Version, env Env) *Comm {
	t.Helper()
	sys, err := Preset("h200x2", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if env == nil {
		env = Env{}
	}
	env["NCCL_NVLS_ENABLE"] = "0"
	c, err := Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSelectGroupH200x2 holds what 2 × H200 printed under NCCL 2.28.9 with
// nccl-tests -m 8 (eight AllReduces of one size in one group) and -G 1
// (CUDA graphs): the group splits the 24 channels, 512 KiB switches from
// Ring/LL on 24 channels alone to Ring/Simple on about 3 per operation,
// and a captured out-of-place Ring/Simple AllReduce or AllGather runs on
// 16 channels (IPC registration at capture) while ReduceScatter and
// in-place AllReduce keep 24.
func TestSelectGroupH200x2(t *testing.T) {
	ar := func(bytes int64) Op { return Op{Func: AllReduce, Count: bytes / 4, DataType: Float32, RedOp: Sum} }
	rep := func(s string, n int) string { return strings.TrimSuffix(strings.Repeat(s+", ", n), ", ") }
	cases := []struct {
		name   string
		v      Version
		ops    []GroupOp
		launch Launch
		want   string
	}{
		{"8 MiB -m 8", V2_28_9, []GroupOp{{Op: ar(8 << 20)}}, Launch{Agg: 8},
			"Ring/Simple 0..2, Ring/Simple 2..5, Ring/Simple 5..8, Ring/Simple 8..11, Ring/Simple 11..14, Ring/Simple 14..17, Ring/Simple 17..20, Ring/Simple 20..23"},
		{"8 KiB -m 8", V2_28_9, []GroupOp{{Op: ar(8 << 10)}}, Launch{Agg: 8},
			"Ring/LL 0..1, Ring/LL 2..3, Ring/LL 4..5, Ring/LL 6..7, Ring/LL 8..9, Ring/LL 10..11, Ring/LL 12..13, Ring/LL 14..15"},
		{"512 KiB alone", V2_28_9, []GroupOp{{Op: ar(512 << 10)}}, Launch{}, "Ring/LL 0..23"},
		{"512 KiB -m 8", V2_28_9, []GroupOp{{Op: ar(512 << 10)}}, Launch{Agg: 8},
			"Ring/Simple 0..2, Ring/Simple 2..5, Ring/Simple 5..8, Ring/Simple 8..11, Ring/Simple 11..14, Ring/Simple 14..17, Ring/Simple 17..20, Ring/Simple 20..23"},
		{"graph out-of-place AllReduce", V2_28_9, []GroupOp{{Op: ar(64 << 20)}}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..15"},
		{"graph in-place AllReduce", V2_28_9, []GroupOp{{Op: ar(64 << 20), InPlace: true}}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..23"},
		{"graph AllGather", V2_28_9, []GroupOp{{Op: Op{Func: AllGather, Count: 16 << 20, DataType: Float32}}}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..15"},
		{"graph ReduceScatter", V2_28_9, []GroupOp{{Op: Op{Func: ReduceScatter, Count: 16 << 20, DataType: Float32}}}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..23"},
		{"registered AllReduce on a stream", V2_28_9, []GroupOp{{Op: ar(64 << 20), Buffers: BuffersRegistered}}, Launch{}, "Ring/Simple 0..15"},
		{"graph small AllReduce stays LL", V2_28_9, []GroupOp{{Op: ar(4 << 10)}}, Launch{Mode: LaunchGraph}, "Ring/LL 0..0"},
		{"2.28.3 graph AllReduce", V2_28_3, []GroupOp{{Op: ar(64 << 20)}}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..15"},
		{"2.22.3 graph AllReduce (no Ring registration)", V2_22_3, []GroupOp{{Op: ar(64 << 20)}}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..23"},
		{"2.22.3 8 MiB -m 8", V2_22_3, []GroupOp{{Op: ar(8 << 20)}}, Launch{Agg: 8}, rep("Ring/Simple", 8)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := h200x2Comm(t, tc.v, nil)
			g, err := c.SelectGroup(tc.ops, tc.launch)
			if err != nil {
				t.Fatal(err)
			}
			got := groupRanges(g)
			if !strings.Contains(tc.want, "..") {
				// only the algorithm and protocol are held
				var ap []string
				for _, d := range g.Ops {
					ap = append(ap, fmt.Sprintf("%s/%s", d.Algo, d.Proto))
				}
				got = strings.Join(ap, ", ")
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestChannelRangeIsNCCLs: ChannelRange writes a range as the braces of
// NCCL's per-task [TUNING] line hold it (2.24+), for every task of a group
// that splits the channels (eight 8 MiB AllReduces, 0..2 to 20..23).
func TestChannelRangeIsNCCLs(t *testing.T) {
	c := h200x2Comm(t, V2_28_9, nil)
	g, err := c.SelectGroup([]GroupOp{{Op: Op{Func: AllReduce, Count: 2 << 20, DataType: Float32, RedOp: Sum}}}, Launch{Agg: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Choices) != 8 {
		t.Fatalf("%d choices, want 8", len(g.Choices))
	}
	for i, ch := range g.Choices {
		if r := ChannelRange(ch.ChannelLo, ch.ChannelHi); ch.Line == "" || !strings.HasSuffix(ch.Line, "channel{Lo..Hi}={"+r+"}") {
			t.Errorf("op %d: %q, NCCL's line %q", i, r, ch.Line)
		}
	}
	if r := ChannelRange(g.Choices[7].ChannelLo, g.Choices[7].ChannelHi); r != "20..23" {
		t.Errorf("the last operation's range %q, want 20..23", r)
	}
}

// TestSelectGroupRegisterOff: NCCL_GRAPH_REGISTER=0 keeps a captured
// operation on its channels; NCCL_LOCAL_REGISTER=0 does the same for
// ncclCommRegister'ed buffers.
func TestSelectGroupRegisterOff(t *testing.T) {
	op := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	for _, tc := range []struct {
		env    Env
		g      GroupOp
		launch Launch
	}{
		{Env{"NCCL_GRAPH_REGISTER": "0"}, GroupOp{Op: op}, Launch{Mode: LaunchGraph}},
		{Env{"NCCL_LOCAL_REGISTER": "0"}, GroupOp{Op: op, Buffers: BuffersRegistered}, Launch{}},
	} {
		c := h200x2Comm(t, V2_28_9, tc.env)
		g, err := c.SelectGroup([]GroupOp{tc.g}, tc.launch)
		if err != nil {
			t.Fatal(err)
		}
		if got := groupRanges(g); got != "Ring/Simple 0..23" {
			t.Errorf("%v: got %s, want Ring/Simple 0..23", tc.env, got)
		}
	}
}

// TestSelectGroupVerdicts: each planned operation's trace ends with the
// group's plan (with the line NCCL prints for it), its kernel plan's
// budget (G-SCHED-BUDGET-1) and the registration verdicts, G-REG-SKIP-1's
// before CollNet's and the proxy op's (nothing registered with either on
// one node).
func TestSelectGroupVerdicts(t *testing.T) {
	// regTail drops the last verdicts, CollNet's, its IPC peers' (2.23.4+),
	// the proxy op's and the CollNet proxy's re-split (2.24.3+), after
	// checking that each is skipped
	regTail := func(t *testing.T, tr Trace) int {
		t.Helper()
		n := len(tr)
		seen := map[RuleID]bool{}
		for n > 0 {
			r := tr[n-1].Rule
			if r != "G-REG-COLLNET-1" && r != "G-REG-COLLNET-IPC-1" && r != "G-REG-PROXY-1" && r != "G-REG-COLLNET-SPLIT-1" {
				break
			}
			if tr[n-1].Outcome != Skip {
				t.Fatalf("%s: %s, want skip", r, tr[n-1].Outcome)
			}
			seen[r] = true
			n--
		}
		if !seen["G-REG-COLLNET-1"] || !seen["G-REG-PROXY-1"] {
			t.Fatalf("trace ends %v, want G-REG-COLLNET-1 and G-REG-PROXY-1 skipped", tr[n:])
		}
		return n
	}
	// 2.22.3 has the plan but no IPC registration of graph buffers, and
	// prints one time line per aggregate
	c22 := h200x2Comm(t, V2_22_3, nil)
	g, err := c22.SelectGroup([]GroupOp{{Op: Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}}}, Launch{Mode: LaunchGraph, Agg: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range g.Traces {
		n := regTail(t, tr)
		if n < 4 || tr[n-4].Rule != "G-GROUP-PLAN-1" || tr[n-4].Ref.Tag != "v2.22.3-1" || tr[n-3].Rule != "G-SCHED-BUDGET-1" || tr[n-3].Outcome != Info ||
			tr[n-2].Rule != "G-REG-UB-1" || tr[n-2].Outcome != Skip || tr[n-1].Rule != "G-REG-SKIP-1" || tr[n-1].Outcome != Skip {
			t.Fatalf("2.22.3 op %d: trace ends %v", i, tr[max(0, n-4):])
		}
		if i == 0 && (len(tr[n-4].Log) != 1 || !strings.Contains(tr[n-4].Log[0], " time ")) {
			t.Errorf("2.22.3 op %d: plan verdict logs %q, want the aggregate's time line", i, tr[n-4].Log)
		}
	}
	c := h200x2Comm(t, V2_28_9, nil)
	op := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	for _, tc := range []struct {
		launch Launch
		reg    Outcome
	}{{Launch{Agg: 2}, Skip}, {Launch{Mode: LaunchGraph}, Pass}} {
		g, err := c.SelectGroup([]GroupOp{{Op: op}}, tc.launch)
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range g.Traces {
			n := regTail(t, tr)
			if n < 5 || tr[n-5].Rule != "G-GROUP-PLAN-1" || tr[n-4].Rule != "G-SCHED-BUDGET-1" || tr[n-4].Outcome != Info ||
				tr[n-3].Rule != "G-REG-UB-1" || tr[n-3].Outcome != Skip || tr[n-2].Rule != "G-REG-IPC-1" || tr[n-2].Outcome != tc.reg ||
				tr[n-1].Rule != "G-REG-SKIP-1" || tr[n-1].Outcome != Skip {
				t.Fatalf("%v op %d: trace ends %v", tc.launch, i, tr[max(0, n-5):])
			}
			if len(tr[n-5].Log) != 1 || !strings.Contains(tr[n-5].Log[0], "channel{Lo..Hi}") {
				t.Errorf("%v op %d: plan verdict logs %q, want the per-operation line", tc.launch, i, tr[n-5].Log)
			}
		}
	}
}

// TestDecideCalls: a script's launches are planned per communicator; the
// group's two AllReduces share the channels, the lone one outside the
// group gets them all.
func TestDecideCalls(t *testing.T) {
	calls, err := ParseCalls("t", []byte("init c0\ngroupStart\nallreduce c0 8MiB\nallreduce c0 8MiB\ngroupEnd\nallreduce c0 8MiB\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := h200x2Comm(t, V2_28_9, nil)
	res, _, err := CheckGroup(c.rs, calls)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := c.DecideCalls(calls, res, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for i := range calls {
		if d := dec[i]; d != nil {
			got += fmt.Sprintf("%d:%d..%d ", i, d.ChannelLo, d.ChannelHi)
		}
	}
	if want := "2:0..11 3:11..23 5:0..23 "; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSelectGroupWindows: on 2.28.x window buffers of a float AllReduce or
// an AllGather leave the cost table for the symmetric path (G-SEL-SIDE-1
// passes instead of answering skip); an int32 sum has no symmetric kernel
// and stays on the table (G-SEL-SIDE-1 fails), registered over IPC as
// ncclCommRegister'ed buffers are; an AllGather under CTA
// policy ZERO goes to the copy engines; 2.22.3 has no windows: refused.
func TestSelectGroupWindows(t *testing.T) {
	f32 := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	i32 := Op{Func: AllReduce, Count: 16 << 20, DataType: Int32, RedOp: Sum}
	ag := Op{Func: AllGather, Count: 4 << 20, DataType: Float32}
	side := func(g *GroupDecision, i int) (string, Outcome) {
		var out Outcome = -1
		for _, v := range g.Traces[i] {
			if v.Rule == "G-SEL-SIDE-1" {
				out = v.Outcome
			}
		}
		return g.Choices[i].SidePath, out
	}
	c := h200x2Comm(t, V2_28_9, nil)
	g, err := c.SelectGroup([]GroupOp{{Op: f32, Buffers: BuffersWindow}, {Op: i32, Buffers: BuffersWindow}, {Op: ag, Buffers: BuffersWindow}}, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		path string
		out  Outcome
	}{{"symmetric", Pass}, {"", Fail}, {"symmetric", Pass}} {
		if p, o := side(g, i); p != want.path || o != want.out {
			t.Errorf("op %d: side path %q, G-SEL-SIDE-1 %v; want %q, %v", i, p, o, want.path, want.out)
		}
	}
	// the window carries ncclCommWindowRegister's ncclCommRegister record,
	// so the table's Ring task is registered over IPC and runs on 16 of
	// its 24 channels (G-REG-IPC-1)
	if d := g.Ops[1]; d.Algo != Ring || d.ChannelLo != 0 || d.ChannelHi != 15 || g.Choices[1].Registered != "IPC" {
		t.Errorf("the int32 AllReduce alone on the table: %s %d..%d registered %q", d.Algo, d.ChannelLo, d.ChannelHi, g.Choices[1].Registered)
	}
	c = h200x2Comm(t, V2_28_9, Env{"NCCL_CTA_POLICY": "2"})
	if g, err = c.SelectGroup([]GroupOp{{Op: ag, Buffers: BuffersWindow}}, Launch{}); err != nil {
		t.Fatal(err)
	}
	if p, _ := side(g, 0); p != "copy-engine" {
		t.Errorf("CTA policy ZERO AllGather: %q, want copy-engine", p)
	}
	// a release without ncclCommWindowRegister refuses the request; the
	// error names it and the first release with windows
	c = h200x2Comm(t, V2_22_3, nil)
	for _, l := range []Launch{{}, {Agg: 8}, {Mode: LaunchGraph}} {
		_, err = c.SelectGroup([]GroupOp{{Op: *arOp(1 << 20)}, {Op: f32, Buffers: BuffersWindow}}, l)
		if err == nil || !strings.Contains(err.Error(), "group op 1") || !strings.Contains(err.Error(), "2.22.3") || !strings.Contains(err.Error(), "2.27.3") {
			t.Errorf("2.22.3 window %+v: %v, want an error naming op 1, 2.22.3 and 2.27.3", l, err)
		}
	}
}

// TestSelectGroupNVLSUserBuffers: an NVLS operation on registered or
// graph-captured buffers runs on the channels NVLS registration asks for
// (G-REG-UB-1), per release and machine, where plain buffers keep
// nvlsChannels (16 on DGX H100 and B200). Worked out from each tag's
// source: v2.19.1-1 and v2.22.3-1 src/enqueue.cc registerIntraNodeBuffers,
// v2.25.1-1 src/register/coll_reg.cc ncclRegisterCollNvlsBuffers,
// v2.28.9-1 src/transport/nvls.cc ncclNvlsRegResourcesQuery.
func TestSelectGroupNVLSUserBuffers(t *testing.T) {
	ar := Op{Func: AllReduce, Count: 64 << 20, DataType: Float32, RedOp: Sum}
	for _, tc := range []struct {
		v      Version
		system string
		nodes  int
		env    Env
		g      GroupOp
		launch Launch
		want   string // algo/proto lo..hi and the verdict of G-REG-UB-1
	}{
		{V2_28_9, "dgx-h100", 1, nil, GroupOp{Op: ar}, Launch{}, "NVLS/Simple 0..15 skip"},
		{V2_28_9, "dgx-h100", 1, nil, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..3 pass"},
		{V2_28_9, "dgx-h100", 1, nil, GroupOp{Op: ar}, Launch{Mode: LaunchGraph}, "NVLS/Simple 0..3 pass"},
		{V2_28_9, "dgx-h100", 1, Env{"NCCL_GRAPH_REGISTER": "0"}, GroupOp{Op: ar}, Launch{Mode: LaunchGraph}, "NVLS/Simple 0..15 skip"},
		{V2_28_9, "dgx-h100", 1, Env{"NCCL_LOCAL_REGISTER": "0"}, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..15 skip"},
		// ranks sharing a process are not modelled: with one process per
		// GPU nvlsRegSupport is 1 whatever the variable says
		{V2_28_9, "dgx-h100", 1, Env{"NCCL_SINGLE_PROC_MEM_REG_ENABLE": "0"}, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..3 pass"},
		{V2_28_9, "dgx-h100", 1, Env{"NCCL_SINGLE_PROC_MEM_REG_ENABLE": "1"}, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..3 pass"},
		{V2_22_3, "dgx-h100", 1, Env{"NCCL_MIN_CTAS": "8"}, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..7 pass"},
		{V2_19_4, "dgx-h100", 1, Env{"NCCL_MIN_CTAS": "8"}, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..3 pass"},
		{V2_24_3, "dgx-b200", 1, nil, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..3 pass"},
		{V2_25_1, "dgx-b200", 1, nil, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLS/Simple 0..7 pass"},
		{V2_28_9, "dgx-h100", 4, nil, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLSTree/Simple 0..5 pass"},
		{V2_19_4, "dgx-h100", 4, nil, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "NVLSTree/Simple 0..3 pass"},
	} {
		c := initPreset(t, tc.v, tc.system, tc.nodes, tc.env)
		if got := regSummary(t, c, tc.g, tc.launch); got != tc.want {
			t.Errorf("%s %s×%d %v buffers %s launch %s: got %s, want %s", tc.v, tc.system, tc.nodes, tc.env, tc.g.Buffers, tc.launch.Mode, got, tc.want)
		}
	}
}

// onePerNode is a communicator of nodes dgx-h100 nodes cut to gpus GPUs
// each (one rank per node with gpus 1).
func onePerNode(t *testing.T, v Version, nodes, gpus int, env Env) *Comm {
	t.Helper()
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Reshape(gpus, 0, 0, 0)
	}
	if env == nil {
		env = Env{}
	}
	c, err := Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err != nil || c.Model == nil {
		t.Fatalf("%s: init failed: %v", v, c.Err)
	}
	return c
}

// TestSelectGroupRingNetUserBuffers: from 2.24.3 NCCL registers a Ring
// task's buffers with the network peers of its ring (ncclRegisterCollBuffers);
// with one rank per node and GPU Direct RDMA on every ring connection an
// AllGather or a Broadcast then runs on one channel, from 2.30.7 on
// comm->minNetCount within the CTA bounds. Other functions, user buffers,
// two ranks per node, no GDR (NCCL_NET_GDR_LEVEL=LOC, NCCL_NET_GDR_READ=0)
// or NCCL_LOCAL_REGISTER=0 keep the cost table's channels.
func TestSelectGroupRingNetUserBuffers(t *testing.T) {
	op := func(f Func) Op { return Op{Func: f, Count: 64 << 20, DataType: Float32, RedOp: Sum} }
	ag, bc, ar := op(AllGather), op(Broadcast), op(AllReduce)
	for _, tc := range []struct {
		v      Version
		gpus   int
		env    Env
		g      GroupOp
		launch Launch
		want   string // algo/proto lo..hi and the verdict of G-REG-UB-1
	}{
		{V2_28_9, 1, nil, GroupOp{Op: ag}, Launch{}, "Ring/Simple 0..3 skip"},
		{V2_28_9, 1, nil, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..0 pass"},
		{V2_28_9, 1, nil, GroupOp{Op: bc}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..0 pass"},
		{V2_24_3, 1, nil, GroupOp{Op: bc, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..0 pass"},
		{V2_23_4, 1, nil, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..3 skip"},
		{V2_28_9, 1, nil, GroupOp{Op: ar, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..3 skip"},
		{V2_28_9, 2, nil, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..7 skip"},
		{V2_28_9, 1, Env{"NCCL_NET_GDR_LEVEL": "LOC"}, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..3 skip"},
		{V2_28_9, 1, Env{"NCCL_NET_GDR_READ": "0"}, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..3 skip"},
		{V2_28_9, 1, Env{"NCCL_LOCAL_REGISTER": "0"}, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..3 skip"},
		{V2_28_9, 1, Env{"NCCL_LOCAL_REGISTER": "0"}, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{Mode: LaunchGraph}, "Ring/Simple 0..0 pass"},
		{V2_30_3, 1, Env{"NCCL_MIN_CTAS": "2"}, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..0 pass"},
		{V2_30_7, 1, nil, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..0 pass"},
		{V2_30_7, 1, Env{"NCCL_MIN_CTAS": "2"}, GroupOp{Op: ag, Buffers: BuffersRegistered}, Launch{}, "Ring/Simple 0..1 pass"},
	} {
		c := onePerNode(t, tc.v, 2, tc.gpus, tc.env)
		if got := regSummary(t, c, tc.g, tc.launch); got != tc.want {
			t.Errorf("%s %d GPU(s)/node %v %s buffers %s launch %s: got %s, want %s", tc.v, tc.gpus, tc.env, tc.g.Op.Func, tc.g.Buffers, tc.launch.Mode, got, tc.want)
		}
	}
}

// TestSelectGroupMLOPartRDMA: 2.30.7 registers no buffer with the network
// on a communicator with an MLOPart rank (hasMloPart) unless
// NCCL_MLOPART_RDMA_ENABLE=1 (isMloPartBufRdmaCapable): one partition per
// node of two nodes, GPU Direct RDMA allowed for it by
// NCCL_NET_GDR_MLOPART=1, runs a registered AllGather on the cost table's
// channels with G-REG-SKIP-1 saying why, and on minNetCount channels with
// the variable set. 2.30.4 reads neither variable nor the partition.
// Ref: v2.30.7-1 src/register/coll_reg.cc isMloPartBufRdmaCapable,
// ncclRegisterCollBuffers
func TestSelectGroupMLOPartRDMA(t *testing.T) {
	data, err := os.ReadFile("../golden/testdata/systems/mlopart-1rank.xml")
	if err != nil {
		t.Fatal(err)
	}
	ag := GroupOp{Op: Op{Func: AllGather, Count: 16 << 20, DataType: Float32, RedOp: Sum}, Buffers: BuffersRegistered}
	for _, tc := range []struct {
		v    Version
		env  Env
		want string // algo/proto lo..hi, G-REG-UB-1's and G-REG-SKIP-1's verdicts
	}{
		{V2_30_7, Env{"NCCL_NET_GDR_MLOPART": "1"}, "Ring/Simple 0..3 skip fail"},
		{V2_30_7, Env{"NCCL_NET_GDR_MLOPART": "1", "NCCL_MLOPART_RDMA_ENABLE": "1"}, "Ring/Simple 0..0 pass skip"},
		{V2_30_7, Env{"NCCL_MLOPART_RDMA_ENABLE": "1"}, "Ring/Simple 0..1 skip skip"}, // no GDR for the partition
		{V2_30_4, Env{}, "Ring/Simple 0..0 pass skip"},
	} {
		sys, err := SystemFromTopology("mlopart-1rank.xml", data, 2)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Init(MustLoad(tc.v), sys, tc.env)
		if err != nil || c.Err != nil {
			t.Fatalf("%s %v: %v %v", tc.v, tc.env, err, c.Err)
		}
		got := regSummary(t, c, ag, Launch{})
		g, err := c.SelectGroup([]GroupOp{ag}, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range g.Traces[0] {
			if v.Rule == "G-REG-SKIP-1" {
				got += " " + v.Outcome.String()
			}
		}
		if got != tc.want {
			t.Errorf("%s %v: got %s, want %s", tc.v, tc.env, got, tc.want)
		}
	}
}

// TestPlanFailureAloneAndGrouped: before 2.22.3 a kernel plan takes at most
// half of NCCL_WORK_FIFO_DEPTH in works; a 64 MiB AllReduce on every
// channel of a DGX H100 does not fit a depth of 8, and ncclGroupEnd fails
// (G-GROUP-PLAN-1) for the call alone (its implicit group), its group of
// one and a group of two alike. A depth that fits, and 2.22.3 (which no
// longer reads the variable), decide without an error.
func TestPlanFailureAloneAndGrouped(t *testing.T) {
	op := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	const want = "ncclInvalidUsage: 'NCCL_WORK_FIFO_DEPTH=8' is too small. Minimum value is 64"
	planVerdict := func(tr Trace) string {
		for _, v := range tr {
			if v.Rule == "G-GROUP-PLAN-1" {
				return v.Outcome.String()
			}
		}
		return "none"
	}
	errText := func(d *Decision) string {
		if d.Err == nil {
			return "ok"
		}
		return d.Err.String()
	}
	for _, tc := range []struct {
		v     Version
		depth string
		want  string
	}{
		{V2_21_5, "8", want},
		{V2_19_4, "8", want},
		{V2_21_5, "65536", "ok"},
		{V2_22_3, "8", "ok"},
	} {
		c := initPreset(t, tc.v, "dgx-h100", 1, Env{"NCCL_WORK_FIFO_DEPTH": tc.depth, "NCCL_NVLS_ENABLE": "0"})
		d, tr, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		wantVerdict := map[bool]string{true: "fail", false: "none"}[tc.want != "ok"]
		if got := errText(d); got != tc.want || planVerdict(tr.Op()) != wantVerdict || (tc.want != "ok") != (d.DecidedBy == "G-GROUP-PLAN-1") {
			t.Errorf("%s depth %s alone: %s decided by %s, G-GROUP-PLAN-1 %s; want %s", tc.v, tc.depth, got, d.DecidedBy, planVerdict(tr.Op()), tc.want)
		}
		for _, agg := range []int{1, 2} {
			g, err := c.SelectGroup([]GroupOp{{Op: op}}, Launch{Agg: agg})
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range g.Ops {
				if got := errText(d); got != tc.want {
					t.Errorf("%s depth %s group of %d, op %d: %s, want %s", tc.v, tc.depth, agg, i, got, tc.want)
				}
				gv := planVerdict(g.Traces[i])
				if tc.want != "ok" && gv != "fail" {
					t.Errorf("%s depth %s group of %d, op %d: G-GROUP-PLAN-1 %s, want fail", tc.v, tc.depth, agg, i, gv)
				}
			}
		}
	}
}

// TestSelectGroupIPCRegisterReleases: IPC registration of Ring/Tree user
// buffers (G-REG-IPC-1) starts at 2.23.4 for buffers registered with
// ncclCommRegister only (registerCollBuffers finds no record for a buffer
// just captured into a CUDA graph); from 2.24.3 graph-captured buffers
// register too. A registered one-node AllReduce on 24 channels runs on 16.
func TestSelectGroupIPCRegisterReleases(t *testing.T) {
	op := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	regd := GroupOp{Op: op, Buffers: BuffersRegistered}
	graph := Launch{Mode: LaunchGraph}
	const full, cut = "Ring/Simple 0..23", "Ring/Simple 0..15"
	for _, tc := range []struct {
		v      Version
		g      GroupOp
		launch Launch
		want   string
		rule   bool    // G-REG-IPC-1 in the trace
		reg    Outcome // its verdict
	}{
		{V2_22_3, regd, Launch{}, full, false, Skip},
		{V2_22_3, GroupOp{Op: op}, graph, full, false, Skip},
		{V2_23_4, regd, Launch{}, cut, true, Pass},
		{V2_23_4, regd, graph, cut, true, Pass},
		{V2_23_4, GroupOp{Op: op}, graph, full, true, Skip},
		{V2_23_4, GroupOp{Op: op}, Launch{}, full, true, Skip},
		{V2_24_3, regd, Launch{}, cut, true, Pass},
		{V2_24_3, GroupOp{Op: op}, graph, cut, true, Pass},
		{V2_27_7, GroupOp{Op: op}, graph, cut, true, Pass},
		{V2_27_7, regd, Launch{}, cut, true, Pass},
		{V2_28_3, GroupOp{Op: op}, graph, cut, true, Pass},
		{V2_28_9, regd, Launch{}, cut, true, Pass},
		{V2_28_9, GroupOp{Op: op}, Launch{}, full, true, Skip},
	} {
		name := fmt.Sprintf("%v/%v/%v", tc.v, tc.g.Buffers, tc.launch.Mode)
		c := h200x2Comm(t, tc.v, nil)
		g, err := c.SelectGroup([]GroupOp{tc.g}, tc.launch)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := groupRanges(g); got != tc.want {
			t.Errorf("%s: got %s, want %s", name, got, tc.want)
		}
		has, out := false, Skip
		for _, v := range g.Traces[0] {
			if v.Rule == "G-REG-IPC-1" {
				has, out = true, v.Outcome
			}
		}
		if has != tc.rule || (has && out != tc.reg) {
			t.Errorf("%s: G-REG-IPC-1 in the trace %v (%v), want %v (%v)", name, has, out, tc.rule, tc.reg)
		}
	}
}

// regSummary is one operation's decision in its group of one, with
// G-REG-UB-1's outcome ("none" where the rule did not speak): "Algo/Proto
// lo..hi outcome".
func regSummary(t *testing.T, c *Comm, op GroupOp, launch Launch) string {
	t.Helper()
	return ruleSummary(t, c, op, launch, "G-REG-UB-1")
}

// ruleSummary is regSummary with the outcome of rule.
func ruleSummary(t *testing.T, c *Comm, op GroupOp, launch Launch, rule RuleID) string {
	t.Helper()
	g, err := c.SelectGroup([]GroupOp{op}, launch)
	if err != nil {
		t.Fatal(err)
	}
	d, reg := g.Ops[0], "none"
	for _, v := range g.Traces[0] {
		if v.Rule == rule {
			reg = v.Outcome.String()
		}
	}
	return fmt.Sprintf("%s/%s %d..%d %s", d.Algo, d.Proto, d.ChannelLo, d.ChannelHi, reg)
}

// TestSelectGroupRingNetMixedNodes: comm->useGdr and comm->minNetCount are
// combined over every rank (v2.30.7-1 src/transport/generic.cc
// ncclTransportRingConnect and-s useGdr, src/init.cc initTransportsRank
// takes the least localNetDeviceBw), so a machine of two node kinds
// registers a Ring AllGather with the network only when every node's ring
// connections use GPU Direct RDMA, and runs it on the fewest NICs any
// rank needs. Each node is one GPU of a DGX H100; "nogdr" clears the
// GPU's GDR support, "4x100" gives it four 100 Gb/s NICs (4 NICs to match
// its bandwidth, where the stock node needs 1).
func TestSelectGroupRingNetMixedNodes(t *testing.T) {
	ag := GroupOp{Op: Op{Func: AllGather, Count: 64 << 20, DataType: Float32, RedOp: Sum}, Buffers: BuffersRegistered}
	for _, tc := range []struct {
		node0, node1 string
		gdr          bool
		minNetCount  int
		want         string // algo/proto lo..hi and the verdict of G-REG-UB-1
	}{
		{"stock", "stock", true, 1, "Ring/Simple 0..0 pass"},
		{"stock", "nogdr", false, 1, "Ring/Simple 0..3 skip"},
		{"nogdr", "stock", false, 1, "Ring/Simple 0..3 skip"},
		{"4x100", "4x100", true, 4, "Ring/Simple 0..3 pass"},
		{"4x100", "stock", true, 1, "Ring/Simple 0..0 pass"},
		{"stock", "4x100", true, 1, "Ring/Simple 0..0 pass"},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i, kind := range []string{tc.node0, tc.node1} {
			n := &sys.Nodes[i]
			switch kind {
			case "stock":
				n.Reshape(1, 0, 0, 0)
			case "nogdr":
				n.Reshape(1, 0, 0, 0)
				n.Layout.GPUs[0].NoGDR = true
			case "4x100":
				n.Reshape(1, 4, 100, 0)
			}
		}
		c, err := Init(MustLoad(V2_30_7), sys, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Err != nil || c.Model == nil {
			t.Fatalf("%s+%s: init failed: %v", tc.node0, tc.node1, c.Err)
		}
		name := tc.node0 + "+" + tc.node1
		if c.Topo.RingNetGDR != tc.gdr || c.Topo.MinNetCount != tc.minNetCount {
			t.Errorf("%s: useGdr %v minNetCount %d, want %v %d", name, c.Topo.RingNetGDR, c.Topo.MinNetCount, tc.gdr, tc.minNetCount)
		}
		if got := regSummary(t, c, ag, Launch{}); got != tc.want {
			t.Errorf("%s: got %s, want %s", name, got, tc.want)
		}
	}
}

// TestNvlsTuningMixedNodes: 2.30.3's ncclNvlsTuning reads comm->minNetBw,
// the least over every rank (v2.30.3-1 src/init.cc initTransportsRank), so
// two DGX B200 nodes of which one has 200 Gb/s NICs (24 GB/s, below the
// table's 48 GB/s row) keep the default NVLS channels, whichever node it
// is, where two stock nodes take the tuned 32.
func TestNvlsTuningMixedNodes(t *testing.T) {
	for _, tc := range []struct {
		slow0, slow1 bool
		tuned        bool
	}{
		{false, false, true},
		{false, true, false},
		{true, false, false},
	} {
		sys, err := Preset("dgx-b200", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i, slow := range []bool{tc.slow0, tc.slow1} {
			if slow {
				sys.Nodes[i].Reshape(0, 0, 200, 0)
			}
		}
		c, err := Init(MustLoad(V2_30_3), sys, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Err != nil {
			t.Fatalf("slow NICs %v %v: init failed: %v", tc.slow0, tc.slow1, c.Err)
		}
		if c.Topo.NvlsTuned != tc.tuned {
			t.Errorf("slow NICs %v %v: NVLS tuned %v (%d channels), want %v", tc.slow0, tc.slow1, c.Topo.NvlsTuned, c.Topo.NvlsChannels, tc.tuned)
		}
	}
}

// TestSelectGroupRegisterFallback: registration NCCL tries can fail, and
// the task then runs as unregistered (G-REG-SKIP-1 fails): cudaMalloc
// buffers are never NVLS-registered (the multicast bind takes cuMem
// memory; v2.28.9-1 src/transport/nvls.cc nvlsRegisterBuffer, v2.22.3-1
// tryRegisterBuffer) and from 2.24.3 go over legacy CUDA IPC only under
// NCCL_LEGACY_CUDA_REGISTER=1 (v2.24.3-1 src/transport/p2p.cc
// ipcRegisterBuffer; 2.23.4 exports them always); cuMem buffers need
// NCCL's cuMem on for IPC; from 2.28.9 NCCL_P2P_USE_CUDA_MEMCPY=1 keeps
// every registration record away (src/register/register.cc
// ncclCommRegister, ncclCommGraphRegister). The network registers
// cudaMalloc buffers as it does cuMem ones. The CTA policy reads regBuff,
// which follows ncclCommRegister's record (src/enqueue.cc getAlgoInfo).
func TestSelectGroupRegisterFallback(t *testing.T) {
	ar := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	ag := Op{Func: AllGather, Count: 64 << 20, DataType: Float32, RedOp: Sum}
	ag16 := Op{Func: AllGather, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	reg := func(o Op, a Alloc) GroupOp { return GroupOp{Op: o, Buffers: BuffersRegistered, Alloc: a} }
	user := func(o Op, a Alloc) GroupOp { return GroupOp{Op: o, Alloc: a} }
	graph := Launch{Mode: LaunchGraph}
	const cm, cu = AllocCudaMalloc, AllocCuMem
	for _, tc := range []struct {
		v      Version
		system string // h200x2, dgx-h100, or net: two one-GPU DGX H100 nodes
		env    Env
		g      GroupOp
		launch Launch
		want   string // algo/proto lo..hi and G-REG-SKIP-1's verdict
	}{
		// IPC on 2 × H200: registered, a 64 MiB AllReduce runs on 16 channels of 24
		{V2_28_9, "h200x2", nil, reg(ar, cu), Launch{}, "Ring/Simple 0..15 skip"},
		{V2_28_9, "h200x2", nil, reg(ar, cm), Launch{}, "Ring/Simple 0..23 fail"},
		{V2_28_9, "h200x2", Env{"NCCL_LEGACY_CUDA_REGISTER": "1"}, reg(ar, cm), Launch{}, "Ring/Simple 0..15 skip"},
		{V2_28_9, "h200x2", nil, user(ar, cm), graph, "Ring/Simple 0..23 fail"},
		{V2_28_9, "h200x2", nil, user(ar, cu), graph, "Ring/Simple 0..15 skip"},
		{V2_24_3, "h200x2", nil, reg(ar, cm), Launch{}, "Ring/Simple 0..23 fail"},
		{V2_23_4, "h200x2", nil, reg(ar, cm), Launch{}, "Ring/Simple 0..15 skip"},
		{V2_28_9, "h200x2", Env{"NCCL_CUMEM_ENABLE": "0"}, reg(ar, cu), Launch{}, "Ring/Simple 0..23 fail"},
		{V2_28_9, "h200x2", Env{"NCCL_CUMEM_ENABLE": "0", "NCCL_LEGACY_CUDA_REGISTER": "1"}, reg(ar, cm), Launch{}, "Ring/Simple 0..15 skip"},
		{V2_28_9, "h200x2", Env{"NCCL_P2P_USE_CUDA_MEMCPY": "1"}, reg(ar, cu), Launch{}, "Ring/Simple 0..23 fail"},
		{V2_28_9, "h200x2", Env{"NCCL_P2P_USE_CUDA_MEMCPY": "1"}, user(ar, cu), graph, "Ring/Simple 0..23 fail"},
		{V2_28_7, "h200x2", Env{"NCCL_P2P_USE_CUDA_MEMCPY": "1"}, reg(ar, cu), Launch{}, "Ring/Simple 0..15 skip"},
		// nothing asked, nothing fails
		{V2_28_9, "h200x2", nil, user(ar, cm), Launch{}, "Ring/Simple 0..23 skip"},
		// NVLS on one DGX H100: registered, 4 channels of 16
		{V2_28_9, "dgx-h100", nil, reg(ar, cu), Launch{}, "NVLS/Simple 0..3 skip"},
		{V2_28_9, "dgx-h100", nil, reg(ar, cm), Launch{}, "NVLS/Simple 0..15 fail"},
		{V2_28_9, "dgx-h100", Env{"NCCL_LEGACY_CUDA_REGISTER": "1"}, reg(ar, cm), Launch{}, "NVLS/Simple 0..15 fail"},
		{V2_22_3, "dgx-h100", nil, user(ar, cm), graph, "NVLS/Simple 0..15 fail"},
		{V2_19_1, "dgx-h100", nil, reg(ar, cm), Launch{}, "NVLS/Simple 0..15 fail"},
		{V2_28_9, "dgx-h100", Env{"NCCL_P2P_USE_CUDA_MEMCPY": "1"}, reg(ar, cu), Launch{}, "NVLS/Simple 0..15 fail"},
		// CTA policy EFFICIENCY moves a registered AllGather to NVLS only
		// when getAlgoInfo's regBuff holds: ncclCommRegister kept a record
		// (none under NCCL_LOCAL_REGISTER=0 from 2.24.3, nor under
		// NCCL_P2P_USE_CUDA_MEMCPY=1 from 2.28.9) or the call is captured;
		// on cudaMalloc buffers it still moves (regBuff reads the record)
		// and the NVLS registration then fails, on the policy's channels
		{V2_28_9, "dgx-h100", Env{"NCCL_CTA_POLICY": "1"}, reg(ag16, cu), Launch{}, "NVLS/Simple 0..3 skip"},
		{V2_28_9, "dgx-h100", Env{"NCCL_CTA_POLICY": "1", "NCCL_LOCAL_REGISTER": "0"}, reg(ag16, cu), Launch{}, "Ring/Simple 0..23 skip"},
		{V2_28_9, "dgx-h100", Env{"NCCL_CTA_POLICY": "1", "NCCL_LOCAL_REGISTER": "0"}, user(ag16, cu), graph, "NVLS/Simple 0..3 skip"},
		{V2_28_9, "dgx-h100", Env{"NCCL_CTA_POLICY": "1", "NCCL_P2P_USE_CUDA_MEMCPY": "1"}, reg(ag16, cu), Launch{}, "Ring/Simple 0..23 fail"},
		{V2_28_9, "dgx-h100", Env{"NCCL_CTA_POLICY": "1"}, reg(ag16, cm), Launch{}, "NVLS/Simple 0..3 fail"},
		// the network: one rank per node, GPU Direct RDMA
		{V2_28_9, "net", nil, reg(ag, cm), Launch{}, "Ring/Simple 0..0 skip"},
		{V2_28_9, "net", Env{"NCCL_P2P_USE_CUDA_MEMCPY": "1"}, reg(ag, cu), Launch{}, "Ring/Simple 0..3 fail"},
	} {
		var c *Comm
		switch tc.system {
		case "h200x2":
			c = h200x2Comm(t, tc.v, tc.env)
		case "net":
			c = onePerNode(t, tc.v, 2, 1, tc.env)
		default:
			c = initPreset(t, tc.v, tc.system, 1, tc.env)
		}
		if got := ruleSummary(t, c, tc.g, tc.launch, "G-REG-SKIP-1"); got != tc.want {
			t.Errorf("%s %s %v %s buffers %s alloc %s launch %s: got %s, want %s", tc.v, tc.system, tc.env, tc.g.Op.Func, tc.g.Buffers, tc.g.Alloc, tc.launch.Mode, got, tc.want)
		}
	}
}

// TestSelectGroupNVLSRegisterCallFails: RegFailed tells an NVLS
// registration NCCL called and that failed (nvlsRegisterBuffer on
// cudaMalloc buffers, which then prints "failed to NVLS register ...":
// v2.24.3-1 and v2.28.9-1 src/transport/nvls.cc) from one NCCL never
// called (no registration record under NCCL_P2P_USE_CUDA_MEMCPY=1 from
// 2.28.9, nothing asked on a stream without ncclCommRegister).
func TestSelectGroupNVLSRegisterCallFails(t *testing.T) {
	ar := Op{Func: AllReduce, Count: 256 << 20, DataType: Float32, RedOp: Sum}
	graph := Launch{Mode: LaunchGraph}
	for _, tc := range []struct {
		v      Version
		env    Env
		g      GroupOp
		launch Launch
		want   string // RegFailed / RegRefused set
	}{
		{V2_24_3, nil, GroupOp{Op: ar, InPlace: true, Alloc: AllocCudaMalloc}, graph, "NVLS/true"},
		{V2_24_3, nil, GroupOp{Op: ar, InPlace: true, Alloc: AllocCudaMalloc}, Launch{}, "/false"},
		{V2_28_9, nil, GroupOp{Op: ar, Buffers: BuffersRegistered, Alloc: AllocCudaMalloc}, Launch{}, "NVLS/true"},
		{V2_28_9, nil, GroupOp{Op: ar, Buffers: BuffersRegistered, Alloc: AllocCuMem}, Launch{}, "/false"},
		{V2_28_9, Env{"NCCL_P2P_USE_CUDA_MEMCPY": "1"}, GroupOp{Op: ar, Buffers: BuffersRegistered, Alloc: AllocCudaMalloc}, Launch{}, "/true"},
	} {
		c := initPreset(t, tc.v, "dgx-h100", 1, tc.env)
		gd, err := c.SelectGroup([]GroupOp{tc.g}, tc.launch)
		if err != nil {
			t.Fatal(err)
		}
		ch := gd.Choices[0]
		if got := fmt.Sprintf("%s/%v", ch.RegFailed, ch.RegRefused != ""); got != tc.want {
			t.Errorf("%s %v buffers %s alloc %s launch %s: got %s (%s %s), want %s", tc.v, tc.env, tc.g.Buffers, tc.g.Alloc, tc.launch.Mode, got, ch.Algo, ch.RegRefused, tc.want)
		}
	}
}

// TestWindowAllocRefused: window buffers are ncclMemAlloc'ed cuMem memory,
// so a window of cudaMalloc memory is refused before any gate, and an
// allocation out of range likewise.
func TestWindowAllocRefused(t *testing.T) {
	op := Op{Func: AllGather, Count: 1 << 20, DataType: Float32, RedOp: Sum}
	c := h200x2Comm(t, V2_28_9, nil)
	for _, g := range []GroupOp{{Op: op, Buffers: BuffersWindow, Alloc: AllocCudaMalloc}, {Op: op, Alloc: NumAllocs}, {Op: op, Alloc: -1}} {
		if _, err := c.SelectGroup([]GroupOp{g}, Launch{}); err == nil {
			t.Errorf("buffers %s alloc %d: no error", g.Buffers, int(g.Alloc))
		}
	}
	if _, err := c.SelectGroup([]GroupOp{{Op: op, Buffers: BuffersWindow}}, Launch{}); err != nil {
		t.Errorf("window buffers of cuMem memory: %v", err)
	}
}

// TestDecideCallsInPlace: a script's inplace token is the oracle's
// "inplace": under a CUDA graph on 2 × H200 at 2.28.9 an out-of-place
// 8 MiB AllReduce is IPC-registered onto channels 0..15, an in-place one
// is not and keeps 0..23 (G-REG-IPC-1); a one-sided call has no in-place
// form.
func TestDecideCallsInPlace(t *testing.T) {
	calls, err := ParseCalls("t", []byte("init c0\nallreduce c0 8MiB\nallreduce c0 8MiB inplace\nallgather c0 8MiB float32 INPLACE\n"))
	if err != nil {
		t.Fatal(err)
	}
	if calls[1].InPlace || !calls[2].InPlace || !calls[3].InPlace {
		t.Fatalf("in place: %v %v %v, want false true true", calls[1].InPlace, calls[2].InPlace, calls[3].InPlace)
	}
	c := h200x2Comm(t, V2_28_9, nil)
	res, _, err := CheckGroup(c.rs, calls)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := c.DecideCalls(calls, res, Launch{Mode: LaunchGraph})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for i := 1; i < 3; i++ {
		got += fmt.Sprintf("%d:%d..%d ", i, dec[i].ChannelLo, dec[i].ChannelHi)
	}
	if want := "1:0..15 2:0..23 "; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := ParseCalls("t", []byte("putSignal c0 1MiB peer=1 inplace\n")); err == nil || !strings.Contains(err.Error(), "in-place") {
		t.Errorf("in-place putSignal: %v, want refused", err)
	}
}

// TestDecideCallsErrorLine: a decision error of a script names the line of
// the call that caused it, not its group's first, as FILE:LINE through
// ScriptError; "group op N" only where the script wrote the group.
func TestDecideCallsErrorLine(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		v            Version
		want         string
	}{
		{"window at 2.22.3, third of a group", "init c0\ngroupStart\nallreduce c0 1MiB\nallreduce c0 1MiB\nallreduce c0 1MiB buffers=window\ngroupEnd\n", V2_22_3,
			"s.txt:5: group op 2: buffers window at NCCL 2.22.3"},
		{"bad root, second of a group", "init c0\ngroupStart\nallreduce c0 1MiB\n\n# a comment\nbroadcast c0 1MiB root=5\ngroupEnd\n", V2_28_9,
			"s.txt:6: group op 1: root 5 out of range"},
		{"bad root alone", "init c0\nbroadcast c0 1MiB root=5\n", V2_28_9,
			"s.txt:2: root 5 out of range"},
		{"bad root alone after a group", "init c0\ngroupStart\nallreduce c0 1MiB\ngroupEnd\nallreduce c0 1MiB\nbroadcast c0 1MiB root=7\n", V2_28_9,
			"s.txt:6: root 7 out of range"},
		{"second communicator of a group", "init c0\ninit c1\ngroupStart\nallreduce c0 1MiB\nallreduce c1 1MiB\nbroadcast c1 1MiB root=3\ngroupEnd\n", V2_28_9,
			"s.txt:6: group op 1: root 3 out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, err := ParseCalls("s.txt", []byte(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			c := h200x2Comm(t, tc.v, nil)
			res, _, err := CheckGroup(c.rs, calls)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.DecideCalls(calls, res, Launch{})
			got := fmt.Sprint(ScriptError("s.txt", err))
			if err == nil || !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want it to start %q", got, tc.want)
			}
			if !strings.Contains(tc.want, "group op") && strings.Contains(got, "group op") {
				t.Errorf("%q names a group the script did not write", got)
			}
		})
	}
}
