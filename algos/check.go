package algos

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// StepRef names one step of a schedule: the Index-th step of the program
// of (Rank, Channel, Group).
type StepRef struct {
	Rank, Channel, Group, Index int
}

// String prints r3.c0.g1.12.
func (r StepRef) String() string {
	return "r" + strconv.Itoa(r.Rank) + ".c" + strconv.Itoa(r.Channel) + ".g" + strconv.Itoa(r.Group) + "." + strconv.Itoa(r.Index)
}

func parseStepRef(s string) (StepRef, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 || !strings.HasPrefix(parts[0], "r") || !strings.HasPrefix(parts[1], "c") || !strings.HasPrefix(parts[2], "g") {
		return StepRef{}, fmt.Errorf("bad step reference %q: expected r<rank>.c<channel>.g<group>.<index>", s)
	}
	r, e1 := strconv.Atoi(parts[0][1:])
	c, e2 := strconv.Atoi(parts[1][1:])
	g, e3 := strconv.Atoi(parts[2][1:])
	i, e4 := strconv.Atoi(parts[3])
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil || r < 0 || c < 0 || g < 0 || i < 0 {
		return StepRef{}, fmt.Errorf("bad step reference %q: expected r<rank>.c<channel>.g<group>.<index> with non-negative numbers", s)
	}
	return StepRef{r, c, g, i}, nil
}

// connKey is one FIFO: messages from a sender rank to a receiver rank or an
// offload endpoint on one channel.
type connKey struct {
	ch   int
	from int32
	to   Peer
}

type message struct {
	ref   StepRef
	count int64
}

// Deps matches every receive of an explicit or generated schedule with the
// send(s) it consumes, by executing the programs abstractly with unbounded
// FIFOs. deps[(rank*NChannels+ch)*NGroups+g][i] lists the steps step i
// waits for. It fails, naming the stuck steps, when the programs deadlock or
// leave messages unconsumed, and when message sizes disagree.
func (s *Schedule) Deps() ([][][]StepRef, error) {
	n := s.NRanks * s.NChannels * s.NGroups
	progs := make([][]Step, n)
	for r := 0; r < s.NRanks; r++ {
		for c := 0; c < s.NChannels; c++ {
			for g := 0; g < s.NGroups; g++ {
				progs[s.progIndex(r, c, g)] = s.Program(r, c, g)
			}
		}
	}
	deps := make([][][]StepRef, n)
	for i := range progs {
		deps[i] = make([][]StepRef, len(progs[i]))
	}
	fifo := map[connKey][]message{}
	consumed := map[connKey]int{} // (ch, receiver, peer) -> messages consumed
	pc := make([]int, n)
	eps := map[epKey]Endpoint{}
	endpoint := func(c int, p Peer) Endpoint {
		k := epKey{c, p}
		e, ok := eps[k]
		if !ok {
			e = s.Endpoint(c, p)
			eps[k] = e
		}
		return e
	}
	var errs []string
	// an ireducescatter endpoint's k-th result is sliced among its
	// receivers: their receive counts must add up to the senders' count
	type splitKey struct {
		ch int
		p  Peer
		k  int
	}
	splitGot := map[splitKey]int64{}
	splitWant := map[splitKey]int64{}
	// ready reports whether the i-th receive of st can proceed and which
	// messages it takes.
	type take struct {
		key  connKey
		msgs []message
	}
	tryRecv := func(r, c int, p Peer, slot int) ([]message, bool) {
		ck := connKey{c, int32(r), p}
		k := consumed[ck] + slot
		var senders []int
		switch p.Kind {
		case PeerRank:
			senders = []int{int(p.ID)}
		default:
			senders = endpoint(c, p).Senders
			if len(senders) == 0 {
				return nil, false
			}
		}
		out := make([]message, 0, len(senders))
		for _, from := range senders {
			to := p
			if p.Kind == PeerRank {
				to = p.Back(r)
			}
			q := fifo[connKey{c, int32(from), to}]
			if k >= len(q) {
				return nil, false
			}
			out = append(out, q[k])
		}
		return out, true
	}
	progress := true
	for progress {
		progress = false
		for i := range progs {
			r, c, g := s.progRef(i)
			for pc[i] < len(progs[i]) {
				st := &progs[i][pc[i]]
				var takes []take
				ok := true
				for _, p := range st.Recv {
					msgs, got := tryRecv(r, c, p, st.recvSlot())
					if !got {
						ok = false
						break
					}
					takes = append(takes, take{connKey{c, int32(r), p}, msgs})
				}
				if !ok {
					break
				}
				ref := StepRef{r, c, g, pc[i]}
				for ri, t := range takes {
					want := st.messageCount(ri)
					op := EndpointReduce
					if p := st.Recv[ri]; p.Kind != PeerRank {
						op = endpoint(c, p).Op
					}
					sum := int64(0)
					for _, m := range t.msgs {
						deps[i][pc[i]] = append(deps[i][pc[i]], m.ref)
						sum += m.count
						if st.Pat != nil || op == EndpointAllGather {
							continue
						}
						if m.count != t.msgs[0].count || (op == EndpointReduce && m.count != want) {
							errs = append(errs, fmt.Sprintf("%s receives %d elements from %s but %s sent %d",
								ref, want, st.Recv[ri].format(s.LocalRanks), m.ref, m.count))
						}
					}
					switch op {
					case EndpointAllGather:
						if sum != want {
							errs = append(errs, fmt.Sprintf("%s receives %d elements from %s, which gathers %d", ref, want, st.Recv[ri].format(s.LocalRanks), sum))
						}
					case EndpointReduceScatter:
						k := splitKey{c, st.Recv[ri], consumed[t.key] + st.recvSlot()}
						splitGot[k] += want
						if len(t.msgs) > 0 {
							splitWant[k] = t.msgs[0].count
						}
					}
					if st.consumesMessage() {
						consumed[t.key]++
					}
				}
				if st.sendsMessage() {
					for si, p := range st.Send {
						to := p
						key := connKey{c, int32(r), to}
						fifo[key] = append(fifo[key], message{ref, st.messageCount(si)})
					}
				}
				pc[i]++
				progress = true
			}
		}
	}
	for i := range progs {
		if pc[i] < len(progs[i]) {
			r, c, g := s.progRef(i)
			errs = append(errs, fmt.Sprintf("%s cannot run: %s waits for data that is never sent (deadlock or missing send)",
				StepRef{r, c, g, pc[i]}, progs[i][pc[i]].Prim))
			if len(errs) > 20 {
				break
			}
		}
	}
	for k, got := range splitGot {
		if got != splitWant[k] {
			errs = append(errs, fmt.Sprintf("channel %d: the receivers of %s take %d elements of message %d, which reduces %d",
				k.ch, k.p.format(s.LocalRanks), got, k.k, splitWant[k]))
		}
	}
	// every message must be consumed by every receiver
	for key, q := range fifo {
		switch key.to.Kind {
		case PeerRank:
			got := consumed[connKey{key.ch, key.to.ID, key.to.Back(int(key.from))}]
			if got != len(q) {
				errs = append(errs, fmt.Sprintf("channel %d: r%d sends %d messages to r%d, which receives %d",
					key.ch, key.from, len(q), key.to.ID, got))
			}
		default:
			e := endpoint(key.ch, key.to)
			for _, rcv := range e.Receivers {
				got := consumed[connKey{key.ch, int32(rcv), key.to}]
				if got != len(q) {
					errs = append(errs, fmt.Sprintf("channel %d: r%d sends %d messages to %s, which r%d receives %d times",
						key.ch, key.from, len(q), key.to.format(s.LocalRanks), rcv, got))
				}
			}
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return nil, errors.New("schedule " + s.describe() + ":\n  " + strings.Join(errs, "\n  "))
	}
	return deps, nil
}

// progRef splits a program index.
func (h *Header) progRef(i int) (rank, ch, g int) {
	g = i % h.NGroups
	i /= h.NGroups
	return i / h.NChannels, i % h.NChannels, g
}

func (s *Schedule) describe() string {
	return fmt.Sprintf("%s/%s/%s on %d ranks", s.Func, s.Algo, s.Proto, s.NRanks)
}

// Validate checks the header, every step's fields and buffer ranges, and
// that the programs match send for receive without deadlock (Deps). The
// error lists every problem found, one per line.
func (s *Schedule) Validate() error {
	var errs []string
	h := &s.Header
	if h.NNodes <= 0 || h.LocalRanks <= 0 || h.NRanks != h.NNodes*h.LocalRanks {
		errs = append(errs, fmt.Sprintf("header: %d ranks, %d nodes × %d local ranks: expected nranks = nnodes × localranks", h.NRanks, h.NNodes, h.LocalRanks))
	}
	if h.Count < 0 {
		errs = append(errs, fmt.Sprintf("header: count %d: expected a non-negative count", h.Count))
	}
	if h.DataType < 0 || h.DataType >= spec.NumDataTypes {
		errs = append(errs, fmt.Sprintf("header: unknown datatype %d", h.DataType))
	} else if h.Unit <= 0 || h.DataType.Size()%h.Unit != 0 {
		errs = append(errs, fmt.Sprintf("header: unit %d bytes does not divide the %d-byte %s", h.Unit, h.DataType.Size(), h.DataType))
	}
	if h.SlicePerChunk <= 0 || h.StepPerSlice <= 0 || h.NSteps <= 0 || h.StepBytes <= 0 {
		errs = append(errs, "header: slice geometry must be positive (slices per chunk, steps per slice, step bytes, FIFO depth)")
	}
	if h.NGroups <= 0 || h.NChannels < 0 {
		errs = append(errs, fmt.Sprintf("header: %d channels and %d groups: expected at least one group", h.NChannels, h.NGroups))
	}
	if len(errs) > 0 {
		return errors.New("schedule: " + strings.Join(errs, "; "))
	}
	inN, outN := h.InputCount(), h.OutputCount()
	if h.InPlace {
		inN = max(inN, outN)
		outN = inN
	}
	checkChunk := func(ref StepRef, what string, c Chunk) {
		if c.Buf == BufNone || (c.Count == 0 && c.Offset >= 0 && c.Buf <= BufOutput && c.Rail >= 0) {
			return // an empty range touches nothing
		}
		lim := inN
		if c.Buf == BufOutput {
			lim = outN
		}
		if c.Buf != BufInput && c.Buf != BufOutput {
			errs = append(errs, fmt.Sprintf("%s: %s: unknown buffer %d", ref, what, c.Buf))
			return
		}
		if l, ok := c.RailLocal(); ok || c.Rail < 0 {
			// a rail view covers nNodes blocks of the per-rank count, and
			// needs a buffer of nRanks blocks to map them into
			blk := h.Count * h.unitsPerElem()
			if !ok || l >= h.LocalRanks || lim < int64(h.NRanks)*blk {
				errs = append(errs, fmt.Sprintf("%s: %s %s: a rail view needs a local rank below %d and a buffer of %d ranks' blocks", ref, what, c, h.LocalRanks, h.NRanks))
				return
			}
			if c.Offset < 0 || c.Count < 0 || c.End() > int64(h.NNodes)*blk {
				errs = append(errs, fmt.Sprintf("%s: %s %s outside the %d-unit rail view (%d nodes × %d)", ref, what, c, int64(h.NNodes)*blk, h.NNodes, blk))
			}
			return
		}
		if c.Offset < 0 || c.Count < 0 || c.End() > lim {
			errs = append(errs, fmt.Sprintf("%s: %s %s outside the %d-unit %s buffer", ref, what, c, lim, c.Buf))
		}
	}
	checkPeer := func(ref StepRef, p Peer) {
		switch p.Kind {
		case PeerRank:
			if p.ID < 0 || int(p.ID) >= h.NRanks {
				errs = append(errs, fmt.Sprintf("%s: peer r%d outside %d ranks", ref, p.ID, h.NRanks))
			}
		case PeerNet:
			if p.ID < 0 || int(p.ID) >= h.LocalRanks {
				errs = append(errs, fmt.Sprintf("%s: net%d: head index outside %d local ranks", ref, p.ID, h.LocalRanks))
			}
		case PeerNVLS, PeerMcast:
			if p.ID < 0 || int(p.ID) >= h.NRanks {
				errs = append(errs, fmt.Sprintf("%s: %s outside %d nodes", ref, p.format(h.LocalRanks), h.NNodes))
			}
		default:
			errs = append(errs, fmt.Sprintf("%s: unknown peer kind %d", ref, p.Kind))
		}
	}
	for pi := 0; pi < h.NRanks*h.NChannels*h.NGroups; pi++ {
		r, c, g := s.progRef(pi)
		{
			for i, st := range s.Program(r, c, g) {
				ref := StepRef{r, c, g, i}
				if st.Prim >= numPrims {
					errs = append(errs, fmt.Sprintf("%s: unknown primitive %d", ref, st.Prim))
					continue
				}
				if st.Count < 0 {
					errs = append(errs, fmt.Sprintf("%s: negative count %d", ref, st.Count))
				}
				if (st.Pat != nil) != (st.Prim == PrimPatReduce || st.Prim == PrimPatCopy) {
					errs = append(errs, fmt.Sprintf("%s: %s with PAT slot information %v", ref, st.Prim, st.Pat != nil))
				}
				if st.Prim.Receives() != (len(st.Recv) > 0) && st.Pat == nil {
					errs = append(errs, fmt.Sprintf("%s: %s with %d receive peers", ref, st.Prim, len(st.Recv)))
				}
				if st.Prim.Sends() != (len(st.Send) > 0) && st.Pat == nil {
					errs = append(errs, fmt.Sprintf("%s: %s with %d send peers", ref, st.Prim, len(st.Send)))
				}
				for _, p := range st.Recv {
					checkPeer(ref, p)
				}
				for _, p := range st.Send {
					checkPeer(ref, p)
				}
				switch st.Prim {
				case PrimScatter:
					if len(st.Pieces) != len(st.Send) {
						errs = append(errs, fmt.Sprintf("%s: scatter with %d pieces for %d peers", ref, len(st.Pieces), len(st.Send)))
					}
				case PrimGather:
					if len(st.Pieces) != len(st.Recv) {
						errs = append(errs, fmt.Sprintf("%s: gather with %d pieces for %d peers", ref, len(st.Pieces), len(st.Recv)))
					}
				case PrimPatReduce, PrimPatCopy:
					if len(st.Recv) > 1 || len(st.Send) > 1 {
						errs = append(errs, fmt.Sprintf("%s: %s with %d receive and %d send peers: expected at most one each", ref, st.Prim, len(st.Recv), len(st.Send)))
					}
				default:
					if st.Prim.ReadsSrc() && (st.Src.Buf == BufNone || st.Src.Count != st.Count) {
						errs = append(errs, fmt.Sprintf("%s: %s reads %s: expected %d units", ref, st.Prim, st.Src, st.Count))
					}
					if st.Prim.WritesDst() && (st.Dst.Buf == BufNone || st.Dst.Count != st.Count) {
						errs = append(errs, fmt.Sprintf("%s: %s writes %s: expected %d units", ref, st.Prim, st.Dst, st.Count))
					}
				}
				checkChunk(ref, "src", st.Src)
				checkChunk(ref, "dst", st.Dst)
				for _, pc := range st.Pieces {
					checkChunk(ref, "piece", pc)
				}
				if len(errs) > 40 {
					break
				}
			}
		}
	}
	if len(errs) > 0 {
		return errors.New("schedule " + s.describe() + ":\n  " + strings.Join(errs, "\n  "))
	}
	_, err := s.Deps()
	return err
}
