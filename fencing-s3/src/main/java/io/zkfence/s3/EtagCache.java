package io.zkfence.s3;

import io.zkfence.fencing.internal.StateCache;

/**
 * The state cache of one {@link FencedBucket} (fencing-api's {@link StateCache}, shared with the
 * other object stores), with S3's rule: one-part ETags ({@code <md5>-1}) are never remembered.
 * Every same-bytes rewrite is sent as a one-part upload (see {@link OnePartUpload}), so a newer
 * holder rewriting those bytes reproduces such an ETag exactly, and a paused holder presenting it
 * from here would pass its If-Match. A remembered ETag is therefore always one a same-bytes
 * rewrite replaces with a different one.
 */
final class EtagCache extends StateCache {

    EtagCache(int capacity) {
        super(capacity, Etags::isOnePart);
    }
}
