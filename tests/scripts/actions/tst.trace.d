/* asserts: trace() of int, negative int, long long and string under -q */
BEGIN
{
	trace(1);
	trace(-2);
	trace(0x7fffffffffffffffLL);
	trace("s");
	exit(0);
}
