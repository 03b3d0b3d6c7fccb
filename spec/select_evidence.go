package spec

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// A decision's evidence is the communicator's with the levels its
// operation proved. Few sets of raises occur on one communicator (the
// chosen algorithm's, the net's), so the maps are kept per communicator
// and shared by its decisions: Decision.Evidence is read only.

// evidenceKey is a set of raises: the highest level raised for each
// capability, 4 bits per capability in Capabilities' order (0: none).
type evidenceKey uint64

// capLevel is one raise.
type capLevel struct {
	cap   Capability
	level Level
}

// raise records that c reached l; false when the key cannot hold it (c
// not in Capabilities' first 16, or l above 15).
func (k *evidenceKey) raise(c Capability, l Level) bool {
	if l <= LevelNone {
		return true // Evidence.Raise never lowers nor adds a level 0
	}
	i := slices.Index(Capabilities, c)
	if i < 0 || i >= 16 || l > 15 {
		return false
	}
	sh := 4 * uint(i)
	if Level(*k>>sh&15) < l {
		*k = *k&^(15<<sh) | evidenceKey(l)<<sh
	}
	return true
}

// applyTo raises e by every level of k.
func (k evidenceKey) applyTo(e Evidence) {
	for i, c := range Capabilities[:min(16, len(Capabilities))] {
		if l := Level(k >> (4 * uint(i)) & 15); l > LevelNone {
			e.Raise(c, l)
		}
	}
}

// evidenceMemo holds a communicator's decision evidence, one map per
// set of raises; readers take the list without a lock.
type evidenceMemo struct {
	mu      sync.Mutex
	entries atomic.Pointer[[]evidenceEntry]
}

type evidenceEntry struct {
	key evidenceKey
	ev  Evidence
}

// evidenceMemoSize bounds a communicator's kept maps; past it a decision
// gets a map of its own.
const evidenceMemoSize = 64

// evidenceWith is the communicator's evidence raised by k and by odd,
// shared with every decision of the same raises.
func (c *Comm) evidenceWith(k evidenceKey, odd []capLevel) Evidence {
	m := c.evMemo
	if m == nil || len(odd) > 0 {
		return c.evidenceFresh(k, odd)
	}
	if p := m.entries.Load(); p != nil {
		for _, e := range *p {
			if e.key == k {
				return e.ev
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var cur []evidenceEntry
	if p := m.entries.Load(); p != nil {
		cur = *p
		for _, e := range cur {
			if e.key == k {
				return e.ev
			}
		}
	}
	ev := c.evidenceFresh(k, nil)
	if len(cur) < evidenceMemoSize {
		next := append(cur[:len(cur):len(cur)], evidenceEntry{k, ev})
		m.entries.Store(&next)
	}
	return ev
}

// evidenceFresh is a new map: the communicator's evidence with the raises.
func (c *Comm) evidenceFresh(k evidenceKey, odd []capLevel) Evidence {
	ev := make(Evidence, len(Capabilities))
	maps.Copy(ev, c.Evidence)
	k.applyTo(ev)
	for _, r := range odd {
		ev.Raise(r.cap, r.level)
	}
	return ev
}
