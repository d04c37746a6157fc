package io.flashchunk.device;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * Binds a class's native methods to an optional library (JNA direct mapping), for the bindings
 * whose library may be missing on a node (libaio, libblkid): a missing library is a reason to fall
 * back, never an error at class load.
 */
public final class NativeBindings {
    private NativeBindings() {
    }

    /** Registers {@code binding}'s native methods from {@code library}; returns what failed, or null. */
    public static Throwable register(Class<?> binding, String library) {
        try {
            // The binding's own class loader: a library the jar carries is found on its class path.
            Native.register(binding, NativeLibrary.getInstance(library,
                    java.util.Map.of(com.sun.jna.Library.OPTION_CLASSLOADER, binding.getClassLoader())));
            return null;
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return e;
        }
    }

    /** Why {@code library} did not load ({@code failure}: what {@link #register} returned), in one line; null when it did. */
    public static String unavailableReason(String library, Throwable failure) {
        if (failure == null) {
            return null;
        }
        // JNA puts each place it looked, and why that failed, on a line of its own: all of them, on one.
        String message = String.join("; ", String.valueOf(failure.getMessage()).strip().split("\\s*\n\\s*"));
        return library + " could not be loaded: " + message;
    }
}
