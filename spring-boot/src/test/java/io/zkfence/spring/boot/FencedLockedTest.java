package io.zkfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseLostException;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** {@code @FencedLocked} methods, in Spring contexts on a real ZooKeeper server. */
class FencedLockedTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static EmbeddedEnsemble zk;

    @BeforeAll
    static void startZooKeeper() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zk.close();
    }

    /** A bean with locked methods, as an application writes one. */
    public static class Stock {

        private final List<Long> tokens = new CopyOnWriteArrayList<>();

        /** The tokens {@link #reserve} saw (a method: a proxy's own fields are not the bean's). */
        public List<Long> tokens() {
            return tokens;
        }

        @FencedLocked(name = "stock:#{#sku}")
        public String reserve(String sku, int quantity) {
            tokens.add(FencedLockContext.currentToken());
            return FencedLockContext.currentLease().orElseThrow().lockName();
        }

        @FencedLocked(name = "stock:#{#p0}:#{#quantity * 2}")
        public String reserveByPosition(String sku, int quantity) {
            return FencedLockContext.currentLease().orElseThrow().lockName();
        }

        @FencedLocked(name = "stock:#{#sku}")
        public long hold(String sku, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
            entered.countDown();
            if (!leave.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let the holder go");
            }
            return FencedLockContext.currentToken();
        }

        @FencedLocked(name = "stock:#{#sku}", waitFor = "200ms")
        public long reserveQuickly(String sku) {
            return FencedLockContext.currentToken();
        }

        @FencedLocked(name = "stock:#{#sku}")
        public void outOfStock(String sku) {
            throw new IllegalStateException("out of stock: " + sku);
        }

        @FencedLocked(name = "stock:#{#sku}", maxHold = "${stock.max-hold:1s}")
        public void overstay(String sku) {
            Lease lease = FencedLockContext.currentLease().orElseThrow();
            await().atMost(PATIENCE).until(() -> lease.state() == LeaseState.LOST);
            lease.checkValid();
        }

        @FencedLocked(name = "stock:#{#sku}")
        public long[] nested(String sku, Stock self) {
            long outer = FencedLockContext.currentToken();
            self.reserve(sku, 1);
            return new long[] {outer, tokens.getLast(), FencedLockContext.currentToken()};
        }

        @FencedLocked(name = "#{#note}")
        public void noted(String note) {
            throw new AssertionError("must not run without a lock name");
        }
    }

    /** Annotated on the interface: the bean is a JDK proxy of it. */
    public interface Ledger {
        @FencedLocked(name = "ledger:#{@region}:#{#key}")
        String write(String key);
    }

    public static class PostgresLedger implements Ledger {
        @Override
        public String write(String key) {
            return FencedLockContext.currentLease().orElseThrow().lockName();
        }
    }

    public static class BadTemplate {
        @FencedLocked(name = "stock:#{#sku")
        public void reserve(String sku) {
            throw new AssertionError("never called");
        }
    }

    public static class EmptyName {
        @FencedLocked(name = " ")
        public void reserve(String sku) {
            throw new AssertionError("never called");
        }
    }

    public static class BadWait {
        @FencedLocked(name = "stock:#{#sku}", waitFor = "soon")
        public void reserve(String sku) {
            throw new AssertionError("never called");
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ZkfenceCuratorAutoConfiguration.class,
                        ZkfenceAutoConfiguration.class,
                        ZkfenceFencedLockedAutoConfiguration.class))
                .withPropertyValues("zkfence.connect-string=" + zk.connectString())
                .withBean(Stock.class);
    }

    private static Stock stock(ApplicationContext ctx) {
        Stock stock = ctx.getBean(Stock.class);
        assertThat(AopUtils.isAopProxy(stock)).as("the bean is proxied").isTrue();
        return stock;
    }

    @Test
    void theLockNameComesFromTheParametersAndTheTokenIsVisibleInTheMethod() {
        runner().run(ctx -> {
            Stock stock = stock(ctx);
            assertThat(stock.reserve("A-1", 2)).isEqualTo("stock:A-1");
            assertThat(stock.reserveByPosition("A-1", 2)).isEqualTo("stock:A-1:4");
            stock.reserve("A-1", 3);
            assertThat(stock.tokens()).hasSize(2);
            assertThat(stock.tokens().get(1)).isGreaterThan(stock.tokens().get(0));
            assertThat(FencedLockContext.currentLease()).as("outside the call").isEmpty();
            assertThrows(IllegalStateException.class, FencedLockContext::currentToken);
            assertThat(ctx.getBean(LockClient.class).inspect("stock:A-1").holder())
                    .as("released")
                    .isEmpty();
        });
    }

    @Test
    void anAnnotationOnAnInterfaceMethodLocksTheImplementationAndNamesMayReferToBeans() {
        runner().withBean("region", String.class, () -> "eu")
                .withBean(Ledger.class, PostgresLedger::new)
                .run(ctx -> {
                    Ledger ledger = ctx.getBean(Ledger.class);
                    assertThat(AopUtils.isJdkDynamicProxy(ledger)).isTrue();
                    assertThat(ledger.write("k-1")).isEqualTo("ledger:eu:k-1");
                });
    }

    @Test
    void twoApplicationsNeverRunTheMethodForOneNameAtOnce() {
        runner().run(a -> runner().run(b -> {
            CountDownLatch aEntered = new CountDownLatch(1);
            CountDownLatch aLeave = new CountDownLatch(1);
            CountDownLatch bEntered = new CountDownLatch(1);
            CountDownLatch bLeave = new CountDownLatch(1);
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Long> aToken = threads.submit(() -> stock(a).hold("B-1", aEntered, aLeave));
                assertThat(aEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                        .isTrue();
                Future<Long> bToken = threads.submit(() -> stock(b).hold("B-1", bEntered, bLeave));
                LockClient locks = a.getBean(LockClient.class);
                await().atMost(PATIENCE)
                        .until(() -> locks.inspect("stock:B-1").waiters().size() == 1);
                assertThat(bEntered.getCount())
                        .as("b entered while a holds the lock")
                        .isEqualTo(1);

                aLeave.countDown();
                assertThat(bEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                        .isTrue();
                bLeave.countDown();
                assertThat(bToken.get()).isGreaterThan(aToken.get());
            }
        }));
    }

    @Test
    void aWaitThatRunsOutFailsTheCallNamingTheLock() {
        runner().run(a -> runner().run(b -> {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Long> holder = threads.submit(() -> stock(a).hold("C-1", entered, leave));
                assertThat(entered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                        .isTrue();

                AcquireTimeoutException e =
                        assertThrows(AcquireTimeoutException.class, () -> stock(b).reserveQuickly("C-1"));
                assertThat(e.lockName()).isEqualTo("stock:C-1");
                assertThat(e).hasMessageContaining("'stock:C-1'");
                assertThat(e.waited()).isEqualTo(Duration.ofMillis(200));

                leave.countDown();
                long held = holder.get();
                assertThat(stock(b).reserveQuickly("C-1")).isGreaterThan(held);
            }
        }));
    }

    @Test
    void theLockIsReleasedWhenTheMethodThrows() {
        runner().run(ctx -> {
            Stock stock = stock(ctx);
            assertThrows(IllegalStateException.class, () -> stock.outOfStock("D-1"));
            assertThat(ctx.getBean(LockClient.class).inspect("stock:D-1").entries())
                    .isEmpty();
            assertThat(FencedLockContext.currentLease()).isEmpty();
            assertThat(stock.reserveQuickly("D-1")).isPositive();
        });
    }

    @Test
    void aLeaseLostMidCallIsSeenByCheckValidAndTheLockPassesOn() {
        runner().run(ctx -> {
            Stock stock = stock(ctx);
            LeaseLostException e = assertThrows(LeaseLostException.class, () -> stock.overstay("E-1"));
            assertThat(e.lockName()).isEqualTo("stock:E-1");
            assertThat(e.state()).isEqualTo(LeaseState.LOST);
            assertThat(e.token()).isPresent();
            assertThat(stock.reserveQuickly("E-1")).isGreaterThan(e.token().getAsLong());
        });
    }

    @Test
    void nestedCallsOfOneLockShareTheTokenAndTheOuterLeaseIsCurrentAgainAfter() {
        runner().run(ctx -> {
            Stock stock = stock(ctx);
            long[] tokens = stock.nested("F-1", stock);
            assertThat(tokens[1]).isEqualTo(tokens[0]);
            assertThat(tokens[2]).isEqualTo(tokens[0]);
        });
    }

    @Test
    void aNameThatEvaluatesToNothingFailsTheCallNamingTheMethod() {
        runner().run(ctx -> {
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> stock(ctx).noted(null));
            assertThat(e)
                    .hasMessageContaining("@FencedLocked on " + Stock.class.getName() + ".noted(String)")
                    .hasMessageContaining("evaluated to null");
        });
    }

    @Test
    void anInvalidTemplateFailsStartUpNamingTheMethod() {
        runner().withBean(BadTemplate.class)
                .run(ctx -> assertThat(ctx)
                        .getFailure()
                        .hasStackTraceContaining("@FencedLocked on " + BadTemplate.class.getName()
                                + ".reserve(String): the lock name 'stock:#{#sku' is not a valid SpEL template"));
    }

    @Test
    void anEmptyNameFailsStartUpNamingTheMethod() {
        runner().withBean(EmptyName.class)
                .run(ctx -> assertThat(ctx)
                        .getFailure()
                        .hasStackTraceContaining("@FencedLocked on " + EmptyName.class.getName()
                                + ".reserve(String): the lock name is empty"));
    }

    @Test
    void anUnparsableWaitFailsStartUpNamingTheMethod() {
        runner().withBean(BadWait.class)
                .run(ctx -> assertThat(ctx)
                        .getFailure()
                        .hasStackTraceContaining("@FencedLocked on " + BadWait.class.getName()
                                + ".reserve(String): waitFor 'soon' is not a duration"));
    }

    @Test
    void lockedMethodsWithoutALockClientFailStartUpInsteadOfRunningUnlocked() {
        runner().withPropertyValues("zkfence.enabled=false")
                .run(ctx -> assertThat(ctx).getFailure().hasStackTraceContaining("needs a zkfence LockClient bean"));
    }
}
