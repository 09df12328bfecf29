/*
 * Asserts: llquantize's high magnitude must be an integer constant
 */
BEGIN
{
	x = 6;
	@a = llquantize(1, 10, 0, x, 20);
}
