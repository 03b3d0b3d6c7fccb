package topo

import (
	"slices"
	"testing"
)

// TestIBPlaneIndexes: ncclIbGetPlaneIndex's table (v2.30.7-1
// src/transport/net_ib/init.cc) indexes -1 as 0 and each new id next,
// refuses a 13th user id and any id but -1 with bit 14 set, and compares
// ids stored as int16_t with the int id.
func TestIBPlaneIndexes(t *testing.T) {
	thirteen := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	for _, tc := range []struct {
		name   string
		planes []int
		idx    []int
		bad    int
		warn   string
	}{
		{"none named", []int{-1, -1}, []int{0, 0}, -1, ""},
		{"two planes, repeated", []int{5, 7, 5, -1}, []int{1, 2, 1, 0}, -1, ""},
		{"twelve user ids fit", thirteen[:12], []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, -1, ""},
		{"the 13th is refused", thirteen, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 12, "NCCL cannot use more than 14 plane IDs."},
		{"the virtual bit", []int{1, 16384}, []int{1}, 1, "NCCL cannot use a plane ID that is 16384."},
		{"a negative id", []int{-2}, []int{}, 0, "NCCL cannot use a plane ID that is -2."},
		{"beyond int16 never matches", []int{65536, 65536}, []int{1, 2}, -1, ""},
	} {
		idx, bad, warn := IBPlaneIndexes(tc.planes)
		if !slices.Equal(idx, tc.idx) || bad != tc.bad || warn != tc.warn {
			t.Errorf("%s: got %v %d %q, want %v %d %q", tc.name, idx, bad, warn, tc.idx, tc.bad, tc.warn)
		}
	}
}
