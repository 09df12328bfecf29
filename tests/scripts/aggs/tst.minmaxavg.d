/* asserts: min(), max(), avg() (integer, truncated) and stddev() */
BEGIN
{
	@mn = min(5); @mn = min(-3); @mn = min(9);
	@mx = max(5); @mx = max(-3); @mx = max(9);
	@av = avg(1); @av = avg(2); @av = avg(4);
	@sd = stddev(2); @sd = stddev(4); @sd = stddev(4); @sd = stddev(4);
	@sd = stddev(5); @sd = stddev(5); @sd = stddev(7); @sd = stddev(9);
	exit(0);
}
