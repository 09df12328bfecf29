/*
 * Asserts: long ?: chains compile (issue #11): dtrace frees the
 * condition's register before the branches and keeps one result register
 * per chain, so 14 nested ?: (in the false branch, in the true branch,
 * with string results) and long && / || chains need no more registers
 * than one level.  Each value checks that the right branch was taken.
 */
#pragma D option quiet

BEGIN
{
	x = 13;
	printf("%d\n", x == 1 ? 1 : x == 2 ? 2 : x == 3 ? 3 : x == 4 ? 4 :
	    x == 5 ? 5 : x == 6 ? 6 : x == 7 ? 7 : x == 8 ? 8 : x == 9 ? 9 :
	    x == 10 ? 10 : x == 11 ? 11 : x == 12 ? 12 : x == 13 ? 13 :
	    x == 14 ? 14 : 15);
	printf("%d\n", x == 1 ? 1 : x == 2 ? 2 : x == 3 ? 3 : x == 4 ? 4 :
	    x == 5 ? 5 : x == 6 ? 6 : x == 7 ? 7 : x == 8 ? 8 : x == 9 ? 9 :
	    x == 10 ? 10 : x == 11 ? 11 : x == 12 ? 12 : x == 20 ? 13 :
	    x == 14 ? 14 : 15);
	printf("%d\n", x > 1 ? x > 2 ? x > 3 ? x > 4 ? x > 5 ? x > 6 ?
	    x > 7 ? x > 8 ? x > 9 ? x > 10 ? x > 11 ? x > 12 ? x > 13 ?
	    14 : 13 : 12 : 11 : 10 : 9 : 8 : 7 : 6 : 5 : 4 : 3 : 2 : 1);
	printf("%s\n", x == 1 ? "one" : x == 2 ? "two" : x == 3 ? "three" :
	    x == 4 ? "four" : x == 5 ? "five" : x == 6 ? "six" :
	    x == 7 ? "seven" : x == 8 ? "eight" : x == 9 ? "nine" :
	    x == 10 ? "ten" : x == 11 ? "eleven" : x == 12 ? "twelve" :
	    x == 13 ? "thirteen" : "many");
	printf("%d\n", 1 + (x == 1 ? 10 : x == 2 ? 20 : x == 3 ? 30 :
	    x == 4 ? 40 : x == 5 ? 50 : x == 6 ? 60 : x == 7 ? 70 :
	    x == 8 ? 80 : x == 9 ? 90 : x == 10 ? 100 : x == 11 ? 110 :
	    x == 12 ? 120 : x == 13 ? 130 : 140) * 2);
	printf("%d %d\n", x == 1 || x == 2 || x == 3 || x == 4 || x == 5 ||
	    x == 6 || x == 7 || x == 8 || x == 9 || x == 10 || x == 11 ||
	    x == 12 || x == 13, x == 1 || (x == 2 || (x == 3 || (x == 4 ||
	    (x == 5 || (x == 6 || (x == 7 || (x == 8 || (x == 9 ||
	    (x == 10 || (x == 11 || (x == 12 || x == 14))))))))))));
	printf("%d %d\n", x > 1 && (x > 2 && (x > 3 && (x > 4 && (x > 5 &&
	    (x > 6 && (x > 7 && (x > 8 && (x > 9 && (x > 10 && (x > 11 &&
	    (x > 12 && x < 14))))))))))), x > 1 && x > 2 && x > 3 &&
	    x > 4 && x > 5 && x > 6 && x > 7 && x > 8 && x > 9 && x > 10 &&
	    x > 11 && x > 12 && x > 13);
	exit(0);
}
