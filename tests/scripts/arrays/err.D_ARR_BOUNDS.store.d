/*
 * Asserts: a store at a constant index past the end of a declared array
 * is refused
 */
int a[5];

BEGIN
{
	a[7] = 1;
	exit(0);
}
