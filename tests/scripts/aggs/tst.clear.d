/* asserts: clear() zeroes values and keeps the keys */
BEGIN
{
	@a["x"] = count();
}

BEGIN
{
	clear(@a);
	exit(0);
}
