package nccl

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

// Base 0 is how every NCCL_PARAM and the topology and tuning variables are
// read (ncclLoadParam, strtoll(value, NULL, 0)).
func TestStrtollBase0(t *testing.T) {
	cases := map[string]int64{"0": 0, "1": 1, "0x10": 16, "010": 8, "1abc": 1, "abc": 0, " 42": 42, "-3": -3, "+7": 7,
		"0x": 0, "08": 0, "4M": 4, "": 0, "9223372036854775807": 9223372036854775807}
	for in, want := range cases {
		if p := Strtoll(in, 0); p.Value != want || p.Range {
			t.Errorf("Strtoll(%q, 0) = %+v, want %d", in, p, want)
		}
	}
	if p := Strtoll("9223372036854775808", 0); !p.Range {
		t.Error("no overflow for 2^63")
	}
	if p := Strtoll("-9223372036854775808", 0); p.Range || p.Value != -1<<63 {
		t.Errorf("min int64: %+v", p)
	}
}

func TestAtoiNarrows(t *testing.T) {
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
		// a plain decimal within range agrees with strconv in base 0
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && (len(s) < 2 || s[0] != '0') && !strings.HasPrefix(s, "+0") && !strings.HasPrefix(s, "-0") {
			if p := Strtoll(s, 0); p.Value != n || p.Range {
				t.Fatalf("Strtoll(%q, 0) = %+v, strconv %d", s, p, n)
			}
		}
	})
}
