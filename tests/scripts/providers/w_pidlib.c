/* w_pidlib.c - the library w_pidcalls dlopen()s (built with -shared):
 * pc_lib(x) returns 3x. */
int pc_lib(int x);

__attribute__((noinline)) int pc_lib(int x)
{
	return x * 3;
}
