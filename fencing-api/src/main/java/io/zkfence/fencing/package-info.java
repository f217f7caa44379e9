/**
 * The exception types every fencing adapter shares.
 *
 * <p>A unit of work that writes to several fenced resources (a row through
 * {@code zkfence-fencing-jdbc}, an object through {@code zkfence-fencing-s3}) handles a stale
 * token from any of them with one catch:
 * <pre>{@code
 * try {
 *     orders.save(order, lease.token());      // fencing-jdbc
 *     receipts.upload(order, lease.token());  // fencing-s3
 * } catch (io.zkfence.fencing.StaleTokenException e) {
 *     // the lock was granted to a newer holder: stop; e.resource(), e.presentedToken(), e.storedToken()
 * }
 * }</pre>
 *
 * <p>This package has no dependencies, so sharing it keeps ZooKeeper and Curator off a DAO's
 * classpath.
 */
package io.zkfence.fencing;
