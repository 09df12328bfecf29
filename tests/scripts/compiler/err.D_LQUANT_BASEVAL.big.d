/*
 * Asserts: lquantize base must fit 32 bits
 */
BEGIN
{
	@a = lquantize(1, 0x100000000, 0x100000010);
}
