/*
 * Asserts: lquantize base must be a constant
 */
BEGIN
{
	@a = lquantize(1, arg0, 10);
}
