/*
 * Asserts: a translated pointer on its own (no member reference) has no
 * value to compute: D_CG_DYN
 */
struct from { int v; };
struct to { int w; };

translator struct to < struct from *f >
{
	w = f->v;
};

BEGIN
{
	xlate<struct to *>((struct from *)0);
}
