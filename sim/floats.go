package sim

import "math"

// The narrow floating-point formats NCCL reduces, as bit patterns, with
// the conversions CUDA's headers perform: binary16 and bfloat16 round to
// nearest even; the fp8 formats (OCP E4M3 without infinities, E5M2 with
// them) round to nearest even and saturate to the largest finite value
// (__NV_SATFINITE, which every NCCL conversion to fp8 uses).

// halfToF32 decodes IEEE binary16 exactly.
func halfToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		if man != 0 {
			return math.Float32frombits(sign | 0x7fc00000 | man<<13)
		}
		return math.Float32frombits(sign | 0x7f800000)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal: man × 2^-24
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// roundMag rounds a non-negative finite magnitude to a binary format with
// man fraction bits and smallest normal exponent emin, to nearest, ties to
// even. The division and product are exact (powers of two), so the result
// is the correctly rounded value, possibly above the format's maximum.
func roundMag(a float64, man, emin int) float64 {
	if a == 0 {
		return 0
	}
	var q float64
	if a < math.Ldexp(1, emin) {
		q = math.Ldexp(1, emin-man)
	} else {
		_, e := math.Frexp(a) // a = f × 2^e, f in [0.5, 1)
		q = math.Ldexp(1, e-1-man)
	}
	return math.RoundToEven(a/q) * q
}

// encodeMag encodes a rounded, representable, non-zero magnitude.
func encodeMag(r float64, man, emin, bias int) uint32 {
	if r < math.Ldexp(1, emin) {
		return uint32(r / math.Ldexp(1, emin-man))
	}
	_, e := math.Frexp(r)
	exp := e - 1 + bias
	frac := uint32(r/math.Ldexp(1, e-1-man)) & (1<<man - 1)
	return uint32(exp)<<man | frac
}

// f64ToHalf rounds to the nearest binary16, ties to even (__float2half_rn
// and the rounding of __hadd/__hmul, whose exact results it receives);
// NaN becomes the canonical 0x7fff.
func f64ToHalf(v float64) uint16 { return f64ToNarrow(v, 10, -14, 15, 65504, 0x7c00) }

// f32ToHalf is f64ToHalf of a float32 (exact widening).
func f32ToHalf(f float32) uint16 { return f64ToHalf(float64(f)) }

// bf16ToF32 decodes bfloat16 exactly (the top half of a float32).
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// f64ToBF16 rounds to the nearest bfloat16, ties to even; NaN becomes the
// canonical 0x7fff.
func f64ToBF16(v float64) uint16 { return f64ToNarrow(v, 7, -126, 127, 0x1.fep127, 0x7f80) }

// f64ToNarrow rounds to a 16-bit IEEE-style format with man mantissa bits,
// smallest normal exponent emin and the given bias, ties to even; beyond
// maxFinite it saturates to infinity (inf is its bit pattern), and NaN
// becomes the canonical 0x7fff.
func f64ToNarrow(v float64, man, emin, bias int, maxFinite float64, inf uint16) uint16 {
	if math.IsNaN(v) {
		return 0x7fff
	}
	var sign uint16
	if math.Signbit(v) {
		sign = 0x8000
	}
	a := math.Abs(v)
	if math.IsInf(a, 1) {
		return sign | inf
	}
	r := roundMag(a, man, emin)
	if r > maxFinite {
		return sign | inf
	}
	if r == 0 {
		return sign
	}
	return sign | uint16(encodeMag(r, man, emin, bias))
}

// f32ToBF16 is __float2bfloat16_rn.
func f32ToBF16(f float32) uint16 { return f64ToBF16(float64(f)) }

// fp8 formats.
type fp8Format struct {
	man      uint  // mantissa bits
	bias     int   // exponent bias
	maxNorm  uint8 // largest finite magnitude, as bits
	minNormE int   // exponent of the smallest normal
	hasInf   bool  // E5M2 has infinities; E4M3 does not
	nan      uint8 // canonical NaN magnitude
	maxVal   float64
}

var (
	fmtE4M3 = fp8Format{man: 3, bias: 7, maxNorm: 0x7e, minNormE: -6, nan: 0x7f, maxVal: 448}
	fmtE5M2 = fp8Format{man: 2, bias: 15, maxNorm: 0x7b, minNormE: -14, hasInf: true, nan: 0x7e, maxVal: 57344}
)

// toF64 decodes an fp8 value exactly.
func (ff fp8Format) toF64(x uint8) float64 {
	sign := 1.0
	if x&0x80 != 0 {
		sign = -1
	}
	mag := x & 0x7f
	expBits := uint(mag) >> ff.man
	man := uint(mag) & (1<<ff.man - 1)
	if ff.hasInf {
		if expBits == 1<<(7-ff.man)-1 {
			if man == 0 {
				return sign * math.Inf(1)
			}
			return math.NaN()
		}
	} else if mag == 0x7f {
		return math.NaN()
	}
	if expBits == 0 {
		return sign * float64(man) * math.Ldexp(1, ff.minNormE-int(ff.man))
	}
	return sign * (1 + float64(man)/float64(uint(1)<<ff.man)) * math.Ldexp(1, int(expBits)-ff.bias)
}

// fromF64 rounds to nearest even with saturation to the largest finite
// value (also for infinities); NaN becomes the format's NaN with the sign
// kept, as CUDA's __nv_cvt_double_to_fp8 does.
func (ff fp8Format) fromF64(v float64) uint8 {
	var sign uint8
	if math.Signbit(v) {
		sign = 0x80
	}
	if math.IsNaN(v) {
		return sign | ff.nan
	}
	a := math.Abs(v)
	if math.IsInf(a, 1) {
		return sign | ff.maxNorm
	}
	r := roundMag(a, int(ff.man), ff.minNormE)
	if r > ff.maxVal {
		return sign | ff.maxNorm
	}
	if r == 0 {
		return sign
	}
	return sign | uint8(encodeMag(r, int(ff.man), ff.minNormE, ff.bias))
}

// fmaxNum and fminNum are fmaxf/fminf and __hmax/__hmin: a NaN operand is
// ignored, and +0 counts as larger than -0.
func fmaxNum(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	case a == b:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func fminNum(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	case a == b:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}
