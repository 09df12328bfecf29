/* w_pidrets.c - a function with several returning instructions for the
 * pid provider's return and instruction probes: pr_pick(x, tail), in
 * assembly so that its shape is fixed, returns by one of three rets
 * (ret, ret, repz ret) or leaves by a tail jump to pr_tail.  main calls
 * it for x = 0..99 with tail set for 15, 25, ..., 95: the first ret is
 * taken 50 times (even x, returns 10), the second 3 times (1, 3, 5,
 * returns 20), the repz ret 38 times (returns 30), the tail jump 9
 * times (pr_tail returns 40). */
#include <stdio.h>

__attribute__((noinline, used)) int pr_tail(int x)
{
	__asm__ volatile("" ::: "memory");
	return 40 + (x & 0);
}

int pr_pick(int x, int tail);
__asm__(
"	.text\n"
"	.globl pr_pick\n"
"	.type pr_pick, @function\n"
"pr_pick:\n"
"	test %esi, %esi\n"
"	jnz 3f\n"
"	movabs $0x1122334455667788, %rcx\n"	/* REX.W imm64 */
"	test $1, %edi\n"
"	jnz 1f\n"
"	mov $10, %eax\n"
"	ret\n"
"1:	cmp $5, %edi\n"
"	ja 2f\n"
"	mov $20, %eax\n"
"	ret\n"
"2:	nopw 0x0(%rax,%rax,1)\n"
"	mov $30, %eax\n"
"	repz ret\n"
"3:	jmp pr_tail\n"
"	.size pr_pick, .-pr_pick\n");

int main(void)
{
	long sum = 0;

	for (int x = 0; x < 100; x++)
		sum += pr_pick(x, x > 5 && x % 10 == 5);
	printf("%ld\n", sum);
	return 0;
}
