package io.zkfence.spring.boot;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Turns a library's {@link IllegalArgumentException} about one setting into Spring Boot's
 * "invalid configuration property" failure, which names the {@code zkfence.*} key; the
 * library's own message (its rule and bound) is kept as the reason.
 */
final class PropertyCheck {

    private PropertyCheck() {}

    /** Runs {@code check}, which must only throw for {@code property}'s value. */
    static void check(String property, Object value, Runnable check) {
        try {
            check.run();
        } catch (IllegalArgumentException e) {
            throw invalid(property, value, e.getMessage());
        }
    }

    /** {@code value}, which must be set (not blank) {@code when}. */
    static String required(String property, String value, String when) {
        if (value == null || value.isBlank()) {
            throw invalid(property, value, "must be set " + when);
        }
        return value;
    }

    static InvalidConfigurationPropertyValueException invalid(String property, Object value, String reason) {
        return new InvalidConfigurationPropertyValueException(property, value, reason);
    }
}
