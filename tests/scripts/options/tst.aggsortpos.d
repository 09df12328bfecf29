/* asserts: aggsortpos=1 orders a joined printa by the second value */
#pragma D option aggsortpos=1
BEGIN
{
	@a["x"] = sum(1);
	@a["y"] = sum(2);
	@b["x"] = sum(20);
	@b["y"] = sum(10);
	printa("%s %@d %@d\n", @a, @b);
	exit(0);
}
