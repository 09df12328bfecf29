/*
 * Asserts: an aggregation passed to printf() is checked against its
 * conversion (argument: aggregation), not refused as a scalar use
 */
BEGIN
{
	@hits = count();
	printf("%d and %d\n", 1, @hits);
}
