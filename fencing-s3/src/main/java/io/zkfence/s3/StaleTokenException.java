package io.zkfence.s3;

/**
 * The object already carries a fencing token higher than the one presented: the caller's lock
 * grant has been superseded, so the write (or delete) was refused and nothing was changed.
 *
 * <p>This is the outcome fencing exists for. A holder that receives it must stop acting on the
 * lock: another holder with a newer grant has written since.
 *
 * <p>It extends the shared {@link io.zkfence.fencing.StaleTokenException} (whose
 * {@link #resource()} is the {@code s3://bucket/key} location and whose
 * {@link #storedToken()} is the higher token found on the object), not this module's
 * {@link FenceException}: a {@code catch (FenceException e)} does not catch it; a
 * {@code catch (io.zkfence.fencing.FencingException e)} catches both.
 */
public final class StaleTokenException extends io.zkfence.fencing.StaleTokenException {

    private static final long serialVersionUID = 1L;

    /** The bucket the refused call was about. */
    private final String bucket;
    /** The object key the refused call was about. */
    private final String key;

    StaleTokenException(String bucket, String key, String operation, long presentedToken, long storedToken) {
        super(
                operation + " on " + FenceException.location(bucket, key) + " refused: stale fencing token "
                        + presentedToken + ", the object already carries token " + storedToken
                        + " (a token lower than the stored one is rejected); nothing was written",
                FenceException.location(bucket, key),
                presentedToken,
                storedToken);
        this.bucket = bucket;
        this.key = key;
    }

    /** The object is gone, but this fence saw {@code seenToken} on it: re-creating it is stale too. */
    StaleTokenException(
            String bucket, String key, String operation, long presentedToken, long seenToken, boolean objectGone) {
        super(
                operation + " on " + FenceException.location(bucket, key) + " refused: stale fencing token "
                        + presentedToken + "; the object is gone but this fence saw it carry token " + seenToken
                        + " (a lower token may not re-create it); nothing was written",
                FenceException.location(bucket, key),
                presentedToken,
                seenToken);
        this.bucket = bucket;
        this.key = key;
    }

    /**
     * Returns the bucket, as {@link FenceException#bucket()} does.
     *
     * @return the bucket the refused call was about
     */
    public String bucket() {
        return bucket;
    }

    /**
     * Returns the object key, as {@link FenceException#key()} does.
     *
     * @return the object key the refused call was about
     */
    public String key() {
        return key;
    }
}
