package hw

import "github.com/gatesim/gatesim/spec"

// checkHost counts the wrong elements of buf, which holds output elements
// start, start+1, ... of one rank: the host twin of gs_check.
func checkHost(buf []byte, dt spec.DataType, start uint64, e Expect, seed uint32) int64 {
	esz := dt.Size()
	var wrong int64
	for i := 0; i+esz <= len(buf); i += esz {
		j := start + uint64(i/esz)
		want, wantF, approx := e.Want(seed, dt, j)
		gi, gf := decode(dt, buf[i:i+esz])
		if !e.Matches(dt, want, wantF, approx, gi, gf) {
			wrong++
		}
	}
	return wrong
}

// fillHost writes n pattern elements of rank f.Rank into buf.
func fillHost(buf []byte, dt spec.DataType, n uint64, f FillSpec, seed uint32) {
	esz := uint64(dt.Size())
	uns := isUnsigned(dt)
	for j := uint64(0); j < n; j++ {
		encode(dt, Value(seed, f.Rank, f.Base+j, f.Prod, uns), buf[j*esz:])
	}
}
