package nccl

import (
	"errors"
	"testing"
)

func TestParseVersion(t *testing.T) {
	good := map[string]Version{
		"2.28.9": V2_28_9, "v2.28.9-1": V2_28_9, "2.28.9-1": V2_28_9, "2.28.9+cuda13.0": V2_28_9,
		"22809": V2_28_9, " 2.22.3 ": V2_22_3, "2.31.1": MakeVersion(2, 31, 1),
	}
	for in, want := range good {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// not major.minor.patch: a NotDottedError, with what is left for naming
	// the near releases
	for in, stem := range map[string]string{"2.28": "2.28", "v2.28-1": "2.28", "2.28.9.1": "2.28.9.1", "x": "x"} {
		_, err := ParseVersion(in)
		var nd *NotDottedError
		if !errors.As(err, &nd) || nd.Input != in || nd.Stem != stem {
			t.Errorf("ParseVersion(%q): %v, want a NotDottedError with stem %q", in, err, stem)
		}
	}
	for _, in := range []string{"", "x.y.z", "3.0.0", "v2.28.9-x", "1", "2.-1.3", "2.100.1"} {
		_, err := ParseVersion(in)
		var nd *NotDottedError
		if err == nil || errors.As(err, &nd) {
			t.Errorf("ParseVersion(%q): %v, want another error", in, err)
		}
	}
	if v := V2_28_9; v.Major() != 2 || v.Minor() != 28 || v.Patch() != 9 || v.Code() != 22809 || v.Tag() != "v2.28.9-1" || v.String() != "2.28.9" {
		t.Errorf("2.28.9 splits as %d %d %d %d %s %s", v.Major(), v.Minor(), v.Patch(), v.Code(), v.Tag(), v)
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"2.28.9", "v2.22.3-1", "22809", "2.28.9+cuda12.4", "", "v", "2..9", "70000", "29999", "30000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			return
		}
		// what parses must print and parse back to itself
		w, err := ParseVersion(v.String())
		if err != nil || w != v {
			t.Fatalf("%q -> %v -> %v, %v", s, v, w, err)
		}
	})
}

// Numeric codes of NCCL 3 to 9 parsed while their dotted forms did not, so
// they did not round-trip ("70000" -> 7.0.0 -> error).
func TestVersionCodesRoundTrip(t *testing.T) {
	for _, s := range []string{"70000", "30000", "99999", "19999"} {
		if v, err := ParseVersion(s); err == nil {
			t.Errorf("%s parsed as %v: expected an error (only NCCL 2 is modelled)", s, v)
		}
	}
	for _, s := range []string{"20000", "22809", "29999"} {
		v, err := ParseVersion(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if w, err := ParseVersion(v.String()); err != nil || w != v {
			t.Errorf("%s -> %v -> %v, %v", s, v, w, err)
		}
	}
}
