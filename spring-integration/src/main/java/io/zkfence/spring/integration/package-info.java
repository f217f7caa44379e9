/**
 * A Spring Integration {@code LockRegistry} on zkfence: {@link io.zkfence.spring.integration.ZkfenceLockRegistry}
 * hands out {@link io.zkfence.spring.integration.ZkfenceLock}s whose fencing token is reachable
 * from the lock. See docs/spring.md.
 */
package io.zkfence.spring.integration;
