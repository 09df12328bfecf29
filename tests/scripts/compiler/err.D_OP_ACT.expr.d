/*
 * Asserts: an action may not be an operand of ?: ("action cannot be used
 * in a conditional context")
 */
BEGIN
{
	x = timestamp > 0 ? trace(1) : trace(2);
}
