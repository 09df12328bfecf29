/*
 * Asserts: a clause-local may not be an associative array
 */
this int a[int];

BEGIN
{
	exit(0);
}
