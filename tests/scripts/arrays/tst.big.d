/*
 * Asserts: a D array may be as large as dtrace allows a variable (16 KB),
 * global or thread-local
 */
int big[4000];
self int sbig[4000];

BEGIN
{
	big[3999] = 5;
	self->sbig[3998] = 6;
	printf("%d %d %d\n", big[3999], self->sbig[3998], sizeof (big));
	exit(0);
}
