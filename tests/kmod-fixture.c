/* SPDX-License-Identifier: MIT */
#include "kmod-fixture.h"

#include <atf-c.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ATF_REQUIRE_MSG(mkdir(buf, 0755) == 0 || errno == EEXIST,
				"mkdir %s: %s", buf, strerror(errno));
		*p = '/';
	}
	ATF_REQUIRE_MSG(mkdir(buf, 0755) == 0 || errno == EEXIST,
			"mkdir %s: %s", buf, strerror(errno));
}

static void copy_file(const char *src, const char *dst)
{
	char buf[65536], dir[PATH_MAX];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	ATF_REQUIRE_MSG(in >= 0, "open %s: %s", src, strerror(errno));
	snprintf(dir, sizeof(dir), "%s", dst);
	mkdir_p(dirname(dir));
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ATF_REQUIRE_MSG(out >= 0, "create %s: %s", dst, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ATF_REQUIRE(write(out, buf, (size_t)n) == n);
	ATF_REQUIRE(n == 0);
	close(in);
	close(out);
}

/* Absolute path of an installed program, or false. */
static bool find_program(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "");
	for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, size, "%s/%s", d, name);
		if (d[0] == '/' && access(out, X_OK) == 0)
			return true;
	}
	return false;
}

static int run_program(char *const argv[])
{
	int status;
	pid_t pid = fork();

	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void append_env(const char *var, const char *value, const char *sep)
{
	const char *old = getenv(var);
	char buf[8192];

	if (old && old[0])
		snprintf(buf, sizeof(buf), "%s%s%s", old, sep, value);
	else
		snprintf(buf, sizeof(buf), "%s", value);
	setenv(var, buf, 1);
}

/* "kernel/drivers/block/virtio_blk.ko.xz" names module virtio_blk */
static bool path_names(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');
	size_t len = strlen(name);

	base = base ? base + 1 : path;
	for (size_t i = 0; i < len; i++)
		if ((base[i] == '-' ? '_' : base[i]) != (name[i] == '-' ? '_' : name[i]))
			return false;
	return strncmp(base + len, ".ko", 3) == 0;
}

/* Add path (relative to the module dir) once; false if there is no room. */
static bool add_path(struct kfx *fx, const char *path, size_t len)
{
	for (size_t i = 0; i < fx->n; i++)
		if (strlen(fx->paths[i]) == len && strncmp(fx->paths[i], path, len) == 0)
			return true;
	if (fx->n >= KFX_MODULES_MAX || len >= sizeof(fx->paths[0]))
		return false;
	snprintf(fx->paths[fx->n++], sizeof(fx->paths[0]), "%.*s", (int)len, path);
	return true;
}

/* A modules.dep line "PATH: DEP DEP...": the module and all it needs. */
static bool add_line(struct kfx *fx, char *line)
{
	char *colon = strchr(line, ':'), *save = NULL;

	if (!add_path(fx, line, (size_t)(colon - line)))
		return false;
	for (char *d = strtok_r(colon + 1, " \n", &save); d; d = strtok_r(NULL, " \n", &save))
		if (!add_path(fx, d, strlen(d)))
			return false;
	return true;
}

/* Fill fx from KVER's modules.dep; true if every named module is there. */
static bool find_modules(struct kfx *fx, const char *const *modules, size_t n)
{
	char path[PATH_MAX], line[8192];
	size_t found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", fx->kver);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		for (size_t i = 0; i < n; i++) {
			if (!path_names(line, modules[i]))
				continue;
			*colon = ':';
			found += add_line(fx, line);
			break;
		}
	}
	fclose(f);
	return found == n;
}

static bool find_kver(struct kfx *fx, const char *const *modules, size_t n)
{
	DIR *d = opendir("/lib/modules");
	struct dirent *e;
	bool ok = false;

	while (d && !ok && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(fx->kver))
			continue;
		memset(fx, 0, sizeof(*fx));
		strcpy(fx->kver, e->d_name);
		ok = find_modules(fx, modules, n);
	}
	if (d)
		closedir(d);
	return ok;
}

static void compress_module(const char *dst)
{
	char xz[PATH_MAX];

	if (!find_program("xz", xz, sizeof(xz)))
		atf_tc_skip("xz not installed");
	ATF_REQUIRE_EQ(run_program((char *const[]){ xz, (char *)dst, NULL }), 0);
}

void kfx_setup(struct kfx *fx, const char *const *modules, size_t n, const char *compress)
{
	static const char *const indexes[] = {
		"modules.builtin", "modules.builtin.modinfo", "modules.order",
	};
	char cwd[PATH_MAX], src[1024], dst[PATH_MAX + 1024], depmod[PATH_MAX];

	if (!find_kver(fx, modules, n))
		atf_tc_skip("no /lib/modules/KVER with the fixture's modules (install "
			    "linux-image-amd64)");
	if (!find_program("depmod", depmod, sizeof(depmod)))
		atf_tc_skip("depmod not installed (package kmod)");
	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)));
	for (size_t i = 0; i < fx->n; i++) {
		snprintf(src, sizeof(src), "/lib/modules/%s/%s", fx->kver, fx->paths[i]);
		snprintf(dst, sizeof(dst), "%s/lib/modules/%s/%s", cwd, fx->kver, fx->paths[i]);
		copy_file(src, dst);
		if (compress && path_names(fx->paths[i], compress) && !strstr(dst, ".ko."))
			compress_module(dst);
	}
	for (size_t i = 0; i < sizeof(indexes) / sizeof(indexes[0]); i++) {
		snprintf(src, sizeof(src), "/lib/modules/%s/%s", fx->kver, indexes[i]);
		snprintf(dst, sizeof(dst), "%s/lib/modules/%s/%s", cwd, fx->kver, indexes[i]);
		if (access(src, R_OK) == 0)
			copy_file(src, dst);
	}
	ATF_REQUIRE_EQ_MSG(run_program((char *const[]){ depmod, "-b", cwd, fx->kver, NULL }), 0,
			   "depmod -b %s %s failed", cwd, fx->kver);
	mkdir_p("etc/modprobe.d");
	mkdir_p("sys/module");
}

/* $KMOD_TRAP_LIB, else kmod-trap.so near this program (see the header). */
static void find_trap(char *out, size_t size)
{
	static const char *const where[] = { "/kmod-trap.so", "/.libs/kmod-trap.so",
					     "/../kmod-trap.so", "/../.libs/kmod-trap.so" };
	const char *env = getenv("KMOD_TRAP_LIB");
	char self[PATH_MAX];
	const char *dir;
	ssize_t n;

	if (env && env[0]) {
		ATF_REQUIRE_MSG(realpath(env, out), "KMOD_TRAP_LIB=%s: %s", env, strerror(errno));
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ATF_REQUIRE(n > 0);
	self[n] = '\0';
	dir = dirname(self);
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(out, size, "%s%s", dir, where[i]);
		if (access(out, R_OK) == 0)
			return;
	}
	atf_tc_fail("kmod-trap.so not found near the test program; set KMOD_TRAP_LIB");
}

/* In the forked child: environment for the trap, stderr to child.log, exec. */
static void exec_child(const struct kfx *fx, const char *scenario, const char *trap,
		       const char *const *env)
{
	char cwd[PATH_MAX], path[PATH_MAX + 32];
	int fd = open("child.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0 || !getcwd(cwd, sizeof(cwd)))
		_exit(120);
	/* after any preloaded sanitizer runtime, which must come first */
	append_env("LD_PRELOAD", trap, " ");
	/* ASan checks that its runtime is first in the link order; an
	 * LD_PRELOAD library ahead of it is harmless here */
	append_env("ASAN_OPTIONS", "verify_asan_link_order=0", ":");
	snprintf(path, sizeof(path), "%s/trap.log", cwd);
	setenv("KMOD_TRAP_LOG", path, 1);
	snprintf(path, sizeof(path), "%s/sys", cwd);
	setenv("KMOD_TRAP_SYSFS", path, 1);
	setenv(KFX_KVER_ENV, fx->kver, 1);
	setenv(KFX_SCENARIO_ENV, scenario, 1);
	for (; env && env[0]; env += 2)
		setenv(env[0], env[1], 1);
	execl("/proc/self/exe", "kmod-fixture-child", (char *)NULL);
	_exit(121);
}

void kfx_run(const struct kfx *fx, const char *scenario, const char *const *env)
{
	char trap[PATH_MAX];
	int status;
	pid_t pid;

	find_trap(trap, sizeof(trap));
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		exec_child(fx, scenario, trap, env);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		atf_utils_cat_file("child.log", "child: ");
		if (WIFEXITED(status) && WEXITSTATUS(status) == 90)
			atf_tc_fail("scenario %s: %s was not preloaded in the child", scenario, trap);
		atf_tc_fail("scenario %s: child wait status %#x (a sanitizer report or "
			    "crash is in the child: lines above)", scenario, status);
	}
}

const char *kfx_child_scenario(void)
{
	return getenv(KFX_SCENARIO_ENV);
}

bool kfx_child_trapped(void)
{
	return dlsym(RTLD_DEFAULT, "kmod_trap_active") != NULL && getenv(KFX_KVER_ENV);
}

size_t kfx_trap_log(struct kfx_insert *out, size_t max)
{
	FILE *f = fopen("trap.log", "re");
	char line[256];
	size_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		ATF_REQUIRE_MSG(n < max, "too many inserts");
		ATF_REQUIRE_MSG(sscanf(line, "%63s %d", out[n].name, &out[n].err) == 2,
				"bad trap.log line: %s", line);
		n++;
	}
	fclose(f);
	return n;
}

/* Module names: '-' and '_' are the same (the kernel's rule). */
static bool same_module(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a == '-' ? '_' : *a) != (*b == '-' ? '_' : *b))
			return false;
	return *a == *b;
}

int kfx_loaded_at(const struct kfx_insert *ins, size_t n, const char *name)
{
	int at = -1;

	for (size_t i = 0; i < n; i++)
		if (ins[i].err == 0 && same_module(ins[i].name, name))
			at = at == -1 ? (int)i : -2;
	return at;
}
