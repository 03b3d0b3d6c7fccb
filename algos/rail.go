package algos

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// railLoop walks the rail loop one channel of an AllGather or
// ReduceScatter runs across nodes through CollNet (CollNetDirect, and NVLS
// with SHARP). The rail space is nNodes blocks of cpr elements (one block
// per node, see Chunk's rail view); the channels stride through it nc
// chunks at a time, channel bid taking the bid-th chunk of each stride. For
// every iteration f gets the window [a, a+w) of the rail space the channel
// moves (the network delivers it to, or collects it from, every node) and
// the part of it inside node's own block, [ownOff, ownOff+own) relative to
// the block: what node's head sends to the network for AllGather and
// receives from it for ReduceScatter. Windows past the end are empty but
// still iterate, as every channel runs the same number of loops.
//
// Ref: v2.28.9-1 src/device/all_gather.h and reduce_scatter.h,
// RunWorkColl<*, NCCL_ALGO_COLLNET_DIRECT> and <*, NCCL_ALGO_NVLS> (the
// railGridOffset loops, Scatterer's railAllBeg/railAllEnd and the network
// send/recv's railOneBeg intersection).
func railLoop(nNodes int, cpr, chunk int64, nc, bid, node int, f func(a, w, ownOff, own int64)) {
	total := int64(nNodes) * cpr
	one := int64(node) * cpr
	for rgo := int64(0); rgo < total; rgo += int64(nc) * chunk {
		a := min(rgo+int64(bid)*chunk, total)
		e := min(a+chunk, total)
		beg, end := max(a, one), min(e, one+cpr)
		own := clamp0(end - beg)
		ownOff := beg - one
		if own == 0 {
			ownOff = min(max(ownOff, 0), cpr) // an empty range, kept in bounds
		}
		f(a, e-a, ownOff, own)
	}
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
