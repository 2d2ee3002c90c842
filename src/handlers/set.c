/* SPDX-License-Identifier: MIT */
#include "handlers/set.h"

#include <errno.h>
#include <string.h>

_Static_assert(HANDLERS_MAX <= TRACE_HANDLERS_MAX, "every handler's time has a place in the trace");

int handler_set_add(struct handler_set *hs, const struct handler_ops *ops, void *ctx)
{
	if (hs->n >= HANDLERS_MAX)
		return -ENOSPC;
	trace_name_handler(hs->trace, hs->n, ops->name);
	hs->table[hs->n++] = (struct handler){ ops, ctx };
	return 0;
}

/* The parts in order; hs->up counts those done. */
static int init_parts(struct handler_set *hs, const struct handler_set_config *cfg)
{
	int r = devnode_init(&hs->devnode, cfg->dev, cfg->mknod, hs->log);
	if (r < 0)
		return log_errno(hs->log, LOG_ERR, r, "%s", cfg->dev);
	hs->up++;
	r = disk_links_init(&hs->links, hs->devnode.devfd, hs->log);
	if (r < 0)
		return log_errno(hs->log, LOG_ERR, r, "%s/disk", cfg->dev);
	hs->up++;
	disk_init(&hs->disk, cfg->sysfs, hs->devnode.devfd, &hs->links, hs->log);
	hs->up++;
	r = modload_init(&hs->modload, cfg->modules_dir, cfg->modprobe_d, cfg->blacklist,
			 cfg->nblacklist, hs->log);
	if (r < 0)
		return r;
	hs->modload.trace = cfg->trace;
	hs->up++;
	r = rules_handler_init(&hs->rules, &(struct rules_handler_config){
		.sysfs = cfg->sysfs, .dev = cfg->dev, .dirs = cfg->rules_dirs,
		.cmdline = cfg->cmdline, .timeout_sec = cfg->event_timeout,
		.udev_run = cfg->udev_run, .broadcast = cfg->broadcast }, &hs->devnode,
		&hs->links, &hs->modload, hs->log);
	hs->up++;
	/* the rules handler links what the disk handler holds back (disk.h) */
	hs->disk.hold_btrfs = r == 0;
	/* without rules initdev still does its own work */
	if (r < 0)
		log_msg(hs->log, LOG_WARNING, "udev rules are not applied");
	return r == -ENOMEM ? r : 0;
}

int handler_set_init(struct handler_set *hs, const struct handler_set_config *cfg,
		     const struct logger *log)
{
	int r;

	memset(hs, 0, sizeof(*hs));
	hs->log = log;
	hs->trace = cfg->trace;
	r = init_parts(hs, cfg);
	if (r < 0)
		return r;
	(void)handler_set_add(hs, &devnode_handler, &hs->devnode);
	(void)handler_set_add(hs, &disk_handler, &hs->disk);
	(void)handler_set_add(hs, &modload_handler, &hs->modload);
	/* last: the rules see what the native handlers did (node, ID_FS_*) */
	(void)handler_set_add(hs, &rules_handler, &hs->rules);
	hs->ready = true;
	return 0;
}

void handler_set_fini(struct handler_set *hs)
{
	if (hs->up > 4)
		rules_handler_fini(&hs->rules);
	if (hs->up > 3)
		modload_fini(&hs->modload);
	if (hs->up > 2)
		disk_fini(&hs->disk);
	if (hs->up > 1)
		disk_links_fini(&hs->links);
	if (hs->up > 0)
		devnode_fini(&hs->devnode);
	hs->up = hs->n = 0;
	hs->ready = false;
}

int handler_set_reload(struct handler_set *hs)
{
	int first = 0;

	for (unsigned int i = 0; i < hs->n; i++) {
		const struct handler *h = &hs->table[i];
		int r = h->ops->reload ? h->ops->reload(h->ctx) : 0;

		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

int handler_set_property(struct handler_set *hs, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	char key[256];
	int first = 0;

	if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof(key))
		return -EINVAL;
	memcpy(key, assignment, (size_t)(eq - assignment));
	key[eq - assignment] = '\0';
	for (unsigned int i = 0; i < hs->n; i++) {
		const struct handler *h = &hs->table[i];
		int r = h->ops->set_property ? h->ops->set_property(h->ctx, key, eq[1] ? eq + 1 : NULL) : 0;

		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

bool handler_set_may_block(const struct handler_set *hs, const struct uevent *ev)
{
	for (unsigned int i = 0; i < hs->n; i++) {
		const struct handler *h = &hs->table[i];

		if (h->ops->may_block && h->ops->may_block(h->ctx, ev))
			return true;
	}
	return false;
}

void handler_set_run(const struct handler_set *hs, void *const *workers,
		     const struct uevent *ev)
{
	struct trace_span span;

	trace_span_begin(hs->trace, &span);
	for (unsigned int i = 0; i < hs->n; i++) {
		const struct handler *h = &hs->table[i];
		struct handler_call call = { ev, workers ? workers[i] : NULL };

		h->ops->handle(h->ctx, &call);
		trace_span_step(hs->trace, &span, i);
	}
	trace_span_end(hs->trace, &span, ev->seqnum, workers != NULL);
}

void handler_set_workers_new(const struct handler_set *hs, void **workers)
{
	for (unsigned int i = 0; i < hs->n; i++) {
		const struct handler *h = &hs->table[i];

		/* without its state a handler runs as on the main thread */
		workers[i] = h->ops->worker_new ? h->ops->worker_new(h->ctx) : NULL;
	}
}

void handler_set_workers_free(const struct handler_set *hs, void **workers)
{
	for (unsigned int i = 0; i < hs->n; i++) {
		const struct handler *h = &hs->table[i];

		if (h->ops->worker_free)
			h->ops->worker_free(workers[i]);
		workers[i] = NULL;
	}
}

void handler_set_workers_warm(const struct handler_set *hs, void *const *workers)
{
	for (unsigned int i = 0; i < hs->n; i++) {
		const struct handler *h = &hs->table[i];

		if (h->ops->worker_warm && workers[i])
			h->ops->worker_warm(workers[i]);
	}
}
