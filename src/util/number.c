/* SPDX-License-Identifier: MIT */
#include "util/number.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int parse_base(const char *s, size_t n, unsigned int base, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d >= base)
			return -EINVAL;
		if (d > max || v > (max - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int number_parse(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	return parse_base(s, n, 10, max, out);
}

int number_parse_str(const char *s, uint64_t max, uint64_t *out)
{
	return number_parse(s, s ? strlen(s) : 0, max, out);
}

int number_parse_octal(const char *s, uint64_t max, uint64_t *out)
{
	return parse_base(s, s ? strlen(s) : 0, 8, max, out);
}

int number_parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;
	int r = number_parse_str(s, (uint64_t)max, &v);

	if (r == 0 && v < (uint64_t)min)
		r = -ERANGE;
	if (r == 0)
		*out = (int)v;
	return r;
}

int number_parse_line(const char *s, uint64_t max, uint64_t *out)
{
	size_t n = strlen(s);

	if (n > 0 && s[n - 1] == '\n')
		n--;
	return number_parse(s, n, max, out);
}

int number_pread(int fd, uint64_t max, uint64_t *out)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return number_parse_line(buf, max, out);
}

int number_read_file(const char *path, uint64_t max, uint64_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), r;

	if (fd < 0)
		return -errno;
	r = number_pread(fd, max, out);
	close(fd);
	return r;
}

int number_parse_devnum(const char *s, unsigned int *maj, unsigned int *min)
{
	const char *colon = strchr(s, ':');
	uint64_t a, b;
	int r;

	if (!colon)
		return -EINVAL;
	r = number_parse(s, (size_t)(colon - s), UINT32_MAX, &a);
	if (r == 0)
		r = number_parse_str(colon + 1, UINT32_MAX, &b);
	if (r < 0)
		return r;
	*maj = (unsigned int)a;
	*min = (unsigned int)b;
	return 0;
}
