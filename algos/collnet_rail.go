package algos

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// directRailGen builds CollNetDirect AllGather and ReduceScatter (NCCL
// 2.27+), which NCCL runs across nodes when the CollNet plugin has
// iallgather / ireducescatter and every GPU is a CollNet head. Head h of
// every node forms the network group net<h> (one rail); the heads of a
// node share their rails' data over NVLink. It mirrors
// RunWorkColl<AllGather, NCCL_ALGO_COLLNET_DIRECT> of
// src/device/all_gather.h and RunWorkColl<ReduceScatter,
// NCCL_ALGO_COLLNET_DIRECT> of src/device/reduce_scatter.h at v2.28.9-1,
// without registered buffers, whose warps split into three phases:
//
//	AllGather     g0 send(my part of the window) → net<h> (iallgather)
//	              g1 recvCopySend: net<h> → my rail view of the output,
//	                 the other heads
//	              g2 gather(the other heads) → their rail views
//	ReduceScatter g0 scatter(the other heads' rail views of my input) →
//	                 the other heads
//	              g1 recvReduceSend: my rail view of my input + the other
//	                 heads' pieces → net<h> (ireducescatter)
//	              g2 recv(net<h>) → my part of the window (post-op)
//
// "The other heads" are direct->heads+1: the heads in head order starting
// after my own, wrapping. Each channel walks the rail space (railLoop);
// rail h's view is the blocks of head h's local rank, where NCCL's
// collNetDenseToUserRank puts it. With one GPU per node the NVLink phases
// vanish (g1 is a plain receive, or g0 nothing and g1 a plain send).
type directRailGen struct {
	base
	rail [][]railIter // [channel][iteration], shared by every rank
}

func newDirectRailGen(b base) *directRailGen {
	buf := BufOutput
	if b.h.Func == spec.ReduceScatter {
		buf = BufInput
	}
	return &directRailGen{base: b, rail: railLoop(b.l.NNodes, b.count, b.part.cnChunk, b.h.NChannels, b.l.CollNetHeads, buf)}
}

func (g *directRailGen) channelKey(ch int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "collnetdirect %s", g.h.Func)
	railKey(&b, g.l.NNodes, g.count, g.part.cnChunk, g.h.NChannels, ch)
	return b.String()
}

func (g *directRailGen) endpoint(ch int, p Peer) Endpoint {
	if p.Kind != PeerNet || int(p.ID) >= len(g.l.CollNetHeads) {
		return Endpoint{}
	}
	heads := railHeads(g.l, g.l.CollNetHeads[p.ID])
	return Endpoint{Senders: heads, Receivers: heads, Op: netOp(g.h.Func)}
}

func (g *directRailGen) program(rank, ch, grp int, dst []Step) []Step {
	l := g.l
	me := l.CollNetHead(rank)
	if g.part.cnChunk <= 0 || me < 0 {
		return dst
	}
	nHeads := len(l.CollNetHeads)
	node := l.Node(rank)
	net := []Peer{{Kind: PeerNet, ID: int32(me)}}
	// the other heads from mine on (the rails of views[me+1:me+nHeads]);
	// AllGather's broadcast and gather use connection 0, ReduceScatter's
	// scatter and reduce connection 1 (the connIndex arguments of the
	// Primitives)
	conn := 0
	if g.h.Func == spec.ReduceScatter {
		conn = 1
	}
	var others []Peer
	for i := 1; i < nHeads; i++ {
		others = append(others, RankPeerConn(l.Rank(node, l.CollNetHeads[(me+i)%nHeads]), conn))
	}
	for _, it := range g.rail[ch] {
		mine := it.views[me]
		rest := it.views[me+1 : me+nHeads : me+nHeads]
		switch {
		case g.h.Func == spec.AllGather && grp == 0:
			off, own := ownPart(it.a, it.w, g.count, node)
			dst = append(dst, Step{Prim: PrimSend, Send: net, Src: inChunk(off, own), Count: own})
		case g.h.Func == spec.AllGather && grp == 1 && len(others) > 0:
			dst = append(dst, Step{Prim: PrimRecvCopySend, Recv: net, Send: others, Dst: mine, Count: it.w, Direct: true})
		case g.h.Func == spec.AllGather && grp == 1:
			dst = append(dst, Step{Prim: PrimRecv, Recv: net, Dst: mine, Count: it.w, Direct: true})
		case g.h.Func == spec.AllGather && grp == 2 && len(others) > 0:
			dst = append(dst, Step{Prim: PrimGather, Recv: others, Pieces: rest, Count: sumPieces(rest), Direct: true})
		case g.h.Func == spec.ReduceScatter && grp == 0 && len(others) > 0:
			dst = append(dst, Step{Prim: PrimScatter, Send: others, Pieces: rest, Count: sumPieces(rest), PreOp: true})
		case g.h.Func == spec.ReduceScatter && grp == 1 && len(others) > 0:
			dst = append(dst, Step{Prim: PrimRecvReduceSend, Recv: others, Send: net, Src: mine, Count: it.w, PreOp: true})
		case g.h.Func == spec.ReduceScatter && grp == 1:
			dst = append(dst, Step{Prim: PrimSend, Send: net, Src: mine, Count: it.w, PreOp: true})
		case g.h.Func == spec.ReduceScatter && grp == 2:
			off, own := ownPart(it.a, it.w, g.count, node)
			dst = append(dst, Step{Prim: PrimRecv, Recv: net, Dst: outChunk(off, own), Count: own, PostOp: true})
		}
	}
	return dst
}
