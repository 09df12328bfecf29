/*
 * Asserts: stringof( ) of an action's (void) value is refused
 * ("cannot apply stringof to a value of type void")
 */
BEGIN
{
	trace(stringof(trace(1)));
}
