/*
 * Asserts: arithmetic on a string is refused (but for Oracle's s + n,
 * the string from character n: s - n and n + s are still refused)
 */
BEGIN
{
	trace(execname - 1);
}
