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
	split    map[epk][][]int64 // ireducescatter receivers' counts per message
	fault    string            // first bad buffer access
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
	out, ok := m.swCache[key]
	if !ok {
		msgs := make([][]uint64, len(e.Senders))
		for i, from := range e.Senders {
			c := m.conns[fkey{ch, int32(from), p}]
			if c == nil || k >= len(c.msgs) {
				return nil, false
			}
			msgs[i] = c.msgs[k]
		}
		if out, ok = m.combine(p, e.Op, msgs); !ok {
			return nil, false
		}
		m.swCache[key] = out
	}
	if e.Op != algos.EndpointReduceScatter {
		return out, true
	}
	// ireducescatter: this receiver's slice of the reduced window
	off, n, ok := m.splitSlice(ch, p, e, rank, k)
	if !ok || off+n > int64(len(out)) {
		return nil, false
	}
	return out[off : off+n], true
}

// combine is what an endpoint makes of its senders' k-th messages: their
// reduction (in sender order), the multicast sender's message, or their
// concatenation (iallgather).
func (m *machine) combine(p algos.Peer, op algos.EndpointOp, msgs [][]uint64) ([]uint64, bool) {
	if op == algos.EndpointAllGather {
		var out []uint64
		for _, mm := range msgs {
			out = append(out, mm...)
		}
		if out == nil {
			out = []uint64{}
		}
		return out, true
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
		return out, true
	}
	vs := make([]uint64, len(msgs))
	for j := 0; j < n; j++ {
		for i := range msgs {
			vs[i] = msgs[i][j]
		}
		out[j] = m.d.switchReduce(p.Kind == algos.PeerNVLS, vs)
	}
	return out, true
}

// splitSlice is where receiver rank's k-th message from an ireducescatter
// endpoint starts in the reduced window, and its length: the receivers
// take consecutive slices in receiver order, each as long as its own
// receive, so the offset is the sum of the earlier receivers' k-th receive
// counts (read from their programs once per endpoint).
func (m *machine) splitSlice(ch int, p algos.Peer, e algos.Endpoint, rank, k int) (off, n int64, ok bool) {
	key := epk{ch, p}
	counts, done := m.split[key]
	if !done {
		counts = make([][]int64, len(e.Receivers))
		for i, r := range e.Receivers {
			for g := 0; g < m.s.NGroups; g++ {
				for _, st := range m.s.Program(r, ch, g) {
					for j, q := range st.Recv {
						if q == p {
							n := st.Count
							if st.Prim == algos.PrimGather {
								n = st.Pieces[j].Count
							}
							counts[i] = append(counts[i], n)
						}
					}
				}
			}
		}
		m.split[key] = counts
	}
	for i, r := range e.Receivers {
		if k >= len(counts[i]) {
			return 0, 0, false
		}
		if r == rank {
			return off, counts[i][k], true
		}
		off += counts[i][k]
	}
	return 0, 0, false
}

// buffer is the whole user buffer a chunk names.
func (m *machine) buffer(rank int, c algos.Chunk) []uint64 {
	switch c.Buf {
	case algos.BufInput:
		return m.in[rank]
	case algos.BufOutput:
		return m.out[rank]
	}
	m.fault = fmt.Sprintf("rank %d: chunk %s names no buffer", rank, c)
	return nil
}

// read returns the values of a chunk (empty chunks touch nothing, wherever
// they point: NCCL computes offsets past the end for the empty tail chunks
// of a loop). A plain chunk's values are a view of the buffer; a rail
// chunk's are gathered from its node blocks.
func (m *machine) read(rank int, c algos.Chunk) []uint64 {
	if c.Count <= 0 {
		return []uint64{}
	}
	b := m.buffer(rank, c)
	if _, rail := c.RailLocal(); !rail {
		if !m.inBounds(rank, c, b, c.Offset, c.Count) {
			return make([]uint64, c.Count)
		}
		return b[c.Offset : c.Offset+c.Count]
	}
	out := make([]uint64, c.Count)
	m.s.Segments(c, func(at, off, n int64) {
		if m.inBounds(rank, c, b, off, n) {
			copy(out[at:at+n], b[off:off+n])
		}
	})
	return out
}

// write stores vals (len = c.Count) into a chunk.
func (m *machine) write(rank int, c algos.Chunk, vals []uint64) {
	if c.Count <= 0 {
		return
	}
	b := m.buffer(rank, c)
	m.s.Segments(c, func(at, off, n int64) {
		if m.inBounds(rank, c, b, off, n) {
			copy(b[off:off+n], vals[at:at+n])
		}
	})
}

func (m *machine) inBounds(rank int, c algos.Chunk, b []uint64, off, n int64) bool {
	if b == nil {
		return false
	}
	if off < 0 || n < 0 || off+n > int64(len(b)) {
		m.fault = fmt.Sprintf("rank %d: chunk %s outside the %d-unit %s buffer", rank, c, len(b), c.Buf)
		return false
	}
	return true
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
			src := m.read(rank, st.Pieces[i])
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
			vals := make([]uint64, len(recvd[i]))
			for j, v := range recvd[i] {
				if st.PostOp {
					v = m.d.post(v)
				}
				vals[j] = v
			}
			m.write(rank, st.Pieces[i], vals)
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
			src = m.read(rank, st.Src)
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
			m.write(rank, st.Dst, val)
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
			second = append([]uint64(nil), m.read(rank, st.Dst)...)
		default:
			second = m.read(rank, st.Src)
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
			m.write(rank, st.Dst, res)
		}
	case algos.PrimPatCopy:
		src := in
		if src == nil {
			src = m.read(rank, st.Src)
		}
		vals := append([]uint64(nil), src...)
		if dstSlot != nil {
			copy(dstSlot, vals)
		}
		if st.Dst.Buf != algos.BufNone {
			m.write(rank, st.Dst, vals)
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
	m := &machine{s: s, d: d, conns: map[fkey]*conn{}, consumed: map[rkey]int{}, swCache: map[string][]uint64{}, eps: map[epk]algos.Endpoint{}, split: map[epk][][]int64{}}
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
