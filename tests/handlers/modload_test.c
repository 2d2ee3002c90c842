/* SPDX-License-Identifier: MIT */
/*
 * modload against real modules, without a kernel, the way kmod's testsuite
 * does it: each case copies a few modules of the installed kernel package
 * into ./lib/modules/KVER, runs depmod on that tree, then runs a scenario in
 * a child (this program re-executed, selected by MODLOAD_TEST_SCENARIO) with
 * kmod-trap.so preloaded. The trap records every insert in ./trap.log instead
 * of calling the kernel; the child writes its return codes and counters to
 * ./result and its log to ./child.log; the parent asserts on all three.
 *
 * The trap library is $KMOD_TRAP_LIB, else kmod-trap.so (or .libs/kmod-trap.so)
 * in the directory of this program. Needs depmod; xz for one case.
 */
#include <atf-c.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handlers/modload.h"
#include "fake-sysfs.h"
#include "kmod-fixture.h"


/* concrete MODALIAS values as the kernel would send them */
#define A_VIRTIO_BLK "virtio:d00000002v00001AF4"
#define A_VIRTIO_NET "virtio:d00000001v00001AF4"
#define A_E1000_1 "pci:v00008086d0000100Esv00008086sd0000001Ebc02sc00i00"
#define A_E1000_2 "pci:v00008086d0000100Fsv00008086sd00001001bc02sc00i00"
#define A_PCSPKR "platform:pcspkr"
#define A_FLOPPY "pnp:dPNP0700"
#define A_UNKNOWN "pci:v0000FFFFd0000FFFEsv00000000sd00000000bc00sc00i00"
#define A_BUILTIN "fs-debugfs" /* debugfs is built into Debian's kernels */

/* module -> its dependencies: virtio_blk (virtio, virtio_ring), virtio_net
 * (+ net_failover, failover), and three without any */
static const char *const fixture_modules[] = {
	"virtio", "virtio_ring", "virtio_blk", "virtio_net", "net_failover",
	"failover", "e1000", "pcspkr", "floppy",
};
#define N_MODULES (sizeof(fixture_modules) / sizeof(fixture_modules[0]))

/* ------------------------------------------------------------------ */
/* child side: runs with the trap preloaded, never calls ATF */

struct child {
	struct logger log;
	struct modload m;
	struct modload_worker w;
	FILE *out;
};

static void put(struct child *c, const char *key, long long v)
{
	fprintf(c->out, "%s=%lld\n", key, v);
}

static void sc_deps(struct child *c)
{
	put(c, "rc", modload_alias(&c->w, A_VIRTIO_BLK));
}

static void sc_dedup(struct child *c)
{
	put(c, "rc1", modload_alias(&c->w, A_VIRTIO_BLK));
	put(c, "rc2", modload_alias(&c->w, A_VIRTIO_BLK));
	put(c, "rc3", modload_alias(&c->w, A_E1000_1));
	put(c, "rc4", modload_alias(&c->w, A_E1000_2));
}

static void sc_blacklist(struct child *c)
{
	put(c, "rc1", modload_alias(&c->w, A_PCSPKR));
	put(c, "rc2", modload_alias(&c->w, A_VIRTIO_BLK));
	put(c, "rc3", modload_alias(&c->w, A_E1000_1));
	put(c, "rc4", modload_alias(&c->w, A_FLOPPY));
}

static void sc_modprobe_d(struct child *c)
{
	put(c, "rc1", modload_alias(&c->w, A_FLOPPY));
	put(c, "rc2", modload_alias(&c->w, A_PCSPKR));
	put(c, "rc3", modload_name(&c->w, "initdev_fake"));
}

static void sc_failure(struct child *c)
{
	put(c, "rc1", modload_alias(&c->w, A_E1000_1));
	put(c, "rc2", modload_alias(&c->w, A_PCSPKR));
	put(c, "rc3", modload_alias(&c->w, A_VIRTIO_BLK));
}

static void sc_unknown(struct child *c)
{
	put(c, "rc", modload_alias(&c->w, A_UNKNOWN));
}

struct thread_arg {
	struct modload *m;
	pthread_barrier_t *start;
	const char *aliases[4];
	int rc;
};

static void *loader(void *p)
{
	struct thread_arg *t = p;
	struct modload_worker w;

	modload_worker_init(&w, t->m);
	pthread_barrier_wait(t->start);
	for (int i = 0; t->aliases[i]; i++) {
		int r = modload_alias(&w, t->aliases[i]);

		if (r < 0 && t->rc == 0)
			t->rc = r;
	}
	modload_worker_fini(&w);
	return NULL;
}

static void sc_parallel(struct child *c)
{
	pthread_barrier_t start;
	struct thread_arg t[2] = {
		{ &c->m, &start, { A_VIRTIO_BLK, A_E1000_1, A_PCSPKR, NULL }, 0 },
		{ &c->m, &start, { A_VIRTIO_NET, A_E1000_2, A_FLOPPY, NULL }, 0 },
	};
	pthread_t tid[2];

	pthread_barrier_init(&start, NULL, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&tid[i], NULL, loader, &t[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&start);
	put(c, "rc1", t[0].rc);
	put(c, "rc2", t[1].rc);
}

static void sc_hostile(struct child *c)
{
	char big[2100];

	memset(big, 'a', sizeof(big));
	big[2049] = '\0';
	put(c, "rc_long", modload_alias(&c->w, big));
	big[2048] = '\0';
	put(c, "rc_max", modload_alias(&c->w, big));
	put(c, "rc_newline", modload_alias(&c->w, "\n" A_VIRTIO_BLK));
	put(c, "rc_ctrl", modload_alias(&c->w, "\x01" A_PCSPKR));
	put(c, "rc_del", modload_alias(&c->w, A_PCSPKR "\x7f"));
	put(c, "rc_empty", modload_alias(&c->w, ""));
	put(c, "rc_name_path", modload_name(&c->w, "../../virtio_blk"));
	put(c, "rc_name_space", modload_name(&c->w, "virtio_blk pcspkr"));
	memset(big, 'b', 100);
	big[100] = '\0';
	put(c, "rc_name_long", modload_name(&c->w, big));
}

static void sc_already(struct child *c)
{
	put(c, "rc1", modload_alias(&c->w, A_VIRTIO_BLK));
	put(c, "rc2", modload_name(&c->w, "virtio_ring"));
	put(c, "rc3", modload_alias(&c->w, A_BUILTIN));
	put(c, "rc4", modload_name(&c->w, "zswap"));
	put(c, "rc5", modload_alias(&c->w, A_PCSPKR));
}

static void sc_name(struct child *c)
{
	put(c, "rc1", modload_name(&c->w, "pcspkr"));
	put(c, "rc2", modload_name(&c->w, "virtio-blk"));
	put(c, "rc3", modload_alias(&c->w, A_VIRTIO_BLK));
	put(c, "rc4", modload_name(&c->w, "no_such_module"));
	put(c, "rc5", modload_name(&c->w, "e1000"));
	put(c, "rc6", modload_name(&c->w, "e1000"));
}

static void sc_compressed(struct child *c)
{
	put(c, "rc", modload_alias(&c->w, A_E1000_1));
}

static const struct scenario {
	const char *name;
	void (*run)(struct child *c);
	char *const *blacklist;
	size_t n;
} scenarios[] = {
	{ "deps", sc_deps, NULL, 0 },
	{ "dedup", sc_dedup, NULL, 0 },
	{ "blacklist", sc_blacklist,
	  (char *const[]){ "pcspkr", "virtio-blk", "bad/name", "" }, 4 },
	{ "modprobe_d", sc_modprobe_d, NULL, 0 },
	{ "failure", sc_failure, NULL, 0 },
	{ "unknown", sc_unknown, NULL, 0 },
	{ "parallel", sc_parallel, NULL, 0 },
	{ "hostile", sc_hostile, NULL, 0 },
	{ "already", sc_already, NULL, 0 },
	{ "name", sc_name, NULL, 0 },
	{ "compressed", sc_compressed, NULL, 0 },
};

static void put_stats(struct child *c)
{
	struct modload_stats s;
	unsigned int inflight;

	modload_snapshot(&c->m, &s, &inflight);
	put(c, "loaded", (long long)s.loaded);
	put(c, "failed", (long long)s.failed);
	put(c, "blacklisted", (long long)s.blacklisted);
	put(c, "already", (long long)s.already);
	put(c, "aliases", (long long)s.aliases);
	put(c, "unresolved", (long long)s.unresolved);
	put(c, "inflight", inflight);
}

static int child_run(const struct scenario *sc)
{
	char cwd[PATH_MAX], dir[PATH_MAX + 300], conf[PATH_MAX + 32];
	const char *kver = getenv(KFX_KVER_ENV);
	const char *config[] = { conf, NULL };
	struct child c;

	/* without the trap, libkmod would ask the real kernel: refuse */
	if (!kfx_child_trapped() || !kver ||
	    !getcwd(cwd, sizeof(cwd)))
		return 90;
	snprintf(dir, sizeof(dir), "%s/lib/modules/%s", cwd, kver);
	snprintf(conf, sizeof(conf), "%s/etc/modprobe.d", cwd);
	c.out = fopen("result", "we");
	if (!c.out)
		return 91;
	log_init(&c.log, LOG_TARGET_STDERR, LOG_DEBUG);
	if (modload_init(&c.m, dir, config, sc->blacklist, sc->n, &c.log) < 0)
		return 92;
	modload_worker_init(&c.w, &c.m);
	sc->run(&c);
	modload_worker_fini(&c.w);
	put_stats(&c);
	modload_fini(&c.m);
	return fclose(c.out) == 0 ? 0 : 93;
}

/* Re-executed as a child: run the scenario before ATF's main gets control. */
__attribute__((constructor)) static void child_main(void)
{
	const char *name = kfx_child_scenario();

	if (!name)
		return;
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (strcmp(scenarios[i].name, name) == 0)
			exit(child_run(&scenarios[i]));
	exit(94);
}

/* ------------------------------------------------------------------ */
/* parent side: fixture tree, spawning, reading what the child left */


static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	ATF_REQUIRE_MSG(f, "create %s: %s", path, strerror(errno));
	fputs(text, f);
	ATF_REQUIRE(fclose(f) == 0);
}

/* key=value from ./result; fails the test if missing */
static long long result(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	FILE *f = fopen("result", "re");
	long long v = 0;
	bool found = false;

	ATF_REQUIRE_MSG(f, "no result file");
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line, key, len) == 0 && line[len] == '=') {
			v = strtoll(line + len + 1, NULL, 10);
			found = true;
		}
	fclose(f);
	ATF_REQUIRE_MSG(found, "no %s in result", key);
	return v;
}

/* rc1 .. rcN, as the scenario wrote them, are all 0 */
static void check_rcs_zero(int n)
{
	char key[16];

	for (int i = 1; i <= n; i++) {
		snprintf(key, sizeof(key), "rc%d", i);
		ATF_CHECK_EQ_MSG(result(key), 0, "%s", key);
	}
}

static void check_stats(long long loaded, long long failed, long long blacklisted,
			long long already, long long aliases, long long unresolved)
{
	ATF_CHECK_EQ(result("loaded"), loaded);
	ATF_CHECK_EQ(result("failed"), failed);
	ATF_CHECK_EQ(result("blacklisted"), blacklisted);
	ATF_CHECK_EQ(result("already"), already);
	ATF_CHECK_EQ(result("aliases"), aliases);
	ATF_CHECK_EQ(result("unresolved"), unresolved);
	ATF_CHECK_EQ(result("inflight"), 0);
}

/* ------------------------------------------------------------------ */

ATF_TC_WITHOUT_HEAD(alias_loads_dependencies_first);
ATF_TC_BODY(alias_loads_dependencies_first, tc)
{
	struct kfx fx;
	struct kfx_insert ins[32];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	kfx_run(&fx, "deps", NULL);
	ATF_CHECK_EQ(result("rc"), 0);
	n = kfx_trap_log(ins, 32);
	ATF_REQUIRE_EQ(n, 3);
	/* modules.dep: virtio_blk needs virtio, which needs virtio_ring */
	ATF_CHECK_STREQ(ins[0].name, "virtio_ring");
	ATF_CHECK_STREQ(ins[1].name, "virtio");
	ATF_CHECK_STREQ(ins[2].name, "virtio_blk");
	for (size_t i = 0; i < n; i++)
		ATF_CHECK_EQ(ins[i].err, 0);
	check_stats(1, 0, 0, 0, 1, 0);
	ATF_CHECK(atf_utils_grep_file("loaded module virtio_blk for " A_VIRTIO_BLK, "child.log"));
	/* libkmod's own messages come through our logger */
	ATF_CHECK(atf_utils_grep_file("initdev: libkmod: ", "child.log"));
}

ATF_TC_WITHOUT_HEAD(dedup_aliases_and_modules);
ATF_TC_BODY(dedup_aliases_and_modules, tc)
{
	struct kfx fx;
	struct kfx_insert ins[32];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	kfx_run(&fx, "dedup", NULL);
	check_rcs_zero(4);
	n = kfx_trap_log(ins, 32);
	ATF_CHECK_EQ(n, 4);
	for (const char *const *m = (const char *const[]){ "virtio_ring", "virtio", "virtio_blk",
							    "e1000", NULL }; *m; m++)
		ATF_CHECK_MSG(kfx_loaded_at(ins, n, *m) >= 0, "%s not loaded exactly once", *m);
	/* the repeated alias is not even counted; the second e1000 alias is */
	check_stats(2, 0, 0, 0, 3, 0);
}

ATF_TC_WITHOUT_HEAD(blacklist_command_line);
ATF_TC_BODY(blacklist_command_line, tc)
{
	struct kfx fx;
	struct kfx_insert ins[32];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	kfx_run(&fx, "blacklist", NULL);
	check_rcs_zero(4);
	n = kfx_trap_log(ins, 32);
	/* "virtio-blk" on the command line names virtio_blk: its deps stay out too */
	ATF_CHECK_EQ(n, 2);
	ATF_CHECK(kfx_loaded_at(ins, n, "e1000") >= 0);
	ATF_CHECK(kfx_loaded_at(ins, n, "floppy") >= 0);
	check_stats(2, 0, 2, 0, 4, 0);
	ATF_CHECK(atf_utils_grep_file("module pcspkr for platform:pcspkr is blacklisted "
				      "on the command line", "child.log"));
	ATF_CHECK(atf_utils_grep_file("ignoring invalid module name 'bad/name'", "child.log"));
}

ATF_TC_WITHOUT_HEAD(blacklist_modprobe_d);
ATF_TC_BODY(blacklist_modprobe_d, tc)
{
	struct kfx fx;
	struct kfx_insert ins[32];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	/* plus an install command for a module that has no file at all */
	write_file("etc/modprobe.d/x.conf", "# initdev test\nblacklist floppy\n"
		   "install initdev_fake echo ran >install-ran\n");
	kfx_run(&fx, "modprobe_d", NULL);
	ATF_CHECK_EQ(result("rc1"), 0);
	ATF_CHECK_EQ(result("rc2"), 0);
	ATF_CHECK_EQ(result("rc3"), 0);
	n = kfx_trap_log(ins, 32);
	ATF_CHECK_EQ(n, 1);
	ATF_CHECK_EQ(kfx_loaded_at(ins, n, "pcspkr"), 0);
	ATF_CHECK(atf_utils_file_exists("install-ran"));
	check_stats(2, 0, 1, 0, 2, 0);
	ATF_CHECK(atf_utils_grep_file("module floppy for pnp:dPNP0700 is blacklisted in modprobe.d",
				      "child.log"));
}

ATF_TC_WITHOUT_HEAD(failure_counted_and_next_alias_loads);
ATF_TC_BODY(failure_counted_and_next_alias_loads, tc)
{
	struct kfx fx;
	struct kfx_insert ins[32];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	kfx_run(&fx, "failure",
		     (const char *const[]){ "KMOD_TRAP_FAIL", "e1000:EIO,pcspkr:ENODEV", NULL });
	ATF_CHECK_EQ(result("rc1"), -EIO);
	ATF_CHECK_EQ(result("rc2"), 0); /* ENODEV: the driver found no device */
	ATF_CHECK_EQ(result("rc3"), 0);
	n = kfx_trap_log(ins, 32);
	ATF_REQUIRE_EQ(n, 5);
	ATF_CHECK_STREQ(ins[0].name, "e1000");
	ATF_CHECK_EQ(ins[0].err, EIO);
	ATF_CHECK_STREQ(ins[1].name, "pcspkr");
	ATF_CHECK_EQ(ins[1].err, ENODEV);
	ATF_CHECK(kfx_loaded_at(ins, n, "virtio_blk") == 4);
	check_stats(1, 1, 0, 0, 3, 0);
	ATF_CHECK(atf_utils_grep_file("cannot load module e1000 for " A_E1000_1 ": Input/output error",
				      "child.log"));
}

ATF_TC_WITHOUT_HEAD(unknown_alias_is_unresolved);
ATF_TC_BODY(unknown_alias_is_unresolved, tc)
{
	struct kfx fx;
	struct kfx_insert ins[4];

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	kfx_run(&fx, "unknown", NULL);
	ATF_CHECK_EQ(result("rc"), 0);
	ATF_CHECK_EQ(kfx_trap_log(ins, 4), 0);
	check_stats(0, 0, 0, 0, 1, 1);
}

ATF_TC_WITHOUT_HEAD(parallel_workers);
ATF_TC_BODY(parallel_workers, tc)
{
	struct kfx fx;
	struct kfx_insert ins[64];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	/* the trap holds virtio_blk's and virtio_net's inserts until both are
	 * inside it: a lock held across the insert would time that out */
	kfx_run(&fx, "parallel",
		     (const char *const[]){ "KMOD_TRAP_RENDEZVOUS", "virtio_blk,virtio_net", NULL });
	ATF_CHECK_EQ(result("rc1"), 0);
	ATF_CHECK_EQ(result("rc2"), 0);
	n = kfx_trap_log(ins, 64);
	for (size_t i = 0; i < N_MODULES; i++)
		ATF_CHECK_MSG(kfx_loaded_at(ins, n, fixture_modules[i]) >= 0,
			      "%s not loaded exactly once", fixture_modules[i]);
	/* a shared dependency may race; the loser gets EEXIST like from a kernel */
	for (size_t i = 0; i < n; i++)
		ATF_CHECK_MSG(ins[i].err == 0 || ins[i].err == EEXIST, "%s: %d",
			      ins[i].name, ins[i].err);
	check_stats(5, 0, 0, 0, 6, 0);
}

ATF_TC_WITHOUT_HEAD(hostile_alias_refused);
ATF_TC_BODY(hostile_alias_refused, tc)
{
	static const char *const refused[] = {
		"rc_long", "rc_newline", "rc_ctrl", "rc_del", "rc_empty",
		"rc_name_path", "rc_name_space", "rc_name_long",
	};
	struct kfx fx;
	struct kfx_insert ins[4];
	char buf[65536];
	ssize_t len;
	int fd;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	kfx_run(&fx, "hostile", NULL);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ATF_CHECK_EQ_MSG(result(refused[i]), -EINVAL, "%s", refused[i]);
	ATF_CHECK_EQ(result("rc_max"), 0); /* 2048 bytes is allowed, and unknown */
	ATF_CHECK_EQ(kfx_trap_log(ins, 4), 0);
	check_stats(0, 0, 0, 0, 1, 1);
	ATF_CHECK(atf_utils_grep_file("refusing invalid modalias '\\\\x0a" A_VIRTIO_BLK "'",
				      "child.log"));
	/* no raw control byte made it into the log */
	fd = open("child.log", O_RDONLY | O_CLOEXEC);
	ATF_REQUIRE(fd >= 0);
	len = read(fd, buf, sizeof(buf));
	close(fd);
	ATF_REQUIRE(len > 0);
	ATF_CHECK(memchr(buf, 0x01, (size_t)len) == NULL);
	ATF_CHECK(memchr(buf, 0x7f, (size_t)len) == NULL);
}

ATF_TC_WITHOUT_HEAD(builtin_and_live_modules_skipped);
ATF_TC_BODY(builtin_and_live_modules_skipped, tc)
{
	struct kfx fx;
	struct kfx_insert ins[32];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	/* the trap reads /sys/module from ./sys/module: virtio_ring is live,
	 * pcspkr is still coming (directory, no initstate yet) */
	fs_mkdir_p("sys/module/virtio_ring");
	write_file("sys/module/virtio_ring/initstate", "live\n");
	fs_mkdir_p("sys/module/pcspkr");
	kfx_run(&fx, "already", NULL);
	check_rcs_zero(5);
	n = kfx_trap_log(ins, 32);
	ATF_CHECK_EQ(n, 2);
	ATF_CHECK_EQ(kfx_loaded_at(ins, n, "virtio"), 0);
	ATF_CHECK_EQ(kfx_loaded_at(ins, n, "virtio_blk"), 1);
	/* virtio_ring (live), debugfs (built in, by alias), zswap (built in), pcspkr */
	check_stats(1, 0, 0, 4, 3, 0);
}

ATF_TC_WITHOUT_HEAD(load_by_name);
ATF_TC_BODY(load_by_name, tc)
{
	struct kfx fx;
	struct kfx_insert ins[32];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, NULL);
	kfx_run(&fx, "name", NULL);
	ATF_CHECK_EQ(result("rc1"), 0);
	ATF_CHECK_EQ(result("rc2"), 0);
	ATF_CHECK_EQ(result("rc3"), 0);
	ATF_CHECK_EQ(result("rc4"), -ENOENT);
	ATF_CHECK_EQ(result("rc5"), 0);
	ATF_CHECK_EQ(result("rc6"), 0);
	n = kfx_trap_log(ins, 32);
	ATF_CHECK_EQ(n, 5);
	for (const char *const *m = (const char *const[]){ "pcspkr", "virtio_ring", "virtio",
							    "virtio_blk", "e1000", NULL }; *m; m++)
		ATF_CHECK_MSG(kfx_loaded_at(ins, n, *m) >= 0, "%s not loaded exactly once", *m);
	check_stats(3, 0, 0, 0, 1, 1);
	ATF_CHECK(atf_utils_grep_file("module no_such_module for explicit request not found",
				      "child.log"));
}

ATF_TC_WITHOUT_HEAD(compressed_module_via_init_module);
ATF_TC_BODY(compressed_module_via_init_module, tc)
{
	struct kfx fx;
	struct kfx_insert ins[4];
	size_t n;

	kfx_setup(&fx, fixture_modules, N_MODULES, "e1000");
	kfx_run(&fx, "compressed", NULL);
	ATF_CHECK_EQ(result("rc"), 0);
	n = kfx_trap_log(ins, 4);
	ATF_CHECK_EQ(n, 1);
	ATF_CHECK_EQ(kfx_loaded_at(ins, n, "e1000"), 0);
	check_stats(1, 0, 0, 0, 1, 0);
}

ATF_TC_WITHOUT_HEAD(normalize);
ATF_TC_BODY(normalize, tc)
{
	char out[16];

	ATF_CHECK(modload_normalize(out, sizeof(out), "snd-hda-intel"));
	ATF_CHECK_STREQ(out, "snd_hda_intel");
	ATF_CHECK(modload_normalize(out, sizeof(out), "e1000"));
	ATF_CHECK_STREQ(out, "e1000");
	ATF_CHECK(modload_normalize(out, sizeof(out), "123456789012345"));
	ATF_CHECK(!modload_normalize(out, sizeof(out), "1234567890123456"));
	ATF_CHECK(!modload_normalize(out, sizeof(out), ""));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, alias_loads_dependencies_first);
	ATF_TP_ADD_TC(tp, dedup_aliases_and_modules);
	ATF_TP_ADD_TC(tp, blacklist_command_line);
	ATF_TP_ADD_TC(tp, blacklist_modprobe_d);
	ATF_TP_ADD_TC(tp, failure_counted_and_next_alias_loads);
	ATF_TP_ADD_TC(tp, unknown_alias_is_unresolved);
	ATF_TP_ADD_TC(tp, parallel_workers);
	ATF_TP_ADD_TC(tp, hostile_alias_refused);
	ATF_TP_ADD_TC(tp, builtin_and_live_modules_skipped);
	ATF_TP_ADD_TC(tp, load_by_name);
	ATF_TP_ADD_TC(tp, compressed_module_via_init_module);
	ATF_TP_ADD_TC(tp, normalize);
	return atf_no_error();
}
