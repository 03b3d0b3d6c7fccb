package hw

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// A replay runs an algos schedule on the GPUs in rounds. In each round every
// (rank, channel, group) program whose next step has its messages delivered
// runs that one step: a task on its GPU folds the step's sources in the
// schedule's order (its own data, then each received message) into its
// destination and its outgoing message; then one NCCL group of
// ncclSend/ncclRecv delivers the round's messages. NCCL overlaps these
// phases and pipelines steps; the replay does not, so its time is an upper
// bound of the schedule's, and every step can be timed and checked.
//
// Memory per rank: the send buffer is the user input; the receive buffer
// holds the user output, then the round's task table, then the outgoing
// messages of one round, then every incoming message (never reused, so a
// message waits in place until its step runs).

// ReplayPlan is a schedule cut into rounds, with every buffer offset fixed.
type ReplayPlan struct {
	Header algos.Header
	Rounds []ReplayRound
	// Byte layout of every rank's receive buffer.
	OutputBytes, TaskOffset, TaskBytes, OutgoingOffset, OutgoingBytes, IncomingOffset, IncomingBytes uint64
	// Steps counts the schedule's steps, all of which run once.
	Steps int
}

// ReplayRound is one round: the tasks per rank, then the messages.
type ReplayRound struct {
	Tasks    [][]ReplayTask // per rank
	Messages []ReplayMessage
}

// ReplayTask folds Src[0] op Src[1] op ... into Dst0 and Dst1 (either may
// be unset), N elements.
type ReplayTask struct {
	Dst0, Dst1 BufRef
	Src        []BufRef
	N          uint64
}

// BufRef is a byte offset into one of a rank's two buffers; Set is false
// for "no destination".
type BufRef struct {
	Set    bool
	Buf    BufID
	Offset uint64
	area   uint8 // while planning: 0 user buffer, areaOutgoing, areaIncoming
}

const (
	areaOutgoing = 1
	areaIncoming = 2
)

// ReplayMessage moves N elements from the sender's outgoing slot to the
// receiver's incoming slot.
type ReplayMessage struct {
	From, To     int
	FromOff      uint64 // in the sender's receive buffer
	ToOff        uint64 // in the receiver's receive buffer
	N            uint64
	Step         string // the sending step, for reports
	FromChannel  int
	fifo         fifoKey
	deliveredRnd int
}

type fifoKey struct {
	ch       int
	from, to int
	conn     uint8
}

// PlanReplay cuts a schedule into rounds. It takes schedules whose steps
// talk to ranks only (Ring, Tree, send/recv; not the NVLS or CollNet
// switches, not PAT's slot sharing, not Scatter/Gather), out of place, with
// reductions that have no pre- or post-operation (sum, prod, max, min).
func PlanReplay(s *algos.Schedule) (*ReplayPlan, error) {
	h := s.Header
	switch {
	case h.InPlace:
		return nil, fmt.Errorf("replay: in-place schedules are not replayed (the output would alias the input while steps still read it)")
	case h.RedOp == spec.Avg || h.RedOp == spec.PreMulSum:
		return nil, fmt.Errorf("replay: %s needs a pre- or post-operation; replay takes sum, prod, max and min", h.RedOp)
	case h.Unit != h.DataType.Size() && h.Func != spec.AllGather && h.Func != spec.Broadcast:
		return nil, fmt.Errorf("replay: schedule unit %d for %s", h.Unit, h.DataType)
	}
	unit := uint64(h.Unit)
	type prog struct {
		rank, ch int
		steps    []algos.Step
		pc       int
	}
	var progs []*prog
	total := 0
	for r := 0; r < h.NRanks; r++ {
		for c := 0; c < h.NChannels; c++ {
			for g := 0; g < h.NGroups; g++ {
				st := s.Program(r, c, g)
				for i := range st {
					if err := replayable(&st[i]); err != nil {
						return nil, fmt.Errorf("replay: rank %d channel %d step %d (%s): %w", r, c, i, st[i].Prim, err)
					}
				}
				total += len(st)
				if len(st) > 0 {
					progs = append(progs, &prog{rank: r, ch: c, steps: st})
				}
			}
		}
	}
	p := &ReplayPlan{Header: h, Steps: total}
	p.OutputBytes = uint64(h.OutputCount()) * unit
	// FIFOs of delivered messages per connection: the incoming offsets
	fifo := map[fifoKey][]uint64{}
	incoming := make([]uint64, h.NRanks)
	var maxTasks int
	var maxOut uint64
	done := 0
	for done < total {
		rd := ReplayRound{Tasks: make([][]ReplayTask, h.NRanks)}
		outgoing := make([]uint64, h.NRanks)
		ran := 0
		for _, pg := range progs {
			if pg.pc >= len(pg.steps) {
				continue
			}
			st := &pg.steps[pg.pc]
			ready := true
			for _, peer := range st.Recv {
				if len(fifo[fifoKey{pg.ch, int(peer.ID), pg.rank, peer.Conn}]) == 0 {
					ready = false
				}
			}
			if !ready {
				continue
			}
			t := ReplayTask{N: uint64(st.Count)}
			if st.Prim.ReadsSrc() && st.Count > 0 {
				t.Src = append(t.Src, chunkRef(st.Src, unit))
			}
			for _, peer := range st.Recv {
				k := fifoKey{pg.ch, int(peer.ID), pg.rank, peer.Conn}
				t.Src = append(t.Src, BufRef{Set: true, Buf: RecvBuf, Offset: fifo[k][0], area: areaIncoming})
				fifo[k] = fifo[k][1:]
			}
			if st.Prim.WritesDst() && st.Count > 0 {
				t.Dst0 = chunkRef(st.Dst, unit)
			}
			if st.Prim.Sends() && len(st.Send) > 0 {
				off := outgoing[pg.rank]
				outgoing[pg.rank] += t.N * unit
				t.Dst1 = BufRef{Set: true, Buf: RecvBuf, Offset: off, area: areaOutgoing}
				for _, peer := range st.Send {
					to := int(peer.ID)
					rd.Messages = append(rd.Messages, ReplayMessage{From: pg.rank, To: to, FromOff: off, ToOff: incoming[to], N: t.N,
						Step: st.Prim.String(), FromChannel: pg.ch, fifo: fifoKey{pg.ch, pg.rank, to, peer.Back(pg.rank).Conn}})
					incoming[to] += t.N * unit
				}
			}
			if t.N > 0 && len(t.Src) > 0 && (t.Dst0.Set || t.Dst1.Set) {
				rd.Tasks[pg.rank] = append(rd.Tasks[pg.rank], t)
			}
			pg.pc++
			ran++
		}
		if ran == 0 {
			return nil, fmt.Errorf("replay: round %d: no program can run (a receive waits for a message no step sends)", len(p.Rounds))
		}
		done += ran
		for r := range rd.Tasks {
			maxTasks = max(maxTasks, len(rd.Tasks[r]))
			maxOut = max(maxOut, outgoing[r])
		}
		// the messages arrive after the round
		for _, m := range rd.Messages {
			fifo[m.fifo] = append(fifo[m.fifo], m.ToOff)
		}
		p.Rounds = append(p.Rounds, rd)
	}
	// lay out the receive buffer and turn area-relative offsets absolute
	align := func(x uint64) uint64 { return (x + 255) &^ 255 }
	p.TaskOffset = align(p.OutputBytes)
	p.TaskBytes = uint64(maxTasks) * replayTaskBytes
	p.OutgoingOffset = align(p.TaskOffset + p.TaskBytes)
	p.OutgoingBytes = maxOut
	p.IncomingOffset = align(p.OutgoingOffset + p.OutgoingBytes)
	for _, n := range incoming {
		p.IncomingBytes = max(p.IncomingBytes, n)
	}
	for ri := range p.Rounds {
		rd := &p.Rounds[ri]
		for r := range rd.Tasks {
			for ti := range rd.Tasks[r] {
				t := &rd.Tasks[r][ti]
				for _, b := range append([]*BufRef{&t.Dst0, &t.Dst1}, srcRefs(t)...) {
					switch b.area {
					case areaOutgoing:
						b.Offset += p.OutgoingOffset
					case areaIncoming:
						b.Offset += p.IncomingOffset
					}
					b.area = 0
				}
			}
		}
		for mi := range rd.Messages {
			rd.Messages[mi].FromOff += p.OutgoingOffset
			rd.Messages[mi].ToOff += p.IncomingOffset
		}
	}
	return p, nil
}

func srcRefs(t *ReplayTask) []*BufRef {
	out := make([]*BufRef, len(t.Src))
	for i := range t.Src {
		out[i] = &t.Src[i]
	}
	return out
}

// replayTaskBytes is sizeof(gsTask) in gatesim_replay.cu.
const replayTaskBytes = 64

// replayMaxSources is gsTask's src[] length.
const replayMaxSources = 4

func chunkRef(c algos.Chunk, unit uint64) BufRef {
	b := SendBuf
	if c.Buf == algos.BufOutput {
		b = RecvBuf
	}
	return BufRef{Set: true, Buf: b, Offset: uint64(c.Offset) * unit}
}

func replayable(st *algos.Step) error {
	switch st.Prim {
	case algos.PrimScatter, algos.PrimGather, algos.PrimPatReduce, algos.PrimPatCopy:
		return fmt.Errorf("%s is not replayed", st.Prim)
	}
	for _, peers := range [2][]algos.Peer{st.Recv, st.Send} {
		for _, p := range peers {
			if p.Kind != algos.PeerRank {
				return fmt.Errorf("a switch (NVLS or CollNet) step is not replayed")
			}
		}
	}
	for _, c := range append([]algos.Chunk{st.Src, st.Dst}, st.Pieces...) {
		if _, rail := c.RailLocal(); rail {
			return fmt.Errorf("a rail view (CollNet AllGather/ReduceScatter across nodes) is not replayed")
		}
	}
	n := len(st.Recv)
	if st.Prim.ReadsSrc() {
		n++
	}
	if n > replayMaxSources {
		return fmt.Errorf("%d sources: the replay kernel folds at most %d", n, replayMaxSources)
	}
	return nil
}
