package io.zkfence.redis;

import io.zkfence.fencing.FencingException;
import java.io.Serial;
import java.util.Objects;

/**
 * Base of the exceptions the Redis fence throws, a stale token excepted
 * ({@link RedisStaleTokenException}, a sibling under {@link FencingException}). Unchecked; names
 * the fence key and keeps the cause. Thrown as it is when:
 * <ul>
 * <li>the server could not be reached or did not answer in time: {@link #outcomeUnknown()} is
 *     true, the call may or may not have been applied (read the fence's token to find out);</li>
 * <li>the server answered with an error (a script error, an ACL denial, out of memory, a
 *     replica that refuses writes): nothing was written;</li>
 * <li>the fence record holds something that is not a token (another program wrote that key):
 *     nothing was written;</li>
 * <li>a write failed on the server after the fence accepted the token (a {@code WRONGTYPE},
 *     {@code INCRBY} on a value that is not a number, an error raised by a fenced script): the
 *     fence's advance and the writes before the failed one stay, as a Redis script's writes
 *     do.</li>
 * </ul>
 * Its subclass {@link RedisFenceNotSeededException} says the fence cannot tell which tokens are
 * stale since the server lost or may have lost its data.
 */
public class RedisFenceException extends FencingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String fence;
    private final boolean outcomeUnknown;

    RedisFenceException(String fence, String message, boolean outcomeUnknown, Throwable cause) {
        super(message, cause);
        this.fence = Objects.requireNonNull(fence, "fence");
        this.outcomeUnknown = outcomeUnknown;
    }

    /**
     * The fence key the failed call was about.
     *
     * @return the fence key
     */
    public String fence() {
        return fence;
    }

    /**
     * True when no answer came back, so the server may or may not have applied the call.
     *
     * @return whether the outcome is unknown
     */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
