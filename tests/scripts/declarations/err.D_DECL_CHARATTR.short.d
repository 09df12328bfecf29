/*
 * Asserts: short may not qualify char
 */
short char x;

BEGIN
{
	exit(0);
}
