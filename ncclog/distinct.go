package ncclog

// distinct is the one bounded aggregator behind every list a Log keeps of
// distinct records (operations, calls, errors, transports, channel
// summaries, names...): one record per key, in first-seen order, at most
// limit of them, stored in the Log's own slice. A key seen again returns
// its record for the caller to count; a new key past the limit is dropped
// (and counted where the Log has a field for it), so memory does not grow
// with the log.
type distinct[K comparable, T any] struct {
	idx     map[K]int
	list    *[]T
	limit   int
	dropped *int
}

// newDistinct binds an aggregator to list; dropped may be nil.
func newDistinct[K comparable, T any](list *[]T, limit int, dropped *int) *distinct[K, T] {
	return &distinct[K, T]{idx: map[K]int{}, list: list, limit: limit, dropped: dropped}
}

// add returns key's record and whether it is new (then it is the zero
// value, for the caller to fill in); nil when the key is new and the list
// is full. The pointer is valid until the next add.
func (d *distinct[K, T]) add(key K) (*T, bool) {
	if i, ok := d.idx[key]; ok {
		return &(*d.list)[i], false
	}
	if len(*d.list) >= d.limit {
		if d.dropped != nil {
			*d.dropped++
		}
		return nil, false
	}
	d.idx[key] = len(*d.list)
	var zero T
	*d.list = append(*d.list, zero)
	return &(*d.list)[len(*d.list)-1], true
}

// get returns key's record if it was kept.
func (d *distinct[K, T]) get(key K) (*T, bool) {
	if i, ok := d.idx[key]; ok {
		return &(*d.list)[i], true
	}
	return nil, false
}

// firstSeen is a bounded set: first reports whether key has not been seen
// and there is room to remember it (then it is remembered).
type firstSeen[K comparable] struct {
	set   map[K]struct{}
	limit int
}

func newFirstSeen[K comparable](limit int) *firstSeen[K] {
	return &firstSeen[K]{set: map[K]struct{}{}, limit: limit}
}

func (s *firstSeen[K]) first(key K) bool {
	if _, ok := s.set[key]; ok || len(s.set) >= s.limit {
		return false
	}
	s.set[key] = struct{}{}
	return true
}

// seen reports whether key was remembered before; a new key is remembered
// while there is room. Unlike first, a false answer for a new key does not
// depend on room, so "if !seen(k) { work }" redoes work only once full.
func (s *firstSeen[K]) seen(key K) bool {
	if _, ok := s.set[key]; ok {
		return true
	}
	if len(s.set) < s.limit {
		s.set[key] = struct{}{}
	}
	return false
}
