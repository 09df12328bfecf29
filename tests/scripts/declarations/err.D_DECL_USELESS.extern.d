/*
 * Asserts: a declaration that declares nothing
 */
extern int;

BEGIN
{
	exit(0);
}
