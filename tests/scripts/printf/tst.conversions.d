/* asserts: printf conversions, flags, widths and precisions as dtrace */
BEGIN
{
	printf("%d|%i|%u|%o|%x|%X|%c|%s|%%\n", -1, 2, 3, 8, 255, 255, 65,
	    "str");
	printf("%5d|%-5d|%05d|%+d|% d|%#x|%#o\n", 42, 42, 42, 42, 42, 255, 8);
	printf("[%*d][%-*d][%.2s][%10s][%-10s]\n", 4, 7, 4, 7, "abcdef",
	    "right", "left");
	printf("%hd %hu %ld %lld %lu\n", (short)1, (unsigned short)2, 3L, 4LL,
	    5UL);
	exit(0);
}
