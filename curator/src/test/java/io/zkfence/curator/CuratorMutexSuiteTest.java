package io.zkfence.curator;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.TestInterProcessMutexBase;

/** Curator 5.9.0's own InterProcessMutex suite, unchanged, against {@link ZkfenceInterProcessMutex}. */
class CuratorMutexSuiteTest extends TestInterProcessMutexBase {

    @Override
    protected InterProcessLock makeLock(CuratorFramework client) {
        return new ZkfenceInterProcessMutex(client, LOCK_BASE_PATH);
    }
}
