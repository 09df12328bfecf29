/*
 * Asserts: trunc() count must be scalar
 */
BEGIN
{
	@a = count();
	trunc(@a, "x");
}
