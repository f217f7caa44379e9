package io.zkfence.redis;

import java.util.function.Supplier;

/**
 * A Redis 7 function library as {@code FUNCTION LOAD} takes it. Its name carries a digest of its
 * code ({@code zkfence_<12 hex digits>}), and so do its functions' names (function names are global
 * on a server), so that two versions of zkfence on one server load side by side and neither
 * replaces the other's functions.
 *
 * @param name the library's name
 * @param source the source with its {@code #!lua name=...} line
 */
record Library(String name, String source) {

    /** The library of {@code body}, in which {@code $LIB} stands for the library's name. */
    static Library of(String body) {
        String name = "zkfence_" + Script.of(body).sha1().substring(0, 12);
        return new Library(name, "#!lua name=" + name + "\n" + body.replace("$LIB", name));
    }

    /** Whether a server's error says it has no function of that name (it must load the library). */
    static boolean notLoaded(String error) {
        return error != null && error.startsWith("ERR Function not found");
    }

    /**
     * What a connector's {@link RedisConnector#fcall} does around its client: {@code fcall} sends
     * the {@code FCALL}; when it fails with {@code errorReply} (the client's exception for an error
     * reply) saying the server has no such function ({@link #notLoaded}), {@code load} loads the
     * library ({@code FUNCTION LOAD REPLACE}, on every primary of a Redis Cluster) and
     * {@code fcall} is sent again, whose reply or exception decides. Any other failure of the
     * first {@code FCALL} is thrown as it is.
     *
     * @param fcall sends the {@code FCALL} and answers its reply
     * @param load loads the library
     * @param errorReply the class of the client's exception for an error reply
     * @return the reply of the {@code FCALL} that answered
     */
    static Object call(Supplier<Object> fcall, Runnable load, Class<? extends RuntimeException> errorReply) {
        try {
            return fcall.get();
        } catch (RuntimeException e) {
            if (!errorReply.isInstance(e) || !notLoaded(e.getMessage())) {
                throw e;
            }
        }
        RuntimeException loading = null;
        try {
            load.run();
        } catch (RuntimeException l) {
            // Another primary may be down while this call's one loaded it: the FCALL decides, and
            // carries the loading failure as suppressed when it fails too.
            loading = l;
        }
        try {
            return fcall.get();
        } catch (RuntimeException again) {
            if (loading != null) {
                again.addSuppressed(loading);
            }
            throw again;
        }
    }

    /** The full name of the library's function {@code function} ({@code writes}, {@code run}). */
    String function(String function) {
        return name + "_" + function;
    }
}
