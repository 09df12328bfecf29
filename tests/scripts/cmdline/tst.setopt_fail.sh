#!/bin/sh
# Asserts: a -x option that cannot be set is reported as dtrace does,
# "failed to set -x NAME: REASON", naming the option without its value,
# and exits 1.
fail() {	# ARG WANT
	msg=$($DTRACE -x "$1" -n 'BEGIN { exit(0); }' 2>&1)
	rc=$?
	[ $rc -eq 1 ] || { echo "-x $1: exit $rc: $msg"; exit 1; }
	[ "$msg" = "$2" ] || { echo "-x $1: got <$msg>"; exit 1; }
}
fail nosuchopt=1 "dtrace: failed to set -x nosuchopt: Invalid option name"
fail bufsize=lots "dtrace: failed to set -x bufsize: Invalid value for specified option"
fail bufpolicy=sometimes "dtrace: failed to set -x bufpolicy: Invalid value for specified option"
exit 0
