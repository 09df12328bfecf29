/*
 * Asserts: an array needs a dimension or a tuple signature
 */
int a[];

BEGIN
{
	exit(0);
}
