#!/usr/bin/env bash
# The main job. The goal: build, start a Cassandra 5.0.9 node with the flash chunk cache, load it with
# YCSB, run a hotspot workload and print what happened against the baseline.
# Today only the flash device layer exists, so this builds the project and runs the quick device
# benchmark (our I/O engines against fio on the same file); the Cassandra part is not built yet.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
"$repo/scripts/install-deps.sh"
echo "== Cassandra node with the flash cache + YCSB: not yet (the cache core and the Cassandra agent are still to be built)"
echo "== running what exists: the flash device layer against fio (quick mode, a few minutes)"
exec "$repo/scripts/bench-device.sh" --quick "$@"
