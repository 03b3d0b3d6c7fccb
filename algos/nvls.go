package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/nccl"
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
// ceil(rem/nHeads) rounded up to the release's alignment (16 KiB from
// 2.23.4, 16 B in 2.22.3: Params.NVLSLastChunkAlign).
type nvlsGen struct {
	base
	sh        *nvlsShared // AllReduce only
	lastAlign int64       // in schedule units
}

func newNVLSGen(b base) *nvlsGen {
	align := 16384
	if p, err := b.l.Params(); err == nil && p.NVLSLastChunkAlign > 0 {
		align = p.NVLSLastChunkAlign
	}
	g := &nvlsGen{base: b, lastAlign: max(1, int64(align)/int64(b.h.Unit))}
	if b.h.Func == spec.AllReduce {
		g.sh = newNVLSShared(b, g.lastAlign)
	}
	return g
}

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

// nvlsShared are the parts of NVLS AllReduce programs that do not depend
// on the rank, built once per schedule so that programs of 100,000 ranks
// share them: every node's NVLS and multicast peers, and every channel's
// per-head pieces of each loop, for the input (scatter) and output
// (gather) buffers.
type nvlsShared struct {
	red, mc []Peer       // [node*nHeads+h]
	pieces  [2][][]Chunk // [input/output][channel]: loops × nHeads
}

// newNVLSShared lays out the loops of RunWorkColl<AllReduce, NVLS*>: each
// loop covers nHeads chunks; the last one shrinks the chunk to
// ceil(rem/nHeads) rounded up to lastAlign elements.
func newNVLSShared(b base, lastAlign int64) *nvlsShared {
	l := b.l
	nHeads := len(l.NVLSHeads)
	sh := &nvlsShared{red: make([]Peer, l.NNodes*nHeads), mc: make([]Peer, l.NNodes*nHeads)}
	for n := 0; n < l.NNodes; n++ {
		for h := 0; h < nHeads; h++ {
			sh.red[n*nHeads+h] = nvlsPeer(PeerNVLS, l, n, h)
			sh.mc[n*nHeads+h] = nvlsPeer(PeerMcast, l, n, h)
		}
	}
	for bi, buf := range []Buffer{BufInput, BufOutput} {
		sh.pieces[bi] = make([][]Chunk, b.h.NChannels)
		for ch := range sh.pieces[bi] {
			gridOff, chanCount, chunk := b.part.part(ch)
			if chanCount == 0 || nHeads == 0 {
				continue
			}
			loop := int64(nHeads) * chunk
			last := nccl.RoundUp(nccl.DivUp(chanCount%loop, int64(nHeads)), lastAlign)
			ps := make([]Chunk, 0, int(nccl.DivUp(chanCount, loop))*nHeads)
			for elemOff := int64(0); elemOff < chanCount; elemOff += loop {
				if chanCount-elemOff < loop {
					chunk = last
				}
				off := gridOff + elemOff
				ne := min(loop, chanCount-elemOff)
				for h := 0; h < nHeads; h++ {
					n := clamp0(min(chunk, ne-int64(h)*chunk))
					o := off + int64(h)*chunk
					if n == 0 {
						o = min(o, gridOff+chanCount)
					}
					ps = append(ps, Chunk{Buf: buf, Offset: o, Count: n})
				}
			}
			sh.pieces[bi][ch] = ps
		}
	}
	return sh
}

// nodePeers are node's NVLS and multicast peers, one per head.
func (sh *nvlsShared) nodePeers(node, nHeads int) (red, mc []Peer) {
	lo, hi := node*nHeads, (node+1)*nHeads
	return sh.red[lo:hi:hi], sh.mc[lo:hi:hi]
}

// loopPieces are loop i's pieces (capacity cut so that no append aliases).
func (sh *nvlsShared) loopPieces(bi, ch, i, nHeads int) []Chunk {
	return sh.pieces[bi][ch][i*nHeads : (i+1)*nHeads : (i+1)*nHeads]
}

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
	var red, mc []Peer
	if g.sh != nil {
		red, mc = g.sh.nodePeers(node, nHeads)
	} else {
		red, mc = make([]Peer, nHeads), make([]Peer, nHeads)
		for h := range red {
			red[h] = nvlsPeer(PeerNVLS, l, node, h)
			mc[h] = nvlsPeer(PeerMcast, l, node, h)
		}
	}
	switch g.h.Func {
	case spec.AllReduce:
		loop := int64(nHeads) * chunk
		last := nccl.RoundUp(nccl.DivUp(chanCount%loop, int64(nHeads)), g.lastAlign)
		for i, elemOff := 0, int64(0); elemOff < chanCount; i, elemOff = i+1, elemOff+loop {
			if chanCount-elemOff < loop {
				chunk = last
			}
			switch grp {
			case 0, 2:
				ps := g.sh.loopPieces(grp/2, ch, i, nHeads)
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
				dst = append(dst, Step{Prim: PrimRecvSend, Recv: red[me : me+1 : me+1], Send: mc[me : me+1 : me+1], Count: n, Direct: true})
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
type nvlsTreeGen struct {
	base
	sh *nvlsShared
}

func (g *nvlsTreeGen) channelKey(ch int) string {
	_, cnt, chunk := g.part.part(ch)
	return fmt.Sprintf("nvlstree t%d n=%d chunk=%d", ch%2, cnt, chunk)
}

func (g *nvlsTreeGen) endpoint(ch int, p Peer) Endpoint { return nvlsEndpoint(g.l, p) }

func (g *nvlsTreeGen) program(rank, ch, grp int, dst []Step) []Step {
	_, chanCount, chunk := g.part.part(ch)
	if chanCount == 0 {
		return dst
	}
	l := g.l
	node := l.Node(rank)
	nHeads := len(l.NVLSHeads)
	me := l.NVLSHead(rank)
	red, mc := g.sh.nodePeers(node, nHeads)
	var upP, reduceRecv, bcastSend []Peer
	hasUp := false
	if me >= 0 && grp >= 2 { // the tree's peers: groups 2 and 3 alone use them
		up, down := l.NVLSTreeLinks(ch, node, me)
		hasUp = up != -1
		// one allocation for the three lists
		k := 1 + len(down)
		buf := make([]Peer, 1, 1+2*k)
		buf[0] = RankPeer(up)
		upP = buf[0:1:1]
		reduceRecv = append(buf[1:1:1+k], red[me])
		bcastSend = append(buf[1+k:1+k:1+2*k], mc[me])
		for _, d := range down {
			reduceRecv = append(reduceRecv, RankPeer(d))
			bcastSend = append(bcastSend, RankPeer(d))
		}
	}
	loop := int64(nHeads) * chunk
	last := nccl.RoundUp(nccl.DivUp(chanCount%loop, int64(nHeads)), 16/int64(g.h.Unit))
	for i, elemOff := 0, int64(0); elemOff < chanCount; i, elemOff = i+1, elemOff+loop {
		if chanCount-elemOff < loop {
			chunk = last
		}
		switch grp {
		case 0, 1:
			ps := g.sh.loopPieces(grp, ch, i, nHeads)
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
