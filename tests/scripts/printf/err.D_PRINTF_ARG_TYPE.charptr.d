/*
 * Asserts: %s wants a string or a char array, as dtrace's pfcheck_str:
 * a char * is refused ("prototype: char [] or string (or use stringof)",
 * "argument: char *"); stringof(p) is the way to print what it points to.
 */
BEGIN
{
	p = (char *)alloca(1);
	printf("%s", p);
}
