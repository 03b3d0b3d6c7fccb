package algos

import "fmt"

// treeGen builds Tree AllReduce: NCCL's double binary tree across nodes
// with a chain inside each node (Layout.TreeLinks), reduce up and
// broadcast down, pipelined chunk by chunk. It mirrors runTreeSplit of
// src/device/all_reduce.h at v2.28.9-1: the channel's threads split into a
// reduce-up group (g0) and a broadcast-down group (g1) that run at once;
// the root does both in one group with recvReduceCopySend.
//
//	leaf:   g0 send(own) → up              g1 recv(up) → out
//	inner:  g0 recvReduceSend(own, down…) → up
//	        g1 recvCopySend(up) → out, down…
//	root:   g0 recvReduceCopySend(own, down…) → out, down… (post-op)
type treeGen struct{ base }

func (g *treeGen) channelKey(ch int) string {
	_, cnt, chunk := g.part.part(ch)
	t := g.l.Tree[ch]
	o, _ := canonical(t.Intra)
	return fmt.Sprintf("tree %v p%d t%d n=%d chunk=%d", o, t.Pattern, t.Which, cnt, chunk)
}

func (g *treeGen) channelRotation(ch int) int {
	_, k := canonical(g.l.Tree[ch].Intra)
	return k
}

func (g *treeGen) program(rank, ch, grp int, dst []Step) []Step {
	gridOff, chanCount, chunkCount := g.part.part(ch)
	if chanCount == 0 {
		return dst
	}
	up, down := g.l.TreeLinks(ch, rank)
	downP := make([]Peer, len(down))
	for i, d := range down {
		downP[i] = RankPeer(d)
	}
	upP := []Peer{RankPeer(up)}
	for elemOff := int64(0); elemOff < chanCount; elemOff += chunkCount {
		off := gridOff + elemOff
		ne := min(chunkCount, chanCount-elemOff)
		switch {
		case up == -1:
			if grp != 0 {
				return dst
			}
			if len(down) == 0 { // a tree of one rank cannot happen with nRanks > 1
				continue
			}
			dst = append(dst, Step{Prim: PrimRecvReduceCopySend, Recv: downP, Send: downP, Src: inChunk(off, ne), Dst: outChunk(off, ne), Count: ne, PreOp: true, PostOp: true, Direct: true})
		case grp == 0 && len(down) == 0:
			dst = append(dst, Step{Prim: PrimSend, Send: upP, Src: inChunk(off, ne), Count: ne, PreOp: true, Direct: true})
		case grp == 0:
			dst = append(dst, Step{Prim: PrimRecvReduceSend, Recv: downP, Send: upP, Src: inChunk(off, ne), Count: ne, PreOp: true, Direct: true})
		case grp == 1 && len(down) == 0:
			dst = append(dst, Step{Prim: PrimRecv, Recv: upP, Dst: outChunk(off, ne), Count: ne, Direct: true})
		case grp == 1:
			dst = append(dst, Step{Prim: PrimRecvCopySend, Recv: upP, Send: downP, Dst: outChunk(off, ne), Count: ne, Direct: true})
		}
	}
	return dst
}
