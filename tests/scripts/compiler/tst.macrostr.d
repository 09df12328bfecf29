/*
 * Asserts: a macro argument that is neither an integer nor an identifier
 * becomes a string (enclosing quotes dropped, escapes converted), an
 * integer one an integer; $$N is always a string
 * dtrace-flags: -q hello\040world "\"quoted\"" 42
 */
BEGIN
{
	printf("[%s] [%s] [%d] [%s]\n", $1, $2, $3 + 1, $$3);
	exit(0);
}
