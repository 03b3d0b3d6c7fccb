package spec

import "testing"

// TestParseSizeRange: powers of the factor from FROM to TO.
func TestParseSizeRange(t *testing.T) {
	got, err := ParseSizeRange("4KiB:64KiB:4")
	if err != nil || len(got) != 3 || got[0] != 4096 || got[2] != 65536 {
		t.Errorf("ParseSizeRange = %v, %v", got, err)
	}
	if got, err := ParseSizeRange("1:8"); err != nil || len(got) != 4 {
		t.Errorf("ParseSizeRange(1:8) = %v, %v; want 4 sizes with factor 2", got, err)
	}
}

// TestParseSizeRangeRefuses: the shape, the order and the factor.
func TestParseSizeRangeRefuses(t *testing.T) {
	for _, s := range []string{"4K", "4K:1K", "4K:1M:1", "4K:1M:x", "1:1P:2", "a:b"} {
		if got, err := ParseSizeRange(s); err == nil {
			t.Errorf("ParseSizeRange(%q) = %v, want an error", s, got)
		}
	}
}
