// SPDX-License-Identifier: GPL-2.0
/*
 * The one printer of cufabctl, modelled on iproute2's json_print: every
 * value is printed by one call that names both its JSON key and its text
 * format, so "cufabctl -j" can never show something the text output does
 * not, or the other way round.
 *
 * PRINT_FP goes to the text output only, PRINT_JSON to JSON only and
 * PRINT_ANY to whichever is active. Objects and arrays nest; a JSON value
 * that closes at the top level ends with a newline and is flushed, so
 * "monitor -j" emits one JSON document per line as events arrive.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cufabctl.h"

#define JSON_MAX_DEPTH	16

static struct {
	bool json;
	bool pretty;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no member written yet at depth */
	bool in_array[JSON_MAX_DEPTH];
} pr;

void print_init(bool json, bool pretty)
{
	pr.json = json || pretty;
	pr.pretty = pretty;
	pr.depth = 0;
}

bool print_json(void)
{
	return pr.json;
}

static bool want(enum output_type t)
{
	return pr.json ? t & PRINT_JSON : t & PRINT_FP;
}

static void json_indent(void)
{
	int i;

	if (!pr.pretty)
		return;
	putchar('\n');
	for (i = 0; i < pr.depth; i++)
		fputs("    ", stdout);
}

/* JSON string escaping of RFC 8259; bytes >= 0x80 pass through. */
static void json_escape(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\r':
			fputs("\\r", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (*p < 0x20)
				printf("\\u00%c%c", hex[*p >> 4], hex[*p & 0xf]);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* Separator and key before a value at the current depth. */
static void json_member(const char *key)
{
	if (pr.depth > 0) {
		if (!pr.first[pr.depth])
			putchar(',');
		pr.first[pr.depth] = false;
		json_indent();
	}
	if (key && pr.depth > 0 && !pr.in_array[pr.depth]) {
		json_escape(key);
		fputs(pr.pretty ? ": " : ":", stdout);
	}
}

static void json_open(const char *key, char bracket, bool array)
{
	if (pr.depth + 1 >= JSON_MAX_DEPTH) {
		/* A bug in a caller, not an input error: fail loudly. */
		fprintf(stderr, "cufabctl: JSON nesting deeper than %d\n",
			JSON_MAX_DEPTH - 1);
		return;
	}
	json_member(key);
	putchar(bracket);
	pr.depth++;
	pr.first[pr.depth] = true;
	pr.in_array[pr.depth] = array;
}

static void json_close(char bracket)
{
	bool empty;

	if (pr.depth == 0)
		return;
	empty = pr.first[pr.depth];
	pr.depth--;
	if (!empty)
		json_indent();
	putchar(bracket);
	if (pr.depth == 0) {
		putchar('\n');
		fflush(stdout);
	}
}

void open_object(const char *key)
{
	if (pr.json)
		json_open(key, '{', false);
}

void close_object(void)
{
	if (pr.json)
		json_close('}');
}

void open_array(enum output_type t, const char *key, const char *text)
{
	if (pr.json && (t & PRINT_JSON))
		json_open(key, '[', true);
	else if (!pr.json && (t & PRINT_FP) && text)
		fputs(text, stdout);
}

void close_array(enum output_type t, const char *text)
{
	if (pr.json && (t & PRINT_JSON))
		json_close(']');
	else if (!pr.json && (t & PRINT_FP) && text)
		fputs(text, stdout);
}

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *val)
{
	if (!want(t))
		return;
	if (pr.json) {
		json_member(key);
		json_escape(val);
	} else {
		printf(fmt, val);
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int val)
{
	if (!want(t))
		return;
	if (pr.json) {
		json_member(key);
		printf("%u", val);
	} else {
		printf(fmt, val);
	}
}

void print_int(enum output_type t, const char *key, const char *fmt, int val)
{
	if (!want(t))
		return;
	if (pr.json) {
		json_member(key);
		printf("%d", val);
	} else {
		printf(fmt, val);
	}
}

void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t val)
{
	if (!want(t))
		return;
	if (pr.json) {
		json_member(key);
		printf("%llu", (unsigned long long)val);
	} else {
		printf(fmt, (unsigned long long)val);
	}
}

/* Text gets "on"/"off" through a %s format, JSON true/false. */
void print_bool(enum output_type t, const char *key, const char *fmt,
		bool val)
{
	if (!want(t))
		return;
	if (pr.json) {
		json_member(key);
		fputs(val ? "true" : "false", stdout);
	} else {
		printf(fmt, val ? "on" : "off");
	}
}

/*
 * CUFAB_HANDLE_* bits: a JSON array "handle_types", and in text one
 * "posix-fd,fabric" (or "none") through @fmt.
 */
void print_handle_types(uint32_t bits, const char *fmt)
{
	const char *text = bits == (CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC) ?
			   "posix-fd,fabric" : bits == CUFAB_HANDLE_POSIX_FD ?
			   "posix-fd" : bits == CUFAB_HANDLE_FABRIC ? "fabric" :
			   "none";

	open_array(PRINT_JSON, "handle_types", NULL);
	if (bits & CUFAB_HANDLE_POSIX_FD)
		print_string(PRINT_JSON, NULL, "%s", "posix-fd");
	if (bits & CUFAB_HANDLE_FABRIC)
		print_string(PRINT_JSON, NULL, "%s", "fabric");
	close_array(PRINT_JSON, NULL);
	print_string(PRINT_FP, NULL, fmt, text);
}

/* Text gets binary units ("1.5 GiB") through a %s format, JSON bytes. */
void print_size(enum output_type t, const char *key, const char *fmt,
		uint64_t bytes)
{
	char buf[32];

	if (!want(t))
		return;
	if (pr.json) {
		json_member(key);
		printf("%llu", (unsigned long long)bytes);
	} else {
		format_size(buf, sizeof(buf), bytes);
		printf(fmt, buf);
	}
}

/* Free text: headings and table cells that have no JSON form. */
void print_fp(const char *fmt, ...)
{
	va_list ap;

	if (pr.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* An empty listing: "none" in text; JSON already shows "[]". */
void print_none(void)
{
	print_fp("none\n");
}

void print_nl(void)
{
	if (!pr.json)
		putchar('\n');
}

/* 0, or -1 after telling the user that stdout could not be written. */
int print_flush(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "cufabctl: cannot write the output: %m\n");
	return -1;
}
