package nccl

import "testing"

func TestDivUpRoundUp(t *testing.T) {
	tests := []struct{ x, y, div, round int64 }{
		{0, 16, 0, 0},
		{1, 16, 1, 16},
		{16, 16, 1, 16},
		{17, 16, 2, 32},
		{1 << 40, 3, (1<<40 + 2) / 3, (1<<40 + 2) / 3 * 3},
	}
	for _, tc := range tests {
		if got := DivUp(tc.x, tc.y); got != tc.div {
			t.Errorf("DivUp(%d, %d) = %d, want %d", tc.x, tc.y, got, tc.div)
		}
		if got := RoundUp(tc.x, tc.y); got != tc.round {
			t.Errorf("RoundUp(%d, %d) = %d, want %d", tc.x, tc.y, got, tc.round)
		}
		if got := DivUp(int(tc.x), int(tc.y)); int64(got) != tc.div {
			t.Errorf("DivUp[int](%d, %d) = %d, want %d", tc.x, tc.y, got, tc.div)
		}
	}
}
