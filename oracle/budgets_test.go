package oracle

import (
	"strings"
	"testing"
	"time"
)

// TestBudgetsApply: each budget is checked against its range, and a valid
// set reaches the oracle (the memory in bytes of the one size grammar).
func TestBudgetsApply(t *testing.T) {
	ok := Budgets{MaxRanks: 64, MaxLine: 1 << 20, Workers: 2, Timeout: time.Second, MaxMemory: "1G"}
	o := New(nil)
	if err := ok.Apply(o); err != nil || o.MaxRanks != 64 || o.MaxMemory != 1<<30 || o.Timeout != time.Second || o.Workers != 2 {
		t.Fatalf("Apply: %v, oracle %d %d %v %d", err, o.MaxRanks, o.MaxMemory, o.Timeout, o.Workers)
	}
	for _, tc := range []struct {
		edit func(*Budgets)
		want string
	}{
		{func(b *Budgets) { b.MaxRanks = 0 }, "--max-ranks 0"},
		{func(b *Budgets) { b.MaxLine = 0 }, "--max-line 0"},
		{func(b *Budgets) { b.Timeout = 25 * time.Hour }, "--timeout"},
		{func(b *Budgets) { b.MaxMemory = "1M" }, "--max-memory"},
		{func(b *Budgets) { b.MaxMemory = "lots" }, "--max-memory"},
		{func(b *Budgets) { b.Workers = 0 }, "--workers 0"},
	} {
		b := ok
		tc.edit(&b)
		if err := b.Apply(New(nil)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", b, err, tc.want)
		}
	}
}
