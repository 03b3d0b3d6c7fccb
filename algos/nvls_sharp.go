package algos

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// nvlsNetGen builds NVLS across nodes: NVLink SHARP inside each node and
// CollNet (IB SHARP) between the nodes, which NCCL runs when CollNet is
// enabled (connectNvls sets nvls.out, the network, for every NVLS head;
// src/graph/connect.cc). Each NVLS head h talks to the network group of
// the heads with index h on every node (net<h>). It mirrors the multi-node
// branches of RunWorkColl<*, NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE> in
// src/device/all_reduce.h, all_gather.h and reduce_scatter.h at v2.28.9-1,
// without registered buffers:
//
//	AllReduce   g0 scatter(own pieces) → nvls<n>.<h> for every head h
//	            g1 gather(mcast<n>.<h> for every head) → out pieces
//	            g2 (head h) recvSend: nvls<n>.<h> (ld_reduce) → net<h>
//	            g3 (head h) recvSend: net<h> → mcast<n>.<h> (multimem.st)
//	AllGather   g0 gather(mcast<n>.<h> for every head) → the rail view of
//	            head h's local rank
//	            g1 (head h) send(my part of the window) → net<h> (iallgather)
//	            g2 (head h) recvSend: net<h> → mcast<n>.<h>
//	ReduceScatter
//	            g0 (head h) recv(net<h>) → my part of the window (post-op)
//	            g1 scatter(the rail view of head h's local rank) → nvls<n>.<h>
//	            g2 (head h) recvSend: nvls<n>.<h> (ld_reduce) → net<h>
//	            (ireducescatter)
//
// Every channel walks the whole buffer: AllReduce in strides of nChannels
// × nHeads chunks (channel c takes the c-th block of nHeads chunks, head h
// its h-th chunk), AllGather and ReduceScatter through the rail space
// (railLoop). AllGather and ReduceScatter need every local rank to be a
// head (ncclTopoTuneModel gives them no bandwidth otherwise: "requires 1:1
// GPU:NIC").
type nvlsNetGen struct {
	base
	red, mc []Peer // [node*nHeads+h]
	net     []Peer // [h]
	// what every rank's program shares, built once: AllReduce's per-head
	// pieces of each stride ([input/output][channel], strides × nHeads),
	// AllGather's and ReduceScatter's rail loop ([channel][iteration])
	blocks [2][][][]Chunk
	rail   [][]railIter
}

func newNVLSNetGen(b base) *nvlsNetGen {
	l := b.l
	nHeads := len(l.NVLSHeads)
	g := &nvlsNetGen{base: b, red: make([]Peer, l.NNodes*nHeads), mc: make([]Peer, l.NNodes*nHeads), net: make([]Peer, nHeads)}
	for n := 0; n < l.NNodes; n++ {
		for h := 0; h < nHeads; h++ {
			g.red[n*nHeads+h] = nvlsPeer(PeerNVLS, l, n, h)
			g.mc[n*nHeads+h] = nvlsPeer(PeerMcast, l, n, h)
		}
	}
	for h := range g.net {
		g.net[h] = Peer{Kind: PeerNet, ID: int32(h)}
	}
	chunk, nc := b.part.cnChunk, b.h.NChannels
	switch b.h.Func {
	case spec.AllReduce:
		g.blocks = directStrides(b.part.cnCount, chunk, nHeads, nc)
	case spec.AllGather:
		g.rail = railLoop(l.NNodes, b.count, chunk, nc, l.NVLSHeads, BufOutput)
	case spec.ReduceScatter:
		g.rail = railLoop(l.NNodes, b.count, chunk, nc, l.NVLSHeads, BufInput)
	}
	return g
}

func (g *nvlsNetGen) channelKey(ch int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "nvls+net %s", g.h.Func)
	chunk := g.part.cnChunk
	if g.h.Func == spec.AllReduce {
		directBlocks(&b, g.part.cnCount, chunk, int64(len(g.l.NVLSHeads)), g.h.NChannels, ch)
	} else {
		railKey(&b, g.l.NNodes, g.count, chunk, g.h.NChannels, ch)
	}
	return b.String()
}

func (g *nvlsNetGen) endpoint(ch int, p Peer) Endpoint {
	if p.Kind != PeerNet {
		return nvlsEndpoint(g.l, p)
	}
	if int(p.ID) >= len(g.l.NVLSHeads) {
		return Endpoint{}
	}
	heads := railHeads(g.l, g.l.NVLSHeads[p.ID])
	return Endpoint{Senders: heads, Receivers: heads, Op: netOp(g.h.Func)}
}

func (g *nvlsNetGen) program(rank, ch, grp int, dst []Step) []Step {
	l := g.l
	chunk := g.part.cnChunk
	if chunk <= 0 {
		return dst
	}
	nHeads := len(l.NVLSHeads)
	node := l.Node(rank)
	me := l.NVLSHead(rank)
	lo, hi := node*nHeads, (node+1)*nHeads
	red, mc := g.red[lo:hi:hi], g.mc[lo:hi:hi]
	var net []Peer
	if me >= 0 {
		net = g.net[me : me+1 : me+1]
	}
	switch g.h.Func {
	case spec.AllReduce:
		size := g.part.cnCount
		for i, ps := range g.blocks[0][ch] {
			switch grp {
			case 0:
				dst = append(dst, Step{Prim: PrimScatter, Send: red, Pieces: ps, Count: sumPieces(ps), PreOp: true})
			case 1:
				ps = g.blocks[1][ch][i]
				dst = append(dst, Step{Prim: PrimGather, Recv: mc, Pieces: ps, Count: sumPieces(ps)})
			case 2, 3:
				if me < 0 {
					continue
				}
				n := clamp0(min(chunk, size-ps[me].Offset))
				if grp == 2 {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: red[me : me+1 : me+1], Send: net, Count: n, Direct: true})
				} else {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: net, Send: mc[me : me+1 : me+1], Count: n, Direct: true})
				}
			}
		}
	case spec.AllGather:
		for _, it := range g.rail[ch] {
			views := it.views[:nHeads:nHeads]
			switch grp {
			case 0:
				dst = append(dst, Step{Prim: PrimGather, Recv: mc, Pieces: views, Count: sumPieces(views), Direct: true})
			case 1:
				if me >= 0 {
					off, own := ownPart(it.a, it.w, g.count, node)
					dst = append(dst, Step{Prim: PrimSend, Send: net, Src: inChunk(off, own), Count: own})
				}
			case 2:
				if me >= 0 {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: net, Send: mc[me : me+1 : me+1], Count: it.w})
				}
			}
		}
	case spec.ReduceScatter:
		for _, it := range g.rail[ch] {
			views := it.views[:nHeads:nHeads]
			switch grp {
			case 0:
				if me >= 0 {
					off, own := ownPart(it.a, it.w, g.count, node)
					dst = append(dst, Step{Prim: PrimRecv, Recv: net, Dst: outChunk(off, own), Count: own, PostOp: true})
				}
			case 1:
				dst = append(dst, Step{Prim: PrimScatter, Send: red, Pieces: views, Count: sumPieces(views), PreOp: true, Direct: true})
			case 2:
				if me >= 0 {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: red[me : me+1 : me+1], Send: net, Count: it.w, Direct: true})
				}
			}
		}
	}
	return dst
}

// directStrides are the per-head pieces of every stride of every channel
// of a buffer walked in strides of nChannels × nHeads chunks (CollNetDirect
// and NVLS AllReduce across nodes), [input/output][channel] → strides ×
// nHeads: channel c's block of stride s starts at s × stride + c × nHeads
// × chunk, head h's piece h × chunk later; pieces past the end are empty
// and kept in bounds (ScatterGatherOp's split with peerOffset = chunk).
func directStrides(size, chunk int64, nHeads, nc int) [2][][][]Chunk {
	var out [2][][][]Chunk
	if chunk <= 0 {
		return out
	}
	loop := int64(nc*nHeads) * chunk
	for bi, buf := range []Buffer{BufInput, BufOutput} {
		out[bi] = make([][][]Chunk, nc)
		for ch := range out[bi] {
			for gridOff := int64(0); gridOff < size; gridOff += loop {
				off := gridOff + int64(ch*nHeads)*chunk
				ne := clamp0(min(int64(nHeads)*chunk, size-off))
				out[bi][ch] = append(out[bi][ch], headPieces(off, ne, chunk, nHeads, size, buf))
			}
		}
	}
	return out
}

// headPieces are the per-head chunks of one block of nHeads chunks at off
// (ne elements in all; the pieces past the end are empty and kept in
// bounds): ScatterGatherOp's split with peerOffset = chunk.
func headPieces(off, ne, chunk int64, nHeads int, size int64, buf Buffer) []Chunk {
	ps := make([]Chunk, nHeads)
	for h := range ps {
		o := off + int64(h)*chunk
		n := clamp0(min(chunk, ne-int64(h)*chunk))
		if n == 0 {
			o = min(o, size)
		}
		ps[h] = Chunk{Buf: buf, Offset: o, Count: n}
	}
	return ps
}

// directBlocks appends a channel's block sizes per stride of nChannels ×
// nHeads chunks (the channel key of CollNetDirect and NVLS AllReduce across
// nodes): channels differ only where the last stride leaves some of them
// less data.
func directBlocks(b *strings.Builder, size, chunk, nHeads int64, nc, ch int) {
	if chunk <= 0 {
		return
	}
	loop := int64(nc) * nHeads * chunk
	for gridOff := int64(0); gridOff < size; gridOff += loop {
		off := gridOff + int64(ch)*nHeads*chunk
		fmt.Fprintf(b, " %d", clamp0(min(nHeads*chunk, size-off)))
	}
}
