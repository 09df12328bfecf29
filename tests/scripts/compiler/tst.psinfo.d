/*
 * Asserts: curpsinfo and curlwpsinfo (the library translators dtrace
 * scripts use) give the process and thread ids and names.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %s\n", curpsinfo->pr_pid == pid,
	    curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid,
	    curlwpsinfo->pr_lwpid == tid, curpsinfo->pr_fname);
	exit(0);
}
