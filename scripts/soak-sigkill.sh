#!/usr/bin/env bash
# A SIGKILL soak of real Cassandra 5.0.9 nodes under YCSB load (issue 14, item 4): a node with the flash
# chunk cache and a stock node beside it, both killed with SIGKILL at the same random moments and started
# again, every read checked against values that are a function of the key (see scripts/soak_sigkill.py).
# Needs root. Each run appends to RESULTS/runs.jsonl and rewrites RESULTS/summary.md with the total so far.
#
#   scripts/soak-sigkill.sh                  a 90-minute run into target/results/soak-sigkill/
#   scripts/soak-sigkill.sh --minutes 3      a short one (CI runs one into a temporary directory)
#
# Options go to soak_sigkill.py (--minutes, --kills, --records, --target, --kill-window MIN MAX, --seed,
# --nodes flash|stock|flash,stock, --results DIR, --work DIR). Exit 1 if any read failed or was wrong.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
results="target/results/soak-sigkill"
work="target/soak"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; echo; python3 scripts/soak_sigkill.py --help; exit 0 ;;
    --results) results="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
echo "== building the plugin jar and the YCSB binding" >&2
mvn -q -B -pl plugin,ycsb-workloads -am package -DskipTests >/dev/null
# the binding as ycsb.sh judges it (Maven leaves an up-to-date jar older than a pom that changed): the
# clients below must never build
scripts/ycsb.sh classpath >/dev/null
export FLASHCHUNK_YCSB_NO_BUILD=1
mkdir -p "$work"
# the run's own copy: later builds in this checkout must not change the jar under a restarting node
agent="$(cd "$(dirname "$work")" && pwd)/soak-agent-$$.jar"
cp plugin/target/flashchunk-cassandra.jar "$agent"
trap 'rm -f "$agent"' EXIT
python3 scripts/soak_sigkill.py --work "$work" --results "$results" --agent-jar "$agent" "${args[@]}"
