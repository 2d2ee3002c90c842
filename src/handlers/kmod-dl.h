/* SPDX-License-Identifier: MIT */
/*
 * libkmod, loaded on first use. libkmod drags in libcrypto, libzstd and
 * liblzma: linking them at start would cost every boot milliseconds and most
 * of initdev's resident memory, even when no module needs loading. Include
 * this header instead of <libkmod.h>: the kmod_* calls below then go
 * through a table filled by dlopen, once, thread-safely.
 */
#pragma once

#include <libkmod.h>

struct kmod_api {
	struct kmod_ctx *(*new_)(const char *dirname, const char *const *config_paths);
	struct kmod_ctx *(*unref)(struct kmod_ctx *ctx);
	int (*load_resources)(struct kmod_ctx *ctx);
	void (*set_log_fn)(struct kmod_ctx *ctx,
			   void (*fn)(void *data, int priority, const char *file, int line,
				      const char *fn, const char *format, va_list args),
			   const void *data);
	void (*set_log_priority)(struct kmod_ctx *ctx, int priority);
	int (*module_new_from_lookup)(struct kmod_ctx *ctx, const char *given_alias,
				      struct kmod_list **list);
	int (*module_new_from_name)(struct kmod_ctx *ctx, const char *name,
				    struct kmod_module **mod);
	struct kmod_module *(*module_get_module)(const struct kmod_list *entry);
	const char *(*module_get_name)(const struct kmod_module *mod);
	const char *(*module_get_path)(const struct kmod_module *mod);
	const char *(*module_get_install_commands)(const struct kmod_module *mod);
	int (*module_get_initstate)(const struct kmod_module *mod);
	int (*module_probe_insert_module)(struct kmod_module *mod, unsigned int flags,
					  const char *extra_options,
					  int (*run_install)(struct kmod_module *m, const char *cmdline,
							     void *data),
					  const void *data,
					  void (*print_action)(struct kmod_module *m, bool install,
							       const char *options));
	struct kmod_module *(*module_unref)(struct kmod_module *mod);
	int (*module_unref_list)(struct kmod_list *list);
	struct kmod_list *(*list_next)(const struct kmod_list *list,
				       const struct kmod_list *curr);
};

/* Load libkmod.so.2 once. 0, or -ENOENT (then no kmod_* call may be made). */
int kmod_dl_load(void);
/* The table; valid only after kmod_dl_load() returned 0. */
const struct kmod_api *kmod_dl(void);

#define kmod_new (kmod_dl()->new_)
#define kmod_unref (kmod_dl()->unref)
#define kmod_load_resources (kmod_dl()->load_resources)
#define kmod_set_log_fn (kmod_dl()->set_log_fn)
#define kmod_set_log_priority (kmod_dl()->set_log_priority)
#define kmod_module_new_from_lookup (kmod_dl()->module_new_from_lookup)
#define kmod_module_new_from_name (kmod_dl()->module_new_from_name)
#define kmod_module_get_module (kmod_dl()->module_get_module)
#define kmod_module_get_name (kmod_dl()->module_get_name)
#define kmod_module_get_path (kmod_dl()->module_get_path)
#define kmod_module_get_install_commands (kmod_dl()->module_get_install_commands)
#define kmod_module_get_initstate (kmod_dl()->module_get_initstate)
#define kmod_module_probe_insert_module (kmod_dl()->module_probe_insert_module)
#define kmod_module_unref (kmod_dl()->module_unref)
#define kmod_module_unref_list (kmod_dl()->module_unref_list)
#define kmod_list_next (kmod_dl()->list_next)
