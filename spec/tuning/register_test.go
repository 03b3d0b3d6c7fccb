package tuning

import (
	"slices"
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestTuningCollNetUserBuffers: a CollNetDirect or CollNetChain task whose
// buffers NCCL registers with the CollNet plugin runs on one channel, only
// with one rank per node and only from 2.21.5 (collNetRegSupport;
// v2.22.3-1 src/enqueue.cc registerIntraNodeBuffers, v2.28.9-1
// src/register/coll_reg.cc ncclRegisterCollBuffers). Avg (PreMulSum on
// floats) keeps its channels, and so do plain buffers.
func TestTuningCollNetUserBuffers(t *testing.T) {
	for _, tc := range []struct {
		v       nccl.Version
		algo    nccl.Algo
		ppn     int
		bufs    nccl.Buffers
		graph   bool
		redOp   nccl.RedOp
		env     func(*Input)
		wantReg string
		wantNC  int // 0: the unregistered choice's channels, which must differ from 1
	}{
		{v: nccl.V2_22_3, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, wantReg: "CollNet", wantNC: 1},
		{v: nccl.V2_22_3, algo: nccl.CollNetChain, ppn: 1, bufs: nccl.BuffersRegistered, wantReg: "CollNet", wantNC: 1},
		{v: nccl.V2_28_9, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, wantReg: "CollNet", wantNC: 1},
		{v: nccl.V2_28_9, algo: nccl.CollNetChain, ppn: 1, graph: true, wantReg: "CollNet", wantNC: 1},
		{v: nccl.V2_21_5, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, wantReg: "CollNet", wantNC: 1},
		// 2.21.5–2.23.4 bound the one channel by NCCL_MIN_CTAS; 2.24.3 does not
		{v: nccl.V2_22_3, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, env: func(in *Input) { in.MinCTAs = 2 }, wantReg: "CollNet", wantNC: 2},
		{v: nccl.V2_28_9, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, env: func(in *Input) { in.MinCTAs = 2 }, wantReg: "CollNet", wantNC: 1},
		// 2.23.4's registerCollBuffers already sets one channel, without the CTA bounds
		{v: nccl.V2_23_4, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, env: func(in *Input) { in.MinCTAs = 2 }, wantReg: "CollNet", wantNC: 1},
		// not registered: before 2.21.5, several ranks per node, plain
		// buffers, NCCL_LOCAL_REGISTER=0, PreMulSum
		{v: nccl.V2_20_5, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered},
		{v: nccl.V2_28_9, algo: nccl.CollNetDirect, ppn: 8, bufs: nccl.BuffersRegistered},
		{v: nccl.V2_28_9, algo: nccl.CollNetDirect, ppn: 1},
		{v: nccl.V2_28_9, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, env: func(in *Input) { off := int64(0); in.LocalRegister = &off }},
		{v: nccl.V2_28_9, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, redOp: nccl.PreMulSum},
		// from 2.24.3 a CollNet connector without GPU Direct RDMA refuses
		// the registration (reg.collNetGdr); 2.23.4 registers anyway
		{v: nccl.V2_28_9, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, env: func(in *Input) { in.CollNetGDR = false }},
		{v: nccl.V2_23_4, algo: nccl.CollNetDirect, ppn: 1, bufs: nccl.BuffersRegistered, env: func(in *Input) { in.CollNetGDR = false }, wantReg: "CollNet", wantNC: 1},
	} {
		in := tuningMultiNodeInput(4, tc.ppn)
		tuningForceAlgo(&in, tc.algo)
		if tc.env != nil {
			tc.env(&in)
		}
		m := tuningModel(t, in, tc.v)
		op := opOfBytes(t, nccl.AllReduce, 64<<20, nccl.Float32)
		if tc.redOp != nccl.Sum {
			op.RedOp = tc.redOp
		}
		ch, err := ChooseOp(m, Call{Op: op, CollNetOK: true, Buffers: tc.bufs, Graph: tc.graph})
		if err != nil {
			t.Fatal(err)
		}
		name := tc.v.String() + " " + tc.algo.String()
		if ch.Err != nil || ch.Algo != tc.algo {
			t.Fatalf("%s ppn %d: got %s (err %v), want the forced algorithm", name, tc.ppn, ch.Algo, ch.Err)
		}
		if ch.Registered != tc.wantReg {
			t.Errorf("%s ppn %d buffers %s graph %v: registered %q, want %q", name, tc.ppn, tc.bufs, tc.graph, ch.Registered, tc.wantReg)
		}
		switch {
		case tc.wantNC != 0 && ch.NChannels != tc.wantNC:
			t.Errorf("%s ppn %d: %d channels, want %d", name, tc.ppn, ch.NChannels, tc.wantNC)
		case tc.wantNC == 0 && ch.NChannels <= 1:
			t.Errorf("%s ppn %d: %d channels, want the unregistered count", name, tc.ppn, ch.NChannels)
		}
	}
}

// TestTuningNVLSRegChannels: the channels of a task on NVLS-registered
// buffers per release, worked out from each tag's source by hand (one node
// with 8 NVLS heads unless said; CTA bounds 1..MAXCHANNELS unless said).
func TestTuningNVLSRegChannels(t *testing.T) {
	for _, tc := range []struct {
		v      nccl.Version
		nodes  int
		cc     int
		minCTA int
		maxCTA int
		f      nccl.Func
		want   int
		ok     bool
	}{
		// 2.18.x registers no NVLS buffer
		{v: nccl.V2_18_6, nodes: 1, cc: 90, f: nccl.AllReduce},
		// 2.19.1: 5 or 4 within the CTA bounds, any node count
		{v: nccl.V2_19_1, nodes: 1, cc: 90, f: nccl.ReduceScatter, want: 5, ok: true},
		{v: nccl.V2_19_1, nodes: 4, cc: 90, f: nccl.AllReduce, want: 4, ok: true},
		{v: nccl.V2_19_1, nodes: 1, cc: 90, maxCTA: 2, f: nccl.AllReduce, want: 2, ok: true},
		// 2.19.3–2.19.4: at most nvlsChannels (16), not the CTA bounds
		{v: nccl.V2_19_4, nodes: 1, cc: 90, maxCTA: 2, f: nccl.AllReduce, want: 4, ok: true},
		{v: nccl.V2_19_4, nodes: 4, cc: 90, f: nccl.AllReduce, want: 4, ok: true},
		// 2.20.3–2.24.3: several nodes 6
		{v: nccl.V2_22_3, nodes: 4, cc: 90, f: nccl.AllReduce, want: 6, ok: true},
		{v: nccl.V2_22_3, nodes: 1, cc: 90, minCTA: 8, f: nccl.AllGather, want: 8, ok: true},
		{v: nccl.V2_24_3, nodes: 1, cc: 100, f: nccl.AllReduce, want: 4, ok: true},
		// 2.25.1–2.26.x: sm100 8 (AllReduce, AllGather), 6 (ReduceScatter), 7 across nodes
		{v: nccl.V2_25_1, nodes: 1, cc: 100, f: nccl.AllReduce, want: 8, ok: true},
		{v: nccl.V2_26_2, nodes: 1, cc: 100, f: nccl.ReduceScatter, want: 6, ok: true},
		{v: nccl.V2_26_2, nodes: 4, cc: 100, f: nccl.AllGather, want: 7, ok: true},
		{v: nccl.V2_26_2, nodes: 1, cc: 90, f: nccl.AllReduce, want: 4, ok: true},
		// 2.27.3+: ⌈factor / 8 heads⌉
		{v: nccl.V2_28_9, nodes: 1, cc: 100, f: nccl.AllReduce, want: 8, ok: true},    // 64/8
		{v: nccl.V2_28_9, nodes: 1, cc: 90, f: nccl.ReduceScatter, want: 5, ok: true}, // 40/8
		{v: nccl.V2_28_9, nodes: 4, cc: 100, f: nccl.AllReduce, want: 7, ok: true},    // 56/8
		{v: nccl.V2_28_9, nodes: 4, cc: 90, f: nccl.AllGather, want: 6, ok: true},     // 48/8
		{v: nccl.V2_28_9, nodes: 1, cc: 90, f: nccl.Broadcast},
	} {
		in := tuningMultiNodeInput(tc.nodes, 8)
		in.MinCompCap, in.MaxCompCap = tc.cc, tc.cc
		in.NVLSHeads, in.MinCTAs, in.MaxCTAs = 8, tc.minCTA, tc.maxCTA
		m := tuningModel(t, in, tc.v)
		got, ok := m.nvlsRegChannels(tc.f)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s %d node(s) sm%d CTAs %d..%d %s: %d %v, want %d %v", tc.v, tc.nodes, tc.cc, tc.minCTA, tc.maxCTA, tc.f, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTuningCollNetIPCFails: CollNetDirect's IPC registration with the
// node's peers (G-REG-COLLNET-IPC-1, 2.23.4+) calls the same IPC
// registration as Ring's, and an export that fails there is a failed call
// (2.24.3+ WARNs "failed to IPC register", 2.23.4 is silent): regBufFlag 0
// ignored by the caller, no regUsed, the channels
// and (2.24.3+) CollNet's own registration unchanged (v2.23.4-1
// src/enqueue.cc registerCollBuffers; v2.24.3-1, v2.28.9-1 and v2.30.7-1
// src/register/coll_reg.cc ncclRegisterCollBuffers; v2.28.9-1
// src/transport/p2p.cc ipcRegisterBuffer). A registration NCCL never calls
// (no record under NCCL_P2P_USE_CUDA_MEMCPY=1, a function the release
// does not register) sets no RegFailed.
func TestTuningCollNetIPCFails(t *testing.T) {
	on := int64(1)
	for _, tc := range []struct {
		name    string
		v       nccl.Version
		f       nccl.Func
		alloc   nccl.Alloc
		env     func(*Input)
		peers   string // RegPeers
		failed  string // RegFailed
		silent  string // RegSilent: the failed calls that print no line
		refused bool   // RegRefused set
		coll    string // Registered
	}{
		{name: "cuMem exports", v: nccl.V2_28_9, f: nccl.AllGather, alloc: nccl.AllocCuMem, peers: "IPC", coll: "CollNet"},
		// cudaMalloc goes over legacy CUDA IPC, only under NCCL_LEGACY_CUDA_REGISTER=1 (2.24.3+)
		{name: "cudaMalloc", v: nccl.V2_28_9, f: nccl.AllGather, alloc: nccl.AllocCudaMalloc, failed: "IPC", refused: true, coll: "CollNet"},
		{name: "cudaMalloc AllReduce", v: nccl.V2_24_3, f: nccl.AllReduce, alloc: nccl.AllocCudaMalloc, failed: "IPC", refused: true},
		{name: "cudaMalloc legacy IPC on", v: nccl.V2_28_9, f: nccl.AllGather, alloc: nccl.AllocCudaMalloc, env: func(in *Input) { in.LegacyCudaRegister = &on }, peers: "IPC", coll: "CollNet"},
		{name: "cuMem, NCCL's cuMem off", v: nccl.V2_30_7, f: nccl.AllGather, alloc: nccl.AllocCuMem, env: func(in *Input) { in.CuMem = false }, failed: "IPC", refused: true, coll: "CollNet"},
		// 2.23.4: cudaMalloc over legacy IPC without the parameter, refused in one process (directMode)
		{name: "2.23.4 cudaMalloc", v: nccl.V2_23_4, f: nccl.AllGather, alloc: nccl.AllocCudaMalloc, peers: "IPC"},
		{name: "2.23.4 directMode", v: nccl.V2_23_4, f: nccl.AllGather, alloc: nccl.AllocCudaMalloc, env: func(in *Input) { in.SharedProcess = true }, failed: "IPC", silent: "IPC", refused: true},
		// from 2.24.3 CollNet's own registration fails without GPU Direct
		// RDMA ("COLLNET failed to register"), after the peers' IPC one
		{name: "no GDR", v: nccl.V2_28_9, f: nccl.AllGather, alloc: nccl.AllocCuMem, env: func(in *Input) { in.CollNetGDR = false }, peers: "IPC", failed: "CollNet", refused: true},
		{name: "cudaMalloc, no GDR", v: nccl.V2_24_3, f: nccl.AllGather, alloc: nccl.AllocCudaMalloc, env: func(in *Input) { in.CollNetGDR = false }, failed: "IPC+CollNet", refused: true},
		// never called: no record at all, or a function 2.29.2 does not register over IPC
		{name: "P2P memcpy", v: nccl.V2_28_9, f: nccl.AllGather, alloc: nccl.AllocCudaMalloc, env: func(in *Input) { in.P2PUseMemcpy = true }, refused: true},
		{name: "2.29.2 AllReduce", v: nccl.V2_29_2, f: nccl.AllReduce, alloc: nccl.AllocCudaMalloc},
		{name: "2.22.3", v: nccl.V2_22_3, f: nccl.AllGather, alloc: nccl.AllocCudaMalloc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tuningMultiNodeInput(4, 8)
			in.DirectP2P, in.CuMem = true, true
			tuningForceAlgo(&in, nccl.CollNetDirect)
			if tc.env != nil {
				tc.env(&in)
			}
			m := tuningModel(t, in, tc.v)
			call := Call{Op: opOfBytes(t, tc.f, 64<<20, nccl.Float32), CollNetOK: true, Buffers: nccl.BuffersRegistered, Alloc: tc.alloc}
			ch, err := ChooseOp(m, call)
			if err != nil || ch.Err != nil || ch.Algo != nccl.CollNetDirect {
				t.Fatalf("%v %v %s: want CollNetDirect", err, ch.Err, ch.Algo)
			}
			if ch.RegPeers != tc.peers || ch.RegFailed != tc.failed || ch.RegSilent != tc.silent || (ch.RegRefused != "") != tc.refused || ch.Registered != tc.coll {
				t.Errorf("RegPeers %q RegFailed %q RegSilent %q RegRefused %q Registered %q; want %q %q %q %v %q", ch.RegPeers, ch.RegFailed, ch.RegSilent, ch.RegRefused, ch.Registered, tc.peers, tc.failed, tc.silent, tc.refused, tc.coll)
			}
			// the peers' registration changes no channel: plain buffers run on as many
			plain := call
			plain.Buffers, plain.Alloc = nccl.BuffersUser, nccl.AllocCuMem
			pc, err := ChooseOp(m, plain)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Registered == "" && pc.NChannels != ch.NChannels {
				t.Errorf("%d channels, plain buffers %d", ch.NChannels, pc.NChannels)
			}
		})
	}
}

// TestTuningRegFailureLines: the lines a failed registration prints, per
// release (RegResults, what the log reader compares). Ring's IPC export
// that fails prints "failed to IPC register" from 2.24.3 (ipcRegisterBuffer)
// and nothing at 2.23.4 (ncclIpcLocalRegisterBuffer); a CollNet
// registration through a connector without GPU Direct RDMA is a call
// that fails and prints "COLLNET failed to register" from 2.24.3
// (collnetRegisterBuffer), while 2.23.4 registers regardless; an NVLS bind
// that fails prints "failed to NVLS register" from 2.24.3
// (nvlsRegisterBuffer), before only its "Cuda failure" (v2.22.3-1
// tryRegisterBuffer). Every failed call leaves the task on its
// unregistered channels.
func TestTuningRegFailureLines(t *testing.T) {
	failedLine := func(k ChunkReg) []RegResult { return []RegResult{{Kind: k, Failed: true}} }
	for _, tc := range []struct {
		name   string
		v      nccl.Version
		algo   nccl.Algo
		ppn    int
		alloc  nccl.Alloc
		env    func(*Input)
		failed string
		silent string
		coll   string
		lines  []RegResult
	}{
		{name: "Ring directMode", v: nccl.V2_23_4, algo: nccl.Ring, ppn: 8, alloc: nccl.AllocCudaMalloc, env: func(in *Input) { in.SharedProcess = true }, failed: "IPC", silent: "IPC"},
		{name: "Ring cuMem off", v: nccl.V2_23_4, algo: nccl.Ring, ppn: 8, alloc: nccl.AllocCuMem, env: func(in *Input) { in.CuMem = false }, failed: "IPC", silent: "IPC"},
		{name: "Ring cuMem off", v: nccl.V2_24_3, algo: nccl.Ring, ppn: 8, alloc: nccl.AllocCuMem, env: func(in *Input) { in.CuMem = false }, failed: "IPC", lines: failedLine(ChunkRegIPC)},
		{name: "Ring legacy IPC off", v: nccl.V2_24_3, algo: nccl.Ring, ppn: 8, alloc: nccl.AllocCudaMalloc, failed: "IPC", lines: failedLine(ChunkRegIPC)},
		{name: "Ring exports", v: nccl.V2_23_4, algo: nccl.Ring, ppn: 8, alloc: nccl.AllocCudaMalloc, coll: "IPC", lines: []RegResult{{Kind: ChunkRegIPC}}},
		{name: "CollNet no GDR", v: nccl.V2_24_3, algo: nccl.CollNetDirect, ppn: 1, alloc: nccl.AllocCuMem, env: func(in *Input) { in.CollNetGDR = false }, failed: "CollNet", lines: failedLine(ChunkRegCollNet)},
		{name: "CollNet no GDR", v: nccl.V2_30_7, algo: nccl.CollNetDirect, ppn: 1, alloc: nccl.AllocCudaMalloc, env: func(in *Input) { in.CollNetGDR = false }, failed: "CollNet", lines: failedLine(ChunkRegCollNet)},
		{name: "CollNet no GDR", v: nccl.V2_23_4, algo: nccl.CollNetDirect, ppn: 1, alloc: nccl.AllocCuMem, env: func(in *Input) { in.CollNetGDR = false }, coll: "CollNet", lines: []RegResult{{Kind: ChunkRegCollNet}}},
		// an NVLS AllReduce on cudaMalloc buffers: the bind fails; before
		// 2.24.3 only its "Cuda failure" is printed
		{name: "NVLS cudaMalloc", v: nccl.V2_22_3, algo: nccl.NVLS, ppn: 8, alloc: nccl.AllocCudaMalloc, failed: "NVLS", silent: "NVLS"},
		{name: "NVLS cudaMalloc", v: nccl.V2_24_3, algo: nccl.NVLS, ppn: 8, alloc: nccl.AllocCudaMalloc, failed: "NVLS", lines: failedLine(ChunkRegNVLS)},
	} {
		t.Run(tc.v.String()+" "+tc.name, func(t *testing.T) {
			in := tuningMultiNodeInput(2, tc.ppn)
			in.DirectP2P, in.CuMem, in.NVLSHeads = true, true, 8
			tuningForceAlgo(&in, tc.algo)
			if tc.env != nil {
				tc.env(&in)
			}
			m := tuningModel(t, in, tc.v)
			f := nccl.AllGather
			if tc.algo == nccl.NVLS {
				f = nccl.AllReduce
			}
			call := Call{Op: opOfBytes(t, f, 64<<20, nccl.Float32), CollNetOK: true, NVLSOK: true, Buffers: nccl.BuffersRegistered, Alloc: tc.alloc}
			ch, err := ChooseOp(m, call)
			if err != nil || ch.Err != nil || ch.Algo != tc.algo || ch.Proto != nccl.Simple {
				t.Fatalf("%v %v %s/%s: want %s/Simple", err, ch.Err, ch.Algo, ch.Proto, tc.algo)
			}
			if ch.RegFailed != tc.failed || ch.RegSilent != tc.silent || ch.Registered != tc.coll || (tc.failed != "") != (ch.RegRefused != "") {
				t.Errorf("RegFailed %q RegSilent %q Registered %q RegRefused %q; want %q %q %q, refused iff failed", ch.RegFailed, ch.RegSilent, ch.Registered, ch.RegRefused, tc.failed, tc.silent, tc.coll)
			}
			if got := ch.RegResults(); !slices.Equal(got, tc.lines) {
				t.Errorf("RegResults %v, want %v", got, tc.lines)
			}
			if tc.failed == "" {
				return
			}
			// a failed call keeps the channels of plain buffers
			plain := call
			plain.Buffers, plain.Alloc = nccl.BuffersUser, nccl.AllocCuMem
			pc, err := ChooseOp(m, plain)
			if err != nil {
				t.Fatal(err)
			}
			if pc.NChannels != ch.NChannels {
				t.Errorf("%d channels, plain buffers %d", ch.NChannels, pc.NChannels)
			}
		})
	}
}

// TestTuningLegacyNVLSFailSilent: before 2.22.3 (the legacy scheduler,
// v2.19.4-1 src/enqueue.cc registerIntraNodeBuffers, nvls.cc
// tryRegisterBuffer) a group of NVLS AllReduce on cudaMalloc buffers,
// spread over two plans, fails each bind once (RegFailed "NVLS") and
// prints no "failed to NVLS register" line (RegSilent "NVLS": the line
// comes with 2.24.3), so RegResults has nothing for the log reader.
func TestTuningLegacyNVLSFailSilent(t *testing.T) {
	in := tuningMultiNodeInput(1, 8)
	in.NVLSHeads = 8
	tuningForceAlgo(&in, nccl.NVLS)
	depth := int64(64)
	in.WorkFifoDepth = &depth
	m := tuningModel(t, in, nccl.V2_19_4)
	ops := make([]Call, 40)
	for i := range ops {
		ops[i] = Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 1 << 18, DataType: nccl.Float32}, Buffers: nccl.BuffersRegistered, NVLSOK: true, Alloc: nccl.AllocCudaMalloc}
	}
	g, err := ChooseGroup(m, ops)
	if err != nil || g.Err != nil {
		t.Fatal(err, g.Err)
	}
	if g.Plans < 2 {
		t.Fatalf("%d plan(s): want the group to spill into a second plan", g.Plans)
	}
	for i, c := range g.Ops {
		if c.RegFailed != "NVLS" || c.RegSilent != "NVLS" || c.Registered != "" || len(c.RegResults()) != 0 {
			t.Errorf("op %d: RegFailed %q RegSilent %q Registered %q lines %v; want NVLS, NVLS, none, none", i, c.RegFailed, c.RegSilent, c.Registered, c.RegResults())
		}
	}
}
