package hw

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

func TestValueRanges(t *testing.T) {
	for idx := uint64(0); idx < 5000; idx++ {
		for r := 0; r < 4; r++ {
			if v := Value(7, r, idx, false, false); v < -8 || v > 8 {
				t.Fatalf("signed value %d", v)
			}
			if v := Value(7, r, idx, false, true); v < 0 || v > 16 {
				t.Fatalf("unsigned value %d", v)
			}
			if v := Value(7, r, idx, true, false); v != 1 && v != -1 && v != 2 && v != -2 {
				t.Fatalf("product value %d", v)
			}
			if v := Value(7, r, idx, true, true); v != 1 && v != 2 {
				t.Fatalf("unsigned product value %d", v)
			}
		}
	}
	// Ranks and indices must not share values: rank 1 at i is not rank 0 at i+1.
	same := 0
	for i := uint64(0); i < 1000; i++ {
		if Value(1, 0, i+1, false, false) == Value(1, 1, i, false, false) {
			same++
		}
	}
	if same > 150 {
		t.Errorf("%d of 1000 shifted values equal: the pattern would not catch a shift", same)
	}
}

// The kernel source repeats the formulas: pin the constants both use.
func TestPatternMatchesKernelSource(t *testing.T) {
	src := KernelSource()
	if len(src) == 0 {
		t.Fatal("kernels/gatesim_kernels.cu is not embedded")
	}
	for _, want := range []string{"0x9E3779B1u", "0x85EBCA6Bu", "0xC2B2AE35u", "0x7FEB352Du", "0x846CA68Bu",
		"x ^= x >> 16;", "x ^= x >> 15;", "(i64)(h % 17u) - 8", "(i64)(h % 17u)", "(h & 1u) ? 2 : 1", "(h & 2u)"} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("kernel source lacks %q: hw/pattern.go and the kernels disagree", want)
		}
	}
	// The datatype and redop numbers the kernels switch on are NCCL's.
	re := regexp.MustCompile(`#define GS_([A-Z0-9_]+) (\d+)`)
	want := map[string]int{"INT8": int(spec.Int8), "UINT8": int(spec.Uint8), "INT32": int(spec.Int32), "UINT32": int(spec.Uint32),
		"INT64": int(spec.Int64), "UINT64": int(spec.Uint64), "FLOAT16": int(spec.Float16), "FLOAT32": int(spec.Float32),
		"FLOAT64": int(spec.Float64), "BFLOAT16": int(spec.Bfloat16), "SUM": int(spec.Sum), "PROD": int(spec.Prod),
		"MAX": int(spec.Max), "MIN": int(spec.Min), "AVG": int(spec.Avg),
		"MODE_REDUCE": int(ExpectReduce), "MODE_SINGLE": int(ExpectSingle), "MODE_BLOCK": int(ExpectBlock)}
	seen := 0
	for _, m := range re.FindAllSubmatch(src, -1) {
		if w, ok := want[string(m[1])]; ok {
			seen++
			if string(m[2]) != strconv.Itoa(w) {
				t.Errorf("GS_%s is %s in the kernels, %d in Go", m[1], m[2], w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of %d constants in the kernel source", seen, len(want))
	}
}

func TestHalfConversion(t *testing.T) {
	cases := []struct {
		f float32
		h uint16
	}{{0, 0}, {1, 0x3C00}, {-2, 0xC000}, {65504, 0x7BFF}, {65520, 0x7C00}, {0.5, 0x3800}, {2049, 0x6800}, {2051, 0x6802},
		{float32(math.Inf(-1)), 0xFC00}, {5.960464477539063e-08, 0x0001}, {2.9802322387695312e-08, 0}, {6.103515625e-05, 0x0400}}
	for _, c := range cases {
		if got := float32ToHalf(c.f); got != c.h {
			t.Errorf("half(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	// Every finite half survives half -> float32 -> half.
	for h := 0; h < 1<<16; h++ {
		f := halfToFloat32(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := float32ToHalf(f); back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
	}
}

func TestBfloat16Conversion(t *testing.T) {
	cases := []struct {
		f float32
		h uint16
	}{{1, 0x3F80}, {-8, 0xC100}, {257, 0x4380}, {259, 0x4382}, {0, 0}}
	for _, c := range cases {
		if got := float32ToBfloat16(c.f); got != c.h {
			t.Errorf("bf16(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dt := spec.DataType(rapid.IntRange(int(spec.Int8), int(spec.Bfloat16)).Draw(t, "dt"))
		v := int64(rapid.IntRange(-128, 127).Draw(t, "v"))
		if isUnsigned(dt) {
			v = int64(rapid.IntRange(0, 255).Draw(t, "u"))
		}
		buf := make([]byte, 8)
		encode(dt, v, buf)
		gi, gf := decode(dt, buf[:dt.Size()])
		if dt.IsFloat() {
			if gf != float64(v) {
				t.Fatalf("%s %d decoded as %v", dt, v, gf)
			}
		} else if wrap(gi, dt) != wrap(v, dt) {
			t.Fatalf("%s %d decoded as %d", dt, v, gi)
		}
	})
}

// Want against a brute-force reduction written out per case.
func TestWantIsTheReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "nranks")
		op := spec.RedOp(rapid.IntRange(0, int(spec.Avg)).Draw(t, "op"))
		dt := spec.DataType(rapid.SampledFrom([]int{int(spec.Int8), int(spec.Uint8), int(spec.Int32), int(spec.Float32)}).Draw(t, "dt"))
		j := rapid.Uint64Range(0, 1<<40).Draw(t, "j")
		e := Expect{Mode: ExpectReduce, NRanks: n, RedOp: op}
		want, wantF, approx := e.Want(3, dt, j)
		vals := make([]int64, n)
		for r := range vals {
			vals[r] = Value(3, r, j, op == spec.Prod, isUnsigned(dt))
		}
		var exact int64
		switch op {
		case spec.Sum, spec.Avg:
			for _, v := range vals {
				exact += v
			}
		case spec.Prod:
			exact = 1
			for _, v := range vals {
				exact *= v
			}
		case spec.Max:
			exact = math.MinInt64
			for _, v := range vals {
				exact = max(exact, v)
			}
		case spec.Min:
			exact = math.MaxInt64
			for _, v := range vals {
				exact = min(exact, v)
			}
		}
		switch {
		case op == spec.Avg && dt.IsFloat():
			if !approx || wantF != float64(exact)/float64(n) {
				t.Fatalf("avg %v %v", wantF, approx)
			}
		case op == spec.Avg:
			if want != wrap(exact, dt)/int64(n) {
				t.Fatalf("avg %d, want %d", want, wrap(exact, dt)/int64(n))
			}
		default:
			if want != exact || approx {
				t.Fatalf("%s: want %d, exact %d", op, want, exact)
			}
		}
	})
}

func TestLayoutOfEachCollective(t *testing.T) {
	const n, root, count = 4, 2, 10
	cases := []struct {
		f     spec.Func
		rank  int
		mode  ExpectMode
		src   int
		base  uint64
		block uint64
		check bool
	}{
		{spec.AllReduce, 1, ExpectReduce, 0, 0, 0, true},
		{spec.Reduce, 1, ExpectReduce, 0, 0, 0, false},
		{spec.Reduce, root, ExpectReduce, 0, 0, 0, true},
		{spec.ReduceScatter, 3, ExpectReduce, 0, 30, 0, true},
		{spec.Broadcast, 0, ExpectSingle, root, 0, 0, true},
		{spec.AllGather, 1, ExpectBlock, 0, 0, count, true},
		{spec.AllToAll, 3, ExpectBlock, 0, 30, count, true},
		{spec.SendRecv, 0, ExpectSingle, 3, 0, 0, true},
	}
	for _, c := range cases {
		_, e, ok := Layout(c.f, c.rank, n, root, count, spec.Sum)
		if ok != c.check || ok && (e.Mode != c.mode || e.Src != c.src || e.Base != c.base || e.Block != c.block) {
			t.Errorf("%s rank %d: %+v check=%v", c.f, c.rank, e, ok)
		}
	}
}

// BenchmarkCheckHost is the host fallback's checking speed (bytes of output
// per second), for sizing --host-check runs.
func BenchmarkCheckHost(b *testing.B) {
	const n = 1 << 20
	buf := make([]byte, n*4)
	fillHost(buf, spec.Float32, n, FillSpec{Rank: 0}, 1)
	e := Expect{Mode: ExpectSingle, Src: 0, NRanks: 2}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if w := checkHost(buf, spec.Float32, 0, e, 1); w != 0 {
			b.Fatal(w)
		}
	}
}
