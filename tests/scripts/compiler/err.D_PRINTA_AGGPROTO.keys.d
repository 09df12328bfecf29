/*
 * Asserts: aggregations printed together need the same keys
 */
BEGIN
{
	@a[1] = count();
	@b[1, 2] = count();
	printa(@a, @b);
}
