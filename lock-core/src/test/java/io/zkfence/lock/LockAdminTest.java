package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

class LockAdminTest extends EnsembleTestBase {

    @Test
    void listShowsEveryLockWithItsHolderAndWaitersInNameOrder() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        Lease first = a.lock("orders:1").acquire();
        Lease second = a.lock("orders:2").acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> b.lock("orders:2").acquire());
        eventually().until(() -> queueOf(a.lock("orders:2")).size() == 2);
        // Held while listed: a free lock's container znode is ZooKeeper's to delete at any moment.
        Lease invoice = a.lock("invoices:9").acquire();

        List<LockInfo> orders = a.admin().list("orders:").toList();
        assertThat(orders).extracting(LockInfo::name).containsExactly("orders:1", "orders:2");
        assertThat(orders.get(0).holder())
                .get()
                .extracting(LockInfo.Entry::token)
                .isEqualTo(first.token());
        assertThat(orders.get(1).holder())
                .get()
                .extracting(LockInfo.Entry::ownerId)
                .isEqualTo("a");
        assertThat(orders.get(1).waiters()).extracting(LockInfo.Entry::ownerId).containsExactly("b");
        assertThat(a.admin().list().map(LockInfo::name)).contains("invoices:9", "orders:1", "orders:2");

        invoice.release();
        second.release();
        waiting.get(30, TimeUnit.SECONDS).release();
        first.release();
    }

    @Test
    void inspectAfterAnotherClientsReleaseNeverShowsTheOldHolder() {
        LockClient a = newClient("a");
        LockClient observer = newClient("observer");
        for (int i = 0; i < 20; i++) {
            Lease lease = a.lock("linearizable").acquire();
            assertThat(observer.admin().inspect("linearizable").holder())
                    .get()
                    .extracting(LockInfo.Entry::token)
                    .isEqualTo(lease.token());
            lease.release();
            assertThat(observer.admin().inspect("linearizable").holder()).isEmpty();
        }
    }

    @Test
    void aForcedReleaseEvictsTheHolderTheNextWaiterGetsAHigherTokenAndTheFenceRejectsTheEvictedWrite()
            throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:forced-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        JdbcFence fence = JdbcFence.create(ds, FenceConfig.defaults(FenceDialect.H2));
        fence.createIfMissing();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("create table stock (sku varchar(20) primary key, qty int)");
            s.execute("insert into stock values ('sku-1', 10)");
        }
        LockClient stuck = newClient("stuck-holder");
        LockClient next = newClient("next");
        LockClient operator = newClient("operator");
        Lease evicted = stuck.lock("sku-1").acquire();
        write(fence, ds, evicted.token(), 9);
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> next.lock("sku-1").acquire());
        eventually().until(() -> queueOf(stuck.lock("sku-1")).size() == 2);

        ForcedRelease done = operator.admin().forceRelease("sku-1", "holder hung in a GC loop, ticket OPS-42");

        assertThat(done.outcome()).isEqualTo(ForcedRelease.Outcome.RELEASED);
        assertThat(done.holderOwnerId()).isEqualTo("stuck-holder");
        assertThat(done.token()).isEqualTo(evicted.token());
        assertThat(done.by()).isEqualTo("operator");
        try (Lease successor = waiting.get(30, TimeUnit.SECONDS)) {
            assertThat(successor.token()).isGreaterThan(evicted.token());
            write(fence, ds, successor.token(), 8);
            eventually().until(() -> evicted.state() == LeaseState.LOST);
            JdbcStaleTokenException stale =
                    assertThrows(JdbcStaleTokenException.class, () -> write(fence, ds, evicted.token(), 7));
            assertThat(stale.storedToken()).isEqualTo(successor.token());
        }
        assertThat(operator.admin().auditLog()).last().satisfies(entry -> {
            assertThat(entry.lockName()).isEqualTo("sku-1");
            assertThat(entry.reason()).isEqualTo("holder hung in a GC loop, ticket OPS-42");
            assertThat(entry.token()).isEqualTo(evicted.token());
            assertThat(entry.outcome()).isEqualTo(ForcedRelease.Outcome.RELEASED);
        });
    }

    private static void write(JdbcFence fence, JdbcDataSource ds, long token, int qty) {
        fence.inTransaction("stock:sku-1", token, connection -> {
            try (PreparedStatement ps = connection.prepareStatement("update stock set qty = ? where sku = 'sku-1'")) {
                ps.setInt(1, qty);
                return ps.executeUpdate();
            }
        });
    }

    @Test
    void aForcedReleaseOfAFreeLockDeletesNothingAndIsStillRecorded() {
        LockClient operator = newClient("operator");
        LockAdmin admin = operator.admin("/" + root.substring(1).replace('/', '-') + "-audit-free", 10);
        ForcedRelease done = admin.forceRelease("idle", "checking");
        assertThat(done.outcome()).isEqualTo(ForcedRelease.Outcome.NOT_HELD);
        assertThat(admin.auditLog()).extracting(ForcedRelease::outcome).containsExactly(ForcedRelease.Outcome.NOT_HELD);
    }

    @Test
    void theAuditLogKeepsOnlyTheNewestEntriesOfItsRetention() {
        LockClient operator = newClient("operator");
        LockAdmin admin = operator.admin("/" + root.substring(1).replace('/', '-') + "-audit-retention", 3);
        for (int i = 0; i < 5; i++) {
            admin.forceRelease("idle", "round " + i);
        }
        assertThat(admin.auditLog()).extracting(ForcedRelease::reason).containsExactly("round 2", "round 3", "round 4");
    }

    @Test
    void badInputIsRefusedNamingIt() {
        LockClient operator = newClient("operator");
        assertThat(assertThrows(
                        IllegalArgumentException.class, () -> operator.admin().forceRelease("x", " ")))
                .hasMessageContaining("reason");
        assertThat(assertThrows(IllegalArgumentException.class, () -> operator.admin(root + "/audit", 10)))
                .hasMessageContaining("lock root");
        assertThat(assertThrows(IllegalArgumentException.class, () -> operator.admin("/elsewhere", 0)))
                .hasMessageContaining("retention");
    }

    @Test
    void aClosedClientsAdminRefusesToWork() {
        LockClient operator = newClient("operator");
        LockAdmin admin = operator.admin();
        operator.close();
        assertThrows(LockClientClosedException.class, () -> admin.inspect("x"));
        assertThrows(LockClientClosedException.class, () -> admin.forceRelease("x", "why"));
    }
}
