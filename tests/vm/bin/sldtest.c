// SPDX-License-Identifier: GPL-2.0
/*
 * sldtest: the small static helper the VM suite drives. Shell cannot write
 * an exact byte string in one write(2) or report the errno by name, so
 * this does, and it grows the task-side actions tests need.
 *
 *   sldtest write FILE DATA     DATA with \n \t \0 \\ \xNN escapes; prints
 *                               OK or the errno name (EINVAL, EACCES, ...)
 *   sldtest asuser UID CMD...   drop to UID/GID and exec CMD
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: sldtest write FILE DATA | asuser UID CMD...\n");
	return 2;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode escapes in place; returns the byte count. */
static size_t unescape(char *s)
{
	char *out = s;
	const char *in = s;

	while (*in) {
		if (*in != '\\' || !in[1]) {
			*out++ = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'n': *out++ = '\n'; in++; break;
		case 't': *out++ = '\t'; in++; break;
		case '0': *out++ = '\0'; in++; break;
		case 'x':
			if (hexval(in[1]) >= 0 && hexval(in[2]) >= 0) {
				*out++ = (char)(hexval(in[1]) * 16 + hexval(in[2]));
				in += 3;
				break;
			}
			/* fall through */
		default: *out++ = *in++; break;
		}
	}
	return (size_t)(out - s);
}

static int cmd_write(int argc, char **argv)
{
	size_t len;
	ssize_t n;
	int fd;

	if (argc != 4)
		return usage();
	len = unescape(argv[3]);
	fd = open(argv[2], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 0;
	}
	n = write(fd, argv[3], len);
	if (n < 0)
		printf("%s\n", strerrorname_np(errno));
	else if ((size_t)n != len)
		printf("SHORT %zd/%zu\n", n, len);
	else
		printf("OK\n");
	close(fd);
	return 0;
}

static int cmd_asuser(int argc, char **argv)
{
	uid_t uid;

	if (argc < 4)
		return usage();
	uid = (uid_t)strtoul(argv[2], NULL, 10);
	if (setgid(uid) || setuid(uid)) {
		perror("sldtest: setuid");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror("sldtest: exec");
	return 127;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "write"))
		return cmd_write(argc, argv);
	if (!strcmp(argv[1], "asuser"))
		return cmd_asuser(argc, argv);
	return usage();
}
