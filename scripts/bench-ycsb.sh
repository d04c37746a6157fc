#!/usr/bin/env bash
# The paper's YCSB evaluation at this machine's scale: stock Cassandra 5.0.9 (its own chunk cache) at
# memory M and 2M, compressed and uncompressed, against the flash chunk cache at M with 1x, 2x and 4x
# the hot set, side by side in one run; see scripts/bench_ycsb.py for the steps. Needs root.
# Raw results, the table and the plots go to docs/results/ycsb-<UTC time>/ (or --out DIR).
#
#   scripts/bench-ycsb.sh            full run (about 85 minutes): 90,000 records of 10 x 6400 B, heap 768M,
#                                    M = 1600 MiB, two workloads, 180 s warm-up, targets 1000/2000/3000/max,
#                                    30 s each
#   scripts/bench-ycsb.sh --quick    about 20 minutes (5 more to load): 90,000 records, heap 768M,
#                                    M = 1.75 GiB, 100% read, baseline at M and 2M against the flash
#                                    cache at 4x, max target
# Other options go to bench_ycsb.py (--records, --memory, --targets, --configs, --reuse-data, --repeat N,
# --profile, ...).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="docs/results/ycsb-$(date -u +%Y%m%dT%H%M%SZ)"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,14s/^# \{0,1\}//p' "$0"; echo; python3 scripts/bench_ycsb.py --help; exit 0 ;;
    --out) out="$2"; shift 2 ;;
    --quick) args+=(--records 90000 --heap 768M --memory 1792M --warmup 180 --measure 45 --targets 0
                    --workloads paper-read100 --configs base-c-M,base-c-2M,flash-4x); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
mkdir -p "$out"
echo "== building the plugin jar and the YCSB binding" >&2
mvn -q -B -pl plugin,ycsb-workloads -am package -DskipTests >/dev/null
{ nproc; free -g; uname -r; java -version 2>&1; echo "command: $0 ${args[*]}"; } > "$out/machine.txt"
python3 scripts/bench_ycsb.py --out "$out" "${args[@]}"
python3 scripts/bench_ycsb_report.py "$out"
echo "results: $out (table.md, ycsb-*.png, raw.jsonl)" >&2
