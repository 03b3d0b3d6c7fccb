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
	nc := g.h.NChannels
	switch g.h.Func {
	case spec.AllReduce:
		size := g.part.cnCount
		loop := int64(nc*nHeads) * chunk
		for gridOff := int64(0); gridOff < size; gridOff += loop {
			off := gridOff + int64(ch*nHeads)*chunk
			ne := clamp0(min(int64(nHeads)*chunk, size-off))
			switch grp {
			case 0:
				ps := headPieces(off, ne, chunk, nHeads, size, BufInput)
				dst = append(dst, Step{Prim: PrimScatter, Send: red, Pieces: ps, Count: sumPieces(ps), PreOp: true})
			case 1:
				ps := headPieces(off, ne, chunk, nHeads, size, BufOutput)
				dst = append(dst, Step{Prim: PrimGather, Recv: mc, Pieces: ps, Count: sumPieces(ps)})
			case 2, 3:
				if me < 0 {
					continue
				}
				n := clamp0(min(chunk, size-(gridOff+int64(ch*nHeads+me)*chunk)))
				if grp == 2 {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: red[me : me+1 : me+1], Send: net, Count: n, Direct: true})
				} else {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: net, Send: mc[me : me+1 : me+1], Count: n, Direct: true})
				}
			}
		}
	case spec.AllGather:
		railLoop(l.NNodes, g.count, chunk, nc, ch, node, func(a, w, ownOff, own int64) {
			switch grp {
			case 0:
				ps := make([]Chunk, nHeads)
				for h := range ps {
					ps[h] = RailChunk(BufOutput, l.NVLSHeads[h], a, w)
				}
				dst = append(dst, Step{Prim: PrimGather, Recv: mc, Pieces: ps, Count: sumPieces(ps), Direct: true})
			case 1:
				if me >= 0 {
					dst = append(dst, Step{Prim: PrimSend, Send: net, Src: inChunk(ownOff, own), Count: own})
				}
			case 2:
				if me >= 0 {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: net, Send: mc[me : me+1 : me+1], Count: w})
				}
			}
		})
	case spec.ReduceScatter:
		railLoop(l.NNodes, g.count, chunk, nc, ch, node, func(a, w, ownOff, own int64) {
			switch grp {
			case 0:
				if me >= 0 {
					dst = append(dst, Step{Prim: PrimRecv, Recv: net, Dst: outChunk(ownOff, own), Count: own, PostOp: true})
				}
			case 1:
				ps := make([]Chunk, nHeads)
				for h := range ps {
					ps[h] = RailChunk(BufInput, l.NVLSHeads[h], a, w)
				}
				dst = append(dst, Step{Prim: PrimScatter, Send: red, Pieces: ps, Count: sumPieces(ps), PreOp: true, Direct: true})
			case 2:
				if me >= 0 {
					dst = append(dst, Step{Prim: PrimRecvSend, Recv: red[me : me+1 : me+1], Send: net, Count: w, Direct: true})
				}
			}
		})
	}
	return dst
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
