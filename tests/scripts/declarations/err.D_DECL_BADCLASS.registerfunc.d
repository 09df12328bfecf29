/*
 * Asserts: register on a function declaration is refused.
 */
register int g(void);

BEGIN
{
	exit(0);
}
