/* SPDX-License-Identifier: MIT */
/*
 * Root first, end to end in the engine: a fake sysfs with a network card, a
 * sound card, a virtio disk and a virtio input device; coldplug writes its
 * triggers, the test plays the kernel (each trigger's reply, in the order the
 * triggers were written, seen through inotify), and real modules are loaded
 * through libkmod with kmod-trap.so recording the order (kmod-fixture.h).
 * With a root awaited, the disk's and the keyboard's drivers come first and
 * everything is loaded in the end; without, devpath order decides.
 */
#include <atf-c.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "engine/engine.h"
#include "kmod-fixture.h"

#define PCI "/devices/pci0000:00"

static const struct device {
	const char *devpath, *subsystem, *modalias;
} devices[] = {
	{ PCI "/0000:00:02.0", "pci", "pci:v00008086d0000100Esv00008086sd0000001Ebc02sc00i00" },
	{ PCI "/0000:00:03.0", "pci", "pci:v00001274d00005000sv00004942sd00004C4Cbc04sc01i00" },
	{ PCI "/0000:00:04.0", "pci", "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00" },
	{ PCI "/0000:00:04.0/virtio1", "virtio", "virtio:d00000002v00001AF4" },
	{ PCI "/0000:00:05.0", "pci", "pci:v00001AF4d00001052sv00001AF4sd00001100bc09sc80i00" },
	{ PCI "/0000:00:05.0/virtio2", "virtio", "virtio:d00000012v00001AF4" },
};
#define NDEV (sizeof(devices) / sizeof(devices[0]))

/* the drivers of those devices; kmod-fixture copies what they depend on */
static const char *const modules[] = {
	"e1000", "snd_ens1370", "virtio_pci", "virtio_blk", "virtio_input",
};

/* ---- the child: the engine with the trap preloaded, no ATF ---- */

struct kernel {
	int in;                /* inotify on each device's uevent file */
	int wd[NDEV];
	unsigned long long seqnum;
};

static int build_sysfs(struct kernel *k)
{
	char path[512];
	FILE *f;

	k->in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (k->in < 0 || system("mkdir -p sys/kernel dev") != 0)
		return -1;
	for (size_t i = 0; i < NDEV; i++) {
		snprintf(path, sizeof(path), "mkdir -p sys%s && : > sys%s/uevent && "
			 "ln -s ../../%s sys%s/subsystem", devices[i].devpath, devices[i].devpath,
			 devices[i].subsystem, devices[i].devpath);
		if (system(path) != 0)
			return -1;
		snprintf(path, sizeof(path), "sys%s/modalias", devices[i].devpath);
		f = fopen(path, "we");
		if (!f || fprintf(f, "%s\n", devices[i].modalias) < 0 || fclose(f) != 0)
			return -1;
		snprintf(path, sizeof(path), "sys%s/uevent", devices[i].devpath);
		k->wd[i] = inotify_add_watch(k->in, path, IN_CLOSE_WRITE);
	}
	f = fopen("sys/kernel/uevent_seqnum", "we");
	return f && fputs("100\n", f) >= 0 && fclose(f) == 0 ? 0 : -1;
}

/* The kernel's answer to the trigger written to device i's uevent file. */
static void reply(struct engine *e, struct kernel *k, size_t i)
{
	static struct uevent ev;
	char path[512], got[128] = "", buf[1024];
	const struct device *d = &devices[i];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "sys%s/uevent", d->devpath);
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(got, sizeof(got), f) || strncmp(got, "add ", 4) != 0) {
		fclose(f);
		return;
	}
	fclose(f);
	got[strcspn(got, "\n")] = '\0';
	n = snprintf(buf, sizeof(buf), "add@%s%cACTION=add%cDEVPATH=%s%cSUBSYSTEM=%s%c"
		     "SEQNUM=%llu%cMODALIAS=%s%cSYNTH_UUID=%s%c", d->devpath, 0, 0, d->devpath, 0,
		     d->subsystem, 0, ++k->seqnum, 0, d->modalias, 0, got + 4, 0);
	if (uevent_parse(&ev, buf, (size_t)n, NULL, 0) == UEVENT_PARSE_OK)
		engine_feed(e, &ev);
}

/* Answer the triggers written since the last call, in the order they were written. */
static void answer(struct engine *e, struct kernel *k)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = read(k->in, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ie = (const struct inotify_event *)p;

			for (size_t i = 0; i < NDEV; i++)
				if (k->wd[i] == ie->wd)
					reply(e, k, i);
			p += sizeof(*ie) + ie->len;
		}
}

static int child(bool root)
{
	char cwd[PATH_MAX], dir[PATH_MAX + 300], conf[PATH_MAX + 32];
	const char *config[] = { conf, NULL };
	struct cmdline cmdline;
	struct logger log;
	struct kernel k = { .seqnum = 100 };
	struct engine e;
	struct engine_config cfg = { .sysfs = "sys", .dev = "dev", .rules_dirs = { "no-rules" },
				     .nrules_dirs = 1,
				     .coldplug = true, .no_devtmpfs = true, .workers = 1 };

	if (!kfx_child_trapped() || !getcwd(cwd, sizeof(cwd)) || build_sysfs(&k) < 0)
		return 90;
	snprintf(dir, sizeof(dir), "%s/lib/modules/%s", cwd, getenv(KFX_KVER_ENV));
	snprintf(conf, sizeof(conf), "%s/etc/modprobe.d", cwd);
	cfg.modules_dir = dir;
	cfg.modprobe_d = config;
	log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
	cmdline_init(&cmdline);
	cmdline.has_root = root;
	engine_init(&e, &cfg, &cmdline, &log);
	if (engine_start(&e) < 0)
		return 91;
	for (int i = 0; i < 1000 && !engine_settled(&e); i++) {
		engine_step(&e);
		answer(&e, &k);
		engine_on_done(&e);
		usleep(2000);
	}
	if (!engine_settled(&e))
		return 92;
	engine_close(&e);
	return 0;
}

__attribute__((constructor)) static void child_main(void)
{
	const char *name = kfx_child_scenario();

	if (name)
		exit(child(strcmp(name, "root") == 0));
}

/* ---- the parent ---- */

static size_t run(const char *scenario, struct kfx_insert *ins, size_t max)
{
	struct kfx fx;
	size_t n;

	kfx_setup(&fx, modules, sizeof(modules) / sizeof(modules[0]), NULL);
	kfx_run(&fx, scenario, NULL);
	n = kfx_trap_log(ins, max);
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++)
		ATF_CHECK_MSG(kfx_loaded_at(ins, n, modules[i]) >= 0, "%s not loaded once", modules[i]);
	return n;
}

ATF_TC_WITHOUT_HEAD(root_path_modules_first);
ATF_TC_BODY(root_path_modules_first, tc)
{
	struct kfx_insert ins[64];
	size_t n = run("root", ins, 64);
	int blk = kfx_loaded_at(ins, n, "virtio_blk"), input = kfx_loaded_at(ins, n, "virtio_input");
	int net = kfx_loaded_at(ins, n, "e1000"), snd = kfx_loaded_at(ins, n, "snd_ens1370");

	ATF_CHECK_MSG(blk < net && blk < snd, "disk driver at %d, NIC %d, sound %d", blk, net, snd);
	ATF_CHECK_MSG(input < net && input < snd, "input driver at %d, NIC %d, sound %d", input,
		      net, snd);
}

/* The same machine without a root awaited: devpath order, the NIC first. */
ATF_TC_WITHOUT_HEAD(devpath_order_without_root);
ATF_TC_BODY(devpath_order_without_root, tc)
{
	struct kfx_insert ins[64];
	size_t n = run("plain", ins, 64);

	ATF_CHECK(kfx_loaded_at(ins, n, "e1000") < kfx_loaded_at(ins, n, "virtio_blk"));
	ATF_CHECK(kfx_loaded_at(ins, n, "snd_ens1370") < kfx_loaded_at(ins, n, "virtio_blk"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, root_path_modules_first);
	ATF_TP_ADD_TC(tp, devpath_order_without_root);
	return atf_no_error();
}
