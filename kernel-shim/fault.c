/*
 * fault.c - a provider's source failing after tracing began: the
 * messages the consumer reports ("dtrace: ...") while the rest of the
 * session goes on.
 *
 * Any thread may add one (a provider's reader finding its helper gone,
 * the shim failing to start a probe made after the enabling); the
 * consumer reads them in order with its own cursor.  The log is a ring of
 * NFAULTS messages, so a storm of them costs bounded memory: a reader
 * that fell more than NFAULTS behind learns how many it missed.  One
 * process-wide log, as provider sources are process-wide (as drops are
 * charged to every open state).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ks_impl.h"

#define NFAULTS 16
#define FAULTLEN 256

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static char faults[NFAULTS][FAULTLEN];
static uint64_t nfaults;		/* messages ever added */

void ks_provider_fault(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fault_lock);
	va_start(ap, fmt);
	vsnprintf(faults[nfaults % NFAULTS], FAULTLEN, fmt, ap);
	va_end(ap);
	nfaults++;
	pthread_mutex_unlock(&fault_lock);
}

uint64_t ks_fault_seq(void)
{
	uint64_t n;

	pthread_mutex_lock(&fault_lock);
	n = nfaults;
	pthread_mutex_unlock(&fault_lock);
	return n;
}

int ks_fault_next(uint64_t *seq, char *buf, size_t len, uint64_t *missed)
{
	int got = 0;

	*missed = 0;
	pthread_mutex_lock(&fault_lock);
	if (nfaults > NFAULTS && *seq < nfaults - NFAULTS) {
		*missed = nfaults - NFAULTS - *seq;
		*seq = nfaults - NFAULTS;
	}
	if (*seq < nfaults) {
		snprintf(buf, len, "%s", faults[*seq % NFAULTS]);
		(*seq)++;
		got = 1;
	}
	pthread_mutex_unlock(&fault_lock);
	return got;
}
