/*
 * Asserts: an associative array key of another type than its first use
 * is D_PROTO_ARG ("a[ ] key #1 is incompatible with prototype")
 */
BEGIN
{
	a["x"] = 1;
	a[1] = 2;
}
