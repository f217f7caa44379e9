package io.zkfence.samples.demo;

/** The demo could not tell its story as written (a server or pod failed, a step never came). */
final class StoryFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    StoryFailedException(String message) {
        super(message);
    }

    StoryFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
