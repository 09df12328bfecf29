/*
 * Asserts: a dimension above UINT_MAX is refused
 */
int a[4294967296];

BEGIN
{
	exit(0);
}
