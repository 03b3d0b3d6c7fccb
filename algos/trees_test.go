package algos

import "testing"

// TestBtreeIllustration checks ncclGetBtree against the 14-rank tree drawn
// in src/graph/trees.cc (v2.28.9-1):
//
//	0---------------8
//	         ______/ \______
//	        4               12
//	      /   \            /  \
//	    2       6       10     \
//	   / \     / \     /  \     \
//	  1   3   5   7   9   11    13
func TestBtreeIllustration(t *testing.T) {
	want := map[int][3]int{ // rank: up, d0, d1
		0: {-1, -1, 8}, 8: {0, 4, 12}, 4: {8, 2, 6}, 12: {8, 10, 13},
		2: {4, 1, 3}, 6: {4, 5, 7}, 10: {12, 9, 11},
		1: {2, -1, -1}, 3: {2, -1, -1}, 5: {6, -1, -1}, 7: {6, -1, -1},
		9: {10, -1, -1}, 11: {10, -1, -1}, 13: {12, -1, -1},
	}
	for r, w := range want {
		u, d0, d1, _ := btree(14, r)
		if [3]int{u, d0, d1} != w {
			t.Errorf("btree(14, %d) = %d, %d, %d; want %v", r, u, d0, d1, w)
		}
	}
}

// TestDtreeMirrorAndShift checks the second tree: the mirror for an even
// rank count and the shift by one for an odd count, as drawn in trees.cc.
// 12 ranks mirrored: 11 is the root with child 3 (the mirror of 0 → 8),
// 3's children are 7 and 1, 7's are 9 and 5. 13 ranks shifted: 1 is the
// root with child 9, 9's children are 5 and 0, 0's only child is 11.
func TestDtreeMirrorAndShift(t *testing.T) {
	tests := []struct{ n, rank, up, d0, d1 int }{
		{12, 11, -1, -1, 3},
		{12, 3, 11, 7, 1},
		{12, 7, 3, 9, 5},
		{12, 0, 1, -1, -1},
		{13, 1, -1, -1, 9},
		{13, 9, 1, 5, 0},
		{13, 0, 9, 11, -1},
	}
	for _, tc := range tests {
		u, d0, d1, _ := dtree(tc.n, tc.rank, 1)
		if u != tc.up || d0 != tc.d0 || d1 != tc.d1 {
			t.Errorf("dtree(%d, %d, 1) = %d, %d, %d; want %d, %d, %d", tc.n, tc.rank, u, d0, d1, tc.up, tc.d0, tc.d1)
		}
	}
}

// TestBtreeIsATree checks, for many sizes, that parent and child links
// agree, every rank but 0 has a parent, and the tree is connected.
func TestBtreeIsATree(t *testing.T) {
	for n := 1; n <= 300; n++ {
		for which := 0; which < 2; which++ {
			seen := 0
			for r := 0; r < n; r++ {
				u, d0, d1, second := dtree(n, r, which)
				if u == -1 {
					seen++
					continue
				}
				pu, pd0, pd1, _ := dtree(n, u, which)
				_ = pu
				if second && pd1 != r || !second && pd0 != r {
					t.Fatalf("n=%d tree %d: rank %d has parent %d (second child %v) whose children are %d, %d", n, which, r, u, second, pd0, pd1)
				}
				for _, d := range []int{d0, d1} {
					if d == -1 {
						continue
					}
					if du, _, _, _ := dtree(n, d, which); du != r {
						t.Fatalf("n=%d tree %d: child %d of %d has parent %d", n, which, d, r, du)
					}
				}
			}
			if seen != 1 {
				t.Fatalf("n=%d tree %d: %d roots", n, which, seen)
			}
		}
	}
}
