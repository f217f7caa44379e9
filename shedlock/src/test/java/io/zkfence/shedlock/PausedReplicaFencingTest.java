package io.zkfence.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** A replica paused past its ZooKeeper session: the next run's token is higher, and the paused run's late write is fenced. */
class PausedReplicaFencingTest {

    private static final String JOB = "nightly-settlement";

    @Test
    void aReplicaPausedPastItsSessionHasItsLateWriteFenced() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:settlement;DB_CLOSE_DELAY=-1");
        JdbcFence fence = JdbcFence.create(ds, FenceConfig.defaults(FenceDialect.H2));
        fence.createIfMissing();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("create table settlement (id int primary key, written_by varchar(40))");
            s.execute("insert into settlement values (1, 'nobody')");
        }

        try (EmbeddedEnsemble zk = EmbeddedEnsemble.builder().servers(1).start();
                FreezableProxy proxy = new FreezableProxy(zk.servers().get(0).getPort());
                Replica paused = new Replica(proxy.connectString(), "replica-paused", Duration.ofSeconds(4));
                Replica next = new Replica(zk.connectString(), "replica-next", Duration.ofSeconds(15));
                Replica third = new Replica(zk.connectString(), "replica-third", Duration.ofSeconds(15))) {

            // The paused replica's scheduler thread: its run, and its late write, happen there.
            ExecutorService pausedScheduler = Executors.newSingleThreadExecutor();
            SimpleLock pausedRun = pausedScheduler
                    .submit(() -> {
                        SimpleLock run = paused.provider.lock(config()).orElseThrow();
                        settle(fence, "paused");
                        return run;
                    })
                    .get(60, TimeUnit.SECONDS);
            Lease pausedLease = pausedScheduler
                    .submit(() -> ZkfenceShedLock.currentLease().orElseThrow())
                    .get();

            proxy.freeze(); // GC pause / VM freeze / partition: no heartbeat reaches ZooKeeper

            SimpleLock[] nextRun = new SimpleLock[1];
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .pollInSameThread()
                    .until(() -> {
                        Optional<SimpleLock> l = next.provider.lock(config());
                        l.ifPresent(x -> nextRun[0] = x);
                        return l.isPresent();
                    });
            assertThat(ZkfenceShedLock.currentToken()).isGreaterThan(pausedLease.token());
            settle(fence, "next");

            proxy.thaw(); // the paused replica wakes up and carries on where it was
            ExecutionException late = assertThrows(
                    ExecutionException.class,
                    () -> pausedScheduler.submit(() -> settle(fence, "paused")).get(60, TimeUnit.SECONDS));
            assertThat(late.getCause()).isInstanceOf(JdbcStaleTokenException.class);
            assertThat(writtenBy(ds)).isEqualTo("next");
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> pausedLease.state() == LeaseState.LOST);

            pausedScheduler.submit(pausedRun::unlock).get(60, TimeUnit.SECONDS); // ShedLock ends the paused run
            assertThat(third.provider.lock(config())).isEmpty(); // the next run's lock stays
            nextRun[0].unlock();
            pausedScheduler.shutdown();
        }
    }

    private static LockConfiguration config() {
        return new LockConfiguration(ClockProvider.now(), JOB, Duration.ofMinutes(5), Duration.ZERO);
    }

    // snippet:task
    /** The job's body: its write carries the run's token, so a run that lost the lock is fenced off. */
    static int settle(JdbcFence fence, String replica) {
        return fence.inTransaction("settlement:1", ZkfenceShedLock.currentToken(), connection -> {
            try (PreparedStatement update =
                    connection.prepareStatement("update settlement set written_by = ? where id = 1")) {
                update.setString(1, replica);
                return update.executeUpdate();
            }
        });
    }
    // end:task

    private static String writtenBy(JdbcDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select written_by from settlement where id = 1")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
