/* asserts: printa(@a, @b) joins the aggregations by key */
BEGIN
{
	@a["x"] = count();
	@a["y"] = count();
	@a["y"] = count();
	@b["x"] = sum(40);
	printa("%s %@d %@d\n", @a, @b);
	exit(0);
}
