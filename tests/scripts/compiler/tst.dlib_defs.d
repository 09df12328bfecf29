/*
 * Asserts: the D library definitions dtrace scripts use are there: the
 * Solaris type names uint and u_longlong_t, the fault codes DTRACEFLT_*,
 * NULL as an inline, the SIGCHLD codes CLD_*, and the R_* indexes of
 * uregs[] (x86_64 pt_regs order).
 */
BEGIN
{
	x = (uint)0x100000001;
	y = (u_longlong_t)-1;
	printf("%d %d %d\n", sizeof (uint), sizeof (u_longlong_t), x);
	printf("%u\n", y);
	printf("%d %d %d %d %d %d\n", DTRACEFLT_UNKNOWN, DTRACEFLT_BADADDR,
	    DTRACEFLT_BADALIGN, DTRACEFLT_ILLOP, DTRACEFLT_DIVZERO,
	    DTRACEFLT_NOSCRATCH);
	printf("%d %d %d %d %d\n", DTRACEFLT_KPRIV, DTRACEFLT_UPRIV,
	    DTRACEFLT_TUPOFLOW, DTRACEFLT_BADSTACK, DTRACEFLT_LIBRARY);
	p = (char *)NULL;
	printf("%d %d %d\n", NULL, p == NULL, sizeof (NULL));
	printf("%d %d %d %d %d %d\n", CLD_EXITED, CLD_KILLED, CLD_DUMPED,
	    CLD_TRAPPED, CLD_STOPPED, CLD_CONTINUED);
	printf("%d %d %d %d %d\n", R_PC, R_SP, R_FP, R_RAX, R_RDI);
	exit(0);
}
