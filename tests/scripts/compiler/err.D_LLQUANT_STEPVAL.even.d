/*
 * Asserts: llquantize steps divisible by the factor
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 4, 15);
}
