/*
 * Asserts: an array may not be assigned as a whole
 */
int a[5], b[5];

BEGIN
{
	a = b;
}
