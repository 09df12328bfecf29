/*
 * Asserts: clause-local variables may not be associative arrays
 */
BEGIN
{
	this->a[1] = 2;
}
