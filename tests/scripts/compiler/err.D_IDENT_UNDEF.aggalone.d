/*
 * Asserts: a bare @name that nothing defines is an unresolved identifier
 * (dtrace cooks it as one before it sees the statement has no effect)
 */
BEGIN
{
	@a;
}
