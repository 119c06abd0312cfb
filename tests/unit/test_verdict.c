// SPDX-License-Identifier: GPL-2.0
/*
 * modlib: .modinfo helpers, the verdict rule, and the finding a report
 * names (src/modlib/).
 */
#include "schema/hypervisors.h"
#include "test_x86util.h"
#include "modlib/modinfo.h"
#include "modlib/verdict.h"

static const char *get(const char *blob, size_t len, const char *key)
{
	char *b = (char *)exact((const uint8_t *)blob, len);
	const char *v = sld_modinfo_get(b, len, key);
	static char out[64];

	if (!v) {
		free(b);
		return NULL;
	}
	snprintf(out, sizeof(out), "%s", v);
	free(b);
	return out;
}

#define BLOB(s) s, sizeof(s) - 1	/* without the C string's own NUL */

static void test_modinfo_get(void **state)
{
	(void)state;
	assert_string_equal(get(BLOB("license=GPL\0sld_safe=Y\0"), "sld_safe"), "Y");
	assert_string_equal(get(BLOB("sld_safe=Y\0license=GPL\0"), "license"), "GPL");
	assert_string_equal(get(BLOB("a=\0"), "a"), "");
	/* key must match whole: no prefix or suffix matches */
	assert_null(get(BLOB("sld_safe_x=Y\0"), "sld_safe"));
	assert_null(get(BLOB("xsld_safe=Y\0"), "sld_safe"));
	assert_null(get(BLOB("sld_safe\0"), "sld_safe"));
	assert_null(get(BLOB("sld_saf\0"), "sld_safe"));
	/* last string without its NUL is not a C string inside the blob */
	assert_null(get(BLOB("license=GPL\0sld_safe=Y"), "sld_safe"));
	assert_null(get(BLOB("sld_safe="), "sld_safe"));
	assert_null(get(BLOB("sld_sa"), "sld_safe"));
	assert_string_equal(get(BLOB("license=GPL\0sld"), "license"), "GPL");
	/* empty strings, padding NULs */
	assert_string_equal(get(BLOB("\0\0\0k=v\0\0"), "k"), "v");
	assert_null(get(BLOB(""), "k"));
	assert_null(sld_modinfo_get(NULL, 0, "k"));
	assert_null(get(BLOB("=v\0"), ""));
}

static bool safe(const char *blob, size_t len)
{
	char *b = (char *)exact((const uint8_t *)blob, len);
	bool r = sld_modinfo_sld_safe(b, len);

	free(b);
	return r;
}

static void test_modinfo_safe(void **state)
{
	(void)state;
	assert_true(safe(BLOB("sld_safe=Y\0")));
	assert_true(safe(BLOB("sld_safe=y\0")));
	assert_true(safe(BLOB("sld_safe=1\0")));
	assert_false(safe(BLOB("sld_safe=N\0")));
	assert_false(safe(BLOB("sld_safe=Yes\0")));
	assert_false(safe(BLOB("sld_safe=\0")));
	assert_false(safe(BLOB("sld_safe=Y")));		/* no final NUL */
	assert_false(safe(BLOB("license=GPL\0")));
	assert_false(safe(BLOB("")));
}

static struct x86scan_stats st_with(enum x86_find a, enum x86_find b)
{
	struct x86scan_stats st;

	memset(&st, 0, sizeof(st));
	if (a != X86_F_NONE)
		st.count[a] = 1;
	if (b != X86_F_NONE)
		st.count[b] = 1;
	return st;
}

static enum sld_verdict classify(struct sld_facts *f, enum sld_reason want_r)
{
	enum sld_reason r = -1;
	enum sld_verdict v = sld_classify(f, &r);

	assert_int_equal(r, want_r);
	assert_int_equal(sld_classify(f, NULL), v);
	return v;
}

static void test_verdict_priority(void **state)
{
	struct x86scan_stats vmx = st_with(X86_F_VMLAUNCH, X86_F_VMRUN);
	struct x86scan_stats svm = st_with(X86_F_VMRUN, X86_F_MOV_CR4);
	struct x86scan_stats none = st_with(X86_F_NONE, X86_F_NONE);
	struct sld_facts f = {
		.name = "kvm_intel", .modinfo_safe = true,
		.imports_guest_handler = true, .admin = SLD_R_ADMIN_HYPERVISOR,
		.vendor = SLD_R_VENDOR_SAFE, .st = &vmx,
	};

	(void)state;
	/* each step removes the winning fact and checks the next rule */
	assert_int_equal(classify(&f, SLD_R_ADMIN_HYPERVISOR), SLD_V_HYPERVISOR);
	f.admin = SLD_R_ADMIN_SAFE;
	assert_int_equal(classify(&f, SLD_R_ADMIN_SAFE), SLD_V_SAFE);
	f.admin = 0;
	assert_int_equal(classify(&f, SLD_R_VENDOR_SAFE), SLD_V_SAFE);
	f.vendor = SLD_R_VENDOR_HYPERVISOR;
	assert_int_equal(classify(&f, SLD_R_VENDOR_HYPERVISOR), SLD_V_HYPERVISOR);
	f.vendor = 0;
	assert_int_equal(classify(&f, SLD_R_MODINFO_SAFE), SLD_V_SAFE);
	f.modinfo_safe = false;
	assert_int_equal(classify(&f, SLD_R_IMPORTS_HANDLER), SLD_V_SAFE);
	f.imports_guest_handler = false;
	f.name = "vboxdrv";
	f.st = &none;
	assert_int_equal(classify(&f, SLD_R_KNOWN_HYPERVISOR), SLD_V_HYPERVISOR);
	/* the sld_safe tag beats the table (a fixed vmmon could say so) */
	f.name = "vmmon";
	f.modinfo_safe = true;
	assert_int_equal(classify(&f, SLD_R_MODINFO_SAFE), SLD_V_SAFE);
	f.modinfo_safe = false;
	f.name = "kvm_intel";
	f.st = &vmx;
	assert_int_equal(classify(&f, SLD_R_VMX_TEXT), SLD_V_HYPERVISOR);
	f.st = &svm;
	assert_int_equal(classify(&f, SLD_R_SVM_TEXT), SLD_V_SVM_ONLY);
	/*
	 * An AMD host whose kernel sets the bus-lock bit: SVM text is a
	 * hypervisor, unless the table says it switches DEBUGCTL itself;
	 * every rule above still wins.
	 */
	f.svm_at_risk = true;
	assert_int_equal(classify(&f, SLD_R_SVM_TEXT), SLD_V_HYPERVISOR);
	f.name = "kvm_amd";	/* a kernel whose kvm_amd does not switch (6.13) */
	assert_int_equal(classify(&f, SLD_R_SVM_TEXT), SLD_V_HYPERVISOR);
	f.kvm_amd_switches = true;
	assert_int_equal(classify(&f, SLD_R_SWITCHES_DEBUGCTL), SLD_V_SAFE);
	f.name = "kvm-amd";
	assert_int_equal(classify(&f, SLD_R_SWITCHES_DEBUGCTL), SLD_V_SAFE);
	f.st = &vmx;
	assert_int_equal(classify(&f, SLD_R_VMX_TEXT), SLD_V_HYPERVISOR);
	f.st = &svm;
	f.name = "fx_svmhv";
	f.modinfo_safe = true;
	assert_int_equal(classify(&f, SLD_R_MODINFO_SAFE), SLD_V_SAFE);
	f.modinfo_safe = false;
	f.st = &none;
	assert_int_equal(classify(&f, SLD_R_NONE), SLD_V_CLEAN);
	f.svm_at_risk = false;
	f.name = "kvm_intel";
	f.st = NULL;
	assert_int_equal(classify(&f, SLD_R_NONE), SLD_V_CLEAN);
	f.name = NULL;
	assert_int_equal(classify(&f, SLD_R_NONE), SLD_V_CLEAN);
}

/* Guest-side instructions and CR/DR writes alone do not make a hypervisor. */
static void test_verdict_guest_insns(void **state)
{
	struct x86scan_stats st = st_with(X86_F_VMCALL, X86_F_VMMCALL);
	struct sld_facts f = { .name = "kvm_guest_thing", .st = &st };

	(void)state;
	st.count[X86_F_VMFUNC] = 3;
	st.count[X86_F_MOV_CR3] = 1;
	st.count[X86_F_MOV_DR7] = 1;
	assert_int_equal(classify(&f, SLD_R_NONE), SLD_V_CLEAN);
	st.count[X86_F_VMXOFF] = 1;	/* any host VMX instruction counts */
	assert_int_equal(classify(&f, SLD_R_VMX_TEXT), SLD_V_HYPERVISOR);
	st.count[X86_F_VMXOFF] = 0;
	st.count[X86_F_CLGI] = 1;
	assert_int_equal(classify(&f, SLD_R_SVM_TEXT), SLD_V_SVM_ONLY);
}

/*
 * Host-only VMX, written down here on its own: the VMX class but the two
 * instructions guests execute (hypercalls). The verdict and the finding
 * the module's report names (modscan.c: dmesg and /proc) both go by
 * sld_find_host_vmx().
 */
static bool expect_host_vmx(enum x86_find f)
{
	switch (f) {
	case X86_F_VMXON: case X86_F_VMXOFF: case X86_F_VMLAUNCH:
	case X86_F_VMRESUME: case X86_F_VMPTRLD: case X86_F_VMPTRST:
	case X86_F_VMCLEAR: case X86_F_VMREAD: case X86_F_VMWRITE:
	case X86_F_INVEPT: case X86_F_INVVPID:
		return true;
	default:
		return false;
	}
}

/*
 * Each finding alone, at offset 0x40 of section 1, after a MOV CR4 at
 * offset 0 of section 0: the verdict says vmx-text exactly for host-only
 * VMX, and for a hypervisor the report then names that finding, not the
 * earlier MOV CR4; for any other verdict it names the earliest.
 */
static void test_host_vmx_agree(void **state)
{
	unsigned int hv = 0;
	int f;

	(void)state;
	for (f = 0; f < X86_F_COUNT; f++) {
		struct x86scan_stats st = st_with(f, X86_F_MOV_CR4);
		struct sld_facts facts = { .name = "m", .st = &st };
		uint8_t sec[X86_F_COUNT] = { 0 };
		enum sld_reason why;
		enum sld_verdict v;
		bool host = expect_host_vmx(f);

		if (f == X86_F_MOV_CR4)
			continue;
		sec[f] = 1;
		st.first[f] = 0x40;
		v = sld_classify(&facts, &why);
		assert_int_equal(sld_find_host_vmx(f), host);
		assert_int_equal(why == SLD_R_VMX_TEXT, host);
		assert_int_equal(sld_first_finding(&st, sec,
						   v == SLD_V_HYPERVISOR),
				 host ? f : X86_F_MOV_CR4);
		hv += host;
	}
	assert_int_equal(hv, 11);
}

static void test_first_finding(void **state)
{
	struct x86scan_stats st = st_with(X86_F_NONE, X86_F_NONE);
	uint8_t sec[X86_F_COUNT] = { 0 };

	(void)state;
	assert_int_equal(sld_first_finding(&st, sec, true), X86_F_NONE);
	assert_int_equal(sld_first_finding(&st, NULL, false), X86_F_NONE);
	/* the earlier section wins over the lower offset */
	st.count[X86_F_VMREAD] = 2;
	st.first[X86_F_VMREAD] = 0x100;
	st.count[X86_F_VMXON] = 1;
	st.first[X86_F_VMXON] = 0x10;
	sec[X86_F_VMXON] = 2;
	assert_int_equal(sld_first_finding(&st, sec, true), X86_F_VMREAD);
	/* in one section, the lower offset */
	assert_int_equal(sld_first_finding(&st, NULL, true), X86_F_VMXON);
	/* a guest VMCALL before them is named only when no host VMX is */
	st.count[X86_F_VMCALL] = 1;
	assert_int_equal(sld_first_finding(&st, NULL, true), X86_F_VMXON);
	assert_int_equal(sld_first_finding(&st, NULL, false), X86_F_VMCALL);
	st.count[X86_F_VMXON] = st.count[X86_F_VMREAD] = 0;
	assert_int_equal(sld_first_finding(&st, NULL, true), X86_F_VMCALL);
}

static void test_known(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_true(sld_known_hypervisor("vmmon", &why));
	assert_non_null(why);
	assert_true(sld_known_hypervisor("vboxdrv", NULL));
	assert_true(sld_known_hypervisor("vboxdrv", &why));
	assert_non_null(strstr(why, "VirtualBox"));
	assert_false(sld_known_hypervisor("vboxdrv2", NULL));
	assert_false(sld_known_hypervisor("vbox", NULL));
	assert_false(sld_known_hypervisor("kvm_intel", NULL));
	assert_false(sld_known_hypervisor("", NULL));
	assert_false(sld_known_hypervisor(NULL, NULL));
}

/* sldctl's registry list walks the table: every entry, then NULL. */
static void test_known_walk(void **state)
{
	const char *name, *why, *w2;
	unsigned int i;

	(void)state;
	for (i = 0; (name = sld_known_hypervisor_at(i, &why)); i++) {
		assert_true(sld_known_hypervisor(name, &w2));
		assert_string_equal(why, w2);
	}
	assert_int_equal(i, 2);
	assert_string_equal(sld_known_hypervisor_at(0, NULL), "vmmon");
	assert_string_equal(sld_known_hypervisor_at(1, NULL), "vboxdrv");
	assert_null(sld_known_hypervisor_at(2, NULL));
}

static void test_known_dash(void **state)
{
	(void)state;
	/* '-' and '_' compare equal (module names vs file names) */
	assert_true(sld_known_hypervisor("vbox-drv", NULL) ==
		    sld_known_hypervisor("vbox_drv", NULL));
	assert_false(sld_known_hypervisor("vmm-on", NULL));
	assert_false(sld_known_hypervisor("vbox_netflt", NULL));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(sld_verdict_name(SLD_V_CLEAN), "clean");
	assert_string_equal(sld_verdict_name(SLD_V_SVM_ONLY), "svm-only");
	assert_string_equal(sld_verdict_name(SLD_V_HYPERVISOR), "hypervisor");
	assert_string_equal(sld_verdict_name(SLD_V_SAFE), "sld_safe");
	assert_string_equal(sld_reason_name(SLD_R_NONE), "none");
	assert_string_equal(sld_reason_name(SLD_R_VMX_TEXT), "vmx-text");
	assert_string_equal(sld_reason_name(SLD_R_SVM_TEXT), "svm-text");
	assert_string_equal(sld_reason_name(SLD_R_MODINFO_SAFE), "modinfo-sld-safe");
	assert_string_equal(sld_reason_name(SLD_R_IMPORTS_HANDLER), "imports-guest-handler");
	assert_string_equal(sld_reason_name(SLD_R_KNOWN_HYPERVISOR), "known-hypervisor");
	assert_string_equal(sld_reason_name(SLD_R_ADMIN_SAFE), "admin-safe");
	assert_string_equal(sld_reason_name(SLD_R_ADMIN_HYPERVISOR), "admin-hypervisor");
	assert_string_equal(sld_reason_name(SLD_R_VENDOR_SAFE), "vendor-safe");
	assert_string_equal(sld_reason_name(SLD_R_VENDOR_HYPERVISOR), "vendor-hypervisor");
	assert_string_equal(sld_reason_name(SLD_R_SWITCHES_DEBUGCTL), "switches-debugctl");
	assert_string_equal(sld_reason_name(99), "unknown");
	assert_string_equal(sld_verdict_name(99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modinfo_get),
		cmocka_unit_test(test_modinfo_safe),
		cmocka_unit_test(test_verdict_priority),
		cmocka_unit_test(test_verdict_guest_insns),
		cmocka_unit_test(test_host_vmx_agree),
		cmocka_unit_test(test_first_finding),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_known_walk),
		cmocka_unit_test(test_known_dash),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
