#!/usr/bin/env bash
# Checkpoint benchmarks of the cache (issue 15) at 10 M and 100 M entries (a sparse device file of
# about 1.7 TB for 100 M): checkpoint time and size, recovery time after a restart, hit latency
# while checkpoints of that many entries run back to back against while none runs (same run,
# alternating), and how long the writer is held up by a full checkpoint written in steps against
# one written whole (rounds of both). Raw JSON lines and a table go to target/results/checkpoint-<UTC time>/ (or --out DIR).
set -euo pipefail
command_line="$0 $*"  # before the options are shifted away, for machine.txt
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="target/results/checkpoint-$(date -u +%Y%m%dT%H%M%SZ)"
quick=0
writer_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    # only the writer during full checkpoints, in steps and whole (a few minutes at 100 M)
    --writer-only) writer_only=1; shift ;;
    *) echo "unknown option: $1 (use --out DIR, --quick, --writer-only)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" target/bench
repo_dir="$repo"
PROG=bench-checkpoint
# die (its messages never had "error: ")
# shellcheck source=lib/common.sh
source "$repo/scripts/lib/common.sh"
ERROR_PREFIX=""
private="$(mktemp -d)"
trap 'rm -rf "$private"' EXIT
# shellcheck source=lib/snapshot-build.sh
source "$repo/scripts/lib/snapshot-build.sh"
build_module_snapshot "$private" plugin/bench bench-checkpoint
cp="$(cat "$private/classpath")"
bench() { java -Xmx6g -cp "$cp" io.flashchunk.bench.CacheBench "$@" --dir target/bench 2>>"$out/bench.log" | tee -a "$out/raw.jsonl"; }
{ nproc; free -g; uname -r; java -version 2>&1; echo "command: $command_line"; git rev-parse HEAD; } > "$out/machine.txt"
sizes="10000000 100000000"; seconds=5; repeat=2
[ "$quick" = 1 ] && { sizes="1000000"; seconds=2; repeat=1; }
for entries in $sizes; do
  if [ "$writer_only" = 0 ]; then
    echo "== hit latency while checkpointing, checkpoint and recovery at $entries entries" >&2
    # the seconds a round lasts cover at least one checkpoint of this many entries
    bench compact-checkpoint --entries "$entries" --seconds $(( entries >= 100000000 ? 4 * seconds : seconds )) \
      --repeat "$repeat" >/dev/null
  fi
  echo "== the writer during a full checkpoint of $entries entries, in steps and whole" >&2
  bench writer-during-full-checkpoint --entries "$entries" --repeat "$repeat" >/dev/null
done
python3 scripts/bench_checkpoint_report.py "$out"
echo "raw results and table in $out" >&2
