/*
 * asserts: exit(3) makes the exit status 3 and END runs
 * exit-status: 3
 */
BEGIN
{
	exit(3);
}

END
{
	printf("end\n");
}
