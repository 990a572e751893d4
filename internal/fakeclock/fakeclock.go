// Package fakeclock is a clock a test moves by hand, for the code that
// takes one (purge.Clock): a wait ends when Advance passes it, so no test
// depends on how fast the machine is, and every wait asked for is kept.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is the time a test sets; its zero value is not usable (New).
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	asked   []time.Duration // every wait asked for, in order
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// New is a clock standing at at.
func New(at time.Time) *Clock { return &Clock{now: at} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After is a wait of d, ended by Advance; one of d <= 0 has ended.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, d)
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the time on and ends the waits it passes.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

// Forget drops the waits of goroutines that have stopped waiting.
func (c *Clock) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiters = nil
}

// Waiting is how many waits have not ended.
func (c *Clock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// Asked is every wait asked for, in order.
func (c *Clock) Asked() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.asked...)
}

// LastAsked is the last wait asked for, zero when none was.
func (c *Clock) LastAsked() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) == 0 {
		return 0
	}
	return c.asked[len(c.asked)-1]
}

// UntilNext is how long until the earliest wait ends; false when none
// waits.
func (c *Clock) UntilNext() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return 0, false
	}
	at := c.waiters[0].at
	for _, w := range c.waiters[1:] {
		if w.at.Before(at) {
			at = w.at
		}
	}
	return at.Sub(c.now), true
}
