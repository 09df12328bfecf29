/* dtrace-flags: -q -L lib1 -L lib2
 * Asserts: every *.d of the -L directories is compiled before the
 * program, libraries after those they depend on (across directories);
 * the first directory's file of a name wins; a library whose provider is
 * missing, or whose library failed, is dropped without an error. */
pair_t p;

BEGIN
{
	p.first = A;
	p.second = E;
	printf("%d %d %d\n", p.first, p.second, sizeof(pair_t));
	exit(0);
}
