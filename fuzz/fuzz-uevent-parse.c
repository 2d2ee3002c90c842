/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for uevent_parse: whatever bytes arrive, an accepted
 * event must satisfy everything later code relies on, and a refusal must
 * come with a printable one-line reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate/uevent.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static struct uevent ev, ev2;

static bool inside(const struct uevent *e, const char *p)
{
	return p >= e->buf && p < e->buf + e->len;
}

/* NULL, or inside buf with its whole string (and NUL) inside too. */
static void check_ptr(const char *p)
{
	if (p == NULL)
		return;
	CHECK(inside(&ev, p));
	CHECK(inside(&ev, p + strlen(p)));
}

/* The properties the parser promises for DEVPATH-like and DEVNAME paths. */
static void check_rel_path(const char *s)
{
	CHECK(s[0] != '\0' && s[0] != '/');
	CHECK(s[strlen(s) - 1] != '/');
	CHECK(strstr(s, "//") == NULL);
	for (const char *p = s; *p != '\0'; p++)
		CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
	for (const char *p = s;;) {
		size_t n = strcspn(p, "/");

		CHECK(!(n == 1 && p[0] == '.'));
		CHECK(!(n == 2 && p[0] == '.' && p[1] == '.'));
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
}

static void check_devpath(const char *s)
{
	CHECK(s[0] == '/');
	check_rel_path(s + 1);
}

static bool key_byte(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Every env entry: a valid key, unique, found by uevent_get. */
static void check_env(void)
{
	CHECK(ev.nenv >= 4 && ev.nenv <= UEVENT_ENV_MAX_VARS);
	for (size_t i = 0; i < ev.nenv; i++) {
		char key[UEVENT_KEY_MAX + 1];
		const char *eq = strchr(ev.env[i], '=');
		size_t klen;

		check_ptr(ev.env[i]);
		CHECK(eq != NULL);
		klen = (size_t)(eq - ev.env[i]);
		CHECK(klen >= 1 && klen <= UEVENT_KEY_MAX);
		for (size_t k = 0; k < klen; k++)
			CHECK(key_byte(ev.env[i][k]));
		memcpy(key, ev.env[i], klen);
		key[klen] = '\0';
		/* the first match is this one, so no earlier duplicate */
		CHECK(uevent_get(&ev, key) == eq + 1);
		if (i > 0)
			CHECK(ev.env[i] > ev.env[i - 1]);
	}
}

/* Strict decimal as the parser must have seen it. */
static uint64_t dec(const char *s)
{
	uint64_t v = 0;

	CHECK(s != NULL && s[0] != '\0');
	CHECK(s[0] != '0' || s[1] == '\0');
	for (; *s != '\0'; s++) {
		CHECK(*s >= '0' && *s <= '9');
		v = v * 10 + (uint64_t)(*s - '0');
	}
	return v;
}

static void check_fields(void)
{
	const char *action = uevent_action_name(ev.action);
	size_t alen;

	CHECK(action != NULL);
	CHECK(uevent_action_from_name(action) == (int)ev.action);
	CHECK(strcmp(uevent_get(&ev, "ACTION"), action) == 0);
	alen = strlen(action);
	CHECK(strncmp(ev.buf, action, alen) == 0 && ev.buf[alen] == '@');
	CHECK(ev.devpath != NULL && strcmp(ev.buf + alen + 1, ev.devpath) == 0);
	CHECK(uevent_get(&ev, "DEVPATH") == ev.devpath);
	check_devpath(ev.devpath);
	if (ev.devpath_old != NULL)
		check_devpath(ev.devpath_old);
	CHECK(uevent_get(&ev, "DEVPATH_OLD") == ev.devpath_old);
	CHECK(ev.subsystem != NULL && ev.subsystem[0] != '\0');
	CHECK(strchr(ev.subsystem, '/') == NULL);
	CHECK(uevent_get(&ev, "SUBSYSTEM") == ev.subsystem);
	CHECK(dec(uevent_get(&ev, "SEQNUM")) == ev.seqnum);
	CHECK(uevent_get(&ev, "DEVTYPE") == ev.devtype);
	CHECK(uevent_get(&ev, "MODALIAS") == ev.modalias);
	CHECK(uevent_get(&ev, "DRIVER") == ev.driver);
	CHECK(uevent_get(&ev, "SYNTH_UUID") == ev.synth_uuid);
	if (ev.synth_uuid != NULL)
		CHECK(strcmp(ev.synth_uuid, "0") == 0 || strlen(ev.synth_uuid) == 36);
}

static void check_device(void)
{
	CHECK(uevent_get(&ev, "DEVNAME") == ev.devname);
	if (ev.devname != NULL) {
		check_rel_path(ev.devname);
		CHECK(strlen(ev.devname) <= UEVENT_DEVNAME_MAX);
		CHECK(ev.has_devnum);
	}
	CHECK(ev.has_devnum == (uevent_get(&ev, "MAJOR") != NULL));
	CHECK(ev.has_devnum == (uevent_get(&ev, "MINOR") != NULL));
	if (ev.has_devnum) {
		CHECK(ev.major <= UEVENT_MAJOR_MAX && ev.minor <= UEVENT_MINOR_MAX);
		CHECK(dec(uevent_get(&ev, "MAJOR")) == ev.major);
		CHECK(dec(uevent_get(&ev, "MINOR")) == ev.minor);
	}
	CHECK(ev.has_devmode == (uevent_get(&ev, "DEVMODE") != NULL));
	CHECK(!ev.has_devmode || ev.devmode <= 07777);
	CHECK(ev.has_devuid == (uevent_get(&ev, "DEVUID") != NULL));
	CHECK(!ev.has_devuid || ev.devuid != (uid_t)-1);
	CHECK(ev.has_devgid == (uevent_get(&ev, "DEVGID") != NULL));
	CHECK(!ev.has_devgid || ev.devgid != (gid_t)-1);
	CHECK(ev.has_diskseq == (uevent_get(&ev, "DISKSEQ") != NULL));
	if (ev.has_diskseq)
		CHECK(dec(uevent_get(&ev, "DISKSEQ")) == ev.diskseq);
}

static void check_accepted(const uint8_t *data, size_t size, const char *err)
{
	size_t env_bytes;

	CHECK(err[0] == '\0');
	CHECK(size > 0 && size <= UEVENT_MSG_MAX && ev.len == size);
	CHECK(memcmp(ev.buf, data, size) == 0 && ev.buf[size] == '\0');
	env_bytes = size - strlen(ev.buf) - 1;
	CHECK(env_bytes <= UEVENT_ENV_MAX_BYTES);
	check_env();
	check_fields();
	check_device();
	check_ptr(ev.devpath);
	check_ptr(ev.subsystem);
	check_ptr(ev.devname);
	check_ptr(ev.devpath_old);
	check_ptr(ev.devtype);
	check_ptr(ev.modalias);
	check_ptr(ev.driver);
	check_ptr(ev.synth_uuid);
}

/* A refusal: printable one-line reason and nothing left to misuse. */
static void check_refused(const char *err, size_t errlen)
{
	size_t n = strnlen(err, errlen);

	CHECK(n > 0 && n < errlen);
	for (size_t i = 0; i < n; i++)
		CHECK(err[i] >= 0x20 && err[i] < 0x7f);
	CHECK(ev.nenv == 0 && ev.devpath == NULL && ev.len == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160], tiny[5];
	enum uevent_parse_result r;

	memset(err, 'X', sizeof(err));
	r = uevent_parse(&ev, data, size, err, sizeof(err));
	/* same verdict without an error buffer and with a cramped one */
	CHECK(uevent_parse(&ev2, data, size, NULL, 0) == r);
	memset(tiny, 'X', sizeof(tiny));
	CHECK(uevent_parse(&ev2, data, size, tiny, sizeof(tiny)) == r);
	CHECK(memchr(tiny, '\0', sizeof(tiny)) != NULL);

	if (r == UEVENT_PARSE_UDEV_FRAMING)
		CHECK(size >= 8 && memcmp(data, "libudev", 8) == 0);
	else if (r == UEVENT_PARSE_OK)
		check_accepted(data, size, err);
	else if (r == UEVENT_PARSE_MALFORMED)
		check_refused(err, sizeof(err));
	else
		abort();
	return 0;
}
