/*
 * Asserts: llquantize factor must be constant
 */
BEGIN
{
	@a = llquantize(1, arg0, 0, 4, 10);
}
