package algos

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// The canonical text form of a schedule. It is what golden files hold and
// what Parse reads back; Format(Parse(Format(s))) == Format(s).
//
//	gatesim-schedule v1
//	nccl 2.28.9
//	op AllReduce ncclFloat32 ncclSum count=1000 root=0 inplace=false
//	algo Ring Simple
//	comm ranks=4 nodes=1 local=4 channels=2 groups=1
//	fifo unit=4 slices=2 stepsperslice=2 stepbytes=524288 nsteps=8
//	netdev 0,1
//	endpoint c0 nvls0.2 senders=r0,r1,r2,r3 receivers=r2
//	endpoint c1 net0 senders=r0,r2 receivers=r0,r2 op=allgather
//	program r0 c0 g0
//	  0 send n=125 src=in@0+125 send=r1 pre direct
//	  1 recvReduceSend n=125 src=in@375+125 recv=r3 send=r1 pre direct dep=r3.c0.g0.0
//
// netdev lists each channel's network rail (optional; channel c defaults
// to c mod the local ranks). A step line is its index, the primitive, then key=value fields and flags
// in a fixed order: n, src, dst, pieces (chunks joined by ","), recv and
// send (peers joined by ","), the PAT slot fields rslot, roff, sslot, soff
// and flags acc, psend, precv, the flags pre, post, direct, and dep, the
// steps whose sends the receives consume (computed; Parse checks them).
// A chunk is in@<offset>+<count> or out@<offset>+<count>; out@l3:<offset>+<count>
// is a range of local rank 3's rail view (Chunk). An endpoint line ends
// with op=allgather or op=reducescatter when the endpoint does not reduce
// (EndpointOp).
// Programs without steps are omitted. Lines starting with # are comments.
const textMagic = "gatesim-schedule v1"

// String formats the schedule; a schedule whose programs do not match
// send for receive is printed without dependencies.
func (s *Schedule) String() string {
	var b strings.Builder
	if err := s.Format(&b); err != nil {
		b.Reset()
		_ = s.format(&b, nil)
	}
	return b.String()
}

// Format writes the canonical text form, with each step's dependencies. It
// fails when the programs do not match send for receive.
func (s *Schedule) Format(w io.Writer) error {
	deps, err := s.Deps()
	if err != nil {
		return err
	}
	return s.format(w, deps)
}

func (s *Schedule) format(w io.Writer, deps [][][]StepRef) error {
	bw := bufio.NewWriter(w)
	h := &s.Header
	fmt.Fprintln(bw, textMagic)
	fmt.Fprintf(bw, "nccl %s\n", h.Release)
	fmt.Fprintf(bw, "op %s %s %s count=%d root=%d inplace=%t\n", h.Func, h.DataType, h.RedOp, h.Count, h.Root, h.InPlace)
	if h.Reg != tuning.ChunkRegNone {
		fmt.Fprintf(bw, "algo %s %s reg=%s\n", h.Algo, h.Proto, h.Reg)
	} else {
		fmt.Fprintf(bw, "algo %s %s\n", h.Algo, h.Proto)
	}
	fmt.Fprintf(bw, "comm ranks=%d nodes=%d local=%d channels=%d groups=%d\n", h.NRanks, h.NNodes, h.LocalRanks, h.NChannels, h.NGroups)
	fmt.Fprintf(bw, "fifo unit=%d slices=%d stepsperslice=%d stepbytes=%d nsteps=%d\n", h.Unit, h.SlicePerChunk, h.StepPerSlice, h.StepBytes, h.NSteps)
	if h.NChannels > 0 {
		nd := make([]string, h.NChannels)
		for c := range nd {
			nd[c] = strconv.Itoa(s.NetDev(c))
		}
		fmt.Fprintf(bw, "netdev %s\n", strings.Join(nd, ","))
	}
	// endpoints, in channel then peer order
	type ep struct {
		ch int
		p  Peer
	}
	var eps []ep
	seen := map[ep]bool{}
	for pi := 0; pi < h.NRanks*h.NChannels*h.NGroups; pi++ {
		r, c, g := h.progRef(pi)
		for _, st := range s.Program(r, c, g) {
			for _, peers := range [2][]Peer{st.Recv, st.Send} {
				for _, p := range peers {
					if p.Kind != PeerRank && !seen[ep{c, p}] {
						seen[ep{c, p}] = true
						eps = append(eps, ep{c, p})
					}
				}
			}
		}
	}
	slices.SortFunc(eps, func(a, b ep) int {
		if a.ch != b.ch {
			return a.ch - b.ch
		}
		if a.p.Kind != b.p.Kind {
			return int(a.p.Kind) - int(b.p.Kind)
		}
		return int(a.p.ID) - int(b.p.ID)
	})
	for _, e := range eps {
		m := s.Endpoint(e.ch, e.p)
		op := ""
		if m.Op != EndpointReduce {
			op = " op=" + m.Op.String()
		}
		fmt.Fprintf(bw, "endpoint c%d %s senders=%s receivers=%s%s\n", e.ch, e.p.format(h.LocalRanks), rankList(m.Senders), rankList(m.Receivers), op)
	}
	for pi := 0; pi < h.NRanks*h.NChannels*h.NGroups; pi++ {
		r, c, g := h.progRef(pi)
		prog := s.Program(r, c, g)
		if len(prog) == 0 {
			continue
		}
		fmt.Fprintf(bw, "program r%d c%d g%d\n", r, c, g)
		for i := range prog {
			var d []StepRef
			if deps != nil {
				d = deps[pi][i]
			}
			bw.WriteString("  ")
			bw.WriteString(formatStep(i, &prog[i], d, h.LocalRanks))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

func rankList(rs []int) string {
	if len(rs) == 0 {
		return "-"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = "r" + strconv.Itoa(r)
	}
	return strings.Join(parts, ",")
}

func formatStep(i int, st *Step, deps []StepRef, localRanks int) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(i))
	b.WriteByte(' ')
	b.WriteString(st.Prim.String())
	b.WriteString(" n=" + strconv.FormatInt(st.Count, 10))
	if st.Src.Buf != BufNone {
		b.WriteString(" src=" + st.Src.String())
	}
	if st.Dst.Buf != BufNone {
		b.WriteString(" dst=" + st.Dst.String())
	}
	if len(st.Pieces) > 0 {
		parts := make([]string, len(st.Pieces))
		for j, p := range st.Pieces {
			parts[j] = p.String()
		}
		b.WriteString(" pieces=" + strings.Join(parts, ","))
	}
	peers := func(key string, ps []Peer) {
		if len(ps) == 0 {
			return
		}
		parts := make([]string, len(ps))
		for j, p := range ps {
			parts[j] = p.format(localRanks)
		}
		b.WriteString(" " + key + "=" + strings.Join(parts, ","))
	}
	peers("recv", st.Recv)
	peers("send", st.Send)
	if p := st.Pat; p != nil {
		if len(st.Recv) > 0 {
			fmt.Fprintf(&b, " rslot=%d roff=%d", p.RecvSlot, p.RecvOffset)
		}
		if len(st.Send) > 0 {
			fmt.Fprintf(&b, " sslot=%d soff=%d", p.SendSlot, p.SendOffset)
		}
		if p.Acc {
			b.WriteString(" acc")
		}
		if p.PostSend {
			b.WriteString(" psend")
		}
		if p.PostRecv {
			b.WriteString(" precv")
		}
	}
	if st.PreOp {
		b.WriteString(" pre")
	}
	if st.PostOp {
		b.WriteString(" post")
	}
	if st.Direct {
		b.WriteString(" direct")
	}
	if len(deps) > 0 {
		parts := make([]string, len(deps))
		for j, d := range deps {
			parts[j] = d.String()
		}
		b.WriteString(" dep=" + strings.Join(parts, ","))
	}
	return b.String()
}

// parseError names the input and line.
type parseError struct {
	name string
	line int
	msg  string
}

func (e *parseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.name, e.line, e.msg)
}

// maxParseRanks bounds what a text schedule may declare, so a malformed or
// hostile file cannot make Parse allocate without limit.
const maxParseRanks, maxParseChannels, maxParseGroups, maxParsePrograms = 1 << 12, 64, 16, 1 << 16

// Parse reads the canonical text form. name labels errors
// ("name:line: what was expected"). Dependencies, when present, must be the
// ones the programs imply.
func Parse(r io.Reader, name string) (*Schedule, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	lineNo := 0
	fail := func(format string, args ...any) error {
		return &parseError{name, lineNo, fmt.Sprintf(format, args...)}
	}
	var h Header
	have := map[string]bool{}
	var progs [][]Step
	eps := map[int]map[Peer]Endpoint{}
	cur := -1
	type depLine struct {
		prog, idx, line int
		deps            []StepRef
	}
	var givenDeps []depLine
	var netDev []int
	header := func() error {
		for _, k := range []string{"magic", "nccl", "op", "algo", "comm", "fifo"} {
			if !have[k] {
				return fail("missing %q line before the programs", k)
			}
		}
		return nil
	}
	started := false
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if !have["magic"] {
			if line != textMagic {
				return nil, fail("expected %q as the first line", textMagic)
			}
			have["magic"] = true
			continue
		}
		switch f[0] {
		case "nccl":
			if len(f) != 2 {
				return nil, fail("expected: nccl <release>")
			}
			v, err := spec.ParseVersion(f[1])
			if err != nil {
				return nil, fail("%v", err)
			}
			h.Release = v
			have["nccl"] = true
		case "op":
			if len(f) != 7 {
				return nil, fail("expected: op <func> <datatype> <redop> count=<n> root=<r> inplace=<bool>")
			}
			var err error
			if h.Func, err = spec.ParseFunc(f[1]); err != nil {
				return nil, fail("%v", err)
			}
			if h.DataType, err = spec.ParseDataType(f[2]); err != nil {
				return nil, fail("%v", err)
			}
			if h.RedOp, err = spec.ParseRedOp(f[3]); err != nil {
				return nil, fail("%v", err)
			}
			kv, err := keyValues(f[4:], "count", "root", "inplace")
			if err != nil {
				return nil, fail("%v", err)
			}
			if h.Count, err = parseNonNeg(kv["count"], "count"); err != nil {
				return nil, fail("%v", err)
			}
			root, err := parseNonNeg(kv["root"], "root")
			if err != nil {
				return nil, fail("%v", err)
			}
			h.Root = int(root)
			if h.InPlace, err = strconv.ParseBool(kv["inplace"]); err != nil {
				return nil, fail("inplace=%q: expected true or false", kv["inplace"])
			}
			have["op"] = true
		case "algo":
			if len(f) != 3 && len(f) != 4 {
				return nil, fail("expected: algo <algorithm> <protocol> [reg=IPC|NET|NVLS|CollNet]")
			}
			if len(f) == 4 {
				kv, err := keyValues(f[3:], "reg")
				if err != nil {
					return nil, fail("%v", err)
				}
				if h.Reg = tuning.ChunkRegOf(kv["reg"]); h.Reg == tuning.ChunkRegNone {
					return nil, fail("reg=%q: expected IPC, NET, NVLS or CollNet", kv["reg"])
				}
			}
			var err error
			if h.Algo, err = spec.ParseAlgo(f[1]); err != nil {
				return nil, fail("%v", err)
			}
			if h.Proto, err = spec.ParseProto(f[2]); err != nil {
				return nil, fail("%v", err)
			}
			have["algo"] = true
		case "comm":
			kv, err := keyValues(f[1:], "ranks", "nodes", "local", "channels", "groups")
			if err != nil {
				return nil, fail("%v", err)
			}
			lims := map[string]int64{"ranks": maxParseRanks, "nodes": maxParseRanks, "local": 72, "channels": maxParseChannels, "groups": maxParseGroups}
			vals := map[string]int{}
			for k, lim := range lims {
				v, err := parseNonNeg(kv[k], k)
				if err != nil {
					return nil, fail("%v", err)
				}
				if v > lim {
					return nil, fail("%s=%d: at most %d", k, v, lim)
				}
				vals[k] = int(v)
			}
			h.NRanks, h.NNodes, h.LocalRanks, h.NChannels, h.NGroups = vals["ranks"], vals["nodes"], vals["local"], vals["channels"], vals["groups"]
			if h.NRanks == 0 || h.NGroups == 0 || h.NRanks != h.NNodes*h.LocalRanks {
				return nil, fail("ranks=%d nodes=%d local=%d groups=%d: expected ranks = nodes × local > 0 and groups > 0", h.NRanks, h.NNodes, h.LocalRanks, h.NGroups)
			}
			if int64(h.NRanks)*int64(h.NChannels)*int64(h.NGroups) > maxParsePrograms {
				return nil, fail("%d ranks × %d channels × %d groups is more than %d programs", h.NRanks, h.NChannels, h.NGroups, maxParsePrograms)
			}
			have["comm"] = true
		case "fifo":
			kv, err := keyValues(f[1:], "unit", "slices", "stepsperslice", "stepbytes", "nsteps")
			if err != nil {
				return nil, fail("%v", err)
			}
			var vals [5]int
			for i, k := range []string{"unit", "slices", "stepsperslice", "stepbytes", "nsteps"} {
				v, err := parseNonNeg(kv[k], k)
				if err != nil {
					return nil, fail("%v", err)
				}
				if v == 0 || v > 1<<30 {
					return nil, fail("%s=%d: expected a positive value below 2^30", k, v)
				}
				vals[i] = int(v)
			}
			h.Unit, h.SlicePerChunk, h.StepPerSlice, h.StepBytes, h.NSteps = vals[0], vals[1], vals[2], vals[3], vals[4]
			have["fifo"] = true
		case "netdev":
			if len(f) != 2 || have["netdev"] {
				return nil, fail("expected one line: netdev <rail>,<rail>,... (one per channel)")
			}
			for _, t := range strings.Split(f[1], ",") {
				v, err := strconv.Atoi(t)
				if err != nil || v < 0 || v > 63 {
					return nil, fail("netdev %q: expected rails 0-63", t)
				}
				netDev = append(netDev, v)
			}
			have["netdev"] = true
		case "endpoint":
			if err := header(); err != nil {
				return nil, err
			}
			if (len(f) != 5 && len(f) != 6) || !strings.HasPrefix(f[1], "c") {
				return nil, fail("expected: endpoint c<channel> <peer> senders=<ranks> receivers=<ranks> [op=allgather|reducescatter]")
			}
			c, err := strconv.Atoi(f[1][1:])
			if err != nil || c < 0 || c >= h.NChannels {
				return nil, fail("channel %q: expected c0..c%d", f[1], h.NChannels-1)
			}
			p, err := parsePeer(f[2], h.LocalRanks)
			if err != nil {
				return nil, fail("%v", err)
			}
			if p.Kind == PeerRank {
				return nil, fail("endpoint %s: expected an offload endpoint (net, nvls, mcast), not a rank", f[2])
			}
			var e Endpoint
			if len(f) == 6 {
				k, v, _ := strings.Cut(f[5], "=")
				if k != "op" {
					return nil, fail("field %q: expected op=allgather or op=reducescatter", f[5])
				}
				if e.Op, err = parseEndpointOp(v); err != nil {
					return nil, fail("%v", err)
				}
				if p.Kind != PeerNet && e.Op != EndpointReduce {
					return nil, fail("endpoint %s: only a network endpoint (net<head>) gathers or scatters", f[2])
				}
			}
			kv, err := keyValues(f[3:5], "senders", "receivers")
			if err != nil {
				return nil, fail("%v", err)
			}
			if e.Senders, err = parseRankList(kv["senders"], h.NRanks); err != nil {
				return nil, fail("senders: %v", err)
			}
			if e.Receivers, err = parseRankList(kv["receivers"], h.NRanks); err != nil {
				return nil, fail("receivers: %v", err)
			}
			if eps[c] == nil {
				eps[c] = map[Peer]Endpoint{}
			}
			if _, dup := eps[c][p]; dup {
				return nil, fail("endpoint c%d %s given twice", c, f[2])
			}
			eps[c][p] = e
		case "program":
			if err := header(); err != nil {
				return nil, err
			}
			if !started {
				progs = make([][]Step, h.NRanks*h.NChannels*h.NGroups)
				started = true
			}
			if len(f) != 4 {
				return nil, fail("expected: program r<rank> c<channel> g<group>")
			}
			var v [3]int
			for i, pre := range []string{"r", "c", "g"} {
				x, err := strconv.Atoi(strings.TrimPrefix(f[i+1], pre))
				if err != nil || !strings.HasPrefix(f[i+1], pre) || x < 0 {
					return nil, fail("program field %q: expected %s<number>", f[i+1], pre)
				}
				v[i] = x
			}
			if v[0] >= h.NRanks || v[1] >= h.NChannels || v[2] >= h.NGroups {
				return nil, fail("program r%d c%d g%d outside %d ranks, %d channels, %d groups", v[0], v[1], v[2], h.NRanks, h.NChannels, h.NGroups)
			}
			cur = h.progIndex(v[0], v[1], v[2])
			if len(progs[cur]) > 0 {
				return nil, fail("program r%d c%d g%d given twice", v[0], v[1], v[2])
			}
		default:
			if cur < 0 {
				return nil, fail("unexpected %q: expected a header line or \"program r<rank> c<channel> g<group>\"", f[0])
			}
			idx, err := strconv.Atoi(f[0])
			if err != nil || idx != len(progs[cur]) {
				return nil, fail("step index %q: expected %d", f[0], len(progs[cur]))
			}
			st, deps, err := parseStep(f[1:], h.LocalRanks)
			if err != nil {
				return nil, fail("%v", err)
			}
			progs[cur] = append(progs[cur], st)
			if deps != nil {
				givenDeps = append(givenDeps, depLine{cur, idx, lineNo, deps})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parseError{name, lineNo, err.Error()}
	}
	if !have["magic"] {
		return nil, &parseError{name, lineNo, "empty input: expected a schedule"}
	}
	lineNo++
	if err := header(); err != nil {
		return nil, err
	}
	if !started {
		progs = make([][]Step, h.NRanks*h.NChannels*h.NGroups)
	}
	if netDev != nil && len(netDev) != h.NChannels {
		return nil, &parseError{name, lineNo, fmt.Sprintf("netdev lists %d rails for %d channels", len(netDev), h.NChannels)}
	}
	s, err := NewExplicit(h, progs, eps)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.netDev = netDev
	if len(givenDeps) > 0 {
		deps, err := s.Deps()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, g := range givenDeps {
			if !slices.Equal(deps[g.prog][g.idx], g.deps) {
				return nil, &parseError{name, g.line, fmt.Sprintf("dep=%s but the programs make this step wait for %s", refList(g.deps), refList(deps[g.prog][g.idx]))}
			}
		}
	}
	return s, nil
}

func refList(rs []StepRef) string {
	if len(rs) == 0 {
		return "(nothing)"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

func keyValues(fields []string, keys ...string) (map[string]string, error) {
	kv := map[string]string{}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || !slices.Contains(keys, k) {
			return nil, fmt.Errorf("field %q: expected one of %s as key=value", f, strings.Join(keys, ", "))
		}
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("field %q given twice", k)
		}
		kv[k] = v
	}
	for _, k := range keys {
		if _, ok := kv[k]; !ok {
			return nil, fmt.Errorf("missing %s=", k)
		}
	}
	return kv, nil
}

func parseNonNeg(s, what string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s=%q: expected a non-negative integer", what, s)
	}
	return v, nil
}

func parseRankList(s string, nRanks int) ([]int, error) {
	if s == "-" {
		return nil, nil
	}
	var out []int
	for _, t := range strings.Split(s, ",") {
		if !strings.HasPrefix(t, "r") {
			return nil, fmt.Errorf("%q: expected r<rank>", t)
		}
		v, err := strconv.Atoi(t[1:])
		if err != nil || v < 0 || v >= nRanks {
			return nil, fmt.Errorf("%q: expected a rank below %d", t, nRanks)
		}
		out = append(out, v)
	}
	return out, nil
}

func parseChunk(s string) (Chunk, error) {
	bad := fmt.Errorf("chunk %q: expected in@<offset>+<count> or out@<offset>+<count>, with l<local>: before the offset for a rail view", s)
	b, rest, ok := strings.Cut(s, "@")
	if !ok {
		return Chunk{}, bad
	}
	rail := int16(0)
	if v, r, ok := strings.Cut(rest, ":"); ok {
		l, err := strconv.Atoi(strings.TrimPrefix(v, "l"))
		if !strings.HasPrefix(v, "l") || err != nil || l < 0 || l >= 72 {
			return Chunk{}, bad
		}
		rail, rest = int16(l+1), r
	}
	var c Chunk
	switch b {
	case "in":
		c.Buf = BufInput
	case "out":
		c.Buf = BufOutput
	default:
		return Chunk{}, bad
	}
	o, n, ok := strings.Cut(rest, "+")
	if !ok {
		return Chunk{}, bad
	}
	var err1, err2 error
	c.Offset, err1 = strconv.ParseInt(o, 10, 64)
	c.Count, err2 = strconv.ParseInt(n, 10, 64)
	if err1 != nil || err2 != nil || c.Offset < 0 || c.Count < 0 {
		return Chunk{}, bad
	}
	c.Rail = rail
	return c, nil
}

func parseStep(f []string, localRanks int) (Step, []StepRef, error) {
	if len(f) == 0 {
		return Step{}, nil, errors.New("missing primitive")
	}
	prim, err := ParsePrim(f[0])
	if err != nil {
		return Step{}, nil, err
	}
	st := Step{Prim: prim}
	if prim == PrimPatReduce || prim == PrimPatCopy {
		st.Pat = &PatInfo{}
	}
	var deps []StepRef
	seen := map[string]bool{}
	peers := func(v string) ([]Peer, error) {
		var out []Peer
		for _, t := range strings.Split(v, ",") {
			p, err := parsePeer(t, localRanks)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
	hasN := false
	for _, t := range f[1:] {
		k, v, isKV := strings.Cut(t, "=")
		if seen[k] {
			return Step{}, nil, fmt.Errorf("%q given twice", k)
		}
		seen[k] = true
		patOnly := func() error {
			if st.Pat == nil {
				return fmt.Errorf("%q is only for patReduce and patCopy", k)
			}
			return nil
		}
		switch {
		case isKV && k == "n":
			if st.Count, err = parseNonNeg(v, "n"); err != nil {
				return Step{}, nil, err
			}
			hasN = true
		case isKV && k == "src":
			if st.Src, err = parseChunk(v); err != nil {
				return Step{}, nil, err
			}
		case isKV && k == "dst":
			if st.Dst, err = parseChunk(v); err != nil {
				return Step{}, nil, err
			}
		case isKV && k == "pieces":
			for _, c := range strings.Split(v, ",") {
				ch, err := parseChunk(c)
				if err != nil {
					return Step{}, nil, err
				}
				st.Pieces = append(st.Pieces, ch)
			}
		case isKV && k == "recv":
			if st.Recv, err = peers(v); err != nil {
				return Step{}, nil, err
			}
		case isKV && k == "send":
			if st.Send, err = peers(v); err != nil {
				return Step{}, nil, err
			}
		case isKV && (k == "rslot" || k == "sslot" || k == "roff" || k == "soff"):
			if err := patOnly(); err != nil {
				return Step{}, nil, err
			}
			x, err := parseNonNeg(v, k)
			if err != nil {
				return Step{}, nil, err
			}
			if (k == "rslot" || k == "sslot") && x > 1<<20 {
				return Step{}, nil, fmt.Errorf("%s=%d: expected at most %d", k, x, 1<<20)
			}
			switch k {
			case "rslot":
				st.Pat.RecvSlot = int(x)
			case "sslot":
				st.Pat.SendSlot = int(x)
			case "roff":
				st.Pat.RecvOffset = x
			case "soff":
				st.Pat.SendOffset = x
			}
		case isKV && k == "dep":
			for _, d := range strings.Split(v, ",") {
				ref, err := parseStepRef(d)
				if err != nil {
					return Step{}, nil, err
				}
				deps = append(deps, ref)
			}
		case !isKV && (k == "acc" || k == "psend" || k == "precv"):
			if err := patOnly(); err != nil {
				return Step{}, nil, err
			}
			switch k {
			case "acc":
				st.Pat.Acc = true
			case "psend":
				st.Pat.PostSend = true
			case "precv":
				st.Pat.PostRecv = true
			}
		case !isKV && k == "pre":
			st.PreOp = true
		case !isKV && k == "post":
			st.PostOp = true
		case !isKV && k == "direct":
			st.Direct = true
		default:
			return Step{}, nil, fmt.Errorf("unknown step field %q: expected n=, src=, dst=, pieces=, recv=, send=, rslot=, roff=, sslot=, soff=, dep=, acc, psend, precv, pre, post, direct", t)
		}
	}
	if !hasN {
		return Step{}, nil, errors.New("missing n=<count>")
	}
	return st, deps, nil
}
