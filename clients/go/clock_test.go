package zkfence

import (
	"testing"
	"time"
)

func TestAForwardJumpOfTheWallClockThatTheMonotonicClockMissedCountsAsElapsed(t *testing.T) {
	mono, wall := 100*time.Second, 5000*time.Second
	c := newJumpClock(func() time.Duration { return mono }, func() time.Duration { return wall })
	mono, wall = mono+time.Second, wall+time.Second
	if got := c.now(); got != 101*time.Second {
		t.Fatal(got)
	}
	mono, wall = mono+500*time.Millisecond, wall+30500*time.Millisecond // suspended 30 s
	if got := c.now(); got != 131500*time.Millisecond {
		t.Fatal(got)
	}
	mono, wall = mono+time.Second, wall-time.Minute // the wall clock set back: nothing
	if got := c.now(); got != 132500*time.Millisecond {
		t.Fatal(got)
	}
}

func TestLinuxCountsOnClockBoottimeAndTheDriftMarginIsRedlocks(t *testing.T) {
	if clockKind != "CLOCK_BOOTTIME" {
		t.Fatal(clockKind)
	}
	if a, b := now(), now(); b < a {
		t.Fatal("the clock went back")
	}
	if got := usable(10 * time.Second); got != 10*time.Second-100*time.Millisecond-2*time.Millisecond {
		t.Fatal(got)
	}
}
