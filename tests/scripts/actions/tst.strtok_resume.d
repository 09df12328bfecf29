/*
 * Asserts: strtok(NULL, d) resumes at the delimiter that ended the last
 * token: it is part of the next token unless it is one of d
 */
BEGIN
{
	s = "one,two;three four";
	printf("%s\n", strtok(s, ","));
	printf("%s\n", strtok(NULL, " "));
	printf("%s\n", strtok(NULL, ";"));
	printf("%s\n", strtok(NULL, ";") == NULL ? "end" : "more");
	exit(0);
}
