/*
 * Asserts: register is not a storage class D has
 */
register int x;

BEGIN
{
	exit(0);
}
