"""The clock a lease's local deadline is counted on, and the margin kept for clock drift.

A deadline counted on ``CLOCK_MONOTONIC`` (``time.monotonic``) is wrong after the host was
suspended: that clock stops meanwhile, so after a resume ``check()`` would pass for as long as the
suspend lasted although the service's clock ran on and the lease has ended. So the deadline is
counted on a clock that runs through suspend where the OS has one (Linux ``CLOCK_BOOTTIME``), and
elsewhere on ``time.monotonic`` plus every forward jump of the wall clock that the monotonic clock
did not see (a suspend, or a step of the wall clock forward: either way the lease ends early,
never late). ``usable`` takes a drift margin off every validity, as Redlock does (1 % + 2 ms),
for the rate at which this machine's clock may run slower than the service's.
"""

import threading
import time
from typing import Callable, Optional

#: Share of a validity kept back for clock drift, plus a constant for the clocks' granularity.
DRIFT_FACTOR = 0.01
DRIFT_CONSTANT = 0.002
#: A wall-clock advance beyond the monotonic one larger than this counts as a suspend (seconds).
JUMP_THRESHOLD = 0.25


def usable(valid_for: float) -> float:
    """``valid_for`` seconds less the drift margin: what the client trusts of a validity."""
    return max(0.0, valid_for - (valid_for * DRIFT_FACTOR + DRIFT_CONSTANT))


class JumpDetectingClock:
    """``monotonic()`` plus the time it missed while the host was suspended, detected as the
    wall clock advancing further than the monotonic clock between two readings."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time,
                 threshold: float = JUMP_THRESHOLD):
        self._monotonic = monotonic
        self._wall = wall
        self._threshold = threshold
        self._lock = threading.Lock()
        self._last_mono = monotonic()
        self._last_wall = wall()
        self.skipped = 0.0  # seconds of suspend detected so far

    def __call__(self) -> float:
        with self._lock:
            mono, wall = self._monotonic(), self._wall()
            gap = (wall - self._last_wall) - (mono - self._last_mono)
            if gap > self._threshold:
                self.skipped += gap
            self._last_mono, self._last_wall = mono, wall
            return mono + self.skipped


def _boottime() -> Optional[Callable[[], float]]:
    clock_id = getattr(time, "CLOCK_BOOTTIME", None)
    if clock_id is None:
        return None
    try:
        time.clock_gettime(clock_id)
    except OSError:  # a kernel without it
        return None
    return lambda: time.clock_gettime(clock_id)


_BOOT = _boottime()
#: The clock every deadline and time bound of the client is measured on (seconds).
now: Callable[[], float] = _BOOT if _BOOT is not None else JumpDetectingClock()
#: Which one it is (for the docs and the tests).
KIND = "CLOCK_BOOTTIME" if _BOOT is not None else "monotonic + jump detection"
