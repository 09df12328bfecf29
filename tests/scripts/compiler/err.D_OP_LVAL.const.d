/*
 * Asserts: assigning to a constant is refused
 */
BEGIN
{
	1 = 2;
}
