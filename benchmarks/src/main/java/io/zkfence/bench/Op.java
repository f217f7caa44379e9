package io.zkfence.bench;

/** One timed operation of a compared variant (a lock cycle, an UPDATE, a PUT). */
interface Op {

    /** The variant's name, used in figure names. */
    String name();

    /** Runs the operation once; failures are unchecked and end the run. */
    void run();

    /** An operation named {@code name} that runs {@code body}. */
    static Op of(String name, Runnable body) {
        return new Op() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void run() {
                body.run();
            }
        };
    }
}
