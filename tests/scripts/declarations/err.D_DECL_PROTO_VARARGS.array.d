/*
 * Asserts: an array's tuple signature may not be variable-length
 */
int a[...];

BEGIN
{
	exit(0);
}
