package nccl

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"NCCL_BUFFLE_SIZE", "NCCL_BUFFSIZE", 3}, {"kitten", "sitting", 3}, {"", "abc", 3}}
	for _, c := range cases {
		if d := EditDistance(c.a, c.b); d != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.StringMatching(`[A-C_]{0,8}`).Draw(t, "a")
		b := rapid.StringMatching(`[A-C_]{0,8}`).Draw(t, "b")
		d := EditDistance(a, b)
		if d != EditDistance(b, a) {
			t.Fatalf("not symmetric")
		}
		if (d == 0) != (a == b) {
			t.Fatalf("zero iff equal")
		}
		if d > max(len(a), len(b)) || d < abs(len(a)-len(b)) {
			t.Fatalf("bounds: %d for %q %q", d, a, b)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestClosest(t *testing.T) {
	colls := FuncNames(AllFuncs)
	presets := []string{"dgx-a100", "dgx-h100", "h200x2", "h200x8", "v100x4"}
	cases := []struct {
		s     string
		valid []string
		want  string
	}{
		{"allredcue", colls, "allreduce"},
		{"AllGathr", colls, "allgather"},
		{"reduce_scater", colls, "reducescatter"},
		{"bcast", colls, ""},
		{"dgx-h10", presets, "dgx-h100"},
		{"h200", presets, "h200x2"},
		{"nvsl", AlgoNames(), "NVLS"},
		{"ll12", ProtoNames(), "LL128"},
		{"bflot16", DataTypeNames(), "bfloat16"},
		{"xor", RedOpNames(), ""},
		{"", colls, ""},
	}
	for _, c := range cases {
		got, ok := Closest(c.s, c.valid)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", c.s, got, ok, c.want)
		}
	}
}

func TestParseList(t *testing.T) {
	all := []Algo{Ring, Tree}
	for in, want := range map[string][]Algo{"": all, "all": all, " ALL ": all, "nvls": {NVLS}, "ring, pat": {Ring, PAT}} {
		got, err := ParseList(in, all, ParseAlgo)
		if err != nil || len(got) != len(want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v", in, got, err, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("ParseList(%q) = %v, want %v", in, got, want)
			}
		}
	}
	if _, err := ParseList("ring,rign", all, ParseAlgo); err == nil || !strings.Contains(err.Error(), `"ring,rign"`) {
		t.Errorf("a typo: %v", err)
	}
}
