# SPDX-License-Identifier: GPL-2.0
#
# Lists every ABI fact of include/cufab/cuda.h as X-macro lines, for the
# two translation units of abi_layout_test (one built with our header, one
# with NVIDIA's) to evaluate:
#
#   ABI_SIZE(T)            sizeof(T)
#   ABI_SIGNED(T)          whether the integer type T is signed
#   ABI_OFFSET(T, m)       offsetof(T, m), m may be a nested path
#   ABI_MSIZE(T, m)        sizeof(((T *)0)->m)
#   ABI_ENUM(T, E)         value of enumerator E of enum type T
#   ABI_VALUE(M)           value of macro M
#   ABI_RENAME(F)          what the symbol macro F expands to
#   ABI_MISSING(T, E)      E is an enumerator of T in NVIDIA's header only
#
# A fact whose type, enumerator or macro does not exist in NVIDIA's header
# (a CUDA 13.3/13.4 addition) is written ABI_NEW_<kind>: only our side
# evaluates it and the test compares it with abi_reference.txt.
#
# Usage: awk -f abi_items.awk official/cuda.h include/cufab/cuda.h

# Removes comments, across lines.
function strip(line,    out, i, j)
{
	out = ""
	while (line != "") {
		if (in_comment) {
			j = index(line, "*/")
			if (!j)
				return out
			line = substr(line, j + 2)
			in_comment = 0
		} else {
			i = index(line, "/*")
			if (!i) {
				out = out line
				break
			}
			out = out substr(line, 1, i - 1) " "
			line = substr(line, i + 2)
			in_comment = 1
		}
	}
	sub(/\/\/.*/, "", out)
	return out
}

function remember_identifiers(line,    n, i, tok)
{
	n = split(line, tok, /[^A-Za-z0-9_]+/)
	for (i = 1; i <= n; i++)
		if (tok[i] != "")
			official[tok[i]] = 1
}

# The enumerator a line of an enum body declares, or "".
function enumerator(line)
{
	sub(/^[ \t,]+/, "", line)
	if (line ~ /^#/ || line !~ /^[A-Za-z_][A-Za-z0-9_]*[ \t]*(=|,|$)/)
		return ""
	match(line, /^[A-Za-z_][A-Za-z0-9_]*/)
	return substr(line, 1, RLENGTH)
}

function emit(kind, key, args)
{
	if (!(key in official))
		kind = "NEW_" kind
	print "ABI_" kind "(" args ")"
}

# Enum bodies, in both headers.
function enum_line(line, is_ours,    name, e)
{
	if (line ~ /^[ \t]*}[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*;/) {
		name = line
		sub(/^[ \t]*}[ \t]*/, "", name)
		sub(/[ \t]*;.*/, "", name)
		in_enum = 0
		if (!is_ours) {
			official_enum[name] = enum_list
			return
		}
		our_enum[name] = enum_list
		enum_order[++num_enums] = name
		return
	}
	if (line ~ /typedef[ \t]+enum/ || line ~ /^[ \t]*{[ \t]*$/)
		return
	e = enumerator(line)
	if (e != "")
		enum_list = enum_list SUBSEP e
}

# Struct bodies, in our header only: members by path, nested ones first
# collected then prefixed when their name is known.
function struct_line(line,    name, n, i, m, parts, prefix)
{
	if (line ~ /(struct|union)[ \t]*([A-Za-z_][A-Za-z0-9_]*[ \t]*)?{/) {
		stack[++depth] = ""
		return
	}
	if (line ~ /^[ \t]*}/) {
		name = line
		sub(/^[ \t]*}[ \t]*/, "", name)
		sub(/[ \t]*;.*/, "", name)
		if (depth == 1) {
			struct_done(name, stack[1])
			in_struct = 0
			depth = 0
			return
		}
		prefix = name == "" ? "" : name "."
		n = split(stack[depth], parts, SUBSEP)
		m = name == "" ? "" : SUBSEP name
		for (i = 2; i <= n; i++)
			m = m SUBSEP prefix parts[i]
		depth--
		stack[depth] = stack[depth] m
		return
	}
	if (line !~ /;/)
		return
	name = line
	sub(/[ \t]*(\[[^]]*\])?[ \t]*;.*/, "", name)
	sub(/.*[^A-Za-z0-9_]/, "", name)
	stack[depth] = stack[depth] SUBSEP name
}

function struct_done(type, members,    n, i, parts)
{
	emit("SIZE", type, type)
	n = split(members, parts, SUBSEP)
	for (i = 2; i <= n; i++) {
		emit("OFFSET", type, type ", " parts[i])
		emit("MSIZE", type, type ", " parts[i])
	}
}

# "typedef <type> <name>;" outside bodies.
function typedef_line(line,    name, base)
{
	name = line
	sub(/[ \t]*;.*/, "", name)
	# a function pointer: "typedef R (CUDA_CB *name)(args)"
	if (match(name, /\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)[ \t]*\(/)) {
		name = substr(name, RSTART + 1, RLENGTH - 1)
		sub(/[ \t]*\)[ \t]*\($/, "", name)
		sub(/^[ \t]*/, "", name)
		if (name in typedef_seen)
			return
		typedef_seen[name] = 1
		emit("SIZE", name, name)
		return
	}
	sub(/.*[^A-Za-z0-9_]/, "", name)
	if (name in typedef_seen)
		return
	typedef_seen[name] = 1
	emit("SIZE", name, name)
	base = line
	sub(/^[ \t]*typedef[ \t]+/, "", base)
	sub(/[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*;.*/, "", base)
	if (base ~ /\*/ || base ~ /^(struct|union|enum)[ \t]/)
		return
	if (base ~ /^((unsigned|signed|int|long|short|char)[ \t]*)+$/ ||
	    base ~ /^u?int(8|16|32|64)_t$/ || (base in integer_type)) {
		integer_type[name] = 1
		emit("SIGNED", name, name)
	}
}

function macro_line(line,    n, f)
{
	n = split(line, f, /[ \t]+/)
	if (n < 3)
		return
	if (f[2] ~ /^cu[A-Z]/ && f[3] ~ /^cu[A-Z]/)
		emit("RENAME", f[2], f[2])
	else if (f[3] ~ /^(0x[0-9a-fA-F]+|[0-9]+)$/)
		emit("VALUE", f[2], f[2])
}

FNR == 1 {
	file++
	in_comment = in_enum = in_struct = 0
}

{
	line = strip($0)
}

file == 1 {
	remember_identifiers(line)
	if (line ~ /typedef[ \t]+enum/) {
		in_enum = 1
		enum_list = ""
	}
	if (in_enum)
		enum_line(line, 0)
	next
}

in_enum {
	enum_line(line, 1)
	next
}

in_struct {
	struct_line(line)
	next
}

/typedef[ \t]+enum/ {
	in_enum = 1
	enum_list = ""
	next
}

/^[ \t]*typedef[ \t]+(struct|union)[ \t]+[A-Za-z0-9_]+[ \t]*{/ {
	in_struct = 1
	depth = 1
	stack[1] = ""
	next
}

/^[ \t]*typedef[ \t].*;/ {
	typedef_line(line)
	next
}

/^#define[ \t]/ {
	macro_line(line)
}

END {
	for (i = 1; i <= num_enums; i++) {
		type = enum_order[i]
		emit("SIZE", type, type)
		n = split(our_enum[type], ours, SUBSEP)
		delete have
		for (j = 2; j <= n; j++) {
			have[ours[j]] = 1
			emit("ENUM", ours[j], type ", " ours[j])
		}
		if (!(type in official_enum))
			continue
		n = split(official_enum[type], theirs, SUBSEP)
		for (j = 2; j <= n; j++)
			if (!(theirs[j] in have))
				print "ABI_MISSING(" type ", " theirs[j] ")"
	}
}
