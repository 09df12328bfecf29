/*
 * Asserts: an array dimension must be a non-negative integer constant
 */
int a[1 - 2];
