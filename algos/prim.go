package algos

import (
	"fmt"
	"strconv"
	"strings"
)

// Prim is one device primitive call in NCCL's own vocabulary (the methods of
// Primitives<> in src/device/prims_simple.h, prims_ll.h, prims_ll128.h at
// v2.28.9-1). Every call moves Count elements per peer; the data plane and
// the timing model read the semantics below, nothing else.
//
// "Direct" variants (directSend, directRecvReduceDirectSend, ...) move the
// same data as their plain forms and differ only in who writes the peer's
// buffer; a Step records the distinction in Direct so a schedule can be
// replayed the way NCCL issues it.
type Prim uint8

const (
	// PrimSend reads Src (applying the reduction's pre-op) and sends it to
	// every Send peer (send, directSend, directSendFromOutput).
	PrimSend Prim = iota
	// PrimRecv receives from Recv[0] and writes Dst, applying the post-op
	// when PostOp is set (recv, directRecv).
	PrimRecv
	// PrimCopySend reads Src (pre-op), writes Dst and sends to every Send
	// peer (copySend, directCopySend).
	PrimCopySend
	// PrimRecvSend forwards what Recv[0] delivers to every Send peer without
	// touching the user buffers (directRecvDirectSend of NVLS).
	PrimRecvSend
	// PrimRecvCopySend receives, writes Dst and forwards
	// (recvCopySend, directRecvCopyDirectSend).
	PrimRecvCopySend
	// PrimRecvReduceSend reduces Src (pre-op) with every Recv peer's data, in
	// that order, and sends the result (recvReduceSend,
	// directRecvReduceDirectSend).
	PrimRecvReduceSend
	// PrimRecvReduceCopy reduces Src with every Recv peer's data and writes
	// Dst (recvReduceCopy, directRecvReduceCopy).
	PrimRecvReduceCopy
	// PrimRecvReduceCopySend reduces, writes Dst and sends
	// (recvReduceCopySend, directRecvReduceCopyDirectSend).
	PrimRecvReduceCopySend
	// PrimScatter sends Pieces[i] of the user buffer (pre-op) to Send[i]
	// (scatter, directScatter: ScatterGatherOp).
	PrimScatter
	// PrimGather receives from Recv[i] into Pieces[i] (gather, directGather).
	PrimGather
	// PrimCopy copies Src to Dst with pre- and post-op on one rank: NCCL's
	// single-rank path (ncclLaunchOneRank), and the local half of an
	// out-of-place AllGather or Broadcast that NCCL overlaps with the ring.
	PrimCopy
	// PrimPatReduce is one step of PAT ReduceScatter (patReduce): it adds Src
	// (the rank's own contribution, or what already sits in the staging
	// region when Acc is set) to what Recv[0] delivers (if any) and leaves the
	// result in the staging region of Send[0] or, without a send peer, in Dst.
	PrimPatReduce
	// PrimPatCopy is one step of PAT AllGather (patCopy): it forwards what
	// Recv[0] delivers (or Src) to the staging region of Send[0] and writes
	// Dst unless the data is already there.
	PrimPatCopy
	numPrims
)

var primNames = [numPrims]string{
	PrimSend:               "send",
	PrimRecv:               "recv",
	PrimCopySend:           "copySend",
	PrimRecvSend:           "recvSend",
	PrimRecvCopySend:       "recvCopySend",
	PrimRecvReduceSend:     "recvReduceSend",
	PrimRecvReduceCopy:     "recvReduceCopy",
	PrimRecvReduceCopySend: "recvReduceCopySend",
	PrimScatter:            "scatter",
	PrimGather:             "gather",
	PrimCopy:               "copy",
	PrimPatReduce:          "patReduce",
	PrimPatCopy:            "patCopy",
}

func (p Prim) String() string {
	if p < numPrims {
		return primNames[p]
	}
	return fmt.Sprintf("Prim(%d)", int(p))
}

// ParsePrim is the inverse of String.
func ParsePrim(s string) (Prim, error) {
	for i, n := range primNames {
		if s == n {
			return Prim(i), nil
		}
	}
	return 0, fmt.Errorf("unknown primitive %q: expected one of %s", s, strings.Join(primNames[:], ", "))
}

// Receives reports whether the primitive consumes data from Recv peers.
func (p Prim) Receives() bool {
	switch p {
	case PrimRecv, PrimRecvSend, PrimRecvCopySend, PrimRecvReduceSend, PrimRecvReduceCopy,
		PrimRecvReduceCopySend, PrimGather, PrimPatReduce, PrimPatCopy:
		return true
	}
	return false
}

// Sends reports whether the primitive delivers data to Send peers.
func (p Prim) Sends() bool {
	switch p {
	case PrimSend, PrimCopySend, PrimRecvSend, PrimRecvCopySend, PrimRecvReduceSend,
		PrimRecvReduceCopySend, PrimScatter, PrimPatReduce, PrimPatCopy:
		return true
	}
	return false
}

// Reduces reports whether the primitive combines data with the reduction.
func (p Prim) Reduces() bool {
	switch p {
	case PrimRecvReduceSend, PrimRecvReduceCopy, PrimRecvReduceCopySend, PrimPatReduce:
		return true
	}
	return false
}

// ReadsSrc reports whether the primitive reads the rank's own buffer (Src or Pieces).
func (p Prim) ReadsSrc() bool {
	switch p {
	case PrimSend, PrimCopySend, PrimRecvReduceSend, PrimRecvReduceCopy, PrimRecvReduceCopySend,
		PrimScatter, PrimCopy:
		return true
	}
	return false
}

// WritesDst reports whether the primitive writes the rank's own buffer (Dst or Pieces).
func (p Prim) WritesDst() bool {
	switch p {
	case PrimRecv, PrimCopySend, PrimRecvCopySend, PrimRecvReduceCopy, PrimRecvReduceCopySend,
		PrimGather, PrimCopy:
		return true
	}
	return false
}

// Buffer names a user buffer of a rank.
type Buffer uint8

const (
	BufNone   Buffer = iota
	BufInput         // sendbuff
	BufOutput        // recvbuff
)

func (b Buffer) String() string {
	switch b {
	case BufInput:
		return "in"
	case BufOutput:
		return "out"
	}
	return "none"
}

// Chunk is a range of a user buffer, in elements of the schedule's unit
// (bytes for AllGather and Broadcast, which NCCL runs as int8; the
// datatype's elements otherwise).
//
// A chunk with Rail set is a range of a rail view instead: NCCL's "railAll"
// space of AllGather and ReduceScatter across nodes through CollNet
// (CollNetDirect, and NVLS with SHARP), in which the per-rank blocks of one
// local rank on every node follow each other in node order. View position
// v is element v mod count of the block of rank (node v/count, that local
// rank), so a rail range that crosses a node boundary is several pieces of
// the buffer (Header.RailSegments). count is the collective's per-rank
// count (Header.Count in schedule units). Ref: v2.28.9-1
// src/device/all_gather.h and reduce_scatter.h, Scatterer (railAllBeg,
// railOneBeg, collNetDenseToUserRank).
type Chunk struct {
	Buf    Buffer
	Offset int64
	Count  int64
	// Rail is 1 + the local rank whose blocks form the view, 0 for a plain
	// range of the buffer (RailChunk builds one).
	Rail int16
}

// RailChunk is the range [off, off+n) of the rail view of local rank
// local in buffer b.
func RailChunk(b Buffer, local int, off, n int64) Chunk {
	return Chunk{Buf: b, Offset: off, Count: n, Rail: int16(local + 1)}
}

// RailLocal returns the local rank of a rail chunk's view, and false for a
// plain range.
func (c Chunk) RailLocal() (int, bool) { return int(c.Rail) - 1, c.Rail > 0 }

// String prints in@128+64, or out@l3:128+64 for a range of local rank 3's
// rail view.
func (c Chunk) String() string {
	if c.Buf == BufNone {
		return "-"
	}
	rail := ""
	if l, ok := c.RailLocal(); ok {
		rail = "l" + strconv.Itoa(l) + ":"
	}
	return c.Buf.String() + "@" + rail + strconv.FormatInt(c.Offset, 10) + "+" + strconv.FormatInt(c.Count, 10)
}

// End is the first element after the chunk (in the rail view for a rail
// chunk).
func (c Chunk) End() int64 { return c.Offset + c.Count }

// PeerKind says what a step talks to: another rank or an offload engine.
type PeerKind uint8

const (
	// PeerRank is another rank (or the same one) through a P2P, SHM or NET
	// connection.
	PeerRank PeerKind = iota
	// PeerNet is the network's in-switch reduction (SHARP through CollNet)
	// for one CollNet head index on the step's channel: every node's head
	// sends its contribution, the switch reduces them in node order and every
	// head receives the result (src/device/all_reduce.h, direct->out and
	// collnetChain up == nRanks).
	PeerNet
	// PeerNVLS is the NVSwitch multicast object of one NVLS head on one node,
	// in its reducing role: every local rank scatters its piece into it and
	// the head's receive is a multimem.ld_reduce over all of them
	// (src/device/all_reduce.h RunWorkColl NVLS, nvls->up / nvls->down).
	PeerNVLS
	// PeerMcast is the same multicast object in its storing role: the head's
	// send is a multimem.st that every local rank then receives (gathers).
	PeerMcast
)

// Peer is a rank or an offload endpoint. For PeerRank, ID is the global
// rank; for PeerNet, the CollNet head index; for PeerNVLS and PeerMcast,
// node*LocalRanks + head index. Conn is NCCL's connection index: two ranks
// may hold two independent FIFOs in the same direction on one channel
// (CollNet's scatter/reduce path uses connection 1, its broadcast/gather
// path connection 0, src/device/all_reduce.h).
type Peer struct {
	Kind PeerKind
	ID   int32
	Conn uint8
}

// RankPeer is a rank peer on connection 0.
func RankPeer(r int) Peer { return Peer{Kind: PeerRank, ID: int32(r)} }

// RankPeerConn is a rank peer on connection conn.
func RankPeerConn(r, conn int) Peer { return Peer{Kind: PeerRank, ID: int32(r), Conn: uint8(conn)} }

// Back is the peer as the other side names this rank: the same kind of
// connection (same index) pointing at rank.
func (p Peer) Back(rank int) Peer { return Peer{Kind: PeerRank, ID: int32(rank), Conn: p.Conn} }

// IsRank reports a rank peer.
func (p Peer) IsRank() bool { return p.Kind == PeerRank }

// format prints r12 (r12/1 on connection 1), net3, nvls0.2, mcast0.2
// (node 0, head 2); localRanks is needed for the NVLS forms.
func (p Peer) format(localRanks int) string {
	switch p.Kind {
	case PeerRank:
		if p.Conn != 0 {
			return "r" + strconv.Itoa(int(p.ID)) + "/" + strconv.Itoa(int(p.Conn))
		}
		return "r" + strconv.Itoa(int(p.ID))
	case PeerNet:
		return "net" + strconv.Itoa(int(p.ID))
	case PeerNVLS, PeerMcast:
		name := "nvls"
		if p.Kind == PeerMcast {
			name = "mcast"
		}
		if localRanks <= 0 {
			localRanks = 1
		}
		return name + strconv.Itoa(int(p.ID)/localRanks) + "." + strconv.Itoa(int(p.ID)%localRanks)
	}
	return "?"
}

func parsePeer(s string, localRanks int) (Peer, error) {
	num := func(t string) (int, error) {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad peer %q: expected a non-negative number after the kind", s)
		}
		return n, nil
	}
	switch {
	case strings.HasPrefix(s, "r"):
		id, conn, hasConn := strings.Cut(s[1:], "/")
		n, err := num(id)
		if err != nil {
			return Peer{}, err
		}
		c := 0
		if hasConn {
			if c, err = num(conn); err != nil || c > 1 {
				return Peer{}, fmt.Errorf("bad peer %q: expected connection 0 or 1 after /", s)
			}
		}
		return Peer{Kind: PeerRank, ID: int32(n), Conn: uint8(c)}, nil
	case strings.HasPrefix(s, "net"):
		n, err := num(s[3:])
		return Peer{Kind: PeerNet, ID: int32(n)}, err
	case strings.HasPrefix(s, "nvls"), strings.HasPrefix(s, "mcast"):
		kind, rest := PeerNVLS, strings.TrimPrefix(s, "nvls")
		if strings.HasPrefix(s, "mcast") {
			kind, rest = PeerMcast, strings.TrimPrefix(s, "mcast")
		}
		node, head, ok := strings.Cut(rest, ".")
		if !ok {
			return Peer{}, fmt.Errorf("bad peer %q: expected <kind><node>.<head>", s)
		}
		n, err := num(node)
		if err != nil {
			return Peer{}, err
		}
		h, err := num(head)
		if err != nil {
			return Peer{}, err
		}
		if h >= localRanks {
			return Peer{}, fmt.Errorf("bad peer %q: head %d is not below the %d local ranks", s, h, localRanks)
		}
		return Peer{Kind: kind, ID: int32(n*localRanks + h)}, nil
	}
	return Peer{}, fmt.Errorf("bad peer %q: expected r<rank>[/<conn>], net<head>, nvls<node>.<head> or mcast<node>.<head>", s)
}
