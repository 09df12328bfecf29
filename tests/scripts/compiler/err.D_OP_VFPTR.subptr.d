/*
 * Asserts: an integer minus-assigned a pointer is refused as dtrace does,
 * D_OP_VFPTR (not D_OP_ARITH)
 */
int p;

BEGIN
{
	p = 1;
	p -= alloca(4);
}
