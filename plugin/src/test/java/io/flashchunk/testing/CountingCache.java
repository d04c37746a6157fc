package io.flashchunk.testing;

import io.flashchunk.cache.FlashCache;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

/** A real cache behind a proxy that counts the calls of one method: how often a caller asks for it. */
public final class CountingCache {
    private CountingCache() {
    }

    public static FlashCache counting(FlashCache inner, String method, AtomicInteger calls) {
        return (FlashCache) Proxy.newProxyInstance(FlashCache.class.getClassLoader(), new Class<?>[] {FlashCache.class},
                (proxy, called, args) -> {
                    if (called.getName().equals(method)) {
                        calls.incrementAndGet();
                    }
                    try {
                        return called.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
