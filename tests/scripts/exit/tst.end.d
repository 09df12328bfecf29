/* asserts: END output follows BEGIN output, aggregations after both */
BEGIN
{
	printf("begin\n");
	@n = count();
	exit(0);
}

END
{
	printf("end\n");
}
