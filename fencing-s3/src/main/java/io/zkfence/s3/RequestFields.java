package io.zkfence.s3;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;

/**
 * Copies the headers a caller set on one S3 request (content type, cache control, metadata,
 * encryption, tagging, ...) onto the builder of another, matching fields by their S3 member name.
 * Used when a write has to be sent as a multipart upload: the SDK has no conversion and a
 * hand-written list would silently drop fields added in later SDK versions.
 */
final class RequestFields {

    /** Fields that describe one request's body or condition, never the object. */
    private static final Set<String> NOT_COPIED = Set.of(
            "Bucket",
            "Key",
            "ContentLength",
            "ContentMD5",
            "IfMatch",
            "IfNoneMatch",
            "WriteOffsetBytes",
            "ChecksumAlgorithm",
            "ChecksumType",
            "PartNumber",
            "UploadId");

    private RequestFields() {}

    @SuppressWarnings("unchecked")
    static void copy(SdkPojo from, SdkPojo toBuilder) {
        Map<String, SdkField<?>> target = new HashMap<>();
        for (SdkField<?> field : toBuilder.sdkFields()) {
            target.put(field.memberName(), field);
        }
        for (SdkField<?> field : from.sdkFields()) {
            String name = field.memberName();
            if (NOT_COPIED.contains(name) || name.startsWith("Checksum")) {
                continue;
            }
            SdkField<Object> to = (SdkField<Object>) target.get(name);
            Object value = field.getValueOrDefault(from);
            if (to == null || value == null || to.marshallingType() != field.marshallingType()) {
                continue;
            }
            to.set(toBuilder, value);
        }
    }
}
