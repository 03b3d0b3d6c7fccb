package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSizeRange reads FROM:TO[:FACTOR] (sizes in ParseBytes' grammar,
// the factor an integer of at least 2, 2 by default): the sizes from FROM
// up to TO, each FACTOR times the last, at most 64 of them.
func ParseSizeRange(s string) ([]int64, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("--sweep %q: expected FROM:TO[:FACTOR], e.g. 4KiB:4GiB:4", s)
	}
	from, err := ParseBytes(parts[0])
	if err != nil {
		return nil, fmt.Errorf("--sweep: %v", err)
	}
	to, err := ParseBytes(parts[1])
	if err != nil {
		return nil, fmt.Errorf("--sweep: %v", err)
	}
	factor := int64(2)
	if len(parts) == 3 {
		if factor, err = strconv.ParseInt(parts[2], 10, 64); err != nil || factor < 2 {
			return nil, fmt.Errorf("--sweep %q: factor %q: expected an integer of at least 2", s, parts[2])
		}
	}
	if from <= 0 || to < from {
		return nil, fmt.Errorf("--sweep %q: expected 0 < FROM <= TO", s)
	}
	var sizes []int64
	for x := from; x <= to; x *= factor {
		sizes = append(sizes, x)
		if len(sizes) > 64 {
			return nil, fmt.Errorf("--sweep %q: more than 64 sizes", s)
		}
		if x > to/factor {
			break
		}
	}
	return sizes, nil
}
