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
	"sort"
)

// scheduleLegacy decides and places the group's tasks (call order) with
// the release's pre-2.22.3 schedule. It returns the kernel plans (one: the
// work budget that can split a large group is not modelled) or the error
// of the first aggregate without an algorithm.
func (m *Model) scheduleLegacy(tasks []*tuningTask, lines *[]string) (int, *NCCLError) {
	if m.Tuning.Schedule == ScheduleR18 {
		return m.scheduleR18(tasks, lines)
	}
	return m.scheduleR20(tasks, lines)
}

// legacySameBin: NCCL aggregates tasks of one function, device reduction
// and API datatype (an AllGather of floats and one of bytes stay apart).
func legacySameBin(a, b *tuningTask) bool {
	return a.fn == b.fn && a.devOp == b.devOp && a.op.Op.DataType == b.op.Op.DataType
}

// legacyNBytes is ncclInfoSetDerived's nBytes: count × type size, × nRanks
// for AllGather and ReduceScatter.
func (m *Model) legacyNBytes(t *tuningTask) int64 {
	return int64(t.dtype.Size()) * MaxSendRecvCount(t.fn, m.In.NRanks, t.count)
}

// decideAggregate is getAlgoInfo (topoGetAlgoInfo) for the members taken
// as one operation: counts summed, the choice, its cost table and line
// copied to every member. The channel counts are the schedule's.
func (m *Model) decideAggregate(members []*tuningTask, numPipeOps, presetNC int, lines *[]string) (tuningAgg, *NCCLError) {
	var g tuningAgg
	if err := m.decideBin(members, numPipeOps, presetNC, &g, lines); err != nil {
		return g, err
	}
	for _, t := range members {
		t.algo, t.proto, t.nWarps = g.algo, g.proto, g.nt/m.Tuning.WarpSize
		ch := t.choice
		ch.Algo, ch.Proto, ch.TimeUs, ch.Backup = g.algo, g.proto, g.time, g.backup
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

// scheduleR18 is scheduleCollTasksToPlan of 2.18.1–2.19.4: the bytes per
// channel of an aggregate member (NCCL_AGG_CHANNEL_SIZE × min(16, nRanks),
// 256 KiB when CollNet supports the bin) halved while the group's byte
// total does not fill every channel; each run of consecutive calls of one
// function, reduction and datatype is an aggregate whose channel loop
// starts at min(nChannels, the channels its members after the first want)
// with that many pipelined operations per channel; every member then runs
// on ceil(nBytes / bytes per channel) channels with the aggregate's
// algorithm, protocol and threads. A call alone is decided alone. Each task
// takes its nChannels least loaded channels; every channel walks the
// whole buffer, so the task has no channel split (Part).
//
// Ref: v2.19.4-1 src/enqueue.cc scheduleCollTasksToPlan, addCollToPlan,
// topoGetAlgoInfo (v2.18.1-1 … v2.19.3-1 likewise; the byte total is
// count × type size in 2.18.1 and an nBytes taskAppend never sets, 0,
// from 2.18.3)
func (m *Model) scheduleR18(tasks []*tuningTask, lines *[]string) (int, *NCCLError) {
	c, in := m.Tuning, &m.In
	bpc := [2]int64{c.AggChannelSize * int64(min(16, in.NRanks)), c.AggCollNetBytes}
	var total int64
	if c.AggTotalFromCount {
		for _, t := range tasks {
			total += t.count * int64(t.dtype.Size())
		}
	}
	for k := range bpc {
		for total < bpc[k]*int64(in.NChannels) && bpc[k] > c.MinChannelSize {
			bpc[k] /= 2
		}
	}
	collBytes := make([]int64, c.MaxChannels)
	for beg := 0; beg < len(tasks); {
		head := tasks[beg]
		cs := 0
		if head.op.CollNetOK {
			cs = 1
		}
		end, nAggChannels := beg+1, 0
		for end < len(tasks) && legacySameBin(tasks[end], head) {
			nc := int(min(int64(in.NChannels), (tasks[end].count*int64(tasks[end].dtype.Size())+bpc[cs]-1)/bpc[cs]))
			nAggChannels += max(1, nc)
			end++
		}
		members := tasks[beg:end]
		var g tuningAgg
		var err *NCCLError
		if len(members) > 1 {
			aggNC := min(in.NChannels, nAggChannels)
			g, err = m.decideAggregate(members, (nAggChannels+aggNC-1)/aggNC, aggNC, lines)
		} else {
			g, err = m.decideAggregate(members, 1, 0, lines)
		}
		if err != nil {
			return 0, err
		}
		for _, t := range members {
			nBytes := m.legacyNBytes(t)
			nc := g.nc
			if len(members) > 1 {
				maxCh := in.NChannels
				if g.algo == NVLS || g.algo == NVLSTree {
					maxCh = in.NVLSChannels
				}
				nc = max(1, int(min(int64(maxCh), (nBytes+bpc[cs]-1)/bpc[cs])))
			}
			// registerIntraNodeBuffers, before addCollToPlan
			if n, kind := m.userBufferChannels(t, g.algo); kind != "" {
				nc, t.choice.Registered = n, kind
			}
			// addCollToPlan's channel pool: nvlsChannels for NVLS, or for
			// the members of an NVLSTree aggregate (a call alone reads
			// the empty aggregate's algorithm, which is never NVLSTree)
			nColl := in.NChannels
			if g.algo == NVLS || (len(members) > 1 && g.algo == NVLSTree) {
				nColl = in.NVLSChannels
			}
			least := leastLoaded(collBytes, nc, nColl)
			for _, ch := range least {
				collBytes[ch] += nBytes / int64(len(least))
			}
			t.nMaxCh = nc
			t.choice.NChannels = nc
			channelSpan(t.choice, least)
		}
		beg = end
	}
	return 1, nil
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
// channels, a multiple of 16) aligned up to the protocol's grain.
//
// Ref: v2.21.5-1 src/enqueue.cc scheduleCollTasksToPlan,
// getChannnelThreadInfo, addCBDCollToPlan, addCollnetCollToPlan,
// addTunedCollToPlan, computeCollAlignCount, collCmp (v2.20.3-1 and
// v2.20.5-1 likewise)
func (m *Model) scheduleR20(tasks []*tuningTask, lines *[]string) (int, *NCCLError) {
	c, in := m.Tuning, &m.In
	queue := append([]*tuningTask(nil), tasks...)
	sort.SliceStable(queue, func(i, j int) bool {
		a, b := queue[i], queue[j]
		switch {
		case a.fn != b.fn:
			return a.fn > b.fn
		case a.op.Op.DataType != b.op.Op.DataType:
			return a.op.Op.DataType > b.op.Op.DataType
		case a.devOp != b.devOp:
			return a.devOp > b.devOp
		case a.op.Op.Count != b.op.Op.Count:
			return a.op.Op.Count > b.op.Op.Count
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
		for _, t := range members {
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
			if g.algo == NVLS || g.algo == NVLSTree {
				pool = in.NVLSChannels
			}
			usable = max(usable, pool)
			switch {
			case g.algo == CollNetDirect || g.algo == CollNetChain || (g.algo == NVLS && in.NNodes > 1):
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
	align := int64(c.BytesAlignment)
	if align <= 0 {
		return 0, &NCCLError{Result: InternalError, Message: "the 2.20 schedule needs NCCL_BYTES_ALIGNMENT", Call: "ncclGroupEnd"}
	}
	maxBytesPerChannel := ((totalCBD+int64(usable)-1)/int64(usable) + align - 1) / align * align
	collBytes := make([]int64, max(c.MaxChannels, usable))
	for _, t := range cbd {
		part, err := c.maxBytesPlace(collBytes, maxBytesPerChannel, usable, t.proto, int64(t.dtype.Size()), t.count, t.nWarps*c.WarpSize)
		if err != nil {
			e := &NCCLError{Result: InternalError, Message: fmt.Sprintf("task %d: %v", t.index, err), Call: "ncclGroupEnd"}
			t.choice.Err = e
			return 0, e
		}
		t.choice.Part = part
		t.choice.ChannelLo, t.choice.ChannelHi, t.choice.Plan = part.Lo, part.Hi, 0
	}
	for _, t := range collnet {
		n := max(1, min(t.nMaxCh, usable))
		per := (t.count + int64(n) - 1) / int64(n) * int64(t.dtype.Size())
		for ch := range n {
			collBytes[ch] += per
		}
		t.nMaxCh, t.choice.NChannels = n, n // the channels it runs on
		t.choice.ChannelLo, t.choice.ChannelHi, t.choice.Plan = 0, n-1, 0
	}
	for _, t := range tuned {
		size := int64(t.dtype.Size())
		n := max(1, min(t.nMaxCh, usable))
		a := c.alignCount(t.proto, size, t.nWarps*c.WarpSize)
		per := ((t.count+int64(n)-1)/int64(n) + a - 1) / a * a
		n = int((t.count + per - 1) / per)
		least := leastLoaded(collBytes, n, usable)
		rem := t.count
		for _, ch := range least {
			w := min(per, rem)
			collBytes[ch] += w * size
			rem -= w
		}
		channelSpan(t.choice, least)
	}
	return 1, nil
}

// alignCount is computeCollAlignCount: the element multiple of a channel's
// share (Simple: NCCL_SIMPLE_ALIGNMENT bytes; LL128: 480 bytes per warp;
// LL: 8 bytes per thread).
func (c *Consts) alignCount(proto Proto, size int64, nThreads int) int64 {
	var a int64
	switch proto {
	case Simple:
		a = c.SimpleAlignment / size
	case LL128:
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
func (c *Consts) maxBytesPlace(collBytes []int64, maxBytesPerChannel int64, usable int, proto Proto, size, count int64, nThreads int) (CBDPart, error) {
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
