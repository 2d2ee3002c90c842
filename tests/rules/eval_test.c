/* SPDX-License-Identifier: MIT */
/*
 * Applying rules to events on a hand-made sysfs: every match key and
 * operator, every substitution, GOTO/LABEL, assignments and their final
 * forms, the programs rules run, builtins, property persistence across
 * events, and hostile values that must stay bounded and inside /dev.
 */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/db.h"
#include "rules/rules.h"
#include "sysfs-fixture.h"

#define ROOT "sys"
#define PCI "/devices/pci0000:00/0000:00:01.0"
#define VIRTIO PCI "/virtio0"
#define VDA VIRTIO "/block/vda"
#define VDA1 VDA "/vda1"

static char sysfs_abs[PATH_MAX];
static struct sysdev_root sysroot;

static void tree(void)
{
	fx_device(ROOT, PCI, "pci", NULL);
	fx_text(ROOT, PCI "/uevent", "DRIVER=virtio-pci\nPCI_SLOT_NAME=0000:00:01.0\n");
	fx_text(ROOT, PCI "/vendor", "0x1af4\n");
	fx_link(ROOT, PCI "/driver", "../../../bus/pci/drivers/virtio-pci");
	fx_device(ROOT, VIRTIO, "virtio", NULL);
	fx_text(ROOT, VIRTIO "/uevent", "VIRTIO_X=1\nMODALIAS=virtio:d00000002v00001AF4\n");
	fx_link(ROOT, "/class/block/vda",
		"../../devices/pci0000:00/0000:00:01.0/virtio0/block/vda");
	fx_link(ROOT, VIRTIO "/driver", "../../../../bus/virtio/drivers/virtio_blk");
	fx_text(ROOT, VIRTIO "/features", "0110\n");
	fx_device(ROOT, VDA, "block", "disk");
	fx_text(ROOT, VDA "/uevent", "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n");
	fx_text(ROOT, VDA "/size", "2048  \n");
	fx_text(ROOT, VDA "/serial", "SER 1/../$x\n");
	fx_text(ROOT, VDA "/md/array_state", "clean\n");
	fx_link(ROOT, VDA "/md/link", "../../../../../../outside/secret");
	fx_device(ROOT, VDA1, "block", "partition");
	fx_text(ROOT, VDA1 "/uevent",
		"MAJOR=254\nMINOR=1\nDEVNAME=vda1\nDEVTYPE=partition\nPARTN=1\n");
	ATF_REQUIRE(realpath(ROOT, sysfs_abs) != NULL);
	ATF_REQUIRE_EQ(sysdev_root_open(&sysroot, ROOT), 0);
}

struct world {
	struct rules r;
	struct rules_ctx ctx;
	struct rules_event ev;
	struct rules_db db;
	int builtin_calls;
	const char *cmdline;
};

static int fake_builtin(void *u, struct rules_event *ev, enum rules_builtin b, int argc,
			char **argv)
{
	struct world *w = u;

	w->builtin_calls++;
	if (b == RB_BLKID)
		return props_set(&ev->props, "ID_FS_TYPE", argc > 1 ? argv[1] : "ext4", true);
	if (b == RB_PATH_ID)
		return props_set(&ev->props, "ID_PATH", "pci-0000:00:01.0", true);
	return -EOPNOTSUPP;
}

static void world_init(struct world *w, const char *text)
{
	memset(w, 0, sizeof(*w));
	tree();
	rules_init(&w->r, NULL, NULL);
	ATF_REQUIRE_EQ(rules_parse_text(&w->r, "test.rules", text, strlen(text)), 0);
	ATF_REQUIRE_EQ_MSG(w->r.errors, 0, "unexpected parse errors: %u", w->r.errors);
	rules_db_init(&w->db);
	w->ctx = (struct rules_ctx){
		.sys = &sysroot,
		.sysfs = sysfs_abs,
		.builtin = fake_builtin,
		.record = rules_db_get,
		.record_u = &w->db,
		.u = w,
		.no_writes = true,
		.deadline_usec = now_monotonic_usec() + 20000000ULL,
		.cmdline = "root=/dev/vda1 rd.md=0 quiet rd-lvm.vg=vg0 rd.lvm.vg=vg1"
	};
	w->ctx.u = w;
}

static void event(struct world *w, const char *action, const char *devpath)
{
	char a[64], d[512];
	const char *env[] = { a,
			      d,
			      "SUBSYSTEM=block",
			      "MAJOR=254",
			      "MINOR=0",
			      "DEVNAME=vda",
			      "DEVTYPE=disk",
			      "SEQNUM=7" };
	struct rules_record old = { 0 };
	bool have;

	snprintf(a, sizeof(a), "ACTION=%s", action);
	snprintf(d, sizeof(d), "DEVPATH=%s", devpath);
	have = rules_db_get(&w->db, devpath, &old);
	ATF_REQUIRE_EQ(rules_event_init(&w->ev, env, sizeof(env) / sizeof(env[0]),
					have ? &old : NULL),
		       0);
	if (have)
		rules_record_free(&old);
	ATF_REQUIRE_EQ(rules_apply(&w->r, &w->ctx, &w->ev), 0);
	ATF_REQUIRE_EQ(rules_event_finish(&w->ev), 0);
}

static void world_fini(struct world *w)
{
	rules_event_free(&w->ev);
	rules_db_fini(&w->db);
	rules_free(&w->r);
	sysdev_root_close(&sysroot);
}

static const char *prop(struct world *w, const char *key)
{
	return props_get(&w->ev.props, key);
}

#define CHECK_PROP(w, k, v)                                                                 \
	do {                                                                                \
		const char *_v = prop(w, k);                                                \
		ATF_CHECK_MSG(_v &&strcmp(_v, v) == 0, "%s: expected '%s', got '%s'", k, v, \
			      _v ? _v : "(unset)");                                         \
	} while (0)
#define CHECK_NOPROP(w, k) \
	ATF_CHECK_MSG(prop(w, k) == NULL, "%s: expected unset, got '%s'", k, prop(w, k))

/* Apply text to an add event of vda and return the world (caller finishes it). */
static void one(struct world *w, const char *text)
{
	world_init(w, text);
	event(w, "add", VDA);
}

ATF_TC_WITHOUT_HEAD(match_keys);
ATF_TC_BODY(match_keys, tc)
{
	struct world w;

	one(&w, "ACTION==\"add\", ENV{A}=\"1\"\n"
		"ACTION!=\"add\", ENV{B}=\"1\"\n"
		"KERNEL==\"sd*|vd*\", ENV{C}=\"1\"\n"
		"KERNEL==\"sd*|xd*\", ENV{D}=\"1\"\n"
		"SUBSYSTEM==\"block\", DEVPATH==\"*/virtio0/*\", ENV{E}=\"1\"\n"
		"ENV{DEVTYPE}==\"disk\", ENV{NOPE}==\"\", ENV{F}=\"1\"\n"
		"ENV{DEVTYPE}==\"?*\", ENV{NOPE}!=\"?*\", ENV{G}=\"1\"\n"
		"ENV{NOPE}==\"|x\", ENV{H}=\"1\"\n"
		"DRIVER==\"\", ENV{I}=\"1\"\n"
		"ATTR{size}==\"2048\", ENV{J}=\"1\"\n"
		"ATTR{size}==\"2048  \", ENV{K}=\"1\"\n"
		"ATTR{md/array_state}==\"clean\", ENV{L}=\"1\"\n"
		"ATTR{md/link}==\"secret\", ENV{M}=\"1\"\n"
		"ATTR{absent}!=\"x\", ENV{N}=\"1\"\n"
		"SUBSYSTEM==\"subsystem\", ENV{O}=\"1\"\n"
		"CONST{virt}==\"none\", ENV{P}=\"1\"\n");
	CHECK_PROP(&w, "A", "1");
	CHECK_NOPROP(&w, "B");
	CHECK_PROP(&w, "C", "1");
	CHECK_NOPROP(&w, "D");
	CHECK_PROP(&w, "E", "1");
	CHECK_PROP(&w, "F", "1");
	CHECK_PROP(&w, "G", "1");
	CHECK_PROP(&w, "H", "1");
	CHECK_PROP(&w, "I", "1");
	CHECK_PROP(&w, "J", "1");
	CHECK_PROP(&w, "K", "1"); /* trailing blanks in the pattern: compared untrimmed */
	CHECK_PROP(&w, "L", "1");
	CHECK_PROP(&w, "M", "1"); /* a symlink attribute reads as its target's name */
	CHECK_NOPROP(&w, "N");    /* a missing attribute never matches, even with != */
	CHECK_NOPROP(&w, "O");
	CHECK_PROP(&w, "P", "1");
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(parent_keys);
ATF_TC_BODY(parent_keys, tc)
{
	struct world w;

	one(&w, "KERNELS==\"virtio0\", DRIVERS==\"virtio_blk\", ENV{A}=\"%b $driver\"\n"
		"SUBSYSTEMS==\"pci\", ATTRS{vendor}==\"0x1af4\", ENV{B}=\"$id $attr{vendor}\"\n"
		"SUBSYSTEMS==\"pci\", DRIVERS==\"virtio_blk\", ENV{C}=\"1\"\n"
		"KERNELS==\"vda\", SUBSYSTEMS==\"block\", ENV{D}=\"%b\"\n"
		"ATTRS{features}==\"0110\", KERNEL==\"vda\", ENV{E}=\"$attr{features}\"\n");
	CHECK_PROP(&w, "A", "virtio0 virtio_blk");
	CHECK_PROP(&w, "B", "0000:00:01.0 0x1af4");
	CHECK_NOPROP(&w, "C"); /* all parent keys must hold on one device */
	CHECK_PROP(&w, "D", "vda");
	CHECK_PROP(&w, "E", "0110"); /* $attr falls back to the matched parent */
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(substitutions);
ATF_TC_BODY(substitutions, tc)
{
	struct world w;

	one(&w,
	    "ENV{A}=\"%k|$kernel|%n|%p|$devpath|%M:%m|$major:$minor|%N|$devnode|%D|$name\"\n"
	    "ENV{B}=\"%r|$root|%S|%%|$$|$attr{size}|%s{size}|%E{DEVTYPE}|$env{DEVTYPE}|$sysfs{size}\"\n"
	    "ENV{C}=\"$unknown %z $env{NOPE}x\"\n"
	    "SYMLINK+=\"one\", SYMLINK+=\"two\"\n"
	    "ENV{D}=\"$links|%L\"\n"
	    "ENV{E}=\"$tempnode $number\"\n"
	    "ENV{F}=\"$env{A\"\n");
	CHECK_PROP(&w, "A", "vda|vda||" VDA "|" VDA "|254:0|254:0|/dev/vda|/dev/vda|vda|vda");
	{
		char b[PATH_MAX * 2];

		snprintf(b, sizeof(b), "/dev|/dev|%s|%%|$|2048|2048|disk|disk|2048", sysfs_abs);
		CHECK_PROP(&w, "B", b);
	}
	CHECK_PROP(&w, "C", "$unknown %z x");
	CHECK_PROP(&w, "D", "one two|one two");
	CHECK_PROP(&w, "E", "/dev/vda ");
	/* a substitution missing its '}' ends the value there (empty: unset by 257) */
#if UDEV_COMPAT >= 257
	CHECK_NOPROP(&w, "F");
#else
	CHECK_PROP(&w, "F", "");
#endif
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(program_result);
ATF_TC_BODY(program_result, tc)
{
	struct world w;

	one(&w, "PROGRAM=\"/bin/echo ' alpha beta   gamma '\", ENV{A}=\"%c\", ENV{B}=\"%c{2}\", "
		"ENV{C}=\"%c{2+}\", ENV{D}=\"$result{3}\", ENV{E}=\"%c{9}\"\n"
		"PROGRAM==\"/bin/false\", ENV{F}=\"1\"\n"
		"PROGRAM!=\"/bin/false\", ENV{G}=\"1\"\n"
		"PROGRAM=\"/bin/echo one\", RESULT==\"one|two\", ENV{H}=\"1\"\n"
		"PROGRAM=\"/bin/echo one\", RESULT==\"t*\", ENV{I}=\"1\"\n"
		"PROGRAM=\"/bin/sh -c 'echo \\\"$$DEVNAME\\\" $$SEQNUM'\", ENV{J}=\"%c\"\n"
		"PROGRAM=\"/bin/sh -c 'printf \\\"a/b\\\\001c\\\"'\", ENV{K}=\"%c\"\n");
	CHECK_PROP(&w, "A", " alpha beta   gamma ");
	CHECK_PROP(&w, "B", "beta");
	CHECK_PROP(&w, "C", "beta   gamma ");
	CHECK_PROP(&w, "D", "gamma");
#if UDEV_COMPAT >= 257
	CHECK_NOPROP(&w, "E"); /* empty: unset by 257 */
#else
	CHECK_PROP(&w, "E", "");
#endif
	CHECK_NOPROP(&w, "F");
	CHECK_PROP(&w, "G", "1");
	CHECK_PROP(&w, "H", "1");
	CHECK_NOPROP(&w, "I");
	CHECK_PROP(&w, "J", "/dev/vda 7"); /* the event's properties are the environment */
	CHECK_PROP(&w, "K", "a/b_c");      /* odd bytes of a result replaced, '/' kept */
	world_fini(&w);
}

/* A relative program is looked up in libexec and must stay there; a cut path is never run. */
ATF_TC_WITHOUT_HEAD(relative_programs);
ATF_TC_BODY(relative_programs, tc)
{
	static char text[4096];
	char dots[1100] = "";
	struct world w;

	/* "/bin/" + dots + "true" is exactly what fits in RULES_PATH_MAX - 1 */
	for (size_t n = strlen("/bin/") + strlen("true"); n + 2 <= RULES_PATH_MAX - 1; n += 2)
		strcat(dots, "./");
	snprintf(text, sizeof(text),
		 "PROGRAM==\"true\", ENV{BARE}=\"1\"\n"
		 "PROGRAM==\"./true\", ENV{DOT}=\"1\"\n"
		 "PROGRAM==\"../../../../../../../../../../bin/true\", ENV{UP}=\"1\"\n"
		 "PROGRAM==\"x/../true\", ENV{UP2}=\"1\"\n"
		 "PROGRAM==\"%strue-is-cut-here\", ENV{CUT}=\"1\"\n",
		 dots);
	world_init(&w, text);
	w.ctx.libexec = "/bin";
	event(&w, "add", VDA);
	CHECK_PROP(&w, "BARE", "1");
	CHECK_PROP(&w, "DOT", "1");
	CHECK_NOPROP(&w, "UP");
	CHECK_NOPROP(&w, "UP2");
	CHECK_NOPROP(&w, "CUT");
	world_fini(&w);
}

static int event_with_devname(struct world *w, const char *devpath, const char *devname)
{
	char d[512], n[512];
	const char *env[] = { "ACTION=add", d, "SUBSYSTEM=block", "MAJOR=254", "MINOR=0", n };

	snprintf(d, sizeof(d), "DEVPATH=%s", devpath);
	snprintf(n, sizeof(n), "DEVNAME=%s", devname);
	return rules_event_init(&w->ev, env, sizeof(env) / sizeof(env[0]), NULL);
}

/* An absolute DEVNAME counts only as "/dev/" and a name inside /dev, from the event or sysfs. */
ATF_TC_WITHOUT_HEAD(devname_below_dev);
ATF_TC_BODY(devname_below_dev, tc)
{
	static const char *const bad[] = { "/x", "/dev/", "/dev", "/devx", "/dev/../etc/shadow",
					   "../x", "a/../../x", "/dev//x" };
	struct world w;

	world_init(&w, "ENV{P}=\"[%P]\", ENV{N}=\"[%N]\", ENV{K}=\"[$name]\"\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_EQ_MSG(event_with_devname(&w, VDA, bad[i]), -EINVAL, "DEVNAME=%s",
				 bad[i]);
	ATF_REQUIRE_EQ(event_with_devname(&w, VDA, "/dev/vda"), 0);
	ATF_REQUIRE_EQ(rules_apply(&w.r, &w.ctx, &w.ev), 0);
	CHECK_PROP(&w, "N", "[/dev/vda]");
	CHECK_PROP(&w, "K", "[vda]");
	rules_event_free(&w.ev);
	ATF_REQUIRE_EQ(event_with_devname(&w, VDA1, "vda1"), 0);
	CHECK_PROP(&w, "DEVNAME", "/dev/vda1");
	rules_event_free(&w.ev);
	/* a parent whose uevent file names a node outside /dev has none for %P */
	for (size_t i = 0; i < 2; i++) {
		fx_text(ROOT, VDA "/uevent", i ? "MAJOR=254\nMINOR=0\nDEVNAME=/x\n"
					       : "MAJOR=254\nMINOR=0\nDEVNAME=/dev/../../etc\n");
		ATF_REQUIRE_EQ(event_with_devname(&w, VDA1, "vda1"), 0);
		ATF_REQUIRE_EQ(rules_apply(&w.r, &w.ctx, &w.ev), 0);
		CHECK_PROP(&w, "P", "[]");
		rules_event_free(&w.ev);
	}
	world_fini(&w);
}

/* Event, file and program text in log lines is escaped: a newline cannot start a line. */
ATF_TC_WITHOUT_HEAD(log_lines_escaped);
ATF_TC_BODY(log_lines_escaped, tc)
{
	static const char text[] = "TAG+=\"$env{X}\"\n"
				   "OWNER=\"$env{X}\", GROUP=\"$env{X}\", MODE=\"$env{X}\"\n"
				   "PROGRAM==\"/nonexistent/$env{X}\"\n"
				   "IMPORT{file}=\"/nonexistent/$env{X}\"\n"
				   "IMPORT{builtin}=\"hwdb $env{X}\"\n"
				   "ATTR{size}=\"$env{X}\"\n"
				   "RUN+=\"/bin/sh -c 'exit 3' $env{X}\"\n";
	const char *env[] = { "ACTION=add", "DEVPATH=" VDA, "SUBSYSTEM=block", "MAJOR=254",
			      "MINOR=0", "DEVNAME=vda", "X=x\nFORGED: y" };
	struct logger log = { .max_level = LOG_DEBUG, .ident = "t", .echo_fd = -1 };
	char line[2048];
	unsigned int lines = 0;
	struct world w;
	FILE *f;

	world_init(&w, "");
	log.fd = open("log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ATF_REQUIRE(log.fd >= 0);
	w.ctx.log = &log;
	ATF_REQUIRE_EQ(rules_parse_text(&w.r, "evil\nFORGED.rules", text, strlen(text)), 0);
	ATF_REQUIRE_EQ(rules_event_init(&w.ev, env, sizeof(env) / sizeof(env[0]), NULL), 0);
	ATF_REQUIRE_EQ(rules_apply(&w.r, &w.ctx, &w.ev), 0);
	ATF_CHECK_EQ(rules_run_list(&w.ctx, &w.ev), 1);
	close(log.fd);
	f = fopen("log", "r");
	ATF_REQUIRE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		lines++;
		ATF_CHECK_MSG(strncmp(line, "t: vda: ", 8) == 0, "a line that is not ours: %s", line);
		/* RUN lines are logged without their rules line */
		ATF_CHECK_MSG(strncmp(line + 8, "evil\\x0aFORGED.rules:", 21) == 0 ||
				      strncmp(line + 8, "'/bin/sh", 8) == 0,
			      "file name: %s", line);
		ATF_CHECK_MSG(strstr(line, "x\\x0aFORGED: y") != NULL, "unescaped: %s", line);
	}
	fclose(f);
	/* tag, owner, group, mode, program, builtin, attribute, RUN (a missing file is quiet) */
	ATF_CHECK_EQ_MSG(lines, 8, "%u log lines", lines);
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(imports);
ATF_TC_BODY(imports, tc)
{
	struct world w;
	char cwd[PATH_MAX];
	FILE *f = fopen("props", "w");

	ATF_REQUIRE(f != NULL);
	fputs("# comment\nFROM_FILE=yes\n  SPACED = ' quoted '\nEMPTY=\nnoequals\n", f);
	fclose(f);
	f = fopen("prog.sh", "w");
	ATF_REQUIRE(f != NULL);
	fputs("#!/bin/sh\necho X=1\necho 'Y = \"two words\"'\necho Z=\n", f);
	fclose(f);
	ATF_REQUIRE_EQ(chmod("prog.sh", 0755), 0);
	world_init(&w, "IMPORT{program}=\"prog.sh\"\n"
		       "IMPORT{file}=\"props\"\n"
		       "IMPORT{file}=\"absent\", ENV{NOFILE}=\"1\"\n"
		       "IMPORT{cmdline}=\"rd.md\"\n"
		       "IMPORT{cmdline}=\"quiet\"\n"
		       "IMPORT{cmdline}=\"rd_lvm.vg\"\n"
		       "IMPORT{cmdline}=\"absent\", ENV{NOCMD}=\"1\"\n"
		       "IMPORT{builtin}=\"blkid --noraid\"\n"
		       "IMPORT{builtin}=\"blkid second\"\n"
		       "IMPORT{program}=\"path_id\"\n"
		       "IMPORT{builtin}=\"hwdb\", ENV{HWDB}=\"1\"\n"
		       "IMPORT{builtin}!=\"hwdb\", ENV{NOHWDB}=\"1\"\n"
		       "IMPORT{parent}=\"VIRTIO_*\"\n"
		       "IMPORT{program}=\"/nonexistent/prog\", ENV{NOPROG}=\"1\"\n");
	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	w.ctx.libexec = cwd; /* a relative program is looked up there */
	event(&w, "add", VDA);
	CHECK_PROP(&w, "X", "1");
	CHECK_PROP(&w, "Y", "two words");
	CHECK_NOPROP(&w, "Z");
	CHECK_PROP(&w, "FROM_FILE", "yes");
	CHECK_PROP(&w, "SPACED", " quoted ");
	CHECK_NOPROP(&w, "EMPTY");
	CHECK_NOPROP(&w, "NOFILE");
	CHECK_PROP(&w, "rd.md", "0");
	CHECK_PROP(&w, "quiet", "1");
	CHECK_PROP(&w, "rd_lvm.vg", "vg0"); /* '-' and '_' are one, '.' is not */
	CHECK_NOPROP(&w, "NOCMD");
	CHECK_PROP(&w, "ID_FS_TYPE", "--noraid"); /* blkid runs once per event */
	CHECK_PROP(&w, "ID_PATH", "pci-0000:00:01.0");
	CHECK_NOPROP(&w, "HWDB");
	CHECK_PROP(&w, "NOHWDB", "1");
	CHECK_PROP(&w, "VIRTIO_X", "1");
	CHECK_NOPROP(&w, "NOPROG");
	ATF_CHECK_EQ(w.builtin_calls, 4); /* blkid once, path_id, hwdb twice */
	world_fini(&w);
}

/*
 * A property a rule or an import sets to "": udev 252 keeps KEY= (event and
 * database), udev 257 unsets it (the build's UDEV_COMPAT says which). A
 * match on the empty value holds either way.
 */
ATF_TC_WITHOUT_HEAD(empty_values);
ATF_TC_BODY(empty_values, tc)
{
	struct world w;
	char cwd[PATH_MAX];
	FILE *f = fopen("empty.sh", "w");

	ATF_REQUIRE(f != NULL);
	fputs("#!/bin/sh\necho \"C=''\"\necho 'D=\"\"'\n", f);
	fclose(f);
	ATF_REQUIRE_EQ(chmod("empty.sh", 0755), 0);
	world_init(&w, "ENV{A}=\"$env{NOPE}\"\n"
		       "ENV{B}=\"x\"\n"
		       "ENV{B}=\"$env{NOPE}\"\n"
		       "IMPORT{program}=\"empty.sh\"\n"
		       "ENV{A}==\"\", ENV{B}==\"\", ENV{C}==\"\", ENV{D}==\"\", ENV{F}=\"1\"\n");
	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	w.ctx.libexec = cwd;
	event(&w, "add", VDA);
#if UDEV_COMPAT >= 257
	CHECK_NOPROP(&w, "A");
	CHECK_NOPROP(&w, "B");
	CHECK_NOPROP(&w, "C");
	CHECK_NOPROP(&w, "D");
#else
	CHECK_PROP(&w, "A", "");
	CHECK_PROP(&w, "B", "");
	CHECK_PROP(&w, "C", "");
	CHECK_PROP(&w, "D", "");
#endif
	CHECK_PROP(&w, "F", "1");
	CHECK_PROP(&w, "DEVTYPE", "disk"); /* the event's own, untouched */
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(test_key);
ATF_TC_BODY(test_key, tc)
{
	struct world w;

	one(&w, "TEST==\"md/array_state\", ENV{A}=\"1\"\n"
		"TEST!=\"md/absent\", ENV{B}=\"1\"\n"
		"TEST{0200}==\"size\", ENV{C}=\"1\"\n"
		"TEST{0001}==\"size\", ENV{D}=\"1\"\n"
		"TEST==\"/bin/sh\", ENV{E}=\"1\"\n"
		"TEST==\"%S%p/size\", ENV{F}=\"1\"\n"
		"TEST==\"[block/vda]size\", ENV{G}=\"1\"\n");
	CHECK_PROP(&w, "A", "1");
	CHECK_PROP(&w, "B", "1");
	CHECK_PROP(&w, "C", "1");
	CHECK_NOPROP(&w, "D");
	CHECK_PROP(&w, "E", "1");
	CHECK_PROP(&w, "F", "1");
	CHECK_PROP(&w, "G", "1");
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(goto_label);
ATF_TC_BODY(goto_label, tc)
{
	struct world w;

	one(&w, "KERNEL==\"vda\", GOTO=\"skip\"\n"
		"ENV{SKIPPED}=\"1\"\n"
		"LABEL=\"skip\"\n"
		"ENV{AFTER}=\"1\"\n"
		"KERNEL==\"sda\", GOTO=\"end\"\n"
		"ENV{NOT_SKIPPED}=\"1\"\n"
		"LABEL=\"end\"\n"
		"GOTO=\"label_line\"\n"
		"ENV{SKIPPED2}=\"1\"\n"
		"LABEL=\"label_line\", ENV{ON_LABEL}=\"1\"\n");
	CHECK_NOPROP(&w, "SKIPPED");
	CHECK_PROP(&w, "AFTER", "1");
	CHECK_PROP(&w, "NOT_SKIPPED", "1");
	CHECK_NOPROP(&w, "SKIPPED2");
	CHECK_PROP(&w, "ON_LABEL", "1");
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(assignments);
ATF_TC_BODY(assignments, tc)
{
	struct world w;

	one(&w, "ENV{A}=\"one\", ENV{A}+=\"two\", ENV{B}+=\"x\", ENV{C}=\"gone\", ENV{C}=\"\"\n"
		"ENV{D}:=\"final-is-assign\"\n"
		"ENV{.TMP}=\"hidden\"\n"
		"TAG+=\"t1\", TAG+=\"t2\", TAG-=\"t1\", TAG+=\"bad tag\"\n"
		"TAG==\"t2\", ENV{HAS_T2}=\"1\"\n"
		"TAG==\"t1\", ENV{HAS_T1}=\"1\"\n"
		"OWNER=\"0\", GROUP=\"0\", MODE=\"0640\"\n"
		"MODE:=\"0600\"\n"
		"MODE=\"0666\", OWNER:=\"1\"\n"
		"OWNER=\"2\"\n"
		"OPTIONS+=\"link_priority=-100\", OPTIONS+=\"db_persist\", OPTIONS:=\"nowatch\"\n"
		"OPTIONS+=\"watch\", OPTIONS+=\"bogus\"\n"
		"RUN+=\"/bin/a $kernel\", RUN+=\"/bin/b\", RUN{builtin}+=\"kmod load x\"\n"
		"RUN=\"/bin/c\", RUN+=\"/bin/d\"\n"
		"RUN:=\"/bin/e\"\n"
		"RUN+=\"/bin/f\"\n");
	CHECK_PROP(&w, "A", "one two");
	CHECK_PROP(&w, "B", "x");
	CHECK_NOPROP(&w, "C");
	CHECK_PROP(&w, "D", "final-is-assign");
	CHECK_PROP(&w, ".TMP", "hidden");
	CHECK_PROP(&w, "TAGS", ":t1:t2:");
	CHECK_PROP(&w, "CURRENT_TAGS", ":t2:");
	CHECK_PROP(&w, "HAS_T2", "1");
	CHECK_NOPROP(&w, "HAS_T1");
	ATF_CHECK_EQ(w.ev.uid, 1);
	ATF_CHECK_EQ(w.ev.gid, 0);
	ATF_CHECK_EQ(w.ev.mode, 0600);
	ATF_CHECK_EQ(w.ev.link_priority, -100);
	ATF_CHECK(w.ev.db_persist);
	ATF_CHECK_EQ(w.ev.watch, 0);
	ATF_REQUIRE_EQ(w.ev.nrun, 1);
	ATF_CHECK_STREQ(w.ev.run[0].cmd, "/bin/e");
	world_fini(&w);

	one(&w, "RUN+=\"/bin/a $kernel\", RUN{builtin}+=\"kmod load x\", RUN{program}+=\"p\"\n");
	/* tokens run sorted by type: RUN{builtin} before RUN{program} on one line */
	ATF_REQUIRE_EQ(w.ev.nrun, 3);
	ATF_CHECK_EQ(w.ev.run[0].builtin, RB_KMOD);
	ATF_CHECK_STREQ(w.ev.run[1].cmd, "/bin/a vda");
	ATF_CHECK_EQ(w.ev.run[1].builtin, -1);
	ATF_CHECK_STREQ(w.ev.run[2].cmd, "p");
	world_fini(&w);
}

/* udev-test.pl "TEST PROGRAM feeds OWNER, GROUP, MODE": a substituted id is a number first */
ATF_TC_WITHOUT_HEAD(owner_group_numbers_from_substitution);
ATF_TC_BODY(owner_group_numbers_from_substitution, tc)
{
	struct world w;

	one(&w, "PROGRAM=\"/bin/echo 4242 4343\", OWNER=\"%c{1}\", GROUP=\"%c{2}\"\n");
	ATF_CHECK_EQ(w.ev.uid, 4242);
	ATF_CHECK_EQ(w.ev.gid, 4343);
	world_fini(&w);

	/* a name still resolves; past the id range it is a name, unknown: nothing set */
	one(&w, "ENV{G}=\"root\", ENV{U}=\"4294967295\"\nGROUP=\"$env{G}\", OWNER=\"$env{U}\"\n");
	ATF_CHECK_EQ(w.ev.gid, 0);
	ATF_CHECK_EQ(w.ev.uid, (uid_t)-1);
	world_fini(&w);
}

/* udev-test.pl "don't crash with lots of tags": 10,000 tags, the event whole */
ATF_TC_WITHOUT_HEAD(ten_thousand_tags);
ATF_TC_BODY(ten_thousand_tags, tc)
{
	size_t size = 10000 * 32 + 1, w_ = 0;
	char *text = malloc(size);
	struct world w;
	const char *tags;

	ATF_REQUIRE(text != NULL);
	for (int i = 1; i <= 10000; i++)
		w_ += (size_t)snprintf(text + w_, size - w_, "KERNEL==\"vda\", TAG+=\"test%d\"\n", i);
	one(&w, text);
	ATF_CHECK_EQ(w.ev.tags.n, 10000);
	tags = prop(&w, "TAGS");
	ATF_REQUIRE(tags != NULL);
	ATF_CHECK(strncmp(tags, ":test1:test2:", 13) == 0);
	ATF_CHECK(strstr(tags, ":test10000:") != NULL);
	world_fini(&w);
	free(text);
}

/* Each list is bounded by its memory: a name past STRV_BYTES_MAX is refused, not kept. */
ATF_TC_WITHOUT_HEAD(list_bounded_by_bytes);
ATF_TC_BODY(list_bounded_by_bytes, tc)
{
	struct strv l = STRV_INIT;
	char big[PROPS_VALUE_MAX];
	int r = 0;
	size_t i;

	memset(big, 'x', sizeof(big) - 8);
	for (i = 0; r >= 0 && i < 200; i++) {
		snprintf(big + sizeof(big) - 8, 8, "%zu", i);
		r = strv_add(&l, big);
	}
	ATF_CHECK_EQ(r, -E2BIG);
	ATF_CHECK(l.n > 0 && l.n < 200);
	ATF_CHECK(l.bytes <= STRV_BYTES_MAX);
	strv_remove(&l, l.v[0]);
	ATF_CHECK(strv_add(&l, big) == 1); /* room again */
	strv_clear(&l);
}

ATF_TC_WITHOUT_HEAD(symlinks);
ATF_TC_BODY(symlinks, tc)
{
	struct world w;

	one(&w, "SYMLINK+=\"disk/by-x/$attr{serial}\"\n"
		"ENV{V}=\"a b/c\"\n"
		"SYMLINK+=\"plain/$env{V}  second\"\n"
		"OPTIONS+=\"string_escape=replace\", SYMLINK+=\"rep/$env{V}\"\n"
		"OPTIONS+=\"string_escape=none\", SYMLINK+=\"none/$env{V}\"\n"
		"SYMLINK==\"second\", ENV{HAS}=\"1\"\n"
		"SYMLINK==\"absent\", ENV{NOT}=\"1\"\n");
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/disk/by-x/SER_1/../_x"));
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/plain/a_b/c"));
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/second"));
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/rep/a_b/c"));
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/none/a"));
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/b/c"));
	CHECK_PROP(&w, "HAS", "1");
	CHECK_NOPROP(&w, "NOT");
	/* the ".." from sysfs is kept as udev keeps it: the link code refuses it */
	ATF_CHECK(!rules_link_valid("/dev/disk/by-x/SER_1/../_x"));
	ATF_CHECK(rules_link_valid("/dev/plain/a_b/c"));
	world_fini(&w);

	one(&w, "SYMLINK+=\"a\", SYMLINK=\"b\", SYMLINK:=\"c\"\nSYMLINK+=\"d\"\n");
	ATF_CHECK_EQ(w.ev.links.n, 1);
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/c"));
	world_fini(&w);
}

/* Lines that only name links or permissions do nothing without a device node or on remove. */
ATF_TC_WITHOUT_HEAD(line_mask);
ATF_TC_BODY(line_mask, tc)
{
	struct world w;
	const char *env[] = { "ACTION=add", "DEVPATH=" VIRTIO, "SUBSYSTEM=virtio" };

	world_init(&w, "KERNEL==\"virtio0\", SYMLINK+=\"x\", MODE=\"0600\"\n"
		       "KERNEL==\"virtio0\", ENV{SEEN}=\"1\"\n");
	ATF_REQUIRE_EQ(rules_event_init(&w.ev, env, 3, NULL), 0);
	ATF_REQUIRE_EQ(rules_apply(&w.r, &w.ctx, &w.ev), 0);
	ATF_CHECK_EQ(w.ev.links.n, 0);
	ATF_CHECK_EQ(w.ev.mode, (mode_t)-1);
	CHECK_PROP(&w, "SEEN", "1");
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(persistence);
ATF_TC_BODY(persistence, tc)
{
	struct world w;

	world_init(&w,
		   "ACTION==\"add\", ENV{SET_ON_ADD}=\"1\", ENV{.TMP}=\"x\", TAG+=\"seen\", SYMLINK+=\"keep\"\n"
		   "ACTION==\"change\", IMPORT{db}=\"SET_ON_ADD\", IMPORT{db}=\".TMP\"\n"
		   "ACTION==\"change\", IMPORT{db}=\"ABSENT\", ENV{NODB}=\"1\"\n"
		   "ACTION==\"remove\", ENV{SET_ON_ADD}==\"1\", ENV{REMOVE_SAW}=\"1\"\n");
	event(&w, "add", VDA);
	ATF_REQUIRE_EQ(rules_db_store(&w.db, &w.ev), 0);
	rules_event_free(&w.ev);

	event(&w, "change", VDA);
	CHECK_PROP(&w, "SET_ON_ADD", "1"); /* only through IMPORT{db} */
	CHECK_NOPROP(&w, ".TMP");          /* dot properties are not persisted */
	CHECK_NOPROP(&w, "NODB");
	CHECK_PROP(&w, "TAGS", ":seen:"); /* tags carry over */
	CHECK_NOPROP(&w, "CURRENT_TAGS");
	ATF_REQUIRE_EQ(rules_db_store(&w.db, &w.ev), 0);
	rules_event_free(&w.ev);

	event(&w, "change", VDA);
	CHECK_PROP(&w, "SET_ON_ADD", "1"); /* imported again: kept from the last event */
	ATF_REQUIRE_EQ(rules_db_store(&w.db, &w.ev), 0);
	rules_event_free(&w.ev);

	event(&w, "remove", VDA);
	CHECK_PROP(&w, "REMOVE_SAW", "1");                           /* remove sees the record */
	ATF_CHECK(strv_contains(&w.ev.links, "/dev/keep") == false); /* change dropped it */
	ATF_REQUIRE_EQ(rules_db_store(&w.db, &w.ev), 0);
	ATF_CHECK_EQ(rules_db_count(&w.db), 0);
	world_fini(&w);
}

ATF_TC_WITHOUT_HEAD(hostile_values);
ATF_TC_BODY(hostile_values, tc)
{
	static char big[6000], text[8000];
	struct world w;

	memset(big, 'A', 4096);
	memcpy(big + 100, "/../..\n$x'\"", 11);
	big[4096] = '\0';
	fx_text(ROOT, VDA "/hostile", big);
	snprintf(text, sizeof(text),
		 "ENV{H}=\"$attr{hostile}\"\n"
		 "ENV{S}=\"x\"\n"
		 "IMPORT{program}=\"/bin/sh -c 'printf S=; head -c 20000 /dev/zero | tr -c x a'\"\n"
		 "SYMLINK+=\"by-h/$attr{hostile}\"\n"
		 "ENV{L}=\"$links\"\n"
		 "PROGRAM=\"/bin/echo $attr{serial}\", ENV{R}=\"%%c\"\n"
		 "RUN+=\"/bin/echo $attr{serial}\"\n");
	one(&w, text);
	/* a 4 KiB attribute does not fit udev's 512-byte value: the assignment is refused */
	CHECK_NOPROP(&w, "H");
	ATF_CHECK_EQ(w.ev.links.n, 0);
	/* imported values are bounded */
	ATF_REQUIRE(prop(&w, "S") != NULL);
	ATF_CHECK(strlen(prop(&w, "S")) > 10000 && strlen(prop(&w, "S")) < PROPS_VALUE_MAX);
	/* the serial's '$' stays a character (no expansion, no shell); its blank splits
	 * words only as udev splits them */
	CHECK_PROP(&w, "R", "SER 1/../$x");
	ATF_REQUIRE_EQ(w.ev.nrun, 1);
	ATF_CHECK_STREQ(w.ev.run[0].cmd, "/bin/echo SER 1/../$x");
	world_fini(&w);
}

/* The first line of path (newline dropped); false if unreadable. */
static bool read_first(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(buf, (int)size, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* ATTR{}= and SYSCTL{}= write (below the sysfs and /proc/sys roots), SYSCTL== reads, NAME for
 * network interfaces, TAGS and $parent from the parent's record, log_level. */
ATF_TC_WITHOUT_HEAD(writes_names_parents);
ATF_TC_BODY(writes_names_parents, tc)
{
	struct world w;
	struct rules_event pev;
	const char *penv[] = { "ACTION=add", "DEVPATH=" VIRTIO, "SUBSYSTEM=virtio" };
	const char *net[] = { "ACTION=add", "DEVPATH=/devices/virtual/net/eth9", "SUBSYSTEM=net",
			      "INTERFACE=eth9", "IFINDEX=9" };
	char buf[64];

	fx_dir("proc", "/kernel");
	fx_text("proc", "/kernel/foo", " 7 \n");
	fx_text(ROOT, VDA "/queue_depth", "1\n");
	fx_device(ROOT, "/devices/virtual/net/eth9", "net", NULL);
	world_init(&w,
		   "SUBSYSTEM==\"virtio\", TAG+=\"vtag\"\n"
		   "SUBSYSTEM==\"block\", ATTR{queue_depth}=\"%k-32\", SYSCTL{kernel.foo}=\"$env{DEVTYPE}\"\n"
		   "SUBSYSTEM==\"block\", SYSCTL{kernel/bar}==\"\", ENV{NOBAR}=\"1\"\n"
		   "SUBSYSTEM==\"block\", TAGS==\"vtag\", ENV{PTAG}=\"1\", ENV{P}=\"%P|$parent\"\n"
		   "SUBSYSTEM==\"block\", OPTIONS+=\"log_level=debug\"\n"
		   "SUBSYSTEM==\"net\", NAME=\"lan%n\", SYMLINK+=\"never\"\n"
		   "SUBSYSTEM==\"net\", NAME==\"lan9\", ENV{RENAMED}=\"1\"\n");
	w.ctx.procsys = "proc";
	w.ctx.no_writes = false;
	/* the parent's event first: its tag is in its record */
	ATF_REQUIRE_EQ(rules_event_init(&pev, penv, 3, NULL), 0);
	ATF_REQUIRE_EQ(rules_apply(&w.r, &w.ctx, &pev), 0);
	ATF_REQUIRE_EQ(rules_db_store(&w.db, &pev), 0);
	rules_event_free(&pev);
	/* the sysctl is read before it is written: a line's matches come first */
	event(&w, "add", VDA);
	ATF_REQUIRE(read_first(ROOT VDA "/queue_depth", buf, sizeof(buf)));
	ATF_CHECK_STREQ(buf, "vda-32");
	ATF_REQUIRE(read_first("proc/kernel/foo", buf, sizeof(buf)));
	ATF_CHECK_STREQ(buf, "disk");
	CHECK_PROP(&w, "NOBAR", "1");
	CHECK_PROP(&w, "PTAG", "1");
	CHECK_PROP(&w, "P", "|"); /* the parent (virtio0) has no node */
	ATF_CHECK_EQ(w.ev.log_level, 7);
	rules_event_free(&w.ev);
	ATF_REQUIRE_EQ(rules_event_init(&w.ev, net, 5, NULL), 0);
	ATF_REQUIRE_EQ(rules_apply(&w.r, &w.ctx, &w.ev), 0);
	ATF_CHECK_STREQ(w.ev.name, "lan9");
	CHECK_PROP(&w, "RENAMED", "1");
	ATF_CHECK_EQ(w.ev.links.n, 0); /* no device node: SYMLINK does nothing */
	world_fini(&w);
}

/* RUN after the rules: exit status, the deadline, entries skipped after it, builtins. */
ATF_TC_WITHOUT_HEAD(run_list);
ATF_TC_BODY(run_list, tc)
{
	struct world w;
	uint64_t t0;

	one(&w, "RUN+=\"/bin/sh -c 'exit 3'\", RUN+=\"/bin/sh -c 'echo $$ACTION > ran'\"\n"
		"RUN{builtin}+=\"path_id\", RUN{builtin}+=\"hwdb\"\n");
	ATF_REQUIRE_EQ(w.ev.nrun, 4);
	/* in the order the lines gave them */
	ATF_CHECK_EQ(rules_run_list(&w.ctx, &w.ev), 2); /* hwdb fails, exit 3 fails */
	ATF_REQUIRE(read_first("ran", (char[16]){ 0 }, 16));
	world_fini(&w);

	one(&w, "RUN+=\"/bin/sleep 20\", RUN+=\"/bin/sh -c 'touch late'\"\n");
	w.ctx.deadline_usec = now_monotonic_usec() + 300000;
	t0 = now_monotonic_usec();
	ATF_CHECK_EQ(rules_run_list(&w.ctx, &w.ev), 2);
	ATF_CHECK(now_monotonic_usec() - t0 < 5000000);
	ATF_CHECK(access("late", F_OK) != 0);
	world_fini(&w);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, match_keys);
	ATF_TP_ADD_TC(tp, parent_keys);
	ATF_TP_ADD_TC(tp, substitutions);
	ATF_TP_ADD_TC(tp, program_result);
	ATF_TP_ADD_TC(tp, relative_programs);
	ATF_TP_ADD_TC(tp, devname_below_dev);
	ATF_TP_ADD_TC(tp, log_lines_escaped);
	ATF_TP_ADD_TC(tp, imports);
	ATF_TP_ADD_TC(tp, empty_values);
	ATF_TP_ADD_TC(tp, test_key);
	ATF_TP_ADD_TC(tp, goto_label);
	ATF_TP_ADD_TC(tp, assignments);
	ATF_TP_ADD_TC(tp, owner_group_numbers_from_substitution);
	ATF_TP_ADD_TC(tp, ten_thousand_tags);
	ATF_TP_ADD_TC(tp, list_bounded_by_bytes);
	ATF_TP_ADD_TC(tp, symlinks);
	ATF_TP_ADD_TC(tp, line_mask);
	ATF_TP_ADD_TC(tp, persistence);
	ATF_TP_ADD_TC(tp, hostile_values);
	ATF_TP_ADD_TC(tp, writes_names_parents);
	ATF_TP_ADD_TC(tp, run_list);
	return atf_no_error();
}
