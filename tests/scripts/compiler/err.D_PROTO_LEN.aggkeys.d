/*
 * Asserts: an aggregation used with another number of keys is D_PROTO_LEN
 * ("@a[ ] prototype mismatch: 2 keys passed, 1 expected")
 */
BEGIN
{
	@a[1] = count();
	@a[1, 2] = count();
}
