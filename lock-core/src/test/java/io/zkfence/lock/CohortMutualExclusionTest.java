package io.zkfence.lock;

/** {@link MutualExclusionTest} with every lock in cohort mode. */
class CohortMutualExclusionTest extends MutualExclusionTest {

    @Override
    protected FencedLock lock(LockClient client, String name) {
        return client.lock(name).withCohort();
    }

    @Override
    protected boolean cohortMode() {
        return true;
    }
}
