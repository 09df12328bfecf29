/*
 * Asserts: an action's (void) value as a subroutine argument is refused
 * by the subroutine's prototype ("argument: void")
 */
BEGIN
{
	x = strlen(trace(1));
}
