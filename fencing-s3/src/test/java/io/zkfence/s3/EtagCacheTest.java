package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.fencing.internal.ObjectState;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class EtagCacheTest {

    private static final String PLAIN = "\"5d41402abc4b2a76b9719d911017c592\"";
    private static final String ONE_PART = "\"62109206880d38a4010a98e11243924a-1\"";
    private static final String TWO_PARTS = "\"0123456789abcdef0123456789abcdef-2\"";

    private final EtagCache cache = new EtagCache(10);

    @Test
    void acceptedWriteIsRememberedWithItsToken() {
        cache.rememberWrite("k", PLAIN, 5);

        assertThat(cache.usableFor("k", 5)).isEqualTo(ObjectState.present(PLAIN, OptionalLong.of(5)));
        assertThat(cache.usableFor("k", 4)).as("a lower token must re-read").isNull();
    }

    @Test
    void onePartEtagIsNeverRememberedAndReplacesWhatWas() {
        cache.rememberWrite("k", PLAIN, 5);

        cache.rememberWrite("k", ONE_PART, 6);
        assertThat(cache.usableFor("k", 6)).isNull();

        cache.rememberWrite("k", PLAIN, 7);
        cache.remember("k", ObjectState.present(ONE_PART, OptionalLong.of(7)));
        assertThat(cache.usableFor("k", 7)).isNull();
        assertThat(cache.size()).isZero();
    }

    @Test
    void multipartEtagOfSeveralPartsIsRemembered() {
        cache.rememberWrite("k", TWO_PARTS, 5);

        assertThat(cache.usableFor("k", 5)).isNotNull();
    }

    @Test
    void writeWithoutAnEtagForgetsTheKey() {
        cache.rememberWrite("k", PLAIN, 5);

        cache.rememberWrite("k", null, 6);

        assertThat(cache.usableFor("k", 6)).isNull();
    }

    @Test
    void disabledCacheRemembersNothing() {
        EtagCache disabled = new EtagCache(0);

        disabled.rememberWrite("k", PLAIN, 5);

        assertThat(disabled.size()).isZero();
    }
}
