package io.zkfence.server;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.apache.curator.framework.CuratorFramework;

/** A {@link CuratorFramework} that runs a hook before every call of one of its builder methods. */
final class CuratorSpy {

    private CuratorSpy() {}

    /** {@code zk}, except that {@code hook} runs each time {@code method} (say, {@code "getData"}) is called. */
    static CuratorFramework onCall(CuratorFramework zk, String method, Runnable hook) {
        return (CuratorFramework) Proxy.newProxyInstance(
                CuratorFramework.class.getClassLoader(), new Class<?>[] {CuratorFramework.class}, (proxy, m, args) -> {
                    if (m.getName().equals(method)) {
                        hook.run();
                    }
                    try {
                        return m.invoke(zk, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
