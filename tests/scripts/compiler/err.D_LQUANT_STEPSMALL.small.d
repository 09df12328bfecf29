/*
 * Asserts: lquantize levels must fit 16 bits
 */
BEGIN
{
	@a = lquantize(1, 0, 100000000, 1);
}
