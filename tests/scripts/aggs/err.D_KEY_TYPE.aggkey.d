/*
 * Asserts: an aggregation cannot key another aggregation
 */
BEGIN
{
	@inner = count();
	@outer[@inner] = count();
}
