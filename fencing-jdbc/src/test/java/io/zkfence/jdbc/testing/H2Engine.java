package io.zkfence.jdbc.testing;

import io.zkfence.jdbc.FenceDialect;

/** H2 in memory, kept alive for the JVM; lock waits up to 60 s (H2's default is 10 s). */
final class H2Engine extends Engine {

    private static final String URL = "jdbc:h2:mem:zkfence;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=60000";

    private H2Engine() {
        super(URL, "sa", "");
    }

    static H2Engine start() {
        return new H2Engine();
    }

    @Override
    public String name() {
        return "h2";
    }

    @Override
    public FenceDialect dialect() {
        return FenceDialect.H2;
    }

    @Override
    public String jdbcUrl() {
        return URL;
    }

    @Override
    protected String boundLockWaitsSql() {
        return "SET LOCK_TIMEOUT 200";
    }

    @Override
    protected String lockWaitersSql() {
        // H2 names the blocker for a row lock, but not for an INSERT waiting on another session's
        // uncommitted row with the same key: count a statement running for a while as waiting.
        return "select count(*) from information_schema.sessions where session_id <> session_id()"
                + " and (blocker_id is not null or (session_state = 'RUNNING'"
                + " and executing_statement_start < dateadd('MILLISECOND', -200, current_timestamp)))";
    }

    @Override
    protected void stopServer() {
        // In-memory: gone with the JVM.
    }
}
