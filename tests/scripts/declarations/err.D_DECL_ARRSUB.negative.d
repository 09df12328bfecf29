/*
 * Asserts: a negative dimension is refused
 */
int a[-1];

BEGIN
{
	exit(0);
}
