/*
 * Asserts: a newline inside a character constant is refused
 */
BEGIN
{
	trace('a
');
}
