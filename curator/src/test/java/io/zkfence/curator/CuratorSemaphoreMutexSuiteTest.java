package io.zkfence.curator;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.TestInterProcessSemaphoreMutex;

/** Curator 5.9.0's own InterProcessSemaphoreMutex suite, unchanged, against {@link ZkfenceInterProcessSemaphoreMutex}. */
class CuratorSemaphoreMutexSuiteTest extends TestInterProcessSemaphoreMutex {

    @Override
    protected InterProcessLock makeLock(CuratorFramework client) {
        return new ZkfenceInterProcessSemaphoreMutex(client, LOCK_BASE_PATH);
    }
}
