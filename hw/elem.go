package hw

import (
	"encoding/binary"
	"math"

	"github.com/gatesim/gatesim/spec"
)

// encode writes integer v as one element of datatype dt (little-endian, as
// the GPU stores it), the host-side twin of gs_store.
func encode(dt spec.DataType, v int64, dst []byte) {
	switch dt {
	case spec.Int8, spec.Uint8:
		dst[0] = byte(v)
	case spec.Int32, spec.Uint32:
		binary.LittleEndian.PutUint32(dst, uint32(v))
	case spec.Int64, spec.Uint64:
		binary.LittleEndian.PutUint64(dst, uint64(v))
	case spec.Float16:
		binary.LittleEndian.PutUint16(dst, float32ToHalf(float32(v)))
	case spec.Float32:
		binary.LittleEndian.PutUint32(dst, math.Float32bits(float32(v)))
	case spec.Float64:
		binary.LittleEndian.PutUint64(dst, math.Float64bits(float64(v)))
	case spec.Bfloat16:
		binary.LittleEndian.PutUint16(dst, float32ToBfloat16(float32(v)))
	}
}

// decode reads one element: its integer value for integer types (sign- or
// zero-extended) and its value as float64 for floating-point types.
func decode(dt spec.DataType, src []byte) (int64, float64) {
	switch dt {
	case spec.Int8:
		return int64(int8(src[0])), 0
	case spec.Uint8:
		return int64(src[0]), 0
	case spec.Int32:
		return int64(int32(binary.LittleEndian.Uint32(src))), 0
	case spec.Uint32:
		return int64(binary.LittleEndian.Uint32(src)), 0
	case spec.Int64, spec.Uint64:
		return int64(binary.LittleEndian.Uint64(src)), 0
	case spec.Float16:
		return 0, float64(halfToFloat32(binary.LittleEndian.Uint16(src)))
	case spec.Float32:
		return 0, float64(math.Float32frombits(binary.LittleEndian.Uint32(src)))
	case spec.Float64:
		return 0, math.Float64frombits(binary.LittleEndian.Uint64(src))
	case spec.Bfloat16:
		return 0, float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(src)) << 16))
	}
	return 0, math.NaN()
}

// float32ToHalf converts with round-to-nearest-even, as cvt.rn.f16.f32 does.
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case int32(b>>23&0xff) == 0xff: // Inf or NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0: // subnormal half
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, which is right
	}
	return sign | uint16(h)
}

func halfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		return float32(math.Copysign(float64(man)*math.Pow(2, -24), float64(int32(sign)|1)))
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// float32ToBfloat16 rounds to nearest even, as cvt.rn.bf16.f32 does.
func float32ToBfloat16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
