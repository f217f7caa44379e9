package io.zkfence.campaigns;

/**
 * One write attempt as a worker logged it (both campaigns: the library's and the lock service's), one JSON line each: which lock and token, the lease's
 * state right before the write, and what each resource answered.
 *
 * @param attempt  unique id ({@code <worker>-<pid>.<start>-<n>}: unique across the worker's restarts), also
 *                 written into the history row
 * @param worker   the worker
 * @param resource the lock name, also the fenced resource's key
 * @param token    the lease's fencing token
 * @param state    the lease's state before the write
 * @param jdbc     {@code accepted}, {@code stale-rejected}, {@code retryable} or {@code error: ...}
 * @param s3       same, for the S3 document
 * @param acquiredAt when the lock was granted (epoch ms; the workers share the machine's clock)
 * @param atMillis when the worker logged it, after both writes
 * @param stateAfter the lease's state after the writes
 * @param thread   the worker's thread that made the attempt (null in logs written before it was recorded):
 *                 two threads of one process must never be inside one grant at once
 */
public record Attempt(
        String attempt,
        String worker,
        String resource,
        long token,
        String state,
        String jdbc,
        String s3,
        long acquiredAt,
        long atMillis,
        String stateAfter,
        String thread) {

    /** The resource accepted the write. */
    public static final String ACCEPTED = "accepted";
    /** The resource rejected the write: a higher token had been accepted. */
    public static final String STALE = "stale-rejected";
    /** The resource asked for a retry (a serialization conflict): nothing written. */
    public static final String RETRYABLE = "retryable";
}
