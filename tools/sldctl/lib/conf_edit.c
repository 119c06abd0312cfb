// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic edit of one key in a configuration file (see config.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "util.h"

int conf_line_sets(const char *line, size_t len, const char *key)
{
	size_t k = strlen(key), i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i < k || strncmp(line + i, key, k))
		return 0;
	for (i += k; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	return i < len && line[i] == '=';
}

/* The new contents: old with key's lines replaced, or one appended. */
static char *edit_text(const char *old, size_t len, const char *key,
		       const char *value)
{
	char *out = NULL, *nl;
	size_t pos = 0, n, outlen = 0;
	bool done = false;
	FILE *f = open_memstream(&out, &outlen);

	if (!f)
		return NULL;
	while (pos < len) {
		nl = memchr(old + pos, '\n', len - pos);
		n = nl ? (size_t)(nl - (old + pos)) : len - pos;
		if (!conf_line_sets(old + pos, n, key)) {
			fwrite(old + pos, 1, n, f);
			fputc('\n', f);
		} else if (!done && value) {
			fprintf(f, "%s = %s\n", key, value);
			done = true;
		}
		pos += n + 1;
	}
	if (!done && value)
		fprintf(f, "%s = %s\n", key, value);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static int fail(char *why, size_t n, int err, const char *what,
		const char *path)
{
	snprintf(why, n, "%s %s: %s", what, path, strerror(err));
	return -err;
}

/* Write text to a temporary file next to path and rename it over path. */
static int replace_file(const char *path, const char *text, mode_t mode,
			char *why, size_t n)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	size_t len = strlen(text);
	int fd, err = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dirname(dir),
		     strrchr(path, '/') ? strrchr(path, '/') + 1 : path) >= (int)sizeof(tmp))
		return fail(why, n, ENAMETOOLONG, "writing", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return fail(why, n, errno, "creating a temporary file for", path);
	errno = 0;
	if (fchmod(fd, mode) || write(fd, text, len) != (ssize_t)len ||
	    fsync(fd))
		err = errno ? errno : EIO;
	if (close(fd) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		unlink(tmp);
		return fail(why, n, err, "writing", path);
	}
	return 0;
}

int conf_set_value(const char *path, const char *key, const char *value,
		   char *why, size_t n)
{
	char dir[PATH_MAX], *old = NULL, *text;
	mode_t mode = 0644;
	struct stat st;
	size_t len = 0;
	int r;

	r = sldctl_read_all(path, CONF_FILE_MAX, &old, &len);
	if (r == -ENOENT) {
		snprintf(dir, sizeof(dir), "%s", path);
		if (mkdir(dirname(dir), 0755) && errno != EEXIST)
			return fail(why, n, errno, "creating the directory of", path);
		old = NULL;
		len = 0;
	} else if (r) {
		return fail(why, n, -r, "reading", path);
	} else if (!stat(path, &st)) {
		mode = st.st_mode & 07777;
	}
	text = edit_text(old ? old : "", len, key, value);
	free(old);
	if (!text)
		return fail(why, n, ENOMEM, "editing", path);
	r = replace_file(path, text, mode, why, n);
	free(text);
	return r;
}
