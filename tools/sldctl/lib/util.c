// SPDX-License-Identifier: GPL-2.0
/*
 * Root-prefixed paths and whole-file reads (see util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schema/escape.h"
#include "util.h"

const char *sldctl_root(void)
{
	static char root[4096];
	static bool done;
	const char *r;
	size_t n;

	if (done)
		return root;
	done = true;
	r = getenv("SLDCTL_ROOT");
	if (!r)
		return root;
	n = strlen(r);
	while (n > 0 && r[n - 1] == '/')
		n--;
	if (n >= sizeof(root))
		n = sizeof(root) - 1;
	memcpy(root, r, n);
	root[n] = '\0';
	return root;
}

bool sldctl_fake_root(void)
{
	return getenv("SLDCTL_ROOT") != NULL;
}

int sldctl_path(char *buf, size_t n, const char *fmt, ...)
{
	const char *root = sldctl_root();
	size_t rl = strlen(root);
	va_list ap;
	int k;

	if (rl >= n)
		return -ENAMETOOLONG;
	memcpy(buf, root, rl);
	va_start(ap, fmt);
	k = vsnprintf(buf + rl, n - rl, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= n - rl)
		return -ENAMETOOLONG;
	return 0;
}

int sldctl_read_fd(int fd, size_t max, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1), *nb;
	ssize_t k;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap > max)
				goto too_big;
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			k = -errno;
			free(buf);
			return k;
		}
		if (k == 0)
			break;
		len += k;
	}
	if (len > max)
		goto too_big;
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
too_big:
	free(buf);
	return -EFBIG;
}

int sldctl_read_all(const char *path, size_t max, char **bufp, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = sldctl_read_fd(fd, max, bufp, lenp);
	close(fd);
	return err;
}

size_t sldctl_utf8_len(const unsigned char *s, size_t n)
{
	unsigned int cp, min;
	size_t k, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		k = 2; cp = s[0] & 0x1f; min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		k = 3; cp = s[0] & 0x0f; min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		k = 4; cp = s[0] & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (k > n)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong, beyond Unicode, or a surrogate. */
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

int sldctl_write_value(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t k;
	int fd, err;

	/* O_TRUNC means nothing to sysfs; it keeps a fake tree's files exact. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	k = write(fd, value, len);
	err = k < 0 ? -errno : 0;
	if (close(fd) && !err)
		err = -errno;
	if (!err && (size_t)k != len)
		err = -EIO;
	return err;
}

const char *sldctl_q(const char *s)
{
	static char bufs[4][SLD_ESC_SIZE(64) + 4];
	static unsigned int k;
	char *b = bufs[k++ % 4];
	size_t took = sld_esc(b, SLD_ESC_SIZE(64), s, 64, 0);

	if (s[took])
		strcat(b, "...");
	return b;
}

void sldctl_put_esc(FILE *f, const char *s, size_t len)
{
	char b[SLD_ESC_SIZE(64)];
	size_t took;

	while (len) {
		took = sld_esc(b, sizeof(b), s, len < 64 ? len : 64, 0);
		fputs(b, f);
		if (!took) {	/* a NUL inside s[0..len) */
			fputs("\\x00", f);
			took = 1;
		}
		s += took;
		len -= took;
	}
}

int sldctl_read_value(const char *path, char **value)
{
	size_t len;
	int r;

	r = sldctl_read_all(path, 1u << 20, value, &len);
	if (!r && len && (*value)[len - 1] == '\n')
		(*value)[len - 1] = '\0';
	return r;
}

int sldctl_split_lines(char *text, char ***linesp)
{
	char **lines = NULL, **nl, *p = text, *e;
	int n = 0;

	while (p && *p) {
		e = strchr(p, '\n');
		if (e)
			*e++ = '\0';
		nl = realloc(lines, (n + 1) * sizeof(*lines));
		if (!nl) {
			free(lines);
			return -ENOMEM;
		}
		lines = nl;
		lines[n++] = p;
		p = e;
	}
	*linesp = lines;
	return n;
}

bool sldctl_next_line(const char **p, const char **l, size_t *n)
{
	if (!*p || !**p)
		return false;
	*l = *p;
	*n = strcspn(*p, "\n");
	*p += *n + ((*p)[*n] == '\n');
	return true;
}

const char *sldctl_counter_value(const char *text, const char *name,
				 size_t *len)
{
	size_t kl = strlen(name), n;
	const char *l;

	while (sldctl_next_line(&text, &l, &n))
		if (n > kl && !strncmp(l, name, kl) && l[kl] == ' ') {
			*len = n - kl - 1;
			return l + kl + 1;
		}
	return NULL;
}

bool sldctl_is_root(void)
{
	return sldctl_fake_root() || geteuid() == 0;
}
