/* SPDX-License-Identifier: MIT */
/*
 * The daemon under a service manager (Type=notify, util/notify.h): READY=1
 * once start-up is over, a STATUS= line a person can read whenever the
 * daemon's state changes (not on every event), WATCHDOG=1 every half
 * WATCHDOG_USEC, STOPPING=1 when told to stop. Without NOTIFY_SOCKET all
 * of this is silent.
 */
#include "cli/daemon.h"

#include <stdio.h>

#include "gate/gate.h"

#define STATUS_INTERVAL_USEC 1000000u

void daemon_notify_init(struct daemon *d)
{
	const char *why = NULL;

	if (notify_init_env(&d->notify, &why) < 0)
		log_msg(&d->cli->log, LOG_WARNING, "service manager: %s; not notifying it "
			"(a Type=notify unit then times out waiting for READY=1)", why);
	d->notify_settled = -1;
	d->watchdog_due = notify_watchdog_next(&d->notify, now_monotonic_usec());
}

/*
 * One status line: what is in hand, what was handled, what was refused.
 * A failure is said once: a warning when PID 1 waits for PRE (READY=1,
 * RELOADING=1: the unit times out without it); at info when UNHEARD names
 * a message nothing waits for (STOPPING=1, a plain status change), which
 * at switch-root reaches a PID 1 that has already let its notify socket go
 * before its SIGTERM came (udevd ignores those failures too).
 */
static void send_status(struct daemon *d, const char *pre, const char *state,
			const char *unheard)
{
	struct engine_stats s;
	int r;

	engine_stats(&d->engine, &s);
	r = notify_status(&d->notify, pre, "%s: %llu events handled, %zu in hand, "
			  "%llu rejected, %zu devices", state,
			  (unsigned long long)s.handled, s.in_hand,
			  (unsigned long long)gate_rejected_total(&s.gate), s.present);
	if (r < 0 && !d->notify_failed) {
		d->notify_failed = true; /* said once: PID 1 gone is not news per event */
		if (unheard)
			log_errno(&d->cli->log, LOG_INFO, r, "service manager: cannot notify "
				  "(%s: nothing waits for it)", unheard);
		else
			log_errno(&d->cli->log, LOG_WARNING, r, "service manager: cannot notify");
	}
}

void daemon_notify_ready(struct daemon *d)
{
	send_status(d, "READY=1", "Processing kernel events", NULL);
}

void daemon_notify_stopping(struct daemon *d, const char *what)
{
	send_status(d, "STOPPING=1", what, "stopping");
}

void daemon_reload(struct daemon *d)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)now_monotonic_usec());
	send_status(d, msg, "Reloading the udev rules", NULL);
	log_msg(&d->cli->log, LOG_INFO, "SIGHUP: reloading the udev rules");
	(void)engine_reload(&d->engine); /* logged there */
	send_status(d, "READY=1", "Processing kernel events", NULL);
}

void daemon_notify_tick(struct daemon *d)
{
	int settled = engine_settled(&d->engine);
	uint64_t now;

	if (d->notify.fd < 0)
		return;
	now = now_monotonic_usec();
	/* at most one status a second: a busy system flips settled per event */
	if (settled != d->notify_settled && !d->stop && !d->handoff &&
	    now >= d->status_at + STATUS_INTERVAL_USEC) {
		d->notify_settled = settled;
		d->status_at = now;
		send_status(d, NULL, settled ? "Settled" : "Processing kernel events",
			    "a status change");
	}
	if (d->watchdog_due && now >= d->watchdog_due) {
		(void)notify_send(&d->notify, "WATCHDOG=1");
		d->watchdog_due = notify_watchdog_next(&d->notify, now);
	}
}

int daemon_notify_timeout(const struct daemon *d)
{
	uint64_t now = now_monotonic_usec();

	if (!d->watchdog_due)
		return -1;
	return now >= d->watchdog_due ? 0 : (int)((d->watchdog_due - now) / 1000 + 1);
}
