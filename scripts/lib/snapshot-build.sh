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

# build_module_snapshot STAGE MODULE NAME [SKIP_BUILD]: builds MODULE (plugin/sim or plugin/bench) and
# the modules it needs (mvn package, tests compiled but not run) and writes its runtime classpath, unless
# SKIP_BUILD is 1; then copies the module's jar, every jar of its classpath that lives in this checkout
# and the native library into STAGE, so that other builds here cannot change them under a running
# benchmark. A copy counts only if it still matches a moment later. Afterwards "$STAGE/classpath" holds
# the classpath to run from and capi_library names STAGE's copy of the native library. Needs repo_dir
# and die (lib/common.sh).
build_module_snapshot() {
    local stage="$1" module="$2" name="$3" skip_build="${4:-0}" attempt entry copy own
    local listed="$repo_dir/$module/target/runtime-classpath.txt"
    if [[ $skip_build -ne 1 ]]; then
        echo "== building $module" >&2
        # the agent jar is left as it is: a node of another run may be loading it
        (cd "$repo_dir" && mvn -q -B -pl "$module" -am package -DskipTests -Dflashchunk.agent.skip=true dependency:build-classpath \
            -Dmdep.outputFile=target/runtime-classpath.txt -Dmdep.includeScope=runtime >/dev/null) \
            || die "the build failed (run mvn -pl $module -am package -DskipTests to see why)"
    fi
    [[ -f "$listed" ]] || die "$listed is missing; run without --skip-build"
    own="$(find "$repo_dir/$module/target" -maxdepth 1 -name '*.jar' ! -name '*-tests.jar' | head -1)"
    [[ -n "$own" ]] || die "$module is not built (no jar in $module/target); run without --skip-build"
    capi_library="$repo_dir/native/build/libcflsh_block.so"
    local sources=("$own")
    [[ -f "$capi_library" ]] && sources+=("$capi_library")
    local entries
    IFS=: read -r -a entries < "$listed" || true  # the file has no final newline
    for entry in "${entries[@]}"; do
        [[ "$entry" == "$repo_dir"/* ]] && sources+=("$entry")
    done
    for (( attempt = 1; attempt <= 10; attempt++ )); do
        rm -rf "$stage/jars" && mkdir -p "$stage/jars"
        local copied=1
        for entry in "${sources[@]}"; do
            cp -a "$entry" "$stage/jars/" 2>/dev/null || { copied=0; break; }
        done
        if [[ $copied -eq 1 ]]; then
            sleep 1
            local same=1
            for entry in "${sources[@]}"; do
                cmp -s "$entry" "$stage/jars/$(basename "$entry")" || { same=0; break; }
            done
            if [[ $same -eq 1 ]]; then
                local classpath="$stage/jars/$(basename "$own")"
                for entry in "${entries[@]}"; do
                    if [[ "$entry" == "$repo_dir"/* ]]; then
                        classpath+=":$stage/jars/$(basename "$entry")"
                    else
                        classpath+=":$entry"
                    fi
                done
                echo "$classpath" > "$stage/classpath"
                capi_library="$stage/jars/$(basename "$capi_library")"
                return 0
            fi
        fi
        echo "$name: the build's jars are changing (another build running?); retrying the copy ($attempt/10)" >&2
        sleep 3
    done
    die "could not take a stable copy of $module's jars; is another build running in $repo_dir?"
}
