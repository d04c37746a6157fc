#!/usr/bin/env bash
# Builds a release of FlashChunk: flashchunk-VERSION.tar.gz and flashchunk-VERSION.tar.gz.sha256, from
# the commit at HEAD (git archive: uncommitted changes are not in it), with VERSION set in every pom
# of that copy, so that the jars' manifests, the cache's start line, the checkpoint tool's --version
# and the installer's status all say VERSION.
#
#   release.sh VERSION [--out DIR]       (default DIR: target/release of this checkout)
#
# The tarball holds one directory, flashchunk-VERSION/:
#   lib/flashchunk-cassandra.jar          the plugin: java agent, configuration loader and the cache
#   lib/flashchunk-checkpoint-tool.jar    the checkpoint inspection CLI
#   bin/install-plugin.sh, bin/lib/       the installer (its default jar: ../lib/flashchunk-cassandra.jar)
#   bin/flashchunk-checkpoint             the CLI's wrapper
#   native/                               source of libcflsh_block, our capiblock-compatible library
#   docs/, README.md, CHANGELOG.md, LICENSE, NOTICE (the bundled libraries and their licenses)
# Needs git, mvn and a JDK 17 (the build), python3, tar and sha256sum.
set -euo pipefail

PROG="release.sh"
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPTS_DIR/.." && pwd)"

# die, note
# shellcheck source=lib/common.sh
source "$SCRIPTS_DIR/lib/common.sh"

[ $# -ge 1 ] || die "usage: $PROG VERSION [--out DIR]"
version=$1
shift
out="$REPO/target/release"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    *) die "unknown option '$1' (usage: $PROG VERSION [--out DIR])" ;;
  esac
done
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]] \
  || die "VERSION must look like 1.0.0 or 1.0.1-rc1, got '$version'"
for tool in git mvn python3 tar sha256sum; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/install-deps.sh installs what the build needs)"
done
git -C "$REPO" rev-parse --verify -q HEAD >/dev/null || die "$REPO is not a git checkout with a commit: a release is built from one"
commit="$(git -C "$REPO" rev-parse --short=12 HEAD)"
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ]; then
  note "the tree has uncommitted changes; the release is built from commit $commit without them"
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(mktemp -d "${TMPDIR:-/tmp}/flashchunk-release.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
src="$stage/src"
name="flashchunk-$version"
dist="$stage/$name"
mkdir -p "$src" "$dist/lib" "$dist/bin/lib"

note "building $name from commit $commit in $stage"
git -C "$REPO" archive HEAD | tar -x -C "$src"
log="$stage/build.log"
(
  cd "$src"
  mvn -B -q versions:set -DnewVersion="$version" -DprocessAllModules=true -DgenerateBackupPoms=false
  mvn -B -q -pl plugin,checkpoint-tool -am package -DskipTests
) >"$log" 2>&1 || { tail -n 40 "$log" >&2; die "the build failed (log above)"; }

cp "$src/plugin/target/flashchunk-cassandra.jar" "$dist/lib/"
cp "$src/checkpoint-tool/target/flashchunk-checkpoint-tool.jar" "$dist/lib/"
cp "$src/scripts/install-plugin.sh" "$dist/bin/install-plugin.sh"
cp "$src/scripts/lib/common.sh" "$dist/bin/lib/common.sh"
cp "$src/scripts/checkpoint-tool" "$dist/bin/flashchunk-checkpoint"
mkdir -p "$dist/native"
cp -r "$src/native/Makefile" "$src/native/README.md" "$src/native/include" "$src/native/src" "$src/native/tests" "$dist/native/"
cp -r "$src/docs" "$dist/docs"
cp "$src/README.md" "$src/CHANGELOG.md" "$src/LICENSE" "$src/NOTICE" "$dist/"
chmod 755 "$dist/bin/install-plugin.sh" "$dist/bin/flashchunk-checkpoint"
chmod 644 "$dist/lib/"*.jar

# the stamped version, read back from what is shipped
stamped="$(python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("META-INF/MANIFEST.MF").decode())' \
  "$dist/lib/flashchunk-cassandra.jar" | tr -d '\r' | sed -n 's/^Implementation-Version: *//p')"
[ "$stamped" = "$version" ] || die "the plugin jar's manifest says version '$stamped', not $version"

tarball="$out/$name.tar.gz"
# names sorted, owner root, every time the commit's: nothing of the build machine in the archive
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git -C "$REPO" log -1 --format=%ct HEAD)" \
  -C "$stage" -cf - "$name" | gzip -n -9 >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
note "$tarball ($(du -h "$tarball" | cut -f1)), sha256 $(cut -d' ' -f1 "$tarball.sha256"), commit $commit"
