package tuning

import "testing"

func TestU32FP8(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{{0, 0}, {7, 7}, {8, 8}, {9, 9}, {17, 16}, {131072, 131072}, {100000, 98304}, {3 << 20, 3 << 20}} {
		if got := U32FP8(c.in); got != c.want {
			t.Errorf("U32FP8(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
