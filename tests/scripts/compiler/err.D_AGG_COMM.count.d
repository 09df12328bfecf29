/*
 * Asserts: an aggregation may not follow commit( )
 */
BEGIN
{
	commit(1);
	@a = count();
}
