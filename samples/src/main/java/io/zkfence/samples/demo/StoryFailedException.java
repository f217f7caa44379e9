package io.zkfence.samples.demo;

/**
 * The demo could not tell its story as written (a server or pod failed, a step never came).
 * {@link #details()} holds what helps to see why (the end of a pod's log), kept apart from the
 * one-line message.
 */
final class StoryFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String details;

    StoryFailedException(String message) {
        this(message, "", null);
    }

    StoryFailedException(String message, Throwable cause) {
        this(message, "", cause);
    }

    StoryFailedException(String message, String details, Throwable cause) {
        super(message, cause);
        this.details = details;
    }

    String details() {
        return details;
    }
}
