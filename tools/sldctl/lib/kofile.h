/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kofile: read a kernel module file (.ko, .ko.xz, .ko.zst) into memory and
 * give safe access to the parts sldctl needs: executable sections, the
 * .modinfo blob and undefined symbols.
 *
 * Everything is validated in kofile_open*(): once it returns a handle,
 * every accessor only hands out pointers that lie inside the image, so
 * callers never need to bounds-check. Compression is detected by magic
 * bytes, not by file name, because modules get renamed and copied around.
 */
#ifndef SLDCTL_KOFILE_H
#define SLDCTL_KOFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ko_err {
	KO_OK = 0,
	KO_E_IO,		/* cannot open or read the file */
	KO_E_NOMEM,
	KO_E_TOO_BIG,		/* over kofile_size_cap, packed or unpacked */
	KO_E_COMPRESS,		/* corrupt, truncated or unsupported packing */
	KO_E_NOT_ELF,
	KO_E_NOT_X86_64_REL,	/* ELF, but not a 64-bit LE x86-64 ET_REL */
	KO_E_TRUNCATED,		/* headers or sections past the end */
	KO_E_MALFORMED,		/* inconsistent headers, names, symtab */
};

enum ko_packing { KO_PACK_NONE, KO_PACK_XZ, KO_PACK_ZSTD };

/* Default cap on both the file and its decompressed image: 256 MiB. */
#define KOFILE_DEFAULT_CAP	(256u << 20)

/* Tunable so the fuzzer can keep decompression bombs cheap. */
extern size_t kofile_size_cap;

struct ko_section {
	const char *name;	/* never NULL, NUL-terminated */
	const uint8_t *data;	/* NULL only when size == 0 */
	size_t size;
	unsigned int index;	/* ELF section index */
};

struct kofile;

/*
 * Open a module. On failure return the error and, when err is not NULL,
 * write a one-line reason without the file name ("not an ELF file").
 */
enum ko_err kofile_open(const char *path, struct kofile **out,
			char *err, size_t errlen);
/* Same on bytes in memory (copied, so buf may go away afterwards). */
enum ko_err kofile_open_mem(const void *buf, size_t len, struct kofile **out,
			    char *err, size_t errlen);
void kofile_close(struct kofile *ko);

enum ko_packing kofile_packing(const struct kofile *ko);
/* Size of the ELF image after decompression. */
size_t kofile_image_size(const struct kofile *ko);

/* SHF_EXECINSTR sections in section-header order. */
size_t kofile_exec_count(const struct kofile *ko);
const struct ko_section *kofile_exec(const struct kofile *ko, size_t i);

/* The .modinfo section contents, or NULL (and *len = 0) if absent. */
const char *kofile_modinfo(const struct kofile *ko, size_t *len);

/* True if some .symtab has sym as an undefined (SHN_UNDEF) symbol. */
bool kofile_imports(const struct kofile *ko, const char *sym);

const char *kofile_strerror(enum ko_err e);

#endif /* SLDCTL_KOFILE_H */
