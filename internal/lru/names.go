package lru

import (
	"strconv"
	"sync/atomic"
)

// Names gives long strings (the texts cache keys are made of: settings
// and topologies written out, kilobytes each) short names, so that the
// keys holding a name rather than the text are short to build, hash and
// compare. A name is never given to two texts: a text forgotten and named
// again gets a new name (keys made with its old name only miss). It is
// bounded like Cache and safe for concurrent use.
type Names struct {
	m      *Cache[string, string]
	prefix string
	last   atomic.Int64
}

// NewNames returns a namer remembering at most max texts, whose names
// start with prefix.
func NewNames(max int, prefix string) *Names {
	return &Names{m: New[string, string](max), prefix: prefix}
}

// Name is text's short name.
func (n *Names) Name(text string) string {
	if s, ok := n.m.Get(text); ok {
		return s
	}
	s := n.prefix + strconv.FormatInt(n.last.Add(1), 10)
	n.m.Put(text, s)
	return s
}
