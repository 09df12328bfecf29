/*
 * Asserts: llquantize's low magnitude must fit in 16 bits
 */
BEGIN
{
	@a = llquantize(1, 10, 70000, 70001, 20);
}
