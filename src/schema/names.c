// SPDX-License-Identifier: GPL-2.0
/*
 * The list grammar shared by sld_compat.ko and sldctl (see names.h).
 * Entries are taken one by one, left to right, so a write is refused
 * for its first bad entry.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "schema/names.h"

const char *const sld_names_says[SLD_NE_COUNT] = {
	[SLD_NE_EMPTY] = "empty entry",
	[SLD_NE_MIX] = "mix of names and +/- edits",
	[SLD_NE_LONG] = "entry too long",
	[SLD_NE_SPACE] = "space in entry",
	[SLD_NE_LISTED] = "duplicate entry",
	[SLD_NE_MISSING] = "removing an entry that is not listed",
	[SLD_NE_FULL] = "too many entries",
};

/* The module lists have said these since they exist; kept word for word. */
const char *const sld_names_says_modules[SLD_NE_COUNT] = {
	[SLD_NE_EMPTY] = "empty entry",
	[SLD_NE_MIX] = "mixes a replacing list with +/- edits",
	[SLD_NE_LONG] = "name must be 1-55 of [a-zA-Z0-9_-]",
	[SLD_NE_SPACE] = "name must be 1-55 of [a-zA-Z0-9_-]",
	[SLD_NE_NAME] = "name must be 1-55 of [a-zA-Z0-9_-]",
	[SLD_NE_TWICE] = "name given twice",
	[SLD_NE_LISTED] = "name already listed",
	[SLD_NE_MISSING] = "removing a name that is not listed",
	[SLD_NE_FULL] = "more than 64 entries",
};

void sld_names_rule_of(const struct sld_knob_schema *k,
		       struct sld_names_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	rule->max = k->max_entries;
	rule->max_len = k->max_entry_len;
	rule->spaces = k->entry == SLD_KE_COMM;
	rule->modules = k->entry == SLD_KE_MODULE;
}

static unsigned int room(const struct sld_names_rule *rule)
{
	return rule->max < SLD_LIST_MAX_ANY ? rule->max : SLD_LIST_MAX_ANY;
}

void sld_names_draft_init(struct sld_names_draft *d, const char *const *v,
			  unsigned int n)
{
	unsigned int i;

	d->n = n < SLD_LIST_MAX_ANY ? n : SLD_LIST_MAX_ANY;
	for (i = 0; i < d->n; i++)
		d->v[i] = v[i];
}

static bool same(const struct sld_names_rule *rule, const char *a,
		 const char *b)
{
	return rule->modules ? sld_modname_eq(a, b) : !strcmp(a, b);
}

int sld_names_find(const struct sld_names_rule *rule,
		   const struct sld_names_draft *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (same(rule, d->v[i], name))
			return i;
	return -1;
}

static enum sld_names_err check_entry(const struct sld_names_rule *rule,
				      const char *name, const char **why)
{
	const char *c;

	if (!*name)
		return SLD_NE_EMPTY;
	if (strlen(name) > rule->max_len)
		return SLD_NE_LONG;
	if (!rule->spaces && strchr(name, ' '))
		return SLD_NE_SPACE;
	for (c = name; rule->modules && *c; c++)
		if (!sld_modname_char(*c))
			return SLD_NE_NAME;
	if (rule->check && rule->check(name, why))
		return SLD_NE_CHECK;
	return SLD_NE_OK;
}

static bool has_sign(const char *tok)
{
	return tok[0] == '+' || tok[0] == '-';
}

/*
 * Module lists: name once per write, and no more names in one write than
 * the list holds. The entries before tok are the NUL-ended tokens of val.
 */
static enum sld_names_err check_once(const struct sld_names_rule *rule,
				     const char *val, const char *tok,
				     const char *name)
{
	unsigned int seen = 0;
	const char *p;

	for (p = val; p < tok; p += strlen(p) + 1, seen++)
		if (sld_modname_eq(p + has_sign(p), name))
			return SLD_NE_TWICE;
	return seen >= room(rule) ? SLD_NE_FULL : SLD_NE_OK;
}

/* One entry, "name" (edit false) or "+name"/"-name" (edit true). */
static enum sld_names_err apply_one(const struct sld_names_rule *rule,
				    struct sld_names_draft *d, const char *val,
				    const char *tok, bool edit,
				    const char **why)
{
	bool sign = has_sign(tok);
	const char *name = tok + sign;
	enum sld_names_err e;
	int at;

	if (rule->modules && !*name)
		return SLD_NE_EMPTY;
	if (sign != edit)
		return SLD_NE_MIX;
	e = check_entry(rule, name, why);
	if (!e && rule->modules)
		e = check_once(rule, val, tok, name);
	if (e)
		return e;
	at = sld_names_find(rule, d, name);
	if (sign && tok[0] == '-') {
		if (at < 0)
			return SLD_NE_MISSING;
		memmove(&d->v[at], &d->v[at + 1],
			(d->n - at - 1) * sizeof(d->v[0]));
		d->n--;
		return SLD_NE_OK;
	}
	if (at >= 0)
		return SLD_NE_LISTED;
	if (d->n >= room(rule))
		return SLD_NE_FULL;
	d->v[d->n++] = name;
	return SLD_NE_OK;
}

enum sld_names_err sld_names_apply(const struct sld_names_rule *rule,
				   struct sld_names_draft *d, char *val,
				   const char **why, const char **at)
{
	const char *const *says = rule->modules ? sld_names_says_modules :
						  sld_names_says;
	bool edit = has_sign(val);
	enum sld_names_err e;
	char *tok = val, *end;

	if (!strcmp(val, "-")) {
		d->n = 0;
		return SLD_NE_OK;
	}
	if (!edit)
		d->n = 0;
	for (;;) {
		end = strchr(tok, ',');
		if (end)
			*end = '\0';
		e = apply_one(rule, d, val, tok, edit, why);
		if (e) {
			if (e != SLD_NE_CHECK)
				*why = says[e];
			if (at)
				*at = tok + has_sign(tok);
			return e;
		}
		if (!end)
			return SLD_NE_OK;
		tok = end + 1;
	}
}

/* Append s to buf at len, keeping buf NUL-terminated; the new length. */
static size_t put(char *buf, size_t size, size_t len, const char *s)
{
	size_t k = strlen(s), fit;

	if (len + 1 < size) {
		fit = size - len - 1 < k ? size - len - 1 : k;
		memcpy(buf + len, s, fit);
		buf[len + fit] = '\0';
	}
	return len + k;
}

size_t sld_names_join(const char *const *v, unsigned int n, char *buf,
		      size_t size)
{
	size_t len = 0;
	unsigned int i;

	if (size)
		buf[0] = '\0';
	if (!n)
		return put(buf, size, 0, "-");
	for (i = 0; i < n; i++) {
		if (i)
			len = put(buf, size, len, ",");
		len = put(buf, size, len, v[i]);
	}
	return len;
}
