package tuning

// NCCL's tuning model, part 4b: the group schedules before 2.22.3's
// enqueue rewrite. 2.20.3–2.21.5 (ScheduleR20) sort the queue, aggregate
// every run of one function, reduction and datatype, count each task's
// channels with getChannnelThreadInfo and cut the plain tasks at
// maxBytesPerChannel; 2.18.1–2.19.4 (ScheduleR18) aggregate consecutive
// calls with NCCL_AGG_CHANNEL_SIZE and put each task on its least loaded
// channels.

import (
	"fmt"
	"math"
	"sort"

	"github.com/gatesim/gatesim/nccl"
)

// scheduleLegacy decides and places the group's tasks (call order) with
// the release's pre-2.22.3 schedule. It returns the kernel plans the group
// filled or NCCL's error: the first aggregate without an algorithm, or a
// work FIFO too small for one task.
func (m *Model) scheduleLegacy(tasks []*tuningTask, lines *[]string) (int, *nccl.NCCLError) {
	if m.Tuning.Schedule == ScheduleR18 {
		return m.scheduleR18(tasks, lines)
	}
	return m.scheduleR20(tasks, lines)
}

// legacyWorkBudget is a plan's nWorkBudget in ncclLaunchPrepare: half of
// the work FIFO's ncclWork structs, or INT_MAX for a persistent plan (the
// group is captured into a CUDA graph); NCCL_WORK_FIFO_DEPTH replaces the
// depth when it is a power of 2 (NCCL keeps it in an int), otherwise the
// default stays.
//
// Ref: v2.21.5-1 src/enqueue.cc ncclLaunchPrepare; src/init.cc
// devCommSetup (v2.18.1-1 … v2.20.5-1 likewise)
func (m *Model) legacyWorkBudget(tasks []*tuningTask) (depth, budget int) {
	depth = int(int32(m.Tuning.WorkFifoDepth))
	if p := m.In.WorkFifoDepth; p != nil {
		if d := int(int32(*p)); d&(d-1) == 0 {
			depth = d
		}
	}
	if len(tasks) > 0 && tasks[0].op.Graph {
		return depth, math.MaxInt32
	}
	return depth, depth / 2
}

// legacyFifoTooSmall is ncclLaunchPrepare's error when an empty plan takes
// no task.
func (m *Model) legacyFifoTooSmall(depth int) *nccl.NCCLError {
	return &nccl.NCCLError{Result: nccl.InvalidUsage, Call: "ncclGroupEnd",
		Message: fmt.Sprintf("'NCCL_WORK_FIFO_DEPTH=%d' is too small. Minimum value is %d", depth, 2*m.Tuning.MaxChannels)}
}

// legacyWorks counts a plan's ncclWork structs as appendWorkElemColl
// fills them: a channel's last work takes one more element of the same
// kernel function, warp count and work type until it holds
// NCCL_MAX_WORK_ELEMENTS (a registered element, ncclWorkTypeRegColl:
// NCCL_MAX_WORK_ELEMENTS_REG); otherwise the element opens a new work, one
// unit of the plan's budget.
//
// Ref: v2.21.5-1 src/enqueue.cc appendWorkElemColl (both overloads),
// src/include/device.h NCCL_MAX_WORK_ELEMENTS_REG (v2.18.1-1
// src/include/devcomm.h … v2.20.5-1 likewise)
type legacyWorks struct {
	key         [][5]int
	nWarps      []int
	nElem       []int
	reg         []bool
	maxElems    int
	maxElemsReg int
	budget      int
}

func (m *Model) newLegacyWorks(budget int) *legacyWorks {
	n := m.Tuning.MaxChannels
	return &legacyWorks{key: make([][5]int, n), nWarps: make([]int, n), nElem: make([]int, n), reg: make([]bool, n),
		maxElems: max(1, m.Tuning.MaxDevWorkBatchColls), maxElemsReg: max(1, m.Tuning.MaxWorkElementsReg), budget: budget}
}

// add puts one element of t on channel ch: a registered one when the
// scheduler registered t's buffers (t.choice.Registered).
func (w *legacyWorks) add(ch int, t *tuningTask) {
	if ch < 0 || ch >= len(w.nElem) {
		return
	}
	key, reg := tuningFuncKey(t), t.choice.Registered != ""
	limit := w.maxElems
	if reg {
		limit = w.maxElemsReg
	}
	if w.nElem[ch] > 0 && w.key[ch] == key && w.nWarps[ch] == t.nWarps && w.reg[ch] == reg && w.nElem[ch] < limit {
		w.nElem[ch]++
		return
	}
	w.key[ch], w.nWarps[ch], w.nElem[ch], w.reg[ch] = key, t.nWarps, 1, reg
	w.budget--
}

// legacySameBin: NCCL aggregates tasks of one function, device reduction
// and queued datatype, so AllGathers (and Broadcasts) of any datatypes,
// all queued as ncclInt8 (nccl.Op.Queued), join one aggregate.
// Ref: v2.21.5-1 src/enqueue.cc scheduleCollTasksToPlan (v2.18.1-1 …
// v2.20.5-1 likewise)
func legacySameBin(a, b *tuningTask) bool {
	return a.fn == b.fn && a.devOp == b.devOp && a.dtype == b.dtype
}

// legacyNBytes is ncclInfoSetDerived's nBytes: count × type size, × nRanks
// for AllGather and ReduceScatter.
func (m *Model) legacyNBytes(t *tuningTask) int64 {
	return int64(t.dtype.Size()) * MaxSendRecvCount(t.fn, m.In.NRanks, t.count)
}

// decideAggregate is getAlgoInfo (topoGetAlgoInfo) for the members taken
// as one operation: counts summed, the choice, its cost table and line
// copied to every member. The channel counts are the schedule's.
func (m *Model) decideAggregate(members []*tuningTask, numPipeOps, presetNC int, lines *[]string) (tuningAgg, *nccl.NCCLError) {
	var g tuningAgg
	if err := m.decideBin(members, numPipeOps, presetNC, &g, lines); err != nil {
		return g, err
	}
	for _, t := range members {
		t.algo, t.proto, t.nWarps = g.algo, g.proto, g.nt/m.Tuning.WarpSize
		ch := t.choice
		ch.Algo, ch.Proto, ch.TimeUs, ch.Backup = g.algo, g.proto, g.time, g.backup
		ch.Restored = m.restoredCell(t.fn, g.algo, g.proto)
		ch.RingKept = m.keptCell(t.fn, g.algo)
		ch.NThreads = g.nt
	}
	return g, nil
}

// leastLoaded is the choice of a task's nBid least loaded channels among
// the first nColl (addCollToPlan, addTunedCollToPlan): the first nBid
// channels, each replaced in turn by a later channel with fewer bytes
// than the most loaded one kept.
func leastLoaded(collBytes []int64, nBid, nColl int) []int {
	nBid = max(1, min(nBid, len(collBytes)))
	nColl = min(nColl, len(collBytes))
	least := make([]int, nBid)
	maxIdx, maxBytes := 0, collBytes[0]
	for b := 1; b < nBid; b++ {
		least[b] = b
		if maxBytes < collBytes[b] {
			maxIdx, maxBytes = b, collBytes[b]
		}
	}
	for c := nBid; c < nColl; c++ {
		if collBytes[c] < maxBytes {
			least[maxIdx] = c
			maxIdx, maxBytes = 0, collBytes[least[0]]
			for b := 1; b < nBid; b++ {
				if maxBytes < collBytes[least[b]] {
					maxIdx, maxBytes = b, collBytes[least[b]]
				}
			}
		}
	}
	return least
}

// channelSpan records the channels a task got: ChannelLo..ChannelHi are
// the lowest and highest of them (least loaded channels need not be
// consecutive).
func channelSpan(ch *OpChoice, chans []int) {
	lo, hi := chans[0], chans[0]
	for _, c := range chans[1:] {
		lo, hi = min(lo, c), max(hi, c)
	}
	ch.ChannelLo, ch.ChannelHi, ch.Plan = lo, hi, 0
}

// scheduleR18 is ncclLaunchPrepare's loop over kernel plans with
// scheduleCollTasksToPlan of 2.18.1–2.19.4: each plan takes tasks in call
// order until the next one's channels do not fit its work budget
// (legacyWorkBudget); the next plan starts again from that task, with the
// bytes per channel computed again from what is left of the byte total.
//
// Ref: v2.19.4-1 src/enqueue.cc ncclLaunchPrepare, scheduleCollTasksToPlan
// (v2.18.1-1 … v2.19.3-1 likewise)
func (m *Model) scheduleR18(tasks []*tuningTask, lines *[]string) (int, *nccl.NCCLError) {
	// collBytesTotal: count × type size in 2.18.1, an nBytes taskAppend
	// never sets (0) from 2.18.3; each scheduled task takes its nBytes
	// off in size_t arithmetic, so the rest may wrap round
	var total uint64
	if m.Tuning.AggTotalFromCount {
		for _, t := range tasks {
			total += uint64(t.count) * uint64(t.dtype.Size())
		}
	}
	depth, budget := m.legacyWorkBudget(tasks)
	plans := 0
	for ; len(tasks) > 0; plans++ {
		n, err := m.scheduleR18Plan(tasks, plans, &total, budget, lines)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, m.legacyFifoTooSmall(depth)
		}
		tasks = tasks[n:]
	}
	return plans, nil
}

// aggBytesPerChannel is scheduleCollTasksToPlan's bytePerChannel of
// 2.18.1–2.19.4 (without CollNet support, with it): a positive
// comm->channelSize (NCCL_AGG_CHANNEL_SIZE; in 2.18.x any value but 0, the
// field being unsigned) for both, else NCCL_AGG_CHANNEL_SIZE × min(16,
// nRanks) and 256 KiB; each halved while the byte total is below it ×
// nChannels (size_t arithmetic) and it is above NCCL_MIN_CHANNEL_SIZE.
func (m *Model) aggBytesPerChannel(total uint64) [2]uint64 {
	c, in := m.Tuning, &m.In
	size := c.AggChannelSizeDefault
	if in.AggChannelSize != nil {
		size = *in.AggChannelSize
	}
	set := size > 0
	if c.AggChannelSizeUnsigned {
		set = size != 0
	}
	bpc := [2]uint64{uint64(c.AggChannelSize) * uint64(min(16, in.NRanks)), uint64(c.AggCollNetBytes)}
	if set {
		bpc = [2]uint64{uint64(size), uint64(size)}
	}
	for k := range bpc {
		for total < bpc[k]*uint64(in.NChannels) && bpc[k] > uint64(c.MinChannelSize) {
			bpc[k] /= 2
		}
	}
	return bpc
}

// aggChannels is max(1, min(DIVUP(bytes, bpc), maxCh)) with DIVUP in
// size_t and its result kept in an int, as scheduleCollTasksToPlan does.
func aggChannels(bytes, bpc uint64, maxCh int) int {
	nc := int(int32((bytes + bpc - 1) / max(bpc, 1)))
	return max(1, min(nc, maxCh))
}

// scheduleR18Plan is scheduleCollTasksToPlan of 2.18.1–2.19.4 for one
// plan: the bytes per channel (aggBytesPerChannel); each run of
// consecutive calls of one function, reduction and datatype is an
// aggregate whose channel loop starts at min(nChannels, the channels its
// members after the first want) with that many pipelined operations per
// channel; every member then runs on ceil(nBytes / bytes per channel)
// channels with the aggregate's algorithm, protocol and threads. A call
// alone is decided alone. Each task takes its nChannels least loaded
// channels; every channel walks the whole buffer, so the task has no
// channel split (Part). It returns how many tasks the plan took: it stops
// before a task whose channels exceed the budget left.
//
// Ref: v2.19.4-1 src/enqueue.cc scheduleCollTasksToPlan, addCollToPlan,
// appendWorkElemColl, topoGetAlgoInfo (v2.18.1-1 … v2.19.3-1 likewise)
func (m *Model) scheduleR18Plan(tasks []*tuningTask, plan int, total *uint64, budget int, lines *[]string) (int, *nccl.NCCLError) {
	in := &m.In
	bpc := m.aggBytesPerChannel(*total)
	collBytes := make([]int64, m.Tuning.MaxChannels)
	works := m.newLegacyWorks(budget)
	for beg := 0; beg < len(tasks); {
		head := tasks[beg]
		cs := 0
		if head.op.CollNetOK {
			cs = 1
		}
		end, nAggChannels := beg+1, 0
		for end < len(tasks) && legacySameBin(tasks[end], head) {
			nAggChannels += aggChannels(uint64(tasks[end].count)*uint64(tasks[end].dtype.Size()), bpc[cs], in.NChannels)
			end++
		}
		members := tasks[beg:end]
		var g tuningAgg
		var err *nccl.NCCLError
		if len(members) > 1 {
			aggNC := min(in.NChannels, nAggChannels)
			g, err = m.decideAggregate(members, (nAggChannels+aggNC-1)/aggNC, aggNC, lines)
		} else {
			g, err = m.decideAggregate(members, 1, 0, lines)
		}
		if err != nil {
			return 0, err
		}
		for i, t := range members {
			nBytes := m.legacyNBytes(t)
			nc := g.nc
			if len(members) > 1 {
				maxCh := in.NChannels
				if g.algo == nccl.NVLS || g.algo == nccl.NVLSTree {
					maxCh = in.NVLSChannels
				}
				nc = aggChannels(uint64(nBytes), bpc[cs], maxCh)
			}
			if works.budget < nc {
				// the plan is full: the rest start the next one
				return beg + i, nil
			}
			// registerIntraNodeBuffers, before addCollToPlan
			if n, kind := m.userBufferChannels(t, g.algo); kind != "" {
				nc, t.choice.Registered = n, kind
			}
			// addCollToPlan's channel pool: nvlsChannels for NVLS, or for
			// the members of an NVLSTree aggregate (a call alone reads
			// the empty aggregate's algorithm, which is never NVLSTree)
			nColl := in.NChannels
			if g.algo == nccl.NVLS || (len(members) > 1 && g.algo == nccl.NVLSTree) {
				nColl = in.NVLSChannels
			}
			least := leastLoaded(collBytes, nc, nColl)
			for _, ch := range least {
				collBytes[ch] += nBytes / int64(len(least))
				works.add(ch, t)
			}
			*total -= uint64(nBytes)
			t.nMaxCh = nc
			t.choice.NChannels = nc
			// computeColl: the task's own bytes on its channels
			t.choice.ChunkNBytes, t.choice.ChunkNChannels = nBytes, nc
			channelSpan(t.choice, least)
			t.choice.Plan = plan
		}
		beg = end
	}
	return len(tasks), nil
}

// scheduleR20 is scheduleCollTasksToPlan of 2.20.3–2.21.5. The queue is
// sorted by function, datatype, reduction and count, descending, a later
// call before an equal earlier one (taskAppend's collCmp); every run of
// one function, reduction and datatype is one aggregate decided with
// numPipeOps 1, whose threads every member takes; each member's channels
// are getChannnelThreadInfo's from collChannels on its own size. The
// usable channels are the largest channel pool of the group's algorithms,
// at most the members' channels summed. CollNet tasks (and NVLS across
// nodes) run on channels 0..n-1 walking the whole buffer, a task whose
// channels a tuner set on its n least loaded channels, and the others are
// cut, in queue order, at maxBytesPerChannel (their bytes over the usable
// channels, a multiple of 16) aligned up to the protocol's grain. The
// decisions are made once, in the first plan; a plan takes the cut tasks,
// then the CollNet ones, then the tuned ones until the next task's
// channels exceed its work budget (legacyWorkBudget), and the next plan
// cuts what is left at its own maxBytesPerChannel from channel 0.
//
// Ref: v2.21.5-1 src/enqueue.cc scheduleCollTasksToPlan,
// getChannnelThreadInfo, addCBDCollToPlan, addCollnetCollToPlan,
// addTunedCollToPlan, computeCollAlignCount, collCmp, appendWorkElemColl,
// ncclLaunchPrepare (v2.20.3-1 and
// v2.20.5-1 likewise)
func (m *Model) scheduleR20(tasks []*tuningTask, lines *[]string) (int, *nccl.NCCLError) {
	c, in := m.Tuning, &m.In
	queue := append([]*tuningTask(nil), tasks...)
	sort.SliceStable(queue, func(i, j int) bool {
		a, b := queue[i], queue[j]
		switch {
		case a.fn != b.fn:
			return a.fn > b.fn
		case a.dtype != b.dtype: // the queued datatype and count (nccl.Op.Queued)
			return a.dtype > b.dtype
		case a.devOp != b.devOp:
			return a.devOp > b.devOp
		case a.count != b.count:
			return a.count > b.count
		}
		return a.index > b.index
	})
	var totalCBD int64
	for _, t := range queue {
		totalCBD += t.count * int64(t.dtype.Size())
	}
	usable, acc := 0, 0
	var cbd, collnet, tuned []*tuningTask
	for beg := 0; beg < len(queue); {
		end := beg + 1
		for end < len(queue) && legacySameBin(queue[end], queue[beg]) {
			end++
		}
		members := queue[beg:end]
		g, err := m.decideAggregate(members, 1, 0, lines)
		if err != nil {
			return 0, err
		}
		var aggNBytes int64 // aggInfo's nBytes, every member's aggnBytes
		for _, t := range members {
			aggNBytes += m.legacyNBytes(t)
		}
		for _, t := range members {
			t.aggNBytes = aggNBytes
			nc := g.tunerNCh
			if nc == 0 {
				nc, _ = m.channelThreads(g.algo, g.proto, m.legacyNBytes(t), in.NChannels)
			}
			// registerIntraNodeBuffers, before the channels are summed
			if n, kind := m.userBufferChannels(t, g.algo); kind != "" {
				nc, t.choice.Registered = n, kind
			}
			t.nMaxCh = nc
			t.choice.NChannels = nc
			acc += nc
		}
		for _, t := range members {
			pool := in.NChannels
			if g.algo == nccl.NVLS || g.algo == nccl.NVLSTree {
				pool = in.NVLSChannels
			}
			usable = max(usable, pool)
			switch {
			case g.algo == nccl.CollNetDirect || g.algo == nccl.CollNetChain || (g.algo == nccl.NVLS && in.NNodes > 1):
				t.collnet = true
				collnet = append(collnet, t)
				totalCBD -= t.count * int64(t.dtype.Size())
			case g.tunerNCh != 0:
				tuned = append(tuned, t)
				totalCBD -= t.count * int64(t.dtype.Size())
			default:
				cbd = append(cbd, t)
			}
		}
		beg = end
	}
	usable = max(1, min(usable, acc))
	if c.BytesAlignment <= 0 {
		return 0, &nccl.NCCLError{Result: nccl.InternalError, Message: "the 2.20 schedule needs NCCL_BYTES_ALIGNMENT", Call: "ncclGroupEnd"}
	}
	depth, budget := m.legacyWorkBudget(queue)
	plans := 0
	for ; len(cbd)+len(collnet)+len(tuned) > 0; plans++ {
		n, err := m.scheduleR20Plan(&cbd, &collnet, &tuned, plans, usable, &totalCBD, budget)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, m.legacyFifoTooSmall(depth)
		}
	}
	return plans, nil
}

// scheduleR20Plan fills one plan of the 2.20 schedule from the three
// queues, taking what it places off them and the cut tasks' bytes off
// totalCBD; it returns how many tasks it took.
func (m *Model) scheduleR20Plan(cbd, collnet, tuned *[]*tuningTask, plan, usable int, totalCBD *int64, budget int) (int, *nccl.NCCLError) {
	c := m.Tuning
	align := int64(c.BytesAlignment)
	// the plan's total: the channels of the budget check and
	// maxBytesPerChannel read it as the plan began
	planTotal := *totalCBD
	maxBytesPerChannel := nccl.RoundUp(nccl.DivUp(planTotal, int64(usable)), align)
	collBytes := make([]int64, max(c.MaxChannels, usable))
	works := m.newLegacyWorks(budget)
	taken := 0
	for len(*cbd) > 0 {
		t := (*cbd)[0]
		bytes := t.count * int64(t.dtype.Size())
		// the channels the budget check assumes, before the cut, and
		// computeCollChunkInfo's: the aggregate's nBytes (2.20.x) or the
		// task's bytes over the plan's byte total (G-SEL-CHUNK-3)
		share := bytes
		if c.CBDChannelsAggBytes {
			share = t.aggNBytes
		}
		nc := (share*int64(usable) + planTotal - 1) / max(planTotal, 1)
		if int64(works.budget) < nc {
			return taken, nil
		}
		t.choice.ChunkNBytes, t.choice.ChunkNChannels = t.aggNBytes, int(nc)
		part, err := c.maxBytesPlace(collBytes, maxBytesPerChannel, usable, t.proto, int64(t.dtype.Size()), t.count, t.nWarps*c.WarpSize)
		if err != nil {
			e := &nccl.NCCLError{Result: nccl.InternalError, Message: fmt.Sprintf("task %d: %v", t.index, err), Call: "ncclGroupEnd"}
			t.choice.Err = e
			return 0, e
		}
		for ch := part.Lo; ch <= part.Hi; ch++ {
			works.add(ch, t)
		}
		t.choice.Part = part
		t.choice.ChannelLo, t.choice.ChannelHi, t.choice.Plan = part.Lo, part.Hi, plan
		*totalCBD -= bytes
		*cbd = (*cbd)[1:]
		taken++
	}
	for len(*collnet) > 0 {
		t := (*collnet)[0]
		if works.budget < t.nMaxCh {
			return taken, nil
		}
		n := max(1, min(t.nMaxCh, usable))
		per := (t.count + int64(n) - 1) / int64(n) * int64(t.dtype.Size())
		for ch := range n {
			collBytes[ch] += per
			works.add(ch, t)
		}
		// addCollnetCollToPlan: its own nBytes on the channels it asked for
		t.choice.ChunkNBytes, t.choice.ChunkNChannels = m.legacyNBytes(t), t.nMaxCh
		t.nMaxCh, t.choice.NChannels = n, n // the channels it runs on
		t.choice.ChannelLo, t.choice.ChannelHi, t.choice.Plan = 0, n-1, plan
		*collnet = (*collnet)[1:]
		taken++
	}
	for len(*tuned) > 0 {
		t := (*tuned)[0]
		if works.budget < t.nMaxCh {
			return taken, nil
		}
		size := int64(t.dtype.Size())
		n := max(1, min(t.nMaxCh, usable))
		a := c.alignCount(t.proto, size, t.nWarps*c.WarpSize)
		per := ((t.count+int64(n)-1)/int64(n) + a - 1) / a * a
		n = int(nccl.DivUp(t.count, per))
		least := leastLoaded(collBytes, n, usable)
		// addTunedCollToPlan: its own nBytes on the channels its count fills
		t.choice.ChunkNBytes, t.choice.ChunkNChannels = m.legacyNBytes(t), n
		rem := t.count
		for _, ch := range least {
			w := min(per, rem)
			collBytes[ch] += w * size
			works.add(ch, t)
			rem -= w
		}
		channelSpan(t.choice, least)
		t.choice.Plan = plan
		*tuned = (*tuned)[1:]
		taken++
	}
	return taken, nil
}

// alignCount is computeCollAlignCount: the element multiple of a channel's
// share (Simple: NCCL_SIMPLE_ALIGNMENT bytes; LL128: 480 bytes per warp;
// LL: 8 bytes per thread).
func (c *Consts) alignCount(proto nccl.Proto, size int64, nThreads int) int64 {
	var a int64
	switch proto {
	case nccl.Simple:
		a = c.SimpleAlignment / size
	case nccl.LL128:
		a = c.LL128AlignPerWarp / size * int64(nThreads/c.WarpSize)
	default:
		a = c.LLAlignPerThread / size * int64(nThreads)
	}
	return max(1, a)
}

// maxBytesPlace is addCBDCollToPlan: from channel 0 on, every channel
// below maxBytesPerChannel takes what it has room for (the rest of the
// task at most), rounded up to the protocol's element multiple. count is
// in elements of size bytes.
func (c *Consts) maxBytesPlace(collBytes []int64, maxBytesPerChannel int64, usable int, proto nccl.Proto, size, count int64, nThreads int) (CBDPart, error) {
	a := c.alignCount(proto, size, nThreads)
	remBytes, remCount := count*size, count
	var chans []int
	var counts []int64
	for ch := 0; ch < usable && ch < len(collBytes); ch++ {
		if maxBytesPerChannel <= collBytes[ch] {
			continue
		}
		if remBytes == 0 {
			break
		}
		enq := min(maxBytesPerChannel-collBytes[ch], remBytes)
		w := min(((enq+size-1)/size+a-1)/a*a, remCount)
		enq = w * size
		chans, counts = append(chans, ch), append(counts, w)
		remBytes -= enq
		remCount -= w
		collBytes[ch] += enq
	}
	if remCount != 0 || len(chans) == 0 {
		return CBDPart{}, fmt.Errorf("%d elements left after %d usable channels: not modelled", remCount, usable)
	}
	n := len(chans)
	if chans[n-1]-chans[0] != n-1 {
		return CBDPart{}, fmt.Errorf("channels %v are not consecutive: not modelled", chans)
	}
	part := CBDPart{Lo: chans[0], Hi: chans[n-1], CountLo: counts[0]}
	if n > 1 {
		part.CountHi = counts[n-1]
	}
	for i := 1; i < n-1; i++ {
		if counts[i] != counts[1] {
			return CBDPart{}, fmt.Errorf("middle channels take %d and %d elements: not modelled", counts[1], counts[i])
		}
		part.CountMid = counts[1]
	}
	return part, nil
}
