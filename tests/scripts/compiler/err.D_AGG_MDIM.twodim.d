/*
 * Asserts: an aggregation is not a multi-dimensional array
 */
BEGIN
{
	@a[0][1] = count();
}
