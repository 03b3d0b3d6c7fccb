package algos

import (
	"fmt"
	"strings"
)

// chainGen builds CollNetChain AllReduce: each node reduces up a chain of
// its ranks (Layout.CollNetChain) to the head, the head hands the node's
// partial result to the network, the network (SHARP) reduces across nodes
// in flight and returns the result to every head, and each head broadcasts
// it back down its chain. It mirrors RunWorkColl<AllReduce, COLLNET_CHAIN>
// of src/device/all_reduce.h at v2.28.9-1: the channel's threads split into
// a reduce-up group (g0) and a broadcast-down group (g1); every channel
// walks the whole buffer in strides of nChannels chunks, channel c taking
// chunk c of each stride.
//
//	g0: last of chain send(own) → up; others recvReduceSend(own, down) → up
//	    (the head's "up" is the network, net0)
//	g1: head recv(net0) → out (post-op), recvCopySend(net0) → out, down
//	    others recv(up) → out, or recvCopySend(up) → out, down
type chainGen struct{ base }

// channelKey is the chain and the channel's chunk sizes per stride.
func (g *chainGen) channelKey(ch int) string {
	var b strings.Builder
	o, _ := canonical(g.l.CollNetChain[ch])
	fmt.Fprintf(&b, "chain %v", o)
	chunk, size := g.part.cnChunk, g.part.cnCount
	if chunk > 0 {
		loop := int64(g.h.NChannels) * chunk
		for gridOff := int64(0); gridOff < size; gridOff += loop {
			fmt.Fprintf(&b, " %d", clamp0(min(chunk, size-gridOff-int64(ch)*chunk)))
		}
	}
	return b.String()
}

// netPeer is the in-network reduction of a chain channel: one CollNet
// group formed by every node's chain head.
var chainNet = Peer{Kind: PeerNet, ID: 0}

func (g *chainGen) channelRotation(ch int) int {
	_, k := canonical(g.l.CollNetChain[ch])
	return k
}

func (g *chainGen) endpoint(ch int, p Peer) Endpoint {
	if p != chainNet {
		return Endpoint{}
	}
	heads := make([]int, g.l.NNodes)
	for n := range heads {
		heads[n] = g.l.Rank(n, g.l.CollNetChain[ch][0])
	}
	return Endpoint{Senders: heads, Receivers: heads}
}

func (g *chainGen) program(rank, ch, grp int, dst []Step) []Step {
	nCh := int64(g.h.NChannels)
	chunk := g.part.cnChunk
	size := g.part.cnCount
	if chunk <= 0 {
		return dst
	}
	loop := nCh * chunk
	bid := int64(ch)
	// the reduce-up half uses connection 1, the broadcast-down half
	// connection 0 (connIndex of the Primitives in all_reduce.h)
	up, down := g.l.ChainLinks(ch, rank)
	upRed, upBc := []Peer{chainNet}, []Peer{chainNet}
	if up != -1 {
		upRed, upBc = []Peer{RankPeerConn(up, 1)}, []Peer{RankPeer(up)}
	}
	downRed, downBc := []Peer{RankPeerConn(down, 1)}, []Peer{RankPeer(down)}
	for gridOff := int64(0); gridOff < size; gridOff += loop {
		off := gridOff + bid*chunk
		ne := clamp0(min(chunk, size-off))
		if ne == 0 {
			off = min(off, size)
		}
		switch {
		case grp == 0 && down == -1:
			dst = append(dst, Step{Prim: PrimSend, Send: upRed, Src: inChunk(off, ne), Count: ne, PreOp: true, Direct: true})
		case grp == 0:
			dst = append(dst, Step{Prim: PrimRecvReduceSend, Recv: downRed, Send: upRed, Src: inChunk(off, ne), Count: ne, PreOp: true, Direct: true})
		case grp == 1 && down == -1:
			dst = append(dst, Step{Prim: PrimRecv, Recv: upBc, Dst: outChunk(off, ne), Count: ne, PostOp: up == -1, Direct: true})
		case grp == 1:
			dst = append(dst, Step{Prim: PrimRecvCopySend, Recv: upBc, Send: downBc, Dst: outChunk(off, ne), Count: ne, PostOp: up == -1, Direct: true})
		}
	}
	return dst
}
