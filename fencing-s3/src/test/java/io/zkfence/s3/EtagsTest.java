package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

class EtagsTest {

    @Test
    void singlePartEtagIsTheHexMd5OfTheBytes() throws IOException {
        // the ETag S3 (and S3Mock) give the five bytes "hello"
        assertThat(Etags.md5Hex(RequestBody.fromString("hello"))).isEqualTo("5d41402abc4b2a76b9719d911017c592");
    }

    @Test
    void digestOfABodyReadInChunksIsTheDigestOfAllItsBytes() throws Exception {
        byte[] bytes = new byte[200_000]; // larger than any transfer buffer: read in several chunks
        new Random(7).nextBytes(bytes);
        String expected =
                HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));

        assertThat(Etags.md5Hex(RequestBody.fromBytes(bytes))).isEqualTo(expected);
        // a stream that is not a byte array's, handing out a few bytes per read
        RequestBody trickling = RequestBody.fromContentProvider(
                () -> new FilterInputStream(new ByteArrayInputStream(bytes)) {
                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        return super.read(b, off, Math.min(len, 1000));
                    }
                },
                bytes.length,
                "application/octet-stream");
        assertThat(Etags.md5Hex(trickling)).isEqualTo(expected);
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
