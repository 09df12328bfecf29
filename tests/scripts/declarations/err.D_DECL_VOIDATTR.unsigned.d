/*
 * Asserts: void takes no attributes
 */
unsigned void x;

BEGIN
{
	exit(0);
}
