/*
 * Asserts: an array is not a scalar predicate
 */
int a[5];

BEGIN
/a/
{
	exit(0);
}
