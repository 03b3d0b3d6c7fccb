package hw

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// kernelExec is fakeExec with gs_replay run in Go, element by element in
// the kernel's order: the host stand-in for the GPUs.
type kernelExec struct{ fakeExec }

func (k kernelExec) LoadKernels(ptx []byte, names ...string) error { return nil }

// mem resolves a fake device pointer (fakeExec.DevicePtr's encoding).
func (k kernelExec) mem(p uint64) []byte {
	l, b, off := int(p>>40), BufID((p>>39)&1), p&(1<<39-1)
	return k.buf(l, b)[off:]
}

func (k kernelExec) Launch(l int, name string, grid, block uint32, args ...uint64) (float64, error) {
	if name != ReplayKernel || len(args) != 3 {
		return 0, fmt.Errorf("fake: kernel %s with %d args", name, len(args))
	}
	table, ntasks, dtOp := k.mem(args[0]), args[1], args[2]
	dt, op := spec.DataType(dtOp>>4), spec.RedOp(dtOp&15)
	size := uint64(dt.Size())
	for t := range ntasks {
		var w [8]uint64
		for i := range w {
			w[i] = binary.LittleEndian.Uint64(table[t*64+uint64(i)*8:])
		}
		nsrc, n := w[6], w[7]
		for i := range n {
			acc := load(k.mem(w[2])[i*size:], dt)
			for s := uint64(1); s < nsrc; s++ {
				acc = fold(acc, load(k.mem(w[2+s])[i*size:], dt), dt, op)
			}
			for _, d := range []uint64{w[0], w[1]} {
				if d != 0 {
					store(k.mem(d)[i*size:], dt, acc)
				}
			}
		}
	}
	return 0.001 * float64(ntasks), nil
}

func load(b []byte, dt spec.DataType) uint64 {
	switch dt.Size() {
	case 1:
		return uint64(b[0])
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func store(b []byte, dt spec.DataType, v uint64) {
	switch dt.Size() {
	case 1:
		b[0] = byte(v)
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// fold is the kernel's gsOp: IEEE float32/float64 or wrapping integers.
func fold(a, b uint64, dt spec.DataType, op spec.RedOp) uint64 {
	switch dt {
	case spec.Float32:
		x, y := math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))
		var r float32
		switch op {
		case spec.Sum:
			r = x + y
		case spec.Prod:
			r = x * y
		case spec.Max:
			r = float32(math.Max(float64(x), float64(y)))
		default:
			r = float32(math.Min(float64(x), float64(y)))
		}
		return uint64(math.Float32bits(r))
	case spec.Int32:
		x, y := int32(a), int32(b)
		var r int32
		switch op {
		case spec.Sum:
			r = x + y
		case spec.Prod:
			r = x * y
		case spec.Max:
			r = max(x, y)
		default:
			r = min(x, y)
		}
		return uint64(uint32(r))
	}
	panic("fake kernel: datatype " + dt.String())
}

// floats32 are n float32 values that keep sums inexact (no NaN, no
// infinity).
func floats32(rng *rand.Rand, n int64) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(rng.NormFloat64()*1000)))
	}
	return b
}

// Replaying Ring and Tree AllReduce (and the other ring collectives)
// through the plan gives, bit for bit, what sim's data plane computes, and
// every step of the schedule runs once.
func TestReplayMatchesSimDataPlane(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		f     spec.Func
		algo  spec.Algo
		proto spec.Proto
		dt    spec.DataType
		op    spec.RedOp
		nodes int
		local int
		bytes int64
	}{
		{spec.AllReduce, spec.Ring, spec.Simple, spec.Float32, spec.Sum, 1, 2, 1 << 20},
		{spec.AllReduce, spec.Tree, spec.Simple, spec.Float32, spec.Sum, 1, 2, 1 << 20},
		{spec.AllReduce, spec.Ring, spec.LL, spec.Float32, spec.Sum, 1, 4, 96 << 10},
		{spec.AllReduce, spec.Tree, spec.LL128, spec.Float32, spec.Sum, 2, 2, 3 << 20},
		{spec.AllReduce, spec.Ring, spec.Simple, spec.Int32, spec.Max, 2, 4, 1<<20 + 4},
		{spec.ReduceScatter, spec.Ring, spec.Simple, spec.Float32, spec.Sum, 1, 4, 1 << 20},
		{spec.AllGather, spec.Ring, spec.LL128, spec.Float32, spec.Sum, 1, 4, 1 << 20},
		{spec.Broadcast, spec.Ring, spec.Simple, spec.Float32, spec.Sum, 1, 4, 1 << 20},
	} {
		name := fmt.Sprintf("%s/%s/%s/%s/%dx%d", c.f, c.algo, c.proto, c.dt, c.nodes, c.local)
		l, err := algos.DefaultLayout(spec.V2_28_9, c.nodes, c.local, 8)
		if err != nil {
			t.Fatal(err)
		}
		n := c.nodes * c.local
		per := int64(c.dt.Size())
		if c.f == spec.AllGather || c.f == spec.ReduceScatter {
			per *= int64(n)
		}
		op := spec.Op{Func: c.f, Count: c.bytes / per, DataType: c.dt, RedOp: c.op}
		s, err := algos.Build(op, algos.Selection{Algo: c.algo, Proto: c.proto, NChannels: algos.Channels(l, c.f, c.algo, c.proto, c.bytes)}, l, algos.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := PlanReplay(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Steps != s.NumSteps() {
			t.Errorf("%s: plan has %d steps, schedule %d", name, p.Steps, s.NumSteps())
		}
		inputs := make([][]byte, n)
		for r := range inputs {
			if c.dt == spec.Float32 && s.Unit == 4 {
				inputs[r] = floats32(rng, s.InputCount())
			} else {
				inputs[r] = make([]byte, s.InputCount()*int64(s.Unit))
				for i := range inputs[r] {
					inputs[r][i] = byte(rng.IntN(256))
				}
			}
		}
		want, err := sim.Execute(s, inputs, nil)
		if err != nil {
			t.Fatalf("%s: sim: %v", name, err)
		}
		ex := kernelExec{fakeExec{newFake(n)}}
		res, err := RunReplay(ex, p, inputs, 4, 128)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for r := range n {
			if !bytes.Equal(res.Output[r], want[r]) {
				t.Errorf("%s: rank %d output differs from sim's data plane", name, r)
			}
		}
		if res.Rounds == 0 || res.Messages == 0 {
			t.Errorf("%s: %d rounds, %d messages", name, res.Rounds, res.Messages)
		}
	}
}

// The bit-for-bit check sees the association of a float sum: the replay
// of a ring running the other way round (same values, other order of
// additions) does not match sim's result for the original ring.
func TestReplayDetectsAnotherOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	l, _ := algos.DefaultLayout(spec.V2_28_9, 1, 4, 2)
	op := spec.Op{Func: spec.AllReduce, Count: 1 << 14, DataType: spec.Float32, RedOp: spec.Sum}
	sel := algos.Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 2}
	s, err := algos.Build(op, sel, l, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rev := *l
	rev.Ring = nil
	for _, ring := range l.Ring {
		r := append([]int(nil), ring...)
		for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
			r[a], r[b] = r[b], r[a]
		}
		rev.Ring = append(rev.Ring, r)
	}
	s2, err := algos.Build(op, sel, &rev, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanReplay(s2)
	if err != nil {
		t.Fatal(err)
	}
	inputs := make([][]byte, 4)
	for r := range inputs {
		inputs[r] = floats32(rng, s.InputCount())
	}
	want, _ := sim.Execute(s, inputs, nil)
	res, err := RunReplay(kernelExec{fakeExec{newFake(4)}}, p, inputs, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	same := true
	for r := range 4 {
		same = same && bytes.Equal(res.Output[r], want[r])
	}
	if same {
		t.Error("the reversed ring's sums equal the original's bit for bit: the check cannot see an order change")
	}
}

func TestPlanReplayRefuses(t *testing.T) {
	l, _ := algos.DefaultLayout(spec.V2_28_9, 1, 4, 2)
	for _, c := range []struct {
		op   spec.Op
		sel  algos.Selection
		opts algos.Options
		want string
	}{
		{spec.Op{Func: spec.AllReduce, Count: 1024, DataType: spec.Float32, RedOp: spec.Avg}, algos.Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 2}, algos.Options{}, "pre- or post"},
		{spec.Op{Func: spec.AllReduce, Count: 1024, DataType: spec.Float32, RedOp: spec.Sum}, algos.Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 2}, algos.Options{InPlace: true}, "in-place"},
	} {
		s, err := algos.Build(c.op, c.sel, l, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := PlanReplay(s); err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%v: %v, want an error mentioning %q", c.op, err, c.want)
		}
	}
}

// A step that reads or writes a rail view (CollNet AllGather/ReduceScatter
// across nodes: pieces of several ranks' blocks) is refused by name.
func TestPlanReplayRefusesRailViews(t *testing.T) {
	text := `gatesim-schedule v1
nccl 2.28.9
op AllGather ncclInt8 ncclSum count=4 root=0 inplace=false
algo Ring Simple
comm ranks=2 nodes=2 local=1 channels=1 groups=1
fifo unit=1 slices=1 stepsperslice=1 stepbytes=524288 nsteps=8
program r0 c0 g0
  0 send n=4 src=in@0+4 send=r1
program r1 c0 g0
  0 recv n=4 dst=out@l0:0+4 recv=r0
`
	s, err := algos.Parse(bytes.NewReader([]byte(text)), "rail.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PlanReplay(s); err == nil || !bytes.Contains([]byte(err.Error()), []byte("rail view")) {
		t.Errorf("rail view: %v, want an error naming it", err)
	}
}

// The embedded replay PTX is the one kernels/README.md records, made from
// the .cu as it stands, with the gs_replay entry the replay launches.
func TestReplayPTXMatchesSource(t *testing.T) {
	readme, err := os.ReadFile("kernels/README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("kernels/gatesim_replay.cu")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"gatesim_replay.cu": src, "gatesim_replay.ptx": ReplayPTX} {
		sum := sha256.Sum256(b)
		if !bytes.Contains(readme, []byte("| "+name+" | "+hex.EncodeToString(sum[:])+" |")) {
			t.Errorf("%s is not the one kernels/README.md records: recompile with the command there", name)
		}
	}
	if !bytes.Contains(ReplayPTX, []byte(".entry gs_replay(")) {
		t.Error("the PTX lacks gs_replay")
	}
	// the task layout the Go side writes is the kernel's struct
	if !bytes.Contains(src, []byte("unsigned long long dst0, dst1;")) || replayTaskBytes != 64 || replayMaxSources != 4 {
		t.Error("gsTask and the Go task layout disagree")
	}
}

// The committed replays (golden/testdata/replay) were bit-exact on the
// GPUs, and describe the schedules the code builds today: same channels,
// rounds, steps and messages.
func TestCommittedReplays(t *testing.T) {
	dir := "../golden/testdata/replay/h200x2-2.28.9"
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	comm, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, spec.Env{"NCCL_NVLS_ENABLE": "0"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := algos.LayoutFromComm(comm)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for file, dt := range map[string]spec.DataType{"replay-f32.json": spec.Float32, "replay-i32.json": spec.Int32, "replay-f64.json": spec.Float64} {
		b, err := os.ReadFile(dir + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			Algo, Proto                       string
			Bytes                             int64
			Channels, Rounds, Steps, Messages int
			BitExact                          bool `json:"bit_exact"`
		}
		if err := json.Unmarshal(b, &rows); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, r := range rows {
			n++
			a, _ := spec.ParseAlgo(r.Algo)
			p, _ := spec.ParseProto(r.Proto)
			op, _ := spec.OpFromBytes(spec.AllReduce, r.Bytes, dt, spec.Sum, 0)
			s, err := algos.Build(op, algos.Selection{Algo: a, Proto: p, NChannels: algos.Channels(l, spec.AllReduce, a, p, r.Bytes)}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pl, err := PlanReplay(s)
			if err != nil {
				t.Fatal(err)
			}
			msgs := 0
			for _, rd := range pl.Rounds {
				for _, m := range rd.Messages {
					if m.N > 0 {
						msgs++
					}
				}
			}
			if !r.BitExact || r.Channels != s.NChannels || r.Rounds != len(pl.Rounds) || r.Steps != pl.Steps || r.Messages != msgs {
				t.Errorf("%s %s/%s %d: recorded bit-exact %v, %d channels, %d rounds, %d steps, %d messages; now %d, %d, %d, %d",
					file, r.Algo, r.Proto, r.Bytes, r.BitExact, r.Channels, r.Rounds, r.Steps, r.Messages, s.NChannels, len(pl.Rounds), pl.Steps, msgs)
			}
		}
	}
	if n != 14 {
		t.Errorf("%d replay rows, want the 14 recorded", n)
	}
}
