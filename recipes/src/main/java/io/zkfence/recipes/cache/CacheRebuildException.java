package io.zkfence.recipes.cache;

/**
 * A {@link CacheRebuild#get} call that could not return a value: the loader failed (its
 * exception is the cause), the store or ZooKeeper failed, or a failed rebuild of the key is
 * backing off. Every caller that waited on the failed rebuild gets it. The message names the key.
 */
public class CacheRebuildException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String key;

    CacheRebuildException(String key, String message, Throwable cause) {
        super(message + " (cache key '" + key + "')", cause);
        this.key = key;
    }

    /** The cache key whose value could not be had. */
    public String key() {
        return key;
    }
}
