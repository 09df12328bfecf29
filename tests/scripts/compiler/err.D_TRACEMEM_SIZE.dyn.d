/*
 * Asserts: tracemem() size must be a constant
 */
BEGIN
{
	tracemem(arg0, arg1);
}
