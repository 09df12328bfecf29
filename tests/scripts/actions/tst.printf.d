/* asserts: printf() output appears in order, one clause after another */
BEGIN
{
	printf("first\n");
}

BEGIN
{
	printf("second %d\n", 2);
	exit(0);
}
