#!/bin/sh
# Asserts: proc:::create's psinfo_t * holds the process's real group,
# session, terminal and initial argument and environment vectors (not the
# pid for pr_pgid and pr_sid): the target is a shell script that setsid(1)
# made the leader of its own session and group, with no controlling
# terminal; its child's pr_pgid and pr_sid are the target, pr_ttydev is
# PRNODEV ((dev_t)-1), pr_argv[] is the interpreter's (/bin/sh, then the
# script) and pr_envp[] holds NAME=value strings.  The script stays alive
# until the clause has fired (its system() makes the file it waits for):
# /proc is read for the process after the event.
. ./lib.sh
need_root
command -v setsid >/dev/null || { echo "no setsid(1)"; exit 77; }
printf '#!/bin/sh\n/bin/true\nn=0\nwhile [ ! -e %s ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done\n' \
    "$W/done" > "$W/grp.sh"
chmod 755 "$W/grp.sh"
out=$($DTRACE -w -q -n '
proc:::create /pid == $target/ {
	this->argv = (uint64_t *)copyin(args[0]->pr_argv, 16);
	this->envp = (uint64_t *)copyin(args[0]->pr_envp, 8);
	printf("%d %d %d %d %s %s %d\n", args[0]->pr_pgid == $target,
	    args[0]->pr_sid == $target, args[0]->pr_ppid == $target,
	    args[0]->pr_ttydev == (dev_t)-1, copyinstr(this->argv[0]),
	    copyinstr(this->argv[1]),
	    strstr(copyinstr(this->envp[0]), "=") != NULL);
	system("touch %s", $$1);
	exit(0);
}' -c "setsid $W/grp.sh" "$W/done" 2>&1 | sed '/^$/d')
[ "$out" = "1 1 1 1 /bin/sh $W/grp.sh 1" ] || fail "got: <$out>"
exit 0
