/*
 * Asserts: an aggregation is not a value
 */
BEGIN
{
	@a = count();
	x = @a;
}
