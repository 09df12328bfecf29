/*
 * Asserts: a newline inside a string literal is refused
 */
BEGIN
{
	trace("abc
");
}
