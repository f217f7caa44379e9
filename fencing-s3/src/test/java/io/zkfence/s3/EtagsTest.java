package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

class EtagsTest {

    @Test
    void singlePartEtagIsTheHexMd5OfTheBytes() throws IOException {
        // the ETag S3 (and S3Mock) give the five bytes "hello"
        assertThat(Etags.md5Hex(RequestBody.fromString("hello"))).isEqualTo("5d41402abc4b2a76b9719d911017c592");
    }

    @Test
    void multipartEtagIsTheMd5OfThePartMd5sWithThePartCount() {
        // the ETag S3Mock gave a one-part upload of "hello"
        assertThat(Etags.multipartEtag(List.of("\"5d41402abc4b2a76b9719d911017c592\"")))
                .isEqualTo("62109206880d38a4010a98e11243924a-1");
    }

    @Test
    void onePartEtagIsRecognisedByItsShapeOnly() {
        assertThat(Etags.isOnePart("\"62109206880d38a4010a98e11243924a-1\"")).isTrue();
        assertThat(Etags.onePartEtag("5d41402abc4b2a76b9719d911017c592"))
                .isEqualTo("62109206880d38a4010a98e11243924a-1");
        assertThat(Etags.isOnePart("\"62109206880d38a4010a98e11243924a-2\"")).isFalse();
        assertThat(Etags.isOnePart("\"5d41402abc4b2a76b9719d911017c592\"")).isFalse();
        assertThat(Etags.isOnePart("\"not-an-md5-1\"")).isFalse();
        assertThat(Etags.isOnePart(null)).isFalse();
    }

    @Test
    void multipartEtagIsUnknownWhenAPartEtagIsNotAnMd5() {
        assertThat(Etags.multipartEtag(List.of("\"not-an-md5\""))).isNull();
    }

    @Test
    void comparisonIgnoresQuotesWeakPrefixAndCase() {
        assertThat(Etags.same("\"ABC\"", "abc")).isTrue();
        assertThat(Etags.same("W/\"abc\"", "\"abc\"")).isTrue();
        assertThat(Etags.same("\"abc\"", "\"abd\"")).isFalse();
        assertThat(Etags.same(null, "\"abc\"")).isFalse();
    }
}
