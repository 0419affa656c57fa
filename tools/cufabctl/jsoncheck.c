// SPDX-License-Identifier: GPL-2.0
/*
 * jsoncheck - strict JSON validator and value extractor for the cufabctl
 * selftest, which runs inside a busybox guest without python or jq.
 *
 *   jsoncheck [-l] [-c] [PATH] < input
 *
 * Checks that stdin is exactly one JSON text (RFC 8259: grammar, escapes,
 * UTF-8, no control characters in strings) and, stricter than the RFC,
 * that no object repeats a key: a printer bug would show up that way.
 * -l reads one JSON text per line (cufabctl -j monitor).
 * PATH selects a value: ".key", "[N]", chained (".[0].uuid",
 * ".devices[2].peers"); it is printed raw for strings, as JSON otherwise,
 * or with -c as the count of elements (array, object) or bytes (string).
 * With -l, documents without PATH are skipped.
 *
 * Exit: 0 valid (and PATH found), 1 invalid or PATH not found, 2 usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH	64

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jval {
	enum jtype type;
	char *text;		/* number literal or decoded string */
	size_t len;		/* bytes of @text */
	size_t n;		/* members of an array or object */
	struct jval **items;
	char **keys;		/* object member names, decoded */
};

struct parser {
	const char *s;
	const char *end;
	const char *line_start;
	unsigned int line;
	int depth;
	const char *err;
};

struct buf {
	char *p;
	size_t len, cap;
};

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) {
		fputs("jsoncheck: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static bool fail(struct parser *p, const char *msg)
{
	if (!p->err)
		p->err = msg;
	return false;
}

static void skip_ws(struct parser *p)
{
	while (p->s < p->end) {
		if (*p->s == '\n') {
			p->line++;
			p->line_start = p->s + 1;
		} else if (*p->s != ' ' && *p->s != '\t' && *p->s != '\r') {
			return;
		}
		p->s++;
	}
}

static bool parse_literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return fail(p, "invalid literal");
	p->s += n;
	return true;
}

static bool is_digit(const char *s, const char *end)
{
	return s < end && *s >= '0' && *s <= '9';
}

static const char *digits(const char *s, const char *end)
{
	while (is_digit(s, end))
		s++;
	return s;
}

static bool parse_number(struct parser *p, struct jval *v)
{
	const char *s = p->s, *start = p->s;

	if (s < p->end && *s == '-')
		s++;
	if (!is_digit(s, p->end))
		return fail(p, "invalid number");
	s = *s == '0' ? s + 1 : digits(s, p->end);
	if (s < p->end && *s == '.') {
		if (!is_digit(++s, p->end))
			return fail(p, "digit expected after '.'");
		s = digits(s, p->end);
	}
	if (s < p->end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < p->end && (*s == '+' || *s == '-'))
			s++;
		if (!is_digit(s, p->end))
			return fail(p, "digit expected in exponent");
		s = digits(s, p->end);
	}
	v->type = J_NUMBER;
	v->len = s - start;
	v->text = xrealloc(NULL, v->len + 1);
	memcpy(v->text, start, v->len);
	v->text[v->len] = '\0';
	p->s = s;
	return true;
}

static int hex4(const char *s, const char *end)
{
	int v = 0, i;

	if (end - s < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (s[i] >= '0' && s[i] <= '9')
			v |= s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			v |= s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F')
			v |= s[i] - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static void put_utf8(struct buf *b, unsigned int c)
{
	char u[4];
	size_t n;

	if (c < 0x80) {
		u[0] = c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = 0xc0 | (c >> 6);
		u[1] = 0x80 | (c & 0x3f);
		n = 2;
	} else if (c < 0x10000) {
		u[0] = 0xe0 | (c >> 12);
		u[1] = 0x80 | ((c >> 6) & 0x3f);
		u[2] = 0x80 | (c & 0x3f);
		n = 3;
	} else {
		u[0] = 0xf0 | (c >> 18);
		u[1] = 0x80 | ((c >> 12) & 0x3f);
		u[2] = 0x80 | ((c >> 6) & 0x3f);
		u[3] = 0x80 | (c & 0x3f);
		n = 4;
	}
	buf_add(b, u, n);
}

/* \uXXXX, with a surrogate pair as one code point. */
static bool unicode_escape(struct parser *p, struct buf *b)
{
	int hi = hex4(p->s, p->end), lo;

	if (hi < 0)
		return fail(p, "bad \\u escape");
	p->s += 4;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return fail(p, "lone low surrogate");
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u')
			return fail(p, "high surrogate without low surrogate");
		lo = hex4(p->s + 2, p->end);
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(p, "high surrogate without low surrogate");
		p->s += 6;
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_utf8(b, hi);
	return true;
}

static bool parse_escape(struct parser *p, struct buf *b)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;

	if (p->s >= p->end)
		return fail(p, "unterminated string");
	if (*p->s == 'u') {
		p->s++;
		return unicode_escape(p, b);
	}
	e = strchr(from, *p->s);
	if (!e || !*p->s)
		return fail(p, "invalid escape");
	buf_add(b, &to[e - from], 1);
	p->s++;
	return true;
}

/* Length of the valid UTF-8 sequence at @s, 0 when invalid. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end)
{
	size_t n, i;
	unsigned int c;

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	if ((size_t)(end - s) < n)
		return 0;
	c = *s & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

static bool parse_string(struct parser *p, char **out, size_t *len)
{
	struct buf b = { 0 };
	size_t n;

	buf_add(&b, "", 0);
	p->s++;			/* opening quote */
	while (p->s < p->end && *p->s != '"') {
		if ((unsigned char)*p->s < 0x20) {
			free(b.p);
			return fail(p, "control character in string");
		}
		if (*p->s == '\\') {
			p->s++;
			if (!parse_escape(p, &b)) {
				free(b.p);
				return false;
			}
			continue;
		}
		n = utf8_len((const unsigned char *)p->s,
			     (const unsigned char *)p->end);
		if (!n) {
			free(b.p);
			return fail(p, "invalid UTF-8 in string");
		}
		buf_add(&b, p->s, n);
		p->s += n;
	}
	if (p->s >= p->end) {
		free(b.p);
		return fail(p, "unterminated string");
	}
	p->s++;
	*out = b.p;
	*len = b.len;
	return true;
}

static bool parse_value(struct parser *p, struct jval *v);

static struct jval *new_member(struct jval *v)
{
	struct jval *m = xrealloc(NULL, sizeof(*m));

	memset(m, 0, sizeof(*m));
	v->items = xrealloc(v->items, (v->n + 1) * sizeof(*v->items));
	v->items[v->n++] = m;
	return m;
}

/* After a member: ',' and more, or the closing bracket. */
static int next_member(struct parser *p, char close)
{
	skip_ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 0;
	}
	if (p->s < p->end && *p->s == ',') {
		p->s++;
		return 1;
	}
	fail(p, close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
	return -1;
}

static bool parse_array(struct parser *p, struct jval *v)
{
	int more;

	v->type = J_ARRAY;
	p->s++;
	skip_ws(p);
	if (p->s < p->end && *p->s == ']') {
		p->s++;
		return true;
	}
	do {
		if (!parse_value(p, new_member(v)))
			return false;
		more = next_member(p, ']');
	} while (more > 0);
	return more == 0;
}

static bool parse_key(struct parser *p, struct jval *v)
{
	size_t i, len;
	char *k;

	skip_ws(p);
	if (p->s >= p->end || *p->s != '"')
		return fail(p, "expected a string key");
	if (!parse_string(p, &k, &len))
		return false;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], k)) {
			free(k);
			return fail(p, "duplicate key in object");
		}
	v->keys = xrealloc(v->keys, (v->n + 1) * sizeof(*v->keys));
	v->keys[v->n] = k;
	skip_ws(p);
	if (p->s >= p->end || *p->s != ':')
		return fail(p, "expected ':' after key");
	p->s++;
	return true;
}

static bool parse_object(struct parser *p, struct jval *v)
{
	int more;

	v->type = J_OBJECT;
	p->s++;
	skip_ws(p);
	if (p->s < p->end && *p->s == '}') {
		p->s++;
		return true;
	}
	do {
		if (!parse_key(p, v) || !parse_value(p, new_member(v)))
			return false;
		more = next_member(p, '}');
	} while (more > 0);
	return more == 0;
}

static bool parse_value(struct parser *p, struct jval *v)
{
	bool ok;

	skip_ws(p);
	if (p->s >= p->end)
		return fail(p, "value expected");
	if (++p->depth > MAX_DEPTH)
		return fail(p, "nested too deep");
	switch (*p->s) {
	case '{':
		ok = parse_object(p, v);
		break;
	case '[':
		ok = parse_array(p, v);
		break;
	case '"':
		v->type = J_STRING;
		ok = parse_string(p, &v->text, &v->len);
		break;
	case 't':
		v->type = J_TRUE;
		ok = parse_literal(p, "true");
		break;
	case 'f':
		v->type = J_FALSE;
		ok = parse_literal(p, "false");
		break;
	case 'n':
		v->type = J_NULL;
		ok = parse_literal(p, "null");
		break;
	default:
		ok = parse_number(p, v);
	}
	p->depth--;
	return ok;
}

static void jfree(struct jval *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jfree(v->items[i]);
		free(v->items[i]);
		if (v->type == J_OBJECT)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
}

static void print_escaped(const char *s, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json(const struct jval *v)
{
	static const char * const words[] = { "null", "false", "true" };
	size_t i;

	switch (v->type) {
	case J_NUMBER:
		fputs(v->text, stdout);
		break;
	case J_STRING:
		print_escaped(v->text, v->len);
		break;
	case J_ARRAY:
	case J_OBJECT:
		putchar(v->type == J_ARRAY ? '[' : '{');
		for (i = 0; i < v->n; i++) {
			if (i)
				putchar(',');
			if (v->type == J_OBJECT) {
				print_escaped(v->keys[i], strlen(v->keys[i]));
				putchar(':');
			}
			print_json(v->items[i]);
		}
		putchar(v->type == J_ARRAY ? ']' : '}');
		break;
	default:
		fputs(words[v->type], stdout);
	}
}

/* One path step at @path: ".name" or "[N]"; NULL when absent. */
static const struct jval *step(const struct jval *v, const char **path)
{
	const char *s = *path;
	size_t i, n;
	char *end;

	if (*s == '[') {
		n = strtoul(s + 1, &end, 10);
		if (end == s + 1 || *end != ']' || v->type != J_ARRAY ||
		    n >= v->n)
			return NULL;
		*path = end + 1;
		return v->items[n];
	}
	n = strcspn(s + 1, ".[");
	*path = s + 1 + n;
	if (v->type != J_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (strlen(v->keys[i]) == n && !strncmp(v->keys[i], s + 1, n))
			return v->items[i];
	return NULL;
}

static const struct jval *lookup(const struct jval *v, const char *path)
{
	if (!strcmp(path, "."))
		return v;
	while (v && *path) {
		if (*path != '.' && *path != '[')
			return NULL;
		if (path[0] == '.' && path[1] == '[')
			path++;
		v = step(v, &path);
	}
	return v;
}

static void show(const struct jval *v, bool count)
{
	if (count) {
		printf("%zu\n", v->type == J_STRING ? v->len : v->n);
	} else if (v->type == J_STRING) {
		printf("%s\n", v->text);
	} else {
		print_json(v);
		putchar('\n');
	}
}

/* Parses one document in [s, end); reports errors with their position. */
static bool check(const char *s, const char *end, unsigned int line,
		  struct jval *v)
{
	struct parser p = { .s = s, .end = end, .line_start = s, .line = line };

	if (parse_value(&p, v)) {
		skip_ws(&p);
		if (p.s == p.end)
			return true;
		fail(&p, "data after the JSON value");
	}
	fprintf(stderr, "jsoncheck: line %u column %ld: %s\n", p.line,
		(long)(p.s - p.line_start + 1), p.err);
	return false;
}

static char *read_all(FILE *f, size_t *len)
{
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;

	buf_add(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	*len = b.len;
	return b.p;
}

static int run(const char *in, size_t len, bool lines, const char *path,
	       bool count)
{
	const char *s = in, *end = in + len, *eol;
	unsigned int line = 1, found = 0;
	const struct jval *sel;
	struct jval v;
	bool ok = true;

	do {
		eol = lines ? memchr(s, '\n', end - s) : NULL;
		eol = eol ? eol : end;
		memset(&v, 0, sizeof(v));
		if (lines && eol == s) {
			/* blank line between JSON lines */
		} else if (!check(s, eol, line, &v)) {
			ok = false;
		} else if (path) {
			sel = lookup(&v, path);
			if (sel) {
				show(sel, count);
				found++;
			}
		}
		jfree(&v);
		s = eol + 1;
		line++;
	} while (ok && lines && s < end);
	if (ok && path && !found)
		fprintf(stderr, "jsoncheck: %s: no such value\n", path);
	return ok && (!path || found) ? 0 : 1;
}

int main(int argc, char **argv)
{
	bool lines = false, count = false;
	size_t len;
	char *in;
	int c, ret;

	while ((c = getopt(argc, argv, "lc")) != -1) {
		if (c == 'l')
			lines = true;
		else if (c == 'c')
			count = true;
		else
			goto usage;
	}
	if (argc - optind > 1 || (optind < argc && argv[optind][0] != '.'))
		goto usage;
	in = read_all(stdin, &len);
	if (!lines && len == 0) {
		fputs("jsoncheck: empty input\n", stderr);
		free(in);
		return 1;
	}
	ret = run(in, len, lines, optind < argc ? argv[optind] : NULL, count);
	free(in);
	return ret;
usage:
	fputs("usage: jsoncheck [-l] [-c] [PATH] < input  (PATH: .key[N].key...)\n",
	      stderr);
	return 2;
}
