#!/usr/bin/env bash
# Runs every test of the project: the native library's C tests, all Maven modules, then the plugin
# installer's quick test.
# On a fresh Debian machine it first installs what the tests need (as root).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

"$repo/scripts/install-deps.sh"

echo "== native: libcflsh_block (make test)"
make -s -C native all test

echo "== maven: mvn verify"
mvn -B verify

# the installer on a synthetic Cassandra 5.0.9 installation (needs the jar mvn verify built); the full
# test with a real node and an offline tool is scripts/tests/test-install-plugin.sh without --no-node
echo "== scripts/tests/test-install-plugin.sh --no-node"
"$repo/scripts/tests/test-install-plugin.sh" --no-node
echo "== all tests passed"
