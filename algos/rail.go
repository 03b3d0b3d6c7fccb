package algos

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// railIter is one iteration of a channel's rail loop (see railLoop): the
// window [a, a+w) of the rail space it moves, and every head's rail view of
// the window in head order, listed twice so that the heads after any head
// h, wrapping, are the one sub-slice views[h+1 : h+nHeads].
type railIter struct {
	a, w  int64
	views []Chunk
}

// railLoop walks the rail loop of every channel of an AllGather or
// ReduceScatter run across nodes through CollNet (CollNetDirect, and NVLS
// with SHARP). The rail space is nNodes blocks of cpr elements (one block
// per node, see Chunk's rail view); the channels stride through it nc
// chunks at a time, channel c taking the c-th chunk of each stride, and
// the network delivers each window to, or collects it from, every node.
// Windows past the end are empty but still iterate, as every channel runs
// the same number of loops. The result, [channel][iteration], is shared by
// every rank's program (heads are the local ranks of the rail views, in
// head order; buf is the buffer they view).
//
// Ref: v2.28.9-1 src/device/all_gather.h and reduce_scatter.h,
// RunWorkColl<*, NCCL_ALGO_COLLNET_DIRECT> and <*, NCCL_ALGO_NVLS> (the
// railGridOffset loops, Scatterer's railAllBeg/railAllEnd and
// collNetDenseToUserRank).
func railLoop(nNodes int, cpr, chunk int64, nc int, heads []int, buf Buffer) [][]railIter {
	out := make([][]railIter, nc)
	if cpr <= 0 || chunk <= 0 {
		return out
	}
	total := int64(nNodes) * cpr
	n := len(heads)
	for c := range out {
		for rgo := int64(0); rgo < total; rgo += int64(nc) * chunk {
			a := min(rgo+int64(c)*chunk, total)
			w := min(a+chunk, total) - a
			views := make([]Chunk, 2*n)
			for i := range views {
				views[i] = RailChunk(buf, heads[i%n], a, w)
			}
			out[c] = append(out[c], railIter{a: a, w: w, views: views})
		}
	}
	return out
}

// ownPart is the part of window [a, a+w) inside node's own block of cpr
// elements, relative to the block: what node's head sends to the network
// for AllGather and receives from it for ReduceScatter (the network
// send/recv's railOneBeg intersection). An empty part is kept in bounds.
func ownPart(a, w, cpr int64, node int) (off, n int64) {
	one := int64(node) * cpr
	beg, end := max(a, one), min(a+w, one+cpr)
	n = clamp0(end - beg)
	off = beg - one
	if n == 0 {
		off = min(max(off, 0), cpr)
	}
	return off, n
}

// railKey describes a channel's rail loop for ChannelKey: the window size
// of every iteration and the size of each node's part of it. Two channels
// with equal keys give every rank the same step counts.
func railKey(b *strings.Builder, nNodes int, cpr, chunk int64, nc, bid int) {
	if cpr <= 0 || chunk <= 0 {
		return
	}
	total := int64(nNodes) * cpr
	for rgo := int64(0); rgo < total; rgo += int64(nc) * chunk {
		a := min(rgo+int64(bid)*chunk, total)
		e := min(a+chunk, total)
		fmt.Fprintf(b, " %d", e-a)
		if e == a {
			continue
		}
		first := a / cpr
		fmt.Fprintf(b, "@%d:", first)
		for n := first; n*cpr < e; n++ {
			fmt.Fprintf(b, "%d,", min(e, (n+1)*cpr)-max(a, n*cpr))
		}
	}
}

// railHeads are the ranks of one rail's network group: head h of every
// node, in node order (the CollNet communicator of one head position,
// src/transport/coll_net.cc ncclCollNetSetup).
func railHeads(l *Layout, local int) []int {
	heads := make([]int, l.NNodes)
	for n := range heads {
		heads[n] = l.Rank(n, local)
	}
	return heads
}

// netOp is what a collective's network endpoint does: SHARP's iallreduce,
// or CollNet's iallgather / ireducescatter.
func netOp(f spec.Func) EndpointOp {
	switch f {
	case spec.AllGather:
		return EndpointAllGather
	case spec.ReduceScatter:
		return EndpointReduceScatter
	}
	return EndpointReduce
}
