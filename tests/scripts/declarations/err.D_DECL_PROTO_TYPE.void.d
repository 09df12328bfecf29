/*
 * Asserts: an array's key may not be void
 */
int a[void];

BEGIN
{
	exit(0);
}
