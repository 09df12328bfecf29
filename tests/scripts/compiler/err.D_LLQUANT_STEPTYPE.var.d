/*
 * Asserts: llquantize's steps per magnitude must be an integer constant
 */
BEGIN
{
	x = 20;
	@a = llquantize(1, 10, 0, 6, x);
}
