package sim

import (
	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/nccl"
)

// An uneven Ring AllReduce channel (the last loop's nRanks chunks do not
// divide its elements: some chunks are short or empty) has no two ranks
// alike: the rank at ring index i moves chunk i-t-1 at step t, so every
// rank meets the chunk sizes at different steps, and the symmetry classes
// are the ranks themselves. Its timeline is still a max-plus recurrence
// over ring index i and event e (one FIFO slice of every rank's program):
//
//	V[e](i) = max(V[e-1](i), V[d(e)](i-1) + lat(i-1) + fl(i-1), V[c(e)](i+1) + lat(i)) + dur(i, e)
//
// where d(e) is the upstream event that posted the message event e
// consumes, c(e) the downstream event that consumed the message whose slot
// event e reuses (the FIFO's credit), lat(i) the latency of the hop from
// index i to i+1, fl(i) the receive flush a message over it waits for
// (the data's, not the credit's: analysis.flushOf) and dur(i, e) the slice's time at index i's send rate:
// exactly what the event loop computes for every rank (try, Step). The
// links repeat with a period P that divides n (the GPUs of a node), and
// the chunk sizes are constant on runs of chunks (whole, one short, empty),
// so for each residue i mod P the vector V[e] over the n/P blocks is
// piecewise affine with few pieces: the recurrence runs on the pieces
// (maxima of affine functions split where they cross), exactly, in time
// proportional to events × pieces instead of events × ranks.

// seg is a piece of a piecewise-affine function over blocks: f(q) = v +
// (q-lo)·s for lo ≤ q < the next piece's lo (the last piece: to the end).
type seg struct {
	lo   int32
	v, s Time
}

// pwaAppend appends the piece [lo, hi) ↦ v + (q-lo)·s to f (whose last
// piece ends at lo), merging it into the last piece where one line holds
// both.
func pwaAppend(f []seg, lo, hi int32, v, s Time) []seg {
	if k := len(f) - 1; k >= 0 {
		last := &f[k]
		n0, n1 := Time(lo-last.lo), Time(hi-lo)
		switch {
		case n0 == 1 && n1 == 1:
			last.s = v - last.v
			return f
		case n0 == 1:
			if last.v+s == v {
				last.s = s
				return f
			}
		case n1 == 1:
			if last.v+n0*last.s == v {
				return f
			}
		default:
			if s == last.s && last.v+n0*last.s == v {
				return f
			}
		}
	}
	return append(f, seg{lo, v, s})
}

// pwaShiftUp is g(q) = f(q-1), cyclic over m blocks.
func pwaShiftUp(dst, f []seg, m int32) []seg {
	last := f[len(f)-1]
	dst = append(dst[:0], seg{0, last.v + Time(m-1-last.lo)*last.s, 0})
	for _, sg := range f {
		if sg.lo+1 >= m {
			break
		}
		dst = append(dst, seg{sg.lo + 1, sg.v, sg.s})
	}
	return dst
}

// pwaShiftDown is g(q) = f(q+1), cyclic over m blocks.
func pwaShiftDown(dst, f []seg, m int32) []seg {
	dst = dst[:0]
	for k, sg := range f {
		hi := m
		if k+1 < len(f) {
			hi = f[k+1].lo
		}
		if sg.lo == 0 {
			if hi-1 > 0 {
				dst = append(dst, seg{0, sg.v + sg.s, sg.s})
			}
			continue
		}
		dst = append(dst, seg{sg.lo - 1, sg.v, sg.s})
	}
	return append(dst, seg{m - 1, f[0].v, 0})
}

// dpiece is a constant piece [lo, hi) of a slice's duration over blocks.
type dpiece struct {
	lo, hi int32
	d      Time
}

// term is an input of pwaMax: f plus a constant.
type term struct {
	f   []seg
	add Time
}

// pwaMax is max over the terms, plus the piecewise-constant d (pieces
// sorted, covering [0, m)), appended to dst.
func pwaMax(dst []seg, ts []term, d []dpiece, m int32) []seg {
	var at [3]int
	di := 0
	var a, sl [3]Time
	for lo := int32(0); lo < m; {
		hi := m
		for j := range ts {
			f := ts[j].f
			k := at[j]
			for k+1 < len(f) && f[k+1].lo <= lo {
				k++
			}
			at[j] = k
			if k+1 < len(f) {
				hi = min(hi, f[k+1].lo)
			}
			a[j] = f[k].v + Time(lo-f[k].lo)*f[k].s + ts[j].add
			sl[j] = f[k].s
		}
		for d[di].hi <= lo {
			di++
		}
		hi = min(hi, d[di].hi)
		dv := d[di].d
		// upper envelope of the lines on [lo, hi): the highest at x (ties:
		// the steepest), until another, steeper, line overtakes it
		cur := 0
		for j := 1; j < len(ts); j++ {
			if a[j] > a[cur] || (a[j] == a[cur] && sl[j] > sl[cur]) {
				cur = j
			}
		}
		for x := lo; x < hi; {
			nx := hi
			vc := a[cur] + Time(x-lo)*sl[cur]
			for j := range ts {
				if sl[j] <= sl[cur] {
					continue
				}
				// j exceeds cur at the first y with
				// (vc - vj) < (y-x)(sj - sc)
				gap := vc - (a[j] + Time(x-lo)*sl[j])
				if y := Time(x) + gap/(sl[j]-sl[cur]) + 1; y < Time(nx) {
					nx = int32(y)
				}
			}
			dst = pwaAppend(dst, x, nx, vc+dv, sl[cur])
			if nx >= hi {
				break
			}
			best := cur
			vb := a[cur] + Time(nx-lo)*sl[cur]
			for j := range ts {
				v := a[j] + Time(nx-lo)*sl[j]
				if v > vb || (v == vb && sl[j] > sl[best]) {
					best, vb = j, v
				}
			}
			cur, x = best, nx
		}
		lo = hi
	}
	return dst
}

// ringRuns is what solving an uneven ring channel class needs: the loops,
// each rank's ring index, and per step of the program whether it receives
// (bit 0) and sends (bit 1).
type ringRuns struct {
	loops []algos.RingLoop
	index func(rank int) int
	io    []uint8
}

// ringProgram checks that steps, rank 0's program on an uneven Ring
// AllReduce channel of these loops, is the plain ring solveRing solves
// (every step receives from one peer, sends to one or both, moves the
// loop's chunk algos.RingAllReduceChunk at rank 0's ring index, no
// copies, pieces or PAT slots) and keeps what each step receives and
// sends; nil where it is not.
func ringProgram(steps []algos.Step, loops []algos.RingLoop, index func(int) int, nRanks int) *ringRuns {
	n := 2*nRanks - 1 // steps per loop
	if nRanks < 2 || len(steps) != len(loops)*n {
		return nil
	}
	i0 := index(0)
	rr := &ringRuns{loops: loops, index: index, io: make([]uint8, len(steps))}
	for k := range steps {
		st := &steps[k]
		l, t := k/n, k%n
		if st.Pat != nil || st.Prim == algos.PrimCopy || st.Prim == algos.PrimScatter || st.Prim == algos.PrimGather ||
			len(st.Recv) > 1 || len(st.Send) > 1 || len(st.Recv)+len(st.Send) == 0 || st.Count != loops[l].Count(algos.RingAllReduceChunk(i0, t, nRanks)) {
			return nil
		}
		if len(st.Recv) > 0 {
			rr.io[k] |= 1
		}
		if len(st.Send) > 0 {
			rr.io[k] |= 2
		}
		if st.Prim == algos.PrimRecv {
			rr.io[k] |= 4
		}
	}
	return rr
}

// solveRing runs channel class ci, an uneven Ring AllReduce, on the
// piecewise recurrence above from launch: the last rank's end. ok is false
// where the class is not the plain ring the recurrence describes (the
// event loop then runs it).
func (x *Sim) solveRing(ci int, launch Time) (end Time, events int64, ok bool) {
	s := x.s
	h := &s.Header
	an := x.an
	cc := an.classes[ci]
	rr := cc.kp.ring
	n := s.NRanks
	if rr == nil || n < 2 || x.depth <= 0 {
		return 0, 0, false
	}
	// ring order: pos[i] is the class's rank at ring index i
	pos := orderOf(n, func(r int) int { return rr.index(cc.planIndex(r)) })
	if pos == nil {
		return 0, 0, false
	}
	lat := make([]Time, n)
	flush := make([]Time, n) // what a step index i sends waits for at i+1 beyond lat[i]
	rate := make([]int64, n)
	ovh := make([]Time, n)
	stage := make([]bool, n) // its plain receives copy out of the FIFO
	anyStage := false
	for i := 0; i < n; i++ {
		r := int(pos[i])
		rp := cc.plan(r)
		if len(rp.slots) > 2 {
			return 0, 0, false
		}
		var sendOK, recvOK bool
		for si := range rp.slots {
			sp := &rp.slots[si]
			p := cc.peerAt(r, sp.peer)
			if p.Kind != algos.PeerRank {
				return 0, 0, false
			}
			if sp.sends {
				if int(p.ID) != int(pos[(i+1)%n]) {
					return 0, 0, false
				}
				lat[i] = an.latOf(ci, r, si)
				flush[i] = an.flushOf(ci, r, si)
				rate[i] = an.gSend[ci][r][sp.group]
				ovh[i] = an.groupOvh(ci, r, sp.group)
				sendOK = true
			}
			if sp.recvs {
				if int(p.ID) != int(pos[(i+n-1)%n]) {
					return 0, 0, false
				}
				recvOK = true
				stage[i] = an.stages(ci, r, si)
				anyStage = anyStage || stage[i]
			}
		}
		if !sendOK || !recvOK {
			return 0, 0, false
		}
	}
	per := 2*n - 1
	if len(rr.io) != len(rr.loops)*per {
		return 0, 0, false
	}
	S := len(sliceSizes(h, 0, nil))
	E := len(rr.io) * S
	// per event: the upstream event whose message it consumes and the
	// downstream event that freed the slot it fills (-1: none)
	srcD := make([]int32, E)
	srcC := make([]int32, E)
	var post, cons []int32
	W := 1
	for k, io := range rr.io {
		for sl := 0; sl < S; sl++ {
			e := int32(k*S + sl)
			srcD[e], srcC[e] = -1, -1
			if io&1 != 0 {
				m := len(cons)
				if m >= len(post) {
					return 0, 0, false
				}
				srcD[e] = post[m]
				cons = append(cons, e)
			}
			if io&2 != 0 {
				m := len(post)
				if m >= x.depth {
					srcC[e] = cons[m-x.depth]
				}
				post = append(post, e)
			}
			for _, src := range [2]int32{srcD[e], srcC[e]} {
				if src >= e {
					return 0, 0, false
				}
				if src >= 0 {
					W = max(W, int(e-src))
				}
			}
		}
	}
	// the links' period
	P := n
	for p := 1; p < n; p++ {
		if n%p != 0 {
			continue
		}
		same := true
		for i := p; i < n && same; i++ {
			same = lat[i] == lat[i-p] && flush[i] == flush[i-p] && rate[i] == rate[i-p] && ovh[i] == ovh[i-p] && stage[i] == stage[i-p]
		}
		if same {
			P = p
			break
		}
	}
	m := int32(n / P)
	// per loop: runs of chunks of one size, and each slice's duration per
	// residue
	type run struct {
		a, b int // chunks [a, b)
		dur  []Time
		// rdur: a plain receive's FIFO copy per slice and residue (nil
		// where no receive copies)
		rdur []Time
	}
	runs := make([][]run, len(rr.loops))
	var slb []int64
	for l, lp := range rr.loops {
		for c := 0; c < n; {
			cnt := lp.Count(c)
			b := c + 1
			if lp.Chunk > 0 {
				// Count is non-increasing: whole chunks, one short, empty
				for b < n && lp.Count(b) == cnt {
					b++
				}
			}
			slb = sliceSizes(h, cnt, slb)
			d := make([]Time, S*P)
			var rd []Time
			if anyStage {
				rd = make([]Time, S*P)
			}
			for sl := 0; sl < S; sl++ {
				for r := 0; r < P; r++ {
					d[sl*P+r] = sendDuration(wireBytes(h.Proto, slb[sl]*int64(h.Unit)), rate[r], ovh[r])
					if rd != nil && stage[r] {
						rd[sl*P+r] = hbmCopyDuration(slb[sl]*int64(h.Unit), x.f.m.HBMBw)
					}
				}
			}
			runs[l] = append(runs[l], run{c, b, d, rd})
			c = b
		}
	}
	// V over the last W+1 events, per residue
	V := make([][][]seg, W+1)
	for i := range V {
		V[i] = make([][]seg, P)
	}
	start := []seg{{0, launch, 0}}
	var up, down []seg
	var ts []term
	var dp []dpiece
	for e := 0; e < E; e++ {
		k := e / S
		l, t, sl := k/per, k%per, e%S
		cur := V[e%(W+1)]
		for r := 0; r < P; r++ {
			ts = ts[:0]
			if e == 0 {
				ts = append(ts, term{start, 0})
			} else {
				ts = append(ts, term{V[(e-1)%(W+1)][r], 0})
			}
			if src := srcD[e]; src >= 0 {
				f := V[int(src)%(W+1)][(r+P-1)%P]
				if r == 0 {
					up = pwaShiftUp(up, f, m)
					f = up
				}
				ts = append(ts, term{f, lat[(r+P-1)%P] + flush[(r+P-1)%P]})
			}
			if src := srcC[e]; src >= 0 {
				f := V[int(src)%(W+1)][(r+1)%P]
				if r == P-1 {
					down = pwaShiftDown(down, f, m)
					f = down
				}
				ts = append(ts, term{f, lat[r]})
			}
			dp = dp[:0]
			if rr.io[k]&2 == 0 && (rr.io[k]&4 == 0 || !anyStage) {
				dp = append(dp, dpiece{0, m, 0})
			} else {
				// index qP+r moves chunk (qP + off) mod n = r0 + P·((q+q0) mod m)
				off := algos.RingAllReduceChunk(r, t, n)
				r0, q0 := off%P, int32(off/P)
				for _, ru := range runs[l] {
					u1 := int32(max(0, ceilDiv(ru.a-r0, P)))
					u2 := int32(min(int(m), ceilDiv(ru.b-r0, P)))
					if u1 >= u2 {
						continue
					}
					dv := ru.dur[sl*P+r]
					if rr.io[k]&2 == 0 {
						dv = ru.rdur[sl*P+r]
					}
					lo, hi := u1-q0, u2-q0
					if lo < 0 {
						lo += m
						hi += m
					}
					if hi <= m {
						dp = append(dp, dpiece{lo, hi, dv})
					} else {
						dp = append(dp, dpiece{lo, m, dv}, dpiece{0, hi - m, dv})
					}
				}
				sortPieces(dp)
			}
			cur[r] = pwaMax(cur[r][:0], ts, dp, m)
		}
	}
	last := V[(E-1)%(W+1)]
	end = launch
	for r := 0; r < P; r++ {
		f := last[r]
		for k, sg := range f {
			hi := m
			if k+1 < len(f) {
				hi = f[k+1].lo
			}
			end = max(end, sg.v, sg.v+Time(hi-1-sg.lo)*sg.s)
		}
	}
	return end, int64(an.ncolors[ci]) * int64(E), true
}

// orderOf is the rank at each index of an order of n ranks, where index
// is each rank's; nil where index is not a permutation.
func orderOf(n int, index func(rank int) int) []int32 {
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = -1
	}
	for r := 0; r < n; r++ {
		i := index(r)
		if i < 0 || i >= n || pos[i] >= 0 {
			return nil
		}
		pos[i] = int32(r)
	}
	return pos
}

// ceilDiv is the ceiling of a / b for b > 0 and any a: DIVUP for a > 0,
// and rounding toward +inf (not DIVUP's toward zero) when a run starts
// before r0 and a is negative.
func ceilDiv(a, b int) int {
	if a <= 0 {
		return -(-a / b)
	}
	return nccl.DivUp(a, b)
}

// sortPieces sorts a handful of duration pieces by start.
func sortPieces(d []dpiece) {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j].lo < d[j-1].lo; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
}
