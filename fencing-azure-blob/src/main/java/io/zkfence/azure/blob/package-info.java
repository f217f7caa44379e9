/**
 * Fencing tokens enforced by Azure Blob Storage: {@link io.zkfence.azure.blob.FencedContainer}
 * stores each blob's token in its metadata and writes only with {@code If-Match} /
 * {@code If-None-Match} on ETags, the service checking them. The algorithm is fencing-s3's, shared
 * through fencing-api. See {@code docs/fencing-azure-blob.md}.
 */
package io.zkfence.azure.blob;
