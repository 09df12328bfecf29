/*
 * Asserts: llquantize factor must fit 16 bits
 */
BEGIN
{
	@a = llquantize(1, 100000, 0, 4, 10);
}
