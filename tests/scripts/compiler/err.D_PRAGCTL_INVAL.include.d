/*
 * Asserts: C directives need -C
 */
#include <stdio.h>
BEGIN
{
}
