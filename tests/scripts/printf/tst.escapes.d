/* asserts: %S prints a string with C escapes; %s prints it raw */
BEGIN
{
	printf("%S|%s\n", "a\tb", "c\td");
	exit(0);
}
