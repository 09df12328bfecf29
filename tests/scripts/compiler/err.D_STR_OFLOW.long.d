/*
 * Asserts: an expression whose strings pass DIF's 64 KB string table is
 * refused
 * dtrace-flags: -q -C
 * (the preprocessor makes a string literal of 65536 words)
 */
#define	S16(x)	x x x x x x x x x x x x x x x x
#define	WORDS	S16(S16(S16(S16(word))))
#define	STR(x)	#x
#define	XSTR(x)	STR(x)

BEGIN
{
	trace(XSTR(WORDS));
}
