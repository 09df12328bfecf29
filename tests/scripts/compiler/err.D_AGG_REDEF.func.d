/*
 * Asserts: an aggregation keeps its aggregating function
 */
BEGIN
{
	@a = count();
}

END
{
	@a = sum(1);
}
