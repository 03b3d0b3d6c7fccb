package sim

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// Config configures a timing simulation.
type Config struct {
	Machine Machine
	// Trace records a timeline (TraceEvents) of at most MaxTraceEvents
	// slices (default 200,000).
	Trace          bool
	MaxTraceEvents int
	// NoSymmetry simulates every rank instead of one per symmetry class
	// (the results are identical; tests use it to prove so). Channels of
	// one channel class still share one timeline.
	NoSymmetry bool
	// RateTolerance, when positive, lets ranks whose connections' link
	// shares differ by less than this fraction share a symmetry class (the
	// representative's shares stand for all of them). Zero is exact.
	RateTolerance float64
	// Launch is how the operation is launched (stream, CUDA graph, N per
	// group): the fixed cost the profile charges.
	Launch Launch
	// NThreads is the operation's threads per channel and DefaultNThreads
	// NCCL's default for its protocol (0: the default); the profile's
	// per-channel cap scales with their ratio. FromDecision sets both.
	NThreads, DefaultNThreads int
	// Transport is how ranks of one node reach each other (P2P, SHM, NET;
	// Decision.Transport): SHM hops go through host memory at the
	// profile's SHM bandwidth.
	Transport string

	// noRingRuns runs uneven rings and chains in the event loop (tests
	// compare)
	noRingRuns bool
}

// TraceEvent is one FIFO slice a representative rank moved.
type TraceEvent struct {
	Rank, Channel, Group int
	Step, Slice          int
	Prim                 algos.Prim
	Start, End           Time
	Bytes                int64
	// Class is the channel class whose program moved it; Links has bit c
	// set for every LinkClass c its sends cross.
	Class int
	Links uint8
	// Weight is how many (rank, channel) lanes the event stands for
	// (WeightedTrace); 0 counts as 1.
	Weight int64
}

// tconn is one FIFO between two symmetry classes (a sender class's slot
// group and a receiver class's slot group), or a class's contributions to
// an offload endpoint: how many messages were posted and consumed, when
// each became available to the receiver and when each was consumed (which
// returns its slot to the sender).
type tconn struct {
	sent, consumed int
	arrive, consT  []Time
	lat            Time // sender's end to the receiver (plus flush), and the credit's way back
	// flush is what a message waits for at the receiver beyond lat (the
	// NET receive flush, analysis.flushOf); credits do not pay it
	flush Time
	// begin is when each message's first bytes reach the receiver (its
	// sender's start + lat), kept only for a network that writes the
	// receivers' user buffers as the senders inject (netStreams)
	begin    []Time
	waitData []int32
	waitCred []int32
}

// trecv is one receiver class's consumption of an endpoint's results.
type trecv struct {
	consumed int
	consT    []Time
}

// tep is an offload endpoint class: contributions of every sender class,
// results consumed by every receiver class.
type tep struct {
	senders  []*tconn
	recvs    []*trecv
	latOut   Time
	latIn    Time
	waitData []int32
	waitCred []int32
}

// tgroup is a representative's slot group: the connections it feeds or
// drains as one, and their slowest rates.
type tgroup struct {
	in, out            []*tconn
	epSend             []*tep
	epOut              []*tconn
	epRecv             []*tep
	epIn               []*trecv
	sendRate, recvRate int64
	// sendOvh is what each message it sends holds the step for beyond
	// its bytes (analysis.gOvh)
	sendOvh Time
	// stage: a plain receive from its rank connections copies the step
	// out of the FIFO into the user buffer (analysis.stages)
	stage bool
}

type trep struct {
	rank   int
	plan   *rankPlan
	groups []tgroup
}

type tprog struct {
	// what the event loop reads on every slice first
	queued    bool
	pc, slice int
	prog      *cprog
	sl        []int64
	// groups the current step receives from and sends to
	rg, sg []int32
	groups []tgroup // the representative's (reps[ci][rep].groups)
	last   Time
	// the pending slice
	pStart, pEnd Time
	pBytes       int64
	ci, rep, grp int
	rank, ch     int
}

// cprog is a program as the event loop reads it: per step, what it moves
// and the slot groups it receives from and sends to (a step's peers are
// only ever read through their groups). Ranks whose plans are one plan up
// to their peers (a uniform ring or circulant channel) share one.
type cprog struct {
	steps []cstep
	// groups[i] is a group of a step's list; counts[i] its piece count
	// (Scatter and Gather: each group's messages are its first peer's
	// piece)
	groups []int32
	counts []int64
}

type cstep struct {
	// count is the element count the step's slices split (a Scatter or
	// Gather: its first piece's)
	count              int64
	rgOff, sgOff       int32
	rgLen, sgLen       int32
	prim               algos.Prim
	noSend             bool
	consumes, posts    bool
	recvSlot, sendSlot int32
}

func (p *cprog) rg(st *cstep) []int32 { return p.groups[st.rgOff : st.rgOff+st.rgLen] }
func (p *cprog) sg(st *cstep) []int32 { return p.groups[st.sgOff : st.sgOff+st.sgLen] }

// compile turns a program into a cprog against the rank's plan; h says
// what a Scatter's or Gather's pieces move (Header.PieceMoved).
func compile(h *algos.Header, steps []algos.Step, rp *rankPlan) *cprog {
	cp := &cprog{steps: make([]cstep, len(steps))}
	var buf []int32
	add := func(st *algos.Step, peers []algos.Peer) (int32, int32) {
		off := int32(len(cp.groups))
		buf = groupsOf(buf, rp, peers)
		for _, g := range buf {
			n := st.Count
			if st.Prim == algos.PrimScatter || st.Prim == algos.PrimGather {
				for j, q := range peers {
					if rp.slots[rp.slotOf(q)].group == g {
						n = h.PieceMoved(st, j)
						break
					}
				}
			}
			cp.groups = append(cp.groups, g)
			cp.counts = append(cp.counts, n)
		}
		return off, int32(len(buf))
	}
	for i := range steps {
		st := &steps[i]
		c := &cp.steps[i]
		c.count = st.Count
		if (st.Prim == algos.PrimScatter || st.Prim == algos.PrimGather) && len(st.Pieces) > 0 {
			c.count = st.Pieces[0].Count
		}
		c.rgOff, c.rgLen = add(st, st.Recv)
		c.sgOff, c.sgLen = add(st, st.Send)
		c.prim, c.noSend = st.Prim, len(st.Send) == 0
		c.consumes, c.posts = true, true
		if pi := st.Pat; pi != nil {
			c.recvSlot, c.sendSlot = int32(pi.RecvSlot), int32(pi.SendSlot)
			c.consumes, c.posts = pi.PostRecv, pi.PostSend
		}
	}
	return cp
}

type event struct {
	t    Time
	seq  uint64
	prog int32
}

// eventHeap is a binary min-heap of events by (time, sequence number): a
// total order, so the events come out in one order whatever the heap's
// shape. Typed (no container/heap): the event loop pushes and pops one
// event per slice, and boxing each into an interface cost an allocation.
type eventHeap []event

func (e *event) before(f *event) bool {
	if e.t != f.t {
		return e.t < f.t
	}
	return e.seq < f.seq
}

func (h *eventHeap) push(ev event) {
	*h = append(*h, ev)
	q := *h
	i := len(q) - 1
	for i > 0 {
		j := (i - 1) / 2
		if !q[i].before(&q[j]) {
			break
		}
		q[i], q[j] = q[j], q[i]
		i = j
	}
}

func (h *eventHeap) pop() event {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q[r].before(&q[l]) {
			m = r
		}
		if !q[m].before(&q[i]) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}

// Sim is a discrete-event timing simulation of one schedule on one
// machine. It runs in the caller's goroutine: Step advances one event (one
// FIFO slice of one program completing), Run loops Step to the end. Time
// is integer picoseconds; a traced run orders events by (time, sequence
// number), an untraced one runs each once what it waits for has run
// (ordered), and either way identical inputs give identical results.
type Sim struct {
	s     *algos.Schedule
	cfg   Config
	f     *fabric
	an    *analysis
	progs []tprog   // by value: the event loop walks them by index
	reps  [][]*trep // [class][rep]
	repOf [][]int32 // [class][rank]
	h     eventHeap
	seq   uint64
	now   Time
	depth int
	w     int // FIFO ring length: a power of two, indexed by mask
	mask  int

	// ordered: events run in time order through the heap h (a trace
	// records them in that order); otherwise each runs once what it
	// waits for has run, from the ready stack. A slice's times depend only
	// on the slices it waits for, so both orders give the same times,
	// the same events and, at the end, the same Now; the stack skips the
	// heap's ordering, which cost a third of every-rank runs.
	ordered bool
	ready   []int32

	events int64
	done   int
	trace  []TraceEvent
	err    error
	woke   []int32
	spare  []int32 // woke's other buffer

	// traceDropped counts the slices past MaxTraceEvents, not recorded
	traceDropped int64
	// host is the host's part of the launch cost; batch the operations per
	// timed batch whose overlap the reported time includes (0: alone).
	host  Time
	batch int
	// hostPart is the host's part of the launch cost whatever the batch
	// (Result.Host)
	hostPart Time
	// netStreams: the network reads the senders' user buffers and writes
	// the receivers' (Header.CollNetUserBuffers), so nothing is staged
	// in a FIFO and a receive from it streams in as its senders inject:
	// it begins when the last of them begins and ends no sooner than
	// its bytes at the receive rate and the last sender's end (each plus
	// the way out: latency and flush)
	netStreams bool
	// solved: some channel class ran as an uneven ring in runs
	// (solveRing) or as a chain (solveChain), ending at solvedEnd
	solved    bool
	solvedEnd Time
	// copyRate is what one channel's local copy moves through the GPU's
	// memory per second (selfCopyRate)
	copyRate int64
}

// New prepares a simulation: structure, link shares and symmetry classes
// (plan.go), then one program per representative, channel class and thread
// group.
func New(s *algos.Schedule, cfg Config) (*Sim, error) {
	m := cfg.Machine
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if s.NRanks != m.Nodes*m.GPUsPerNode || s.LocalRanks != m.GPUsPerNode {
		return nil, fmt.Errorf("sim: schedule has %d ranks (%d per node) but machine %s has %d × %d GPUs", s.NRanks, s.LocalRanks, m.Name, m.Nodes, m.GPUsPerNode)
	}
	if s.Algo.IsNVLS() && !m.NVLS {
		return nil, fmt.Errorf("sim: %s needs NVLink SHARP, which machine %s lacks", s.Algo, m.Name)
	}
	if (s.Algo.IsCollNet() || (s.Algo == spec.NVLS && s.NNodes > 1)) && !m.SHARP {
		return nil, fmt.Errorf("sim: %s across nodes needs in-network reduction (CollNet/SHARP), which machine %s lacks", s.Algo, m.Name)
	}
	if err := cfg.Launch.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %v", err)
	}
	if cfg.MaxTraceEvents <= 0 {
		cfg.MaxTraceEvents = 200000
	}
	f := newFabric(&cfg.Machine, newTiming(&cfg, s))
	an, err := analyze(s, f, cfg.RateTolerance)
	if err != nil {
		return nil, err
	}
	x := &Sim{s: s, cfg: cfg, f: f, an: an, ordered: cfg.Trace, netStreams: s.CollNetUserBuffers()}
	x.depth = max(1, s.NSteps/max(1, s.StepPerSlice))
	// at least 4 depths and 4 slots of history (a PAT step reads and writes
	// slots past the current one)
	x.w = 1 << bits.Len(uint(4*x.depth+3))
	x.mask = x.w - 1
	host, dev, split := m.launchSplit(s.Algo, s.Proto, cfg.Launch)
	if split && !cfg.Launch.Graph() {
		host += FromMicros(m.Profile.Value("launch.channel") * float64(max(0, busyChannels(s)-1)))
	}
	launch := host + dev + fillCost(s, &cfg, an.bidirShare())
	x.hostPart = host
	if split && !cfg.Launch.Graph() && cfg.Launch.Batch() > 1 {
		x.host, x.batch = host, cfg.Launch.Batch()
	}
	nc := len(an.classes)
	x.reps = make([][]*trep, nc)
	x.repOf = make([][]int32, nc)
	// FIFO rings come out of slabs in creation order (a rank's
	// connections are created together and used together); the slabs
	// double from a few rings to 256, so a small simulation allocates
	// little
	var slab []Time
	nslab, ncslab := 4, 4
	ring := func() []Time {
		if len(slab) < x.w {
			nslab = min(256, 2*nslab)
			slab = make([]Time, nslab*x.w)
		}
		r := slab[:x.w:x.w]
		slab = slab[x.w:]
		return r
	}
	var cslab []tconn
	newConn := func() *tconn {
		if len(cslab) == 0 {
			ncslab = min(256, 2*ncslab)
			cslab = make([]tconn, ncslab)
		}
		c := &cslab[0]
		cslab = cslab[1:]
		c.arrive, c.consT = ring(), ring()
		return c
	}
	type progKey struct {
		kp   *keyPlan
		r, g int
	}
	progs := map[progKey]*cprog{}
	var steps []algos.Step
	for ci, cc := range an.classes {
		col := an.color[ci]
		ids := map[uint64]int32{}
		x.repOf[ci] = make([]int32, s.NRanks)
		for r := 0; r < s.NRanks; r++ {
			key := col[r]
			if cfg.NoSymmetry {
				key = uint64(r)
			}
			id, ok := ids[key]
			if !ok {
				id = int32(len(x.reps[ci]))
				ids[key] = id
				x.reps[ci] = append(x.reps[ci], &trep{rank: r, plan: cc.rankPlan(r)})
			}
			x.repOf[ci][r] = id
		}
		if !cfg.NoSymmetry && !cfg.Trace && !cfg.noRingRuns && (cfg.RateTolerance == 0 || an.ncolors[ci] == s.NRanks) {
			solve := x.solveRing
			if cc.kp.chain != nil {
				solve = x.solveChain
			}
			if end, events, ok := solve(ci, launch); ok {
				x.solved = true
				x.solvedEnd = max(x.solvedEnd, end)
				x.events += events
				continue
			}
		}
		type ck struct{ d, g, c, h int32 }
		conns := map[ck]*tconn{}
		getConn := func(k ck) *tconn {
			c := conns[k]
			if c == nil {
				c = newConn()
				conns[k] = c
			}
			return c
		}
		type ek struct {
			col  uint64
			peer algos.Peer
		}
		eps := map[ek]*tep{}
		type ecKey struct {
			ep   *tep
			r, g int32
		}
		epSendConn := map[ecKey]*tconn{}
		epRecvState := map[ecKey]*trecv{}
		for ri, rep := range x.reps[ci] {
			rp := rep.plan
			a := rep.rank
			rep.groups = make([]tgroup, rp.ngroups)
			for g := range rep.groups {
				rep.groups[g].sendRate = an.gSend[ci][a][g]
				rep.groups[g].recvRate = an.gRecv[ci][a][g]
				rep.groups[g].sendOvh = an.groupOvh(ci, a, int32(g))
			}
			for si, sp := range rp.slots {
				tg := &rep.groups[sp.group]
				lat := an.latOf(ci, a, si)
				peer := cc.peer(sp.peer)
				if peer.Kind == algos.PeerRank {
					p := int(peer.ID)
					pj := cc.slotOf(p, peer.Back(a))
					if pj < 0 {
						return nil, fmt.Errorf("sim: rank %d talks to rank %d, which never talks back", a, p)
					}
					rev := cc.plan(p).slots[pj].group
					pc := x.repOf[ci][p]
					if sp.sends {
						c := getConn(ck{int32(ri), sp.group, pc, rev})
						c.lat = max(c.lat, lat)
						c.flush = max(c.flush, an.flushOf(ci, a, si))
						if !slices.Contains(tg.out, c) {
							tg.out = append(tg.out, c)
						}
					}
					if sp.recvs {
						c := getConn(ck{pc, rev, int32(ri), sp.group})
						if !slices.Contains(tg.in, c) {
							tg.in = append(tg.in, c)
						}
						tg.stage = tg.stage || an.stages(ci, a, si)
					}
					continue
				}
				key := ek{col: an.epColor[ci][cc.eps.find(peer)]}
				if cfg.NoSymmetry {
					key = ek{peer: peer}
				}
				ep := eps[key]
				if ep == nil {
					ep = &tep{}
					eps[key] = ep
				}
				k := ecKey{ep, int32(ri), sp.group}
				if sp.sends {
					c := epSendConn[k]
					if c == nil {
						c = newConn()
						c.lat = lat
						if x.netStreams {
							c.begin = ring()
						}
						epSendConn[k] = c
						ep.senders = append(ep.senders, c)
						ep.latIn = max(ep.latIn, lat)
					}
					if !slices.Contains(tg.epSend, ep) {
						tg.epSend = append(tg.epSend, ep)
						tg.epOut = append(tg.epOut, c)
					}
				}
				if sp.recvs {
					rc := epRecvState[k]
					if rc == nil {
						rc = &trecv{consT: ring()}
						epRecvState[k] = rc
						ep.recvs = append(ep.recvs, rc)
						ep.latOut = max(ep.latOut, lat+an.netRecvFlush(&rp.slots[si]))
					}
					if !slices.Contains(tg.epRecv, ep) {
						tg.epRecv = append(tg.epRecv, ep)
						tg.epIn = append(tg.epIn, rc)
					}
				}
			}
		}
		for ri, rep := range x.reps[ci] {
			for g := 0; g < s.NGroups; g++ {
				// the plan's rank runs the representative's program on the
				// key's first channel (peers in the plan's numbering)
				pr := cc.planIndex(rep.rank)
				k := progKey{cc.kp, pr, g}
				if cc.kp.shared {
					k.r = -1
				}
				cp, ok := progs[k]
				if !ok {
					steps = s.AppendProgram(steps[:0], pr, cc.kp.rep, g)
					cp = compile(&s.Header, steps, rep.plan)
					progs[k] = cp
				}
				if len(cp.steps) == 0 {
					continue
				}
				x.progs = append(x.progs, tprog{ci: ci, rep: ri, grp: g, rank: rep.rank, ch: cc.rep, prog: cp, last: launch, groups: rep.groups})
			}
		}
	}
	x.copyRate = x.selfCopyRate()
	for i := range x.progs {
		x.try(int32(i))
	}
	x.drainWoken()
	return x, nil
}

// selfCopyRate is the rate of one channel's local copy (PrimCopy): the
// GPU's memory read and written by every channel that copies at once
// (each class's programs stand for its channels), and on a send/recv
// schedule the per-channel cap where the profile has one. A rank's send
// to itself is its kernel copying sendbuff to recvbuff on each channel of
// the work (G-SCHED-P2P-1's self work; v2.28.9-1 src/device/sendrecv.h
// runSendRecv: isCopy, reduceCopy), so its channels share the memory: a
// 256 MiB one-rank SendRecv on 64 channels ran at 64 × HBM. A one-rank
// collective's copy (ncclLaunchOneRank) is one channel: the whole memory.
func (x *Sim) selfCopyRate() int64 {
	var chans int64
	seen := make([]bool, len(x.an.classes))
	for i := range x.progs {
		p := &x.progs[i]
		if seen[p.ci] {
			continue
		}
		for _, st := range p.prog.steps {
			if st.prim == algos.PrimCopy {
				seen[p.ci] = true
				chans += x.an.classes[p.ci].mult
				break
			}
		}
	}
	rate := x.f.m.HBMBw / max(1, chans)
	if f := x.s.Func; (f == spec.SendRecv || f == spec.AllToAll) && x.f.t.capRate > 0 {
		// the cap is on the channel's data; the memory moves it twice
		rate = min(rate, 2*x.f.t.capRate)
	}
	return max(1, rate)
}

// durationOf is the time to move bytes at rate bytes/s, rounded up to the
// picosecond.
func durationOf(bytes, rate int64) Time {
	if bytes <= 0 || rate <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(bytes), 1e12)
	q, r := bits.Div64(hi, lo, uint64(rate))
	if r != 0 {
		q++
	}
	return Time(q)
}

// hbmCopyDuration is the time to copy bytes within one GPU's memory: a
// read and a write of HBM. A local copy step (PrimCopy) takes it, and so
// does a plain Simple receive that copies its step out of the connection's
// FIFO into the user buffer (analysis.stages says where).
func hbmCopyDuration(bytes, hbm int64) Time { return durationOf(2*bytes, hbm) }

// sendDuration is the time a step holds to send a message of bytes at
// rate with a per-message cost ovh (paid by messages that carry bytes).
func sendDuration(bytes, rate int64, ovh Time) Time {
	if bytes <= 0 {
		return 0
	}
	return durationOf(bytes, rate) + ovh
}

func (x *Sim) ring(k int) int { return k & x.mask }

// groupsOf collects the distinct slot groups of a peer list.
func groupsOf(dst []int32, rp *rankPlan, peers []algos.Peer) []int32 {
	dst = dst[:0]
	for _, p := range peers {
		g := rp.slots[rp.slotOf(p)].group
		if !slices.Contains(dst, g) {
			dst = append(dst, g)
		}
	}
	return dst
}

// groupBytes is the slice size of the step's message to (or from) a
// group whose piece count is n: the piece for Scatter/Gather, the step's
// slice otherwise.
func (x *Sim) groupBytes(p *tprog, st *cstep, n int64) int64 {
	h := &x.s.Header
	if st.prim == algos.PrimScatter || st.prim == algos.PrimGather {
		var buf [4]int64
		sl := sliceSizes(h, n, buf[:0])
		if p.slice < len(sl) {
			return sl[p.slice] * int64(h.Unit)
		}
		return 0
	}
	if p.slice < len(p.sl) {
		return p.sl[p.slice] * int64(h.Unit)
	}
	return 0
}

// try schedules program i's next slice if everything it needs is known,
// or parks it on what it waits for.
func (x *Sim) try(i int32) {
	p := &x.progs[i]
	if p.queued || p.pc >= len(p.prog.steps) {
		return
	}
	st := &p.prog.steps[p.pc]
	h := &x.s.Header
	groups := p.groups
	if p.slice == 0 {
		p.sl = sliceSizes(h, st.count, p.sl)
		p.rg = p.prog.rg(st)
		p.sg = p.prog.sg(st)
	}
	recvSlot, sendSlot := int(st.recvSlot), int(st.sendSlot)
	t := p.last
	var streamEnd Time // netStreams: when the last sender's message is in
	for _, g := range p.rg {
		tg := &groups[g]
		for _, c := range tg.in {
			k := c.consumed + recvSlot
			if c.sent <= k {
				c.waitData = append(c.waitData, i)
				return
			}
			t = max(t, c.arrive[x.ring(k)])
		}
		for j, ep := range tg.epRecv {
			k := tg.epIn[j].consumed + recvSlot
			var ready, begin Time
			for _, c := range ep.senders {
				if c.sent <= k {
					ep.waitData = append(ep.waitData, i)
					return
				}
				ready = max(ready, c.arrive[x.ring(k)])
				if c.begin != nil {
					begin = max(begin, c.begin[x.ring(k)])
				}
			}
			if x.netStreams {
				t = max(t, begin+ep.latOut)
				streamEnd = max(streamEnd, ready+ep.latOut)
			} else {
				t = max(t, ready+ep.latOut)
			}
		}
	}
	for _, g := range p.sg {
		tg := &groups[g]
		for _, c := range tg.out {
			k := c.sent + sendSlot
			if k >= x.depth {
				if c.consumed <= k-x.depth {
					c.waitCred = append(c.waitCred, i)
					return
				}
				t = max(t, c.consT[x.ring(k-x.depth)]+c.lat)
			}
		}
		for j, ep := range tg.epSend {
			k := tg.epOut[j].sent + sendSlot
			if k >= x.depth {
				for _, rc := range ep.recvs {
					if rc.consumed <= k-x.depth {
						ep.waitCred = append(ep.waitCred, i)
						return
					}
					t = max(t, rc.consT[x.ring(k-x.depth)]+ep.latIn)
				}
			}
		}
	}
	var dur Time
	var moved int64
	for j, g := range p.sg {
		tg := &groups[g]
		b := x.groupBytes(p, st, p.prog.counts[int(st.sgOff)+j])
		moved += b
		dur = max(dur, sendDuration(wireBytes(h.Proto, b), tg.sendRate, tg.sendOvh))
	}
	for j, g := range p.rg {
		tg := &groups[g]
		if len(tg.epRecv) == 0 {
			continue
		}
		b := x.groupBytes(p, st, p.prog.counts[int(st.rgOff)+j])
		if st.noSend {
			moved += b
		}
		dur = max(dur, durationOf(wireBytes(h.Proto, b), tg.recvRate))
	}
	if st.prim == algos.PrimRecv && p.slice < len(p.sl) {
		for _, g := range p.rg {
			if tg := &groups[g]; tg.stage && len(tg.in) > 0 {
				dur = max(dur, hbmCopyDuration(p.sl[p.slice]*int64(h.Unit), x.f.m.HBMBw))
			}
		}
	}
	if st.prim == algos.PrimCopy && p.slice < len(p.sl) {
		b := p.sl[p.slice] * int64(h.Unit)
		moved += b
		dur = max(dur, hbmCopyDuration(b, x.copyRate))
	}
	dur = max(dur, streamEnd-t)
	p.pStart, p.pEnd, p.pBytes = t, t+dur, moved
	p.queued = true
	if !x.ordered {
		x.ready = append(x.ready, i)
		return
	}
	x.seq++
	x.h.push(event{t: p.pEnd, seq: x.seq, prog: i})
}

// Step processes one event; it returns false when the simulation has
// finished (or stalled: see Err). With Config.Trace the events come in
// time order; without, in an order that runs each after what it waits for.
func (x *Sim) Step() bool {
	if x.err != nil || len(x.h)+len(x.ready) == 0 {
		if x.err == nil && x.done < len(x.progs) {
			x.err = x.stallError()
		}
		return false
	}
	var ev event
	if x.ordered {
		ev = x.h.pop()
		x.now = ev.t
	} else {
		ev.prog = x.ready[len(x.ready)-1]
		x.ready = x.ready[:len(x.ready)-1]
		x.now = max(x.now, x.progs[ev.prog].pEnd)
	}
	x.events++
	p := &x.progs[ev.prog]
	p.queued = false
	st := &p.prog.steps[p.pc]
	groups := p.groups
	consumes, posts := st.consumes, st.posts
	end := p.pEnd
	if consumes {
		for _, g := range p.rg {
			tg := &groups[g]
			for _, c := range tg.in {
				c.consT[x.ring(c.consumed)] = end
				c.consumed++
				x.woke = append(x.woke, c.waitCred...)
				c.waitCred = c.waitCred[:0]
			}
			for j, ep := range tg.epRecv {
				rc := tg.epIn[j]
				rc.consT[x.ring(rc.consumed)] = end
				rc.consumed++
				x.woke = append(x.woke, ep.waitCred...)
				ep.waitCred = ep.waitCred[:0]
			}
		}
	}
	if posts {
		for _, g := range p.sg {
			tg := &groups[g]
			for _, c := range tg.out {
				c.arrive[x.ring(c.sent)] = end + c.lat + c.flush
				c.sent++
				x.woke = append(x.woke, c.waitData...)
				c.waitData = c.waitData[:0]
			}
			for j, ep := range tg.epSend {
				c := tg.epOut[j]
				c.arrive[x.ring(c.sent)] = end + c.lat
				if c.begin != nil {
					c.begin[x.ring(c.sent)] = p.pStart + c.lat
				}
				c.sent++
				x.woke = append(x.woke, ep.waitData...)
				ep.waitData = ep.waitData[:0]
			}
		}
	}
	if x.cfg.Trace && len(x.trace) < x.cfg.MaxTraceEvents {
		x.trace = append(x.trace, TraceEvent{Rank: p.rank, Channel: p.ch, Group: p.grp, Step: p.pc, Slice: p.slice,
			Prim: st.prim, Start: p.pStart, End: p.pEnd, Bytes: p.pBytes, Class: p.ci, Links: x.sendLinks(p.ci, p.rank, x.reps[p.ci][p.rep].plan, p.sg)})
	} else if x.cfg.Trace {
		x.traceDropped++
	}
	p.last = end
	p.slice++
	if p.slice >= len(p.sl) {
		p.slice = 0
		p.pc++
		if p.pc >= len(p.prog.steps) {
			x.done++
		}
	}
	x.try(ev.prog)
	x.drainWoken()
	return true
}
func (x *Sim) drainWoken() {
	for len(x.woke) > 0 {
		w := x.woke
		x.woke = x.spare[:0]
		for _, i := range w {
			x.try(i)
		}
		x.spare = w
	}
}

func (x *Sim) stallError() error {
	var stuck []string
	for i := range x.progs {
		p := &x.progs[i]
		if p.pc < len(p.prog.steps) && len(stuck) < 8 {
			stuck = append(stuck, fmt.Sprintf("r%d c%d g%d step %d (%s)", p.rank, p.ch, p.grp, p.pc, p.prog.steps[p.pc].prim))
		}
	}
	return fmt.Errorf("sim: stalled at %s with %d programs unfinished (bounded FIFOs deadlock): %s", x.now, len(x.progs)-x.done, strings.Join(stuck, ", "))
}

// Err reports a stall.
func (x *Sim) Err() error { return x.err }

// Now is the time of the last processed event.
func (x *Sim) Now() Time { return x.now }

// Run steps to the end and reports the result.
func (x *Sim) Run() (*Result, error) {
	for x.Step() {
	}
	if x.err != nil {
		return nil, x.err
	}
	return x.result(), nil
}

// Trace returns the recorded timeline.
func (x *Sim) Trace() []TraceEvent { return x.trace }

// Simulate is New followed by Run.
func Simulate(s *algos.Schedule, cfg Config) (*Result, error) {
	x, err := New(s, cfg)
	if err != nil {
		return nil, err
	}
	return x.Run()
}
