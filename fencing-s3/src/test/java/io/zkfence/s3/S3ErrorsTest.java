package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** How SDK failures are sorted; S3Mock cannot produce a 409 or a 5xx, so these use built exceptions. */
class S3ErrorsTest {

    private static S3Exception s3(int status, String code) {
        return (S3Exception) S3Exception.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage("m")
                        .build())
                .build();
    }

    @Test
    void preconditionFailureConditionalConflictAndVanishedKeyAreLostRaces() {
        assertThat(S3Errors.isLostRace(s3(412, "PreconditionFailed"))).isTrue();
        assertThat(S3Errors.isLostRace(s3(409, "ConditionalRequestConflict"))).isTrue();
        assertThat(S3Errors.isLostRace(s3(404, "NoSuchKey"))).isTrue();
    }

    @Test
    void otherFailuresAreNotLostRaces() {
        assertThat(S3Errors.isLostRace(s3(404, "NoSuchBucket"))).isFalse();
        assertThat(S3Errors.isLostRace(s3(409, "OperationAborted"))).isFalse();
        assertThat(S3Errors.isLostRace(s3(403, "AccessDenied"))).isFalse();
        assertThat(S3Errors.isLostRace(SdkClientException.create("connection reset")))
                .isFalse();
    }

    @Test
    void serverErrorOnAWriteLeavesTheOutcomeUnknown() {
        StoreException e = S3Errors.translate(s3(500, "InternalError"), "b-1", "k", "PutObject", true);

        assertThat(e.outcomeUnknown()).isTrue();
        assertThat(e.getMessage()).contains("PutObject", "s3://b-1/k", "500", "may or may not have applied it");
    }

    @Test
    void writeWithoutAResponseLeavesTheOutcomeUnknown() {
        StoreException e =
                S3Errors.translate(SdkClientException.create("read timed out"), "b-1", "k", "PutObject", true);

        assertThat(e.statusCode()).isZero();
        assertThat(e.outcomeUnknown()).isTrue();
        assertThat(e.getMessage()).contains("got no response", "read timed out", "s3://b-1/k");
    }

    @Test
    void readFailureIsNeverAnUnknownWrite() {
        StoreException e =
                S3Errors.translate(SdkClientException.create("read timed out"), "b-1", "k", "HeadObject", false);

        assertThat(e.outcomeUnknown()).isFalse();
    }

    @Test
    void deniedHeadMentionsTheListBucketPermission() {
        StoreException e = S3Errors.translate(s3(403, null), "b-1", "k", "HeadObject", false);

        assertThat(e.isAccessDenied()).isTrue();
        assertThat(e.getMessage()).contains("s3:ListBucket");
    }
}
