/*
 * Asserts: an array keeps its key types
 */
BEGIN
{
	a["x"] = 1;
	a[1] = 2;
}
