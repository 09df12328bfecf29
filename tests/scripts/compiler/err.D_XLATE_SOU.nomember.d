/*
 * Asserts: xlate<...>( ) must be followed by a member reference
 */
BEGIN
{
	trace(xlate<psinfo_t>(curthread));
}
