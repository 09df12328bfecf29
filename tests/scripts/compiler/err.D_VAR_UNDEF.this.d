/*
 * Asserts: reading a clause-local that nothing has assigned is refused
 */
BEGIN
{
	trace(this->x + 1);
}
