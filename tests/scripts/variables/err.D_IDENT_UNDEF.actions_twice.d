/*
 * Asserts: when the actions name an undefined identifier, the predicate
 * is checked and the actions again; still undefined, it is refused
 */
BEGIN
/1/
{
	trace(undefined_here);
}
