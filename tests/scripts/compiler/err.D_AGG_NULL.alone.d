/*
 * Asserts: an indexed aggregation alone has no effect (D_AGG_NULL)
 */
BEGIN
{
	@a[1];
}
