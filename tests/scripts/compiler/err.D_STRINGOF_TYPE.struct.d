/*
 * Asserts: stringof( ) of a value that is not scalar is refused
 */
BEGIN
{
	trace(stringof(*curpsinfo));
}
