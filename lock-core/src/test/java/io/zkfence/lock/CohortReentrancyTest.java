package io.zkfence.lock;

/** {@link ReentrancyTest} with every lock in cohort mode. */
class CohortReentrancyTest extends ReentrancyTest {

    @Override
    protected FencedLock lock(LockClient client, String name) {
        return client.lock(name).withCohort();
    }

    @Override
    protected boolean cohortMode() {
        return true;
    }
}
