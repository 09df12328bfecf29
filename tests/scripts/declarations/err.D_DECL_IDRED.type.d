/*
 * Asserts: a redeclaration must have the identical type
 */
int x;
long x;

BEGIN
{
	exit(0);
}
