/*
 * Asserts: lquantize needs at least one level
 */
BEGIN
{
	@a = lquantize(1, 0, 10, 20);
}
