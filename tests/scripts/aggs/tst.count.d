/* asserts: count() and sum() print at exit, by variable, value, key */
BEGIN
{
	@a["y"] = count();
	@a["x"] = count();
	@a["y"] = count();
	@b = sum(5);
	@b = sum(7);
	exit(0);
}
