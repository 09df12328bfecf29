/*
 * Asserts: aggregating actions may not follow speculate()
 */
BEGIN
{
	speculate(1);
	@a = count();
}
