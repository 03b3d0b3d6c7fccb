// Package lru is a bounded map that forgets its least recently used entry
// when full. The oracle and the topology-search cache keep communicators
// and searches in it: a long conformance run names more machines than fit,
// and forgetting the oldest one (rather than everything) keeps the working
// set warm. It is safe for concurrent use.
package lru

import "sync"

// Cache maps K to V, holding at most Max entries.
type Cache[K comparable, V any] struct {
	mu         sync.Mutex
	max        int
	m          map[K]*entry[K, V]
	head, tail *entry[K, V] // head: most recently used
}

type entry[K comparable, V any] struct {
	key        K
	val        V
	prev, next *entry[K, V]
}

// New returns a cache of at most max entries (max ≥ 1).
func New[K comparable, V any](max int) *Cache[K, V] {
	if max < 1 {
		max = 1
	}
	return &Cache[K, V]{max: max, m: make(map[K]*entry[K, V])}
}

// Get returns the value under key and marks it most recently used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.front(e)
	return e.val, true
}

// Put stores val under key as the most recently used entry, forgetting the
// least recently used one when the cache is full.
func (c *Cache[K, V]) Put(key K, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		e.val = val
		c.front(e)
		return
	}
	if len(c.m) >= c.max {
		old := c.tail
		c.unlink(old)
		delete(c.m, old.key)
	}
	e := &entry[K, V]{key: key, val: val}
	c.m[key] = e
	c.pushFront(e)
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func (c *Cache[K, V]) front(e *entry[K, V]) {
	if c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *Cache[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}
