package io.zkfence.jdbc.testing;

import io.zkfence.jdbc.FenceDialect;
import io.zkfence.testing.PostgresServer;

/** PostgreSQL from test-support's {@link PostgresServer} (a server of the engine's own). */
final class PostgresEngine extends Engine {

    private final PostgresServer server;

    private PostgresEngine(PostgresServer server) {
        super(server.jdbcUrl(), PostgresServer.USER, null);
        this.server = server;
    }

    static PostgresEngine start() {
        return new PostgresEngine(PostgresServer.start());
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public FenceDialect dialect() {
        return FenceDialect.POSTGRES;
    }

    @Override
    public String jdbcUrl() {
        return server.jdbcUrl();
    }

    @Override
    protected String boundLockWaitsSql() {
        return "SET lock_timeout = '200ms'";
    }

    @Override
    protected String lockWaitersSql() {
        return "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()";
    }

    @Override
    protected void stopServer() {
        server.close();
    }
}
