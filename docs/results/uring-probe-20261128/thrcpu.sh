#!/bin/bash
# thrcpu.sh PID SECONDS: CPU ticks per thread-name group over SECONDS
pid=$1; secs=$2
snap(){ for t in /proc/$pid/task/*; do n=$(tr ' ' _ < $t/comm 2>/dev/null); s=$(awk '{print $14+$15}' $t/stat 2>/dev/null); [ -n "$s" ] && echo "$(echo $n | sed 's/[-#_]*[0-9]*$//') $s"; done | awk '{a[$1]+=$2} END{for(k in a) print k, a[k]}' | sort; }
snap > /tmp/thr1.$$; sleep $secs; snap > /tmp/thr2.$$
join /tmp/thr1.$$ /tmp/thr2.$$ | awk '{d=$3-$2; if (d>0) print $1, d}' | sort -k2 -rn | head -15
