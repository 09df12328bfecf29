/*
 * Asserts: every use of an llquantize aggregation has the same factor
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 6, 20);
	@a = llquantize(1, 4, 0, 6, 16);
}
