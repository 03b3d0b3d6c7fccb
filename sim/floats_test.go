package sim

import (
	"math"
	"testing"
)

func TestHalf(t *testing.T) {
	tests := []struct {
		f    float64
		bits uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00},
		{math.Ldexp(1, -24), 0x0001}, {math.Ldexp(1, -25), 0x0000}, {math.Ldexp(1.5, -25), 0x0001},
		{0.1, 0x2e66}, {math.Inf(-1), 0xfc00}, {math.Copysign(0, -1), 0x8000},
		{1 + math.Ldexp(1, -11), 0x3c00}, {1 + 3*math.Ldexp(1, -11), 0x3c02}, // ties to even
	}
	for _, tc := range tests {
		if got := f64ToHalf(tc.f); got != tc.bits {
			t.Errorf("f64ToHalf(%g) = %#04x, want %#04x", tc.f, got, tc.bits)
		}
	}
	if got := f64ToHalf(math.NaN()); got != 0x7fff {
		t.Errorf("NaN → %#04x", got)
	}
	for b := 0; b < 1<<16; b++ {
		h := uint16(b)
		f := halfToF32(h)
		if math.IsNaN(float64(f)) {
			continue
		}
		if got := f32ToHalf(f); got != h {
			t.Fatalf("half %#04x decodes to %g and encodes back to %#04x", h, f, got)
		}
	}
}

func TestBfloat16(t *testing.T) {
	tests := []struct {
		bits32 uint32
		bits   uint16
	}{
		{0x3f800000, 0x3f80}, {0x3f808000, 0x3f80}, {0x3f818000, 0x3f82}, {0x3f808001, 0x3f81},
		{0x7f7fffff, 0x7f80}, {0x00000001, 0x0000}, {0x00010000, 0x0001}, {0x80000000, 0x8000},
	}
	for _, tc := range tests {
		if got := f32ToBF16(math.Float32frombits(tc.bits32)); got != tc.bits {
			t.Errorf("f32ToBF16(%#08x) = %#04x, want %#04x", tc.bits32, got, tc.bits)
		}
	}
	for b := 0; b < 1<<16; b++ {
		f := bf16ToF32(uint16(b))
		if math.IsNaN(float64(f)) {
			continue
		}
		if got := f32ToBF16(f); got != uint16(b) {
			t.Fatalf("bf16 %#04x round-trips to %#04x", b, got)
		}
	}
}

// TestFP8 checks the OCP fp8 formats with CUDA's __NV_SATFINITE
// conversion: round to nearest even, saturate to the largest finite value
// (also infinities), NaN to the format's NaN with the sign kept.
func TestFP8(t *testing.T) {
	e4 := []struct {
		f    float64
		bits uint8
	}{
		{1, 0x38}, {448, 0x7e}, {464, 0x7e}, {465, 0x7e}, {1e9, 0x7e}, {math.Inf(1), 0x7e}, {math.Inf(-1), 0xfe},
		{math.Ldexp(1, -9), 0x01}, {math.Ldexp(1, -10), 0x00}, {math.Ldexp(3, -10), 0x02}, {math.Ldexp(3, -11), 0x01}, {-0.5, 0xb0}, {416, 0x7d},
	}
	for _, tc := range e4 {
		if got := fmtE4M3.fromF64(tc.f); got != tc.bits {
			t.Errorf("e4m3(%g) = %#02x, want %#02x", tc.f, got, tc.bits)
		}
	}
	e5 := []struct {
		f    float64
		bits uint8
	}{
		{1, 0x3c}, {57344, 0x7b}, {61440, 0x7b}, {math.Inf(1), 0x7b}, {math.Ldexp(1, -16), 0x01}, {-2, 0xc0},
	}
	for _, tc := range e5 {
		if got := fmtE5M2.fromF64(tc.f); got != tc.bits {
			t.Errorf("e5m2(%g) = %#02x, want %#02x", tc.f, got, tc.bits)
		}
	}
	if got := fmtE4M3.fromF64(math.NaN()); got != 0x7f {
		t.Errorf("e4m3(NaN) = %#02x", got)
	}
	for _, ff := range []fp8Format{fmtE4M3, fmtE5M2} {
		for b := 0; b < 256; b++ {
			v := ff.toF64(uint8(b))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if got := ff.fromF64(v); got != uint8(b) {
				t.Fatalf("fp8 %#02x = %g encodes back to %#02x", b, v, got)
			}
		}
	}
	if v := fmtE4M3.toF64(0x7e); v != 448 {
		t.Errorf("e4m3 0x7e = %g", v)
	}
	if v := fmtE5M2.toF64(0x7c); !math.IsInf(v, 1) {
		t.Errorf("e5m2 0x7c = %g, want +Inf", v)
	}
}

func TestMinMaxNum(t *testing.T) {
	nan := math.NaN()
	if fmaxNum(nan, 1) != 1 || fmaxNum(1, nan) != 1 || fminNum(nan, -1) != -1 {
		t.Error("NaN operands must be ignored")
	}
	if z := fmaxNum(math.Copysign(0, -1), 0); math.Signbit(z) {
		t.Error("max(-0, +0) must be +0")
	}
	if z := fminNum(0, math.Copysign(0, -1)); !math.Signbit(z) {
		t.Error("min(+0, -0) must be -0")
	}
}
