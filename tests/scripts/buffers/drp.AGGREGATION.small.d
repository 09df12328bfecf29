/* asserts: keys that do not fit in aggsize are aggregation drops */
#pragma D option aggsize=64
BEGIN
{
	@a["one"] = count();
	@a["two"] = count();
	@a["three"] = count();
	@a["four"] = count();
	exit(0);
}
