/*
 * Asserts: normalize( ) of an undefined aggregation is refused
 */
BEGIN
{
	normalize(@nosuch, 10);
}
