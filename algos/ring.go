package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
)

// ringGen builds Ring schedules, one thread group per channel. It mirrors
// runRing of src/device/all_reduce.h, all_gather.h, reduce_scatter.h,
// broadcast.h and reduce.h at v2.28.9-1:
//
//   - AllReduce is a reduce-scatter then an all-gather over the ring, in
//     loops of nRanks chunks: send, nRanks-2 × recvReduceSend,
//     recvReduceCopySend (the rank's own chunk, post-op), nRanks-2 ×
//     recvCopySend, recv. The last loop shrinks the chunk to
//     ceil(rem/nRanks) rounded up to 16 bytes.
//   - AllGather: copySend (send in place) of the rank's own piece,
//     nRanks-2 × recvCopySend, recv, per chunk.
//   - ReduceScatter: send, nRanks-2 × recvReduceSend, recvReduceCopy into
//     the rank's output, per chunk.
//   - Broadcast: the root copySends (sends in place), the rank before the
//     root receives, the others recvCopySend.
//   - Reduce: the rank after the root sends, the root recvReduceCopies,
//     the others recvReduceSend.
type ringGen struct{ base }

func (g *ringGen) channelKey(ch int) string {
	_, cnt, chunk := g.part.part(ch)
	o, _ := canonical(g.l.Ring[ch])
	return fmt.Sprintf("ring %v n=%d chunk=%d root=%d", o, cnt, chunk, g.rootKey(ch))
}

func (g *ringGen) channelRotation(ch int) int {
	_, k := canonical(g.l.Ring[ch])
	return k
}

// rootKey is the root's position relative to the rotation: a rotated
// channel maps the root to another rank, so Broadcast and Reduce channels
// only share a plan when the root lands on the same canonical rank.
func (g *ringGen) rootKey(ch int) int {
	if g.h.Func != spec.Broadcast && g.h.Func != spec.Reduce {
		return -1
	}
	return g.h.RotateRank(g.h.Root, -g.channelRotation(ch))
}

func (g *ringGen) program(rank, ch, grp int, dst []Step) []Step {
	if grp != 0 {
		return dst
	}
	gridOff, chanCount, chunkCount := g.part.part(ch)
	if chanCount == 0 {
		return dst
	}
	l := g.l
	n := g.h.NRanks
	recv := []Peer{RankPeer(l.RingPrev(ch, rank))}
	send := []Peer{RankPeer(l.RingNext(ch, rank))}
	pre := g.reducing()
	switch g.h.Func {
	case spec.AllReduce:
		ringIx := l.RingIndex(ch, rank)
		for _, lp := range g.ringLoops(ch) {
			at := func(t int) (int64, int64) {
				c := RingAllReduceChunk(ringIx, t, n)
				return gridOff + lp.Off + int64(c)*lp.Chunk, lp.Count(c)
			}
			off, ne := at(0)
			dst = append(dst, Step{Prim: PrimSend, Send: send, Src: inChunk(off, ne), Count: ne, PreOp: pre, Direct: true})
			for t := 1; t < n-1; t++ {
				off, ne := at(t)
				dst = append(dst, Step{Prim: PrimRecvReduceSend, Recv: recv, Send: send, Src: inChunk(off, ne), Count: ne, PreOp: pre, Direct: true})
			}
			off, ne = at(n - 1)
			dst = append(dst, Step{Prim: PrimRecvReduceCopySend, Recv: recv, Send: send, Src: inChunk(off, ne), Dst: outChunk(off, ne), Count: ne, PreOp: pre, PostOp: true, Direct: true})
			for t := n; t < 2*n-2; t++ {
				off, ne := at(t)
				dst = append(dst, Step{Prim: PrimRecvCopySend, Recv: recv, Send: send, Dst: outChunk(off, ne), Count: ne, Direct: true})
			}
			off, ne = at(2*n - 2)
			dst = append(dst, Step{Prim: PrimRecv, Recv: recv, Dst: outChunk(off, ne), Count: ne, Direct: true})
		}
	case spec.AllGather:
		count := g.count
		for elemOff := int64(0); elemOff < chanCount; elemOff += chunkCount {
			ne := min(chunkCount, chanCount-elemOff)
			dataOff := gridOff + elemOff
			off := dataOff + int64(l.RingUser(ch, rank, 0))*count
			if g.h.InPlace {
				dst = append(dst, Step{Prim: PrimSend, Send: send, Src: inChunk(dataOff, ne), Count: ne, Direct: true})
			} else {
				dst = append(dst, Step{Prim: PrimCopySend, Send: send, Src: inChunk(dataOff, ne), Dst: outChunk(off, ne), Count: ne, Direct: true})
			}
			for j := 1; j < n-1; j++ {
				off := dataOff + int64(l.RingUser(ch, rank, n-j))*count
				dst = append(dst, Step{Prim: PrimRecvCopySend, Recv: recv, Send: send, Dst: outChunk(off, ne), Count: ne, Direct: true})
			}
			off = dataOff + int64(l.RingUser(ch, rank, 1))*count
			dst = append(dst, Step{Prim: PrimRecv, Recv: recv, Dst: outChunk(off, ne), Count: ne, Direct: true})
		}
	case spec.ReduceScatter:
		count := g.count
		for elemOff := int64(0); elemOff < chanCount; elemOff += chunkCount {
			ne := min(chunkCount, chanCount-elemOff)
			dataOff := gridOff + elemOff
			off := dataOff + int64(l.RingUser(ch, rank, n-1))*count
			dst = append(dst, Step{Prim: PrimSend, Send: send, Src: inChunk(off, ne), Count: ne, PreOp: pre})
			for j := 2; j < n; j++ {
				off := dataOff + int64(l.RingUser(ch, rank, n-j))*count
				dst = append(dst, Step{Prim: PrimRecvReduceSend, Recv: recv, Send: send, Src: inChunk(off, ne), Count: ne, PreOp: pre})
			}
			off = dataOff + int64(rank)*count
			dst = append(dst, Step{Prim: PrimRecvReduceCopy, Recv: recv, Src: inChunk(off, ne), Dst: outChunk(dataOff, ne), Count: ne, PreOp: pre, PostOp: true})
		}
	case spec.Broadcast:
		root := g.h.Root
		next := l.RingUser(ch, rank, 1)
		for elemOff := int64(0); elemOff < chanCount; elemOff += chunkCount {
			ne := min(chunkCount, chanCount-elemOff)
			off := gridOff + elemOff
			switch {
			case rank == root && g.h.InPlace:
				dst = append(dst, Step{Prim: PrimSend, Send: send, Src: inChunk(off, ne), Count: ne, Direct: true})
			case rank == root:
				dst = append(dst, Step{Prim: PrimCopySend, Send: send, Src: inChunk(off, ne), Dst: outChunk(off, ne), Count: ne, Direct: true})
			case next == root:
				dst = append(dst, Step{Prim: PrimRecv, Recv: recv, Dst: outChunk(off, ne), Count: ne, Direct: true})
			default:
				dst = append(dst, Step{Prim: PrimRecvCopySend, Recv: recv, Send: send, Dst: outChunk(off, ne), Count: ne, Direct: true})
			}
		}
	case spec.Reduce:
		root := g.h.Root
		prev := l.RingUser(ch, rank, n-1)
		for elemOff := int64(0); elemOff < chanCount; elemOff += chunkCount {
			ne := min(chunkCount, chanCount-elemOff)
			off := gridOff + elemOff
			switch {
			case prev == root:
				dst = append(dst, Step{Prim: PrimSend, Send: send, Src: inChunk(off, ne), Count: ne, PreOp: pre})
			case rank == root:
				dst = append(dst, Step{Prim: PrimRecvReduceCopy, Recv: recv, Src: inChunk(off, ne), Dst: outChunk(off, ne), Count: ne, PreOp: pre, PostOp: true})
			default:
				dst = append(dst, Step{Prim: PrimRecvReduceSend, Recv: recv, Send: send, Src: inChunk(off, ne), Count: ne, PreOp: pre})
			}
		}
	}
	return dst
}

// uniformRing reports whether every rank's program on channel ch is one
// program up to its ring neighbours and buffer offsets: the same steps with
// the same primitives, counts and flags, receiving from RingPrev and
// sending to RingNext. It holds for AllGather and ReduceScatter (every
// rank moves the same chunk sizes in the same order) and for AllReduce
// when every loop's nRanks chunks are whole (the last loop's smaller chunk
// then divides the rest exactly); Broadcast and Reduce depend on the root.
func (g *ringGen) uniformRing(ch int) bool {
	switch g.h.Func {
	case spec.AllGather, spec.ReduceScatter:
		return true
	case spec.AllReduce:
	default:
		return false
	}
	for _, lp := range g.ringLoops(ch) {
		if lp.Rem < int64(g.h.NRanks)*lp.Chunk { // a short or empty chunk: ranks differ
			return false
		}
	}
	return true
}

// RingLoop is one loop of a Ring AllReduce channel: nRanks chunks of
// Chunk elements starting Off elements into the channel's part, of which
// Rem are left.
type RingLoop struct{ Off, Chunk, Rem int64 }

// Count is the element count of the loop's chunk c: the last loop's
// chunks run short, then empty, where its Rem runs out.
func (l RingLoop) Count(c int) int64 { return clamp0(min(l.Chunk, l.Rem-int64(c)*l.Chunk)) }

// RingAllReduceChunk is the chunk the rank at ring index i moves at step t
// (0 ≤ t ≤ 2(n-1)) of a Ring AllReduce loop: send chunk i-1, n-2 ×
// recvReduceSend of chunks i-2, i-3, …, recvReduceCopySend of its own
// chunk i, n-2 × recvCopySend of i-1, i-2, …, and recv of chunk i+1; that
// is, chunk (i-t-1) mod n.
// Ref: v2.28.9-1 src/device/all_reduce.h runRing.
func RingAllReduceChunk(i, t, n int) int {
	return ((i-t-1)%n + n) % n
}

// ringLoops are channel ch's AllReduce loops: loops of nRanks whole chunks,
// the last with the chunk shrunk to ceil(rem/nRanks) rounded up to 16
// bytes.
func (g *ringGen) ringLoops(ch int) []RingLoop {
	_, chanCount, chunkCount := g.part.part(ch)
	n := int64(g.h.NRanks)
	loopCount := n * chunkCount
	align := int64(16 / g.h.Unit)
	var loops []RingLoop
	for elemOff := int64(0); elemOff < chanCount; elemOff += loopCount {
		rem := chanCount - elemOff
		if rem < loopCount {
			chunkCount = nccl.RoundUp(nccl.DivUp(rem, n), align)
		}
		loops = append(loops, RingLoop{Off: elemOff, Chunk: chunkCount, Rem: rem})
	}
	return loops
}

func (g *ringGen) ringNeighbours(ch, rank int) (prev, next int) {
	return g.l.RingPrev(ch, rank), g.l.RingNext(ch, rank)
}
