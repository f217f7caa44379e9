package io.zkfence.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The annotated method runs under a zkfence lock: the starter's {@code LockClient} acquires the
 * lock before the call and releases it when the call ends, normally or by an exception. Inside,
 * {@link FencedLockContext#currentToken()} is the grant's fencing token, to hand to the write
 * ({@code JdbcFence.inTransaction(key, token, ...)}), and {@link FencedLockContext#currentLease()}
 * the lease, for {@code checkValid()} right before a critical write.
 *
 * <pre>{@code
 * @FencedLocked(name = "inventory:sku:#{#sku}", waitFor = "5s")
 * public void reserve(String sku, int quantity) {
 *     fence.inTransaction("inventory:sku:" + sku, FencedLockContext.currentToken(), tx -> ...);
 * }
 * }</pre>
 *
 * <ul>
 * <li>The lock is taken on the calling thread, through the bean's proxy: a call from the bean to
 *     itself ({@code this.reserve(...)}) is not locked, as with {@code @Transactional}.</li>
 * <li>Calls that are already inside a {@code @FencedLocked} method of the same lock on the same
 *     thread re-enter it and see the same token.</li>
 * <li>A wait that runs out throws lock-core's {@code AcquireTimeoutException} (naming the lock
 *     and the time waited); the method does not run.</li>
 * <li>The lock is taken outside a {@code @Transactional} on the same method (the advisor's
 *     order is {@code Ordered.LOWEST_PRECEDENCE - 1000}), so the transaction commits before the
 *     lock is released.</li>
 * <li>Methods returning a {@code CompletionStage}, a {@code Future} or a Reactive Streams
 *     {@code Publisher} are refused at start-up: the lock would be released when they return,
 *     not when their work ends.</li>
 * <li>A blank name, a name that is not a valid SpEL template and an unparsable duration fail
 *     start-up with a message naming the method; a name that evaluates to null or blank fails the
 *     call, naming the method.</li>
 * </ul>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencedLocked {

    /**
     * The lock name: a SpEL template, evaluated on every call. Text outside {@code #{...}} is
     * literal; inside, {@code #name} is the method parameter of that name (parameter names need
     * the {@code -parameters} compiler flag, which Spring Boot's Maven and Gradle plugins set) and
     * {@code #p0}, {@code #a0} the first argument by position; {@code @bean} refers to a bean; the
     * root object is the bean itself. Example: {@code "inventory:sku:#{#sku}"}.
     *
     * @return the lock name template
     */
    String name();

    /**
     * How long the call waits for the lock, e.g. {@code "5s"}, {@code "500ms"}, {@code "PT5S"};
     * {@code ${...}} placeholders are resolved once, at start-up. Empty (the default): wait as
     * long as it takes. {@code "0s"}: take the lock only if it is free now, else fail the call.
     *
     * @return the wait, or empty for no bound
     */
    String waitFor() default "";

    /**
     * lock-core's max-hold ({@code FencedLock.withMaxHold}): a call still running after it loses
     * the lease, its {@code checkValid()} throws {@code LeaseLostException} and the next holder's
     * token is higher. Same format as {@link #waitFor()}. Empty (the default): the lease lives as
     * long as the ZooKeeper session.
     *
     * @return the max-hold, or empty for none
     */
    String maxHold() default "";
}
