/*
 * Asserts: a built-in variable may not be redeclared
 */
int pid;

BEGIN
{
	exit(0);
}
