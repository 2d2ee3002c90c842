/* SPDX-License-Identifier: MIT */
/*
 * A parsed kernel uevent, bounded by the kernel's own limits.
 *
 * The parser copies the payload into the struct and points into that copy,
 * so an event never allocates and never outlives its bytes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Largest datagram read from the socket; anything longer is truncated. */
#define UEVENT_MSG_MAX 8192
/* The kernel's UEVENT_BUFFER_SIZE: bytes of KEY=VALUE\0 after the header. */
#define UEVENT_ENV_MAX_BYTES 2048
/* The kernel's UEVENT_NUM_ENVP. */
#define UEVENT_ENV_MAX_VARS 64
/* Longest DEVNAME (relative to /dev) we accept. */
#define UEVENT_DEVNAME_MAX 255
/* Longest key in KEY=VALUE. */
#define UEVENT_KEY_MAX 64
/* The kernel's MINORBITS is 20 and dev_t has 32 bits: 12 bits of major. */
#define UEVENT_MAJOR_MAX 4095u
#define UEVENT_MINOR_MAX 1048575u

enum uevent_action {
	UEVENT_ADD,
	UEVENT_REMOVE,
	UEVENT_CHANGE,
	UEVENT_MOVE,
	UEVENT_ONLINE,
	UEVENT_OFFLINE,
	UEVENT_BIND,
	UEVENT_UNBIND,
	UEVENT_ACTION_COUNT,
};

struct uevent {
	char buf[UEVENT_MSG_MAX + 1]; /* private copy, NUL-terminated; first (uevent_copy) */
	size_t len;                   /* payload bytes in buf */

	enum uevent_action action;
	const char *devpath;    /* "/devices/...", validated */
	const char *subsystem;  /* required */
	uint64_t seqnum;        /* required */
	const char *devname;    /* relative to /dev, validated; NULL if absent */
	const char *devpath_old;/* DEVPATH_OLD on move; validated like devpath */
	const char *devtype;    /* NULL if absent (likewise below) */
	const char *modalias;
	const char *driver;
	const char *synth_uuid; /* SYNTH_UUID as sent ("0" for a plain write) */
	bool has_devnum;
	unsigned int major, minor;
	bool has_devmode;
	mode_t devmode;         /* permission bits only (<= 07777) */
	bool has_devuid, has_devgid;
	uid_t devuid;
	gid_t devgid;
	bool has_diskseq;
	uint64_t diskseq;

	size_t nenv;
	const char *env[UEVENT_ENV_MAX_VARS]; /* every "KEY=VALUE", in order */
};

/* Why a payload was refused. */
enum uevent_parse_result {
	UEVENT_PARSE_OK = 0,
	UEVENT_PARSE_MALFORMED,    /* not a well-formed kernel uevent */
	UEVENT_PARSE_UDEV_FRAMING, /* starts with "libudev\0": udev's, never the kernel's */
};

/*
 * Parse a kernel uevent payload ("ACTION@DEVPATH\0KEY=VALUE\0...").
 * On failure err (if not NULL) receives a one-line reason naming the key or
 * offset at fault; outside bytes in it are escaped, so it is safe to log.
 */
enum uevent_parse_result uevent_parse(struct uevent *ev, const void *data,
				      size_t len, char *err, size_t errlen);

/*
 * Copy a parsed event: dst then owns its bytes and its pointers point into
 * them (the queue keeps events this way; nothing is parsed twice).
 */
void uevent_copy(struct uevent *dst, const struct uevent *src);

/* Value of KEY in a parsed event, or NULL. */
const char *uevent_get(const struct uevent *ev, const char *key);

const char *uevent_action_name(enum uevent_action action);
/* Returns -1 if name is not one of the kernel's actions. */
int uevent_action_from_name(const char *name);
