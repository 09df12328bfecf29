/*
 * Asserts: llquantize's steps per magnitude must fit in 16 bits
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 6, 70000);
}
