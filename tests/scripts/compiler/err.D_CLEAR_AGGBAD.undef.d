/*
 * Asserts: clear() of an unknown aggregation
 */
BEGIN
{
	clear(@nosuch);
}
