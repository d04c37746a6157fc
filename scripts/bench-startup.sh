#!/usr/bin/env bash
# What the flash cache adds to a node's start (scripts/bench_startup.py): a node started again and again,
# stock and with the flash cache, in paired rounds; the time until CQL answers. Results go to
# target/results/startup-<UTC time>/ (or --out DIR).
#
#   scripts/bench-startup.sh                          stock against this checkout's jar, 5 rounds
#   scripts/bench-startup.sh --jar old=/path/x.jar    and another jar beside them
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="target/results/startup-$(date -u +%Y%m%dT%H%M%SZ)"
work="target/bench-startup"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --out) out="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
mvn -q -B -pl plugin -am package -DskipTests >/dev/null
mkdir -p "$work" "$out"
stage="$(mktemp -d "$(cd "$(dirname "$work")" && pwd)/startup-stage-XXXXXX")"
trap 'rm -rf "$stage"' EXIT
cp plugin/target/flashchunk-cassandra.jar "$stage/flash.jar"
{ nproc; free -g; uname -r; java -version 2>&1; echo "command: $0 $*"; git rev-parse HEAD; } > "$out/machine.txt"
python3 scripts/bench_startup.py --work "$work" --out "$out" --jar "flash=$stage/flash.jar" "${args[@]}"
