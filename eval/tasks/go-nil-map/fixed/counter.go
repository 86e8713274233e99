// Package metrics counts events by name.
package metrics

import "sort"

// Counter counts events by name; the zero value is not ready to use, call NewCounter.
type Counter struct {
	counts map[string]int
}

// NewCounter returns an empty counter.
func NewCounter() *Counter {
	return &Counter{counts: map[string]int{}}
}

// Add records n more events called name.
func (c *Counter) Add(name string, n int) {
	c.counts[name] += n
}

// Top returns the names with the most events, most first (ties by name), at most limit of them.
func (c *Counter) Top(limit int) []string {
	names := make([]string, 0, len(c.counts))
	for name := range c.counts {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if c.counts[names[i]] != c.counts[names[j]] {
			return c.counts[names[i]] > c.counts[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > limit {
		names = names[:limit]
	}
	return names
}
