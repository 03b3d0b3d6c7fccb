package spec

import (
	"fmt"
	"strings"
	"testing"
)

// TestPlanBudgetSplitsGroups: G-SCHED-BUDGET-1 on one DGX H100 (NVLS
// on, 16 NVLS channels), N AllReduces of 1 MiB (float) in one group. The
// kernel arguments (4 KiB less the 32-byte header) hold 254 work batches;
// a plan's work goes there too when it fits, else into half the work FIFO
// (NCCL_WORK_FIFO_BYTES, default 1 MiB), or for a graph capture into a
// persistent 1 GiB. NVLS-registered buffers (ncclCommRegister, or a graph
// capture under NCCL_GRAPH_REGISTER) make each task an ncclDevWorkCollReg
// (288 bytes in 2.28.9 against 96; 256 against 64 in 2.22.3; 320 against
// 128 in 2.30.7), three to a 1 KiB batch, so the same group needs more
// batches and bytes and splits into more kernel launches.
func TestPlanBudgetSplitsGroups(t *testing.T) {
	type plan struct {
		works   int
		storage string
		args    int
	}
	for _, tc := range []struct {
		name  string
		v     Version
		env   Env
		n     int
		buf   Buffers
		mode  LaunchMode
		plans []plan
	}{
		// 1000 plain works (96 KiB) fit the FIFO's half and 112 batches
		// the arguments: one launch
		{"1000 user", V2_28_9, nil, 1000, BuffersUser, LaunchStream, []plan{{1000, "fifo", 1824}}},
		// registered: 754 tasks fill the 254 batches, a second launch
		// takes the other 246
		{"1000 registered", V2_28_9, nil, 1000, BuffersRegistered, LaunchStream, []plan{{754, "fifo", 4096}, {246, "fifo", 1568}}},
		// a 64 KiB FIFO: 32 KiB of work outside the arguments, 341 plain
		// or 113 registered works
		{"200 user, 64 KiB FIFO", V2_28_9, Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, BuffersUser, LaunchStream, []plan{{200, "fifo", 544}}},
		{"200 registered, 64 KiB FIFO", V2_28_9, Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, BuffersRegistered, LaunchStream, []plan{{113, "fifo", 800}, {87, "fifo", 640}}},
		// a graph capture is persistent: the FIFO does not bound it
		{"200 registered, 64 KiB FIFO, graph", V2_28_9, Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, BuffersRegistered, LaunchGraph, []plan{{200, "persistent", 1312}}},
		// not a power of 2: NCCL WARNs and keeps 1 MiB
		{"200 registered, FIFO not a power of 2", V2_28_9, Env{"NCCL_WORK_FIFO_BYTES": "65537"}, 200, BuffersRegistered, LaunchStream, []plan{{200, "fifo", 1312}}},
		// a 4 KiB FIFO leaves 2 KiB outside: the work must fit the
		// arguments with the batches, 39 plain works a launch
		{"64 user, 4 KiB FIFO", V2_28_9, Env{"NCCL_WORK_FIFO_BYTES": "4096"}, 64, BuffersUser, LaunchStream, []plan{{39, "args", 4032}, {25, "args", 2688}}},
		// NCCL_WORK_ARGS_BYTES=1024: 62 batches a plan
		{"200 registered, 1 KiB arguments", V2_28_9, Env{"NCCL_WORK_ARGS_BYTES": "1024"}, 200, BuffersRegistered, LaunchStream, []plan{{154, "fifo", 1024}, {46, "fifo", 480}}},
		{"200 user, 1 KiB arguments", V2_28_9, Env{"NCCL_WORK_ARGS_BYTES": "1024"}, 200, BuffersUser, LaunchStream, []plan{{200, "fifo", 544}}},
		// 16 plain works fit the arguments with their batches
		{"16 user", V2_28_9, nil, 16, BuffersUser, LaunchStream, []plan{{16, "args", 1824}}},
		{"200 registered, 64 KiB FIFO, 2.22.3", V2_22_3, Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, BuffersRegistered, LaunchStream, []plan{{128, "fifo", 544}, {72, "fifo", 544}}},
		{"200 registered, 64 KiB FIFO, 2.30.7", V2_30_7, Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, BuffersRegistered, LaunchStream, []plan{{102, "fifo", 800}, {98, "fifo", 800}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := initPreset(t, tc.v, "dgx-h100", 1, tc.env)
			op := GroupOp{Op: Op{Func: AllReduce, Count: 256 << 10, DataType: Float32, RedOp: Sum}, Buffers: tc.buf}
			g, err := c.SelectGroup([]GroupOp{op}, Launch{Mode: tc.mode, Agg: tc.n})
			if err != nil || g.Err != nil {
				t.Fatalf("%v %v", err, g.Err)
			}
			var got []plan
			for _, u := range g.Budget {
				got = append(got, plan{u.Works, u.Storage, u.ArgsBytes})
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.plans) || g.Plans != len(tc.plans) {
				t.Fatalf("%d plans %v, want %v", g.Plans, got, tc.plans)
			}
			first := 0
			for p, u := range g.Budget {
				for k := first; k < first+u.Works; k++ {
					i := k
					if tc.v >= V2_29_2 {
						// the symmetric task list takes these tasks and sends
						// them back: they rejoin the walk newest first
						i = tc.n - 1 - k
					}
					if ch := g.Choices[i]; ch.Plan != p || ch.ArgsBytes != u.ArgsBytes || ch.WorkStorage != u.Storage {
						t.Fatalf("op %d: plan %d, %d argument bytes, work in %q; its plan is %d (%d, %q)", i, ch.Plan, ch.ArgsBytes, ch.WorkStorage, p, u.ArgsBytes, u.Storage)
					}
				}
				first += u.Works
			}
			v, ok := g.Traces[0].Find("G-SCHED-BUDGET-1")
			if !ok || v.Outcome != Info {
				t.Fatalf("no G-SCHED-BUDGET-1 verdict: %+v", v)
			}
		})
	}
}

// TestWorkArgsBytesBoundsChannels: NCCL_WORK_ARGS_BYTES bounds the
// channels to the work batches its arguments hold after the 32-byte
// header, (N − 32) / 16 (ncclMaxNchannels), and the p2p channels to the
// power of 2 below (ncclTopoComputeP2pChannels), from 2.22.3; a value
// below the header wraps round in size_t and bounds nothing; 2.21.5 does
// not read the variable. So a task on the channels fits an empty plan;
// NVLS's channels are not bounded (nvlsChannels), and an NVLS task on
// more of them than the arguments hold fits no plan: NCCL's
// ncclLaunchPrepare then loops without end, which the model reports.
func TestWorkArgsBytesBoundsChannels(t *testing.T) {
	for _, tc := range []struct {
		v        Version
		args     string
		nc, p2pc int
	}{
		{V2_28_9, "", 24, 32},
		{V2_28_9, "256", 14, 8},
		{V2_28_9, "528", 24, 16},
		{V2_28_9, "16", 24, 32},
		{V2_28_9, "-1", 24, 32},
		{V2_22_3, "256", 14, 8},
		{V2_21_5, "256", 24, 32},
	} {
		env := Env{"NCCL_NVLS_ENABLE": "0"} // NVLS keeps its 16 channels whatever the variable says
		if tc.args != "" {
			env["NCCL_WORK_ARGS_BYTES"] = tc.args
		}
		c := initPreset(t, tc.v, "dgx-h100", 1, env)
		if nc, p2pc := c.Model.In.NChannels, c.Topo.P2PNChannels; nc != tc.nc || p2pc != tc.p2pc {
			t.Errorf("%s NCCL_WORK_ARGS_BYTES=%q: %d channels, %d p2p channels; want %d, %d", tc.v, tc.args, nc, p2pc, tc.nc, tc.p2pc)
		}
		if tc.v < V2_22_3 {
			continue
		}
		// 64 MiB on every channel fits the bounded arguments
		g, err := c.SelectGroup([]GroupOp{{Op: Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}}}, Launch{Agg: 4})
		if tc.args == "16" {
			// comm->workArgsBytes 16 leaves −16 bytes: nothing fits
			if err == nil || !strings.Contains(err.Error(), "would loop without end") {
				t.Errorf("NCCL_WORK_ARGS_BYTES=16: %v, want the endless loop reported", err)
			}
			continue
		}
		if err != nil || g.Err != nil {
			t.Fatalf("%s NCCL_WORK_ARGS_BYTES=%q: %v %v", tc.v, tc.args, err, g)
		}
	}
	c := initPreset(t, V2_28_9, "dgx-h100", 1, Env{"NCCL_WORK_ARGS_BYTES": "256"})
	_, err := c.SelectGroup([]GroupOp{{Op: Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}}}, Launch{Agg: 4})
	if err == nil || !strings.Contains(err.Error(), "would loop without end") {
		t.Errorf("an NVLS task on 16 channels with 224 bytes for batches: %v, want the endless loop reported", err)
	}
}

// TestPlanBudgetCountsP2PWorks: finishPlan sizes a plan on all its work,
// the send/recv works scheduleP2pTasksToPlan adds after the collectives
// as much as theirs (G-SCHED-BUDGET-1, 2.22.3+: addP2pToPlan adds an
// ncclDevWorkP2p to plan->workBytes and its batches to nWorkBatches). On
// 2 × H200 (NVLS off) a 1 MiB AllReduce with a 1 MiB send to and receive
// from rank 1 share plan 0: the AllReduce's work and batches plus one p2p
// work (one round: send and receive together) on the p2p channels its
// parts take, one batch each. A group of send/recv works alone is a plan
// of its own; 2.21.5 has no such budget.
func TestPlanBudgetCountsP2PWorks(t *testing.T) {
	mixed := []GroupOp{
		{Op: Op{Func: AllReduce, Count: 256 << 10, DataType: Float32, RedOp: Sum}},
		{Op: Op{Func: SendRecv, Count: 256 << 10, DataType: Float32, RedOp: Sum}, P2P: &P2PCall{Send: true, Peer: 1}},
		{Op: Op{Func: SendRecv, Count: 256 << 10, DataType: Float32, RedOp: Sum}, P2P: &P2PCall{Peer: 1}},
	}
	for _, v := range []Version{V2_22_3, V2_28_9, V2_30_7} {
		t.Run(v.String(), func(t *testing.T) {
			c := initPreset(t, v, "h200x2", 1, Env{"NCCL_NVLS_ENABLE": "0"})
			alone, err := c.SelectGroup(mixed[:1], Launch{})
			if err != nil || alone.Err != nil || len(alone.Budget) != 1 {
				t.Fatalf("the AllReduce alone: %v %v, budget %+v", err, alone.Err, alone.Budget)
			}
			g, err := c.SelectGroup(mixed, Launch{})
			if err != nil || g.Err != nil || len(g.Budget) != 1 || g.Plans != 1 {
				t.Fatalf("%v %v: %d plans, budget %+v", err, g.Err, g.Plans, g.Budget)
			}
			k := c.Model.Tuning
			a, u := alone.Budget[0], g.Budget[0]
			parts := g.Ops[1].P2P.Tasks[0].NChannels
			if u.Works != a.Works || u.P2PWorks != 1 || u.WorkBytes != a.WorkBytes+int64(k.WorkP2PBytes) || u.Batches != a.Batches+parts {
				t.Fatalf("plan 0 %+v: want the AllReduce's %+v with one p2p work of %d bytes and %d more batches", u, a, k.WorkP2PBytes, parts)
			}
			if args := 32 + 16*u.Batches + int(u.WorkBytes); u.Storage != "args" || u.ArgsBytes != (args+15)/16*16 {
				t.Fatalf("plan 0 %+v: want its work in the arguments, %d bytes of them", u, (args+15)/16*16)
			}
			if ch := g.Choices[0]; ch.ArgsBytes != u.ArgsBytes || ch.WorkStorage != u.Storage {
				t.Fatalf("the AllReduce's plan: %d argument bytes, work in %q; the plan's %d, %q", ch.ArgsBytes, ch.WorkStorage, u.ArgsBytes, u.Storage)
			}
			p2p, err := c.SelectGroup(mixed[1:], Launch{})
			if err != nil || p2p.Err != nil || p2p.Plans != 1 || len(p2p.Budget) != 1 || p2p.Budget[0].Works != 0 || p2p.Budget[0].P2PWorks != 1 {
				t.Fatalf("send/recv alone: %v %v: %d plans, budget %+v; want one plan of one p2p work", err, p2p.Err, p2p.Plans, p2p.Budget)
			}
		})
	}
	c := initPreset(t, V2_21_5, "h200x2", 1, Env{"NCCL_NVLS_ENABLE": "0"})
	if g, err := c.SelectGroup(mixed, Launch{}); err != nil || len(g.Budget) != 0 {
		t.Fatalf("2.21.5: %v, budget %+v; want none", err, g.Budget)
	}
}

// TestWorkFifoBytesMNNVLSm100: 2.26.5 and 2.26.6 default
// NCCL_WORK_FIFO_BYTES to -1, which devCommSetup reads as no work FIFO on
// an MNNVL communicator of sm100 GPUs (two GB200 trays) and 1 MiB
// elsewhere (one DGX H100); 2.26.3 and 2.27.3 default to 1 MiB. Without a
// FIFO, 200 plain AllReduces in one group must carry their work in the
// kernel arguments (4 KiB less the header, with the batches): six
// launches instead of one. An explicit value is kept in 2.26.5 even when
// it is not a power of 2 (the WARN's default is overwritten).
func TestWorkFifoBytesMNNVLSm100(t *testing.T) {
	type plan struct {
		works   int
		storage string
	}
	for _, tc := range []struct {
		v          Version
		preset     string
		nodes      int
		env        Env
		def        int64
		plans      int
		storage    string
		firstWorks int
	}{
		{V2_26_3, "gb200-nvl72", 2, nil, 1 << 20, 1, "fifo", 200},
		{V2_26_5, "gb200-nvl72", 2, nil, -1, 6, "args", 0},
		{V2_26_6, "gb200-nvl72", 2, nil, -1, 6, "args", 0},
		{V2_26_5, "gb200-nvl72", 2, Env{"NCCL_WORK_FIFO_BYTES": "1048576"}, -1, 1, "fifo", 200},
		{V2_26_5, "dgx-h100", 1, nil, -1, 1, "fifo", 200},
		{V2_27_3, "gb200-nvl72", 2, nil, 1 << 20, 1, "fifo", 200},
		// 2.26.5 keeps 4097 (2 KiB outside the arguments); 2.26.3 WARNs and keeps 1 MiB
		{V2_26_5, "dgx-h100", 1, Env{"NCCL_WORK_FIFO_BYTES": "4097"}, -1, 6, "args", 0},
		{V2_26_3, "dgx-h100", 1, Env{"NCCL_WORK_FIFO_BYTES": "4097"}, 1 << 20, 1, "fifo", 200},
	} {
		name := fmt.Sprintf("%s %s %v", tc.v, tc.preset, tc.env)
		if got := MustLoad(tc.v).Consts.IntParams["NCCL_WORK_FIFO_BYTES"]; got != tc.def {
			t.Errorf("%s: NCCL_WORK_FIFO_BYTES default %d, want %d", name, got, tc.def)
		}
		c := initPreset(t, tc.v, tc.preset, tc.nodes, tc.env)
		op := GroupOp{Op: Op{Func: AllReduce, Count: 256 << 10, DataType: Float32, RedOp: Sum}, Buffers: BuffersUser}
		g, err := c.SelectGroup([]GroupOp{op}, Launch{Mode: LaunchStream, Agg: 200})
		if err != nil || g.Err != nil {
			t.Fatalf("%s: %v %v", name, err, g.Err)
		}
		var got []plan
		for _, u := range g.Budget {
			got = append(got, plan{u.Works, u.Storage})
		}
		if g.Plans != tc.plans || len(got) == 0 || got[0].storage != tc.storage || tc.firstWorks > 0 && got[0].works != tc.firstWorks {
			t.Errorf("%s: %d plans %v, want %d in %q", name, g.Plans, got, tc.plans, tc.storage)
		}
	}
}
