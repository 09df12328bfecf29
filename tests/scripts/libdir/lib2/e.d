/* Needs a library of another directory, and a built-in one. */
#pragma D depends_on library a.d
#pragma D depends_on library procfs.d
inline int E = A * 2;
