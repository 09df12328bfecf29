/*
 * Asserts: an aggregation must be given an aggregating function
 */
BEGIN
{
	@a = 1;
}
