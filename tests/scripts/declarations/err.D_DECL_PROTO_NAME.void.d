/*
 * Asserts: a void parameter may not be named
 */
int f(void x);

BEGIN
{
	exit(0);
}
