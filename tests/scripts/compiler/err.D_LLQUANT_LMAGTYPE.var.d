/*
 * Asserts: llquantize's low magnitude must be an integer constant
 */
BEGIN
{
	x = 0;
	@a = llquantize(1, 10, x, 6, 20);
}
