package algos

import (
	"strings"
)

// directGen builds CollNetDirect AllReduce: every rank scatters its data to
// the node's CollNet heads (one piece per head), each head reduces the
// pieces of all local ranks with its own and hands the node's partial to
// the network, the network (SHARP) reduces across the heads of all nodes
// that share its head index, each head receives the result and broadcasts
// it to every local rank, and the other ranks gather the pieces from the
// heads. It mirrors RunWorkColl<AllReduce, COLLNET_DIRECT> of
// src/device/all_reduce.h at v2.28.9-1 (without registered buffers), whose
// channel splits into four concurrent groups:
//
//	g0 scatter  (ranks with other heads): scatter(own pieces) → heads
//	g1 reduce   (heads): recvReduceSend(own piece, local ranks…) → net<h>
//	g2 bcast    (heads): recvCopySend(net<h>) → out, local ranks (post-op)
//	g3 gather   (ranks with other heads): gather(heads) → out pieces
//
// Every channel walks the whole buffer in strides of nChannels × nHeads
// chunks; channel c takes the c-th nHeads-chunk block of each stride and
// head h its h-th chunk.
type directGen struct{ base }

// channelKey lists the channel's block sizes per stride: channels differ
// only where the last stride leaves some of them less data.
func (g *directGen) channelKey(ch int) string {
	var b strings.Builder
	b.WriteString("collnetdirect")
	directBlocks(&b, g.part.cnCount, g.part.cnChunk, int64(len(g.l.CollNetHeads)), g.h.NChannels, ch)
	return b.String()
}

func (g *directGen) endpoint(ch int, p Peer) Endpoint {
	if p.Kind != PeerNet || int(p.ID) >= len(g.l.CollNetHeads) {
		return Endpoint{}
	}
	heads := make([]int, g.l.NNodes)
	for n := range heads {
		heads[n] = g.l.Rank(n, g.l.CollNetHeads[p.ID])
	}
	return Endpoint{Senders: heads, Receivers: heads}
}

func (g *directGen) program(rank, ch, grp int, dst []Step) []Step {
	l := g.l
	nHeads := int64(len(l.CollNetHeads))
	chunk := g.part.cnChunk
	size := g.part.cnCount
	if chunk <= 0 {
		return dst
	}
	loop := int64(g.h.NChannels) * nHeads * chunk
	bid := int64(ch)
	node := l.Node(rank)
	me := l.CollNetHead(rank)
	// up: the other heads in head order, with their head index; down: the
	// other local ranks, when this rank is a head. The scatter → reduce
	// path runs on connection 1, the broadcast → gather path on
	// connection 0 (the connIndex arguments of the Primitives).
	var upSc, upGa []Peer
	var upIdx []int64
	for h, lr := range l.CollNetHeads {
		if h == me {
			continue
		}
		upSc = append(upSc, RankPeerConn(l.Rank(node, lr), 1))
		upGa = append(upGa, RankPeerConn(l.Rank(node, lr), 0))
		upIdx = append(upIdx, int64(h))
	}
	var downRed, downBc []Peer
	if me >= 0 {
		for lr := 0; lr < l.LocalRanks; lr++ {
			if r := l.Rank(node, lr); r != rank {
				downRed = append(downRed, RankPeerConn(r, 1))
				downBc = append(downBc, RankPeerConn(r, 0))
			}
		}
	}
	net := []Peer{{Kind: PeerNet, ID: int32(max(me, 0))}}
	pieces := func(off, ne int64, buf Buffer) []Chunk {
		ps := make([]Chunk, len(upIdx))
		for i, h := range upIdx {
			o := off + h*chunk
			n := clamp0(min(chunk, ne-h*chunk))
			if n == 0 {
				o = min(o, size)
			}
			ps[i] = Chunk{Buf: buf, Offset: o, Count: n}
		}
		return ps
	}
	for gridOff := int64(0); gridOff < size; gridOff += loop {
		blockOff := gridOff + bid*nHeads*chunk
		blockN := clamp0(min(nHeads*chunk, size-blockOff))
		headOff := gridOff + (bid*nHeads+int64(max(me, 0)))*chunk
		headN := clamp0(min(chunk, size-headOff))
		if headN == 0 {
			headOff = min(headOff, size)
		}
		switch grp {
		case 0:
			if len(upSc) > 0 {
				ps := pieces(blockOff, blockN, BufInput)
				dst = append(dst, Step{Prim: PrimScatter, Send: upSc, Pieces: ps, Count: sumPieces(ps), PreOp: true})
			}
		case 1:
			if me < 0 {
				continue
			}
			if len(downRed) > 0 {
				dst = append(dst, Step{Prim: PrimRecvReduceSend, Recv: downRed, Send: net, Src: inChunk(headOff, headN), Count: headN, PreOp: true, Direct: true})
			} else {
				dst = append(dst, Step{Prim: PrimSend, Send: net, Src: inChunk(headOff, headN), Count: headN, PreOp: true})
			}
		case 2:
			if me < 0 {
				continue
			}
			if len(downBc) > 0 {
				dst = append(dst, Step{Prim: PrimRecvCopySend, Recv: net, Send: downBc, Dst: outChunk(headOff, headN), Count: headN, PostOp: true, Direct: true})
			} else {
				dst = append(dst, Step{Prim: PrimRecv, Recv: net, Dst: outChunk(headOff, headN), Count: headN, PostOp: true})
			}
		case 3:
			if len(upGa) > 0 {
				ps := pieces(blockOff, blockN, BufOutput)
				dst = append(dst, Step{Prim: PrimGather, Recv: upGa, Pieces: ps, Count: sumPieces(ps), Direct: true})
			}
		}
	}
	return dst
}
