/*
 * Asserts: more global variables than DIF can number are refused
 * dtrace-flags: -q -C
 * (the preprocessor makes 65536 distinct names: v0000 ... vffff)
 */
#define	V1(p)	p##0 = 1; p##1 = 1; p##2 = 1; p##3 = 1; p##4 = 1; p##5 = 1; \
		p##6 = 1; p##7 = 1; p##8 = 1; p##9 = 1; p##a = 1; p##b = 1; \
		p##c = 1; p##d = 1; p##e = 1; p##f = 1;
#define	V2(p)	V1(p##0) V1(p##1) V1(p##2) V1(p##3) V1(p##4) V1(p##5) \
		V1(p##6) V1(p##7) V1(p##8) V1(p##9) V1(p##a) V1(p##b) \
		V1(p##c) V1(p##d) V1(p##e) V1(p##f)
#define	V3(p)	V2(p##0) V2(p##1) V2(p##2) V2(p##3) V2(p##4) V2(p##5) \
		V2(p##6) V2(p##7) V2(p##8) V2(p##9) V2(p##a) V2(p##b) \
		V2(p##c) V2(p##d) V2(p##e) V2(p##f)
#define	V4(p)	V3(p##0) V3(p##1) V3(p##2) V3(p##3) V3(p##4) V3(p##5) \
		V3(p##6) V3(p##7) V3(p##8) V3(p##9) V3(p##a) V3(p##b) \
		V3(p##c) V3(p##d) V3(p##e) V3(p##f)

BEGIN
{
	V4(v)
}
