/*
 * Asserts: a static function prototype is accepted (dtrace treats it as
 * extern), as is one without a storage class.
 */
static int f(int);
int g(void);

BEGIN
{
	exit(0);
}
