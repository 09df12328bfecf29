/*
 * Asserts: commit() and discard() of an ID above nspec are an illegal
 * operation at run time (DTRACEFLT_ILLOP, no DIF offset); of ID 0 they
 * do nothing.
 */
BEGIN
{
	commit(0);
}

BEGIN
{
	discard(0);
}

BEGIN
{
	commit(1000);
}

BEGIN
{
	discard(1000);
}

ERROR
{
	n++;
	printf("%d %d %d\n", arg4 == DTRACEFLT_ILLOP, arg3 == -1, n);
}

BEGIN
/n == 2/
{
	exit(0);
}
