package io.zkfence.s3;

/**
 * The object already carries a fencing token higher than the one presented: the caller's lock
 * grant has been superseded, so the write (or delete) was refused and nothing was changed.
 *
 * <p>This is the outcome fencing exists for. A holder that receives it must stop acting on the
 * lock: another holder with a newer grant has written since.
 */
public final class StaleTokenException extends FenceException {

    private final long presentedToken;
    private final long storedToken;

    StaleTokenException(String bucket, String key, String operation, long presentedToken, long storedToken) {
        super(bucket, key,
                operation + " on " + location(bucket, key) + " refused: stale fencing token " + presentedToken
                        + ", the object already carries token " + storedToken
                        + " (a token lower than the stored one is rejected); nothing was written",
                null);
        this.presentedToken = presentedToken;
        this.storedToken = storedToken;
    }

    /** The object is gone, but this fence saw {@code seenToken} on it: re-creating it is stale too. */
    StaleTokenException(String bucket, String key, String operation, long presentedToken, long seenToken,
            boolean objectGone) {
        super(bucket, key,
                operation + " on " + location(bucket, key) + " refused: stale fencing token " + presentedToken
                        + "; the object is gone but this fence saw it carry token " + seenToken
                        + " (a lower token may not re-create it); nothing was written",
                null);
        this.presentedToken = presentedToken;
        this.storedToken = seenToken;
    }

    /** The token the caller presented. */
    public long presentedToken() {
        return presentedToken;
    }

    /** The higher token found on the object. */
    public long storedToken() {
        return storedToken;
    }
}
