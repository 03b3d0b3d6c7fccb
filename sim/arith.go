package sim

import (
	"fmt"
	"math"

	"github.com/gatesim/gatesim/spec"
)

// Arith is the arithmetic of one (datatype, reduction) pair on element bit
// patterns, as NCCL's device code performs it (src/device/reduce_kernel.h at
// v2.28.9-1):
//
//   - Sum and Prod wrap for integers and round once per operation for
//     floats; float16 and bfloat16 round their result to their own
//     precision (__hadd, __hmul; computing in float32 and rounding once is
//     exact for these widths), fp8 computes in half precision and converts
//     back with saturation (__nv_fp8_e4m3(__hadd(__half(x), __half(y)))).
//   - Min and Max ignore NaNs and order -0 below +0 (fminf, fmaxf, __hmin,
//     __hmax); integers compare with their sign.
//   - Avg on integers is a wrapping sum divided by nRanks at the end, the
//     quotient truncated toward zero (FuncSumPostDiv); on floats it is a
//     PreMulSum by 1/nRanks converted to the datatype (hostToDevRedOp).
//   - PreMulSum multiplies each rank's own contribution by that rank's
//     scalar as it enters the reduction, then sums.
//
// Values are bit patterns in uint64 (zero-extended).
type Arith struct {
	DataType spec.DataType
	RedOp    spec.RedOp
	NRanks   int
	// Scalars are the PreMulSum scalars per rank as bit patterns of the
	// datatype (ncclRedOpCreatePreMulSum); for Avg on floats they are all
	// 1/nRanks.
	Scalars []uint64
	devOp   devOp
}

type devOp int

const (
	devSum devOp = iota
	devProd
	devMinMax
	devPreMulSum
	devSumPostDiv
)

// NewArith sets up the arithmetic; scalars are needed for PreMulSum (one
// per rank, values of the datatype as float64 for float types or integers).
func NewArith(dt spec.DataType, op spec.RedOp, nRanks int, scalars []float64) (*Arith, error) {
	if dt < 0 || dt >= spec.NumDataTypes {
		return nil, fmt.Errorf("arith: unknown datatype %d", dt)
	}
	a := &Arith{DataType: dt, RedOp: op, NRanks: nRanks}
	switch op {
	case spec.Sum:
		a.devOp = devSum
	case spec.Prod:
		a.devOp = devProd
	case spec.Min, spec.Max:
		a.devOp = devMinMax
	case spec.Avg:
		if dt.IsFloat() {
			a.devOp = devPreMulSum
			s := avgScalar(dt, nRanks)
			a.Scalars = make([]uint64, nRanks)
			for i := range a.Scalars {
				a.Scalars[i] = s
			}
		} else {
			a.devOp = devSumPostDiv
		}
	case spec.PreMulSum:
		a.devOp = devPreMulSum
		if len(scalars) != nRanks {
			return nil, fmt.Errorf("arith: PreMulSum needs one scalar per rank, have %d for %d ranks", len(scalars), nRanks)
		}
		a.Scalars = make([]uint64, nRanks)
		for i, s := range scalars {
			a.Scalars[i] = a.FromFloat(s)
		}
	default:
		return nil, fmt.Errorf("arith: unknown reduction %d", op)
	}
	return a, nil
}

// avgScalar is hostToDevRedOp's 1/nRanks: double → float → datatype for
// half, bfloat16 and fp8; float(1/n) for float; 1/n for double.
func avgScalar(dt spec.DataType, n int) uint64 {
	d := 1.0 / float64(n)
	f := float32(d)
	switch dt {
	case spec.Float16:
		return uint64(f32ToHalf(f))
	case spec.Bfloat16:
		return uint64(f32ToBF16(f))
	case spec.Float32:
		return uint64(math.Float32bits(f))
	case spec.Float64:
		return math.Float64bits(d)
	case spec.Float8e4m3:
		return uint64(fmtE4M3.fromF64(float64(f)))
	case spec.Float8e5m2:
		return uint64(fmtE5M2.fromF64(float64(f)))
	}
	return 0
}

// mask is the bit width mask of the datatype.
func (a *Arith) mask() uint64 {
	if a.DataType.Size() == 8 {
		return ^uint64(0)
	}
	return uint64(1)<<(8*a.DataType.Size()) - 1
}

// signed reports the signed integer types.
func (a *Arith) signed() bool {
	return a.DataType == spec.Int8 || a.DataType == spec.Int32 || a.DataType == spec.Int64
}

// sext sign-extends an integer bit pattern of the datatype.
func (a *Arith) sext(v uint64) int64 {
	w := uint(8 * a.DataType.Size())
	if w == 64 {
		return int64(v)
	}
	return int64(v<<(64-w)) >> (64 - w)
}

// ToFloat decodes a float bit pattern (or converts an integer) to float64.
func (a *Arith) ToFloat(v uint64) float64 {
	switch a.DataType {
	case spec.Float16:
		return float64(halfToF32(uint16(v)))
	case spec.Bfloat16:
		return float64(bf16ToF32(uint16(v)))
	case spec.Float32:
		return float64(math.Float32frombits(uint32(v)))
	case spec.Float64:
		return math.Float64frombits(v)
	case spec.Float8e4m3:
		return fmtE4M3.toF64(uint8(v))
	case spec.Float8e5m2:
		return fmtE5M2.toF64(uint8(v))
	}
	if a.signed() {
		return float64(a.sext(v))
	}
	return float64(v & a.mask())
}

// FromFloat encodes a value in the datatype (round to nearest even;
// integers truncate and wrap).
func (a *Arith) FromFloat(f float64) uint64 {
	switch a.DataType {
	case spec.Float16:
		return uint64(f32ToHalf(float32(f)))
	case spec.Bfloat16:
		return uint64(f32ToBF16(float32(f)))
	case spec.Float32:
		return uint64(math.Float32bits(float32(f)))
	case spec.Float64:
		return math.Float64bits(f)
	case spec.Float8e4m3:
		return uint64(fmtE4M3.fromF64(f))
	case spec.Float8e5m2:
		return uint64(fmtE5M2.fromF64(f))
	}
	return uint64(int64(f)) & a.mask()
}

// binary applies a float operation the way the datatype's device code
// rounds it: the operation is computed exactly (or, for float64, in float64)
// and rounded once to the datatype, which is what __hadd, __hmul and
// float32 arithmetic return; fp8 rounds to half first (the device computes
// in half) and then to fp8 with saturation.
func (a *Arith) binary(x, y uint64, op func(p, q float64) float64) uint64 {
	switch a.DataType {
	case spec.Float16:
		return uint64(f64ToHalf(op(float64(halfToF32(uint16(x))), float64(halfToF32(uint16(y))))))
	case spec.Bfloat16:
		return uint64(f64ToBF16(op(float64(bf16ToF32(uint16(x))), float64(bf16ToF32(uint16(y))))))
	case spec.Float32:
		// a float64 sum or product of float32s rounds to float32 correctly
		// (53 >= 2*24+2); the conversion also keeps Go from fusing
		return uint64(math.Float32bits(float32(op(float64(math.Float32frombits(uint32(x))), float64(math.Float32frombits(uint32(y)))))))
	case spec.Float64:
		return math.Float64bits(op(math.Float64frombits(x), math.Float64frombits(y)))
	case spec.Float8e4m3, spec.Float8e5m2:
		ff := fmtE4M3
		if a.DataType == spec.Float8e5m2 {
			ff = fmtE5M2
		}
		h := f64ToHalf(op(ff.toF64(uint8(x)), ff.toF64(uint8(y))))
		return uint64(ff.fromF64(float64(halfToF32(h))))
	}
	panic("binary on an integer type")
}

// Reduce combines two values (applyReduce).
func (a *Arith) Reduce(x, y uint64) uint64 {
	m := a.mask()
	switch a.devOp {
	case devSum, devPreMulSum, devSumPostDiv:
		if a.DataType.IsFloat() {
			return a.binary(x, y, func(p, q float64) float64 { return p + q })
		}
		return (x + y) & m
	case devProd:
		if a.DataType.IsFloat() {
			return a.binary(x, y, func(p, q float64) float64 { return p * q })
		}
		return (x * y) & m
	case devMinMax:
		isMax := a.RedOp == spec.Max
		if a.DataType.IsFloat() {
			if isMax {
				return a.minmaxFloat(x, y, fmaxNum)
			}
			return a.minmaxFloat(x, y, fminNum)
		}
		if a.signed() {
			xs, ys := a.sext(x), a.sext(y)
			if (xs > ys) == isMax {
				return x & m
			}
			return y & m
		}
		if (x&m > y&m) == isMax {
			return x & m
		}
		return y & m
	}
	return 0
}

// minmaxFloat selects one of the operands (no rounding), except that a
// NaN-NaN pair gives the format's NaN.
func (a *Arith) minmaxFloat(x, y uint64, f func(p, q float64) float64) uint64 {
	px, py := a.ToFloat(x), a.ToFloat(y)
	if math.IsNaN(px) && math.IsNaN(py) {
		return a.FromFloat(math.NaN())
	}
	r := f(px, py)
	if math.Float64bits(r) == math.Float64bits(px) && !math.IsNaN(px) {
		return x
	}
	return y
}

// PreOp is the operation applied to a rank's own input as it enters a
// reduction (identity except for PreMulSum).
func (a *Arith) PreOp(rank int, x uint64) uint64 {
	if a.devOp != devPreMulSum {
		return x
	}
	s := a.Scalars[rank]
	if a.DataType.IsFloat() {
		return a.binary(x, s, func(p, q float64) float64 { return p * q })
	}
	return (x * s) & a.mask()
}

// PostOp is applied to a finished reduction (identity except for the
// integer Avg, which divides by nRanks truncating toward zero).
func (a *Arith) PostOp(x uint64) uint64 {
	if a.devOp != devSumPostDiv {
		return x
	}
	d := uint64(a.NRanks)
	m := a.mask()
	if a.signed() {
		v := a.sext(x)
		neg := v < 0
		abs := uint64(v)
		if neg {
			abs = uint64(-v) & m
		}
		q := abs / d
		if neg {
			return uint64(-int64(q)) & m
		}
		return q & m
	}
	return (x & m) / d
}

// SwitchReduce is what an offload engine returns for contributions in
// member order. NVLS (multimem.ld_reduce) accumulates float16 and bfloat16
// in float32 and fp8 in half precision, rounding once at the end
// (PtxAcc_for_* ".acc::f32"/".acc::f16" of reduce_kernel.h); the order in
// which the NVSwitch adds is not documented, so the model adds in local
// rank order. The network's in-switch reduction (SHARP) is modelled as the
// datatype's own two-operand reduction in node order.
func (a *Arith) SwitchReduce(nvls bool, xs []uint64) uint64 {
	if len(xs) == 0 {
		return 0
	}
	if !nvls || !a.DataType.IsFloat() || a.devOp == devMinMax || a.DataType == spec.Float32 || a.DataType == spec.Float64 {
		acc := xs[0]
		for _, x := range xs[1:] {
			acc = a.Reduce(acc, x)
		}
		return acc
	}
	switch a.DataType {
	case spec.Float16, spec.Bfloat16:
		acc := float32(a.ToFloat(xs[0]))
		for _, x := range xs[1:] {
			acc = float32(acc + float32(a.ToFloat(x)))
		}
		return a.FromFloat(float64(acc))
	default: // fp8, accumulated in half
		acc := f32ToHalf(float32(a.ToFloat(xs[0])))
		for _, x := range xs[1:] {
			acc = f32ToHalf(float32(float64(halfToF32(acc)) + a.ToFloat(x)))
		}
		return a.FromFloat(float64(halfToF32(acc)))
	}
}
