/*
 * Asserts: an action's (void) value as a key is refused by the key's own
 * check ("void expression may not be used as aggregation index: key #1")
 */
BEGIN
{
	@a[trace(1)] = count();
}
