/*
 * Asserts: aggregations printed together need as many keys
 * ("@a and @b do not have matching key signatures")
 */
BEGIN
{
	@a[1] = count();
	@b[1, 2] = count();
	printa(@a, @b);
}
