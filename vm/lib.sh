# Shared helpers for the vm/ scripts: the cache location, stage lines with
# elapsed time, quiet long-running steps with their full log kept in a file.
# shellcheck shell=bash

CACHE=${MOUNTWATCH_CACHE:-/var/cache/mountwatch}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGDIR=$CACHE/logs
mkdir -p "$LOGDIR"
_t0=$(date +%s)

elapsed() { local s=$(( $(date +%s) - _t0 )); printf '%d:%02d' $((s / 60)) $((s % 60)); }
stage() { printf '==> [%s] %s\n' "$(elapsed)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# The host's load, for benchmark logs: their numbers depend on it.
host_load() { printf 'host: %s CPUs, load average %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"; }
# The kselftest targets in vm/kselftests, on one line.
kselftest_list() { sed "s/#.*//" "$TOP/vm/kselftests" | xargs; }

# vm_option ARGS...: when $1 is one of the vm/run options that vm/bench and
# vm/profile pass on (--kernel DIR, --image FILE, --build DIR, --memory MB,
# --pid1 stock|patched, --systemd DIR, --kvm) it is added to the caller's array vm_args; --timeout S sets its
# timeout. Returns how many words it took: 0 when $1 is none of them, so
#	vm_option "$@" || { shift $?; continue; }
# in the caller's option loop.
# shellcheck disable=SC2034 # vm_args and timeout are the caller's
vm_option() {
	case $1 in
	--kernel | --image | --build | --memory | --pid1 | --systemd | --timeout)
		[ $# -ge 2 ] || die "$1 needs a value"
		if [ "$1" = --timeout ]; then timeout=$2; else vm_args+=("$1" "$2"); fi
		return 2 ;;
	--kvm) vm_args+=("$1"); return 1 ;;
	esac
	return 0
}

# logged NAME HEADER CMD...: runs CMD, its output shown and kept in
# $LOGDIR/NAME-<date>.log after HEADER, the date and the host's load before
# and after (the numbers depend on it); exits with CMD's status.
logged() {
	local log rc
	log=$LOGDIR/$1-$(date +%Y%m%d-%H%M%S).log
	{
		echo "$2"
		echo "$(date -u '+%Y-%m-%d %H:%M UTC'), before: $(host_load)"
	} | tee "$log"
	shift 2
	set +e
	"$@" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	set -e
	echo "after: $(host_load)" | tee -a "$log"
	stage "output kept in $log"
	exit "$rc"
}

# guest_logged NAME HEADER VM/RUN-ARGS...: logged, for vm/run with the arguments.
guest_logged() {
	local name=$1 header=$2
	shift 2
	logged "$name" "$header" "$TOP"/vm/run "$@"
}

# progress LOG: how far a step is, from what its log says so far. For a
# kbuild log, the objects compiled and the step it is at now ("2731 objects
# compiled, at LD vmlinux.o"): a build's total is not known before it ends
# (ccache, the config, what is already built), so none is guessed. For any
# other log, its lines.
progress() {
	local objects
	objects=$(grep -cE '^  (CC|AS)( \[M\])? +[^ ]+\.o$' "$1")
	if [ "$objects" -gt 0 ]; then
		echo "$objects objects compiled, at $(grep -E '^  [A-Z]+' "$1" | tail -n 1 | xargs)"
	else
		echo "$(wc -l <"$1") log lines"
	fi
}

# run_logged LOG DESCRIPTION CMD...: run CMD with all output to LOG, print a
# one-line progress indicator (lines of log, elapsed time) while it runs, and
# on failure the last lines of the log and its path.
run_logged() {
	local log=$1 what=$2 pid rc spin=0
	shift 2
	: >"$log"
	"$@" >>"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ -t 2 ]; then
			printf '\r    %s: %s, %s ' "$what" "$(elapsed)" "$(progress "$log")" >&2
		elif [ $((spin % 30)) -eq 29 ]; then
			printf '    %s: %s, %s\n' "$what" "$(elapsed)" "$(progress "$log")" >&2
		fi
		spin=$((spin + 1))
		sleep 2
	done
	wait "$pid" && rc=0 || rc=$?
	[ -t 2 ] && printf '\r\033[K' >&2
	if [ "$rc" -ne 0 ]; then
		tail -n 25 "$log" >&2
		die "$what failed (exit $rc); full log: $log"
	fi
}

# need_disk DIR GIB: fail early with a clear reason when DIR's filesystem is short.
need_disk() {
	local avail
	avail=$(df -Pk "$1" | awk 'NR == 2 { print int($4 / 1048576) }')
	[ "$avail" -ge "$2" ] || die "only ${avail} GiB free under $1, need $2 GiB"
}

# need_pkgs PKG...: apt-get install whatever of PKG is missing.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	stage "installing ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || die "packages missing (${missing[*]}) and not root to install them"
	run_logged "$LOGDIR/apt.log" "apt-get update" apt-get -o DPkg::Lock::Timeout=900 update -q
	run_logged "$LOGDIR/apt.log" "apt-get install" env DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${missing[@]}"
}
