package spec

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
)

// TestRegCollNetIPC: G-REG-COLLNET-IPC-1 at each release — which
// CollNetDirect tasks on registered buffers, with 8 ranks per node on
// dgx-h100 × 4 with SHARP, also register their buffers over IPC with the
// node's peers (none before 2.23.4; not a ReduceScatter 2.23.4–2.28.9; an
// AllGather alone from 2.29.2), that the channels stay those of the
// unregistered task, and that one rank per node registers nothing over
// IPC.
func TestRegCollNetIPC(t *testing.T) {
	for _, tc := range []struct {
		v       Version
		gpus    int
		f       Func
		outcome string // "" where the release lacks the rule
		peers   string
	}{
		{v: nccl.V2_22_3, gpus: 8, f: AllGather},
		{v: nccl.V2_23_4, gpus: 8, f: AllGather, outcome: "pass", peers: "IPC"},
		{v: nccl.V2_23_4, gpus: 8, f: AllReduce, outcome: "pass", peers: "IPC"},
		{v: nccl.V2_23_4, gpus: 8, f: ReduceScatter, outcome: "skip"},
		{v: nccl.V2_24_3, gpus: 8, f: AllReduce, outcome: "pass", peers: "IPC"},
		{v: nccl.V2_28_9, gpus: 8, f: AllGather, outcome: "pass", peers: "IPC"},
		{v: nccl.V2_28_9, gpus: 8, f: AllReduce, outcome: "pass", peers: "IPC"},
		{v: nccl.V2_28_9, gpus: 8, f: ReduceScatter, outcome: "skip"},
		{v: nccl.V2_29_2, gpus: 8, f: AllGather, outcome: "pass", peers: "IPC"},
		{v: nccl.V2_29_2, gpus: 8, f: AllReduce, outcome: "skip"},
		{v: nccl.V2_30_7, gpus: 8, f: AllGather, outcome: "pass", peers: "IPC"},
		// one rank per node: no local peer to register with
		{v: nccl.V2_28_9, gpus: 1, f: AllGather, outcome: "skip"},
	} {
		name := tc.v.String() + "/" + tc.f.String()
		dec, ch, tr := regOnSharp(t, tc.v, tc.gpus, "CollNetDirect", tc.f, 64<<20)
		if dec.Algo != CollNetDirect {
			t.Fatalf("%s: %s, want CollNetDirect", name, dec.Algo)
		}
		got, why := outcomeOf(tr, "G-REG-COLLNET-IPC-1")
		if got != tc.outcome || ch.RegPeers != tc.peers {
			t.Errorf("%s: G-REG-COLLNET-IPC-1 %q (%s), RegPeers %q; want %q, %q", name, got, why, ch.RegPeers, tc.outcome, tc.peers)
		}
		if tc.peers == "" {
			continue
		}
		// the same task on plain buffers: IPC changes no channel
		_, plain, _ := regOnSharpBuffers(t, tc.v, tc.gpus, "CollNetDirect", tc.f, 64<<20, BuffersUser)
		if plain.RegPeers != "" || plain.NChannels != ch.NChannels {
			t.Errorf("%s: plain buffers RegPeers %q on %d channels, registered on %d; want none and the same channels", name, plain.RegPeers, plain.NChannels, ch.NChannels)
		}
	}
}

// TestRegCollNetIPCFails: G-REG-COLLNET-IPC-1 fails where NCCL calls the
// peers' IPC registration and the export fails (cudaMalloc buffers without
// NCCL_LEGACY_CUDA_REGISTER=1 from 2.24.3; v2.28.9-1 src/transport/p2p.cc
// ipcRegisterBuffer, its failure ignored by src/register/coll_reg.cc
// ncclRegisterCollBuffers): RegFailed "IPC", the CollNet side still
// registered, the channels of cuMem buffers kept.
func TestRegCollNetIPCFails(t *testing.T) {
	ag := Op{Func: AllGather, Count: 16 << 20, DataType: Float32}
	for _, tc := range []struct {
		v       Version
		alloc   Alloc
		outcome string
		failed  string
	}{
		{V2_24_3, AllocCudaMalloc, "fail", "IPC"},
		{V2_28_9, AllocCudaMalloc, "fail", "IPC"},
		{V2_30_7, AllocCudaMalloc, "fail", "IPC"},
		{V2_28_9, AllocCuMem, "pass", ""},
	} {
		name := tc.v.String() + "/" + tc.alloc.String()
		_, ch, tr := regOnSharpOp(t, tc.v, 8, "CollNetDirect", GroupOp{Op: ag, Buffers: BuffersRegistered, Alloc: tc.alloc})
		got, why := outcomeOf(tr, "G-REG-COLLNET-IPC-1")
		if got != tc.outcome || ch.RegFailed != tc.failed || ch.Registered != "CollNet" {
			t.Errorf("%s: G-REG-COLLNET-IPC-1 %q (%s), RegFailed %q, Registered %q; want %q, %q, CollNet", name, got, why, ch.RegFailed, ch.Registered, tc.outcome, tc.failed)
		}
		if _, cm, _ := regOnSharpOp(t, tc.v, 8, "CollNetDirect", GroupOp{Op: ag, Buffers: BuffersRegistered, Alloc: AllocCuMem}); cm.NChannels != ch.NChannels {
			t.Errorf("%s: %d channels, cuMem buffers %d", name, ch.NChannels, cm.NChannels)
		}
	}
}

// TestRegCollNetSplit: G-REG-COLLNET-SPLIT-1 — from 2.24.3 the CollNet
// proxy re-splits a registered one-rank-per-node op (one enqueue step)
// into ceil(nbytes / 512 MiB) plugin collectives with the preset's v8
// SHARP plugin; with several ranks per node it keeps the FIFO's steps;
// before 2.24.3 the rule is absent (the enqueue cuts the op itself).
func TestRegCollNetSplit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		v        Version
		gpus     int
		algo     string
		f        Func
		bytes    int64
		outcome  string
		netSteps int64
	}{
		{v: nccl.V2_23_4, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: 1 << 30},
		{v: nccl.V2_24_3, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: 1 << 30, outcome: "pass", netSteps: 2},
		{v: nccl.V2_28_9, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: 1<<30 + 4, outcome: "pass", netSteps: 3},
		{v: nccl.V2_28_9, gpus: 1, algo: "CollNetChain", f: AllReduce, bytes: 64 * mib, outcome: "pass", netSteps: 1},
		{v: nccl.V2_30_7, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: 2 << 30, outcome: "pass", netSteps: 4},
		{v: nccl.V2_28_9, gpus: 8, algo: "CollNetDirect", f: AllGather, bytes: 64 * mib, outcome: "skip"},
	} {
		name := tc.v.String() + "/" + tc.algo
		dec, _, tr := regOnSharp(t, tc.v, tc.gpus, tc.algo, tc.f, tc.bytes)
		got, why := outcomeOf(tr, "G-REG-COLLNET-SPLIT-1")
		if got != tc.outcome || dec.Chunk.Proxy.NetSteps != tc.netSteps {
			t.Errorf("%s: G-REG-COLLNET-SPLIT-1 %q (%s), netSteps %d; want %q, %d", name, got, why, dec.Chunk.Proxy.NetSteps, tc.outcome, tc.netSteps)
		}
		if tc.netSteps > 0 && (dec.Chunk.Proxy.NSteps != 1 || dec.Chunk.Proxy.MaxCollBytes != 512*mib || !strings.Contains(why, "plugin collective")) {
			t.Errorf("%s: proxy op %+v, verdict %q; want one enqueue step and 512 MiB pieces", name, dec.Chunk.Proxy, why)
		}
	}
}

// TestCollNetFlush: G-COLLNET-FLUSH-1 per release and environment on
// dgx-h100 × 4 with SHARP (CollNetDirect forced): Hopper's CollNet
// receives flush by default until 2.18.6 (NCCL_NET_FORCE_FLUSH 1), from
// 2.19.1 only when forced; the gdrcopy flush replaces the iflush where
// libgdrapi.so opens and both variables ask for it, and fails on a host
// that is not x86_64 until 2.30.4 (2.30.7 reads through ncclGdrCudaRead
// there: v2.30.7-1 src/transport/coll_net.cc recvProxyProgress);
// NCCL_GDR_FLUSH_DISABLE (NCCL's IB) changes nothing.
func TestCollNetFlush(t *testing.T) {
	gdrLib := Library{Path: "/usr/lib/libgdrapi.so", InLoaderPath: true}
	gdrEnv := Env{"NCCL_NET_FORCE_FLUSH": "1", "NCCL_GDRCOPY_ENABLE": "1", "NCCL_GDRCOPY_FLUSH_ENABLE": "1"}
	for _, tc := range []struct {
		name    string
		v       Version
		env     Env
		lib     bool
		arch    string
		outcome string
		want    string // in the verdict
	}{
		{name: "2.18.6 default", v: nccl.V2_18_6, outcome: "pass", want: "iflush"},
		{name: "2.19.1 default", v: nccl.V2_19_1, outcome: "skip", want: "need no flush"},
		{name: "2.28.9 default", v: nccl.V2_28_9, outcome: "skip", want: "need no flush"},
		{name: "2.28.9 forced", v: nccl.V2_28_9, env: Env{"NCCL_NET_FORCE_FLUSH": "1"}, outcome: "pass", want: "iflush"},
		{name: "2.28.9 forced, GDR flush disabled", v: nccl.V2_28_9, env: Env{"NCCL_NET_FORCE_FLUSH": "1", "NCCL_GDR_FLUSH_DISABLE": "1"}, outcome: "pass", want: "iflush"},
		{name: "2.28.9 gdrcopy without the library", v: nccl.V2_28_9, env: gdrEnv, outcome: "pass", want: "iflush"},
		{name: "2.28.9 gdrcopy", v: nccl.V2_28_9, env: gdrEnv, lib: true, outcome: "pass", want: "one CPU read"},
		{name: "2.28.9 gdrcopy without FLUSH_ENABLE", v: nccl.V2_28_9, env: Env{"NCCL_NET_FORCE_FLUSH": "1", "NCCL_GDRCOPY_ENABLE": "1"}, lib: true, outcome: "pass", want: "iflush"},
		{name: "2.28.9 gdrcopy on arm64", v: nccl.V2_28_9, env: gdrEnv, lib: true, arch: "arm64", outcome: "fail", want: "only supported on x86_64"},
		{name: "2.30.7 gdrcopy", v: nccl.V2_30_7, env: gdrEnv, lib: true, outcome: "pass", want: "one CPU read"},
		// 2.30.7 reads through ncclGdrCudaRead off x86_64; 2.30.4 still fails
		{name: "2.30.4 gdrcopy on arm64", v: nccl.V2_30_4, env: gdrEnv, lib: true, arch: "arm64", outcome: "fail", want: "only supported on x86_64"},
		{name: "2.30.7 gdrcopy on arm64", v: nccl.V2_30_7, env: gdrEnv, lib: true, arch: "arm64", outcome: "pass", want: "ncclGdrCudaRead"},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 4, SHARP: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range sys.Nodes {
			if tc.lib {
				sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, gdrLib)
			}
			if tc.arch != "" {
				sys.Nodes[i].CPU.Arch, sys.Nodes[i].CPU.Vendor = tc.arch, ""
			}
		}
		env := Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": "CollNetDirect"}
		for k, v := range tc.env {
			env[k] = v
		}
		c, err := Init(MustLoad(tc.v), sys, env)
		if err != nil || c.Err != nil {
			t.Fatal(tc.name, err, c.Err)
		}
		d, tr, err := c.Select(Op{Func: AllReduce, Count: 1 << 20, DataType: Float32, RedOp: Sum})
		if err != nil || d.Algo != CollNetDirect {
			t.Fatalf("%s: %v %v, want CollNetDirect", tc.name, d.Algo, err)
		}
		got, why := outcomeOf(tr.Op(), "G-COLLNET-FLUSH-1")
		if got != tc.outcome || !strings.Contains(why, tc.want) {
			t.Errorf("%s: G-COLLNET-FLUSH-1 %q (%s); want %q with %q", tc.name, got, why, tc.outcome, tc.want)
		}
		if f := c.CollNetFlush(); f.Flushes() != (tc.outcome != "skip" && tc.want == "iflush") {
			t.Errorf("%s: Flushes %v (%+v)", tc.name, f.Flushes(), f)
		}
	}
}

// TestRegCollNetNeedsGDR: from 2.24.3 CollNet registers a buffer only
// through a CollNet connector with GPU Direct RDMA (collnetRegisterBuffer:
// NCCL_DIRECT_NIC); with NCCL_NET_GDR_LEVEL=LOC (no GDR) a one-rank-per-node
// CollNetDirect AllReduce keeps its channels and says why, while 2.23.4,
// which does not look, registers it.
func TestRegCollNetNeedsGDR(t *testing.T) {
	for _, tc := range []struct {
		v   Version
		reg string
	}{
		{nccl.V2_23_4, "CollNet"},
		{nccl.V2_24_3, ""},
		{nccl.V2_28_9, ""},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 4, SHARP: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range sys.Nodes {
			sys.Nodes[i].GPUs = sys.Nodes[i].GPUs[:1]
		}
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": "CollNetDirect", "NCCL_NET_GDR_LEVEL": "LOC"})
		if err != nil || c.Err != nil {
			t.Fatal(err, c.Err)
		}
		if c.CollNetFlush().Conns.GDR {
			t.Fatalf("%s: CollNet connectors with GDR under NCCL_NET_GDR_LEVEL=LOC", tc.v)
		}
		g, err := c.SelectGroup([]GroupOp{{Op: Op{Func: AllReduce, Count: 1 << 24, DataType: Float32, RedOp: Sum}, Buffers: BuffersRegistered}}, Launch{})
		if err != nil || g.Err != nil {
			t.Fatal(err, g.Err)
		}
		ch := g.Choices[0]
		if ch.Registered != tc.reg || (tc.reg == "" && !strings.Contains(ch.RegRefused, "GPU Direct RDMA")) {
			t.Errorf("%s: registered %q (refused: %s), want %q", tc.v, ch.Registered, ch.RegRefused, tc.reg)
		}
	}
}

// TestCollNetFlushC2CGdcPin: from 2.30.3, with gdrcopy and
// NCCL_GDRCOPY_SYNC_ENABLE (default 1), a C2C flush (ncclTopoFlushC2c) is
// skipped where libgdrapi has gdr_pin_buffer_v2 (GDRCopy 2.5+; v2.30.3-1
// src/include/graph.h ncclGdcPinFlag, src/transport/coll_net.cc
// recvProxyConnect). No system gatesim models says which GDRCopy it has,
// so the flush stays and the verdict says why; 2.29.7, without the pin
// flag, and a run without gdrcopy or with the sync off, say nothing of it.
func TestCollNetFlushC2CGdcPin(t *testing.T) {
	gdrLib := Library{Path: "/usr/lib/libgdrapi.so", InLoaderPath: true}
	const note = "GDRCopy 2.5+"
	for _, tc := range []struct {
		name string
		v    Version
		env  Env
		lib  bool
		note bool
	}{
		{name: "2.30.7 gdrcopy", v: nccl.V2_30_7, env: Env{"NCCL_GDRCOPY_ENABLE": "1"}, lib: true, note: true},
		{name: "2.30.3 gdrcopy flush", v: nccl.V2_30_3, env: Env{"NCCL_GDRCOPY_ENABLE": "1", "NCCL_GDRCOPY_FLUSH_ENABLE": "1"}, lib: true, note: true},
		{name: "2.30.7 gdrcopy sync off", v: nccl.V2_30_7, env: Env{"NCCL_GDRCOPY_ENABLE": "1", "NCCL_GDRCOPY_SYNC_ENABLE": "0"}, lib: true},
		{name: "2.30.7 without the library", v: nccl.V2_30_7, env: Env{"NCCL_GDRCOPY_ENABLE": "1"}},
		{name: "2.29.7 gdrcopy", v: nccl.V2_29_7, env: Env{"NCCL_GDRCOPY_ENABLE": "1"}, lib: true},
	} {
		// one C2C-attached Hopper a node, its NIC (a CollNet device)
		// within PXB, SHARP
		xml := strings.Replace(c2cPCIePair, `gdr="1"/>`, `gdr="1" coll="1"/>`, 1)
		sys, err := SystemFromTopology("c2c-pcie.xml", []byte(xml), 4)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sys.Nodes {
			sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, SHARPPlugin())
			if tc.lib {
				sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, gdrLib)
			}
		}
		env := Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": "CollNetChain"}
		for k, v := range tc.env {
			env[k] = v
		}
		c, err := Init(MustLoad(tc.v), sys, env)
		if err != nil || c.Err != nil {
			t.Fatal(tc.name, err, c.Err)
		}
		// the flush the simulator charges (sim.MachineForComm reads
		// Conns.Flush) stays
		f := c.CollNetFlush()
		if f.Conns.Type != topo.FlushC2C || !f.Conns.Flush {
			t.Fatalf("%s: CollNet connectors %+v, want a C2C flush", tc.name, f.Conns)
		}
		d, tr, err := c.Select(Op{Func: AllReduce, Count: 1 << 20, DataType: Float32, RedOp: Sum})
		if err != nil || d.Algo != CollNetChain {
			t.Fatalf("%s: %v %v, want CollNetChain (no NVSwitch: no CollNetDirect)", tc.name, d.Algo, err)
		}
		got, why := outcomeOf(tr.Op(), "G-COLLNET-FLUSH-1")
		if got == "skip" || strings.Contains(why, note) != tc.note {
			t.Errorf("%s: G-COLLNET-FLUSH-1 %q (%s); want the flush kept, the GDRCopy note %v", tc.name, got, why, tc.note)
		}
	}
}
