/*
 * Asserts: a declaration has at most one storage class
 */
extern static int x;

BEGIN
{
	exit(0);
}
