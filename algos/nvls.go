package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
)

// nvlsGen builds single-node NVLS (NVLink SHARP) schedules. The NVSwitch
// holds one multicast object per NVLS head; ranks write their data into it,
// the head's multimem.ld_reduce returns the switch's reduction of every
// rank's contribution, and its multimem.st writes the result to every
// rank at once. It mirrors the oneNode branches of RunWorkColl<*, NVLS> in
// src/device/all_reduce.h, all_gather.h and reduce_scatter.h at v2.28.9-1
// (without registered buffers):
//
//	AllReduce   g0 scatter(own pieces) → nvls<n>.<h> for every head h
//	            g1 (head h) recvSend: nvls<n>.<h> (ld_reduce) → mcast<n>.<h> (st)
//	            g2 gather(mcast<n>.<h> for every head) → out pieces
//	AllGather   g0 gather(mcast<n>.<h>) → out at rank h's region (NCCL
//	            places head h's data at h × count, so heads must be the
//	            local ranks in order)
//	            g1 send(own) → mcast<n>.<me> (multimem store of my input)
//	ReduceScatter
//	            g0 scatter(the piece for rank h) → nvls<n>.<h>
//	            g1 recv(nvls<n>.<me>) (ld_reduce) → out
//
// AllReduce loops over nHeads chunks; its last loop shrinks the chunk to
// ceil(rem/nHeads) rounded up to 16 KiB.
type nvlsGen struct{ base }

func (g *nvlsGen) channelKey(ch int) string {
	_, cnt, chunk := g.part.part(ch)
	return fmt.Sprintf("nvls n=%d chunk=%d", cnt, chunk)
}

// nvlsEndpoint is the membership of NVLS endpoints: the reducing side
// collects every local rank's contribution for the head that loads it, the
// storing side delivers the head's store to every local rank.
func nvlsEndpoint(l *Layout, p Peer) Endpoint {
	if p.Kind != PeerNVLS && p.Kind != PeerMcast {
		return Endpoint{}
	}
	node, h := int(p.ID)/l.LocalRanks, int(p.ID)%l.LocalRanks
	if node >= l.NNodes || h >= len(l.NVLSHeads) {
		return Endpoint{}
	}
	all := make([]int, l.LocalRanks)
	for i := range all {
		all[i] = l.Rank(node, i)
	}
	head := []int{l.Rank(node, l.NVLSHeads[h])}
	if p.Kind == PeerNVLS {
		return Endpoint{Senders: all, Receivers: head}
	}
	return Endpoint{Senders: head, Receivers: all}
}

func (g *nvlsGen) endpoint(ch int, p Peer) Endpoint { return nvlsEndpoint(g.l, p) }

func nvlsPeer(kind PeerKind, l *Layout, node, h int) Peer {
	return Peer{Kind: kind, ID: int32(node*l.LocalRanks + h)}
}

func (g *nvlsGen) program(rank, ch, grp int, dst []Step) []Step {
	gridOff, chanCount, chunk := g.part.part(ch)
	if chanCount == 0 {
		return dst
	}
	l := g.l
	node := l.Node(rank)
	nHeads := len(l.NVLSHeads)
	me := l.NVLSHead(rank)
	red := make([]Peer, nHeads)
	mc := make([]Peer, nHeads)
	for h := range red {
		red[h] = nvlsPeer(PeerNVLS, l, node, h)
		mc[h] = nvlsPeer(PeerMcast, l, node, h)
	}
	switch g.h.Func {
	case spec.AllReduce:
		loop := int64(nHeads) * chunk
		last := alignUp(divUp(chanCount%loop, int64(nHeads)), 16384/int64(g.h.Unit))
		for elemOff := int64(0); elemOff < chanCount; elemOff += loop {
			if chanCount-elemOff < loop {
				chunk = last
			}
			off := gridOff + elemOff
			ne := min(loop, chanCount-elemOff)
			switch grp {
			case 0, 2:
				buf := BufInput
				if grp == 2 {
					buf = BufOutput
				}
				ps := make([]Chunk, nHeads)
				for h := range ps {
					n := clamp0(min(chunk, ne-int64(h)*chunk))
					o := off + int64(h)*chunk
					if n == 0 {
						o = min(o, gridOff+chanCount)
					}
					ps[h] = Chunk{Buf: buf, Offset: o, Count: n}
				}
				if grp == 0 {
					dst = append(dst, Step{Prim: PrimScatter, Send: red, Pieces: ps, Count: sumPieces(ps), PreOp: true})
				} else {
					dst = append(dst, Step{Prim: PrimGather, Recv: mc, Pieces: ps, Count: sumPieces(ps)})
				}
			case 1:
				if me < 0 {
					continue
				}
				co := elemOff + int64(me)*chunk
				n := clamp0(min(chunk, chanCount-co))
				dst = append(dst, Step{Prim: PrimRecvSend, Recv: red[me : me+1], Send: mc[me : me+1], Count: n, Direct: true})
			}
		}
	case spec.AllGather:
		count := g.count
		for elemOff := int64(0); elemOff < chanCount; elemOff += chunk {
			off := gridOff + elemOff
			ne := min(chunk, chanCount-elemOff)
			switch grp {
			case 0:
				ps := make([]Chunk, nHeads)
				for h := range ps {
					ps[h] = outChunk(off+int64(h)*count, ne)
				}
				dst = append(dst, Step{Prim: PrimGather, Recv: mc, Pieces: ps, Count: sumPieces(ps)})
			case 1:
				if me < 0 {
					continue
				}
				dst = append(dst, Step{Prim: PrimSend, Send: mc[me : me+1], Src: inChunk(off, ne), Count: ne})
			}
		}
	case spec.ReduceScatter:
		count := g.count
		for elemOff := int64(0); elemOff < chanCount; elemOff += chunk {
			off := gridOff + elemOff
			ne := min(chunk, chanCount-elemOff)
			switch grp {
			case 0:
				ps := make([]Chunk, nHeads)
				for h := range ps {
					ps[h] = inChunk(off+int64(h)*count, ne)
				}
				dst = append(dst, Step{Prim: PrimScatter, Send: red, Pieces: ps, Count: sumPieces(ps), PreOp: true})
			case 1:
				if me < 0 {
					continue
				}
				dst = append(dst, Step{Prim: PrimRecv, Recv: red[me : me+1], Dst: outChunk(off, ne), Count: ne})
			}
		}
	}
	return dst
}

// nvlsTreeGen builds NVLSTree AllReduce: NVLS inside each node, NCCL's
// double binary tree across nodes between the heads of the same index
// (Layout.NVLSTreeLinks; even channels use the first tree, odd channels the
// second). It mirrors RunWorkColl<AllReduce, NVLS_TREE> of
// src/device/all_reduce.h at v2.28.9-1 (without registered buffers):
//
//	g0 scatter(own pieces) → nvls<n>.<h> for every head h
//	g1 gather(mcast<n>.<h> for every head) → out pieces
//	g2 (head h) reduce: recvSend(nvls<n>.<h> (ld_reduce), child heads…)
//	   → parent head, or at the root → mcast<n>.<h>, child heads
//	g3 (head h, not root) broadcast: recvSend(parent head)
//	   → mcast<n>.<h>, child heads
//
// Chunks loop over the heads; the last loop's chunk is ceil(rem/nHeads)
// rounded up to 16 bytes.
type nvlsTreeGen struct{ base }

func (g *nvlsTreeGen) channelKey(ch int) string {
	_, cnt, chunk := g.part.part(ch)
	return fmt.Sprintf("nvlstree t%d n=%d chunk=%d", ch%2, cnt, chunk)
}

func (g *nvlsTreeGen) endpoint(ch int, p Peer) Endpoint { return nvlsEndpoint(g.l, p) }

func (g *nvlsTreeGen) program(rank, ch, grp int, dst []Step) []Step {
	gridOff, chanCount, chunk := g.part.part(ch)
	if chanCount == 0 {
		return dst
	}
	l := g.l
	node := l.Node(rank)
	nHeads := len(l.NVLSHeads)
	me := l.NVLSHead(rank)
	red := make([]Peer, nHeads)
	mc := make([]Peer, nHeads)
	for h := range red {
		red[h] = nvlsPeer(PeerNVLS, l, node, h)
		mc[h] = nvlsPeer(PeerMcast, l, node, h)
	}
	var upP, reduceRecv, bcastSend []Peer
	hasUp := false
	if me >= 0 {
		up, down := l.NVLSTreeLinks(ch, node, me)
		hasUp = up != -1
		upP = []Peer{RankPeer(up)}
		reduceRecv = append(reduceRecv, red[me])
		bcastSend = append(bcastSend, mc[me])
		for _, d := range down {
			reduceRecv = append(reduceRecv, RankPeer(d))
			bcastSend = append(bcastSend, RankPeer(d))
		}
	}
	loop := int64(nHeads) * chunk
	last := alignUp(divUp(chanCount%loop, int64(nHeads)), 16/int64(g.h.Unit))
	for elemOff := int64(0); elemOff < chanCount; elemOff += loop {
		if chanCount-elemOff < loop {
			chunk = last
		}
		off := gridOff + elemOff
		ne := min(loop, chanCount-elemOff)
		switch grp {
		case 0, 1:
			buf := BufInput
			if grp == 1 {
				buf = BufOutput
			}
			ps := make([]Chunk, nHeads)
			for h := range ps {
				n := clamp0(min(chunk, ne-int64(h)*chunk))
				o := off + int64(h)*chunk
				if n == 0 {
					o = min(o, gridOff+chanCount)
				}
				ps[h] = Chunk{Buf: buf, Offset: o, Count: n}
			}
			if grp == 0 {
				dst = append(dst, Step{Prim: PrimScatter, Send: red, Pieces: ps, Count: sumPieces(ps), PreOp: true})
			} else {
				dst = append(dst, Step{Prim: PrimGather, Recv: mc, Pieces: ps, Count: sumPieces(ps)})
			}
		case 2:
			if me < 0 {
				continue
			}
			co := elemOff + int64(me)*chunk
			n := clamp0(min(chunk, chanCount-co))
			if hasUp {
				dst = append(dst, Step{Prim: PrimRecvSend, Recv: reduceRecv, Send: upP, Count: n, Direct: true})
			} else {
				dst = append(dst, Step{Prim: PrimRecvSend, Recv: reduceRecv, Send: bcastSend, Count: n, Direct: true})
			}
		case 3:
			if me < 0 || !hasUp {
				continue
			}
			co := elemOff + int64(me)*chunk
			n := clamp0(min(chunk, chanCount-co))
			dst = append(dst, Step{Prim: PrimRecvSend, Recv: upP, Send: bcastSend, Count: n, Direct: true})
		}
	}
	return dst
}
