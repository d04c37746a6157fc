#!/usr/bin/env bash
# The longer cluster run (issue 16): the steps of scripts/cluster_steps.py (SIGKILL and warm restart,
# bootstrap and a rebuild that streams SSTables whole, cleanup/decommission, repairs/upgradesstables/
# scrub/chunk-length rewrite, rolling restart) with more data and longer phases, YCSB at a steady
# target rate throughout. Writes
# RESULTS/results.json (every figure, the throughput timeline and the step events), summary.md (per
# step: throughput, read/update p50/p99, reads checked, wrong values, lost writes, failed reads and
# updates, rows read at ONE per node; per node: the chunk-cache line, flash hits, files cached),
# throughput.png (ops/s over time, each step marked), machine.txt and command.txt.
#
#   cluster-soak.sh --results DIR [--records N] [--phase-seconds S] [--down-seconds S] [--target OPS]
#                   [--threads N] [--heap SIZE] [--work DIR] [cluster_steps.py options...]
#
# Defaults: 20000 records of 1000 bytes, 120 s phases, 60 s with the killed node down, 300 ops/s,
# 4 client threads, 640M heaps. Needs the plugin jar (mvn -q -DskipTests package -pl plugin -am).
# About 20-25 minutes at the defaults; run it on an otherwise quiet machine.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command="scripts/cluster-soak.sh $*"  # before the options are taken apart
results="" work="" pass=()
records=20000 phase=120 down=60 target=300 threads=4 heap=640M
while [ $# -gt 0 ]; do
  case "$1" in
    --results) results=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --phase-seconds) phase=$2; shift 2 ;;
    --down-seconds) down=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --heap) heap=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pass+=("$1"); shift ;;
  esac
done
[ -n "$results" ] || { echo "cluster-soak.sh: error: --results DIR is required" >&2; exit 2; }
jar="$repo/plugin/target/flashchunk-cassandra.jar"
[ -f "$jar" ] || { echo "cluster-soak.sh: error: no plugin jar at $jar (mvn -q -DskipTests package -pl plugin -am)" >&2; exit 1; }
mkdir -p "$results"
made_work=0
if [ -z "$work" ]; then
  work="$(mktemp -d /tmp/cluster-soak.XXXXXX)"
  made_work=1
fi
trap '[ "$made_work" = 0 ] || rm -rf "$work"' EXIT
{
  nproc; free -g; uname -r; java -version 2>&1; git -C "$repo" rev-parse HEAD
} >"$results/machine.txt" 2>&1
echo "$command" >"$results/command.txt"
"$repo/scripts/ycsb.sh" classpath >/dev/null
python3 "$repo/scripts/cluster_steps.py" --work "$work" --results "$results" --jar "$jar" \
  --records "$records" --phase-seconds "$phase" --down-seconds "$down" --target "$target" \
  --threads "$threads" --heap "$heap" "${pass[@]}"
