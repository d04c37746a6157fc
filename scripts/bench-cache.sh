#!/usr/bin/env bash
# Benchmarks of FlashChunk's cache core (io.flashchunk.bench.CacheBench, the plugin/bench module):
#
#   hits    cache hits (get of random cached chunks; the cache filled, then restarted) vs bare device
#           reads of the chunk's size and of the record's size on the same device file, and fio reading
#           the chunk's size there with libaio and with io_uring at the same queue depth (the threads'
#           number), back to back, rotating which goes first per round; CPU (user, system) per read of
#           each; then a CPU profile of each path in the JVM (async-profiler) at 8 threads, apart from
#           the rounds: where a hit's CPU goes that the device's own read does not spend
#   writes  the cache's flash bytes written per admitted byte under a hotspot stream (30% of the keys
#           get 80% of the requests); in full mode also the same stream with discard off and on
#           (off, on, on, off): what discarding each freed segment costs the writer on a file
#   sweep   the dead-file sweep: an index of two files' chunks, one dies; its lookups timed a writer's
#           idle turn at a time (what a dropped table's chunks cost the writer)
#
# Memory per cached chunk is scripts/bench-memory.sh's. Each step is one JVM. Its JSON lines go to
# $OUT/raw.jsonl, its stderr to $OUT/logs/<step>.log, the profiles to $OUT/profiles/ (collapsed
# stacks, xz); scripts/bench_cache_report.py then writes $OUT/tables.md and $OUT/cache-hits.png and
# prints the tables.
#
# Usage: scripts/bench-cache.sh [--quick] [--only hits|writes|sweep] [--out DIR] [--skip-build]
set -euo pipefail

repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command_line="$(printf '%q ' "$0" "$@")"
command_line="${command_line% }"

usage() {
    cat <<EOF
Usage: scripts/bench-cache.sh [options]

Cache-core benchmarks (CacheBench hits, compact-writes, dead-file-sweep); results in one directory.
Memory per cached chunk: scripts/bench-memory.sh.

  --quick         hits at 64 KiB only, threads 1,8, 3 s, 1 round (profiled at 8); writes with 200000 requests
                  over 20000 keys, 1 MiB segments; the sweep at 1 M chunks (10 M in full)
  --only STEP     run only the hits or writes steps, or one step by name (e.g. hits-16384,
                  writes-compact, writes-discard, sweep)
  --out DIR       results directory (default: target/results/cache-<UTC timestamp>)
  --skip-build    do not run Maven (plugin/bench must already be built, with its classpath file: mvn -pl
                  plugin/bench -am package -DskipTests dependency:build-classpath
                  -Dmdep.outputFile=target/runtime-classpath.txt -Dmdep.includeScope=runtime)
  -h, --help      this help

Full mode: hits at 4096, 16384 and 65536-byte chunks, threads 1,8,32, 5 s, 2 rounds, the
cache, chunk-sized device reads, record-sized device reads and fio (libaio; io_uring with registered
buffers and file) in every round, then each JVM path profiled at 8 threads; writes with
1000000 requests over 100000 keys, 16 MiB segments, then four times more with discard off, on, on,
off (--only writes-discard runs those alone). Every JVM runs with -Xmx6g; extra JVM
options from \$BENCH_JAVA_OPTS. Scratch files go to target/bench (deleted by each step).
EOF
}

PROG=bench-cache
# die (its messages never had "error: "), need_option_value
# shellcheck source=lib/common.sh
source "$repo_dir/scripts/lib/common.sh"
ERROR_PREFIX=""

quick=0
only=""
out=""
skip_build=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --only) need_option_value "$@"; only="$2"; shift 2 ;;
        --out) need_option_value "$@"; out="$2"; shift 2 ;;
        --skip-build) skip_build=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option: $1" ;;
    esac
done

if [[ -z "$out" ]]; then
    out="$repo_dir/target/results/cache-$(date -u +%Y%m%dT%H%M%SZ)"
fi
[[ "$out" = /* ]] || out="$PWD/$out"

# The steps: "<name>|<CacheBench arguments>|<timeout seconds>|<what, for the progress line>".
# The time limits are several times what a step took here (hits under 200 s per chunk size,
# writes-compact 42 s): a step that hangs is ended instead of stalling the whole run.
steps=()
if [[ $quick -eq 1 ]]; then
    steps+=("hits-65536|hits --chunk-bytes 65536 --threads 1,8 --seconds 3 --repeat 1|600|hits vs device, 64 KiB chunks, threads 1,8, 3 s x 1 round")
    steps+=("writes-compact|compact-writes --keys 20000 --requests 200000 --segment-mib 1|300|writes, hotspot stream of 200000 requests, 1 MiB segments")
    steps+=("sweep|dead-file-sweep --entries 1000000 --repeat 2|300|dead-file sweep, 1 M chunks, 2 rounds")
else
    for bytes in 4096 16384 65536; do
        steps+=("hits-$bytes|hits --chunk-bytes $bytes --threads 1,8,32 --seconds 5 --repeat 2|1200|hits vs device, $((bytes / 1024)) KiB chunks, threads 1,8,32, 5 s x 2 rounds")
    done
    steps+=("writes-compact|compact-writes --keys 100000 --requests 1000000 --segment-mib 16|900|writes, hotspot stream of 1000000 requests over 100000 keys, 16 MiB segments")
    # discard's cost: the same stream with discard off and on, in the order off, on, on, off
    for run in off-1 on-1 on-2 off-2; do
        flag=""
        [[ "$run" == on-* ]] && flag=" --discard"
        steps+=("writes-discard-$run|compact-writes --keys 100000 --requests 1000000 --segment-mib 16$flag|900|writes with discard ${run%-*} (round ${run#*-}), the same stream")
    done
    steps+=("sweep|dead-file-sweep --entries 10000000 --repeat 3|900|dead-file sweep, 10 M chunks, 3 rounds")
fi

if [[ -n "$only" ]]; then
    kept=()
    names=()
    for step in "${steps[@]}"; do
        name="${step%%|*}"
        names+=("$name")
        [[ "$name" == "$only" || "$name" == "$only"-* ]] && kept+=("$step")
    done
    [[ ${#kept[@]} -gt 0 ]] || die "--only: '$only' names no step (hits, writes, or one of: ${names[*]})"
    steps=("${kept[@]}")
fi

# ---------------------------------------------------------------------------------------------
# Tools and build
# ---------------------------------------------------------------------------------------------
command -v java >/dev/null 2>&1 || die "java (17+) is not on PATH"
command -v python3 >/dev/null 2>&1 || die "python3 is not on PATH"
fio=fio
if ! command -v fio >/dev/null 2>&1; then
    # The hits still run; their table then lacks the device's own cost.
    echo "bench-cache: warning: fio is not on PATH (scripts/install-deps.sh installs it): hits are measured without it" >&2
    fio=none
fi

# The runs use a private copy of the benchmarks module's jars (lib/snapshot-build.sh): other people's
# builds in this checkout would otherwise change them under the benchmark's feet.
stage="$(mktemp -d "${TMPDIR:-/tmp}/bench-cache.XXXXXX")"
step_pid=""
scratch_files=(hits-compact-device.img hits-compact-pread-device.img hits-compact-uring-device.img hits-compact-lz4-device.img hits-compact-Data.db compact-writes-device.img)  # CacheBench's names in --dir
on_exit() {
    # A step still running (interrupted run) is ended, and its scratch file removed.
    if [[ -n "$step_pid" ]]; then
        kill "$step_pid" 2>/dev/null || true
        wait "$step_pid" 2>/dev/null || true
        (cd "$repo_dir/$bench_dir" 2>/dev/null && rm -f "${scratch_files[@]}") || true
    fi
    rm -rf "$stage"
}
trap on_exit EXIT
trap 'exit 130' INT TERM
# shellcheck source=lib/snapshot-build.sh
source "$repo_dir/scripts/lib/snapshot-build.sh"
build_module_snapshot "$stage" plugin/bench bench-cache "$skip_build"
java_classpath="$(cat "$stage/classpath")"
read -r -a java_opts <<< "${BENCH_JAVA_OPTS:-}"

# ---------------------------------------------------------------------------------------------
# Output directory and machine facts
# ---------------------------------------------------------------------------------------------
[[ ! -e "$out/raw.jsonl" ]] || die "$out/raw.jsonl already exists; choose another --out"
mkdir -p "$out/logs"
# From here on, this script's own progress lines are also kept in $OUT/logs/progress.log.
exec 2> >(tee -a "$out/logs/progress.log" >&2)
raw="$out/raw.jsonl"
: > "$raw"
bench_dir="target/bench"  # relative to $repo_dir, where every step runs
mkdir -p "$repo_dir/$bench_dir"

other_benchmarks() {
    # Other benchmarks that would disturb this one (the brackets keep pgrep from matching itself).
    { pgrep -af 'bench-devic[e][.]sh' || true; pgrep -ax fio || true; } | head -5
}

write_machine_info() {
    echo "command: $command_line"
    echo "cwd: $PWD (steps run in $repo_dir)"
    echo "started (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "mode: $([[ $quick -eq 1 ]] && echo quick || echo full)"
    echo "JVM options: -Xmx6g ${BENCH_JAVA_OPTS:-}"
    echo "scratch dir: $repo_dir/$bench_dir"
    echo "classes: private copy of plugin/bench's jar and the plugin's jars, taken after the build"
    echo "each step: (cd $repo_dir && java -Xmx6g ${BENCH_JAVA_OPTS:-}${BENCH_JAVA_OPTS:+ }-cp $java_classpath io.flashchunk.bench.CacheBench <step arguments>)"
    echo "steps:"
    local step
    for step in "${steps[@]}"; do
        IFS='|' read -r name args _ _ <<< "$step"
        echo "  $name: CacheBench $args --dir $bench_dir"
    done
    echo
    echo "== nproc"; nproc
    echo "== cpu"; grep -m1 'model name' /proc/cpuinfo || true
    echo "== loadavg at start"; cat /proc/loadavg
    echo "== other benchmarks running at start"; other_benchmarks | sed 's/^/  /'; echo "  (end of list)"
    echo "== free -g"; free -g
    echo "== uname -r"; uname -r
    echo "== filesystem of the scratch dir"; findmnt -T "$repo_dir/$bench_dir" 2>/dev/null || df -hT "$repo_dir/$bench_dir"
    echo "== java -version"; java -version 2>&1
    echo "== python3 --version"; python3 --version 2>&1
    echo "== git"; (cd "$repo_dir" && git rev-parse --short HEAD 2>/dev/null || echo "no commit"; \
                    git status --short 2>/dev/null | wc -l | sed 's/$/ changed or untracked paths/') || true
}
write_machine_info > "$out/machine.txt" 2>&1

running="$(other_benchmarks)"
if [[ -n "$running" ]]; then
    echo "bench-cache: warning: another benchmark is running and will disturb this one:" >&2
    echo "$running" | sed 's/^/bench-cache:   /' >&2
fi

# ---------------------------------------------------------------------------------------------
# The steps
# ---------------------------------------------------------------------------------------------
# Appends the step's JSON lines to raw.jsonl (anything else on stdout goes to the step's log)
# and prints a one-line summary of what it measured.
record() {  # record <stdout file> <log file> <step name>
    python3 - "$1" "$2" "$raw" "$3" <<'PY'
import json, sys
source, log, raw, step = sys.argv[1:5]
rows, other = [], []
for text in open(source, encoding="utf-8", errors="replace").read().splitlines():
    if not text.strip():
        continue
    try:
        row = json.loads(text)
        if not isinstance(row, dict) or "bench" not in row:
            raise ValueError("no 'bench' field")
        rows.append((text, row))
    except ValueError:
        other.append(text)
if other:
    with open(log, "a", encoding="utf-8") as f:
        f.write("--- stdout lines that are not results ---\n" + "\n".join(other) + "\n")
if not rows:
    sys.exit("no JSON result lines on stdout")
with open(raw, "a", encoding="utf-8") as f:
    for _, row in rows:
        f.write(json.dumps(dict(row, step=step)) + "\n")  # the step that measured it
parts = []
for _, r in rows:
    if r["bench"] == "hits":
        parts.append(f"{r['path']} t={r['threads']} r{r['round']}: {r['ops_per_s']:.0f} ops/s")
    elif r["bench"] == "compact-writes":
        parts.append(f"compact: hit rate {r['hit_rate']:.3f}, written/admitted {r['written_per_admitted']:.3f}")
    elif r["bench"] == "dead-file-sweep":
        parts.append(f"sweep r{r['round']}: {r['ns_per_lookup']:.0f} ns a lookup, a turn at most {r['turn_max_us']:.0f} µs")
print("; ".join(parts))
PY
}

total=${#steps[@]}
failed=0
number=0
echo "bench-cache: $total steps, results in $out" >&2
for step in "${steps[@]}"; do
    IFS='|' read -r name args limit what <<< "$step"
    number=$(( number + 1 ))
    log="$out/logs/$name.log"
    step_out="$stage/$name.out"
    read -r -a bench_args <<< "$args"
    if [[ "$name" == hits-* ]]; then
        bench_args+=(--profile-dir "$out/profiles" --profile-threads 8 --fio "$fio")
    fi
    echo "bench-cache: [$number/$total] $what ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg)) ..." >&2
    started=$SECONDS
    status=0
    # timeout puts java in a process group of its own; on_exit ends it through timeout's pid.
    (cd "$repo_dir" && exec timeout --kill-after=30 "$limit" java -Xmx6g "${java_opts[@]}" \
        -cp "$java_classpath" io.flashchunk.bench.CacheBench "${bench_args[@]}" --dir "$bench_dir" \
        > "$step_out" 2> "$log") &
    step_pid=$!
    wait "$step_pid" || status=$?
    step_pid=""
    elapsed=$(( SECONDS - started ))
    if [[ $status -ne 0 ]]; then
        failed=$(( failed + 1 ))
        reason="exit $status"
        if [[ $status -eq 124 || $status -eq 137 ]]; then
            reason="timed out"
            echo "bench-cache: step timed out after $limit s and was ended" >> "$log"
        fi
        if [[ $status -eq 124 || $status -eq 137 || $status -eq 143 ]]; then
            # A JVM ended by a signal never ran its finally block.
            (cd "$repo_dir/$bench_dir" && rm -f "${scratch_files[@]}") || true
        fi
        # Keep whatever it printed before failing.
        record "$step_out" "$log" "$name" >/dev/null 2>>"$log" || true
        echo "bench-cache: [$number/$total] $name FAILED ($reason after ${elapsed}s), see $log" >&2
        first_error="$(grep -m1 -E 'ERROR|Exception' "$log" | cut -c1-240 || true)"
        [[ -z "$first_error" ]] || echo "bench-cache:     first error in the log: $first_error" >&2
    elif summary="$(record "$step_out" "$log" "$name" 2>>"$log")"; then
        # async-profiler's collapsed stacks are about 1 MB a path; xz makes them a few tens of KB.
        if compgen -G "$out/profiles/*.collapsed" >/dev/null; then
            xz -f "$out"/profiles/*.collapsed
        fi
        echo "bench-cache: [$number/$total] $name done in ${elapsed}s: $summary" >&2
    else
        failed=$(( failed + 1 ))
        echo "bench-cache: [$number/$total] $name FAILED (no results), see $log" >&2
    fi
done

{
    echo
    echo "== finished (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "== loadavg at end"; cat /proc/loadavg
    echo "== other benchmarks running at end"; other_benchmarks | sed 's/^/  /'; echo "  (end of list)"
    echo "steps: $total, failed: $failed"
} >> "$out/machine.txt"

echo "bench-cache: $(( total - failed ))/$total steps recorded in $raw; writing the report ..." >&2
python3 "$repo_dir/scripts/bench_cache_report.py" "$out"
if [[ $failed -gt 0 ]]; then
    die "$failed of $total steps failed (logs in $out/logs)"
fi
