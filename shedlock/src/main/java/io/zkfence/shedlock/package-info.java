/**
 * A ShedLock {@code LockProvider} on zkfence ({@link io.zkfence.shedlock.ZkfenceLockProvider})
 * and the thread-bound accessor a locked task reads its fencing token from
 * ({@link io.zkfence.shedlock.ZkfenceShedLock}). See docs/spring.md.
 */
package io.zkfence.shedlock;
