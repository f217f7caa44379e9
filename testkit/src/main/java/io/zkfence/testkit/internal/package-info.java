/**
 * Not API: helpers shared by zkfence's own test fixtures; they may change in any release
 * (docs/versioning.md).
 */
package io.zkfence.testkit.internal;
