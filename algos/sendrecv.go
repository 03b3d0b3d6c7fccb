package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
)

// srGen builds the send/recv pattern nccl-tests' sendrecv runs: every rank
// sends Count elements to the next rank and receives as many from the
// previous one, in one NCCL group. Each of the operation's channels carries
// a contiguous share of the payload (rounded to 16 bytes), in messages of
// at most one FIFO step (the P2P chunk for Simple); the send half (g0) and
// the receive half (g1) of a channel run concurrently, as NCCL's P2P
// kernel runs sends and receives in separate warps.
//
// Simplification: NCCL spreads a peer's traffic over channels by its P2P
// round schedule (ncclP2pChannelBaseForRound, NCCL_NCHANNELS_PER_NET_PEER)
// and chunks by p2pChunkSize with its own step accounting; here the
// channels are the operation's first NChannels and the split is even.
type srGen struct {
	h      Header
	l      *Layout
	count  int64 // units
	parts  []int64
	chunk  int64
	offset []int64
}

func buildSendRecv(op spec.Op, sel Selection, l *Layout, p Params, opt Options) (*Schedule, error) {
	if sel.Proto < 0 || sel.Proto >= spec.NumProtos {
		return nil, fmt.Errorf("build: unknown protocol %d", sel.Proto)
	}
	nc := sel.NChannels
	if nc <= 0 {
		nc = min(2, l.NChannels)
	}
	if nc > l.NChannels {
		return nil, fmt.Errorf("build: %d channels requested but the communicator has %d", nc, l.NChannels)
	}
	h := Header{
		Release: l.Release, Func: spec.SendRecv, Algo: spec.Ring, Proto: sel.Proto,
		DataType: op.DataType, RedOp: op.RedOp, Count: op.Count,
		NRanks: l.NRanks(), NNodes: l.NNodes, LocalRanks: l.LocalRanks,
		NGroups: 2, InPlace: opt.InPlace, NSteps: p.NSteps, Unit: op.DataType.Size(),
		SlicePerChunk: 1, StepPerSlice: 1,
	}
	step := l.BuffSize[sel.Proto] / p.NSteps
	chunkBytes := int64(step)
	switch sel.Proto {
	case spec.Simple:
		chunkBytes = int64(min(step, l.P2PChunkSize))
	case spec.LL:
		chunkBytes /= 2
	case spec.LL128:
		chunkBytes = chunkBytes / ll128LineElems * ll128DataElems
	}
	h.StepBytes = step
	g := &srGen{h: h, l: l, count: op.Count}
	g.chunk = max(1, chunkBytes/int64(h.Unit))
	if op.Count == 0 {
		h.NChannels, h.NGroups = 0, 1
		return &Schedule{Header: h, progs: [][]Step{}}, nil
	}
	// even split in 16-byte units over nc channels
	align := max(1, int64(16/h.Unit))
	per := alignUp(divUp(op.Count, int64(nc)), align)
	off := int64(0)
	for c := 0; c < nc && off < op.Count; c++ {
		n := min(per, op.Count-off)
		g.parts = append(g.parts, n)
		g.offset = append(g.offset, off)
		off += n
	}
	g.h.NChannels = len(g.parts)
	return &Schedule{Header: g.h, gen: g, netDev: l.NetDev}, nil
}

func (g *srGen) channelKey(ch int) string { return fmt.Sprintf("sendrecv n=%d", g.parts[ch]) }

func (g *srGen) endpoint(int, Peer) Endpoint { return Endpoint{} }

func (g *srGen) program(rank, ch, grp int, dst []Step) []Step {
	n := g.h.NRanks
	peer := []Peer{RankPeer((rank + 1) % n)}
	if grp == 1 {
		peer = []Peer{RankPeer((rank - 1 + n) % n)}
	}
	end := g.offset[ch] + g.parts[ch]
	for off := g.offset[ch]; off < end; off += g.chunk {
		ne := min(g.chunk, end-off)
		if grp == 0 {
			dst = append(dst, Step{Prim: PrimSend, Send: peer, Src: inChunk(off, ne), Count: ne})
		} else {
			dst = append(dst, Step{Prim: PrimRecv, Recv: peer, Dst: outChunk(off, ne), Count: ne})
		}
	}
	return dst
}
