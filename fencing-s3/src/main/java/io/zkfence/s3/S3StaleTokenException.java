package io.zkfence.s3;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;

/**
 * The object already carries a fencing token higher than the one presented: the caller's lock
 * grant has been superseded, so the write (or delete) was refused and nothing was changed.
 *
 * <p>This is the outcome fencing exists for. A holder that receives it must stop acting on the
 * lock: another holder with a newer grant has written since.
 *
 * <p>It extends the shared {@link StaleTokenException} (whose {@link #resource()} is the
 * {@code s3://bucket/key} location and whose {@link #storedToken()} is the higher token found on
 * the object), so one {@code catch (StaleTokenException e)} handles a stale token from any adapter,
 * and {@code catch (FencingException e)} handles every failure of every adapter, this one
 * included. It does not extend this module's {@link S3FenceException} (Java has one superclass):
 * a {@code catch (S3FenceException e)} does not catch it.
 *
 * <p>Called {@code io.zkfence.s3.StaleTokenException} before 0.2.0.
 *
 * @see FencingException
 */
public final class S3StaleTokenException extends StaleTokenException {

    private static final long serialVersionUID = 1L;

    /** The bucket the refused call was about. */
    private final String bucket;
    /** The object key the refused call was about. */
    private final String key;

    S3StaleTokenException(String bucket, String key, String operation, long presentedToken, long storedToken) {
        super(
                operation + " on " + S3FenceException.location(bucket, key) + " refused: stale fencing token "
                        + presentedToken + ", the object already carries token " + storedToken
                        + " (a token lower than the stored one is rejected); nothing was written",
                S3FenceException.location(bucket, key),
                presentedToken,
                storedToken);
        this.bucket = bucket;
        this.key = key;
    }

    /** The object is gone, but this fence saw {@code seenToken} on it: re-creating it is stale too. */
    S3StaleTokenException(
            String bucket, String key, String operation, long presentedToken, long seenToken, boolean objectGone) {
        super(
                operation + " on " + S3FenceException.location(bucket, key) + " refused: stale fencing token "
                        + presentedToken + "; the object is gone but this fence saw it carry token " + seenToken
                        + " (a lower token may not re-create it); nothing was written",
                S3FenceException.location(bucket, key),
                presentedToken,
                seenToken);
        this.bucket = bucket;
        this.key = key;
    }

    /**
     * Returns the bucket, as {@link S3FenceException#bucket()} does.
     *
     * @return the bucket the refused call was about
     */
    public String bucket() {
        return bucket;
    }

    /**
     * Returns the object key, as {@link S3FenceException#key()} does.
     *
     * @return the object key the refused call was about
     */
    public String key() {
        return key;
    }
}
