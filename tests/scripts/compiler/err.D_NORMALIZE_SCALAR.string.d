/*
 * Asserts: normalize( )'s factor must be scalar
 */
BEGIN
{
	@a = count();
	normalize(@a, "ten");
}
