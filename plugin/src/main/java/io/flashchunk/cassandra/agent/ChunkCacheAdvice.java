package io.flashchunk.cassandra.agent;

import io.flashchunk.cassandra.ChunkCacheHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Advice inlined into {@code org.apache.cassandra.cache.ChunkCache}. Each enter advice asks the
 * hooks first and skips the stock body when they handled the call; the exit advice then puts our
 * answer in place of the stock return value. {@code suppress} keeps a fault in our code from ever
 * failing a Cassandra call: the stock body runs instead. Types are Object so that this class loads
 * without Cassandra (the agent never touches Cassandra classes before Cassandra does).
 */
final class ChunkCacheAdvice {
    private ChunkCacheAdvice() {
    }

    /** {@code RebuffererFactory wrap(ChunkReader)}. */
    static final class Wrap {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static Object enter(@Advice.This Object cache, @Advice.Argument(0) Object reader) {
            return ChunkCacheHooks.wrap(cache, reader);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter Object ours,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
            if (ours != null) {
                returned = ours;
            }
        }
    }

    /** {@code void invalidateFile(String)}. */
    static final class InvalidateFile {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter(@Advice.Argument(0) String path) {
            return ChunkCacheHooks.invalidateFile(path);
        }
    }

    /** {@code void invalidatePosition(FileHandle, long)}: the stock body ignores rebufferers not its own. */
    static final class InvalidatePosition {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter(@Advice.Argument(0) Object handle, @Advice.Argument(1) long position) {
            return ChunkCacheHooks.invalidatePosition(handle, position);
        }
    }

    /** {@code long capacity()}. */
    static final class Capacity {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter() {
            return ChunkCacheHooks.isActive();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter boolean ours, @Advice.Return(readOnly = false) long returned) {
            if (ours) {
                returned = ChunkCacheHooks.capacity();
            }
        }
    }

    /** {@code int size()}: entries. */
    static final class Size {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter() {
            return ChunkCacheHooks.isActive();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter boolean ours, @Advice.Return(readOnly = false) int returned) {
            if (ours) {
                returned = ChunkCacheHooks.size();
            }
        }
    }

    /** {@code long weightedSize()}: bytes held. */
    static final class WeightedSize {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter() {
            return ChunkCacheHooks.isActive();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter boolean ours, @Advice.Return(readOnly = false) long returned) {
            if (ours) {
                returned = ChunkCacheHooks.weightedSize();
            }
        }
    }

    /**
     * {@code void close()} ({@code clear()} from 6.0): closes ours as well, then the stock body empties
     * the stock cache.
     */
    static final class Close {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            ChunkCacheHooks.close();
        }
    }
}
