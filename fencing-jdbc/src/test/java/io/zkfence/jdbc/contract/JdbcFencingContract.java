package io.zkfence.jdbc.contract;

import io.zkfence.fencing.contract.FencedResource;
import io.zkfence.fencing.contract.FencingContract;
import io.zkfence.jdbc.ConflictRetry;
import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.testing.Engine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * fencing-api's {@link FencingContract} on one engine: a value is a row of a business table
 * written in {@link JdbcFence#inTransaction}, so a rejected write is a unit of work of which
 * nothing is committed. Serialization conflicts are retried as the docs advise.
 */
public abstract class JdbcFencingContract extends FencingContract {

    private static final String VALUES = "zk_contract_value";

    /** The engine this concrete suite runs on. */
    protected abstract Engine engine();

    @Override
    protected FencedResource newResource() {
        Engine engine = engine();
        engine.execute("create table if not exists " + VALUES
                + " (resource_key varchar(255) primary key, val varchar(255) not null)");
        JdbcFence fence = JdbcFence.create(engine.dataSource(), FenceConfig.defaults(engine.dialect()));
        fence.createIfMissing();
        return new RowResource(engine, fence);
    }

    private record RowResource(Engine engine, JdbcFence fence) implements FencedResource {

        private static final ConflictRetry RETRY = ConflictRetry.within(Duration.ofSeconds(30));

        @Override
        public void write(String key, long token, String value, Runnable midway) {
            RETRY.run(() -> fence.inTransaction(key, token, c -> {
                try (PreparedStatement update =
                        c.prepareStatement("update " + VALUES + " set val = ? where resource_key = ?")) {
                    update.setString(1, value);
                    update.setString(2, key);
                    if (update.executeUpdate() == 0) {
                        // No race on the insert: the fence row's lock is held until commit.
                        try (PreparedStatement insert =
                                c.prepareStatement("insert into " + VALUES + " (resource_key, val) values (?, ?)")) {
                            insert.setString(1, key);
                            insert.setString(2, value);
                            insert.executeUpdate();
                        }
                    }
                }
                midway.run();
                return null;
            }));
        }

        @Override
        public boolean delete(String key, long token) {
            return RETRY.run(() -> fence.inTransaction(key, token, c -> {
                try (PreparedStatement delete =
                        c.prepareStatement("delete from " + VALUES + " where resource_key = ?")) {
                    delete.setString(1, key);
                    return delete.executeUpdate() > 0;
                }
            }));
        }

        @Override
        public Optional<String> read(String key) {
            try (Connection c = engine.connection();
                    PreparedStatement ps =
                            c.prepareStatement("select val from " + VALUES + " where resource_key = ?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            } catch (SQLException e) {
                throw new IllegalStateException("reading " + key + " on " + engine, e);
            }
        }

        @Override
        public OptionalLong storedToken(String key) {
            return fence.currentToken(key);
        }

        @Override
        public String resourceName(String key) {
            return key;
        }

        @Override
        public boolean aWriterIsWaiting() {
            return engine.lockWaiters() > 0;
        }
    }
}
