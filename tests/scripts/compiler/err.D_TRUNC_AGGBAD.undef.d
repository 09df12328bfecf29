/*
 * Asserts: trunc( ) of an undefined aggregation is refused
 */
BEGIN
{
	trunc(@nosuch);
}
