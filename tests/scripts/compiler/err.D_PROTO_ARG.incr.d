/*
 * Asserts: the quantize increment must be scalar
 */
BEGIN
{
	@a = quantize(1, "x");
}
