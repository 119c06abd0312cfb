// SPDX-License-Identifier: GPL-2.0
/*
 * kofile: load a kernel module image and validate it with libelf.
 *
 * The whole file is read (and decompressed) into one heap buffer that we
 * own, then handed to elf_memory(). All the checks a hostile file could
 * trip are done once, here, so the rest of sldctl (and the fuzzer) can
 * use plain pointers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <zstd.h>

#include "kofile.h"
#include "util.h"

size_t kofile_size_cap = KOFILE_DEFAULT_CAP;

/* Real modules use 1-2 MiB xz dictionaries; refuse absurd ones early. */
#define XZ_MEMLIMIT	(128u << 20)

struct kofile {
	uint8_t *image;			/* decompressed ELF, owned */
	size_t size;
	enum ko_packing packing;
	Elf *elf;
	struct ko_section *exec;
	size_t nexec;
	const char *modinfo;
	size_t modinfo_len;
	const char **undef;		/* names of undefined symbols */
	size_t nundef;
};

static enum ko_err fail(char *err, size_t errlen, enum ko_err e,
			const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return e;
}

/* ---- growing output buffer, bounded by kofile_size_cap ---------------- */

struct outbuf {
	uint8_t *p;
	size_t len;			/* allocated */
};

/*
 * Grow to at most cap + 1 bytes: producing that extra byte is how we
 * notice an image over the cap without a separate probe.
 */
static int outbuf_grow(struct outbuf *o, size_t hint)
{
	size_t cap = kofile_size_cap + 1;
	size_t n = o->len ? o->len * 2 : hint;
	uint8_t *p;

	if (n < 65536)
		n = 65536;
	if (n > cap || n < o->len)
		n = cap;
	if (n <= o->len)
		return -1;
	p = realloc(o->p, n);
	if (!p)
		return -1;
	o->p = p;
	o->len = n;
	return 0;
}

static enum ko_err too_big_or_nomem(const struct outbuf *o, char *err,
				    size_t errlen)
{
	if (o->len > kofile_size_cap)
		return fail(err, errlen, KO_E_TOO_BIG,
			    "decompressed image larger than %zu MiB",
			    kofile_size_cap >> 20);
	return fail(err, errlen, KO_E_NOMEM, "out of memory");
}

/* ---- decompression ------------------------------------------------------ */

static const char *xz_msg(lzma_ret r)
{
	switch (r) {
	case LZMA_BUF_ERROR:		return "truncated xz data";
	case LZMA_MEMLIMIT_ERROR:	return "xz data needs too much memory";
	case LZMA_MEM_ERROR:		return "out of memory";
	case LZMA_OPTIONS_ERROR:	return "unsupported xz options";
	case LZMA_FORMAT_ERROR:		return "bad xz header";
	case LZMA_UNSUPPORTED_CHECK:	return "unsupported xz check type";
	default:			return "corrupt xz data";
	}
}

static enum ko_err unxz(const uint8_t *in, size_t inlen, struct outbuf *o,
			size_t *outlen, char *err, size_t errlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	enum ko_err e = KO_OK;
	lzma_ret r;

	r = lzma_stream_decoder(&s, XZ_MEMLIMIT, LZMA_CONCATENATED);
	if (r != LZMA_OK)
		return fail(err, errlen, KO_E_NOMEM, "out of memory");
	s.next_in = in;
	s.avail_in = inlen;
	for (;;) {
		if (s.avail_out == 0) {
			if (o->len > kofile_size_cap || outbuf_grow(o, inlen * 4)) {
				e = too_big_or_nomem(o, err, errlen);
				break;
			}
			s.next_out = o->p + s.total_out;
			s.avail_out = o->len - s.total_out;
		}
		r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			e = fail(err, errlen, r == LZMA_MEM_ERROR ?
				 KO_E_NOMEM : KO_E_COMPRESS, "%s", xz_msg(r));
			break;
		}
	}
	*outlen = s.total_out;
	lzma_end(&s);
	if (e == KO_OK && *outlen > kofile_size_cap)
		e = too_big_or_nomem(o, err, errlen);
	return e;
}

static enum ko_err unzstd(const uint8_t *in, size_t inlen, struct outbuf *o,
			  size_t *outlen, char *err, size_t errlen)
{
	ZSTD_inBuffer ib = { in, inlen, 0 };
	ZSTD_outBuffer ob = { NULL, 0, 0 };
	enum ko_err e = KO_OK;
	ZSTD_DStream *ds;
	size_t r;

	ds = ZSTD_createDStream();
	if (!ds)
		return fail(err, errlen, KO_E_NOMEM, "out of memory");
	/* The default window limit (128 MiB) also bounds memory use. */
	for (;;) {
		if (ob.pos == ob.size) {
			if (o->len > kofile_size_cap || outbuf_grow(o, inlen * 4)) {
				e = too_big_or_nomem(o, err, errlen);
				break;
			}
			ob.dst = o->p;
			ob.size = o->len;
		}
		r = ZSTD_decompressStream(ds, &ob, &ib);
		if (ZSTD_isError(r)) {
			e = fail(err, errlen, KO_E_COMPRESS, "corrupt zstd data (%s)",
				 ZSTD_getErrorName(r));
			break;
		}
		/* r == 0: a frame ended; done if no other frame follows. */
		if (r == 0 && ib.pos == ib.size)
			break;
		/* Input gone mid-frame and the decoder has nothing left. */
		if (ib.pos == ib.size && ob.pos < ob.size) {
			e = fail(err, errlen, KO_E_COMPRESS, "truncated zstd data");
			break;
		}
	}
	*outlen = ob.pos;
	ZSTD_freeDStream(ds);
	if (e == KO_OK && *outlen > kofile_size_cap)
		e = too_big_or_nomem(o, err, errlen);
	return e;
}

static bool is_xz(const uint8_t *b, size_t n)
{
	return n >= 6 && !memcmp(b, "\xfd" "7zXZ\0", 6);
}

static bool is_zstd(const uint8_t *b, size_t n)
{
	if (n < 4)
		return false;
	if (!memcmp(b, "\x28\xb5\x2f\xfd", 4))
		return true;
	/* Skippable frame: 0x184D2A5? little-endian. */
	return (b[0] & 0xf0) == 0x50 && !memcmp(b + 1, "\x2a\x4d\x18", 3);
}

/*
 * Turn the raw file bytes into an owned ELF image. Takes ownership of raw
 * (it becomes the image when the file is not packed).
 */
static enum ko_err unpack(uint8_t *raw, size_t len, struct kofile *ko,
			  char *err, size_t errlen)
{
	struct outbuf o = { NULL, 0 };
	size_t outlen = 0;
	enum ko_err e;

	if (is_xz(raw, len)) {
		ko->packing = KO_PACK_XZ;
		e = unxz(raw, len, &o, &outlen, err, errlen);
	} else if (is_zstd(raw, len)) {
		ko->packing = KO_PACK_ZSTD;
		e = unzstd(raw, len, &o, &outlen, err, errlen);
	} else {
		ko->packing = KO_PACK_NONE;
		ko->image = raw;
		ko->size = len;
		return KO_OK;
	}
	free(raw);
	if (e != KO_OK) {
		free(o.p);
		return e;
	}
	ko->image = o.p;
	ko->size = outlen;
	return KO_OK;
}

/* ---- ELF validation ----------------------------------------------------- */

static bool in_image(const struct kofile *ko, uint64_t off, uint64_t len)
{
	return off <= ko->size && len <= ko->size - off;
}

static const char *packed_note(const struct kofile *ko)
{
	switch (ko->packing) {
	case KO_PACK_XZ:	return " (after xz decompression)";
	case KO_PACK_ZSTD:	return " (after zstd decompression)";
	default:		return "";
	}
}

/*
 * Check the ELF header by hand before libelf sees it: this gives precise
 * messages ("32-bit", "truncated") where libelf would only say "invalid".
 */
static enum ko_err check_ehdr(const struct kofile *ko, char *err, size_t errlen)
{
	const uint8_t *b = ko->image;
	Elf64_Ehdr eh;
	Elf64_Shdr sh0;
	uint64_t shnum;

	if (ko->size < 4 || memcmp(b, ELFMAG, SELFMAG)) {
		if (ko->size >= 2 && b[0] == 0x1f && b[1] == 0x8b)
			return fail(err, errlen, KO_E_COMPRESS,
				    "gzip-compressed modules are not supported");
		return fail(err, errlen, KO_E_NOT_ELF, "not an ELF file%s",
			    packed_note(ko));
	}
	if (ko->size < EI_NIDENT)
		return fail(err, errlen, KO_E_TRUNCATED,
			    "truncated ELF header");
	if (b[EI_CLASS] != ELFCLASS64)
		return fail(err, errlen, KO_E_NOT_X86_64_REL,
			    "not an x86-64 module (%s ELF)",
			    b[EI_CLASS] == ELFCLASS32 ? "32-bit" : "unknown class");
	if (b[EI_DATA] != ELFDATA2LSB)
		return fail(err, errlen, KO_E_NOT_X86_64_REL,
			    "not an x86-64 module (not little-endian)");
	if (ko->size < sizeof(eh))
		return fail(err, errlen, KO_E_TRUNCATED,
			    "truncated ELF header");
	memcpy(&eh, b, sizeof(eh));
	if (eh.e_machine != EM_X86_64)
		return fail(err, errlen, KO_E_NOT_X86_64_REL,
			    "not an x86-64 module (e_machine %u)", eh.e_machine);
	if (eh.e_type != ET_REL)
		return fail(err, errlen, KO_E_NOT_X86_64_REL,
			    "not a relocatable object (e_type %u), so not a module",
			    eh.e_type);
	if (eh.e_shoff == 0)
		return fail(err, errlen, KO_E_MALFORMED, "no section headers");
	if (eh.e_shentsize != sizeof(Elf64_Shdr))
		return fail(err, errlen, KO_E_MALFORMED,
			    "bad section header size %u", eh.e_shentsize);
	if (!in_image(ko, eh.e_shoff, sizeof(sh0)))
		return fail(err, errlen, KO_E_TRUNCATED,
			    "truncated (section headers past end of file)");
	shnum = eh.e_shnum;
	if (shnum == 0) {
		/* Extended numbering: the count lives in section 0. */
		memcpy(&sh0, b + eh.e_shoff, sizeof(sh0));
		shnum = sh0.sh_size;
	}
	if (shnum > (ko->size - eh.e_shoff) / sizeof(Elf64_Shdr))
		return fail(err, errlen, KO_E_TRUNCATED,
			    "truncated (section headers past end of file)");
	return KO_OK;
}

static enum ko_err elf_fail(char *err, size_t errlen, const char *what)
{
	return fail(err, errlen, KO_E_MALFORMED, "malformed ELF (%s: %s)",
		    what, elf_errmsg(-1));
}

/* NOBITS and NULL sections occupy no file bytes: sh_offset means nothing. */
static bool has_bytes(const GElf_Shdr *sh)
{
	return sh->sh_type != SHT_NOBITS && sh->sh_type != SHT_NULL;
}

/* Bounds check for one section header. */
static enum ko_err check_shdr(const struct kofile *ko, size_t idx,
			      const GElf_Shdr *sh, char *err, size_t errlen)
{
	if (!has_bytes(sh))
		return KO_OK;
	if (!in_image(ko, sh->sh_offset, sh->sh_size))
		return fail(err, errlen, KO_E_TRUNCATED,
			    "truncated (section %zu extends past end of file)",
			    idx);
	return KO_OK;
}

static enum ko_err add_exec(struct kofile *ko, size_t idx, const char *name,
			    const GElf_Shdr *sh, char *err, size_t errlen)
{
	struct ko_section *s;
	size_t size = 0;

	/* NOBITS text has no bytes to scan; keep it so it shows as empty. */
	if (has_bytes(sh))
		size = sh->sh_size;
	s = realloc(ko->exec, (ko->nexec + 1) * sizeof(*s));
	if (!s)
		return fail(err, errlen, KO_E_NOMEM, "out of memory");
	ko->exec = s;
	s += ko->nexec++;
	s->name = name;
	s->data = size ? ko->image + sh->sh_offset : NULL;
	s->size = size;
	s->index = idx;
	return KO_OK;
}

/* Record the names of undefined symbols in one SHT_SYMTAB section. */
static enum ko_err read_symtab(struct kofile *ko, Elf_Scn *scn, size_t idx,
			       const GElf_Shdr *sh, size_t shnum,
			       char *err, size_t errlen)
{
	GElf_Shdr strsh;
	Elf_Data *d;
	GElf_Sym sym;
	size_t n, i;
	const char **u;

	if (sh->sh_entsize != sizeof(Elf64_Sym) ||
	    sh->sh_size % sizeof(Elf64_Sym))
		return fail(err, errlen, KO_E_MALFORMED,
			    "malformed symbol table (section %zu: bad entry size)",
			    idx);
	if (sh->sh_link == 0 || sh->sh_link >= shnum ||
	    !gelf_getshdr(elf_getscn(ko->elf, sh->sh_link), &strsh) ||
	    strsh.sh_type != SHT_STRTAB)
		return fail(err, errlen, KO_E_MALFORMED,
			    "malformed symbol table (section %zu: bad string table link)",
			    idx);
	d = elf_getdata(scn, NULL);
	if (!d)
		return elf_fail(err, errlen, "symbol table");
	n = sh->sh_size / sizeof(Elf64_Sym);
	for (i = 1; i < n; i++) {
		const char *name;

		if (!gelf_getsym(d, i, &sym))
			return elf_fail(err, errlen, "symbol");
		if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0)
			continue;
		/* elf_strptr checks the offset and the terminating NUL. */
		name = elf_strptr(ko->elf, sh->sh_link, sym.st_name);
		if (!name)
			return fail(err, errlen, KO_E_MALFORMED,
				    "malformed symbol table (symbol %zu: bad name)",
				    i);
		u = realloc(ko->undef, (ko->nundef + 1) * sizeof(*u));
		if (!u)
			return fail(err, errlen, KO_E_NOMEM, "out of memory");
		ko->undef = u;
		ko->undef[ko->nundef++] = name;
	}
	return KO_OK;
}

static enum ko_err walk_sections(struct kofile *ko, char *err, size_t errlen)
{
	size_t shnum, shstrndx, idx;
	enum ko_err e;

	if (elf_getshdrnum(ko->elf, &shnum) || elf_getshdrstrndx(ko->elf, &shstrndx))
		return elf_fail(err, errlen, "section headers");
	if (shstrndx == SHN_UNDEF || shstrndx >= shnum)
		return fail(err, errlen, KO_E_MALFORMED,
			    "malformed ELF (no section name table)");
	for (idx = 1; idx < shnum; idx++) {
		Elf_Scn *scn = elf_getscn(ko->elf, idx);
		GElf_Shdr sh;
		const char *name;

		if (!scn || !gelf_getshdr(scn, &sh))
			return elf_fail(err, errlen, "section header");
		e = check_shdr(ko, idx, &sh, err, errlen);
		if (e)
			return e;
		name = elf_strptr(ko->elf, shstrndx, sh.sh_name);
		if (!name)
			return fail(err, errlen, KO_E_MALFORMED,
				    "malformed ELF (section %zu: bad name)", idx);
		if (sh.sh_flags & SHF_EXECINSTR) {
			e = add_exec(ko, idx, name, &sh, err, errlen);
			if (e)
				return e;
		}
		if (!ko->modinfo && !strcmp(name, ".modinfo") &&
		    has_bytes(&sh)) {
			ko->modinfo = (const char *)ko->image + sh.sh_offset;
			ko->modinfo_len = sh.sh_size;
		}
		if (sh.sh_type == SHT_SYMTAB) {
			e = read_symtab(ko, scn, idx, &sh, shnum, err, errlen);
			if (e)
				return e;
		}
	}
	return KO_OK;
}

static enum ko_err load_elf(struct kofile *ko, char *err, size_t errlen)
{
	enum ko_err e;

	e = check_ehdr(ko, err, errlen);
	if (e)
		return e;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return elf_fail(err, errlen, "libelf");
	ko->elf = elf_memory((char *)ko->image, ko->size);
	if (!ko->elf)
		return elf_fail(err, errlen, "elf_memory");
	if (elf_kind(ko->elf) != ELF_K_ELF)
		return fail(err, errlen, KO_E_NOT_ELF, "not an ELF file%s",
			    packed_note(ko));
	return walk_sections(ko, err, errlen);
}

/* ---- public API --------------------------------------------------------- */

/* Takes ownership of raw in all cases. */
static enum ko_err open_raw(uint8_t *raw, size_t len, struct kofile **out,
			    char *err, size_t errlen)
{
	struct kofile *ko;
	enum ko_err e;

	*out = NULL;
	ko = calloc(1, sizeof(*ko));
	if (!ko) {
		free(raw);
		return fail(err, errlen, KO_E_NOMEM, "out of memory");
	}
	e = unpack(raw, len, ko, err, errlen);
	if (e == KO_OK)
		e = load_elf(ko, err, errlen);
	if (e != KO_OK) {
		kofile_close(ko);
		return e;
	}
	*out = ko;
	return KO_OK;
}

enum ko_err kofile_open_mem(const void *buf, size_t len, struct kofile **out,
			    char *err, size_t errlen)
{
	uint8_t *raw;

	*out = NULL;
	if (len > kofile_size_cap)
		return fail(err, errlen, KO_E_TOO_BIG,
			    "file larger than %zu MiB", kofile_size_cap >> 20);
	/* Own, aligned copy: libelf may point straight into it. */
	raw = malloc(len ? len : 1);
	if (!raw)
		return fail(err, errlen, KO_E_NOMEM, "out of memory");
	if (len)
		memcpy(raw, buf, len);
	return open_raw(raw, len, out, err, errlen);
}

static enum ko_err read_fd(int fd, uint8_t **rawp, size_t *lenp,
			   char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	int r;

	if (fstat(fd, &st))
		return fail(err, errlen, KO_E_IO, "cannot stat: %s",
			    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fail(err, errlen, KO_E_IO, "is a directory");
	r = sldctl_read_fd(fd, kofile_size_cap, &buf, lenp);
	if (r == -EFBIG)
		return fail(err, errlen, KO_E_TOO_BIG, "file larger than %zu MiB",
			    kofile_size_cap >> 20);
	if (r == -ENOMEM)
		return fail(err, errlen, KO_E_NOMEM, "out of memory");
	if (r)
		return fail(err, errlen, KO_E_IO, "cannot read: %s", strerror(-r));
	*rawp = (uint8_t *)buf;
	return KO_OK;
}

enum ko_err kofile_open(const char *path, struct kofile **out,
			char *err, size_t errlen)
{
	uint8_t *raw = NULL;
	size_t len = 0;
	enum ko_err e;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, KO_E_IO, "cannot open: %s",
			    strerror(errno));
	e = read_fd(fd, &raw, &len, err, errlen);
	close(fd);
	if (e)
		return e;
	return open_raw(raw, len, out, err, errlen);
}

void kofile_close(struct kofile *ko)
{
	if (!ko)
		return;
	if (ko->elf)
		elf_end(ko->elf);
	free(ko->exec);
	free(ko->undef);
	free(ko->image);
	free(ko);
}

enum ko_packing kofile_packing(const struct kofile *ko)
{
	return ko->packing;
}

size_t kofile_image_size(const struct kofile *ko)
{
	return ko->size;
}

size_t kofile_exec_count(const struct kofile *ko)
{
	return ko->nexec;
}

const struct ko_section *kofile_exec(const struct kofile *ko, size_t i)
{
	return i < ko->nexec ? &ko->exec[i] : NULL;
}

const char *kofile_modinfo(const struct kofile *ko, size_t *len)
{
	*len = ko->modinfo_len;
	return ko->modinfo;
}

bool kofile_imports(const struct kofile *ko, const char *sym)
{
	size_t i;

	for (i = 0; i < ko->nundef; i++)
		if (!strcmp(ko->undef[i], sym))
			return true;
	return false;
}

const char *kofile_strerror(enum ko_err e)
{
	switch (e) {
	case KO_OK:			return "success";
	case KO_E_IO:			return "cannot read file";
	case KO_E_NOMEM:		return "out of memory";
	case KO_E_TOO_BIG:		return "file too large";
	case KO_E_COMPRESS:		return "bad compressed data";
	case KO_E_NOT_ELF:		return "not an ELF file";
	case KO_E_NOT_X86_64_REL:	return "not an x86-64 relocatable ELF";
	case KO_E_TRUNCATED:		return "truncated file";
	case KO_E_MALFORMED:		return "malformed ELF";
	}
	return "unknown error";
}
