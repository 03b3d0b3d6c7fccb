package sim

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/algos"
)

// domain is what the data plane computes with: real bit patterns
// (Arith) or symbolic expressions (the reference's exprs). The executor
// treats values as opaque.
type domain interface {
	pre(rank int, v uint64) uint64
	reduce(a, b uint64) uint64
	post(v uint64) uint64
	switchReduce(nvls bool, vs []uint64) uint64
}

// realDomain is Arith on bit patterns.
type realDomain struct{ a *Arith }

func (d realDomain) pre(rank int, v uint64) uint64 { return d.a.PreOp(rank, v) }
func (d realDomain) reduce(a, b uint64) uint64     { return d.a.Reduce(a, b) }
func (d realDomain) post(v uint64) uint64          { return d.a.PostOp(v) }
func (d realDomain) switchReduce(nvls bool, vs []uint64) uint64 {
	return d.a.SwitchReduce(nvls, vs)
}

// copyDomain moves bytes without arithmetic (AllGather, Broadcast,
// SendRecv): a reduction or pre/post operation there is a schedule bug.
type copyDomain struct{ bad *string }

func (d copyDomain) pre(rank int, v uint64) uint64 { return v }
func (d copyDomain) post(v uint64) uint64          { return v }
func (d copyDomain) reduce(a, b uint64) uint64 {
	if *d.bad == "" {
		*d.bad = "a copy-only collective reduced two values"
	}
	return a
}
func (d copyDomain) switchReduce(nvls bool, vs []uint64) uint64 {
	if len(vs) != 1 && *d.bad == "" {
		*d.bad = "a copy-only collective reduced values in a switch"
	}
	return vs[0]
}

type fkey struct {
	ch   int
	from int32
	to   algos.Peer
}

type rkey struct {
	ch int
	at int32 // receiver
	pr algos.Peer
}

// conn is one FIFO: whole messages, or PAT's posted slots.
type conn struct {
	msgs  [][]uint64
	slots map[int][]uint64 // PAT: slot index -> contents being filled
	post  int              // PAT: slots posted so far
}

// machine executes a schedule on values of a domain with unbounded FIFOs.
type machine struct {
	s        *algos.Schedule
	d        domain
	in, out  [][]uint64
	conns    map[fkey]*conn
	consumed map[rkey]int
	swCache  map[string][]uint64
	connStep int
	eps      map[epk]algos.Endpoint
	fault    string // first bad buffer access
}

type epk struct {
	ch int
	p  algos.Peer
}

func (m *machine) conn(k fkey) *conn {
	c := m.conns[k]
	if c == nil {
		c = &conn{}
		m.conns[k] = c
	}
	return c
}

func (m *machine) endpoint(ch int, p algos.Peer) algos.Endpoint {
	k := epk{ch, p}
	e, ok := m.eps[k]
	if !ok {
		e = m.s.Endpoint(ch, p)
		m.eps[k] = e
	}
	return e
}

// avail reports whether rank can receive its next message from p (plus
// slot, for PAT), and returns it.
func (m *machine) avail(rank, ch int, p algos.Peer, slot int, pat bool) ([]uint64, bool) {
	k := m.consumed[rkey{ch, int32(rank), p}] + slot
	if p.Kind == algos.PeerRank {
		c := m.conns[fkey{ch, p.ID, p.Back(rank)}]
		if c == nil {
			return nil, false
		}
		if pat {
			if k >= c.post {
				return nil, false
			}
			return c.slots[k], true
		}
		if k >= len(c.msgs) {
			return nil, false
		}
		return c.msgs[k], true
	}
	e := m.endpoint(ch, p)
	if len(e.Senders) == 0 {
		return nil, false
	}
	key := fmt.Sprintf("%d/%d/%d/%d", ch, p.Kind, p.ID, k)
	if v, ok := m.swCache[key]; ok {
		return v, true
	}
	msgs := make([][]uint64, len(e.Senders))
	for i, from := range e.Senders {
		c := m.conns[fkey{ch, int32(from), p}]
		if c == nil || k >= len(c.msgs) {
			return nil, false
		}
		msgs[i] = c.msgs[k]
	}
	n := len(msgs[0])
	for _, mm := range msgs {
		if len(mm) != n {
			return nil, false
		}
	}
	out := make([]uint64, n)
	if p.Kind == algos.PeerMcast {
		copy(out, msgs[0])
	} else {
		vs := make([]uint64, len(msgs))
		for j := 0; j < n; j++ {
			for i := range msgs {
				vs[i] = msgs[i][j]
			}
			out[j] = m.d.switchReduce(p.Kind == algos.PeerNVLS, vs)
		}
	}
	m.swCache[key] = out
	return out, true
}

// buf is the part of a rank's buffer a chunk names (empty chunks touch
// nothing, wherever they point: NCCL computes offsets past the end for the
// empty tail chunks of a loop).
func (m *machine) buf(rank int, c algos.Chunk) []uint64 {
	if c.Count == 0 {
		return []uint64{}
	}
	var b []uint64
	switch c.Buf {
	case algos.BufInput:
		b = m.in[rank]
	case algos.BufOutput:
		b = m.out[rank]
	default:
		m.fault = fmt.Sprintf("rank %d: chunk %s names no buffer", rank, c)
		return make([]uint64, c.Count)
	}
	if c.Offset < 0 || c.Count < 0 || c.Offset+c.Count > int64(len(b)) {
		m.fault = fmt.Sprintf("rank %d: chunk %s outside the %d-unit %s buffer", rank, c, len(b), c.Buf)
		return make([]uint64, max(0, c.Count))
	}
	return b[c.Offset : c.Offset+c.Count]
}

// step runs one step if its data is there.
func (m *machine) step(rank, ch int, st *algos.Step) (bool, error) {
	pat := st.Pat != nil
	slot := 0
	if pat {
		slot = st.Pat.RecvSlot
	}
	recvd := make([][]uint64, len(st.Recv))
	for i, p := range st.Recv {
		v, ok := m.avail(rank, ch, p, slot, pat)
		if !ok {
			return false, nil
		}
		recvd[i] = v
	}
	n := int(st.Count)
	switch st.Prim {
	case algos.PrimPatReduce, algos.PrimPatCopy:
		return true, m.patStep(rank, ch, st, recvd)
	case algos.PrimScatter:
		for i, p := range st.Send {
			src := m.buf(rank, st.Pieces[i])
			msg := make([]uint64, len(src))
			for j, v := range src {
				if st.PreOp {
					v = m.d.pre(rank, v)
				}
				msg[j] = v
			}
			m.send(rank, ch, p, msg)
		}
	case algos.PrimGather:
		for i, p := range st.Recv {
			if len(recvd[i]) != int(st.Pieces[i].Count) {
				return true, fmt.Errorf("gather piece %d: %d values for %d elements", i, len(recvd[i]), st.Pieces[i].Count)
			}
			dst := m.buf(rank, st.Pieces[i])
			for j, v := range recvd[i] {
				if st.PostOp {
					v = m.d.post(v)
				}
				dst[j] = v
			}
			m.consume(rank, ch, p)
		}
		return true, nil
	default:
		for i := range recvd {
			if len(recvd[i]) != n {
				return true, fmt.Errorf("%s receives %d values from %v for %d elements", st.Prim, len(recvd[i]), st.Recv[i], n)
			}
		}
		val := make([]uint64, n)
		var src []uint64
		if st.Prim.ReadsSrc() {
			src = m.buf(rank, st.Src)
		}
		for j := 0; j < n; j++ {
			var acc uint64
			first := true
			if src != nil {
				acc = src[j]
				if st.PreOp {
					acc = m.d.pre(rank, acc)
				}
				first = false
			}
			for i := range recvd {
				if first {
					acc = recvd[i][j]
					first = false
				} else {
					acc = m.d.reduce(acc, recvd[i][j])
				}
			}
			if st.PostOp && st.Prim != algos.PrimSend && st.Prim != algos.PrimScatter {
				acc = m.d.post(acc)
			}
			val[j] = acc
		}
		if st.Prim.WritesDst() {
			copy(m.buf(rank, st.Dst), val)
		}
		if st.Prim.Sends() {
			for _, p := range st.Send {
				m.send(rank, ch, p, val)
			}
		}
	}
	for _, p := range st.Recv {
		m.consume(rank, ch, p)
	}
	return true, nil
}

func (m *machine) send(rank, ch int, p algos.Peer, msg []uint64) {
	c := m.conn(fkey{ch, int32(rank), p})
	c.msgs = append(c.msgs, msg)
}

func (m *machine) consume(rank, ch int, p algos.Peer) {
	m.consumed[rkey{ch, int32(rank), p}]++
}

// patStep executes patReduce / patCopy: regions of FIFO slots that several
// steps fill before one posts them.
func (m *machine) patStep(rank, ch int, st *algos.Step, recvd [][]uint64) error {
	pi := st.Pat
	n := int(st.Count)
	var in []uint64
	if len(recvd) > 0 {
		slotBuf := recvd[0]
		lo := int(pi.RecvOffset)
		if lo+n > len(slotBuf) {
			return fmt.Errorf("%s reads slot region %d+%d beyond the %d written", st.Prim, lo, n, len(slotBuf))
		}
		in = slotBuf[lo : lo+n]
	}
	// destination region
	var dstSlot []uint64
	var sendConn *conn
	if len(st.Send) > 0 {
		sendConn = m.conn(fkey{ch, int32(rank), st.Send[0]})
		if sendConn.slots == nil {
			sendConn.slots = map[int][]uint64{}
		}
		k := sendConn.post + pi.SendSlot
		buf := sendConn.slots[k]
		end := int(pi.SendOffset) + n
		if len(buf) < end {
			nb := make([]uint64, end, max(end, 2*len(buf)))
			copy(nb, buf)
			buf = nb
			sendConn.slots[k] = buf
		}
		dstSlot = buf[pi.SendOffset:end]
	}
	switch st.Prim {
	case algos.PrimPatReduce:
		var second []uint64
		switch {
		case pi.Acc && dstSlot != nil:
			second = append([]uint64(nil), dstSlot...)
		case pi.Acc:
			second = append([]uint64(nil), m.buf(rank, st.Dst)...)
		default:
			second = m.buf(rank, st.Src)
		}
		res := make([]uint64, n)
		for j := 0; j < n; j++ {
			if in != nil {
				res[j] = m.d.reduce(in[j], second[j])
			} else {
				res[j] = second[j]
			}
		}
		if dstSlot != nil {
			copy(dstSlot, res)
		} else {
			copy(m.buf(rank, st.Dst), res)
		}
	case algos.PrimPatCopy:
		src := in
		if src == nil {
			src = m.buf(rank, st.Src)
		}
		vals := append([]uint64(nil), src...)
		if dstSlot != nil {
			copy(dstSlot, vals)
		}
		if st.Dst.Buf != algos.BufNone {
			copy(m.buf(rank, st.Dst), vals)
		}
	}
	if sendConn != nil && pi.PostSend {
		sendConn.post++
	}
	if len(st.Recv) > 0 && pi.PostRecv {
		m.consume(rank, ch, st.Recv[0])
	}
	return nil
}

// run executes every program to the end, round robin, and reports a
// deadlock (a receive that nothing will satisfy) by its steps.
func (m *machine) run() error {
	s := m.s
	type prog struct {
		rank, ch int
		steps    []algos.Step
		pc       int
	}
	var progs []*prog
	for r := 0; r < s.NRanks; r++ {
		for c := 0; c < s.NChannels; c++ {
			for g := 0; g < s.NGroups; g++ {
				if st := s.Program(r, c, g); len(st) > 0 {
					progs = append(progs, &prog{rank: r, ch: c, steps: st})
				}
			}
		}
	}
	for {
		progress, left := false, 0
		for _, p := range progs {
			for p.pc < len(p.steps) {
				ok, err := m.step(p.rank, p.ch, &p.steps[p.pc])
				if err == nil && m.fault != "" {
					err = fmt.Errorf("%s", m.fault)
				}
				if err != nil {
					return fmt.Errorf("rank %d channel %d step %d: %w", p.rank, p.ch, p.pc, err)
				}
				if !ok {
					break
				}
				p.pc++
				progress = true
			}
			if p.pc < len(p.steps) {
				left++
			}
		}
		if left == 0 {
			return nil
		}
		if !progress {
			var stuck []string
			for _, p := range progs {
				if p.pc < len(p.steps) && len(stuck) < 8 {
					stuck = append(stuck, fmt.Sprintf("r%d c%d step %d (%s)", p.rank, p.ch, p.pc, p.steps[p.pc].Prim))
				}
			}
			return fmt.Errorf("deadlock: %d programs wait for data that never comes: %s", left, strings.Join(stuck, ", "))
		}
	}
}

// newMachine lays out the rank buffers (one shared buffer per rank when
// the schedule runs in place) and fills the inputs with initial values.
func newMachine(s *algos.Schedule, d domain, input func(rank int, i int64) uint64, fillOut uint64) *machine {
	m := &machine{s: s, d: d, conns: map[fkey]*conn{}, consumed: map[rkey]int{}, swCache: map[string][]uint64{}, eps: map[epk]algos.Endpoint{}}
	m.connStep = max(1, s.StepBytes/max(1, s.Unit))
	inN, outN := s.InputCount(), s.OutputCount()
	m.in = make([][]uint64, s.NRanks)
	m.out = make([][]uint64, s.NRanks)
	for r := 0; r < s.NRanks; r++ {
		if s.InPlace {
			n := max(inN, outN)
			buf := make([]uint64, n)
			for i := range buf {
				buf[i] = fillOut
			}
			ib, ob := s.InPlaceBases(r)
			m.in[r] = buf[ib : ib+inN]
			m.out[r] = buf[ob : ob+outN]
			for i := range m.in[r] {
				m.in[r][i] = input(r, int64(i))
			}
			// for in-place reductions the output aliases the input: the
			// aliased part keeps the input values until the schedule writes
			continue
		}
		m.in[r] = make([]uint64, inN)
		for i := range m.in[r] {
			m.in[r][i] = input(r, int64(i))
		}
		m.out[r] = make([]uint64, outN)
		for i := range m.out[r] {
			m.out[r][i] = fillOut
		}
	}
	return m
}

// decodeUnits reads little-endian units of size unit.
func decodeUnits(b []byte, unit int) []uint64 {
	out := make([]uint64, len(b)/unit)
	for i := range out {
		var v uint64
		switch unit {
		case 1:
			v = uint64(b[i])
		case 2:
			v = uint64(binary.LittleEndian.Uint16(b[2*i:]))
		case 4:
			v = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		case 8:
			v = binary.LittleEndian.Uint64(b[8*i:])
		}
		out[i] = v
	}
	return out
}

func encodeUnits(vs []uint64, unit int) []byte {
	out := make([]byte, len(vs)*unit)
	for i, v := range vs {
		switch unit {
		case 1:
			out[i] = byte(v)
		case 2:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
		case 4:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
		case 8:
			binary.LittleEndian.PutUint64(out[8*i:], v)
		}
	}
	return out
}
