package params

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestStrtollAgainstGlibc replays testdata/strtoll_glibc.tsv, made by
// testdata/strtoll_glibc.c on glibc 2.36 (see the header of the C file).
func TestStrtollAgainstGlibc(t *testing.T) {
	f, err := os.Open("testdata/strtoll_glibc.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			continue
		}
		// input may contain tabs: split the last four fields from the right
		parts := make([]string, 0, 5)
		rest := text
		for i := 0; i < 4; i++ {
			j := strings.LastIndexByte(rest, '\t')
			if j < 0 {
				t.Fatalf("line %d: malformed %q", line, text)
			}
			parts = append(parts, rest[j+1:])
			rest = rest[:j]
		}
		in := rest
		base, _ := strconv.Atoi(parts[3])
		want, _ := strconv.ParseInt(parts[2], 10, 64)
		used, _ := strconv.Atoi(parts[1])
		erange := parts[0] == "1"
		got := Strtoll(in, base)
		if got.Value != want || got.Used != used || got.Range != erange {
			t.Errorf("line %d: Strtoll(%q, %d) = %+v, glibc: value %d used %d erange %v", line, in, base, got, want, used, erange)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d vectors", n)
	}
}

// TestStrtollDecimalProperty: on canonical decimal integers Strtoll is
// strconv.ParseInt, and garbage after the number never changes the value.
func TestStrtollDecimalProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Int64().Draw(t, "x")
		s := strconv.FormatInt(x, 10)
		tail := rapid.StringMatching(`[g-zG-Z_. ,]{0,4}`).Draw(t, "tail")
		for _, base := range []int{0, 10} {
			p := Strtoll(s+tail, base)
			if x != 0 && base == 0 && strings.HasPrefix(strings.TrimLeft(s, "-"), "0") {
				continue
			}
			if p.Value != x || p.Range || p.Used != len(s) {
				t.Fatalf("Strtoll(%q, %d) = %+v, want %d", s+tail, base, p, x)
			}
		}
	})
}

func TestLoadParam(t *testing.T) {
	cases := []struct {
		value string
		set   bool
		want  int64
		out   ParamOutcome
		log   string
	}{
		{"", false, 20, ParamUnset, ""},
		{"", true, 20, ParamEmpty, ""},
		{"23", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"0x17", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"027", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"23abc", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"yes", true, 0, ParamSet, "NCCL_IB_TIMEOUT set by environment to 0."},
		{"99999999999999999999", true, 20, ParamInvalid, "Invalid value 99999999999999999999 for NCCL_IB_TIMEOUT, using default 20."},
	}
	for _, c := range cases {
		v, out, log := LoadParam("NCCL_IB_TIMEOUT", c.value, c.set, 20)
		if v != c.want || out != c.out || log != c.log {
			t.Errorf("LoadParam(%q, %v) = %d, %d, %q; want %d, %d, %q", c.value, c.set, v, out, log, c.want, c.out, c.log)
		}
	}
	if Atoi("4294967297") != 1 {
		t.Errorf("Atoi narrows to int: got %d", Atoi("4294967297"))
	}
}

func FuzzStrtoll(f *testing.F) {
	for _, s := range []string{"0", "-0x10", "  +077", "9223372036854775808", "1e3", "0x", "abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, base := range []int{0, 10, 16} {
			p := Strtoll(s, base)
			if p.Used < 0 || p.Used > len(s) {
				t.Fatalf("Used %d out of range for %q", p.Used, s)
			}
			if !p.Digits() && (p.Value != 0 || p.Range) {
				t.Fatalf("no digits but value %d range %v", p.Value, p.Range)
			}
			// the consumed prefix parses to the same value on its own
			if q := Strtoll(s[:p.Used], base); q != p {
				t.Fatalf("prefix %q of %q: %+v != %+v", s[:p.Used], s, q, p)
			}
		}
	})
}
