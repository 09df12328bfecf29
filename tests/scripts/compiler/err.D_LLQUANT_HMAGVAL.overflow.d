/*
 * Asserts: llquantize factor to the high magnitude fits 64 bits
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 100, 10);
}
