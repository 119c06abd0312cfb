// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for sldctl's module reader (kofile), JSON writer and scan
 * logic. Test modules are built by sldctl.mk into SLDCTL_DATA_DIR; broken
 * inputs are made here by patching copies in memory.
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "schema/hypervisors.h"
#include "lib/json.h"
#include "lib/kofile.h"
#include "modlib/modinfo.h"
#include "scan.h"
#include "modlib/verdict.h"
#include "x86scan/x86scan.h"

#ifndef SLDCTL_DATA_DIR
#error "SLDCTL_DATA_DIR must be set by sldctl.mk"
#endif

static uint8_t *slurp(const char *name, size_t *len)
{
	char path[512];
	uint8_t *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SLDCTL_DATA_DIR, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

static struct kofile *open_data(const char *name)
{
	char path[512], err[256] = "";
	struct kofile *ko = NULL;
	enum ko_err e;

	snprintf(path, sizeof(path), "%s/%s", SLDCTL_DATA_DIR, name);
	e = kofile_open(path, &ko, err, sizeof(err));
	if (e != KO_OK)
		fail_msg("%s: %s", name, err);
	return ko;
}

static enum ko_err open_bytes(const void *buf, size_t len, char *err,
			      size_t errlen)
{
	struct kofile *ko = NULL;
	enum ko_err e;

	e = kofile_open_mem(buf, len, &ko, err, errlen);
	if (e == KO_OK)
		assert_non_null(ko);
	else
		assert_null(ko);
	kofile_close(ko);
	return e;
}

static const struct ko_section *find_exec(const struct kofile *ko,
					  const char *name)
{
	size_t i;

	for (i = 0; i < kofile_exec_count(ko); i++)
		if (!strcmp(kofile_exec(ko, i)->name, name))
			return kofile_exec(ko, i);
	return NULL;
}

/* ---- reading good modules ------------------------------------------------ */

static void check_vmx_module(const char *name, enum ko_packing packing)
{
	struct kofile *ko = open_data(name);
	const struct ko_section *text, *init;
	const char *mi;
	size_t len;

	assert_int_equal(kofile_packing(ko), packing);
	text = find_exec(ko, ".text");
	init = find_exec(ko, ".init.text");
	assert_non_null(text);
	assert_non_null(init);
	assert_int_equal(text->size, 8);
	assert_memory_equal(text->data, "\x90\x0f\x01\xc2\x0f\x01\xc3\xc3", 8);
	assert_int_equal(init->size, 6);
	assert_null(find_exec(ko, ".modinfo"));
	mi = kofile_modinfo(ko, &len);
	assert_non_null(mi);
	assert_string_equal(sld_modinfo_get(mi, len, "name"), "sld_vmx");
	assert_false(sld_modinfo_sld_safe(mi, len));
	assert_false(kofile_imports(ko, "handle_guest_split_lock"));
	kofile_close(ko);
}

static void test_open_plain(void **state)
{
	(void)state;
	check_vmx_module("sld_vmx.ko", KO_PACK_NONE);
}

static void test_open_xz(void **state)
{
	(void)state;
	check_vmx_module("sld_vmx.ko.xz", KO_PACK_XZ);
}

static void test_open_zstd(void **state)
{
	(void)state;
	check_vmx_module("sld_vmx.ko.zst", KO_PACK_ZSTD);
}

static void test_imports(void **state)
{
	struct kofile *ko;

	(void)state;
	ko = open_data("sld_imports.ko");
	assert_true(kofile_imports(ko, "handle_guest_split_lock"));
	assert_false(kofile_imports(ko, "handle_guest_split"));
	assert_false(kofile_imports(ko, "sld_imports_ac"));	/* defined */
	kofile_close(ko);

	ko = open_data("sld_defines.ko.zst");
	assert_false(kofile_imports(ko, "handle_guest_split_lock"));
	kofile_close(ko);
}

/* ---- verdicts ------------------------------------------------------------ */

struct expect {
	const char *file;
	const char *module;
	enum sld_verdict verdict;
	enum sld_reason reason;
	bool sld_safe;
	bool imports;
};

static void check_verdict(const struct expect *x)
{
	struct kofile *ko = open_data(x->file);
	struct scan_report r;

	assert_int_equal(scan_kofile(ko, x->file, &r), 0);
	if (x->module)
		assert_string_equal(r.module, x->module);
	else
		assert_null(r.module);
	assert_int_equal(r.verdict, x->verdict);
	assert_int_equal(r.reason, x->reason);
	assert_int_equal(r.sld_safe, x->sld_safe);
	assert_int_equal(r.imports_handler, x->imports);
	assert_int_equal(scan_exit_code(&r), x->verdict == SLD_V_HYPERVISOR);
	scan_report_free(&r);
	kofile_close(ko);
}

static void test_verdicts(void **state)
{
	static const struct expect xs[] = {
		{ "sld_vmx.ko", "sld_vmx", SLD_V_HYPERVISOR, SLD_R_VMX_TEXT, false, false },
		{ "sld_vmx.ko.xz", "sld_vmx", SLD_V_HYPERVISOR, SLD_R_VMX_TEXT, false, false },
		{ "sld_safe.ko", "sld_safe", SLD_V_SAFE, SLD_R_MODINFO_SAFE, true, false },
		{ "sld_imports.ko.zst", "sld_imports", SLD_V_SAFE, SLD_R_IMPORTS_HANDLER, false, true },
		{ "sld_defines.ko", "sld_defines", SLD_V_HYPERVISOR, SLD_R_VMX_TEXT, false, false },
		{ "sld_svm.ko", "sld_svm", SLD_V_SVM_ONLY, SLD_R_SVM_TEXT, false, false },
		{ "sld_clean.ko", "sld_clean", SLD_V_CLEAN, SLD_R_NONE, false, false },
		{ "sld_noname.ko", NULL, SLD_V_CLEAN, SLD_R_NONE, false, false },
		/* VMX in .init.text only: init findings never count. */
		{ "sld_initvmx.ko", "sld_initvmx", SLD_V_CLEAN, SLD_R_NONE, false, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		check_verdict(&xs[i]);
}

static void test_findings(void **state)
{
	struct kofile *ko = open_data("sld_vmx.ko");
	struct scan_report r;
	bool seen[3] = { false };
	size_t i;

	(void)state;
	assert_int_equal(scan_kofile(ko, "sld_vmx.ko", &r), 0);
	assert_int_equal(r.nhits, 3);
	for (i = 0; i < r.nhits; i++) {
		const char *sec = kofile_exec(ko, r.hits[i].sec)->name;

		switch (r.hits[i].find) {
		case X86_F_VMLAUNCH:
			assert_string_equal(sec, ".text");
			assert_int_equal(r.hits[i].off, 1);
			seen[0] = true;
			break;
		case X86_F_VMRESUME:
			assert_string_equal(sec, ".text");
			assert_int_equal(r.hits[i].off, 4);
			seen[1] = true;
			break;
		case X86_F_VMXON:
			assert_string_equal(sec, ".init.text");
			assert_int_equal(r.hits[i].off, 1);
			seen[2] = true;
			break;
		default:
			fail_msg("unexpected finding %s", x86_find_name(r.hits[i].find));
		}
	}
	assert_true(seen[0] && seen[1] && seen[2]);
	assert_int_equal(r.st.count[X86_F_VMLAUNCH], 1);
	assert_int_equal(r.st.first[X86_F_VMRESUME], 4);
	/* The .init.text vmxon is a finding, counted apart (init_st). */
	assert_int_equal(r.st.count[X86_F_VMXON], 0);
	assert_int_equal(r.first_sec[X86_F_VMXON], -1);
	assert_int_equal(r.init_st.count[X86_F_VMXON], 1);
	assert_int_equal(r.init_st.count[X86_F_VMLAUNCH], 0);
	assert_int_equal(r.init_st.first[X86_F_VMXON], 1);
	assert_string_equal(kofile_exec(ko, r.init_first_sec[X86_F_VMXON])->name,
			    ".init.text");
	scan_report_free(&r);
	kofile_close(ko);

	ko = open_data("sld_svm.ko.xz");
	assert_int_equal(scan_kofile(ko, "sld_svm.ko.xz", &r), 0);
	assert_int_equal(r.nhits, 1);
	assert_int_equal(r.hits[0].find, X86_F_VMRUN);
	assert_int_equal(r.hits[0].off, 2);
	scan_report_free(&r);
	kofile_close(ko);
}

/* Without name=, the file name is what the built-in table is matched on. */
static void test_name_fallback(void **state)
{
	struct kofile *ko = open_data("sld_noname.ko");
	struct scan_report r;
	const char *why;

	(void)state;
	assert_int_equal(scan_kofile(ko, "/some/dir/vbox-drv.ko.xz", &r), 0);
	assert_null(r.module);
	assert_string_equal(r.fallback, "vbox_drv");
	scan_report_free(&r);

	if (sld_known_hypervisor("vboxdrv", &why)) {
		assert_int_equal(scan_kofile(ko, "vboxdrv.ko", &r), 0);
		assert_int_equal(r.verdict, SLD_V_HYPERVISOR);
		assert_int_equal(r.reason, SLD_R_KNOWN_HYPERVISOR);
		scan_report_free(&r);
	}
	kofile_close(ko);
}

/* ---- bad input ------------------------------------------------------------- */

static void test_not_elf(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(open_bytes("", 0, err, sizeof(err)), KO_E_NOT_ELF);
	assert_string_equal(err, "not an ELF file");
	assert_int_equal(open_bytes("hello world\n", 12, err, sizeof(err)),
			 KO_E_NOT_ELF);
	assert_int_equal(open_bytes("\x7f" "EL", 3, err, sizeof(err)),
			 KO_E_NOT_ELF);
	assert_int_equal(open_bytes("\x1f\x8b\x08\x00", 4, err, sizeof(err)),
			 KO_E_COMPRESS);
	assert_non_null(strstr(err, "gzip"));
}

static void test_open_path_errors(void **state)
{
	struct kofile *ko;
	char err[256];

	(void)state;
	assert_int_equal(kofile_open("/nonexistent/x.ko", &ko, err, sizeof(err)),
			 KO_E_IO);
	assert_null(ko);
	assert_string_equal(err, "cannot open: No such file or directory");
	assert_int_equal(kofile_open(SLDCTL_DATA_DIR, &ko, err, sizeof(err)),
			 KO_E_IO);
	assert_string_equal(err, "is a directory");
}

static void test_32bit(void **state)
{
	struct kofile *ko;
	char err[256];

	(void)state;
	assert_int_equal(kofile_open(SLDCTL_DATA_DIR "/m32_vmx.ko", &ko, err,
				     sizeof(err)), KO_E_NOT_X86_64_REL);
	assert_non_null(strstr(err, "32-bit"));
}

static void test_truncated_every_length(void **state)
{
	size_t len, n;
	uint8_t *buf = slurp("sld_vmx.ko", &len);
	char err[256];

	(void)state;
	for (n = 0; n < len; n++) {
		enum ko_err e = open_bytes(buf, n, err, sizeof(err));

		assert_int_not_equal(e, KO_OK);
		if (n >= sizeof(Elf64_Ehdr))
			assert_int_equal(e, KO_E_TRUNCATED);
	}
	assert_int_equal(open_bytes(buf, len, err, sizeof(err)), KO_OK);
	free(buf);
}

static Elf64_Shdr *shdr(uint8_t *buf, unsigned int i)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;

	return (Elf64_Shdr *)(buf + eh->e_shoff) + i;
}

static unsigned int find_shtype(uint8_t *buf, uint32_t type)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	unsigned int i;

	for (i = 1; i < eh->e_shnum; i++)
		if (shdr(buf, i)->sh_type == type)
			return i;
	fail_msg("no section of type %u", type);
	return 0;
}

/* Apply one patch to a fresh copy and expect error e. */
typedef void (*patch_fn)(uint8_t *buf, size_t len);

static void expect_patched(patch_fn patch, enum ko_err e, const char *msg)
{
	size_t len;
	uint8_t *buf = slurp("sld_imports.ko", &len);
	char err[256] = "";

	patch(buf, len);
	assert_int_equal(open_bytes(buf, len, err, sizeof(err)), e);
	if (msg && !strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
	free(buf);
}

static void p_machine(uint8_t *b, size_t l)
{
	(void)l;
	((Elf64_Ehdr *)b)->e_machine = EM_386;
}

static void p_type(uint8_t *b, size_t l)
{
	(void)l;
	((Elf64_Ehdr *)b)->e_type = ET_EXEC;
}

static void p_bigendian(uint8_t *b, size_t l)
{
	(void)l;
	b[EI_DATA] = ELFDATA2MSB;
}

static void p_shoff(uint8_t *b, size_t l)
{
	((Elf64_Ehdr *)b)->e_shoff = l - 10;
}

static void p_shoff_huge(uint8_t *b, size_t l)
{
	(void)l;
	((Elf64_Ehdr *)b)->e_shoff = UINT64_MAX - 8;
}

static void p_shentsize(uint8_t *b, size_t l)
{
	(void)l;
	((Elf64_Ehdr *)b)->e_shentsize = 40;
}

static void p_shstrndx(uint8_t *b, size_t l)
{
	(void)l;
	((Elf64_Ehdr *)b)->e_shstrndx = 0x7fff;
}

static void p_text_offset(uint8_t *b, size_t l)
{
	shdr(b, 1)->sh_offset = l - 2;
	shdr(b, 1)->sh_size = 4;
}

static void p_text_size_wrap(uint8_t *b, size_t l)
{
	(void)l;
	shdr(b, 1)->sh_size = UINT64_MAX;
}

static void p_name(uint8_t *b, size_t l)
{
	(void)l;
	shdr(b, 1)->sh_name = 0xfffff;
}

static void p_sym_entsize(uint8_t *b, size_t l)
{
	(void)l;
	shdr(b, find_shtype(b, SHT_SYMTAB))->sh_entsize = 16;
}

static void p_sym_link(uint8_t *b, size_t l)
{
	(void)l;
	/* Section 1 is .text, not a string table. */
	shdr(b, find_shtype(b, SHT_SYMTAB))->sh_link = 1;
}

static void p_sym_link_range(uint8_t *b, size_t l)
{
	(void)l;
	shdr(b, find_shtype(b, SHT_SYMTAB))->sh_link = 9999;
}

static void p_sym_name(uint8_t *b, size_t l)
{
	Elf64_Shdr *st = shdr(b, find_shtype(b, SHT_SYMTAB));
	Elf64_Sym *sym = (Elf64_Sym *)(b + st->sh_offset);
	size_t i, n = st->sh_size / sizeof(*sym);

	(void)l;
	for (i = 1; i < n; i++)
		if (sym[i].st_shndx == SHN_UNDEF)
			sym[i].st_name = 0x7fffffff;
}

/* A string table whose last byte is not NUL: names could run off its end. */
static void p_strtab_unterminated(uint8_t *b, size_t l)
{
	Elf64_Shdr *st = shdr(b, find_shtype(b, SHT_SYMTAB));
	Elf64_Shdr *str = shdr(b, st->sh_link);

	(void)l;
	b[str->sh_offset + str->sh_size - 1] = 'X';
}

static void test_malformed(void **state)
{
	(void)state;
	expect_patched(p_machine, KO_E_NOT_X86_64_REL, "x86-64");
	expect_patched(p_type, KO_E_NOT_X86_64_REL, "relocatable");
	expect_patched(p_bigendian, KO_E_NOT_X86_64_REL, "little-endian");
	expect_patched(p_shoff, KO_E_TRUNCATED, "truncated");
	expect_patched(p_shoff_huge, KO_E_TRUNCATED, "truncated");
	expect_patched(p_shentsize, KO_E_MALFORMED, NULL);
	expect_patched(p_shstrndx, KO_E_MALFORMED, NULL);
	expect_patched(p_text_offset, KO_E_TRUNCATED, "section 1");
	expect_patched(p_text_size_wrap, KO_E_TRUNCATED, "section 1");
	expect_patched(p_name, KO_E_MALFORMED, "bad name");
	expect_patched(p_sym_entsize, KO_E_MALFORMED, "entry size");
	expect_patched(p_sym_link, KO_E_MALFORMED, "string table");
	expect_patched(p_sym_link_range, KO_E_MALFORMED, "string table");
	expect_patched(p_sym_name, KO_E_MALFORMED, "bad name");
}

/* Unterminated strtab: either refused, or the name is not misread. */
static void test_strtab_unterminated(void **state)
{
	struct kofile *ko = NULL;
	size_t len;
	uint8_t *buf = slurp("sld_imports.ko", &len);
	char err[256];

	(void)state;
	p_strtab_unterminated(buf, len);
	if (kofile_open_mem(buf, len, &ko, err, sizeof(err)) == KO_OK)
		kofile_close(ko);
	free(buf);
}

/* Every single-byte change of a good module: no crash, no leak (ASan). */
static void test_byte_flips(void **state)
{
	size_t len, i;
	uint8_t *buf = slurp("sld_imports.ko", &len);
	static const uint8_t vals[] = { 0x00, 0xff, 0x80, 0x01 };
	char err[256];

	(void)state;
	for (i = 0; i < len; i++) {
		uint8_t saved = buf[i];
		size_t v;

		for (v = 0; v < sizeof(vals); v++) {
			struct kofile *ko = NULL;
			struct scan_report r;

			buf[i] = vals[v];
			if (kofile_open_mem(buf, len, &ko, err, sizeof(err)))
				continue;
			assert_int_equal(scan_kofile(ko, "x.ko", &r), 0);
			scan_report_free(&r);
			kofile_close(ko);
		}
		buf[i] = saved;
	}
	free(buf);
}

static void test_bad_compression(void **state)
{
	size_t len;
	uint8_t *xz = slurp("sld_vmx.ko.xz", &len);
	uint8_t *zs, *big;
	size_t zlen;
	char err[256];

	(void)state;
	/* Truncated xz, anywhere after the magic. */
	assert_int_equal(open_bytes(xz, len - 1, err, sizeof(err)), KO_E_COMPRESS);
	assert_int_equal(open_bytes(xz, len / 2, err, sizeof(err)), KO_E_COMPRESS);
	assert_int_equal(open_bytes(xz, 6, err, sizeof(err)), KO_E_COMPRESS);
	/* Corrupt payload (xz checks a CRC). */
	xz[len / 2] ^= 0x55;
	assert_int_equal(open_bytes(xz, len, err, sizeof(err)), KO_E_COMPRESS);
	xz[len / 2] ^= 0x55;
	/* Trailing garbage after the stream. */
	big = malloc(len + 8);
	assert_non_null(big);
	memcpy(big, xz, len);
	memcpy(big + len, "garbage!", 8);
	assert_int_equal(open_bytes(big, len + 8, err, sizeof(err)), KO_E_COMPRESS);
	free(big);

	zs = slurp("sld_vmx.ko.zst", &zlen);
	assert_int_equal(open_bytes(zs, zlen - 1, err, sizeof(err)), KO_E_COMPRESS);
	assert_non_null(strstr(err, "zstd"));
	assert_int_equal(open_bytes(zs, 4, err, sizeof(err)), KO_E_COMPRESS);
	zs[zlen / 2] ^= 0x55;
	assert_int_equal(open_bytes(zs, zlen, err, sizeof(err)), KO_E_COMPRESS);
	free(zs);
	free(xz);
}

/* An empty zstd stream (one skippable frame) is not an ELF file. */
static void test_zstd_skippable_only(void **state)
{
	static const uint8_t skip[] = { 0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 'h', 'i' };
	char err[256];

	(void)state;
	assert_int_equal(open_bytes(skip, sizeof(skip), err, sizeof(err)),
			 KO_E_NOT_ELF);
	assert_non_null(strstr(err, "after zstd"));
}

static void test_size_cap(void **state)
{
	size_t saved = kofile_size_cap, len;
	uint8_t *buf = slurp("sld_vmx.ko", &len);
	char err[256];

	(void)state;
	kofile_size_cap = len - 1;
	assert_int_equal(open_bytes(buf, len, err, sizeof(err)), KO_E_TOO_BIG);
	free(buf);
	/* The packed file is small; the image is what goes over. */
	buf = slurp("sld_vmx.ko.xz", &len);
	assert_true(len < kofile_size_cap);
	assert_int_equal(open_bytes(buf, len, err, sizeof(err)), KO_E_TOO_BIG);
	free(buf);
	buf = slurp("sld_vmx.ko.zst", &len);
	assert_int_equal(open_bytes(buf, len, err, sizeof(err)), KO_E_TOO_BIG);
	free(buf);
	kofile_size_cap = saved;
}

/* ---- JSON ------------------------------------------------------------------- */

static char *escaped(const char *s, size_t len)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(f);
	json_write_escaped(f, s, len);
	fclose(f);
	return out;
}

#define ESC(in, want) do {						\
	char *got = escaped(in, sizeof(in) - 1);			\
	assert_string_equal(got, want);					\
	free(got);							\
} while (0)

static void test_json_escape(void **state)
{
	(void)state;
	ESC("plain", "plain");
	ESC("a\"b\\c", "a\\\"b\\\\c");
	ESC("\n\r\t\b\f", "\\n\\r\\t\\b\\f");
	ESC("\x01\x1f\x7f", "\\u0001\\u001f\\u007f");
	ESC("nul\0x", "nul\\u0000x");
	ESC("caf\xc3\xa9", "caf\xc3\xa9");			/* valid UTF-8 */
	ESC("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");		/* 4 bytes */
	ESC("\xff", "\\u00ff");					/* never valid */
	ESC("\xc0\xaf", "\\u00c0\\u00af");			/* overlong */
	ESC("\xe0\x80\xaf", "\\u00e0\\u0080\\u00af");		/* overlong */
	ESC("\xed\xa0\x80", "\\u00ed\\u00a0\\u0080");		/* surrogate */
	ESC("\xf4\x90\x80\x80", "\\u00f4\\u0090\\u0080\\u0080");	/* > U+10FFFF */
	ESC("\xe2\x82", "\\u00e2\\u0082");			/* cut short */
	ESC("\x80x", "\\u0080x");				/* stray continuation */
}

static void test_json_structure(void **state)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	struct json j;

	(void)state;
	json_init(&j, f, false);
	json_begin_array(&j);
	json_begin_object(&j);
	json_key(&j, "a");
	json_uint(&j, 18446744073709551615ull);
	json_key(&j, "b");
	json_begin_array(&j);
	json_bool(&j, true);
	json_null(&j);
	json_string(&j, NULL);
	json_end_array(&j);
	json_key(&j, "e");
	json_begin_array(&j);
	json_end_array(&j);
	json_end_object(&j);
	json_string(&j, "x");
	json_begin_object(&j);
	json_end_object(&j);
	json_end_array(&j);
	json_end(&j);
	fclose(f);
	assert_string_equal(out,
		"[{\"a\":18446744073709551615,\"b\":[true,null,null],\"e\":[]},\"x\",{}]\n");
	free(out);
}

/* Pretty mode: one key per line, but flat objects stay on one line. */
static void test_json_pretty(void **state)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	struct json j;

	(void)state;
	json_init(&j, f, true);
	json_begin_array(&j);
	json_begin_object(&j);
	json_key(&j, "k");
	json_begin_array(&j);
	json_begin_object_flat(&j);
	json_key(&j, "a");
	json_uint(&j, 1);
	json_key(&j, "b");
	json_string(&j, "x");
	json_end_object(&j);
	json_begin_object_flat(&j);
	json_end_object(&j);
	json_end_array(&j);
	json_key(&j, "z");
	json_bool(&j, false);
	json_end_object(&j);
	json_end_array(&j);
	json_end(&j);
	fclose(f);
	assert_string_equal(out,
		"[\n"
		"  {\n"
		"    \"k\": [\n"
		"      {\"a\": 1, \"b\": \"x\"},\n"
		"      {}\n"
		"    ],\n"
		"    \"z\": false\n"
		"  }\n"
		"]\n");
	free(out);
}

/* The report object carries the keys the spec asks for. */
static void test_json_report(void **state)
{
	struct kofile *ko = open_data("sld_svm.ko");
	struct scan_report r;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	struct json j;

	(void)state;
	assert_int_equal(scan_kofile(ko, "dir/sld\"svm.ko", &r), 0);
	json_init(&j, f, false);
	scan_print_json(&j, ko, &r);
	fclose(f);
	assert_non_null(strstr(out, "\"file\":\"dir/sld\\\"svm.ko\""));
	assert_non_null(strstr(out, "\"module\":\"sld_svm\""));
	assert_non_null(strstr(out, "\"sld_safe\":false"));
	assert_non_null(strstr(out, "\"verdict\":\""));
	assert_non_null(strstr(out, "\"reason\":\""));
	assert_non_null(strstr(out,
		"\"findings\":[{\"section\":\".text\",\"offset\":2,\"insn\":\"vmrun\"}]"));
	free(out);
	scan_report_free(&r);
	kofile_close(ko);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_plain),
		cmocka_unit_test(test_open_xz),
		cmocka_unit_test(test_open_zstd),
		cmocka_unit_test(test_imports),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_name_fallback),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_open_path_errors),
		cmocka_unit_test(test_32bit),
		cmocka_unit_test(test_truncated_every_length),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_strtab_unterminated),
		cmocka_unit_test(test_byte_flips),
		cmocka_unit_test(test_bad_compression),
		cmocka_unit_test(test_zstd_skippable_only),
		cmocka_unit_test(test_size_cap),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_json_structure),
		cmocka_unit_test(test_json_pretty),
		cmocka_unit_test(test_json_report),
	};

	return cmocka_run_group_tests_name("sldctl_kofile", tests, NULL, NULL);
}
