package sim

import "testing"

func TestGroupOpTime(t *testing.T) {
	for _, c := range []struct {
		times, launches []Time
		n               int
		want            Time
		err             bool
	}{
		{[]Time{10}, []Time{2}, 1, 10, false},
		// the longest operation after launch (12), over 4, and op 0's launch
		{[]Time{10, 14, 9, 6}, []Time{2, 2, 2, 2}, 4, 2 + 3, false},
		{nil, nil, 1, 0, true},
		{[]Time{1}, []Time{1, 2}, 1, 0, true},
		{[]Time{1}, []Time{1}, 0, 0, true},
	} {
		got, err := GroupOpTime(c.times, c.launches, c.n)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("GroupOpTime(%v, %v, %d) = %v, %v; want %v, error %v", c.times, c.launches, c.n, got, err, c.want, c.err)
		}
	}
}
