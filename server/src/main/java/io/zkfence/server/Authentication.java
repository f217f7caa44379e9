package io.zkfence.server;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Who is calling: the caller a call's bearer API key names ({@link ApiKeys}), or the replica's own
 * warm-up, whose one-off key is accepted only while the warm-up runs and only in the warm-up's
 * namespace ({@link WarmUp#NAMESPACE}).
 */
final class Authentication {

    private static final ApiKeys.Caller WARM_UP_CALLER = new ApiKeys.Caller("warm-up", Set.of(WarmUp.NAMESPACE), false);

    private final ApiKeys apiKeys;
    /** The API key the warm-up sends (only while it runs), or null. */
    private volatile String warmUpKey;

    Authentication(ApiKeys apiKeys) {
        this.apiKeys = apiKeys;
    }

    /**
     * The caller of {@code ctx}.
     *
     * @throws LockServiceException 401 {@code UNAUTHORIZED} if API keys are on and the call's is missing or unknown
     */
    ApiKeys.Caller caller(Context ctx) {
        String warmUp = warmUpKey;
        String authorization = ctx.header("Authorization");
        if (warmUp != null
                && authorization != null
                && MessageDigest.isEqual(
                        authorization.getBytes(StandardCharsets.UTF_8),
                        ("Bearer " + warmUp).getBytes(StandardCharsets.UTF_8))) {
            return WARM_UP_CALLER;
        }
        return apiKeys.authenticate(authorization);
    }

    /**
     * The lock the call's path names, in a namespace its caller may use.
     *
     * @throws LockServiceException 400 for a bad lockKey, 401 or 403 {@code NAMESPACE_FORBIDDEN} for the caller
     */
    LockKey lockKey(Context ctx) {
        LockKey key = LockKey.parse(ctx.pathParam("lockKey"));
        ApiKeys.requireNamespace(caller(ctx), key.namespace());
        return key;
    }

    /**
     * Makes a one-off key for the warm-up and accepts it until {@link #revokeWarmUpKey()}.
     *
     * @return the key to send, or null if API keys are off (the warm-up then sends none)
     */
    String issueWarmUpKey() {
        if (!apiKeys.enabled()) {
            return null;
        }
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        warmUpKey = HexFormat.of().formatHex(key);
        return warmUpKey;
    }

    /** Accepts the warm-up's key no more. */
    void revokeWarmUpKey() {
        warmUpKey = null;
    }
}
