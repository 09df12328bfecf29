/*
 * asserts: exit() with an expression sets the exit status; later records
 * of the same clause still print
 * exit-status: 7
 */
BEGIN
{
	exit(3 + 4);
	printf("same clause\n");
}
