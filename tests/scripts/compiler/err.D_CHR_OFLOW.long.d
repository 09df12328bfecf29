/*
 * Asserts: a character constant longer than 8 characters is refused
 */
BEGIN
{
	trace('abcdefghi');
}
