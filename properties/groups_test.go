package properties

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// groupCase draws a communicator and a group of 1–8 operations.
func groupCase(t *rapid.T) (Case, *spec.Comm, []spec.GroupOp, spec.Launch) {
	c := Request().Draw(t, "case")
	comm, err := topoCache.Init(ruleset(c.Release), c.System, c.Env)
	if err != nil {
		t.Fatalf("%s: init: %v", c, err)
	}
	n := rapid.IntRange(1, 8).Draw(t, "nOps")
	ops := make([]spec.GroupOp, n)
	// a release without ncclCommWindowRegister refuses window buffers
	maxBuffers := int(spec.BuffersWindow)
	if comm.Model != nil && !comm.Model.Tuning.Symmetric {
		maxBuffers = int(spec.BuffersRegistered)
	}
	for i := range ops {
		ops[i] = spec.GroupOp{Op: Op(c.Release, c.System.NRanks()).Draw(t, "op"),
			InPlace: rapid.Bool().Draw(t, "inplace"),
			Buffers: spec.Buffers(rapid.IntRange(0, maxBuffers).Draw(t, "buffers"))}
	}
	l := spec.Launch{Agg: rapid.IntRange(1, 3).Draw(t, "agg")}
	if rapid.Bool().Draw(t, "graph") {
		l.Mode = spec.LaunchGraph
	}
	return c, comm, ops, l
}

// A group of one operation, on a stream with user buffers, decides exactly
// as the operation alone: the group's own plan (not a copy of Select's)
// matches Select's algorithm, protocol, channels, threads, range and time.
func TestGroupOfOneDecidesAsAlone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Request().Draw(t, "case")
		comm, err := topoCache.Init(ruleset(c.Release), c.System, c.Env)
		if err != nil {
			t.Fatalf("%s: init: %v", c, err)
		}
		d, _, err := comm.Select(c.Op)
		if err != nil {
			return // an API error: no group either
		}
		if !comm.IssuedAlone(c.Op, spec.Issue{}) {
			return // a symmetric kernel may take it: its group of one decides, not Select
		}
		g, err := comm.SelectGroup([]spec.GroupOp{{Op: c.Op}}, spec.Launch{})
		if err != nil {
			t.Fatalf("%s: group: %v", c, err)
		}
		if len(g.Choices) == 0 || d.Err != nil || d.Discarded || g.Choices[0].OneRank {
			if diff := cmp.Diff(d, g.Ops[0]); diff != "" {
				t.Fatalf("%s: undecided group of one differs from alone:\n%s", c, diff)
			}
			return
		}
		ch := g.Choices[0]
		type plan struct {
			Algo                                   spec.Algo
			Proto                                  spec.Proto
			NChannels, NThreads, ChannelLo, ChanHi int
			TimeUs                                 float64
		}
		alone := plan{d.Algo, d.Proto, d.NChannels, d.NThreads, d.ChannelLo, d.ChannelHi, d.TimeUs}
		group := plan{ch.Algo, ch.Proto, ch.NChannels, ch.NThreads, ch.ChannelLo, ch.ChannelHi, float64(ch.TimeUs)}
		if ch.Err != nil {
			group = plan{Algo: spec.AlgoNone, Proto: spec.ProtoNone}
			alone = plan{Algo: d.Algo, Proto: d.Proto}
		}
		if diff := cmp.Diff(alone, group); diff != "" {
			t.Fatalf("%s: a group of one decides differently from the operation alone:\n%s", c, diff)
		}
	})
}

// Groups launched one after another are independent: launching them in
// the other order changes no operation's decision.
func TestIndependentGroupsPermute(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, comm, a, _ := groupCase(t)
		nb := rapid.IntRange(1, 4).Draw(t, "nB")
		b := make([]spec.Op, nb)
		for i := range b {
			b[i] = Op(c.Release, c.System.NRanks()).Draw(t, "opB")
		}
		script := func(first, second []spec.Op) ([]spec.Call, []spec.CallResult) {
			calls := []spec.Call{{Kind: spec.CallCommInit, Comm: "c0"}}
			for _, grp := range [][]spec.Op{first, second} {
				calls = append(calls, spec.Call{Kind: spec.CallGroupStart})
				for i := range grp {
					calls = append(calls, spec.Call{Kind: spec.CallCollective, Comm: "c0", Op: &grp[i]})
				}
				calls = append(calls, spec.Call{Kind: spec.CallGroupEnd})
			}
			res, _, err := spec.CheckGroup(spec.MustLoad(c.Release), calls)
			if err != nil {
				t.Fatal(err)
			}
			return calls, res
		}
		aOps := make([]spec.Op, len(a))
		for i := range a {
			aOps[i] = a[i].Op
		}
		c1, r1 := script(aOps, b)
		c2, r2 := script(b, aOps)
		d1, err1 := comm.DecideCalls(c1, r1, spec.Launch{})
		d2, err2 := comm.DecideCalls(c2, r2, spec.Launch{})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: errors differ: %v / %v", c, err1, err2)
		}
		if err1 != nil {
			return
		}
		// call i of the first group of script 1 is call i+len(b)+2 of script 2
		for i := range aOps {
			x, y := d1[2+i], d2[2+len(b)+2+i]
			if diff := cmp.Diff(x, y); diff != "" {
				t.Fatalf("%s: op %d of group A decides differently after group B:\n%s", c, i, diff)
			}
		}
		for i := range b {
			x, y := d1[2+len(aOps)+2+i], d2[2+i]
			if diff := cmp.Diff(x, y); diff != "" {
				t.Fatalf("%s: op %d of group B decides differently after group A:\n%s", c, i, diff)
			}
		}
	})
}

// Every planned operation of a group gets at least one channel, inside its
// kind's channels, and its channel parts add up to its count exactly
// (NCCL's partition leaves no element out and gives none twice); an
// operation a symmetric kernel runs lies on the kernel's blocks, and one
// the copy engines run takes no channel.
func TestGroupChannelsCover(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, comm, ops, l := groupCase(t)
		checkGroupChannelsCover(t, c, comm, ops, l)
	})
}

func checkGroupChannelsCover(t fataler, c Case, comm *spec.Comm, ops []spec.GroupOp, l spec.Launch) {
	g, err := comm.SelectGroup(ops, l)
	if err != nil || g.Err != nil || comm.Model == nil {
		return
	}
	in := comm.Model.In
	for i, ch := range g.Choices {
		if ch.Kernel != "" && ch.Err == nil {
			// a symmetric kernel: the operation's cells fill some of
			// the kernel's blocks, at least one
			if ch.NChannels < 1 || ch.ChannelLo < 0 || ch.ChannelHi < ch.ChannelLo || ch.ChannelHi >= ch.NChannels || ch.NThreads <= 0 {
				t.Fatalf("%s: op %d: kernel %s on channels %d..%d of %d blocks × %d threads", c, i, ch.Kernel, ch.ChannelLo, ch.ChannelHi, ch.NChannels, ch.NThreads)
			}
			checkSymCTABytes(t, c, comm, g.Choices, i)
			continue
		}
		if ch.SidePath == "copy-engine" || ch.SidePath == "hierarchical-ce" {
			// ceCollTaskAppend: a plan of its own on the copy engines,
			// no kernel and no channel to cover
			if ch.Err == nil && (ch.Plan < 0 || ch.NChannels != 0 || ch.Kernel != "") {
				t.Fatalf("%s: op %d: %s collective in plan %d on %d channels, kernel %q", c, i, ch.SidePath, ch.Plan, ch.NChannels, ch.Kernel)
			}
			continue
		}
		if ch.Discarded || ch.OneRank || ch.Err != nil || ch.Plan < 0 {
			continue
		}
		if ch.SidePath == "allgatherv" {
			// ncclScheduleBcastTasksToPlan: the broadcast's parts on
			// channels 0..hi of the AllGather pick's, Ring, some empty
			if ch.Op.Bytes() > 0 && (ch.Algo != spec.Ring || ch.NChannels < 1 || ch.ChannelLo != 0 || ch.ChannelHi >= in.NChannels || ch.NChannels > ch.ChannelHi+1) {
				t.Fatalf("%s: op %d: AllGatherV broadcast %s/%s, %d channels on %d..%d of %d", c, i, ch.Algo, ch.Proto, ch.NChannels, ch.ChannelLo, ch.ChannelHi, in.NChannels)
			}
			continue
		}
		kindMax := in.NChannels
		if comm.Model.Tuning.Schedule == tuning.ScheduleR18 {
			// 2.18/2.19: NChannels least loaded channels of the
			// nChannels or nvlsChannels pool, each walking the whole
			// buffer (no split)
			pool := max(in.NChannels, in.NVLSChannels)
			if ch.NChannels < 1 || ch.ChannelLo < 0 || ch.ChannelHi >= pool || ch.ChannelHi-ch.ChannelLo+1 < ch.NChannels || ch.Part != (tuning.CBDPart{}) {
				t.Fatalf("%s: op %d (%s/%s): %d channels on %d..%d of %d, part %+v", c, i, ch.Algo, ch.Proto, ch.NChannels, ch.ChannelLo, ch.ChannelHi, pool, ch.Part)
			}
			continue
		}
		switch {
		case comm.Model.Tuning.Schedule == tuning.ScheduleR20:
			// 2.20/2.21 cut every plain task over the group's usable
			// channels, the largest pool of its algorithms, NVLS
			// included (v2.20.3-1 src/enqueue.cc
			// scheduleCollTasksToPlan, addCBDCollToPlan)
			kindMax = max(in.NChannels, in.NVLSChannels)
		case ch.Algo.IsNVLS():
			kindMax = in.NVLSChannels
		}
		if ch.ChannelHi < ch.ChannelLo || ch.ChannelLo < 0 || ch.ChannelHi >= kindMax {
			t.Fatalf("%s: op %d (%s/%s) on channels %d..%d of %d", c, i, ch.Algo, ch.Proto, ch.ChannelLo, ch.ChannelHi, kindMax)
		}
		collnet := ch.Algo.IsCollNet() || (ch.Algo == spec.NVLS && in.NNodes > 1)
		if collnet {
			if ch.ChannelLo != 0 || ch.ChannelHi != ch.NChannels-1 {
				t.Fatalf("%s: op %d: CollNet task on %d..%d, want 0..%d", c, i, ch.ChannelLo, ch.ChannelHi, ch.NChannels-1)
			}
			continue
		}
		p := ch.Part
		count := ch.Op.Count
		if ch.Op.Func == spec.AllGather || ch.Op.Func == spec.Broadcast {
			count = ch.Op.Bytes()
		}
		total := p.CountLo
		if p.Hi > p.Lo {
			total += int64(p.Hi-p.Lo-1)*p.CountMid + p.CountHi
		}
		if p.Lo != ch.ChannelLo || p.Hi != ch.ChannelHi || total != count || p.CountLo <= 0 {
			t.Fatalf("%s: op %d: part %+v covers %d of %d on channels %d..%d", c, i, p, total, count, ch.ChannelLo, ch.ChannelHi)
		}
	}
}

// symFracSteps is the resolution of the 16-bit fraction in which a
// symmetric plan's block records where it stops in its last task (fracHi
// of ncclSymkChannelWorkRange).
const symFracSteps = 1 << 16

// checkSymCTABytes bounds the busiest block of op i's symmetric plan
// (G-SCHED-SYMRANGE-1) and checks that the plan's works fit the kernel
// arguments NCCL can pass. The host lays cellPerChannel = ⌈cells/blocks⌉
// 1 KiB cells on each block; a block that owns a task's tail shares it
// with the task's other blocks and may take up to one more cell of the
// next task (the tail is fused when at most 1 KiB of the block is left);
// and a block's end, a 16-bit fraction rounded up, decodes up to
// ⌊(cells−1)/65536⌋ cells past its layout. So the busiest block moves at
// most cellPerChannel + 1 + that rounding cells (a shared range's extra
// cell is split over its blocks: the 21,903.25 cells of 9 blocks for two
// 25,231,105-int32 AllGathers), and the blocks together hold the plan's
// bytes. A release whose kernel reads a block's end with its first
// task's cell count, and starts a task's shared blocks after the block
// before them even when that block ended in another task (2.28.3, no
// Tuning.SymRangeOwnEnds), moves up to the largest task more on a block
// that ends in a task of fewer cells, and skips bytes of a plan of
// several tasks: there only the upper bound holds.
//
// Ref: v2.28.3-1 src/scheduler/symmetric_sched.cc
// ncclSymmetricTaskScheduler; src/device/symmetric/primitives.cuh
// ncclSymkArgsHandler::getWorkRange, getWorkRangeFused, forEachWork;
// src/device/symmetric/all_gather.cuh bcast (v2.28.7-1 the end read
// from its own task)
func checkSymCTABytes(t fataler, c Case, comm *spec.Comm, choices []tuning.OpChoice, i int) {
	ch := choices[i]
	var bytes, cells, most, rounding int64
	works, equal := 0, true
	for _, o := range choices {
		if o.Kernel == "" || o.Err != nil || o.Plan != ch.Plan {
			continue
		}
		n := (o.Bytes + 1023) / 1024
		equal = equal && (works == 0 || n == most)
		bytes, cells, works = bytes+o.Bytes, cells+n, works+1
		most, rounding = max(most, n), max(rounding, (n-1)/symFracSteps)
	}
	blocks := int64(ch.NChannels)
	perChannel := (cells + blocks - 1) / blocks
	bound := perChannel + 1 + rounding
	ownEnds := comm.Model.Tuning.SymRangeOwnEnds
	if !ownEnds && !equal {
		bound += most
	}
	if ch.CTABytes > bound*1024 || ((ownEnds || works == 1) && ch.CTABytes*blocks < bytes) || ch.Works != works || ch.ArgsBytes <= 0 || ch.ArgsBytes > 4096 {
		t.Fatalf("%s: op %d: kernel %s plan %d: %d blocks × %d bytes for %d bytes (%d cells, at most %d a block) of %d works (recorded %d), %d bytes of arguments",
			c, i, ch.Kernel, ch.Plan, blocks, ch.CTABytes, bytes, cells, bound, works, ch.Works, ch.ArgsBytes)
	}
}

// Before 2.22.3 a kernel plan holds half of NCCL_WORK_FIFO_DEPTH in
// ncclWork structs (ncclLaunchPrepare). With a smaller FIFO a group either
// fails as NCCL does ("is too small") or every operation lands in one of
// its plans on channels of the communicator; a group that still takes one
// plan decides exactly as with the default FIFO.
func TestLegacyGroupPlans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, comm, ops, l := groupCase(t)
		if comm.Err != nil || comm.Model == nil || comm.Model.Tuning.WorkFifoDepth == 0 {
			return // 2.22.3+: the byte budget of the kernel arguments
		}
		base, err := comm.SelectGroup(ops, l)
		if err != nil || base.Err != nil {
			return
		}
		if base.Plans > 1 {
			t.Fatalf("%s: %d plans with the default FIFO of %d works", c, base.Plans, comm.Model.Tuning.WorkFifoDepth)
		}
		depth := 1 << rapid.IntRange(2, 7).Draw(t, "log2Depth")
		env := spec.Env{"NCCL_WORK_FIFO_DEPTH": strconv.Itoa(depth)}
		for k, v := range c.Env {
			env[k] = v
		}
		small, err := topoCache.Init(ruleset(c.Release), c.System, env)
		if err != nil {
			t.Fatalf("%s: init with NCCL_WORK_FIFO_DEPTH=%d: %v", c, depth, err)
		}
		g, err := small.SelectGroup(ops, l)
		if err != nil {
			t.Fatalf("%s: group: %v", c, err)
		}
		if g.Err != nil {
			if g.Err.Result != spec.InvalidUsage || !strings.Contains(g.Err.Message, "is too small") {
				t.Fatalf("%s: NCCL_WORK_FIFO_DEPTH=%d: group error %v", c, depth, g.Err)
			}
			return
		}
		if g.Plans < base.Plans {
			t.Fatalf("%s: NCCL_WORK_FIFO_DEPTH=%d: %d plans, fewer than the default's %d", c, depth, g.Plans, base.Plans)
		}
		pool := max(small.Model.In.NChannels, small.Model.In.NVLSChannels)
		for i, ch := range g.Choices {
			if ch.Discarded || ch.OneRank || ch.P2P || ch.Err != nil {
				continue
			}
			if ch.Plan < 0 || ch.Plan >= g.Plans || ch.NChannels < 1 || ch.ChannelLo < 0 || ch.ChannelHi < ch.ChannelLo || ch.ChannelHi >= pool {
				t.Fatalf("%s: NCCL_WORK_FIFO_DEPTH=%d: op %d in plan %d of %d, %d channels on %d..%d of %d", c, depth, i, ch.Plan, g.Plans, ch.NChannels, ch.ChannelLo, ch.ChannelHi, pool)
			}
		}
		if g.Plans == 1 {
			if diff := cmp.Diff(base.Choices, g.Choices); diff != "" {
				t.Fatalf("%s: NCCL_WORK_FIFO_DEPTH=%d: one plan, but the group decides differently:\n%s", c, depth, diff)
			}
		}
	})
}

// Every send/recv task of a group gets at least one channel, all of them
// among the communicator's p2p channels and at most p2pnChannelsPerPeer
// of them, in one of the group's plans; and a p2p operation's tasks are
// placed as in a group of that operation alone (the plan aside).
func TestGroupP2PTasks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, comm, ops, l := groupCase(t)
		p2p := rapid.SampledFrom([]spec.Func{spec.SendRecv, spec.AllToAll})
		for range rapid.IntRange(1, 3).Draw(t, "nP2P") {
			o := spec.Op{Func: p2p.Draw(t, "p2p"), Count: rapid.Int64Range(0, 1<<26).Draw(t, "p2pCount"), DataType: spec.Int8}
			at := rapid.IntRange(0, len(ops)).Draw(t, "at")
			ops = append(ops[:at:at], append([]spec.GroupOp{{Op: o}}, ops[at:]...)...)
		}
		l.Agg = 1 // a p2p operation repeated is the same tasks again
		pc, err := comm.P2PComm()
		g, gerr := comm.SelectGroup(ops, l)
		if err != nil || gerr != nil || g.Err != nil || comm.Model == nil || pc.NRanks() > tuning.MaxP2PRanks {
			return
		}
		for i, d := range g.Ops {
			if !ops[i].Op.Func.IsP2P() || d.Err != nil || d.Discarded || comm.Model.In.NRanks == 1 {
				continue
			}
			if d.P2P == nil || len(d.P2P.Tasks) == 0 {
				t.Fatalf("%s: p2p op %d (%s) has no placed task", c, i, ops[i].Op.Func)
			}
			for _, tk := range d.P2P.Tasks {
				if len(tk.Channels) < 1 || tk.NChannels != len(tk.Channels) || len(tk.Channels) > pc.NChannelsPerPeer || tk.Plan < 0 || tk.Plan >= g.Plans {
					t.Fatalf("%s: op %d: %s %d on channels %v (nchannels %d) plan %d of %d; p2p channels %d, %d per peer", c, i, tk.Dir, tk.Peer, tk.Channels, tk.NChannels, tk.Plan, g.Plans, pc.NChannels, pc.NChannelsPerPeer)
				}
				for _, ch := range tk.Channels {
					if ch < 0 || ch >= pc.NChannels {
						t.Fatalf("%s: op %d: %s %d on channel %d outside the %d p2p channels", c, i, tk.Dir, tk.Peer, ch, pc.NChannels)
					}
				}
			}
			alone, err := comm.SelectGroup([]spec.GroupOp{ops[i]}, spec.Launch{Mode: l.Mode})
			if err != nil || alone.Err != nil || alone.Ops[0].P2P == nil {
				t.Fatalf("%s: op %d alone: %v %v", c, i, err, alone)
			}
			strip := func(ts []tuning.P2PPlaced) []tuning.P2PPlaced {
				out := slices.Clone(ts)
				for k := range out {
					out[k].Plan, out[k].Pass = 0, 0 // the group's positions
				}
				return out
			}
			if diff := cmp.Diff(strip(alone.Ops[0].P2P.Tasks), strip(d.P2P.Tasks)); diff != "" {
				t.Fatalf("%s: op %d's tasks in the group differ from the op alone:\n%s", c, i, diff)
			}
		}
	})
}

// Send/recv to peers the caller states (a pipeline pair, a halo, a sparse
// all-to-all-v): every stated send or recv becomes exactly one task with
// its peer, direction and bytes; NCCL places each task by its peer's round
// alone, so a group's decisions do not depend on the order the calls are
// given, and each task decides as in a group of that call alone; sends to
// rank 0 itself that no recv matches fail ncclGroupEnd.
func TestGroupP2PPeers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, comm, ops, l := groupCase(t)
		n := c.System.NRanks()
		pc, err := comm.P2PComm()
		if err != nil || comm.Model == nil || n > tuning.MaxP2PRanks {
			return
		}
		nColl := rapid.IntRange(0, len(ops)).Draw(t, "nColl")
		ops = ops[:nColl]
		var self [2]int
		for range rapid.IntRange(1, 12).Draw(t, "nPeers") {
			p := spec.P2PCall{Send: rapid.Bool().Draw(t, "send"), Peer: rapid.IntRange(0, n-1).Draw(t, "peer")}
			o := spec.Op{Func: spec.SendRecv, Count: rapid.Int64Range(0, 1<<26).Draw(t, "bytes"), DataType: spec.Int8}
			ops = append(ops, spec.GroupOp{Op: o, P2P: &p})
			if p.Peer == 0 {
				self[btoi(p.Send)]++
			}
		}
		l.Agg = 1
		g, err := comm.SelectGroup(ops, l)
		if err != nil {
			t.Fatalf("%s: group: %v", c, err)
		}
		if self[0] != self[1] {
			ours := g.Err != nil && g.Err.Result == spec.InvalidUsage && strings.Contains(g.Err.Message, "to self without a matching")
			if !ours && (g.Err == nil || nColl == 0) { // a collective's failure comes first
				t.Fatalf("%s: %d self sends, %d self recvs: group error %v, want ncclInvalidUsage", c, self[1], self[0], g.Err)
			}
			return
		}
		if g.Err != nil {
			return // the collectives' plan failed
		}
		perm := rapid.Permutation(slices.Collect(func(yield func(int) bool) {
			for i := range ops {
				if !yield(i) {
					return
				}
			}
		})).Draw(t, "order")
		shuffled := make([]spec.GroupOp, len(ops))
		for k, i := range perm {
			shuffled[k] = ops[i]
		}
		g2, err := comm.SelectGroup(shuffled, l)
		if err != nil || g2.Err != nil {
			t.Fatalf("%s: reordered group: %v %v", c, err, g2.Err)
		}
		for k, i := range perm {
			o, d := ops[i], g.Ops[i]
			if o.P2P == nil || d.Err != nil || d.Discarded {
				continue
			}
			if d.P2P == nil || len(d.P2P.Tasks) != 1 {
				t.Fatalf("%s: %s %d: tasks %+v, want exactly one", c, o.P2P.Dir(), o.P2P.Peer, d.P2P)
			}
			tk := d.P2P.Tasks[0]
			if tk.Peer != o.P2P.Peer || tk.Dir != o.P2P.Dir() || tk.Bytes != o.Op.Bytes() || len(tk.Channels) < 1 || len(tk.Channels) > pc.NChannelsPerPeer {
				t.Fatalf("%s: %s %d of %d B placed as %+v", c, o.P2P.Dir(), o.P2P.Peer, o.Op.Bytes(), tk)
			}
			// which pass over the schedule placed a task is its place in the
			// group's queue of that peer, which the call order sets
			if diff := cmp.Diff(d.P2P.Tasks, g2.Ops[k].P2P.Tasks, cmpopts.IgnoreFields(tuning.P2PPlaced{}, "Pass")); diff != "" {
				t.Fatalf("%s: %s %d decides differently when the calls are reordered:\n%s", c, o.P2P.Dir(), o.P2P.Peer, diff)
			}
			if o.P2P.Peer == 0 {
				continue // alone it has no matching self call
			}
			alone, err := comm.SelectGroup([]spec.GroupOp{o}, spec.Launch{Mode: l.Mode})
			if err != nil || alone.Err != nil || alone.Ops[0].P2P == nil || len(alone.Ops[0].P2P.Tasks) != 1 {
				t.Fatalf("%s: %s %d alone: %v %v", c, o.P2P.Dir(), o.P2P.Peer, err, alone)
			}
			a := alone.Ops[0].P2P.Tasks[0]
			// the plan and the pass over the schedule that placed it are
			// the group's positions, not the call's decision
			a.Plan, a.Pass = tk.Plan, tk.Pass
			if diff := cmp.Diff(a, tk); diff != "" {
				t.Fatalf("%s: %s %d in the group differs from the call alone:\n%s", c, o.P2P.Dir(), o.P2P.Peer, diff)
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
