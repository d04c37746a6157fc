#!/usr/bin/env bash
# Random reads through FlashChunk's block-device layer (DeviceBench, engines libaio, threadpool
# and capi) side by side with fio (libaio, O_DIRECT) on the same preallocated, filled file.
#
# For each repeat and each (bs, qd) the four backends run back to back, each in its own process,
# in an order that rotates from group to group so no backend always goes first. Every run's JSON
# line goes to $OUT/raw.jsonl; scripts/bench_device_report.py then writes $OUT/table.md and
# $OUT/device-iops.png and prints the table.
#
# Usage: scripts/bench-device.sh [--file PATH] [--size 4G] [--seconds 5] [--warmup 2]
#                                [--repeat 3] [--quick] [--out DIR] [--skip-build]
set -euo pipefail

repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command_line="$(printf '%q ' "$0" "$@")"

usage() {
    cat <<EOF
Usage: scripts/bench-device.sh [options]

Random-read benchmark: fio (libaio, direct=1) vs FlashChunk DeviceBench engines
libaio, threadpool and capi (native/build/libcflsh_block.so), on one file.

  --file PATH     file to read (default: $repo_dir/target/bench/device.img);
                  created, preallocated and filled with data if new or smaller than --size
  --size SIZE     file size, K/M/G/T suffixes, a multiple of 1M (default 4G)
  --seconds N     measured seconds per run (default 5)
  --warmup N      warm-up seconds per run, not measured (default 2)
  --repeat N      repeats of the whole matrix (default 3)
  --quick         1 repeat, 3 s, 1 s warm-up, qd 1 and 32 only
                  (explicit --seconds/--warmup/--repeat still win)
  --out DIR       results directory (default: target/results/device-<UTC timestamp>)
  --skip-build    do not run Maven (plugin/bench and native/ must already be built, as bench-cache.sh --help says)
  -h, --help      this help

Matrix: bs 4096 65536; qd 1 8 32; backends fio, flashchunk-libaio,
flashchunk-threadpool, flashchunk-capi. Extra JVM options: \$BENCH_JAVA_OPTS.
EOF
}

PROG=bench-device
# die (its messages never had "error: "), need_option_value
# shellcheck source=lib/common.sh
source "$repo_dir/scripts/lib/common.sh"
ERROR_PREFIX=""

is_count() {
    [[ "$1" =~ ^[0-9]+$ ]]
}

file=""
size="4G"
seconds=""
warmup=""
repeat=""
quick=0
out=""
skip_build=0

while [[ $# -gt 0 ]]; do
    case "$1" in
        --file) need_option_value "$@"; file="$2"; shift 2 ;;
        --size) need_option_value "$@"; size="$2"; shift 2 ;;
        --seconds) need_option_value "$@"; seconds="$2"; shift 2 ;;
        --warmup) need_option_value "$@"; warmup="$2"; shift 2 ;;
        --repeat) need_option_value "$@"; repeat="$2"; shift 2 ;;
        --quick) quick=1; shift ;;
        --out) need_option_value "$@"; out="$2"; shift 2 ;;
        --skip-build) skip_build=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option: $1" ;;
    esac
done

block_sizes=(4096 65536)
if [[ $quick -eq 1 ]]; then
    queue_depths=(1 32)
    : "${seconds:=3}" "${warmup:=1}" "${repeat:=1}"
else
    queue_depths=(1 8 32)
    : "${seconds:=5}" "${warmup:=2}" "${repeat:=3}"
fi
backends=(fio flashchunk-libaio flashchunk-threadpool flashchunk-capi)

is_count "$seconds" && [[ $seconds -ge 1 ]] || die "--seconds must be a whole number >= 1, got '$seconds'"
is_count "$warmup" || die "--warmup must be a whole number >= 0, got '$warmup'"
is_count "$repeat" && [[ $repeat -ge 1 ]] || die "--repeat must be a whole number >= 1, got '$repeat'"

size_bytes="$(numfmt --from=iec "${size^^}" 2>/dev/null)" || die "--size: cannot read '$size' (examples: 4G, 512M)"
(( size_bytes >= 1048576 && size_bytes % 1048576 == 0 )) || die "--size must be a multiple of 1M, got '$size'"

[[ -n "$file" ]] || file="$repo_dir/target/bench/device.img"
[[ "$file" = /* ]] || file="$PWD/$file"
if [[ -z "$out" ]]; then
    out="$repo_dir/target/results/device-$(date -u +%Y%m%dT%H%M%SZ)"
fi
[[ "$out" = /* ]] || out="$PWD/$out"

# ---------------------------------------------------------------------------------------------
# Tools and build
# ---------------------------------------------------------------------------------------------
command -v fio >/dev/null 2>&1 \
    || die "fio is not installed; install it with: apt-get install -y fio libaio1"
command -v java >/dev/null 2>&1 || die "java (17+) is not on PATH"
command -v python3 >/dev/null 2>&1 || die "python3 is not on PATH"

# The runs use a private copy of the benchmarks module's jars and the native library
# (lib/snapshot-build.sh): other people's builds in this checkout would otherwise change them under the
# benchmark's feet.
stage="$(mktemp -d "${TMPDIR:-/tmp}/bench-device.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
# shellcheck source=lib/snapshot-build.sh
source "$repo_dir/scripts/lib/snapshot-build.sh"
build_module_snapshot "$stage" plugin/bench bench-device "$skip_build"
[[ -f "$capi_library" ]] || die "$capi_library is missing; run without --skip-build (or: make -C $repo_dir/native)"
java_classpath="$(cat "$stage/classpath")"
read -r -a java_opts <<< "${BENCH_JAVA_OPTS:-}"

# ---------------------------------------------------------------------------------------------
# The file: preallocated and filled with real data once
# ---------------------------------------------------------------------------------------------
# fallocate alone leaves unwritten extents, which ext4 reads back as zeros without touching the
# disk, so the file is also written end to end once (sequential, direct=1). The fill goes to a
# temporary name and is renamed when complete, so an interrupted fill never looks finished.
fill_file() {
    local target="$1" tmp="$1.filling"
    echo "bench-device: filling $target with $size_bytes bytes of data (sequential fio write, direct=1) ..." >&2
    rm -f "$tmp"
    fallocate -l "$size_bytes" "$tmp" 2>/dev/null \
        || echo "bench-device: fallocate not supported here; fio writes the file without it" >&2
    fio --name=fill --filename="$tmp" --rw=write --bs=1M --size="$size_bytes" --direct=1 \
        --ioengine=libaio --iodepth=16 --end_fsync=1 --output-format=json --output="$tmp.fio.json" >&2 \
        || { rm -f "$tmp" "$tmp.fio.json"; die "fio could not fill $tmp"; }
    python3 - "$tmp.fio.json" <<'PY' >&2
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]["write"]
print(f"bench-device: filled {job['io_bytes'] / 2**30:.2f} GiB at {job['bw_bytes'] / 1e6:.0f} MB/s")
PY
    rm -f "$tmp.fio.json"
    mv -f "$tmp" "$target"
}

has_unwritten_extents() {
    local count
    command -v filefrag >/dev/null 2>&1 || return 1
    # grep -c reads everything (grep -q could end the pipe early and fail it under pipefail).
    count="$(filefrag -v "$1" 2>/dev/null | grep -c unwritten || true)"
    [[ "${count:-0}" -gt 0 ]]
}

mkdir -p "$(dirname "$file")"
if [[ -b "$file" ]]; then
    echo "bench-device: $file is a block device; using it as is (it must already hold data)" >&2
elif [[ ! -e "$file" ]]; then
    fill_file "$file"
elif [[ ! -f "$file" ]]; then
    die "$file is neither a regular file nor a block device"
elif (( $(stat -c %s "$file") < size_bytes )); then
    echo "bench-device: $file has $(stat -c %s "$file") bytes, less than --size $size; refilling" >&2
    fill_file "$file"
elif has_unwritten_extents "$file"; then
    echo "bench-device: $file has unwritten (never written) extents, which read back as zeros without disk I/O; refilling" >&2
    fill_file "$file"
else
    echo "bench-device: using existing $file ($(stat -c %s "$file") bytes; not refilled)" >&2
fi
if [[ -b "$file" ]]; then
    file_bytes="$(blockdev --getsize64 "$file")"
else
    file_bytes="$(stat -c %s "$file")"
fi
(( file_bytes % 65536 == 0 )) || echo "bench-device: note: $file_bytes bytes is not a multiple of 64 KiB" >&2

# ---------------------------------------------------------------------------------------------
# Output directory and machine facts
# ---------------------------------------------------------------------------------------------
[[ ! -e "$out/raw.jsonl" ]] || die "$out/raw.jsonl already exists; choose another --out"
mkdir -p "$out/logs"
raw="$out/raw.jsonl"
: > "$raw"

sysfs_block_dir() {
    # The sysfs directory of the whole disk holding the file (or of the block device itself).
    local devno dir
    if [[ -b "$1" ]]; then
        devno="$(stat -L -c '%Hr:%Lr' "$1")"
    else
        devno="$(stat -c '%Hd:%Ld' "$1")"
    fi
    dir="$(readlink -f "/sys/dev/block/$devno" 2>/dev/null)" || return 1
    [[ -d "$dir" ]] || return 1
    [[ -f "$dir/partition" ]] && dir="$(dirname "$dir")"
    echo "$dir"
}

write_machine_info() {
    local dir f
    echo "command: $command_line"
    echo "cwd: $PWD"
    echo "started (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "settings: file=$file file_bytes=$file_bytes seconds=$seconds warmup=$warmup repeat=$repeat quick=$quick"
    echo "matrix: bs=${block_sizes[*]} qd=${queue_depths[*]} backends=${backends[*]}"
    echo "BENCH_JAVA_OPTS: ${BENCH_JAVA_OPTS:-}"
    echo "classes: private copy of plugin/bench's jar, the plugin's jars and $(basename "$capi_library"), taken after the build"
    echo
    echo "== nproc"; nproc
    echo "== cpu"; grep -m1 'model name' /proc/cpuinfo || true
    echo "== loadavg at start"; cat /proc/loadavg
    echo "== free -g"; free -g
    echo "== uname -r"; uname -r
    echo "== uname -a"; uname -a
    echo "== filesystem of the file"; findmnt -T "$file" 2>/dev/null || df -hT "$file"
    echo "== device of the file"
    if dir="$(sysfs_block_dir "$file")"; then
        echo "sysfs: $dir"
        lsblk -d -o NAME,MODEL,VENDOR,SIZE,ROTA,TYPE,TRAN,SCHED "/dev/$(basename "$dir")" 2>/dev/null || true
        for f in device/model device/vendor device/device device/rev serial cache_type size \
                 queue/rotational queue/scheduler queue/nr_requests queue/max_sectors_kb \
                 queue/max_hw_sectors_kb queue/logical_block_size queue/physical_block_size \
                 queue/write_cache queue/nomerges queue/read_ahead_kb; do
            [[ -r "$dir/$f" ]] && printf '%s: %s\n' "$f" "$(tr -d '\0' < "$dir/$f" | head -c 200)"
        done
        [[ -d "$dir/mq" ]] && echo "mq hardware queues: $(ls "$dir/mq" | wc -l)"
        [[ -d "$dir/device/driver" ]] && echo "driver: $(basename "$(readlink -f "$dir/device/driver")")"
    else
        echo "(no sysfs block device found for $file)"
    fi
    echo "== fio --version"; fio --version
    echo "== java -version"; java -version 2>&1
    echo "== python3 --version"; python3 --version 2>&1
    echo "== git"; (cd "$repo_dir" && git rev-parse --short HEAD 2>/dev/null || echo "no commit"; \
                    git status --short 2>/dev/null | wc -l | sed 's/$/ changed or untracked paths/') || true
}
write_machine_info > "$out/machine.txt" 2>&1

# ---------------------------------------------------------------------------------------------
# The runs
# ---------------------------------------------------------------------------------------------
# Appends one result line to raw.jsonl with the run's coordinates added and prints its IOPS.
# fio's JSON is converted to DeviceBench's shape first.
record() {  # record <kind: fio|java> <input> <bs> <qd> <repeat> <position> <run> <load1>
    python3 - "$@" "$raw" <<'PY'
import json, sys
kind, source, bs, qd, repeat, position, run, load1, raw = sys.argv[1:10]
bs, qd = int(bs), int(qd)
if kind == "fio":
    job = json.load(open(source))["jobs"][0]
    if job.get("error"):
        sys.exit(f"fio job error {job['error']}")
    rd = job["read"]
    runtime_ms = job.get("job_runtime") or rd["runtime"]
    ios = rd["total_ios"]
    lat = rd["lat_ns"]
    pct = lat.get("percentile", {})
    cpu_us = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * (runtime_ms / 1000.0) / ios * 1e6 if ios else 0.0
    line = {
        "tool": "fio", "label": "fio", "engine": "libaio", "bs": bs, "qd": qd,
        "seconds": round(rd["runtime"] / 1000.0, 3), "ops": ios,
        "errors": int(job.get("total_err", 0)) + int(rd.get("short_ios", 0)),
        "iops": round(rd["iops"], 1), "mb_per_s": round(rd["bw_bytes"] / 1e6, 2),
        "lat_mean_us": round(lat["mean"] / 1e3, 2),
        "lat_p50_us": round(pct.get("50.000000", 0) / 1e3, 2),
        "lat_p99_us": round(pct.get("99.000000", 0) / 1e3, 2),
        "cpu_us_per_io": round(cpu_us, 3),
    }
else:
    lines = [l for l in open(source).read().splitlines() if l.strip()]
    if len(lines) != 1:
        sys.exit(f"expected one JSON line on DeviceBench's stdout, got {len(lines)}")
    line = json.loads(lines[0])
    if (line.get("bs"), line.get("qd")) != (bs, qd):
        sys.exit(f"DeviceBench reported bs={line.get('bs')} qd={line.get('qd')}, expected bs={bs} qd={qd}")
line.update({"repeat": int(repeat), "position": int(position), "run": int(run), "loadavg_1m": float(load1)})
with open(raw, "a") as f:
    f.write(json.dumps(line, separators=(",", ":")) + "\n")
warn = f" ({line['errors']} errors)" if line.get("errors") else ""
print(f"{line['iops']:.0f} IOPS{warn}")
PY
}

groups_per_repeat=$(( ${#block_sizes[@]} * ${#queue_depths[@]} ))
total_runs=$(( repeat * groups_per_repeat * ${#backends[@]} ))
run=0
group=0
failed=0
est=$(( total_runs * (seconds + warmup + 2) ))
echo "bench-device: $total_runs runs (~$(( est / 60 )) min), results in $out" >&2

for (( r = 1; r <= repeat; r++ )); do
    for bs in "${block_sizes[@]}"; do
        for qd in "${queue_depths[@]}"; do
            n=${#backends[@]}
            for (( p = 0; p < n; p++ )); do
                backend="${backends[$(( (group + p) % n ))]}"
                run=$(( run + 1 ))
                tag="$backend-$bs-$qd-$r"
                log="$out/logs/$tag.log"
                load1="$(cut -d' ' -f1 /proc/loadavg)"
                prefix="[$run/$total_runs] bs=$bs qd=$qd $backend"
                run_failed=0
                if [[ "$backend" == fio ]]; then
                    fio_json="$out/fio-$bs-$qd-$r.json"
                    if fio --name=randread --filename="$file" --ioengine=libaio --direct=1 --rw=randread \
                            --bs="$bs" --iodepth="$qd" --numjobs=1 --time_based --ramp_time="$warmup" \
                            --runtime="$seconds" --lat_percentiles=1 --output-format=json \
                            --output="$fio_json" > "$log" 2>&1 \
                        && result="$(record fio "$fio_json" "$bs" "$qd" "$r" "$p" "$run" "$load1" 2>>"$log")"; then
                        echo "$prefix: $result" >&2
                    else
                        failed=$(( failed + 1 ))
                        run_failed=1
                        echo "$prefix: FAILED, see $log" >&2
                    fi
                else
                    engine="${backend#flashchunk-}"
                    stdout_file="$out/logs/$tag.out"
                    if java "${java_opts[@]}" -cp "$java_classpath" io.flashchunk.bench.DeviceBench \
                            --path "$file" --engine "$engine" --capi-library "$capi_library" --bs "$bs" \
                            --qd "$qd" --warmup "$warmup" --seconds "$seconds" --label "$backend" \
                            > "$stdout_file" 2> "$log" \
                        && result="$(record java "$stdout_file" "$bs" "$qd" "$r" "$p" "$run" "$load1" 2>>"$log")"; then
                        echo "$prefix: $result" >&2
                        rm -f "$stdout_file"
                    else
                        failed=$(( failed + 1 ))
                        run_failed=1
                        echo "$prefix: FAILED, see $log" >&2
                    fi
                fi
                # Keep a run's log only if the run failed or logged a warning or error.
                if [[ -f "$log" ]] && ! grep -qiE 'warn|error|exception' "$log" \
                        && [[ $run_failed -eq 0 ]]; then
                    rm -f "$log"
                fi
            done
            group=$(( group + 1 ))
        done
    done
done
rmdir "$out/logs" 2>/dev/null || true

{
    echo
    echo "== finished (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "== loadavg at end"; cat /proc/loadavg
    echo "runs: $total_runs, failed: $failed"
} >> "$out/machine.txt"

echo "bench-device: $(( total_runs - failed ))/$total_runs runs recorded in $raw" >&2
python3 "$repo_dir/scripts/bench_device_report.py" "$out"
if [[ $failed -gt 0 ]]; then
    die "$failed of $total_runs runs failed (logs in $out/logs)"
fi
