/**
 * Not API: how zkfence's own modules talk to ZooKeeper (lock-core, the lock service, the command
 * line), public only so that they can reach it: the one gateway ({@link
 * io.zkfence.lock.internal.ZkGateway}, over Curator {@link io.zkfence.lock.internal.CuratorZkGateway})
 * and the one classification of its failures ({@link io.zkfence.lock.internal.Failures}). Any
 * release may change or remove it; do not use it.
 */
package io.zkfence.lock.internal;
