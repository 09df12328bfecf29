/*
 * Asserts: a value of type void may not be assigned
 */
BEGIN
{
	x = bcopy(0, 0, 0);
}
