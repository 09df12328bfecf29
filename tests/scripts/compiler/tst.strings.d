/*
 * Asserts: string comparisons (SCMP), string variables, subroutines on
 * strings with nested calls, and escapes in literals.
 */
#pragma D option quiet

BEGIN
{
	s = strjoin("foo", "bar");
	printf("%s %d %d %d\n", s, s == "foobar", s < "goo", s != "foobar");
	printf("%s|%s|%d\n", substr(s, 3), toupper(substr(s, 0, 3)),
	    strlen(strjoin(s, s)));
	printf("tab\there \"quoted\" \\\n");
	exit(0);
}
