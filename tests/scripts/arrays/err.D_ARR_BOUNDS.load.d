/*
 * Asserts: a constant index past the end of a declared array is refused
 */
int a[5];

BEGIN
{
	trace(a[5]);
	exit(0);
}
