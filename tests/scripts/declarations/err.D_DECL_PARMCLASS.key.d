/*
 * Asserts: an associative array's key may not have a storage class other than register
 */
int a[static int];

BEGIN
{
	exit(0);
}
