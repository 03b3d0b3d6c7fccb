package lru

import (
	"testing"

	"pgregory.net/rapid"
)

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := New[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 { // a is now the most recent
		t.Fatalf("a: %v %v", v, ok)
	}
	c.Put("c", 3) // forgets b
	if _, ok := c.Get("b"); ok {
		t.Error("b survived although it was the least recently used")
	}
	for k, want := range map[string]int{"a": 1, "c": 3} {
		if v, ok := c.Get(k); !ok || v != want {
			t.Errorf("%s: %v %v, want %d", k, v, ok, want)
		}
	}
	c.Put("c", 4)
	if v, _ := c.Get("c"); v != 4 || c.Len() != 2 {
		t.Errorf("replacing c: %v, len %d", v, c.Len())
	}
}

// The cache agrees with a reference model: a slice in recency order.
func TestMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := rapid.IntRange(1, 5).Draw(t, "max")
		c := New[int, int](max)
		var order []int // most recent first
		vals := map[int]int{}
		touch := func(k int) {
			for i, x := range order {
				if x == k {
					order = append(order[:i], order[i+1:]...)
					break
				}
			}
			order = append([]int{k}, order...)
		}
		for i := range rapid.IntRange(0, 60).Draw(t, "n") {
			k := rapid.IntRange(0, 7).Draw(t, "k")
			if rapid.Bool().Draw(t, "put") {
				c.Put(k, i)
				vals[k] = i
				touch(k)
				if len(order) > max {
					delete(vals, order[len(order)-1])
					order = order[:len(order)-1]
				}
				continue
			}
			v, ok := c.Get(k)
			want, wok := vals[k]
			if ok != wok || v != want {
				t.Fatalf("Get(%d) = %v %v, want %v %v", k, v, ok, want, wok)
			}
			if ok {
				touch(k)
			}
		}
		if c.Len() != len(order) {
			t.Fatalf("len %d, want %d", c.Len(), len(order))
		}
	})
}
