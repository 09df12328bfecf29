/* asserts: aggsortkeypos=1 sorts by the second key first */
#pragma D option aggsortkey
#pragma D option aggsortkeypos=1
BEGIN
{
	@a["x", 2] = sum(1);
	@a["y", 1] = sum(1);
	exit(0);
}
