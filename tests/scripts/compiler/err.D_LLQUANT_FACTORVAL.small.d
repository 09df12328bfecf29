/*
 * Asserts: llquantize factor must be two or more
 */
BEGIN
{
	@a = llquantize(1, 1, 0, 4, 10);
}
