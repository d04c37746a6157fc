#!/usr/bin/env bash
# Runs every test of the project: the native library's C tests, then all Maven modules.
# On a fresh Debian machine it first installs what the tests need (as root).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

"$repo/scripts/install-deps.sh"

echo "== native: libcflsh_block (make test)"
make -s -C native all test

echo "== maven: mvn verify"
mvn -B verify
echo "== all tests passed"
