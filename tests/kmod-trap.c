/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD trap for libkmod, in the manner of kmod's own testsuite: module
 * insertion never reaches the kernel, it is recorded instead.
 *
 * What libkmod 30 really calls (nm -D libkmod.so.2; kmod v30 shared/missing.h
 * and libkmod-module.c): finit_module through syscall(__NR_finit_module, ...)
 * for uncompressed modules, and libc's init_module() with the decompressed
 * image otherwise. Both are trapped here, plus finit_module() in case a
 * newer libc provides it. Every other syscall() is forwarded.
 *
 * Environment:
 *   KMOD_TRAP_LOG=file        required: each insert appends "NAME ERRNO\n"
 *                             (ERRNO 0 on success); without it inserts fail
 *                             with EPERM
 *   KMOD_TRAP_FAIL=n:e[,...]  fail module n with errno e (a number or one of
 *                             EIO ENOENT ENODEV EPERM EINVAL ENOEXEC ENOMEM)
 *   KMOD_TRAP_SYSFS=dir       /sys/module/... is read from dir/module/...,
 *                             and a successful insert creates
 *                             dir/module/NAME/initstate ("live"), like the
 *                             kernel does
 *   KMOD_TRAP_RENDEZVOUS=a,b  inserts of the named modules wait until all of
 *                             them are inside the trap at once (at most 10 s,
 *                             then ETIMEDOUT): proves loads run in parallel
 * Inserting a module whose name already succeeded fails with EEXIST, as the
 * kernel does. Build without sanitizers:
 *   cc -shared -fPIC -D_GNU_SOURCE -o kmod-trap.so tests/kmod-trap.c -ldl
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NAME_MAX_LEN 64

/* The test program checks for this symbol before it lets libkmod insert. */
__attribute__((visibility("default"))) const int kmod_trap_active = 1;

/* ---- /sys/module redirection ---- */

/* path, or its copy under KMOD_TRAP_SYSFS if it is below /sys/module */
static const char *redirect(const char *path, char *buf, size_t size)
{
	const char *root = getenv("KMOD_TRAP_SYSFS");
	size_t n = strlen("/sys/module");

	if (!root || !path || strncmp(path, "/sys/module", n) != 0 ||
	    (path[n] != '/' && path[n] != '\0'))
		return path;
	if ((size_t)snprintf(buf, size, "%s%s", root, path + strlen("/sys")) >= size)
		return path;
	return buf;
}

static void *next(const char *sym)
{
	void *f = dlsym(RTLD_NEXT, sym);

	if (!f)
		abort();
	return f;
}

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...);
int open(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...) = next("open");
	char buf[PATH_MAX];
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return real(redirect(path, buf, sizeof(buf)), flags, mode);
}

int open64(const char *path, int flags, ...);
int open64(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...) = next("open64");
	char buf[PATH_MAX];
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return real(redirect(path, buf, sizeof(buf)), flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...)
{
	int (*real)(int, const char *, int, ...) = next("openat");
	char buf[PATH_MAX];
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return real(dirfd, redirect(path, buf, sizeof(buf)), flags, mode);
}

int stat(const char *path, struct stat *st);
int stat(const char *path, struct stat *st)
{
	int (*real)(const char *, struct stat *) = next("stat");
	char buf[PATH_MAX];

	return real(redirect(path, buf, sizeof(buf)), st);
}

int stat64(const char *path, struct stat64 *st);
int stat64(const char *path, struct stat64 *st)
{
	int (*real)(const char *, struct stat64 *) = next("stat64");
	char buf[PATH_MAX];

	return real(redirect(path, buf, sizeof(buf)), st);
}

/* ---- naming the module being inserted ---- */

/* "/x/y/virtio_blk.ko.xz" -> "virtio_blk" */
static int name_from_path(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t len;

	base = base ? base + 1 : path;
	dot = strstr(base, ".ko");
	len = dot ? (size_t)(dot - base) : strlen(base);
	if (len == 0 || len >= size)
		return -EINVAL;
	memcpy(out, base, len);
	out[len] = '\0';
	return 0;
}

static int name_from_fd(int fd, char *out, size_t size)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return -errno;
	path[n] = '\0';
	return name_from_path(path, out, size);
}

/* The section called name in a 64-bit ELF image, bounds-checked. */
static const char *elf_section(const char *img, size_t len, const char *name, size_t *size)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *strs;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > len ||
	    eh->e_shnum > (len - eh->e_shoff) / sizeof(*sh) || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(img + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > len || strs->sh_size > len - strs->sh_offset)
		return NULL;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		size_t off = sh[i].sh_name;
		const char *sn = img + strs->sh_offset + (off < strs->sh_size ? off : 0);

		if (off >= strs->sh_size ||
		    strnlen(sn, strs->sh_size - off) != strlen(name) ||
		    memcmp(sn, name, strlen(name)) != 0)
			continue;
		if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset)
			return NULL;
		*size = sh[i].sh_size;
		return img + sh[i].sh_offset;
	}
	return NULL;
}

/* init_module gets an image: the name is the "name=" entry of .modinfo. */
static int name_from_image(const void *mem, unsigned long len, char *out, size_t size)
{
	size_t secsize, n;
	const char *p = elf_section(mem, len, ".modinfo", &secsize);

	for (size_t off = 0; p && off < secsize; off += n + 1) {
		n = strnlen(p + off, secsize - off);
		if (n > 5 && n - 5 < size && strncmp(p + off, "name=", 5) == 0) {
			memcpy(out, p + off + 5, n - 5);
			out[n - 5] = '\0';
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- the fake insert ---- */

/* errno configured for name in KMOD_TRAP_FAIL, or 0 */
static int configured_failure(const char *name)
{
	static const struct { const char *s; int e; } names[] = {
		{ "EIO", EIO }, { "ENOENT", ENOENT }, { "ENODEV", ENODEV },
		{ "EPERM", EPERM }, { "EINVAL", EINVAL }, { "ENOEXEC", ENOEXEC },
		{ "ENOMEM", ENOMEM },
	};
	const char *spec = getenv("KMOD_TRAP_FAIL");
	size_t len = strlen(name);

	for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, name, len) != 0 || p[len] != ':')
			continue;
		p += len + 1;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strncmp(p, names[i].s, strlen(names[i].s)) == 0)
				return names[i].e;
		return atoi(p) > 0 ? atoi(p) : EINVAL;
	}
	return 0;
}

static bool in_list(const char *list, const char *name, unsigned int *count)
{
	size_t len = strlen(name);
	bool found = false;

	*count = 0;
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		(*count)++;
		if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			found = true;
	}
	return found;
}

/* Wait until every module in KMOD_TRAP_RENDEZVOUS is being inserted. */
static int rendezvous(const char *name)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	static unsigned int arrived;
	unsigned int want;
	struct timespec deadline;
	int r = 0;

	if (!in_list(getenv("KMOD_TRAP_RENDEZVOUS"), name, &want))
		return 0;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 10;
	pthread_mutex_lock(&lock);
	if (++arrived >= want)
		pthread_cond_broadcast(&cond);
	while (arrived < want && r == 0)
		r = pthread_cond_timedwait(&cond, &lock, &deadline);
	pthread_mutex_unlock(&lock);
	return arrived >= want ? 0 : ETIMEDOUT;
}

/* Did "name 0" already get logged? fd is the locked log. */
static bool logged_ok(int fd, const char *name)
{
	char line[NAME_MAX_LEN + 32], want[NAME_MAX_LEN + 4];
	FILE *f;
	bool found = false;
	int dupfd = dup(fd);

	if (dupfd < 0 || !(f = fdopen(dupfd, "r"))) {
		if (dupfd >= 0)
			close(dupfd);
		return false;
	}
	snprintf(want, sizeof(want), "%s 0\n", name);
	rewind(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strcmp(line, want) == 0;
	fclose(f);
	return found;
}

static void mark_live(const char *name)
{
	const char *root = getenv("KMOD_TRAP_SYSFS");
	char path[PATH_MAX];
	FILE *f;

	if (!root)
		return;
	snprintf(path, sizeof(path), "%s/module", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/module/%s", root, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/module/%s/initstate", root, name);
	f = fopen(path, "we");
	if (f) {
		fputs("live\n", f);
		fclose(f);
	}
}

/* Record the insert of name; returns 0 or an errno for the caller to report. */
static int fake_insert(const char *name)
{
	const char *logpath = getenv("KMOD_TRAP_LOG");
	int fd, err = rendezvous(name);

	if (!logpath)
		return EPERM;
	fd = open(logpath, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		return fd < 0 ? EPERM : (close(fd), EPERM);
	if (!err)
		err = configured_failure(name);
	if (!err && logged_ok(fd, name))
		err = EEXIST;
	dprintf(fd, "%s %d\n", name, err);
	if (!err)
		mark_live(name);
	close(fd);
	return err;
}

static long finish(int err)
{
	errno = err;
	return err ? -1 : 0;
}

static long trap_finit(int fd)
{
	char name[NAME_MAX_LEN];

	if (name_from_fd(fd, name, sizeof(name)) < 0)
		return finish(EBADF);
	return finish(fake_insert(name));
}

static long trap_init(const void *mem, unsigned long len)
{
	char name[NAME_MAX_LEN];

	if (name_from_image(mem, len, name, sizeof(name)) < 0)
		return finish(ENOEXEC);
	return finish(fake_insert(name));
}

long syscall(long number, ...);
long syscall(long number, ...)
{
	long (*real)(long, ...);
	long a[6];
	va_list ap;

	/* the raw syscall ABI: six register-sized arguments, unused ones junk */
	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_finit_module)
		return trap_finit((int)a[0]);
	if (number == SYS_init_module)
		return trap_init((const void *)a[0], (unsigned long)a[1]);
	real = next("syscall");
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int init_module(void *mem, unsigned long len, const char *params);
int init_module(void *mem, unsigned long len, const char *params)
{
	(void)params;
	return (int)trap_init(mem, len);
}

int finit_module(int fd, const char *params, int flags);
int finit_module(int fd, const char *params, int flags)
{
	(void)params;
	(void)flags;
	return (int)trap_finit(fd);
}
