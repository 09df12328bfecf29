/*
 * Asserts: every use of an llquantize aggregation has the same number of
 * steps per magnitude
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 6, 20);
	@a = llquantize(1, 10, 0, 6, 10);
}
