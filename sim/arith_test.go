package sim

import (
	"math"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

func TestArith(t *testing.T) {
	mk := func(dt spec.DataType, op spec.RedOp, n int, sc []float64) *Arith {
		a, err := NewArith(dt, op, n, sc)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// integers wrap and compare with their sign
	i8 := mk(spec.Int8, spec.Sum, 2, nil)
	if got := i8.Reduce(0x7f, 0x01); got != 0x80 {
		t.Errorf("int8 127+1 = %#x, want 0x80 (wrap)", got)
	}
	mx := mk(spec.Int8, spec.Max, 2, nil)
	if got := mx.Reduce(0xff, 0x01); got != 0x01 {
		t.Errorf("int8 max(-1, 1) = %#x", got)
	}
	mnU := mk(spec.Uint8, spec.Min, 2, nil)
	if got := mnU.Reduce(0xff, 0x01); got != 0x01 {
		t.Errorf("uint8 min(255, 1) = %#x", got)
	}
	p64 := mk(spec.Uint64, spec.Prod, 2, nil)
	if got := p64.Reduce(1<<63, 2); got != 0 {
		t.Errorf("uint64 2^63×2 = %#x, want 0", got)
	}
	// integer average: wrapping sum, then truncation toward zero
	avg := mk(spec.Int32, spec.Avg, 2, nil)
	neg7 := uint64(uint32(0xfffffff9)) // -7
	if got := avg.PostOp(neg7); got != uint64(uint32(0xfffffffd)) {
		t.Errorf("int32 avg of sum -7 over 2 = %#x, want -3", got)
	}
	if got := mk(spec.Uint32, spec.Avg, 3, nil).PostOp(10); got != 3 {
		t.Errorf("uint32 10/3 = %d", got)
	}
	// float average is a pre-multiplication by 1/n in the datatype
	favg := mk(spec.Float16, spec.Avg, 3, nil)
	third := f32ToHalf(float32(1.0 / 3))
	if favg.Scalars[0] != uint64(third) {
		t.Errorf("half 1/3 scalar %#x, want %#x", favg.Scalars[0], third)
	}
	// PreMulSum takes each rank's own scalar
	pm := mk(spec.Float32, spec.PreMulSum, 2, []float64{2, 0.5})
	x := uint64(math.Float32bits(3))
	if got := math.Float32frombits(uint32(pm.PreOp(1, x))); got != 1.5 {
		t.Errorf("rank 1 pre-op 3×0.5 = %g", got)
	}
	// fp8 sums saturate
	f8 := mk(spec.Float8e4m3, spec.Sum, 2, nil)
	big := uint64(fmtE4M3.fromF64(448))
	if got := f8.Reduce(big, big); got != 0x7e {
		t.Errorf("e4m3 448+448 = %#x, want 0x7e (saturated)", got)
	}
	// float32 sums round once per operation
	f32 := mk(spec.Float32, spec.Sum, 2, nil)
	a := uint64(math.Float32bits(1 << 24))
	one := uint64(math.Float32bits(1))
	if got := math.Float32frombits(uint32(f32.Reduce(a, one))); got != 1<<24 {
		t.Errorf("float32 2^24+1 = %g", got)
	}
	// NVLS accumulates bfloat16 in float32: 256 + 1 + 1 rounds once
	bf := mk(spec.Bfloat16, spec.Sum, 3, nil)
	v256, v1 := uint64(f32ToBF16(256)), uint64(f32ToBF16(1))
	pair := bf.Reduce(bf.Reduce(v256, v1), v1)
	sw := bf.SwitchReduce(true, []uint64{v256, v1, v1})
	if bf16ToF32(uint16(pair)) != 256 || bf16ToF32(uint16(sw)) != 258 {
		t.Errorf("bf16 256+1+1: pairwise %g (want 256), NVLS %g (want 258)", bf16ToF32(uint16(pair)), bf16ToF32(uint16(sw)))
	}
	if _, err := NewArith(spec.Float32, spec.PreMulSum, 2, nil); err == nil {
		t.Error("PreMulSum without scalars should fail")
	}
}
