/*
 * Asserts: every use of an lquantize aggregation has the same limit
 */
BEGIN
{
	@a = lquantize(1, 0, 10);
	@a = lquantize(1, 0, 20);
}
