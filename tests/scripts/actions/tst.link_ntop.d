/*
 * Asserts: link_ntop() (Oracle's) prints an Ethernet address as six
 * colon-separated hex bytes and an InfiniBand one as twenty; another
 * link type is an illegal operation.
 */
BEGIN
{
	p = (uint8_t *)alloca(20);
	p[0] = 0x00; p[1] = 0x1b; p[2] = 0x21; p[3] = 0xab; p[4] = 0xcd;
	p[5] = 0xef; p[19] = 0x7f;
	printf("%s\n", link_ntop(ARPHRD_ETHER, p));
	printf("%s\n", link_ntop(ARPHRD_INFINIBAND, p));
}

BEGIN
{
	trace(link_ntop(7, p));	/* a fault drops this clause's records */
}

ERROR
{
	printf("fault %d\n", arg4 == DTRACEFLT_ILLOP);
	exit(0);
}
