/* SPDX-License-Identifier: MIT */
/*
 * Module loading without a kernel, the way kmod's testsuite does it: a few
 * modules of the installed kernel package (and every module they depend on,
 * from modules.dep) are copied into ./lib/modules/KVER and depmod runs on
 * that tree; a scenario then runs in a child (the test program re-executed,
 * told which scenario by an environment variable) with kmod-trap.so
 * preloaded, which records each insert in ./trap.log instead of calling the
 * kernel. The child's stderr goes to ./child.log.
 *
 * The trap library is $KMOD_TRAP_LIB, else kmod-trap.so in the directory of
 * the test program, its parent, or their .libs/. Needs depmod (and xz to
 * compress a module).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define KFX_MODULES_MAX 48
#define KFX_SCENARIO_ENV "KMOD_FIXTURE_SCENARIO"
#define KFX_KVER_ENV "KMOD_FIXTURE_KVER"

struct kfx {
	char kver[256];
	size_t n;
	char paths[KFX_MODULES_MAX][256]; /* relative to /lib/modules/KVER */
};

/*
 * Build ./lib/modules/KVER with the named modules and their dependencies,
 * for the first installed kernel that has them all (else skip the case),
 * plus ./etc/modprobe.d and ./sys/module. compress: a module to xz, or NULL.
 */
void kfx_setup(struct kfx *fx, const char *const *modules, size_t n, const char *compress);

/*
 * Run scenario in a child with the trap preloaded; env is a NULL-terminated
 * list of name, value pairs. Fails the case unless the child exits 0.
 */
void kfx_run(const struct kfx *fx, const char *scenario, const char *const *env);

/* In the child: the scenario named in the environment, or NULL (in the parent). */
const char *kfx_child_scenario(void);
/* In the child: true if the trap is loaded (else libkmod would ask the kernel). */
bool kfx_child_trapped(void);

struct kfx_insert {
	char name[64];
	int err;
};

/* The inserts the trap saw, in order; returns how many (fails over max). */
size_t kfx_trap_log(struct kfx_insert *out, size_t max);

/* Index of the successful insert of name; -1 if none, -2 if several. */
int kfx_loaded_at(const struct kfx_insert *ins, size_t n, const char *name);
