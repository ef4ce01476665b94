#!/bin/sh
# meson install's last step on a real install: creates mountwatchd's system
# user from the sysusers.d file just installed (what a package's postinst
# does). Into a staging root (DESTDIR) it does nothing: that root's own boot
# or package manager does it there.
set -eu
[ -z "${DESTDIR:-}" ] || exit 0
if command -v systemd-sysusers >/dev/null 2>&1; then
	systemd-sysusers "$1"
else
	echo "systemd-sysusers not found: create the user of $1 by hand" >&2
fi
