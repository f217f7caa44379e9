/**
 * Not API: code zkfence's own modules share (the back-off and the fence observers), public only so
 * that they can reach it. Any release may change or remove it; do not use it.
 */
package io.zkfence.fencing.internal;
