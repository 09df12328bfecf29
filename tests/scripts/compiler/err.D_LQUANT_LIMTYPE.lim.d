/*
 * Asserts: lquantize limit must be constant
 */
BEGIN
{
	@a = lquantize(1, 0, arg0);
}
