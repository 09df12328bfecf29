/* asserts: aggsortrev alone orders by value, largest first */
#pragma D option aggsortrev
BEGIN
{
	@a["a"] = sum(3);
	@a["b"] = sum(1);
	@a["c"] = sum(2);
	exit(0);
}
