package io.zkfence.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * ETag arithmetic. On AWS S3, MinIO and S3Mock the ETag of a single-part upload is the hex MD5 of
 * the bytes and the ETag of a multipart upload is the MD5 of the parts' binary MD5s followed by
 * "-" and the part count. Neither depends on the metadata, so rewriting the same bytes with a new
 * token keeps the ETag: the adapter predicts that case and avoids it (see {@link FencedBucket}).
 */
final class Etags {

    private static final HexFormat HEX = HexFormat.of();

    private Etags() {}

    /** The ETag without quotes or weak prefix, lower case, for comparisons. */
    static String normalize(String eTag) {
        if (eTag == null) {
            return null;
        }
        String s = eTag.trim();
        if (s.startsWith("W/")) {
            s = s.substring(2);
        }
        if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
            s = s.substring(1, s.length() - 1);
        }
        return s.toLowerCase(Locale.ROOT);
    }

    /** True for a normalized ETag that is a hex MD5: the shape of a single-part upload's ETag. */
    static boolean isMd5(String normalized) {
        return normalized.length() == 32 && normalized.chars().allMatch(HexFormat::isHexDigit);
    }

    /**
     * True for an ETag of the shape a one-part multipart upload gets ({@code <md5>-1}). Such an
     * ETag is reproduced by any one-part upload of the same bytes, whoever sends it.
     */
    static boolean isOnePart(String eTag) {
        String s = normalize(eTag);
        return s != null && s.endsWith("-1") && isMd5(s.substring(0, s.length() - 2));
    }

    /** The ETag a one-part multipart upload of bytes whose hex MD5 is {@code md5Hex} gets. */
    static String onePartEtag(String md5Hex) {
        return multipartEtag(List.of(md5Hex));
    }

    static boolean same(String a, String b) {
        return a != null && b != null && normalize(a).equals(normalize(b));
    }

    /**
     * Hex MD5 of the body: the ETag a single-part upload of it gets on MD5-ETag stores. Every
     * steady-state put computes it, so it copies nothing it need not: a body of bytes (its stream a
     * {@code ByteArrayInputStream}) is digested in place; another stream goes through the JDK's
     * transfer buffer. (A 64 KiB buffer of its own per put was a fifth of what a 1 KiB put
     * allocated, the SDK's own work included.)
     */
    static String md5Hex(RequestBody body) throws IOException {
        MessageDigest md5 = md5();
        try (InputStream in = body.contentStreamProvider().newStream();
                OutputStream digest = new DigestOutputStream(OutputStream.nullOutputStream(), md5)) {
            in.transferTo(digest);
        }
        return HEX.formatHex(md5.digest());
    }

    /** The ETag a multipart upload of parts with these ETags gets, or null when a part ETag is not an MD5. */
    static String multipartEtag(List<String> partEtags) {
        MessageDigest md5 = md5();
        for (String part : partEtags) {
            String hex = normalize(part);
            if (hex == null || !isMd5(hex)) {
                return null;
            }
            md5.update(HEX.parseHex(hex));
        }
        return HEX.formatHex(md5.digest()) + "-" + partEtags.size();
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide MD5", e);
        }
    }
}
