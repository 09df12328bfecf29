/*
 * Asserts: an expression needing more than seven registers is refused
 */
BEGIN
{
	trace(arg0 + (arg1 + (arg2 + (arg3 + (arg4 + (arg5 + (arg6 + arg7)))))));
}
