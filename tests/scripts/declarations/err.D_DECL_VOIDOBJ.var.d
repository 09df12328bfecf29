/*
 * Asserts: a variable may not be void
 */
void v;

BEGIN
{
	exit(0);
}
