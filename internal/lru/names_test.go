package lru

import "testing"

// TestNames: a text keeps its name while remembered, two texts never share
// one, and a forgotten text named again gets a name no text had.
func TestNames(t *testing.T) {
	n := NewNames(2, "s")
	a, b := n.Name("alpha"), n.Name("beta")
	if a == b || n.Name("alpha") != a || n.Name("beta") != b {
		t.Fatalf("names %q %q, then %q %q", a, b, n.Name("alpha"), n.Name("beta"))
	}
	seen := map[string]string{a: "alpha", b: "beta"}
	for _, text := range []string{"gamma", "alpha", "delta", "beta", "gamma"} {
		s := n.Name(text)
		if prev, ok := seen[s]; ok && prev != text {
			t.Fatalf("%q named %q, the name of %q", text, s, prev)
		}
		seen[s] = text
	}
	if got := n.Name("alpha"); got == a {
		t.Fatalf("alpha, forgotten (capacity 2), got its old name %q back", got)
	}
}
