/*
 * Asserts: x++, ++x, x-- and --x on an identifier never seen before create
 * an int64_t global (as assignment does), starting from zero
 */
BEGIN
{
	a++;
	++b;
	c--;
	--d;
	a++;
	printf("%d %d %d %d %d\n", a, b, c, d, sizeof (a));
	exit(0);
}
