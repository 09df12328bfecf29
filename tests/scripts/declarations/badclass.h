/* A header with a variable D has no storage class for. */
static int counter;
