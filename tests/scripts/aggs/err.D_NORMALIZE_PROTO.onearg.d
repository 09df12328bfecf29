/*
 * Asserts: normalize() needs the aggregation and a factor
 */
BEGIN
{
	@n = sum(10);
	normalize(@n);
}
