inline int B = 41;
typedef struct pair { int first; int second; } pair_t;
