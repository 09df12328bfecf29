/*
 * Asserts: long may not qualify char
 */
long char x;

BEGIN
{
	exit(0);
}
