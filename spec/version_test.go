package spec

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestReleasesStable pins the modelled releases and their codes: entries are
// added, never renumbered or removed (pebble's FormatMajorVersion test).
func TestReleasesStable(t *testing.T) {
	want := []struct {
		v    Version
		code int
		tag  string
	}{
		{V2_22_3, 22203, "v2.22.3-1"},
		{V2_23_4, 22304, "v2.23.4-1"},
		{V2_24_3, 22403, "v2.24.3-1"},
		{V2_25_1, 22501, "v2.25.1-1"},
		{V2_26_2, 22602, "v2.26.2-1"},
		{V2_26_3, 22603, "v2.26.3-1"},
		{V2_26_5, 22605, "v2.26.5-1"},
		{V2_26_6, 22606, "v2.26.6-1"},
		{V2_27_3, 22703, "v2.27.3-1"},
		{V2_27_5, 22705, "v2.27.5-1"},
		{V2_27_6, 22706, "v2.27.6-1"},
		{V2_27_7, 22707, "v2.27.7-1"},
		{V2_28_3, 22803, "v2.28.3-1"},
		{V2_28_7, 22807, "v2.28.7-1"},
		{V2_28_9, 22809, "v2.28.9-1"},
		{V2_29_2, 22902, "v2.29.2-1"},
		{V2_29_3, 22903, "v2.29.3-1"},
		{V2_29_7, 22907, "v2.29.7-1"},
		{V2_30_3, 23003, "v2.30.3-1"},
		{V2_30_4, 23004, "v2.30.4-1"},
		{V2_30_7, 23007, "v2.30.7-1"},
	}
	for _, w := range want {
		if !Supported(w.v) || w.v.Code() != w.code || w.v.Tag() != w.tag {
			t.Errorf("%v (%d, %s): want a modelled release %d %s", w.v, w.v.Code(), w.v.Tag(), w.code, w.tag)
		}
	}
	for i := 1; i < len(Releases); i++ {
		if Releases[i] <= Releases[i-1] {
			t.Errorf("Releases not in ascending order at %d: %v after %v", i, Releases[i], Releases[i-1])
		}
	}
}

// TestParseVersion: spec's ParseVersion is nccl.ParseVersion (which tests
// the grammar), and every refusal says what was expected.
func TestParseVersion(t *testing.T) {
	for _, in := range []string{"2.28.9", "v2.28.9-1", "22809", " 2.22.3 ", "2.31.1"} {
		got, err := ParseVersion(in)
		want, werr := nccl.ParseVersion(in)
		if err != nil || werr != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; nccl: %v, %v", in, got, err, want, werr)
		}
	}
	bad := []string{"", "2.28", "2.28.9.1", "x.y.z", "3.0.0", "v2.28.9-x", "1", "2.-1.3", "2.100.1"}
	for _, in := range bad {
		if v, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", in, v)
		} else if !strings.Contains(err.Error(), "expected") && !strings.Contains(err.Error(), "only NCCL 2.x") {
			t.Errorf("ParseVersion(%q) error %q does not say what was expected", in, err)
		}
	}
}

func TestVersionOrderAndNearest(t *testing.T) {
	if !(V2_22_3 < V2_28_3 && V2_28_3 < V2_28_9) {
		t.Fatal("versions do not order by release")
	}
	if r, ok := Nearest(MakeVersion(2, 28, 5)); !ok || r != V2_28_3 {
		t.Errorf("Nearest(2.28.5) = %v %v, want 2.28.3", r, ok)
	}
	if r, ok := Nearest(MakeVersion(2, 32, 3)); !ok || r != V2_30_7 {
		t.Errorf("Nearest(2.32.3) = %v %v, want 2.30.7", r, ok)
	}
	if _, ok := Nearest(MakeVersion(2, 17, 1)); ok {
		t.Error("Nearest(2.17.1) found a release older than every modelled one")
	}
	err := (&UnsupportedError{MakeVersion(2, 17, 1)}).Error()
	for _, v := range Releases {
		if !strings.Contains(err, v.String()) {
			t.Errorf("unsupported-release error %q does not list %v", err, v)
		}
	}
}

// TestParseBytes holds the one size grammar: nccl-tests' binary units, with
// K, KB and KiB the same 1024 bytes.
func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"7": 7, "8B": 8, "4K": 4096, "4KB": 4096, "4KiB": 4096, "4k": 4096, "256MiB": 256 << 20,
		"256M": 256 << 20, "1G": 1 << 30, "1GB": 1 << 30, "1gib": 1 << 30, "2T": 2 << 40, "1.5M": 3 << 19, " 64K ": 64 << 10} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "K", "-8", "-5", "1.0000001K", "4Q", "9223372036854775807K", "1e9", "0x10"} {
		if n, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", s, n)
		}
	}
}
