package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// SizeRange is FROM:TO[:FACTOR], the one way every command writes a range
// of sizes (sim --sweep, whatif --sizes and a sweep file's from, to and
// factor, hw replay --sizes, env --sizes): FROM and TO in ParseBytes'
// grammar, the factor an integer of at least 2, written 4 or x4, 2 when
// left out (Factor 0).
type SizeRange struct {
	From, To string
	Factor   int
}

// maxRangeSizes bounds the sizes of one range (a factor of 2 from 1 B to
// MaxOpBytes gives 41).
const maxRangeSizes = 64

// SplitSizeRange reads FROM:TO[:FACTOR] without expanding it.
func SplitSizeRange(s string) (SizeRange, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return SizeRange{}, fmt.Errorf("%q: expected FROM:TO[:FACTOR], e.g. 4KiB:4GiB:x4", s)
	}
	r := SizeRange{From: strings.TrimSpace(parts[0]), To: strings.TrimSpace(parts[1])}
	if len(parts) == 3 {
		f, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(parts[2]), "x"))
		if err != nil || f < 2 {
			return SizeRange{}, fmt.Errorf("%q: factor %q: expected an integer of at least 2 (4 or x4)", s, parts[2])
		}
		r.Factor = f
	}
	return r, nil
}

// Sizes are the range's sizes: FROM, then each FACTOR times the last, up
// to TO; 0 < FROM <= TO <= MaxOpBytes.
func (r SizeRange) Sizes() ([]int64, error) {
	from, err := ParseBytes(r.From)
	if err != nil {
		return nil, err
	}
	to, err := ParseBytes(r.To)
	if err != nil {
		return nil, err
	}
	f := int64(r.Factor)
	switch {
	case f == 0:
		f = 2
	case f < 2:
		return nil, fmt.Errorf("factor %d: expected an integer of at least 2", f)
	}
	switch {
	case from <= 0 || to < from:
		return nil, fmt.Errorf("%s:%s: expected 0 < FROM <= TO", r.From, r.To)
	case to > MaxOpBytes:
		return nil, fmt.Errorf("%s: expected at most %s (gatesim's limit)", r.To, FormatBytes(MaxOpBytes))
	}
	var sizes []int64
	for x := from; x <= to; x *= f {
		sizes = append(sizes, x)
		if len(sizes) > maxRangeSizes {
			return nil, fmt.Errorf("%s:%s:%d: more than %d sizes", r.From, r.To, f, maxRangeSizes)
		}
		if x > to/f {
			break
		}
	}
	return sizes, nil
}

// ParseSizeRange reads FROM:TO[:FACTOR] (SizeRange) and expands it.
func ParseSizeRange(s string) ([]int64, error) {
	r, err := SplitSizeRange(s)
	if err != nil {
		return nil, err
	}
	return r.Sizes()
}

// ParseSizes reads what a --sizes flag takes: a range FROM:TO[:FACTOR] or
// a comma list of at most 64 sizes (1MiB,1GiB), each at most MaxOpBytes.
func ParseSizes(s string) ([]int64, error) {
	if strings.Contains(s, ":") {
		return ParseSizeRange(s)
	}
	return ParseSizeList(strings.Split(s, ","), maxRangeSizes)
}

// ParseSizeList reads a list of at most max sizes, each in ParseBytes'
// grammar and at most MaxOpBytes: a comma list's items, or a sweep file's
// (whatif bounds those by its points rather than by a range's 64).
func ParseSizeList(list []string, max int) ([]int64, error) {
	if len(list) > max {
		return nil, fmt.Errorf("%d sizes: expected at most %d", len(list), max)
	}
	out := make([]int64, 0, len(list))
	for _, p := range list {
		n, err := ParseBytes(p)
		if err != nil {
			return nil, err
		}
		if n > MaxOpBytes {
			return nil, fmt.Errorf("%s: expected at most %s (gatesim's limit)", p, FormatBytes(MaxOpBytes))
		}
		out = append(out, n)
	}
	return out, nil
}
