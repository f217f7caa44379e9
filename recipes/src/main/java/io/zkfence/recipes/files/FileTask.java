package io.zkfence.recipes.files;

/** What to do with one input file: its bytes in, the output's bytes out. */
@FunctionalInterface
public interface FileTask {

    /**
     * Processes one file. Runs while this worker holds the file's lock; may take long (a
     * max-hold on the processor bounds it). Throwing leaves the file for the next pass.
     *
     * @param key   the input object's key
     * @param input its content
     * @param token the fencing token of this claim (the output and the completion record carry it)
     * @return the output object's content
     */
    byte[] process(String key, byte[] input, long token);
}
