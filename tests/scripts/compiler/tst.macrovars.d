/*
 * Asserts: the macro variables dtrace has, $pgid and $sid among them,
 * are dtrace's own process group and session
 */
BEGIN
/$pid > 0 && $pgid > 0 && $sid > 0 && $ppid > 0 && $uid >= 0 && $gid >= 0/
{
	printf("ok\n");
	exit(0);
}
