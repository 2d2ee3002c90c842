/* SPDX-License-Identifier: MIT */
#include "engine/info.h"

#include <stdio.h>
#include <string.h>

#include "engine/lookup.h"
#include "util/oneline.h"
#include "util/strbuf.h"

/*
 * One KEY=VALUE line. A value with a line end (a dm name may hold one) is
 * left out: it would add a line of its own to what dracut parses.
 */
static void prop(struct strbuf *b, const char *key, const char *value)
{
	if (value && value[0] && oneline_ok(key) && oneline_ok(value))
		strbuf_printf(b, "%s=%s\n", key, value);
}

static int add_prop(void *u, const char *key, const char *value)
{
	prop(u, key, value);
	return 0;
}

/* Shown already (identity, or the native probe's): not repeated from the rules' record. */
static bool shown(const char *key, bool probed)
{
	static const char *const fixed[] = { "DEVPATH", "DEVNAME", "MAJOR", "MINOR", "SUBSYSTEM",
					     "DEVTYPE", NULL };

	for (const char *const *f = fixed; *f; f++)
		if (strcmp(key, *f) == 0)
			return true;
	return probed && (strncmp(key, "ID_FS_", 6) == 0 || strncmp(key, "ID_PART_", 8) == 0);
}

/* What the udev rules set for the device (kept as udev's database keeps it). */
static void rules_props(struct engine *e, struct strbuf *b, const char *devpath, bool probed)
{
	struct rules_record rec;

	if (!e->handlers_up || !rules_db_get(&e->handlers.rules.db, devpath, &rec))
		return;
	for (size_t i = 0; i < rec.props.n; i++)
		if (!shown(rec.props.v[i].key, probed))
			prop(b, rec.props.v[i].key, rec.props.v[i].value);
	rules_record_free(&rec);
}

int info_properties(struct engine *e, const char *name, char *buf, size_t size)
{
	struct engine_device d;
	struct strbuf b;
	char num[16];
	int r;

	strbuf_init(&b, buf, size);
	r = engine_lookup(e, name, &d);
	if (r < 0)
		return r;
	prop(&b, "DEVPATH", d.devpath);
	strbuf_printf(&b, "DEVNAME=/dev/%s\n", d.devname);
	snprintf(num, sizeof(num), "%u", d.major);
	prop(&b, "MAJOR", num);
	snprintf(num, sizeof(num), "%u", d.minor);
	prop(&b, "MINOR", num);
	prop(&b, "SUBSYSTEM", d.subsystem);
	prop(&b, "DEVTYPE", d.devtype);
	if (d.has_disk && d.disk.probed)
		(void)probe_props(&d.disk.probe, add_prop, &b);
	rules_props(e, &b, d.devpath, d.has_disk && d.disk.probed);
	return (int)b.len;
}
