/* SPDX-License-Identifier: MIT */
#include "rules/hwdb-search.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "names/udev-string.h"
#include "rules/sysfs.h"

#define LOOKUP_MAX 2048 /* udev's LINE_MAX buffer for a composed key */

static const struct {
	const char *name;
	char letter;
} options[] = { { "filter", 'f' },
		{ "device", 'd' },
		{ "subsystem", 's' },
		{ "lookup-prefix", 'p' } };
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static void store(struct hwdb_args *a, char letter, const char *value)
{
	switch (letter) {
	case 'f': a->filter = value; break;
	case 'd': a->device = value; break;
	case 's': a->subsystem = value; break;
	case 'p': a->prefix = value; break;
	}
}

/* getopt_long's long option: exact name, else a unique prefix of one; 0 if none. */
static char long_letter(const char *name, size_t len)
{
	char found = 0;
	int matches = 0;

	for (size_t i = 0; i < NOPTIONS; i++) {
		if (strncmp(options[i].name, name, len) != 0)
			continue;
		if (strlen(options[i].name) == len)
			return options[i].letter;
		found = options[i].letter;
		matches++;
	}
	return matches == 1 ? found : 0;
}

static bool short_known(char c)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].letter == c)
			return true;
	return false;
}

/* One option at argv[*i]; moves *i past a separate value. */
static void parse_option(int argc, char **argv, int *i, struct hwdb_args *a)
{
	const char *arg = argv[*i], *value;
	char letter;

	if (arg[1] == '-') {
		const char *eq = strchr(arg + 2, '=');

		letter = long_letter(arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
		value = eq ? eq + 1 : NULL;
	} else {
		letter = short_known(arg[1]) ? arg[1] : 0;
		value = arg[2] ? arg + 2 : NULL;
	}
	if (!letter)
		return;
	if (!value) {
		if (*i + 1 >= argc)
			return;
		value = argv[++*i];
	}
	store(a, letter, value);
}

void hwdb_args_parse(int argc, char **argv, struct hwdb_args *a)
{
	bool options_end = false;

	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!options_end && strcmp(arg, "--") == 0)
			options_end = true;
		else if (!options_end && arg[0] == '-' && arg[1])
			parse_option(argc, argv, &i, a);
		else if (!a->key)
			a->key =
				arg; /* getopt_long moves it behind the options: the first one counts */
	}
}

struct lookup {
	struct rules_event *ev;
	const char *filter;
	int set;
};

static int put(void *u, const char *key, const char *value)
{
	struct lookup *l = u;
	int r;

	if (l->filter && fnmatch(l->filter, key, FNM_NOESCAPE) != 0)
		return 0;
	r = props_set(&l->ev->props, key, value, true);
	if (r == 0)
		l->set++;
	return r;
}

static int lookup(const struct hwdb *db, struct rules_event *ev, const struct hwdb_args *a,
		  const char *modalias)
{
	struct lookup l = { .ev = ev, .filter = a->filter };
	char key[LOOKUP_MAX];
	int r;

	if (a->prefix) {
		if ((size_t)snprintf(key, sizeof(key), "%s%s", a->prefix, modalias) >= sizeof(key))
			return -ENAMETOOLONG;
		modalias = key;
	}
	r = hwdb_lookup(db, modalias, put, &l);
	return r < 0 ? r : l.set;
}

/* "usb:v%04Xp%04X:product" for a USB device without a MODALIAS; false if its ids do not parse. */
static bool usb_modalias(const struct sysdev_root *root, const char *devpath, char *out,
			 size_t size)
{
	char v[SYSDEV_ATTR_MAX], p[SYSDEV_ATTR_MAX], name[SYSDEV_ATTR_MAX];
	unsigned long vn, pn;

	if (sysdev_attr(root, devpath, "idVendor", v, sizeof(v)) < 0 ||
	    sysdev_attr(root, devpath, "idProduct", p, sizeof(p)) < 0 ||
	    !ustr_parse_ulong(v, 16, &vn) || vn > 0xffff || !ustr_parse_ulong(p, 16, &pn) ||
	    pn > 0xffff)
		return false;
	if (sysdev_attr(root, devpath, "product", name, sizeof(name)) < 0)
		name[0] = '\0';
	snprintf(out, size, "usb:v%04lXp%04lX:%s", vn, pn, name);
	return true;
}

/* One device of the walk: its subsystem, devtype and MODALIAS. */
struct walk_dev {
	char subsystem[SYSDEV_NAME_MAX], devtype[SYSDEV_NAME_MAX];
	char modalias[LOOKUP_MAX];
	bool has_subsystem, has_modalias;
};

static void describe_event(const struct rules_event *ev, struct walk_dev *d)
{
	const char *devtype = props_get(&ev->props, "DEVTYPE");
	const char *m = props_get(&ev->props, "MODALIAS");

	snprintf(d->subsystem, sizeof(d->subsystem), "%s", ev->subsystem);
	d->has_subsystem = ev->subsystem[0] != '\0';
	snprintf(d->devtype, sizeof(d->devtype), "%s", devtype ? devtype : "");
	d->has_modalias = m && (size_t)snprintf(d->modalias, sizeof(d->modalias), "%s", m) <
				       sizeof(d->modalias);
}

static void describe_parent(const struct sysdev_root *root, const char *devpath, struct walk_dev *d)
{
	struct props p = PROPS_INIT;
	const char *m;

	d->has_subsystem = sysdev_subsystem(root, devpath, d->subsystem) >= 0;
	if (sysdev_devtype(root, devpath, d->devtype) < 0)
		d->devtype[0] = '\0';
	d->has_modalias = false;
	if (rsys_uevent_props(root, devpath, &p) >= 0 && (m = props_get(&p, "MODALIAS")))
		d->has_modalias = (size_t)snprintf(d->modalias, sizeof(d->modalias), "%s", m) <
				  sizeof(d->modalias);
	props_clear(&p);
}

static int search(const struct hwdb *db, const struct sysdev_root *root, struct rules_event *ev,
		  const struct hwdb_args *a)
{
	char devpath[SYSDEV_PATH_MAX], up[SYSDEV_PATH_MAX];
	int r = 0;

	snprintf(devpath, sizeof(devpath), "%s", ev->devpath);
	for (bool first = true;; first = false) {
		struct walk_dev d;
		bool last = false;

		if (first)
			describe_event(ev, &d);
		else
			describe_parent(root, devpath, &d);
		if (d.has_subsystem && (!a->subsystem || strcmp(d.subsystem, a->subsystem) == 0)) {
			/* a usb_device is the last: above it are hubs */
			if (strcmp(d.subsystem, "usb") == 0 &&
			    strcmp(d.devtype, "usb_device") == 0) {
				if (!d.has_modalias)
					d.has_modalias = usb_modalias(root, devpath, d.modalias,
								      sizeof(d.modalias));
				last = true;
			}
			if (d.has_modalias) {
				/* as in udev, a failed lookup goes on with the parent */
				r = lookup(db, ev, a, d.modalias);
				if (r > 0 || last)
					return r;
			}
		}
		if (sysdev_parent(root, devpath, up, sizeof(up)) < 0)
			return r;
		memcpy(devpath, up, sizeof(devpath));
	}
}

int hwdb_builtin(const struct hwdb *db, const struct sysdev_root *root, struct rules_event *ev,
		 int argc, char **argv)
{
	struct hwdb_args a;
	int r;

	if (!db || !db->data)
		return -EINVAL;
	hwdb_args_parse(argc, argv, &a);
	if (a.key)
		r = lookup(db, ev, &a, a.key);
	else if (a.device)
		return -EOPNOTSUPP;
	else
		r = search(db, root, ev, &a);
	return r == 0 ? -ENODATA : r < 0 ? r : 0;
}
