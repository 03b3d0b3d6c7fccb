package hw

import (
	"math"

	"github.com/gatesim/gatesim/spec"
)

// The data pattern of hw run's result checks. Rank r holds Value(seed, r, i)
// at element i of its send buffer: a small integer, so that every sum,
// product, maximum and minimum over a few ranks is exact in every datatype
// and the expected output is a formula, not a second copy of the data.
// kernels/gatesim_kernels.cu computes the same formulas on the device
// (gs_hash, gs_value, gs_check); the two must change together.

// Hash is gs_hash: a 32-bit mix of the seed, the rank and the element index.
func Hash(seed, rank uint32, idx uint64) uint32 {
	x := uint32(idx) ^ (uint32(idx>>32) * 0x9E3779B1)
	x ^= seed*0x85EBCA6B + rank*0xC2B2AE35
	x ^= x >> 16
	x *= 0x7FEB352D
	x ^= x >> 15
	x *= 0x846CA68B
	x ^= x >> 16
	return x
}

// Value is gs_value: -8..8 (0..16 for unsigned types), or +-1/+-2 (1/2
// unsigned) when the buffer feeds a product, so that 2^nranks stays exact.
func Value(seed uint32, rank int, idx uint64, prod, unsigned bool) int64 {
	h := Hash(seed, uint32(rank), idx)
	if prod {
		v := int64(1)
		if h&1 != 0 {
			v = 2
		}
		if !unsigned && h&2 != 0 {
			v = -v
		}
		return v
	}
	if unsigned {
		return int64(h % 17)
	}
	return int64(h%17) - 8
}

func isUnsigned(dt spec.DataType) bool {
	return dt == spec.Uint8 || dt == spec.Uint32 || dt == spec.Uint64
}

// Supported reports whether the check kernels know datatype dt (fp8 is not
// checked: its few mantissa bits make the exact-integer pattern useless).
func checkable(dt spec.DataType) bool { return dt >= spec.Int8 && dt <= spec.Bfloat16 }

// ExpectMode says what an output element holds (gs_check's mode).
type ExpectMode int

const (
	// ExpectReduce: the reduction over all ranks of element Base+j.
	ExpectReduce ExpectMode = 0
	// ExpectSingle: element Base+j of rank Src.
	ExpectSingle ExpectMode = 1
	// ExpectBlock: element Base+j%Block of rank j/Block.
	ExpectBlock ExpectMode = 2
)

// Expect describes one rank's output buffer for the check.
type Expect struct {
	Mode   ExpectMode
	Src    int    // ExpectSingle: the rank the data comes from
	Base   uint64 // first element index in the source ranks' numbering
	Block  uint64 // ExpectBlock: elements per source rank
	NRanks int
	RedOp  spec.RedOp
}

// FillSpec is what one rank writes into its send buffer before the op.
type FillSpec struct {
	Rank int
	Base uint64
	Prod bool
}

// Layout returns, for collective f on rank `rank` of nranks with count
// elements per NCCL call (the API's count), what to fill and what to
// expect; check is false where the output is not defined (Reduce on a
// non-root rank).
func Layout(f spec.Func, rank, nranks, root int, count uint64, op spec.RedOp) (fill FillSpec, exp Expect, check bool) {
	fill = FillSpec{Rank: rank, Prod: op == spec.Prod}
	exp = Expect{NRanks: nranks, RedOp: op}
	switch f {
	case spec.AllReduce:
		exp.Mode = ExpectReduce
		return fill, exp, true
	case spec.Reduce:
		exp.Mode = ExpectReduce
		return fill, exp, rank == root
	case spec.ReduceScatter:
		exp.Mode, exp.Base = ExpectReduce, uint64(rank)*count
		return fill, exp, true
	case spec.Broadcast:
		fill.Prod = false
		exp.Mode, exp.Src = ExpectSingle, root
		return fill, exp, true
	case spec.AllGather:
		fill.Prod = false
		exp.Mode, exp.Block = ExpectBlock, count
		return fill, exp, true
	case spec.AllToAll:
		fill.Prod = false
		exp.Mode, exp.Block, exp.Base = ExpectBlock, count, uint64(rank)*count
		return fill, exp, true
	case spec.SendRecv:
		fill.Prod = false
		exp.Mode, exp.Src = ExpectSingle, (rank-1+nranks)%nranks
		return fill, exp, true
	}
	return fill, exp, false
}

// wrap reduces an exact integer to what datatype dt holds after two's
// complement wrapping (gs_wrap).
func wrap(v int64, dt spec.DataType) int64 {
	switch dt {
	case spec.Int8:
		return int64(int8(v))
	case spec.Uint8:
		return int64(uint8(v))
	case spec.Int32:
		return int64(int32(v))
	case spec.Uint32:
		return int64(uint32(v))
	}
	return v
}

// Want returns the expected value of output element j: exact (an integer)
// unless approx, in which case wantF holds the exact quotient of a
// floating-point Avg and the result is compared within Tolerance.
func (e Expect) Want(seed uint32, dt spec.DataType, j uint64) (want int64, wantF float64, approx bool) {
	uns := isUnsigned(dt)
	switch e.Mode {
	case ExpectSingle:
		return Value(seed, e.Src, e.Base+j, false, uns), 0, false
	case ExpectBlock:
		return Value(seed, int(j/e.Block), e.Base+j%e.Block, false, uns), 0, false
	}
	prod := e.RedOp == spec.Prod
	acc := Value(seed, 0, e.Base+j, prod, uns)
	for r := 1; r < e.NRanks; r++ {
		v := Value(seed, r, e.Base+j, prod, uns)
		switch e.RedOp {
		case spec.Prod:
			acc = int64(uint64(acc) * uint64(v))
		case spec.Max:
			acc = max(acc, v)
		case spec.Min:
			acc = min(acc, v)
		default:
			acc += v
		}
	}
	if e.RedOp == spec.Avg {
		if dt.IsFloat() {
			return 0, float64(acc) / float64(e.NRanks), true
		}
		acc = wrap(acc, dt) / int64(e.NRanks) // SumPostDiv truncates toward zero
	}
	return acc, 0, false
}

// epsilon is the spacing of 1.0 in each floating-point type, as gs_check uses.
func epsilon(dt spec.DataType) float64 {
	switch dt {
	case spec.Float16:
		return 1.0 / 1024
	case spec.Bfloat16:
		return 1.0 / 128
	case spec.Float32:
		return 1.0 / 8388608
	}
	return 1.0 / 4503599627370496.0
}

// Matches reports whether got (the element as a float64 for floating-point
// types, or its wrapped integer value) is what Want said.
func (e Expect) Matches(dt spec.DataType, want int64, wantF float64, approx bool, gotI int64, gotF float64) bool {
	if !dt.IsFloat() {
		return wrap(gotI, dt) == wrap(want, dt) || (dt == spec.Uint64 || dt == spec.Int64) && gotI == want
	}
	if approx {
		return math.Abs(gotF-wantF) <= epsilon(dt)*(8*float64(e.NRanks)+math.Abs(wantF))
	}
	return gotF == float64(want)
}
