/*
 * Asserts: normalize() takes an aggregation
 */
BEGIN
{
	normalize(1, 2);
}
