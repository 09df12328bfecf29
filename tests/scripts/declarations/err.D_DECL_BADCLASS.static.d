/*
 * Asserts: a static variable is refused
 */
static int x;

BEGIN
{
	exit(0);
}
