/*
 * Asserts: ?: needs a scalar condition ("operator ?: expression must be
 * of scalar type")
 */
BEGIN
{
	trace(*curpsinfo ? 1 : 2);
}
