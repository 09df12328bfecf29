/*
 * Asserts: denormalize() takes only the aggregation
 */
BEGIN
{
	@n = sum(10);
	denormalize(@n, 2);
}
