# Sourced by the benchmark scripts. snapshot_build STAGE MARKER_CLASS NAME copies the compiled plugin
# classes, test classes, test classpath and native library into STAGE, so other builds in this
# checkout (mvn clean, recompiles) cannot delete or half-write class files under a running benchmark.
# A copy counts only if it still matches the tree a moment later. Needs repo_dir and classpath_file
# set, and die (lib/common.sh); the native library is copied only if capi_library is set (a benchmark
# that never loads it need not have it built).
snapshot_build() {
    local stage="$1" marker="$2" name="$3" attempt
    for (( attempt = 1; attempt <= 10; attempt++ )); do
        rm -rf "$stage/classes" "$stage/test-classes" "$stage/lib"
        mkdir -p "$stage/lib"
        if cp -a "$repo_dir/plugin/target/classes" "$stage/classes" 2>/dev/null \
                && cp -a "$repo_dir/plugin/target/test-classes" "$stage/test-classes" 2>/dev/null \
                && { [[ -z "${capi_library:-}" ]] || cp -a "$capi_library" "$stage/lib/" 2>/dev/null; } \
                && cp -a "$classpath_file" "$stage/test-classpath.txt" 2>/dev/null; then
            sleep 1
            if diff -rq "$repo_dir/plugin/target/classes" "$stage/classes" >/dev/null 2>&1 \
                    && diff -rq "$repo_dir/plugin/target/test-classes" "$stage/test-classes" >/dev/null 2>&1 \
                    && { [[ -z "${capi_library:-}" ]] || cmp -s "$capi_library" "$stage/lib/$(basename "$capi_library")"; } \
                    && [[ -f "$stage/test-classes/$marker" ]]; then
                return 0
            fi
        fi
        echo "$name: compiled classes are changing (another build running?); retrying the copy ($attempt/10)" >&2
        sleep 3
    done
    die "could not take a stable copy of plugin/target/classes; is another build running in $repo_dir?"
}

# build_test_snapshot STAGE MARKER_CLASS NAME: compiles the plugin and its tests, writes the test
# classpath, and takes the snapshot above into STAGE; then "$STAGE/classpath" holds the classpath to
# run from it. Needs repo_dir and die (lib/common.sh); sets capi_library and classpath_file.
build_test_snapshot() {
    local stage="$1" marker="$2" name="$3"
    echo "== building" >&2
    (cd "$repo_dir" && mvn -q -B -pl plugin -am test-compile >/dev/null \
        && mvn -q -B -pl plugin dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt \
            -Dmdep.includeScope=test >/dev/null) || die "the build failed (run mvn -pl plugin -am test-compile to see why)"
    capi_library="$repo_dir/native/build/libcflsh_block.so"
    classpath_file="$repo_dir/plugin/target/test-classpath.txt"
    snapshot_build "$stage" "$marker" "$name"
    echo "$stage/classes:$stage/test-classes:$(cat "$stage/test-classpath.txt")" > "$stage/classpath"
}
