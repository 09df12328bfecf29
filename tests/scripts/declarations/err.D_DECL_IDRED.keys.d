/*
 * Asserts: an associative array redeclared with other key types
 */
int a[int];
int a[string];

BEGIN
{
	exit(0);
}
