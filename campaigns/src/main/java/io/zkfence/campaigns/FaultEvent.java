package io.zkfence.campaigns;

/**
 * One injected fault, as the campaign ran it.
 *
 * @param kind        the fault's kind ({@code pause-long}, {@code zk-leader-kill}, ...)
 * @param target      the worker it hit, or {@link #ENSEMBLE} for a ZooKeeper server kill, or (in the lock
 *                    service's campaign) the replica it hit
 * @param startMillis when it began (epoch ms, the machine's clock the workers also log with)
 * @param endMillis   when it ended: the worker resumed, healed or restarted, the server restarted
 * @param what        one line for the report's timeline
 */
public record FaultEvent(String kind, String target, long startMillis, long endMillis, String what) {

    /** The target of a fault that hits a ZooKeeper server, so every worker at once. */
    public static final String ENSEMBLE = "zookeeper";
}
