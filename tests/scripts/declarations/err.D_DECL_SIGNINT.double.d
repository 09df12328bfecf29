/*
 * Asserts: signed may only qualify an integer type
 */
signed double x;

BEGIN
{
	exit(0);
}
