package zkfence

import (
	"sync"
	"time"
)

// The clock a lease's local deadline is counted on, and the margin kept for clock drift.
//
// Go's monotonic clock (time.Since) is CLOCK_MONOTONIC on Linux, which stops while the host is
// suspended: after a resume, Check would pass for as long as the suspend lasted although the
// service's clock ran on. So deadlines are counted on CLOCK_BOOTTIME where the OS has it (Linux,
// clock_linux.go) and elsewhere on the monotonic clock plus every forward jump of the wall clock
// that it did not see (a suspend, or the wall clock stepped forward: either way a lease ends
// early, never late). usable takes Redlock's drift margin (1 % + 2 ms) off every validity.

const (
	driftFactor   = 0.01
	driftConstant = 2 * time.Millisecond
	jumpThreshold = 250 * time.Millisecond
)

// usable is a validity less the drift margin: what the client trusts of it.
func usable(valid time.Duration) time.Duration {
	u := valid - time.Duration(float64(valid)*driftFactor) - driftConstant
	if u < 0 {
		return 0
	}
	return u
}

// jumpClock is the monotonic clock plus the forward jumps of the wall clock it missed.
type jumpClock struct {
	mu       sync.Mutex
	mono     func() time.Duration
	wall     func() time.Duration
	lastMono time.Duration
	lastWall time.Duration
	skipped  time.Duration
}

func newJumpClock(mono, wall func() time.Duration) *jumpClock {
	return &jumpClock{mono: mono, wall: wall, lastMono: mono(), lastWall: wall()}
}

func (c *jumpClock) now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, w := c.mono(), c.wall()
	if gap := (w - c.lastWall) - (m - c.lastMono); gap > jumpThreshold {
		c.skipped += gap
	}
	c.lastMono, c.lastWall = m, w
	return m + c.skipped
}

var start = time.Now()

func monotonic() time.Duration { return time.Since(start) }

func wallClock() time.Duration { return time.Duration(time.Now().UnixNano()) }

// now is the time every deadline and time bound of the client is measured on.
var now, clockKind = pickClock()
