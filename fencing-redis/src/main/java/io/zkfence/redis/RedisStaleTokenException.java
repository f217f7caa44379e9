package io.zkfence.redis;

import io.zkfence.fencing.StaleTokenException;
import java.io.Serial;

/**
 * The fence already accepted a higher token than the one presented (or its slot's floor is
 * higher): the caller's lock grant has been superseded, the call was refused, and nothing was
 * written. Stop acting on the lock; do not retry with this token.
 *
 * <p>It extends the shared {@link StaleTokenException}: {@link #resource()} is the fence key,
 * {@link #storedToken()} the token the fence holds. It does not extend
 * {@link RedisFenceException}: a {@code catch (RedisFenceException e)} does not catch it, a
 * {@code catch (io.zkfence.fencing.FencingException e)} does.
 */
public final class RedisStaleTokenException extends StaleTokenException {

    @Serial
    private static final long serialVersionUID = 1L;

    RedisStaleTokenException(String fence, String operation, long presentedToken, long storedToken) {
        super(
                operation + " on Redis fence '" + Keys.shown(fence) + "' refused: stale fencing token "
                        + presentedToken + ", the fence holds token " + storedToken
                        + " (a token lower than the stored one is rejected); nothing was written",
                fence,
                presentedToken,
                storedToken);
    }

    /**
     * The fence key, as {@link #resource()} gives it.
     *
     * @return the fence key
     */
    public String fence() {
        return resource();
    }
}
