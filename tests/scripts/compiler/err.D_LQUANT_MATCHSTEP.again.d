/*
 * Asserts: every use of an lquantize aggregation has the same step
 */
BEGIN
{
	@a = lquantize(1, 0, 12, 3);
	@a = lquantize(1, 0, 12, 2);
}
