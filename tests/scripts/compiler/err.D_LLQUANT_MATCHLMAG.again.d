/*
 * Asserts: every use of an llquantize aggregation has the same low magnitude
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 6, 20);
	@a = llquantize(1, 10, 1, 6, 20);
}
