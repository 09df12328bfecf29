/*
 * Asserts: aggregations printed together need keys of compatible types
 * ("@b[ ] key #2 is incompatible with @a")
 */
BEGIN
{
	@a[1, 2] = count();
	@b[1, "two"] = count();
	printa(@a, @b);
}
