/* Asserts: end of file inside a control line is a syntax error
 * ("end-of-file encountered before end of control line"), as dtrace. */
BEGIN { exit(0); }
#pragma D option quiet