/*
 * Asserts: a translated pointer used as a value (x = curpsinfo) is, as in
 * dtrace, the translation's input typed as the translated pointer (here
 * curthread); (*curpsinfo).m is curpsinfo->m.
 */
#pragma D option quiet

BEGIN
{
	x = curpsinfo;
	self->l = curlwpsinfo;
	printf("%d %d %d\n", x == (psinfo_t *)curthread,
	    self->l == (lwpsinfo_t *)curthread, (*curpsinfo).pr_pid == pid);
	exit(0);
}
