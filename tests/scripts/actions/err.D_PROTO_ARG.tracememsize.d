/*
 * Asserts: tracemem()'s size is checked against its integer prototype
 * before its value
 */
BEGIN
{
	tracemem(0, "sixteen");
}
