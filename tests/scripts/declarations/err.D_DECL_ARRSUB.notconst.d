/*
 * Asserts: a dimension must be constant
 */
int n;
int a[n];

BEGIN
{
	exit(0);
}
