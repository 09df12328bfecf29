/* asserts: aggsortkey orders by key, aggsortrev reverses */
#pragma D option aggsortkey
#pragma D option aggsortrev
BEGIN
{
	@a["a"] = sum(3);
	@a["b"] = sum(1);
	@a["c"] = sum(2);
	exit(0);
}
