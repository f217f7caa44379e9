//go:build linux

package zkfence

import (
	"syscall"
	"time"
	"unsafe"
)

const clockBoottime = 7 // CLOCK_BOOTTIME, linux/time.h

func boottime() (time.Duration, bool) {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

func pickClock() (func() time.Duration, string) {
	if _, ok := boottime(); ok {
		return func() time.Duration { d, _ := boottime(); return d }, "CLOCK_BOOTTIME"
	}
	return newJumpClock(monotonic, wallClock).now, "monotonic + jump detection"
}
