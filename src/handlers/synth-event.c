/* SPDX-License-Identifier: MIT */
#include "handlers/synth-event.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/sysfs.h"

int synth_env(const struct sysdev_root *sys, const char *devpath, const char *action,
	      struct props *env)
{
	char pair[64];
	int r = rsys_uevent_props(sys, devpath, env);

	if (r < 0)
		return r;
	if ((size_t)snprintf(pair, sizeof(pair), "ACTION=%s", action) >= sizeof(pair))
		return -EINVAL;
	r = props_set_pair(env, pair, false);
	if (r == 0 && props_get(env, "SUBSYSTEM")) {
		/* keep udevadm's order: SUBSYSTEM after ACTION */
		char *sub = strdup(props_get(env, "SUBSYSTEM"));

		r = sub ? props_set(env, "SUBSYSTEM", NULL, false) : -ENOMEM;
		r = r ?: props_set(env, "SUBSYSTEM", sub, false);
		free(sub);
	}
	return r;
}

int synth_uevent(const struct props *env, uint64_t seqnum, struct uevent *ev)
{
	char buf[UEVENT_MSG_MAX], err[128];
	const char *action = props_get(env, "ACTION"), *devpath = props_get(env, "DEVPATH");
	size_t n;
	int w;

	if (!action || !devpath)
		return -EINVAL;
	w = snprintf(buf, sizeof(buf), "%s@%s", action, devpath);
	if (w < 0 || (size_t)w + 1 >= sizeof(buf))
		return -E2BIG;
	n = (size_t)w + 1;
	for (size_t i = 0; i < env->n; i++) {
		const char *v = env->v[i].value;

		/* the kernel's DEVNAME is relative to /dev */
		if (strcmp(env->v[i].key, "DEVNAME") == 0 && strncmp(v, "/dev/", 5) == 0)
			v += 5;
		w = snprintf(buf + n, sizeof(buf) - n, "%s=%s", env->v[i].key, v);
		if (w < 0 || (size_t)w + 1 >= sizeof(buf) - n)
			return -E2BIG;
		n += (size_t)w + 1;
	}
	w = snprintf(buf + n, sizeof(buf) - n, "SEQNUM=%" PRIu64, seqnum);
	if (w < 0 || (size_t)w + 1 >= sizeof(buf) - n)
		return -E2BIG;
	n += (size_t)w + 1;
	return uevent_parse(ev, buf, n, err, sizeof(err)) == UEVENT_PARSE_OK ? 0 : -EINVAL;
}
