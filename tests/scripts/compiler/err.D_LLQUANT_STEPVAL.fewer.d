/*
 * Asserts: llquantize steps at least the factor
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 4, 5);
}
