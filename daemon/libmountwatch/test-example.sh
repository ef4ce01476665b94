#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs example-wait-for-mount with each backend this kernel has, in a
# private mount namespace (the host's is never touched): it must say
# "mounted" once a tmpfs is mounted at its path and "gone" once that is
# unmounted, and exit. TAP. Also a guest test (installed as
# library-example.test beside the example): there watch_queue must work too.
example=${1:-$(dirname "$0")/example-wait-for-mount}
if ! unshare --mount --propagation private true 2>/dev/null; then
	echo "1..0 # SKIP no private mount namespace here (needs root): unshare --mount failed"
	exit 0
fi
n=0 fail=0
for backend in auto watch_queue fanotify mountinfo; do
	n=$((n + 1))
	out=$(unshare --mount --propagation private bash -s "$example" "$backend" <<'INNER' 2>&1
example=$1 backend=$2
dir=$(mktemp -d) log=$(mktemp)
"$example" "$dir" "$backend" >"$log" 2>&1 &
pid=$!
wait_for() { for _ in $(seq 100); do grep -q "$1" "$log" && return 0; kill -0 $pid 2>/dev/null || break; sleep 0.05; done; grep -q "$1" "$log"; }
if wait_for "^waiting for"; then
	mount -t tmpfs example "$dir" && wait_for "^mounted: $dir (tmpfs from example)" &&
		umount "$dir" && wait_for "^gone: $dir" && wait $pid
	rc=$?
else
	wait $pid; rc=$?
	# EOPNOTSUPP: the kernel lacks it (anything else is a failure).
	grep -q "Operation not supported" "$log" && rc=77
fi
kill $pid 2>/dev/null
cat "$log"
exit $rc
INNER
	)
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok $n - $backend: mounted, then gone"
	elif [ $rc = 77 ]; then
		echo "ok $n - $backend # SKIP this kernel (or build) lacks it"
	else
		echo "not ok $n - $backend"
		fail=1
	fi
	printf '%s\n' "$out" | sed 's/^/# /'
done
echo "1..$n"
exit $fail
