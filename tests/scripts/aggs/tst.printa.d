/* asserts: printa() with a format: keys by conversion, value by %@ */
BEGIN
{
	@c["b"] = count();
	@c["a"] = count();
	@c["a"] = count();
	printa("%s=%@u\n", @c);
	printa(@c);
	exit(0);
}
