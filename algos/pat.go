package algos

import (
	"fmt"
	"math/bits"

	"github.com/gatesim/gatesim/spec"
)

// PAT ("parallel aggregated trees") runs AllGather and ReduceScatter with
// one rank per node in log2(nRanks) dimensions: in dimension d a rank
// talks to the ranks 2^d away (ReduceScatter receives from rank-2^d and
// sends to rank+2^d, AllGather the other way round). Data for a
// destination 2^a+2^b+... ranks away travels one set bit at a time, and the
// partial results for several destinations are packed ("aggregated") into
// one FIFO slot so that small operations need few steps. A per-channel
// algorithm thread generates the step list; workers execute it.
//
// patSteps re-derives that step list (PatRSAlgorithm and PatAGAlgorithm of
// src/include/collectives.h at v2.28.9-1: the same phases, dimension
// choices, slot offsets and post points) and patGen turns each step into a
// PrimPatReduce or PrimPatCopy, deciding "new data or accumulate" from the
// bytes already written to each slot exactly as patReduce/patCopy of
// src/device/prims_simple.h do with accSize.
//
// Simplification: NCCL's workers execute up to parallelFactor consecutive
// steps at once between block-wide barriers; the schedule holds them as one
// sequential program (one thread group), which the timing model runs one
// step after the other.

// patStep is one ncclPatStep.
type patStep struct {
	recvDim, sendDim       int
	recvOffset, sendOffset int64
	stepOffset             int
	postRecv, postSend     bool
	nelem                  int64
	inpIx, outIx           int64
	skip                   bool
	last                   int
}

const patMaxParallel = 512 / 32 // NCCL_PAT_NWORKERS / WARP_SIZE

func log2Up(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// firstBit is ffs(i)-1, or max when i is zero.
func firstBit(i, max int) int {
	if i == 0 {
		return max
	}
	return bits.TrailingZeros(uint(i))
}

// patAgg are the aggregation parameters both algorithms start from: the
// aggregation factor grows while a channel's data is at most half a step,
// posts happen every postFreq steps, and aggregation grows further with the
// FIFO depth.
type patAgg struct {
	nrPow2, aggDelta, aggFactor, postFreq, parallelFactor int
}

func newPatAgg(stepBytes, channelBytes int64, nranks int) patAgg {
	a := patAgg{nrPow2: 1 << log2Up(nranks), parallelFactor: patMaxParallel, aggFactor: 1}
	a.aggDelta = a.nrPow2
	for stepBytes/(channelBytes*int64(a.aggFactor)) >= 2 && a.aggFactor < nranks/2 {
		a.aggFactor *= 2
		a.aggDelta /= 2
	}
	a.postFreq = a.aggFactor
	if a.postFreq < a.parallelFactor {
		a.parallelFactor = a.postFreq
	}
	for d := ncclSteps; d > 1 && a.aggFactor < nranks/2; {
		d /= 2
		a.aggFactor *= 2
		a.aggDelta /= 2
	}
	return a
}

// mirrorInvert reverses the bits of i within max and inverts them
// (ReduceScatter visits destinations far to near).
func mirrorInvert(i, max int) int {
	r := 0
	for mask, imask := 1, max/2; mask < max; mask, imask = mask<<1, imask>>1 {
		if i&mask == 0 {
			r += imask
		}
	}
	return r
}

// mirror reverses the bits of i within max (AllGather visits near to far).
func mirror(i, max int) int {
	r := 0
	for mask, imask := 1, max/2; mask < max; mask, imask = mask<<1, imask>>1 {
		if i&mask != 0 {
			r += imask
		}
	}
	return r
}

// onlyUpperBits reports i of the form 1..10..0 within pow2 (newPeer).
func onlyUpperBits(i, pow2 int) bool {
	return bits.OnesCount(uint((i^(pow2-1))+1)) == 1
}

// patRSSteps lists PatRSAlgorithm's steps for one rank and channel.
func patRSSteps(stepBytes int64, elemSize int, offset, end, count, chunkCount int64, rank, nranks int) []patStep {
	ag := newPatAgg(stepBytes, (end-offset)*int64(elemSize), nranks)
	nrPow2, aggDelta, aggFactor, postFreq, pf := ag.nrPow2, ag.aggDelta, ag.aggFactor, ag.postFreq, ag.parallelFactor
	var out []patStep
	var nelem int64
	var phase, scale, as, a, lastA, sendSkipped, stepOffset int
	resetA := func() {
		a, sendSkipped, stepOffset = 0, 0, 0
		lastA = aggFactor
		if phase >= 2 {
			lastA /= 2 * scale
		}
		if phase == 4 {
			lastA = 1
		}
	}
	reset := func() {
		nelem = min(chunkCount, end-offset)
		phase, scale, as = 0, 1, aggDelta-1
		resetA()
	}
	reset()
	for guard := 0; ; guard++ {
		ps := patStep{nelem: nelem, outIx: offset, stepOffset: stepOffset}
		skip := false
		if a >= lastA {
			skip = true
		} else {
			switch phase {
			case 0:
				s := mirrorInvert(a, lastA)*aggDelta + as
				if s >= nranks {
					skip = true
				}
				ps.inpIx = int64((rank+s)%nranks)*count + offset
				ps.recvDim, ps.sendDim = -1, 0
				ps.outIx = 0
				ps.recvOffset = -1
				ps.sendOffset = int64(a%postFreq) * nelem
				ps.postSend = a%postFreq+1 >= postFreq || a == lastA-1
			case 1:
				s := mirrorInvert(a, lastA)*aggDelta + as
				if s >= nranks {
					skip = true
				}
				ps.recvDim = firstBit(s, nrPow2)
				ps.sendOffset = int64(a%postFreq) * nelem
				ps.recvOffset = int64(a%postFreq) * nelem
				atPost := a%postFreq+1 >= postFreq || a == lastA-1
				ps.postSend = ps.recvDim == 0 && atPost
				ps.postRecv = atPost
				s -= 1 << ps.recvDim
				ps.inpIx = int64((rank+nranks+s)%nranks)*count + offset
				ps.sendDim = -1
				if s != 0 {
					ps.sendDim = firstBit(s, nrPow2)
				}
				if ps.sendDim == -1 {
					ps.sendOffset = -1
				} else if as-(1<<ps.recvDim) == 0 {
					if onlyUpperBits(a, aggFactor) {
						sendSkipped = a
						stepOffset = 0
						ps.stepOffset = 0
					}
					ps.sendOffset = int64((a-sendSkipped)%postFreq) * nelem
				}
				recvDim := ps.recvDim
				if s < nranks && skip {
					ps.recvDim, ps.recvOffset, ps.postRecv = -1, -1, false
					skip = false
				}
				if recvDim > 0 && (a-sendSkipped)%postFreq+1 >= postFreq && !skip {
					stepOffset++
				}
			case 2:
				s := (2*mirrorInvert(a, lastA)+1)*scale*aggDelta + 1
				ps.postRecv = false
				if s >= nranks {
					skip = true
				}
				ps.recvDim = 0
				ps.postSend = a == lastA-1
				s--
				if s < nranks && skip {
					ps.recvDim, ps.recvOffset = -1, -1
					skip = false
				} else if !skip {
					f := a + aggFactor - aggFactor/scale
					ps.postRecv = ps.postRecv || (f+1)%postFreq == 0
					ps.recvOffset = int64(f%postFreq) * nelem
				}
				ps.inpIx = int64((rank+nranks+s)%nranks)*count + offset
				ps.sendDim = -1
				if s != 0 {
					ps.sendDim = firstBit(s, nrPow2)
				}
				ps.postSend = ps.postSend || (a+1)%postFreq == 0
				ps.sendOffset = int64(a%postFreq) * nelem
			case 3:
				s := (2*mirrorInvert(a, lastA) + 1) * scale * aggDelta
				ps.postRecv = a == lastA-1
				if s >= nranks {
					skip = true
				}
				ps.recvDim = firstBit(s, nrPow2)
				ps.postSend = false
				s -= 1 << ps.recvDim
				ps.postRecv = ps.postRecv || (a+1)%postFreq == 0
				ps.recvOffset = int64(a%postFreq) * nelem
				ps.inpIx = int64((rank+nranks+s)%nranks)*count + offset
				ps.sendDim = -1
				if s != 0 {
					ps.sendDim = firstBit(s, nrPow2)
				}
				if s < nranks && skip {
					ps.recvDim, ps.recvOffset, ps.postRecv = -1, -1, false
					skip = false
				}
				if onlyUpperBits(a, aggFactor/(2*scale)) {
					sendSkipped = a
					stepOffset = 0
					ps.stepOffset = 0
				}
				f := a - sendSkipped
				if f%postFreq+1 >= postFreq && !skip {
					stepOffset++
				}
				ps.sendOffset = -1
				if ps.sendDim >= 0 {
					ps.sendOffset = int64(f%postFreq) * nelem
				}
			case 4:
				ps.recvDim, ps.sendDim = 0, -1
				ps.inpIx = int64(rank)*count + offset
				ps.recvOffset = int64((aggFactor-1)%postFreq) * nelem
				ps.sendOffset = -1
				ps.postRecv, ps.postSend = true, false
				offset += chunkCount
			}
		}
		a++
		if a >= lastA && a >= pf {
			p := phase
			if p == 1 {
				as--
			}
			if p == 3 {
				scale *= 2
			}
			switch p {
			case 0:
				if as == 1 {
					if aggFactor > 1 {
						phase = 2
					} else {
						phase = 4
					}
				} else {
					phase = 1
				}
			case 1:
				if as%2 == 1 {
					phase = 0
				} else {
					phase = 1
				}
			case 2:
				phase = 3
			case 3:
				if scale < aggFactor {
					phase = 2
				} else {
					phase = 4
				}
			default:
				phase = 5
			}
			if p == 4 {
				if offset >= end {
					ps.last = 2
				} else {
					reset()
				}
			} else {
				resetA()
			}
		} else if phase == 4 && offset >= end {
			ps.last = 1
		}
		ps.skip = skip
		out = append(out, ps)
		if ps.last == 2 || guard > 1<<26 {
			return out
		}
	}
}

// patAGSteps lists PatAGAlgorithm's steps for one rank and channel.
func patAGSteps(stepBytes int64, elemSize int, offset, end, count, chunkCount int64, rank, nranks int) []patStep {
	ag := newPatAgg(stepBytes, (end-offset)*int64(elemSize), nranks)
	nrPow2, aggDelta, aggFactor, postFreq, pf := ag.nrPow2, ag.aggDelta, ag.aggFactor, ag.postFreq, ag.parallelFactor
	asDim := log2Up(aggDelta)
	var out []patStep
	var nelem int64
	var phase, scale, as, a, lastA, v int
	bitCount := make([]int, 32)
	bitZeroStep := make([]int, 32)
	resetA := func() {
		a = 0
		lastA = aggFactor
		if phase >= 2 {
			lastA /= 2 * scale
		}
	}
	nextAs := func() int {
		for d := 0; d < asDim; d++ {
			p := 1 << d
			bitCount[d]--
			if bitCount[d] == 0 {
				v ^= p
				bitCount[d] = p
				if v&p == 0 {
					bitCount[d] += firstBit(bitZeroStep[d], asDim) - 1
					if bitCount[d] == 0 {
						v ^= p
						bitCount[d] = p
					}
					bitZeroStep[d]++
				}
			}
		}
		return v
	}
	reset := func() {
		nelem = min(chunkCount, end-offset)
		scale = aggFactor / 2
		phase = 1
		if scale != 0 {
			phase = 2
		}
		v = 0
		for i := 0; i < asDim; i++ {
			bitCount[i] = asDim - i
			bitZeroStep[i] = 1
		}
		as = nextAs()
		resetA()
	}
	reset()
	for guard := 0; ; guard++ {
		ps := patStep{nelem: nelem, inpIx: offset}
		skip := false
		if a >= lastA {
			skip = true
		} else {
			switch phase {
			case 0:
				s := a*aggDelta + as
				if s >= nranks {
					skip = true
				}
				ps.outIx = int64((rank+s)%nranks)*count + offset
				ps.sendDim, ps.recvDim = -1, 0
				ps.inpIx = 0
				ps.sendOffset = -1
				ps.recvOffset = int64(a%postFreq) * nelem
				ps.stepOffset = 0
				ps.postRecv = a%postFreq == postFreq-1 || (a+1)*aggDelta+as >= nranks
			case 1:
				s := a*aggDelta + as
				if s >= nranks {
					skip = true
				}
				ps.sendDim = firstBit(s, nrPow2)
				s -= 1 << ps.sendDim
				ps.outIx = int64((rank+nranks+s)%nranks)*count + offset
				ps.recvDim = -1
				if s != 0 {
					ps.recvDim = firstBit(s, nrPow2)
				}
				ps.sendOffset = int64(a%postFreq) * nelem
				ps.recvOffset = ps.sendOffset
				ps.postSend = a%postFreq == postFreq-1 || (a+1)*aggDelta+as >= nranks
				ps.postRecv = ps.sendDim == 0 && (a%postFreq == postFreq-1 || (a+1)*aggDelta+as-1 >= nranks)
				ps.stepOffset = 0
				if ps.sendDim != 0 {
					ps.stepOffset = a / postFreq
				}
				if ps.recvDim == -1 {
					ps.recvOffset = -1
					ps.postRecv = false
				} else if as-(1<<ps.sendDim) == 0 {
					f := (a * aggDelta) >> (ps.recvDim + 1)
					ps.recvOffset = int64(f%postFreq) * nelem
					ps.postRecv = ps.sendDim == 0 && (f%postFreq == postFreq-1 || (((f+1)*2)+1)<<ps.recvDim >= nranks)
					ps.stepOffset = 0
					if ps.sendDim != 0 {
						ps.stepOffset = f / postFreq
					}
				}
				if s < nranks && ps.sendDim == 0 && skip {
					// receive at least once even when nothing is sent afterwards
					ps.sendDim, ps.sendOffset, ps.postSend = -1, -1, false
					skip = false
				}
			case 2:
				s := (2*a + 1) * scale * aggDelta
				ps.postSend = a%postFreq == postFreq-1 || (2*(a+1)+1)*scale*aggDelta >= nranks
				ps.postRecv = false
				if s >= nranks {
					skip = true
				}
				ps.sendDim = firstBit(s, nrPow2)
				s -= 1 << ps.sendDim
				ps.sendOffset = int64(a%postFreq) * nelem
				ps.stepOffset = a / postFreq
				ps.outIx = int64((rank+nranks+s)%nranks)*count + offset
				ps.recvDim = -1
				if s != 0 {
					ps.recvDim = firstBit(s, nrPow2)
				}
				if ps.recvDim == -1 {
					ps.recvOffset = -1
				} else {
					f := (a * 2 * scale * aggDelta) >> (ps.recvDim + 1)
					ps.recvOffset = int64(f%postFreq) * nelem
					ps.stepOffset = f / postFreq
				}
			}
		}
		a++
		if a >= lastA && a >= pf {
			p := phase
			if p == 2 {
				scale /= 2
			}
			switch {
			case p == 2 && scale != 0:
				phase = 2
			case p == 2:
				phase = 1
			case p == 1 && as%2 == 1:
				phase = 0
			default:
				phase = 1
			}
			if p == 0 || (p == 1 && as%2 == 0) {
				as = nextAs()
			}
			if p == 0 && as == aggDelta/2 {
				offset += chunkCount
				if offset >= end {
					ps.last = 2
				} else {
					reset()
				}
			} else {
				resetA()
			}
		} else if phase == 0 && as == 1 && offset+chunkCount >= end && a-1 >= ((lastA-1)/pf)*pf {
			ps.last = 1
		}
		ps.skip = skip
		out = append(out, ps)
		if ps.last == 2 || guard > 1<<26 {
			return out
		}
	}
}

// patGen turns the PAT step lists into schedule steps.
type patGen struct {
	base
	connStep int64 // FIFO step in schedule units
}

func newPatGen(b base, x *chunkCtx) *patGen {
	return &patGen{base: b, connStep: int64(b.h.StepBytes / b.h.Unit)}
}

func (g *patGen) channelKey(ch int) string {
	_, cnt, chunk := g.part.part(ch)
	return fmt.Sprintf("pat n=%d chunk=%d", cnt, chunk)
}

// circulant: rank r talks to r ± 2^d (mod nRanks) in dimension d, and the
// step list (patRSSteps, patAGSteps) depends on the rank only through
// buffer offsets, so every rank runs rank 0's program rotated by r.
func (g *patGen) circulant(int) bool { return true }

func (g *patGen) program(rank, ch, grp int, dst []Step) []Step {
	if grp != 0 {
		return dst
	}
	chOff, chCount, chunk := g.part.part(ch)
	if chCount == 0 || chunk == 0 {
		return dst
	}
	n := g.h.NRanks
	rs := g.h.Func == spec.ReduceScatter
	var steps []patStep
	if rs {
		steps = patRSSteps(chunk*int64(g.h.Unit), g.h.Unit, chOff, chOff+chCount, g.count, chunk, rank, n)
	} else {
		steps = patAGSteps(chunk*int64(g.h.Unit), g.h.Unit, chOff, chOff+chCount, g.count, chunk, rank, n)
	}
	// peers per dimension: ReduceScatter receives from rank-2^d and sends to
	// rank+2^d, AllGather the reverse (prims_simple.h, PatMode connections)
	peer := func(d int, send bool) Peer {
		delta := 1 << d
		if send == rs {
			return RankPeer((rank + delta) % n)
		}
		return RankPeer((rank - delta%n + n) % n)
	}
	// per dimension (below 63: a rank count fits an int): slots posted
	// and consumed, how far sends and receives have accumulated, and the
	// one-peer lists, made once and shared by the steps
	var posted, consumed [64]int
	var sendAcc, recvAcc [64]int64
	var sendPeers, recvPeers [64][]Peer
	peers := func(lists *[64][]Peer, d int, send bool) []Peer {
		if lists[d] == nil {
			lists[d] = []Peer{peer(d, send)}
		}
		return lists[d]
	}
	// the steps' PatInfo in one allocation
	pis := make([]PatInfo, len(steps))
	localAcc := int64(0)
	for i, ps := range steps {
		if ps.skip {
			continue
		}
		ne := clamp0(ps.nelem)
		st := Step{Count: ne, Pat: &pis[i]}
		pi := st.Pat
		if ps.recvDim >= 0 {
			st.Recv = peers(&recvPeers, ps.recvDim, false)
			pi.RecvOffset = ps.recvOffset
			pi.PostRecv = ps.postRecv
		}
		if ps.sendDim >= 0 {
			st.Send = peers(&sendPeers, ps.sendDim, true)
			pi.SendOffset = ps.sendOffset
			pi.PostSend = ps.postSend
		}
		if rs {
			st.Prim = PrimPatReduce
			if ps.sendDim >= 0 {
				pi.SendSlot = ps.stepOffset
				abs := int64(posted[ps.sendDim]+ps.stepOffset)*g.connStep + ps.sendOffset + ne
				if sendAcc[ps.sendDim] < abs {
					st.Src = inChunk(ps.inpIx, ne)
				} else {
					pi.Acc = true
				}
				sendAcc[ps.sendDim] = max(sendAcc[ps.sendDim], abs)
			} else {
				st.Dst = outChunk(ps.outIx, ne)
				if localAcc < ps.outIx+ne {
					st.Src = inChunk(ps.inpIx, ne)
					localAcc = ps.outIx + ne
				} else {
					pi.Acc = true
				}
			}
		} else {
			st.Prim = PrimPatCopy
			if ps.recvDim >= 0 {
				pi.RecvSlot = ps.stepOffset
				abs := int64(consumed[ps.recvDim]+ps.stepOffset)*g.connStep + ps.recvOffset + ne
				if recvAcc[ps.recvDim] < abs {
					st.Dst = outChunk(ps.outIx, ne)
				}
				recvAcc[ps.recvDim] = max(recvAcc[ps.recvDim], abs)
			} else {
				st.Src = inChunk(ps.inpIx, ne)
				if localAcc < ps.inpIx+ne {
					if !g.h.InPlace || ps.outIx != ps.inpIx+int64(rank)*g.count {
						st.Dst = outChunk(ps.outIx, ne)
					}
					localAcc = ps.inpIx + ne
				}
			}
		}
		if ps.sendDim >= 0 && ps.postSend {
			posted[ps.sendDim]++
		}
		if ps.recvDim >= 0 && ps.postRecv {
			consumed[ps.recvDim]++
		}
		dst = append(dst, st)
	}
	return dst
}
