/* SPDX-License-Identifier: MIT */
/* The daemon's side of the control socket: one request, one reply (control.h). */
#include "cli/daemon.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/info.h"
#include "engine/lookup.h"
#include "engine/status.h"
#include "util/escape.h"
#include "util/oneline.h"
#include "util/strbuf.h"

/* One reply line (the client splits at '\n'): a line end in it is escaped. */
static void append_line(void *u, const char *line)
{
	char esc[1024];

	if (!oneline_ok(line))
		line = escape_log(esc, sizeof(esc), line, strlen(line));
	strbuf_printf(u, "%s\n", line);
}

static const char *pending_reply(struct daemon *d, bool root)
{
	bool settled = root ? engine_root_settled(&d->engine) : engine_settled(&d->engine);
	struct strbuf b;

	strbuf_init(&b, d->reply, sizeof(d->reply));
	append_line(&b, settled ? "OK settled" : "OK not settled");
	engine_describe_pending(&d->engine, append_line, &b);
	return d->reply;
}

static const char *status_reply(struct daemon *d, bool json)
{
	struct engine_stats s;

	size_t len;

	engine_stats(&d->engine, &s);
	memcpy(d->reply, "OK\n", 3);
	len = 3 + status_format(&s, json, d->reply + 3, sizeof(d->reply) - 3);
	if (!json && len < sizeof(d->reply)) { /* the ties, by name (JSON: the count) */
		struct strbuf b = { d->reply, sizeof(d->reply), len, len };

		engine_describe_conflicts(&d->engine, append_line, &b);
	}
	return d->reply;
}

static const char *devices_reply(struct daemon *d)
{
	struct strbuf b;

	strbuf_init(&b, d->reply, sizeof(d->reply));
	append_line(&b, "OK");
	engine_describe_devices(&d->engine, append_line, &b);
	engine_describe_conflicts(&d->engine, append_line, &b);
	return d->reply;
}

static const char *info_reply(struct daemon *d, const char *name)
{
	int r;

	memcpy(d->reply, "OK\n", 3);
	r = info_properties(&d->engine, name, d->reply + 3, sizeof(d->reply) - 3);
	if (r < 0)
		snprintf(d->reply, sizeof(d->reply), "ERR %s", errno_text(r));
	return d->reply;
}

/* initdev handoff: the client is answered once the events in hand are done. */
static const char *start_handoff(struct daemon *d, struct client *c)
{
	if (d->until_settled || d->until_found)
		return "ERR not a daemon";
	if (d->handoff)
		return "ERR handoff under way";
	d->handoff = true;
	daemon_notify_stopping(d, "Handing the kernel socket over");
	d->handoff_fd = c->fd;
	d->handoff_deadline = now_monotonic_usec() + HANDOFF_GRACE_MS * 1000ull;
	(void)engine_stop_reading(&d->engine);
	*c = (struct client){ .fd = -1 };
	return NULL;
}

static const char *wait_request(struct client *c, const char *name)
{
	if (strlen(name) >= sizeof(c->awaits_name) || !wait_name_safe(name))
		return "ERR bad name";
	memcpy(c->awaits_name, name, strlen(name) + 1);
	return NULL; /* answered by server_notify */
}

/* Returns the reply, or NULL when the reply is deferred (settle, wait, handoff). */
static const char *handle_request(struct daemon *d, struct client *c, const char *req)
{
	if (strcmp(req, "ping") == 0)
		return "OK";
	if (strcmp(req, "status") == 0 || strcmp(req, "status json") == 0)
		return status_reply(d, req[6] != '\0');
	if (strcmp(req, "pending") == 0 || strcmp(req, "pending root") == 0)
		return pending_reply(d, req[7] != '\0');
	if (strncmp(req, "wait ", 5) == 0) {
		engine_await_root(&d->engine);
		return wait_request(c, req + 5);
	}
	if (strcmp(req, "devices") == 0)
		return devices_reply(d);
	if (strncmp(req, "property ", 9) == 0)
		return engine_set_property(&d->engine, req + 9) == 0 ? "OK" : "ERR bad property";
	if (strcmp(req, "reload") == 0)
		return engine_reload(&d->engine) == 0 ? "OK" : "ERR reload failed";
	if (strcmp(req, "coldplug") == 0)
		return engine_coldplug(&d->engine) == 0 ? "OK" : "ERR coldplug failed";
	if (strncmp(req, "info ", 5) == 0)
		return info_reply(d, req + 5);
	if (strcmp(req, "handoff") == 0)
		return start_handoff(d, c);
	if (strcmp(req, "trace") == 0)
		return write_trace(d) == 0 ? "OK" : "ERR cannot write the trace (see the log)";
	if (strcmp(req, "exit") == 0) {
		daemon_notify_stopping(d, "Exiting");
		d->stop = true;
		return "OK exiting";
	}
	if (strcmp(req, "settle") == 0 || strcmp(req, "settle root") == 0) {
		c->awaits_root = req[6] != '\0';
		if (c->awaits_root ? engine_root_settled(&d->engine) : engine_settled(&d->engine))
			return "OK settled";
		c->awaits_settle = true;
		return NULL;
	}
	return "ERR unknown request";
}

static void drop_client(struct client *c)
{
	close(c->fd);
	c->fd = -1;
	c->awaits_settle = false;
	c->awaits_name[0] = '\0';
}

void server_serve(struct daemon *d, struct client *c)
{
	char req[4352];
	const char *reply;
	int n;

	if (c->refused) {
		control_refuse(c->fd, c->uid);
		*c = (struct client){ .fd = -1 };
		return;
	}
	n = control_recv(c->fd, req, sizeof(req), 0);
	if (n == -EMSGSIZE) {
		log_msg(&d->cli->log, LOG_WARNING, "control: a request longer than %zu bytes refused",
			sizeof(req) - 1);
		(void)control_send(c->fd, "ERR request too long");
	}
	if (n < 0) {
		if (n != -ETIMEDOUT && n != -EAGAIN)
			drop_client(c);
		return;
	}
	reply = handle_request(d, c, req);
	if (reply && control_send(c->fd, reply) < 0)
		drop_client(c);
}

void server_accept(struct daemon *d)
{
	uid_t uid = 0;
	int fd = control_accept(d->listen_fd, &uid);

	if (fd < 0)
		return;
	if (uid != 0)
		log_msg(&d->cli->log, LOG_WARNING, "control: refusing a peer with uid %u",
			(unsigned int)uid);
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (d->clients[i].fd < 0) {
			d->clients[i] = (struct client){ .fd = fd, .refused = uid != 0, .uid = uid };
			return;
		}
	}
	(void)control_send(fd, "ERR busy");
	close(fd);
}

static void answer(struct client *c, const char *msg)
{
	if (control_send(c->fd, msg) < 0)
		drop_client(c);
}

void server_notify(struct daemon *d)
{
	char devname[PATH_MAX], msg[PATH_MAX + 8];
	bool settled = engine_settled(&d->engine), root = engine_root_settled(&d->engine);

	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &d->clients[i];

		if (c->fd >= 0 && c->awaits_settle && (c->awaits_root ? root : settled)) {
			c->awaits_settle = false;
			answer(c, "OK settled");
		}
		if (c->fd < 0 || !c->awaits_name[0] ||
		    !engine_found(&d->engine, c->awaits_name, devname, sizeof(devname)))
			continue;
		c->awaits_name[0] = '\0';
		snprintf(msg, sizeof(msg), "OK %s", devname);
		answer(c, msg);
	}
}

void server_close(struct daemon *d)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d->clients[i].fd >= 0)
			drop_client(&d->clients[i]);
}
