/*
 * Asserts: void must be a function's sole parameter
 */
int f(void, int);

BEGIN
{
	exit(0);
}
