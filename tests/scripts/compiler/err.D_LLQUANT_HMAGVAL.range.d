/*
 * Asserts: llquantize high magnitude above low
 */
BEGIN
{
	@a = llquantize(1, 10, 4, 2, 10);
}
