/*
 * Asserts: lquantize's upper bound must fit in 32 bits
 */
BEGIN
{
	@a = lquantize(1, 0, 0x100000000, 1);
}
