#!/usr/bin/env bash
# Builds a release of FlashChunk: flashchunk-VERSION.tar.gz and flashchunk-VERSION.tar.gz.sha256, from
# the commit at HEAD (git archive), with VERSION set in every pom of that copy, so that the jars'
# manifests, the cache's start line, the checkpoint tool's --version and the installer's status all
# say VERSION. A tree with uncommitted changes is refused (the release would not be what it looks
# like) unless --allow-dirty, which still builds HEAD without them.
#
#   release.sh VERSION [--out DIR] [--allow-dirty]     (default DIR: target/release of this checkout)
#
# The tarball holds one directory, flashchunk-VERSION/:
#   lib/flashchunk-cassandra.jar          the plugin: java agent, configuration loader and the cache
#   lib/flashchunk-checkpoint-tool.jar    the checkpoint inspection CLI
#   bin/install-plugin.sh, bin/lib/       the installer (its default jar: ../lib/flashchunk-cassandra.jar)
#   bin/flashchunk-checkpoint             the CLI's wrapper
#   native/                               source of libcflsh_block, our capiblock-compatible library
#   docs/ (without docs/results, the raw benchmark data), README.md, CHANGELOG.md, LICENSE,
#   NOTICE (the bundled libraries and their licenses), COMMIT (the commit it was built from)
# Every file's time is the commit's, and the jars' entries too (project.build.outputTimestamp).
# Needs git, mvn and a JDK 17, make and a C compiler (the build), python3, tar and sha256sum.
set -euo pipefail

PROG="release.sh"
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPTS_DIR/.." && pwd)"

# die, note
# shellcheck source=lib/common.sh
source "$SCRIPTS_DIR/lib/common.sh"

[ $# -ge 1 ] || die "usage: $PROG VERSION [--out DIR] [--allow-dirty]"
version=$1
shift
out="$REPO/target/release"
allow_dirty=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --allow-dirty) allow_dirty=1; shift ;;
    *) die "unknown option '$1' (usage: $PROG VERSION [--out DIR] [--allow-dirty])" ;;
  esac
done
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]] \
  || die "VERSION must look like 1.0.0 or 1.0.1-rc1, got '$version'"
for tool in git mvn make cc python3 tar gzip sha256sum; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/install-deps.sh installs what the build needs)"
done
git -C "$REPO" rev-parse --verify -q HEAD >/dev/null || die "$REPO is not a git checkout with a commit: a release is built from one"
commit="$(git -C "$REPO" rev-parse HEAD)"
commit_time="$(git -C "$REPO" log -1 --format=%ct HEAD)"
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ]; then
  [ "$allow_dirty" = 1 ] || die "the tree has uncommitted changes: commit them, or build HEAD (${commit:0:12}) without them with --allow-dirty"
  note "the tree has uncommitted changes; the release is built from commit ${commit:0:12} without them"
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(mktemp -d "${TMPDIR:-/tmp}/flashchunk-release.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
src="$stage/src"
name="flashchunk-$version"
dist="$stage/$name"
mkdir -p "$src" "$dist/lib" "$dist/bin/lib"

note "building $name from commit ${commit:0:12} in $stage"
git -C "$REPO" archive HEAD | tar -x -C "$src"
log="$stage/build.log"
# (2.23.0: the newest versions-maven-plugin that runs on Debian 12's Maven 3.8; each step must succeed:
# errexit does not reach into an if's condition)
if ! (
  cd "$src" \
    && mvn -B -q org.codehaus.mojo:versions-maven-plugin:2.23.0:set -DnewVersion="$version" -DprocessAllModules=true \
      -DgenerateBackupPoms=false \
    && mvn -B -q -pl plugin,checkpoint-tool -am package -DskipTests \
      -Dproject.build.outputTimestamp="$(date -u -d "@$commit_time" +%Y-%m-%dT%H:%M:%SZ)"
) >"$log" 2>&1; then
  cp "$log" "$out/$name-build.log"
  tail -n 40 "$log" >&2
  die "the build failed (above; the whole log: $out/$name-build.log)"
fi

cp "$src/plugin/target/flashchunk-cassandra.jar" "$dist/lib/"
cp "$src/checkpoint-tool/target/flashchunk-checkpoint-tool.jar" "$dist/lib/"
cp "$src/scripts/install-plugin.sh" "$dist/bin/install-plugin.sh"
cp "$src/scripts/lib/common.sh" "$dist/bin/lib/common.sh"
cp "$src/scripts/checkpoint-tool" "$dist/bin/flashchunk-checkpoint"
mkdir -p "$dist/native"
cp -r "$src/native/Makefile" "$src/native/README.md" "$src/native/include" "$src/native/src" "$src/native/tests" "$dist/native/"
cp -r "$src/plugin/src/main/monitoring" "$dist/monitoring"
cp -r "$src/docs" "$dist/docs"
rm -rf "$dist/docs/results"
cp "$src/README.md" "$src/CHANGELOG.md" "$src/LICENSE" "$src/NOTICE" "$dist/"
echo "$commit" >"$dist/COMMIT"
chmod 755 "$dist/bin/install-plugin.sh" "$dist/bin/flashchunk-checkpoint"
chmod 644 "$dist/lib/"*.jar

# the stamped version, read back from what is shipped
stamped="$(python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("META-INF/MANIFEST.MF").decode())' \
  "$dist/lib/flashchunk-cassandra.jar" | tr -d '\r' | sed -n 's/^Implementation-Version: *//p')"
[ "$stamped" = "$version" ] || die "the plugin jar's manifest says version '$stamped', not $version"

# names sorted, owner root, modes without group or other write, every time the commit's; both files
# are made in the staging directory and moved next to each other only when both are whole
tar --sort=name --owner=0 --group=0 --numeric-owner --mode=go-w,a+rX --mtime="@$commit_time" \
  -C "$stage" -cf - "$name" | gzip -n -9 >"$stage/$name.tar.gz"
(cd "$stage" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
mv "$stage/$name.tar.gz" "$out/$name.tar.gz"
mv "$stage/$name.tar.gz.sha256" "$out/$name.tar.gz.sha256"
rm -f "$out/$name-build.log"
note "$out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)), sha256 $(cut -d' ' -f1 "$out/$name.tar.gz.sha256"), commit ${commit:0:12}"
