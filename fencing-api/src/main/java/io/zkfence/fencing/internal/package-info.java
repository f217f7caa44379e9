/**
 * Not API: code zkfence's own modules share (the back-off, the fence observers, and the
 * object stores' conditional write: {@link io.zkfence.fencing.internal.ConditionalWriteLoop} with
 * its {@link io.zkfence.fencing.internal.StateCache}, used by fencing-s3 and fencing-azure-blob),
 * public only so that they can reach it. Any release may change or remove it; do not use it.
 */
package io.zkfence.fencing.internal;
