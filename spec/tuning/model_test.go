package tuning

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// tuningLog2i is floor(log2 n) as log2i's loop computes it, −1 for n ≤ 0.
func TestTuningLog2i(t *testing.T) {
	loop := func(n int64) int64 {
		if n <= 0 {
			return -1
		}
		var l int64
		for n > 1 {
			n >>= 1
			l++
		}
		return l
	}
	for _, n := range []int64{-5, 0, 1, 2, 3, 4, 1023, 1024, 1 << 40, 1<<62 + 7, math.MaxInt64} {
		if got, want := tuningLog2i(n), loop(n); got != want {
			t.Errorf("tuningLog2i(%d) = %d, want %d", n, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64().Draw(t, "n")
		if got, want := tuningLog2i(n), loop(n); got != want {
			t.Fatalf("tuningLog2i(%d) = %d, want %d", n, got, want)
		}
	})
}

// TestTuningSorterBin: the sorter's size classes.
func TestTuningSorterBin(t *testing.T) {
	prev := 1 << 30
	for _, sz := range []int64{0, 1023, 1024, 2048, 3072, 4096, 5120, 8 << 10, 1 << 20, 1 << 30, 1 << 40} {
		b := tuningSorterBin(sz)
		if b > prev || b < 0 || b > 80 {
			t.Errorf("size %d bin %d after %d", sz, b, prev)
		}
		prev = b
	}
	if tuningSorterBin(1<<30) != tuningSorterBin(1<<40) {
		t.Error("sizes above 1 GiB share the last bin")
	}
}
