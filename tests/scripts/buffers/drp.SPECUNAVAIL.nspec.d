/* asserts: speculation() with every buffer in use fails and is counted */
#pragma D option nspec=1
BEGIN
{
	self->a = speculation();
	self->b = speculation();
	exit(0);
}
