package io.zkfence.jdbc;

/**
 * The module's exceptions for tests outside this package (their constructors are package-private:
 * only the fence throws them), e.g. to drive a retry loop without a real conflict.
 */
public final class TestFailures {

    private TestFailures() {}

    public static SerializationConflictException conflict(String key, long token) {
        return new SerializationConflictException("conflict (test)", key, token, null);
    }

    public static JdbcStaleTokenException stale(String key, long presented, long stored) {
        return new JdbcStaleTokenException(key, presented, stored, FenceConfig.DEFAULT_TABLE);
    }
}
