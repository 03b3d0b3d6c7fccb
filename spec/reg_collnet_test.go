package spec

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
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
