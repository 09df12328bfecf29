/*
 * Asserts: integer arithmetic takes the operand type of higher rank, as
 * dtrace promotes (char + char is a char, uint8_t + int is an int), and
 * values are truncated to their type's size when stored or recorded
 */
BEGIN
{
	this->c = (char)100;
	this->d = this->c + this->c;
	this->u = (uint8_t)250;
	printf("%d %d %d\n", this->d, sizeof (this->c + this->c),
	    sizeof (this->u + 1));
	printf("%d %d\n", this->u + (uint8_t)10, this->u + 10);
	x = (short)0;
	x = 70000;
	printf("%d %d\n", x, (uint8_t)200 + (uint8_t)100);
	printf("%d %d\n", sizeof ((short)1 + (long)1),
	    sizeof ((uint32_t)1 + (int32_t)1));
	printf("%d\n", (uint32_t)1 - 2 > 0);
	exit(0);
}
