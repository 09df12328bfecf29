/*
 * Asserts: aggregating functions take scalars
 */
BEGIN
{
	@a = sum("x");
}
