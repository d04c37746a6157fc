# Sourced by the installer's and the release's tests: a synthetic Apache Cassandra installation laid out
# as a tarball is (bin/, conf/, lib/, tools/bin/), for install-plugin.sh to work on.
#
# make_installation DIR VERSION [CLASSPATH]: lib/ holds symlinks to CLASSPATH's jars (Cassandra's own
# renamed apache-cassandra-VERSION.jar, as tarballs name it), or, without CLASSPATH, one empty
# apache-cassandra-VERSION.jar; conf/ holds jvm-server.options and jvm-clients.options (the general
# part) and the Java-specific files of the release (jvm11-* for 4.1, jvm17-* otherwise), written from
# scripts/cassandra/*.options, a cassandra.yaml from scripts/cassandra/cassandra.yaml.template, a
# cassandra-env.sh and logback-tools.xml. Needs $repo, the checkout.
make_installation() {
  local dir=$1 version=$2 classpath=${3:-} cp_jar base java=17
  [[ $version == 4.1* ]] && java=11
  mkdir -p "$dir/bin" "$dir/conf" "$dir/lib" "$dir/tools/bin"
  printf '#!/bin/sh\necho "synthetic Cassandra %s: not for running"\nexit 1\n' "$version" >"$dir/bin/cassandra"
  cp "$dir/bin/cassandra" "$dir/tools/bin/sstableverify"
  chmod +x "$dir/bin/cassandra" "$dir/tools/bin/sstableverify"
  if [ -n "$classpath" ]; then
    local IFS=':'
    for cp_jar in $classpath; do
      base="$(basename "$cp_jar")"
      [ "$base" = "cassandra-all-$version.jar" ] && base="apache-cassandra-$version.jar"
      ln -s "$cp_jar" "$dir/lib/$base"
    done
    unset IFS
    [ -L "$dir/lib/apache-cassandra-$version.jar" ] || fail "the classpath given for $version has no cassandra-all-$version.jar"
  else
    : >"$dir/lib/apache-cassandra-$version.jar"
  fi
  local src="$repo/scripts/cassandra"
  {
    echo "# Cassandra $version server JVM options, all Java versions (synthetic, from scripts/cassandra)"
    awk '/^## G1/ { exit } { print }' "$src/jvm$java-server.options"
  } >"$dir/conf/jvm-server.options"
  {
    echo "# Cassandra $version server JVM options for Java $java (synthetic)"
    awk '/^## G1/ { p = 1 } p { print }' "$src/jvm$java-server.options"
  } >"$dir/conf/jvm$java-server.options"
  {
    echo "# Cassandra $version client JVM options, all Java versions (synthetic)"
    awk '/^## JPMS/ { exit } { print }' "$src/jvm$java-clients.options"
  } >"$dir/conf/jvm-clients.options"
  {
    echo "# Cassandra $version client JVM options for Java $java (synthetic)"
    awk '/^## JPMS/ { p = 1 } p { print }' "$src/jvm$java-clients.options"
  } >"$dir/conf/jvm$java-clients.options"
  printf '# cassandra-env.sh (synthetic)\nMAX_HEAP_SIZE="1G"\n' >"$dir/conf/cassandra-env.sh"
  sed -e "s|@@DIR@@|$dir|g" -e "s|@@NATIVE_PORT@@|9042|g" -e "s|@@STORAGE_PORT@@|7000|g" \
    "$src/cassandra.yaml.template" >"$dir/conf/cassandra.yaml"
  cp "$src/logback-tools.xml" "$dir/conf/logback-tools.xml"
}

# make_package_installation ROOT VERSION deb|rpm: the same installation laid out as Apache's packages
# lay it out under ROOT (standing for /): CASSANDRA_HOME ROOT/usr/share/cassandra with Cassandra's own
# jar in it and the others in its lib/, the launcher in ROOT/usr/sbin, and the configuration in
# ROOT/etc/cassandra (deb) or, for rpm, in ROOT/etc/cassandra/default.conf reached through the
# alternatives link ROOT/etc/cassandra/conf -> ROOT/etc/alternatives/cassandra -> default.conf.
make_package_installation() {
  local root=$1 version=$2 kind=$3 staged="$1.staged" home="$1/usr/share/cassandra" conf
  make_installation "$staged" "$version"
  mkdir -p "$home" "$root/usr/sbin" "$root/etc/cassandra"
  mv "$staged/lib" "$home/lib"
  mv "$home/lib/apache-cassandra-$version.jar" "$home/"
  mv "$staged/bin/cassandra" "$root/usr/sbin/cassandra"
  case "$kind" in
    deb) conf="$root/etc/cassandra" ;;
    rpm)
      conf="$root/etc/cassandra/default.conf"
      mkdir -p "$root/etc/alternatives"
      ln -s "$conf" "$root/etc/alternatives/cassandra"
      ln -s "$root/etc/alternatives/cassandra" "$root/etc/cassandra/conf"
      ;;
    *) fail "make_package_installation: unknown kind $kind" ;;
  esac
  mkdir -p "$conf"
  mv "$staged/conf/"* "$conf/"
  rm -rf "$staged"
}
