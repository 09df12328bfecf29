/*
 * Asserts: lquantize base must be below the limit
 */
BEGIN
{
	@a = lquantize(1, 10, 0);
}
