/*
 * Asserts: a statement that is not finished is a syntax error
 */
BEGIN
{
	x = 1 +;
}
