/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The grammar of every list knob, shared by sld_compat.ko and sldctl:
 *
 *	"a,b"	replaces the list
 *	"+a,-b"	edits it (then every entry carries a sign)
 *	"-"	clears it
 *
 * and a list reads "a,b", or "-" when empty. sld_names_apply() takes one
 * write to a draft of the list, sld_names_join() formats a list for
 * reading. What one entry may be is the rule's: the schema's bounds and
 * an optional check(). The module refuses a write with the reason the
 * rule says; sldctl runs the same code on the same rule before it writes,
 * so it refuses exactly what the module would.
 *
 * Nothing here allocates: a draft's entries point into the old list's
 * strings and into the written value, which sld_names_apply() cuts up in
 * place. The caller copies the result before it frees either.
 */
#ifndef SLD_NAMES_H
#define SLD_NAMES_H

#include "schema/knobs_table.h"
#include "schema/modname.h"

/* Why a write was refused. */
enum sld_names_err {
	SLD_NE_OK,
	SLD_NE_EMPTY,	/* "", "+" or "-" as an entry */
	SLD_NE_MIX,	/* names and +/- edits in one write */
	SLD_NE_LONG,	/* an entry longer than max_len */
	SLD_NE_SPACE,	/* a space where the rule allows none */
	SLD_NE_NAME,	/* a byte no module name holds */
	SLD_NE_CHECK,	/* the rule's check() refused an entry */
	SLD_NE_TWICE,	/* a module name twice in one write */
	SLD_NE_LISTED,	/* adding an entry that is listed */
	SLD_NE_MISSING,	/* removing an entry that is not listed */
	SLD_NE_FULL,	/* more than max entries */
	SLD_NE_COUNT
};

struct sld_names_rule {
	unsigned int max;	/* entries, at most SLD_LIST_MAX_ANY */
	size_t max_len;		/* bytes per entry */
	/* Optional: 0, or non-zero with *why set. */
	int (*check)(const char *name, const char **why);
	bool spaces;		/* inner spaces allowed ("CPU 3/KVM") */
	/*
	 * Module names (safe_modules, hypervisor_modules): [A-Za-z0-9_-],
	 * '-' equal to '_' (modname.h), a write names each module once ("+a,-a" is refused,
	 * not a no-op), an empty entry is told before a misplaced sign, and
	 * the reasons are sld_names_says_modules[].
	 */
	bool modules;
};

/* The reasons dmesg gives, by enum sld_names_err. */
extern const char *const sld_names_says[SLD_NE_COUNT];
extern const char *const sld_names_says_modules[SLD_NE_COUNT];

/* A list being edited; v[] points into storage the caller keeps alive. */
struct sld_names_draft {
	unsigned int n;
	const char *v[SLD_LIST_MAX_ANY];
};

/* The list-level rule of a list knob of the schema (check() left NULL). */
void sld_names_rule_of(const struct sld_knob_schema *k,
		       struct sld_names_rule *rule);

/* d = the n entries of v (n above the draft's room is cut). */
void sld_names_draft_init(struct sld_names_draft *d, const char *const *v,
			  unsigned int n);

/*
 * Apply the write val (mutable, cut in place; one trailing newline
 * already stripped) to d. On error d is half edited (callers edit a
 * copy), *why is the reason and *at (if at) the entry it is about.
 */
enum sld_names_err sld_names_apply(const struct sld_names_rule *rule,
				   struct sld_names_draft *d, char *val,
				   const char **why, const char **at);

/* Index of name in d under the rule's matching, or -1. */
int sld_names_find(const struct sld_names_rule *rule,
		   const struct sld_names_draft *d, const char *name);

/*
 * "a,b", or "-" for no entries, into buf (always NUL-terminated when
 * size > 0). Returns the length of the whole text, as snprintf does.
 */
size_t sld_names_join(const char *const *v, unsigned int n, char *buf,
		      size_t size);

#endif /* SLD_NAMES_H */
