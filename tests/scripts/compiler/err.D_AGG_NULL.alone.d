/*
 * Asserts: an aggregation alone has no effect
 */
BEGIN
{
	@a;
}
