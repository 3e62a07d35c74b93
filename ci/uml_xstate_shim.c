/* LD_PRELOAD shim for user-mode-linux 6.1 on hosts whose XSAVE area is larger than UML's
 * (AVX-512, AMX): the host kernel accepts PTRACE_SETREGSET NT_X86_XSTATE only with its whole
 * buffer (else EFAULT: "ptrace set fp regs failed, errno = 14").  Each call is widened to the
 * host's size; the bytes UML cannot hold are kept per UML buffer and restored with it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

#define NT_XSTATE 0x202
#define MAX_XSTATE 32768
#define SLOTS 8192

typedef long (*ptrace_fn)(int, pid_t, void *, void *);

static struct { void *key; unsigned char *extra; } table[SLOTS];
static unsigned char full[MAX_XSTATE];

static unsigned char **extra_of(void *key, size_t size)
{
	size_t i = ((size_t)key >> 4) % SLOTS;
	for (size_t probe = 0; probe < SLOTS; probe++, i = (i + 1) % SLOTS) {
		if (table[i].key == key)
			return &table[i].extra;
		if (table[i].key == NULL) {
			table[i].key = key;
			table[i].extra = calloc(1, size);
			return &table[i].extra;
		}
	}
	return NULL;
}

long ptrace(enum __ptrace_request request, ...)
{
	static ptrace_fn real;
	va_list ap;
	va_start(ap, request);
	pid_t pid = va_arg(ap, pid_t);
	void *addr = va_arg(ap, void *);
	void *data = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (ptrace_fn)dlsym(RTLD_NEXT, "ptrace");
	if ((request != PTRACE_GETREGSET && request != PTRACE_SETREGSET)
	    || (long)addr != NT_XSTATE)
		return real(request, pid, addr, data);
	struct iovec *uml = data;
	struct iovec host = { full, MAX_XSTATE };
	long rc = real(PTRACE_GETREGSET, pid, addr, &host);
	if (rc < 0 || host.iov_len <= uml->iov_len)
		return real(request, pid, addr, data);
	size_t n = uml->iov_len, rest = host.iov_len - n;
	unsigned char **extra = extra_of(uml->iov_base, rest);
	if (request == PTRACE_GETREGSET) {
		memcpy(uml->iov_base, full, n);
		if (extra && *extra)
			memcpy(*extra, full + n, rest);
		return 0;
	}
	memcpy(full, uml->iov_base, n);
	if (extra && *extra)
		memcpy(full + n, *extra, rest);
	return real(PTRACE_SETREGSET, pid, addr, &host);
}
