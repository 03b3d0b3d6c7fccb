package tuning

import (
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"pgregory.net/rapid"
)

// TestCollChunkRules: each algorithm rule of calcCollChunking on one
// communicator, the figures worked out from src/enqueue.cc at v2.30.7-1
// (and computeColl at v2.18.1-1 for the Tree/Simple depth rule).
func TestCollChunkRules(t *testing.T) {
	const k = 1 << 10
	base := ChunkComm{NRanks: 16, NNodes: 2, NVLSHeads: 8, CollNetHeads: 1, CollNetDepth: 2, NVLSBw: 400,
		Rules: ChunkRules{NVLSNetChunkCap: true, NVLSTreeChunkCap4Nodes: true}}
	edit := func(f func(*ChunkComm)) ChunkComm { c := base; f(&c); return c }
	for _, tc := range []struct {
		name   string
		cc     ChunkComm
		f      nccl.Func
		a      nccl.Algo
		p      nccl.Proto
		nc     int
		nBytes int64
		want   int64
	}{
		// stepSize × ALLREDUCE_CHUNKSTEPS, no shrinking
		{"Ring/Simple", base, nccl.AllReduce, nccl.Ring, nccl.Simple, 1, 1 << 10, 2048 * k},
		{"Ring/Simple Broadcast", base, nccl.Broadcast, nccl.Ring, nccl.Simple, 1, 1 << 30, 512 * k},
		{"Ring/Simple NCCL_BUFFSIZE", edit(func(c *ChunkComm) { c.BuffSize[nccl.Simple] = 1 << 20 }), nccl.AllGather, nccl.Ring, nccl.Simple, 1, 1 << 30, 512 * k},
		// LL: half of the 64 KiB step; LL128: 15/16 of 600 KiB
		{"Ring/LL", base, nccl.AllReduce, nccl.Ring, nccl.LL, 4, 1 << 30, 32 * k},
		{"Ring/LL128", base, nccl.AllReduce, nccl.Ring, nccl.LL128, 4, 1 << 30, 576000},
		// Tree/LL128: nsteps 1+1+0.8 = 2.8; 64 KiB/(1 × 576000) = 0 < 22.4
		// halves to 72000, then < 5.6 to 18000, aligned to 1920: 17280
		{"Tree/LL128 small", base, nccl.AllReduce, nccl.Tree, nccl.LL128, 1, 64 * k, 17280},
		{"Tree/LL128 large", base, nccl.AllReduce, nccl.Tree, nccl.LL128, 1, 1 << 30, 576000},
		// Tree/Simple: no rule from 2.20.3; 2.18/2.19 halve by depth 8
		{"Tree/Simple", base, nccl.AllReduce, nccl.Tree, nccl.Simple, 16, 64 << 20, 512 * k},
		{"Tree/Simple depth", edit(func(c *ChunkComm) { c.Rules.TreeSimpleDepth = true }), nccl.AllReduce, nccl.Tree, nccl.Simple, 16, 64 << 20, 128 * k},
		{"Tree/Simple depth Broadcast", edit(func(c *ChunkComm) { c.Rules.TreeSimpleDepth = true }), nccl.Broadcast, nccl.Tree, nccl.Simple, 16, 64 << 20, 512 * k},
		// CollNetDirect: 1 MiB on 2 channels, depth 2: 512→128 KiB (×64),
		// →64 KiB (×8), →32 KiB (×8)
		{"CollNetDirect", base, nccl.AllReduce, nccl.CollNetDirect, nccl.Simple, 2, 1 << 20, 32 * k},
		// CollNetChain: min(256 KiB, step), depth nRanks/nNodes = 8; 1 MiB
		// on 2 channels: 256→128 KiB (×64), →64 KiB (×8), stays (1 MiB /
		// 128 KiB = 8, not < 8); 512 KiB goes on to 32 KiB
		{"CollNetChain large", base, nccl.AllReduce, nccl.CollNetChain, nccl.Simple, 2, 1 << 32, 256 * k},
		{"CollNetChain 1 MiB", base, nccl.AllReduce, nccl.CollNetChain, nccl.Simple, 2, 1 << 20, 64 * k},
		{"CollNetChain 512 KiB", base, nccl.AllReduce, nccl.CollNetChain, nccl.Simple, 2, 1 << 19, 32 * k},
		// NVLS: nvlsChunkSize 128 KiB; across nodes below 150 GB/s 32 KiB;
		// 1 MiB on 16 × 8 ops: < 2 × ops × chunk → 16 KiB
		{"NVLS one node", edit(func(c *ChunkComm) { c.NNodes = 1 }), nccl.AllReduce, nccl.NVLS, nccl.Simple, 16, 1 << 30, 128 * k},
		{"NVLS NCCL_NVLS_CHUNKSIZE", edit(func(c *ChunkComm) { c.NNodes, c.NVLSChunkSize = 1, 64*k }), nccl.AllReduce, nccl.NVLS, nccl.Simple, 16, 1 << 30, 64 * k},
		{"NVLS slow net", edit(func(c *ChunkComm) { c.NVLSBw = 100 }), nccl.AllReduce, nccl.NVLS, nccl.Simple, 16, 1 << 30, 32 * k},
		{"NVLS slow net 2.19.1", edit(func(c *ChunkComm) { c.NVLSBw, c.Rules.NVLSNetChunkCap = 100, false }), nccl.AllReduce, nccl.NVLS, nccl.Simple, 16, 1 << 30, 128 * k},
		{"NVLS small", edit(func(c *ChunkComm) { c.NNodes = 1 }), nccl.AllReduce, nccl.NVLS, nccl.Simple, 16, 1 << 20, 16 * k},
		// NVLSTree: from nvlsChunkSize (2.21.5+) or the Simple step
		// (before); the cap of NCCL_NVLSTREE_MAX_CHUNKSIZE or 64 KiB from 4
		// nodes
		{"NVLSTree", base, nccl.AllReduce, nccl.NVLSTree, nccl.Simple, 16, 1 << 32, 128 * k},
		{"NVLSTree from step", edit(func(c *ChunkComm) { c.Rules.NVLSTreeChunkFromStep = true }), nccl.AllReduce, nccl.NVLSTree, nccl.Simple, 16, 1 << 32, 512 * k},
		{"NVLSTree 4 nodes", edit(func(c *ChunkComm) { c.NNodes, c.NRanks = 4, 32 }), nccl.AllReduce, nccl.NVLSTree, nccl.Simple, 16, 1 << 32, 64 * k},
		{"NVLSTree NCCL_NVLSTREE_MAX_CHUNKSIZE", edit(func(c *ChunkComm) { c.NVLSTreeMaxChunkSize = 32 * k }), nccl.AllReduce, nccl.NVLSTree, nccl.Simple, 16, 1 << 32, 32 * k},
		// PAT: halve while chunk × nc × 32 (AllGather) or 16 > nBytes
		{"PAT AllGather", base, nccl.AllGather, nccl.PAT, nccl.Simple, 1, 4 << 20, 128 * k},
		{"PAT ReduceScatter", base, nccl.ReduceScatter, nccl.PAT, nccl.Simple, 1, 4 << 20, 256 * k},
		{"PAT floor", base, nccl.AllGather, nccl.PAT, nccl.Simple, 1, 1 << 10, 64 * k},
	} {
		got, tuned, err := tc.cc.CollChunk(tc.f, tc.a, tc.p, ChunkRegNone, tc.nc, tc.nBytes, nil)
		if err != nil || tuned || got != tc.want {
			t.Errorf("%s: chunk %d (tuned %v, %v), want %d", tc.name, got, tuned, err, tc.want)
		}
	}
}

// fixedSizer answers every getChunkSize call with one size.
type fixedSizer uint64

func (s fixedSizer) ChunkSize(ChunkCall) (uint64, error) { return uint64(s), nil }

// TestCollChunkProperties: every chunk is positive, a multiple of the
// protocol's grain and at most the buffer's chunk (for NVLS and NVLSTree,
// whose buffers are sized by nvlsChunkSize, at most that); a tuner's
// answer never exceeds the buffer's chunk.
func TestCollChunkProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nNodes := rapid.IntRange(1, 64).Draw(rt, "nNodes")
		cc := ChunkComm{NRanks: nNodes * rapid.IntRange(1, 8).Draw(rt, "ppn"), NNodes: nNodes,
			NVLSHeads: rapid.IntRange(0, 32).Draw(rt, "nvlsHeads"), CollNetHeads: rapid.IntRange(0, 8).Draw(rt, "cnHeads"),
			CollNetDepth: rapid.IntRange(1, 2).Draw(rt, "depth"), NVLSBw: rapid.Float64Range(0, 1000).Draw(rt, "nvlsBw"),
			Rules: ChunkRules{NVLSNetChunkCap: rapid.Bool().Draw(rt, "netCap"), NVLSTreeChunkFromStep: rapid.Bool().Draw(rt, "fromStep"),
				NVLSTreeChunkCap4Nodes: rapid.Bool().Draw(rt, "cap4"), TreeSimpleDepth: rapid.Bool().Draw(rt, "depthRule")}}
		for p := range nccl.NumProtos {
			if rapid.Bool().Draw(rt, "setBuff") {
				cc.BuffSize[p] = rapid.IntRange(NSteps*GrainSize[p]*2, 64<<20).Draw(rt, "buff")
			}
		}
		if rapid.Bool().Draw(rt, "setNvls") {
			cc.NVLSChunkSize = rapid.IntRange(GrainSize[nccl.Simple], 4<<20).Draw(rt, "nvlsChunk")
		}
		if rapid.Bool().Draw(rt, "setTreeMax") {
			cc.NVLSTreeMaxChunkSize = rapid.IntRange(GrainSize[nccl.Simple], 4<<20).Draw(rt, "treeMax")
		}
		f := nccl.Func(rapid.IntRange(0, nccl.NumFuncs-1).Draw(rt, "func"))
		a := nccl.Algo(rapid.IntRange(0, nccl.NumAlgos-1).Draw(rt, "algo"))
		p := nccl.Proto(rapid.IntRange(0, nccl.NumProtos-1).Draw(rt, "proto"))
		if a.IsCollNet() || a.IsNVLS() {
			p = nccl.Simple // CollNet and NVLS run Simple only
		}
		nc := rapid.IntRange(1, 64).Draw(rt, "nc")
		nBytes := rapid.Int64Range(0, 1<<36).Draw(rt, "nBytes")
		_, _, _, bufferMax := cc.ChunkGeometry(f, a, p, ChunkRegNone)
		ceiling := int64(bufferMax)
		if a.IsNVLS() {
			ceiling = max(ceiling, int64(cmpOr(cc.NVLSChunkSize, nvlsChunkSizeDefault)))
		}
		g := int64(GrainSize[p])
		c, _, err := cc.CollChunk(f, a, p, ChunkRegNone, nc, nBytes, nil)
		if err != nil || c <= 0 || c%g != 0 || c > ceiling {
			rt.Fatalf("%s %s/%s nc %d %d B: chunk %d (%v): want a positive multiple of %d at most %d", f, a, p, nc, nBytes, c, err, g, ceiling)
		}
		asked := rapid.Int64Range(g, 1<<31-1).Draw(rt, "tunerChunk")
		c, tuned, err := cc.CollChunk(f, a, p, ChunkRegNone, nc, nBytes, fixedSizer(asked))
		if err != nil || !tuned || c <= 0 || c%g != 0 || c > int64(bufferMax) || c > asked {
			rt.Fatalf("%s %s/%s: tuner %d gave chunk %d (%v): want a positive multiple of %d at most min(%d, %d)", f, a, p, asked, c, err, g, bufferMax, asked)
		}
	})
}

// TestCollChunkTunerBelowGrain: a tuner answer below the grain aligns to
// 0, on which NCCL divides: refused.
func TestCollChunkTunerBelowGrain(t *testing.T) {
	var cc ChunkComm
	if _, _, err := cc.CollChunk(nccl.AllReduce, nccl.Ring, nccl.Simple, ChunkRegNone, 1, 1<<20, fixedSizer(100)); err == nil {
		t.Error("a 100-byte Simple chunk was taken")
	}
}
