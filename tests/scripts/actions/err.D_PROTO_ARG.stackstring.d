/*
 * Asserts: stack()'s frame count is checked against its integer
 * prototype before its value
 */
BEGIN
{
	stack("deep");
}
