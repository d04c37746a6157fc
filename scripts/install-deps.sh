#!/usr/bin/env bash
# Installs the system packages the project needs on Debian/Ubuntu, when something is missing:
# libaio (the default I/O engine), fio (the device benchmark's yardstick), a C toolchain for native/,
# Maven and a JDK 17, losetup, mount, mkfs.ext4, blkid and chattr (tests and the capped-storage benchmark use
# real loop devices with ext4 on them, and immutable files), libblkid (the cache probes a device
# for signatures before it takes it for blank), mdadm, btrfs-progs, bcache-tools and sfdisk (tests
# make the signatures that probe must find), prometheus (the monitoring files' test), and python3 with venv
# (benchmark reports; cqlsh from PyPI).
set -euo pipefail
need=()
[ -e /lib/x86_64-linux-gnu/libaio.so.1 ] || [ -e /usr/lib/x86_64-linux-gnu/libaio.so.1 ] || need+=(libaio1)
command -v fio >/dev/null || need+=(fio)
# liburing (linked into native/'s libflashchunk_uring.so, which the plugin jar carries: builds only)
[ -e /usr/include/liburing.h ] && [ -e /usr/lib/x86_64-linux-gnu/liburing.a ] || need+=(liburing-dev)
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v mvn >/dev/null || need+=(maven)
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
command -v losetup >/dev/null || need+=(mount)
command -v chattr >/dev/null || need+=(e2fsprogs)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
command -v blkid >/dev/null || need+=(util-linux)
command -v mount >/dev/null || need+=(mount)
[ -e /lib/x86_64-linux-gnu/libblkid.so.1 ] || [ -e /usr/lib/x86_64-linux-gnu/libblkid.so.1 ] || need+=(libblkid1)
# Test tools, installed without what they recommend (mdadm would bring a mail server).
tools=()
command -v mdadm >/dev/null || tools+=(mdadm)
command -v mkfs.btrfs >/dev/null || tools+=(btrfs-progs)
command -v make-bcache >/dev/null || tools+=(bcache-tools)
command -v sfdisk >/dev/null || tools+=(fdisk)
# a real Prometheus server (and promtool) for the monitoring files' test
{ command -v prometheus && command -v promtool; } >/dev/null || tools+=(prometheus)
command -v python3 >/dev/null || need+=(python3)
# cqlsh (scripts/cassandra-node.sh cqlsh) is installed from PyPI into a venv
python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -eq 0 ] && [ ${#tools[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${need[*]} ${tools[*]}; run as root or install them: apt-get install -y ${need[*]} ${tools[*]}" >&2
  exit 1
fi
echo "== installing ${need[*]} ${tools[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ ${#need[@]} -gt 0 ]; then
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ${#tools[@]} -gt 0 ]; then
  apt-get install -y -qq --no-install-recommends "${tools[@]}" >/dev/null
fi
