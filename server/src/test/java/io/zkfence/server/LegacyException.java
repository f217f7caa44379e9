package io.zkfence.server;

/** The previous protocol's error (a fixture of {@code RollingUpgradeTest}): status, code and message. */
final class LegacyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    LegacyException(int status, String code, String message) {
        this(status, code, message, java.util.Map.of());
    }

    LegacyException(int status, String code, String message, java.util.Map<String, Object> extra) {
        super(message);
        this.status = status;
        this.code = code;
    }

    int status() {
        return status;
    }

    String code() {
        return code;
    }
}
