package spec

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseSizeRange: powers of the factor from FROM to TO; the factor is
// written 4 or x4 alike (whatif wrote x4, sim and hw replay 4), 2 when left
// out.
func TestParseSizeRange(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want []int64
	}{
		{"4KiB:64KiB:4", []int64{4096, 16384, 65536}},
		{"4KiB:64KiB:x4", []int64{4096, 16384, 65536}},
		{"4K:100K:x4", []int64{4096, 16384, 65536}},
		{"1:8", []int64{1, 2, 4, 8}},
		{" 1 : 8 : x2 ", []int64{1, 2, 4, 8}},
		{"1:1T:x2", nil}, // 41 sizes, checked by count below
	} {
		got, err := ParseSizeRange(tc.s)
		if err != nil {
			t.Errorf("ParseSizeRange(%q): %v", tc.s, err)
			continue
		}
		if tc.want == nil {
			if len(got) != 41 || got[40] != MaxOpBytes {
				t.Errorf("ParseSizeRange(%q) = %d sizes ending %d", tc.s, len(got), got[len(got)-1])
			}
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSizeRange(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestParseSizeRangeRefuses: the shape, the order, the factor and the
// limit, each error saying what was expected.
func TestParseSizeRangeRefuses(t *testing.T) {
	for s, want := range map[string]string{
		"4K":        "expected FROM:TO[:FACTOR]",
		"4K:1K":     "0 < FROM <= TO",
		"0:1K":      "0 < FROM <= TO",
		"4K:1M:1":   "at least 2",
		"4K:1M:x":   "at least 2",
		"4K:1M:x-4": "at least 2",
		"1:1P:2":    "1P",
		"1:2T":      "at most 1 TiB",
		"a:b":       "a",
		"1:2:3:4":   "expected FROM:TO[:FACTOR]",
	} {
		got, err := ParseSizeRange(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSizeRange(%q) = %v, %v; want an error with %q", s, got, err, want)
		}
	}
	if _, err := (SizeRange{From: "1", To: "8", Factor: 1}).Sizes(); err == nil {
		t.Error("factor 1 from a sweep file: no error")
	}
}

// TestParseSizes: --sizes takes a range or a list, in one grammar.
func TestParseSizes(t *testing.T) {
	for s, want := range map[string][]int64{
		"4KiB,1GiB":  {4096, 1 << 30},
		"1M":         {1 << 20},
		"1M:4M:x2":   {1 << 20, 2 << 20, 4 << 20},
		"1M, 4M ,2M": {1 << 20, 4 << 20, 2 << 20},
	} {
		if got, err := ParseSizes(s); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "1M,", "2T", "1M:2M:1", strings.Repeat("1K,", 64) + "1K"} {
		if got, err := ParseSizes(s); err == nil {
			t.Errorf("ParseSizes(%q) = %v, want an error", s, got)
		}
	}
}

// TestParseSizeList: one grammar for every list of sizes, bounded by its
// caller (64 for a --sizes flag, whatif's points for a sweep).
func TestParseSizeList(t *testing.T) {
	if got, err := ParseSizeList([]string{"1KiB", "4096"}, 2); err != nil || len(got) != 2 || got[0] != 1024 || got[1] != 4096 {
		t.Errorf("1KiB,4096: %v %v", got, err)
	}
	for _, c := range []struct {
		list []string
		max  int
		want string
	}{
		{[]string{"1", "2", "3"}, 2, "3 sizes: expected at most 2"},
		{[]string{"2TiB"}, 2, "2TiB: expected at most 1 TiB"},
		{[]string{"x"}, 2, "x"},
	} {
		if _, err := ParseSizeList(c.list, c.max); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.list, err, c.want)
		}
	}
	if _, err := ParseSizes(strings.Repeat("1,", 64) + "1"); err == nil {
		t.Error("65 sizes: expected an error")
	}
}
