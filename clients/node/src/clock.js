// The clock a lease's local deadline is counted on, and the margin kept for clock drift.
//
// performance.now() is CLOCK_MONOTONIC on Linux, which stops while the host is suspended: after a
// resume, a deadline counted on it alone would let check() pass for as long as the suspend lasted
// although the service's clock ran on. Node has no API for CLOCK_BOOTTIME, so now() adds every
// forward jump of the wall clock (Date.now()) that performance.now() did not see between two
// readings: a suspend, or the wall clock stepped forward; either way a lease ends early, never
// late. Every check() and every timer of a lease reads it, so a jump is seen at the next look.
// (Reading /proc/uptime, which is CLOCK_BOOTTIME, would be exact but Linux-only and a file read
// per check(); the jump test works on every OS.)

/** Share of a validity kept back for clock drift (Redlock's), plus a constant in ms. */
export const DRIFT_FACTOR = 0.01;
export const DRIFT_CONSTANT_MS = 2;
/** A wall-clock advance beyond the monotonic one larger than this counts as a suspend (ms). */
export const JUMP_THRESHOLD_MS = 250;

/** `validMs` less the drift margin: what the client trusts of a validity. */
export function usable(validMs) {
  return Math.max(0, validMs - (validMs * DRIFT_FACTOR + DRIFT_CONSTANT_MS));
}

/** A clock: `monotonic()` plus the forward jumps of `wall()` it missed. */
export function jumpDetectingClock(monotonic = () => performance.now(), wall = () => Date.now(),
  thresholdMs = JUMP_THRESHOLD_MS) {
  let lastMono = monotonic();
  let lastWall = wall();
  let skipped = 0;
  const read = () => {
    const mono = monotonic();
    const w = wall();
    const gap = (w - lastWall) - (mono - lastMono);
    if (gap > thresholdMs) skipped += gap;
    lastMono = mono;
    lastWall = w;
    return mono + skipped;
  };
  read.skipped = () => skipped;
  return read;
}

/** Milliseconds on the clock every deadline and time bound of the client is measured on. */
export const now = jumpDetectingClock();
