package algos

// btree returns rank's parent and two children in NCCL's binary tree over
// n ranks rooted at 0 (-1 where there is none) and whether rank is its
// parent's second child. Nodes alternate between leaves and inner nodes by
// their lowest set bit: the parent of r with lowest set bit b is
// (r^b)|(b<<1), or r^b when that is out of range; its children are r-b/2
// and the largest in-range r+b/2^k.
// Ref: v2.28.9-1 src/graph/trees.cc ncclGetBtree.
func btree(n, rank int) (up, d0, d1 int, secondChild bool) {
	bit := 1
	for bit < n {
		if bit&rank != 0 {
			break
		}
		bit <<= 1
	}
	if rank == 0 {
		d1 = -1
		if n > 1 {
			d1 = bit >> 1
		}
		return -1, -1, d1, false
	}
	up = (rank ^ bit) | (bit << 1)
	if up >= n {
		up = rank ^ bit
	}
	secondChild = rank > up
	low := bit >> 1
	d0, d1 = -1, -1
	if low != 0 {
		d0 = rank - low
		d1 = rank + low
		for d1 >= n {
			if low == 0 {
				d1 = -1
			} else {
				d1 = rank + low
			}
			low >>= 1
		}
	}
	return up, d0, d1, secondChild
}

// dtree returns rank's links in the two trees of NCCL's double binary tree:
// tree 0 is btree; tree 1 mirrors it (rank → n-1-rank) when n is even and
// shifts it by one when n is odd, so that a rank that is an inner node of
// one tree is mostly a leaf of the other.
// Ref: v2.28.9-1 src/graph/trees.cc ncclGetDtree.
func dtree(n, rank, tree int) (up, d0, d1 int, secondChild bool) {
	if tree == 0 {
		return btree(n, rank)
	}
	if n%2 == 1 {
		u, a, b, sc := btree(n, (rank-1+n)%n)
		shift := func(x int) int {
			if x == -1 {
				return -1
			}
			return (x + 1) % n
		}
		return shift(u), shift(a), shift(b), sc
	}
	u, a, b, sc := btree(n, n-1-rank)
	mirror := func(x int) int {
		if x == -1 {
			return -1
		}
		return n - 1 - x
	}
	return mirror(u), mirror(a), mirror(b), sc
}
