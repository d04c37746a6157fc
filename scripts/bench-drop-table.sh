#!/usr/bin/env bash
# What a DROP TABLE gives back on a real node (scripts/bench_drop_table.py): two tables of equal size
# cached whole on a 5.0.9 node with the flash cache, one dropped; the time until its chunks leave the
# index and until its flash is free, with nothing asked of the cache. Results go to
# target/results/drop-table-<UTC time>/ (or --out DIR). About 5 minutes with the defaults.
#
#   scripts/bench-drop-table.sh [--records N] [--flash-mib M] [--heap H] [--work DIR] [--out DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="target/results/drop-table-$(date -u +%Y%m%dT%H%M%SZ)"
work="target/bench-drop-table"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,7s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --out) out="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
mvn -q -B -pl plugin,ycsb-workloads -am package -DskipTests >/dev/null
mkdir -p "$work" "$out"
{ nproc; free -g; uname -r; java -version 2>&1; echo "command: $0 $*"; git rev-parse HEAD; } > "$out/machine.txt"
python3 scripts/bench_drop_table.py --work "$work" --out "$out" "${args[@]}"
