/*
 * Asserts: short and long together name no type
 */
BEGIN
{
	v = (long short)3;
}
