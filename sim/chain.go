package sim

import "github.com/gatesim/gatesim/algos"

// A Ring Broadcast or Reduce channel is a chain: its data enters at one
// end (Broadcast: the root; Reduce: the rank after it), every rank on the
// way receives a message from the rank before it and sends one to the rank
// after it, and the other end only receives. No two ranks are alike (each
// is its distance from the ends), so symmetry leaves every rank to the
// event loop. Every rank runs the same steps with the same counts and
// moves one message per FIFO slice, so event e of each rank consumes the
// message event e of the rank before it posted, and the slot it fills was
// freed by event e-depth of the rank after it:
//
//	V[e](i) = max(V[e-1](i), V[e](i-1) + lat(i-1) + fl(i-1), V[e-depth](i+1) + lat(i)) + dur(i, e)
//
// with the terms the ends lack left out (the first rank receives nothing;
// the last sends nothing, and takes only the copy of a Simple slice out
// of its FIFO where its steps are plain receives that copy, as Broadcast's
// are unless registered: analysis.stages), V[-1] the launch, lat(i)
// the latency of the hop from chain index i to i+1, fl(i) the receive
// flush a step over it waits for (data only, not the credit back:
// analysis.flushOf) and dur(i, e) the
// slice's time at index i's send rate: exactly what the event loop computes
// for every rank (try, Step), here in one pass over events and ranks
// without its queues, connections and compiled programs.

// chainRuns is what solving a chain channel class needs: each rank's chain
// index (Schedule.RingChain, in the key plan's numbering) and every rank's
// step counts.
type chainRuns struct {
	index  func(rank int) int
	counts []int64
	set    bool // counts holds the first planned program's
	// recvOnly: the last rank's steps are plain receives (recv,
	// directRecv), which copy out of the FIFO unless registered
	recvOnly bool
}

// program checks that steps, the program of a rank of the chain with ring
// neighbours prev and next, is the plain chain solveChain solves: every
// step receives from prev where recv is set and from no one otherwise,
// sends to next where send is set and to no one otherwise, moves the
// counts of the other ranks' programs, and has no copies, pieces or PAT
// slots.
func (cr *chainRuns) program(steps []algos.Step, recv, send bool, prev, next int) bool {
	if !cr.set {
		cr.set = true
		cr.counts = make([]int64, len(steps))
		for k := range steps {
			cr.counts[k] = steps[k].Count
		}
	}
	if len(steps) != len(cr.counts) {
		return false
	}
	for k := range steps {
		st := &steps[k]
		if st.Pat != nil || st.Prim == algos.PrimCopy || st.Prim == algos.PrimScatter || st.Prim == algos.PrimGather || st.Count != cr.counts[k] ||
			(len(st.Recv) == 1) != recv || (len(st.Send) == 1) != send || len(st.Recv) > 1 || len(st.Send) > 1 ||
			(recv && st.Recv[0] != algos.RankPeer(prev)) || (send && st.Send[0] != algos.RankPeer(next)) {
			return false
		}
	}
	if recv && !send {
		cr.recvOnly = true
		for k := range steps {
			cr.recvOnly = cr.recvOnly && steps[k].Prim == algos.PrimRecv
		}
	}
	return true
}

// solveChain runs channel class ci, a chain, on the recurrence above from
// launch: the last rank's end. ok is false where the class is not the
// plain chain the recurrence describes (the event loop then runs it).
func (x *Sim) solveChain(ci int, launch Time) (end Time, events int64, ok bool) {
	an, h, n := x.an, &x.s.Header, x.s.NRanks
	cc := an.classes[ci]
	cr := cc.kp.chain
	if cr == nil || n < 2 || x.depth <= 0 || len(cr.counts) == 0 {
		return 0, 0, false
	}
	// chain order: pos[i] is the class's rank at chain index i
	pos := orderOf(n, func(r int) int { return cr.index(cc.planIndex(r)) })
	if pos == nil {
		return 0, 0, false
	}
	// the hop from each index to the next: its latency and the sender's
	// rate
	lat := make([]Time, n-1)
	flush := make([]Time, n-1) // what a step index i sends waits for at i+1 beyond lat[i]
	rate := make([]int64, n-1)
	ovh := make([]Time, n-1)
	stage := false // the last rank's receives copy out of its FIFO
	for i := 0; i < n; i++ {
		r := int(pos[i])
		rp := cc.plan(r)
		var sendOK, recvOK bool
		for si := range rp.slots {
			sp := &rp.slots[si]
			p := cc.peerAt(r, sp.peer)
			if p.Kind != algos.PeerRank || (sp.sends && sp.recvs) {
				return 0, 0, false
			}
			switch {
			case sp.sends && i < n-1 && int(p.ID) == int(pos[i+1]) && !sendOK:
				lat[i] = an.latOf(ci, r, si)
				flush[i] = an.flushOf(ci, r, si)
				rate[i] = an.gSend[ci][r][sp.group]
				ovh[i] = an.groupOvh(ci, r, sp.group)
				sendOK = true
			case sp.recvs && i > 0 && int(p.ID) == int(pos[i-1]) && !recvOK:
				recvOK = true
				if i == n-1 {
					stage = cr.recvOnly && an.stages(ci, r, si)
				}
			default:
				return 0, 0, false
			}
		}
		if sendOK != (i < n-1) || recvOK != (i > 0) {
			return 0, 0, false
		}
	}
	S := len(sliceSizes(h, 0, nil))
	E := len(cr.counts) * S
	W := x.depth
	// V over the last W+1 events
	V := make([][]Time, W+1)
	for i := range V {
		V[i] = make([]Time, n)
	}
	start := make([]Time, n)
	for i := range start {
		start[i] = launch
	}
	var sl []int64
	for e := 0; e < E; e++ {
		k, j := e/S, e%S
		if j == 0 {
			sl = sliceSizes(h, cr.counts[k], sl)
		}
		wire := wireBytes(h.Proto, sl[j]*int64(h.Unit))
		prev := start
		if e > 0 {
			prev = V[(e-1)%(W+1)]
		}
		var cred []Time
		if e >= W {
			cred = V[(e-W)%(W+1)]
		}
		cur := V[e%(W+1)]
		// a run of hops at one rate takes one duration
		lastRate, lastOvh, d := int64(-1), Time(-1), Time(0)
		for i := 0; i < n; i++ {
			t := prev[i]
			if i > 0 {
				t = max(t, cur[i-1]+lat[i-1]+flush[i-1])
			}
			if i < n-1 {
				if cred != nil {
					t = max(t, cred[i+1]+lat[i])
				}
				if rate[i] != lastRate || ovh[i] != lastOvh {
					lastRate, lastOvh, d = rate[i], ovh[i], sendDuration(wire, rate[i], ovh[i])
				}
				t += d
			} else if stage {
				t += hbmCopyDuration(sl[j]*int64(h.Unit), x.f.m.HBMBw)
			}
			cur[i] = t
		}
	}
	end = launch
	for _, t := range V[(E-1)%(W+1)] {
		end = max(end, t)
	}
	return end, int64(an.ncolors[ci]) * int64(E), true
}
