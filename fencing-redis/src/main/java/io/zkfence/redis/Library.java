package io.zkfence.redis;

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

    /** The full name of the library's function {@code function} ({@code writes}, {@code run}). */
    String function(String function) {
        return name + "_" + function;
    }
}
