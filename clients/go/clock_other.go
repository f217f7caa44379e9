//go:build !linux

package zkfence

import "time"

func pickClock() (func() time.Duration, string) {
	return newJumpClock(monotonic, wallClock).now, "monotonic + jump detection"
}
