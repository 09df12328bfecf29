/*
 * Asserts: translators defined in the script translate with xlate<>,
 * through . and ->, with the input bound to the argument.
 */
#pragma D option quiet

struct info {
	int twice;
	string size;
};

translator struct info < int64_t v > {
	twice = v * 2;
	size = v > 1 ? "big" : "small";
};

BEGIN
{
	printf("%d %s %s\n", xlate<struct info>(21).twice,
	    xlate<struct info *>(1)->size, xlate<struct info>(5).size);
	exit(0);
}
