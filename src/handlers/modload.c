/* SPDX-License-Identifier: MIT */
/*
 * Module loading through libkmod, the way systemd's udevd does it: one kmod
 * context per worker, lookup by alias, skip what is built in or live, and
 * probe-insert with the modprobe.d blacklist applied. The shared state (what
 * was seen, what is claimed, the counters) is guarded by m->lock; the insert
 * itself runs unlocked so that workers load in parallel.
 */
#include "handlers/modload.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/escape.h"
#include "handlers/kmod-dl.h"

#define MODALIAS_MAX 2048 /* the kernel's uevent buffer: CPU aliases are long */
#define MODNAME_MAX 64    /* the kernel's MODULE_NAME_LEN is 56 */
#define WHY_MAX 192       /* escaped alias in log lines */

bool modload_normalize(char *out, size_t size, const char *name)
{
	size_t len = strnlen(name, size);

	if (len == 0 || len >= size)
		return false;
	for (size_t i = 0; i < len; i++)
		out[i] = name[i] == '-' ? '_' : name[i];
	out[len] = '\0';
	return true;
}

/* Module names are identifiers: anything else did not come from a kernel. */
static bool modname_valid(const char *name)
{
	size_t len = strnlen(name, MODNAME_MAX);

	if (len == 0 || len >= MODNAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-", name[i]))
			return false;
	return true;
}

static bool alias_valid(const char *alias)
{
	size_t len = strnlen(alias, MODALIAS_MAX + 1);

	if (len == 0 || len > MODALIAS_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)alias[i] < 0x20 || alias[i] == 0x7f)
			return false;
	return true;
}

static char *escape_arg(char *out, size_t size, const char *in, size_t max)
{
	return escape_log(out, size, in, strnlen(in, max));
}

static int add_blacklist(struct modload *m, const char *name)
{
	char norm[MODNAME_MAX], esc[WHY_MAX];

	if (!modname_valid(name) || !modload_normalize(norm, sizeof(norm), name)) {
		log_msg(m->log, LOG_WARNING, "ignoring invalid module name '%s' in blacklist",
			escape_arg(esc, sizeof(esc), name, MODALIAS_MAX));
		return 0;
	}
	return map_add(&m->blacklist, norm, NULL) < 0 ? -ENOMEM : 0;
}

int modload_init(struct modload *m, const char *modules_dir,
		 const char *const *config_paths, char *const *blacklist, size_t n,
		 const struct logger *log)
{
	int r;

	*m = (struct modload){ .config_paths = config_paths, .log = log };
	if (modules_dir && !(m->modules_dir = strdup(modules_dir)))
		return -ENOMEM;
	r = -pthread_mutex_init(&m->lock, NULL);
	if (r < 0) {
		free(m->modules_dir);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		r = add_blacklist(m, blacklist[i]);
		if (r < 0) {
			modload_fini(m);
			return r;
		}
	}
	return 0;
}

void modload_fini(struct modload *m)
{
	map_clear(&m->blacklist, NULL);
	map_clear(&m->aliases_seen, NULL);
	map_clear(&m->modules, NULL);
	pthread_mutex_destroy(&m->lock);
	free(m->modules_dir);
	m->modules_dir = NULL;
}

void modload_worker_init(struct modload_worker *w, struct modload *m)
{
	*w = (struct modload_worker){ .ctx = NULL, .m = m };
}

void modload_worker_fini(struct modload_worker *w)
{
	if (w->ctx) /* only then was libkmod loaded */
		w->ctx = kmod_unref(w->ctx);
}

/* libkmod's errors and warnings are ours as warnings; its chatter is debug. */
__attribute__((format(printf, 6, 0)))
static void kmod_log(void *data, int priority, const char *file, int line,
		     const char *fn, const char *format, va_list args)
{
	const struct logger *log = data;
	int prio = priority <= LOG_WARNING ? LOG_WARNING : LOG_DEBUG;
	char msg[512], esc[640];
	size_t len;

	if (prio > log->max_level)
		return;
	if (vsnprintf(msg, sizeof(msg), format, args) < 0)
		return;
	len = strlen(msg);
	while (len > 0 && msg[len - 1] == '\n')
		len--;
	log_msg(log, prio, "libkmod: %s", escape_log(esc, sizeof(esc), msg, len));
}

/* The worker's context, created on first use; NULL (logged) if that fails. */
static struct kmod_ctx *worker_ctx(struct modload_worker *w)
{
	const struct modload *m = w->m;
	int r;

	if (w->ctx)
		return w->ctx;
	if (kmod_dl_load() < 0) {
		log_msg(m->log, LOG_ERR, "libkmod.so.2 cannot be loaded: no modules are loaded");
		return NULL;
	}
	w->ctx = kmod_new(m->modules_dir, m->config_paths);
	if (!w->ctx) {
		log_msg(m->log, LOG_ERR, "cannot create kmod context for %s",
			m->modules_dir ? m->modules_dir : "the running kernel");
		return NULL;
	}
	kmod_set_log_fn(w->ctx, kmod_log, (void *)m->log);
	kmod_set_log_priority(w->ctx, m->log->max_level);
	/* without the indexes libkmod falls back to parsing the text files */
	r = kmod_load_resources(w->ctx);
	if (r < 0)
		log_msg(m->log, LOG_WARNING, "cannot load module indexes from %s: %s",
			m->modules_dir ? m->modules_dir : "the running kernel",
			errno_text(r));
	return w->ctx;
}

/* Returns 1 if the alias is new (and counts it), 0 if seen before, -ENOMEM. */
static int claim_alias(struct modload *m, const char *alias)
{
	int r;

	pthread_mutex_lock(&m->lock);
	r = map_add(&m->aliases_seen, alias, NULL);
	if (r > 0)
		m->stats.aliases++;
	pthread_mutex_unlock(&m->lock);
	return r;
}

/* Returns 1 if the module is ours to handle (now in flight), 0 if another
 * alias or worker has it, -ENOMEM. */
static int claim_module(struct modload *m, const char *name)
{
	int r;

	pthread_mutex_lock(&m->lock);
	r = map_add(&m->modules, name, NULL);
	if (r > 0)
		m->inflight++;
	pthread_mutex_unlock(&m->lock);
	return r;
}

static void count(struct modload *m, uint64_t *counter)
{
	pthread_mutex_lock(&m->lock);
	(*counter)++;
	pthread_mutex_unlock(&m->lock);
}

/* A claimed module reached its verdict: no longer in flight. */
static void finish(struct modload *m, uint64_t *counter)
{
	pthread_mutex_lock(&m->lock);
	m->inflight--;
	if (counter)
		(*counter)++;
	pthread_mutex_unlock(&m->lock);
}

static bool in_kernel(struct kmod_module *mod)
{
	int state = kmod_module_get_initstate(mod);

	return state == KMOD_MODULE_BUILTIN || state == KMOD_MODULE_LIVE ||
	       state == KMOD_MODULE_COMING;
}

/* Count and log the result of a probe-insert; returns what the caller returns. */
static int account(struct modload *m, const char *name, const char *why, int r)
{

	if (r == 0) {
		log_msg(m->log, LOG_INFO, "loaded module %s for %s", name, why);
		finish(m, &m->stats.loaded);
	} else if (r > 0) {
		log_msg(m->log, LOG_INFO, "module %s for %s is blacklisted in modprobe.d, not loading",
			name, why);
		finish(m, &m->stats.blacklisted);
	} else if (r == -EEXIST) {
		log_msg(m->log, LOG_DEBUG, "module %s for %s was already loaded", name, why);
		finish(m, &m->stats.already);
	} else if (r == -ENOENT || r == -ENODEV) {
		/* the driver found no device of its own: normal when probing */
		log_msg(m->log, LOG_DEBUG, "module %s for %s: %s", name, why,
			errno_text(r));
		finish(m, NULL);
	} else {
		log_msg(m->log, LOG_WARNING, "cannot load module %s for %s: %s", name, why,
			errno_text(r));
		finish(m, &m->stats.failed);
		return r;
	}
	return 0;
}

/* Load one module (with its dependencies) unless someone else already does. */
static int load_module(struct modload_worker *w, struct kmod_module *mod, const char *why)
{
	struct modload *m = w->m;
	const char *name = kmod_module_get_name(mod);
	uint64_t t0;
	int r = claim_module(m, name);

	if (r <= 0) {
		if (r < 0)
			log_msg(m->log, LOG_ERR, "cannot track module %s: out of memory", name);
		return r;
	}
	/* the blacklist is read-only after modload_init: no lock needed */
	if (map_contains(&m->blacklist, name)) {
		log_msg(m->log, LOG_INFO, "module %s for %s is blacklisted on the command line, not loading",
			name, why);
		finish(m, &m->stats.blacklisted);
		return 0;
	}
	if (in_kernel(mod)) {
		log_msg(m->log, LOG_DEBUG, "module %s for %s is built in or loaded", name, why);
		finish(m, &m->stats.already);
		return 0;
	}
	/* an install command in modprobe.d needs no module file */
	if (!kmod_module_get_path(mod) && !kmod_module_get_install_commands(mod)) {
		log_msg(m->log, LOG_WARNING, "module %s for %s not found in the module index",
			name, why);
		finish(m, &m->stats.unresolved);
		return -ENOENT;
	}
	t0 = trace_now(m->trace);
	r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST,
					    NULL, NULL, NULL, NULL);
	trace_module(m->trace, t0, name, w->seqnum, r);
	return account(m, name, why, r);
}

static int load_list(struct modload_worker *w, struct kmod_list *list, const char *why)
{
	struct kmod_list *l;
	int r = 0;

	kmod_list_foreach(l, list) {
		struct kmod_module *mod = kmod_module_get_module(l);
		int k = load_module(w, mod, why);

		kmod_module_unref(mod);
		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

int modload_alias(struct modload_worker *w, const char *alias)
{
	struct modload *m = w->m;
	struct kmod_list *list = NULL;
	struct kmod_ctx *ctx;
	char why[WHY_MAX], trimmed[MODALIAS_MAX + 1];
	const char *modalias = alias;
	size_t len = strnlen(alias, MODALIAS_MAX + 2);
	int r;

	/* x86's CPU MODALIAS ends in the newline of its sysfs form; udev hands
	 * it to kmod as is (the aliases end in '*'); we drop it, bytes stay checked */
	if (len > 0 && len <= MODALIAS_MAX + 1 && alias[len - 1] == '\n') {
		memcpy(trimmed, alias, len - 1);
		trimmed[len - 1] = '\0';
		modalias = trimmed;
	}
	escape_arg(why, sizeof(why), modalias, MODALIAS_MAX + 1);
	if (!alias_valid(modalias)) {
		log_msg(m->log, LOG_WARNING, "refusing invalid modalias '%s'", why);
		return -EINVAL;
	}
	ctx = worker_ctx(w);
	if (!ctx)
		return -ENOMEM;
	r = claim_alias(m, modalias);
	if (r <= 0) {
		if (r < 0)
			log_msg(m->log, LOG_ERR, "cannot track modalias %s: out of memory", why);
		return r;
	}
	r = kmod_module_new_from_lookup(ctx, modalias, &list);
	if (r < 0) {
		log_msg(m->log, LOG_WARNING, "cannot look up modalias %s: %s", why,
			errno_text(r));
		count(m, &m->stats.failed);
		return r;
	}
	if (!list) {
		log_msg(m->log, LOG_DEBUG, "no module for modalias %s", why);
		count(m, &m->stats.unresolved);
		return 0;
	}
	r = load_list(w, list, why);
	kmod_module_unref_list(list);
	return r;
}

int modload_name(struct modload_worker *w, const char *name)
{
	struct modload *m = w->m;
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	char norm[MODNAME_MAX], esc[WHY_MAX];
	int r;

	if (!modname_valid(name) || !modload_normalize(norm, sizeof(norm), name)) {
		log_msg(m->log, LOG_WARNING, "refusing invalid module name '%s'",
			escape_arg(esc, sizeof(esc), name, MODALIAS_MAX));
		return -EINVAL;
	}
	ctx = worker_ctx(w);
	if (!ctx)
		return -ENOMEM;
	r = kmod_module_new_from_name(ctx, norm, &mod);
	if (r < 0) {
		log_msg(m->log, LOG_WARNING, "cannot look up module %s: %s", norm,
			errno_text(r));
		count(m, &m->stats.failed);
		return r;
	}
	r = load_module(w, mod, "explicit request");
	kmod_module_unref(mod);
	return r;
}

void modload_snapshot(struct modload *m, struct modload_stats *s, unsigned int *inflight)
{
	pthread_mutex_lock(&m->lock);
	*s = m->stats;
	if (inflight)
		*inflight = m->inflight;
	pthread_mutex_unlock(&m->lock);
}

void modload_preload(struct modload *m, char *const *names, size_t n)
{
	struct modload_worker w;

	modload_worker_init(&w, m);
	for (size_t i = 0; i < n; i++)
		(void)modload_name(&w, names[i]);
	modload_worker_fini(&w);
}

/* ---- the handler ---- */

static bool may_block(void *ctx, const struct uevent *ev)
{
	return ev->action == UEVENT_ADD && ev->modalias;
}

/* Without a worker thread no module can be loaded (logged at start). */
static void handle(void *ctx, const struct handler_call *call)
{
	struct modload_worker *w = call->worker;

	if (!may_block(ctx, call->ev) || !w)
		return;
	w->seqnum = call->ev->seqnum; /* for the trace */
	(void)modload_alias(w, call->ev->modalias);
}

static void *worker_new(void *ctx)
{
	struct modload_worker *w = malloc(sizeof(*w));

	if (w)
		modload_worker_init(w, ctx);
	return w;
}

static void worker_free(void *worker)
{
	if (worker)
		modload_worker_fini(worker);
	free(worker);
}

/* The worker's libkmod context, made before its first alias arrives. */
static void worker_warm(void *worker)
{
	struct modload_worker *w = worker;

	if (modload_has_modules(w->m))
		(void)worker_ctx(w);
}

bool modload_has_modules(const struct modload *m)
{
	char path[PATH_MAX];
	struct utsname u;

	if (m->modules_dir)
		snprintf(path, sizeof(path), "%s/modules.dep.bin", m->modules_dir);
	else if (uname(&u) == 0)
		snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep.bin", u.release);
	else
		return false;
	return access(path, R_OK) == 0;
}

const struct handler_ops modload_handler = {
	.name = "modload",
	.may_block = may_block,
	.handle = handle,
	.worker_new = worker_new,
	.worker_free = worker_free,
	.worker_warm = worker_warm,
};
