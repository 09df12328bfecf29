/*
 * Asserts: destructive actions need -w
 */
BEGIN
{
	system("true");
}
