/*
 * Asserts: an identifier in the predicate that nothing defines is still
 * refused after the actions are checked
 */
BEGIN
/nosuchvar == 1/
{
	exit(0);
}
