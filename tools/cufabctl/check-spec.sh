#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Check that Documentation/netlink/cufab.yaml (the generic netlink spec)
# and include/uapi/linux/cufab.h (what the kernel and cufabctl compile)
# describe the same family: every enum member, value, attribute type and
# attribute check. The compiler is the authority for the header's values
# (a generated C program prints them); a small python3 reader of the
# restricted YAML the spec uses gives the spec's values (no PyYAML
# needed). Prints KTAP; exit 0 when they match, 1 when not, 4 to skip.
#
# usage: tools/cufabctl/check-spec.sh [SPEC [HEADER]]

top=$(cd "$(dirname "$0")/../.." && pwd)
spec=${1:-$top/Documentation/netlink/cufab.yaml}
hdr=${2:-$top/include/uapi/linux/cufab.h}
cc=${CC:-cc}
name="spec-matches-header"

echo "TAP version 13"
echo "1..1"

for tool in python3 "$cc"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "ok 1 $name # SKIP $tool not installed"
		exit 4
	fi
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	sed 's/^/# /' "$tmp/why"
	echo "not ok 1 $name"
	exit 1
}

# Rules the header states in prose (comments, limits) and the kernel's
# policy enforces (the memory range is kernel/device.h's CUFAB_MEM_MIB_MIN
# and _MAX): the spec's checks must say the same.
# Format: attribute check C-expression.
cat >"$tmp/rules" <<'EOF'
CUFAB_NL_A_DEV_INDEX max CUFAB_MAX_GPUS - 1
CUFAB_NL_A_DEV_NAME max-len CUFAB_NAME_LEN - 1
CUFAB_NL_A_DEV_UUID exact-len CUFAB_UUID_LEN
CUFAB_NL_A_TOPO_CLUSTER_UUID exact-len CUFAB_UUID_LEN
CUFAB_NL_A_DEV_NUMA_NODE min -1
CUFAB_NL_A_DEV_CLIQUE max CUFAB_MAX_GPUS - 1
CUFAB_NL_A_DEV_MEM_TOTAL min 1ULL << 20
CUFAB_NL_A_DEV_MEM_TOTAL max 1ULL << 40
CUFAB_NL_A_DEV_FEATURES flags-mask CUFAB_DEV_F_ALL
CUFAB_NL_A_DEV_FEATURES_MASK flags-mask CUFAB_DEV_F_ALL
CUFAB_NL_A_TOPO_NUM_GPUS min 1
CUFAB_NL_A_TOPO_NUM_GPUS max CUFAB_MAX_GPUS
CUFAB_NL_A_TOPO_NVSWITCH max 1
CUFAB_NL_A_TOPO_RACE_DELAY_US max 1000000
CUFAB_NL_A_TOPO_MANAGED_CHECK max 2
EOF

# The spec side: "int NAME VALUE", "str NAME VALUE", "type NAME TYPE",
# "check NAME KIND VALUE" lines.
python3 - "$spec" >"$tmp/spec.txt" 2>"$tmp/why" <<'EOF' || fail
import sys


class SpecError(Exception):
    pass


class Reader:
    """Block mappings, '-' sequences, flow lists of words, '|' blocks."""

    def __init__(self, text):
        self.lines = text.split('\n')
        self.i = 0

    def err(self, msg):
        raise SpecError('%s:%d: %s' % (sys.argv[1], self.i + 1, msg))

    def peek(self):
        while self.i < len(self.lines):
            line = self.lines[self.i]
            s = line.strip()
            if s and not s.startswith('#') and s not in ('---', '...'):
                if '\t' in line[:len(line) - len(line.lstrip())]:
                    self.err('tab in indentation')
                return len(line) - len(line.lstrip(' ')), s
            self.i += 1
        return None

    def node(self, indent):
        t = self.peek()
        if t is None or t[0] < indent:
            self.err('expected an indented block')
        if t[1] == '-' or t[1].startswith('- '):
            return self.seq(t[0])
        return self.map(t[0])

    def seq(self, indent):
        out = []
        while True:
            t = self.peek()
            if t is None or t[0] < indent:
                return out
            if t[0] > indent or not (t[1] == '-' or t[1].startswith('- ')):
                self.err('bad sequence item')
            self.i += 1
            if t[1] == '-':
                out.append(self.node(indent + 1))
            else:
                out.append(self.scalar(t[1][2:].strip()))

    def map(self, indent):
        out = {}
        while True:
            t = self.peek()
            if t is None or t[0] < indent:
                return out
            if t[0] > indent:
                self.err('unexpected indentation')
            key, colon, rest = t[1].partition(':')
            if not colon or not key or ' ' in key:
                self.err('expected "key: value"')
            if key in out:
                self.err('duplicate key ' + key)
            rest = rest.strip()
            self.i += 1
            if rest == '|':
                out[key] = self.literal(indent)
            elif rest == '':
                out[key] = self.node(indent + 1)
            else:
                out[key] = self.scalar(rest)

    def literal(self, indent):
        text = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() and len(line) - len(line.lstrip(' ')) <= indent:
                break
            text.append(line.strip())
            self.i += 1
        return '\n'.join(text).strip() + '\n'

    def scalar(self, s):
        if s[0] in '\'"&*!{|>%@`':
            self.err('unsupported YAML: ' + s)
        if s.startswith('['):
            if not s.endswith(']'):
                self.err('unterminated flow list')
            return [self.scalar(w.strip()) for w in s[1:-1].split(',')
                    if w.strip()]
        if s in ('true', 'false'):
            return s == 'true'
        try:
            return int(s, 0)
        except ValueError:
            return s


def c_upper(name):
    return name.upper().replace('-', '_')


def out(*words):
    print(' '.join(str(w) for w in words))


def need(obj, key, what):
    if key not in obj:
        raise SpecError('%s: missing "%s"' % (what, key))
    return obj[key]


def emit_definitions(spec):
    consts, flags = {}, {}
    for d in spec.get('definitions', []):
        kind, name = need(d, 'type', 'definition'), need(d, 'name', 'definition')
        if kind == 'const':
            consts[name] = d['value']
            if isinstance(d['value'], int):
                out('int', c_upper(name), d['value'])
            else:
                out('str', c_upper(name), d['value'])
            continue
        prefix = d.get('name-prefix', spec['name'] + '-' + name + '-')
        val = d.get('value-start', 0)
        mask = 0
        for e in need(d, 'entries', name):
            ename = e if isinstance(e, str) else need(e, 'name', name)
            if isinstance(e, dict) and 'value' in e:
                val = e['value']
            num = (1 << val) if kind == 'flags' else val
            out('int', c_upper(prefix + ename), num)
            mask |= num
            val += 1
        if kind == 'flags':
            flags[name] = mask
            # YNL renders the mask as <PREFIX>MASK; our header says _ALL.
            if d.get('render-max'):
                out('int', c_upper(prefix + 'all'), mask)
        elif d.get('render-max'):
            out('int', c_upper(prefix + 'max'), val - 1)
    return consts, flags


def limit(value, consts, flags):
    if isinstance(value, int):
        return value
    base, minus, one = value.partition(' - ')
    if base in consts:
        return consts[base] - (1 if minus and one == '1' else 0)
    if base in flags and not minus:
        return flags[base]
    raise SpecError('check value "%s" names no definition' % value)


def emit_attr_sets(spec, consts, flags):
    sets = {}
    for s in need(spec, 'attribute-sets', 'spec'):
        sets[need(s, 'name', 'attribute set')] = s
    for s in sets.values():
        if 'subset-of' in s:
            parent = sets.get(s['subset-of'])
            if parent is None:
                raise SpecError('set %s: no set %s' % (s['name'], s['subset-of']))
            known = [a['name'] for a in parent['attributes']]
            for a in s['attributes']:
                if a['name'] not in known:
                    raise SpecError('set %s: %s not in %s' %
                                    (s['name'], a['name'], parent['name']))
            continue
        prefix = s.get('name-prefix', spec['name'] + '-a-')
        val = 1
        for a in s['attributes']:
            val = a.get('value', val)
            cname = c_upper(prefix + a['name'])
            out('int', cname, val)
            out('type', cname, need(a, 'type', cname))
            for kind, v in sorted(a.get('checks', {}).items()):
                out('check', cname, kind, limit(v, consts, flags))
            nested = a.get('nested-attributes')
            if nested and nested not in sets:
                raise SpecError('%s: no attribute set %s' % (cname, nested))
            val += 1
        out('int', '__' + c_upper(prefix + 'max'), val)
        out('int', c_upper(prefix + 'max'), val - 1)
    return sets


def check_op_attrs(op, sets):
    aset = sets.get(op.get('attribute-set'))
    for mode in ('do', 'dump'):
        for part in ('request', 'reply'):
            names = op.get(mode, {}).get(part, {}).get('attributes', [])
            if names and aset is None:
                raise SpecError('op %s: no attribute-set' % op['name'])
            known = [a['name'] for a in aset['attributes']] if names else []
            for n in names:
                if n not in known:
                    raise SpecError('op %s %s %s: unknown attribute %s' %
                                    (op['name'], mode, part, n))


def emit_ops(spec, sets):
    ops = need(spec, 'operations', 'spec')
    prefix = ops.get('name-prefix', spec['name'] + '-cmd-')
    groups = [g['name'] for g in spec.get('mcast-groups', {}).get('list', [])]
    val = 1
    for op in need(ops, 'list', 'operations'):
        val = op.get('value', val)
        out('int', c_upper(prefix + op['name']), val)
        check_op_attrs(op, sets)
        if 'mcgrp' in op and op['mcgrp'] not in groups:
            raise SpecError('op %s: no mcast group %s' % (op['name'], op['mcgrp']))
        val += 1
    out('int', '__' + c_upper(prefix + 'max'), val)
    out('int', c_upper(prefix + 'max'), val - 1)


def main():
    with open(sys.argv[1]) as f:
        spec = Reader(f.read()).node(0)
    for key in ('name', 'doc', 'attribute-sets', 'operations'):
        need(spec, key, 'spec')
    if spec.get('protocol') != 'genetlink-c':
        raise SpecError('protocol must be genetlink-c (C names are checked)')
    out('str', c_upper(need(spec, 'c-family-name', 'spec')), spec['name'])
    # genetlink-c has no version key: the family version is 1.
    out('int', c_upper(need(spec, 'c-version-name', 'spec')), 1)
    for g in spec.get('mcast-groups', {}).get('list', []):
        define = g.get('c-define-name', spec['name'] + '-mcgrp-' + g['name'])
        out('str', c_upper(define), g['name'])
    consts, flags = emit_definitions(spec)
    sets = emit_attr_sets(spec, consts, flags)
    emit_ops(spec, sets)


try:
    main()
except (SpecError, KeyError, TypeError, AttributeError, OSError) as e:
    sys.stderr.write('spec: %s\n' % e)
    sys.exit(1)
EOF

# The header side. Names: members of the five enums of the family and
# the #defines the spec mentions. Attribute types come from the comment
# after each attribute ("u32", "string", ...; none for UNSPEC and PAD).
awk '
/^enum (cufab_genl_cmd|cufab_genl_attr|cufab_device_feature|cufab_managed_event|cufab_fabric_state|cufab_domain_state|cufab_domain_link) *\{/ {
	inenum = $2; next
}
inenum && /^\};/ { inenum = ""; next }
inenum && match($0, /^[ \t]*[A-Z_][A-Z0-9_]*/) {
	name = substr($0, RSTART, RLENGTH); gsub(/[ \t]/, "", name)
	print "member", name
	if (inenum == "cufab_genl_attr") {
		type = "-"
		if (match($0, /\/\* *[a-z0-9]+/)) {
			type = substr($0, RSTART + 2, RLENGTH - 2); gsub(/ /, "", type)
		}
		if (name !~ /^__/)
			print "type", name, type
	}
}
/^#define [A-Z_][A-Z0-9_]*/ { print "define", $2 }
' "$hdr" >"$tmp/hdr.txt"

# Every spec name must exist in the header and every member of the
# header's family enums must be in the spec.
awk '$1 == "member" || $1 == "define" { print $2 }' "$tmp/hdr.txt" | sort -u >"$tmp/hdr.names"
awk '$1 == "int" || $1 == "str" { print $2 }' "$tmp/spec.txt" | sort -u >"$tmp/spec.names"
awk '$1 == "member" { print $2 }' "$tmp/hdr.txt" | sort -u >"$tmp/hdr.members"
comm -23 "$tmp/spec.names" "$tmp/hdr.names" | sed 's/^/in spec, not in header: /' >"$tmp/why"
comm -23 "$tmp/hdr.members" "$tmp/spec.names" | sed 's/^/in header, not in spec: /' >>"$tmp/why"
[ -s "$tmp/why" ] && fail

# Let the compiler evaluate the header: one printf per spec line.
{
	echo '#include <stdio.h>'
	echo '#include <linux/cufab.h>'
	echo 'int main(void)'
	echo '{'
	awk '
	$1 == "int" { printf "\tprintf(\"int %s %%lld\\n\", (long long)(%s));\n", $2, $2 }
	$1 == "str" { printf "\tprintf(\"str %s %%s\\n\", %s);\n", $2, $2 }
	' "$tmp/spec.txt"
	while read -r attr kind expr; do
		printf '\tprintf("check %s %s %%lld\\n", (long long)(%s));\n' \
			"$attr" "$kind" "$expr"
	done <"$tmp/rules"
	echo '	return 0;'
	echo '}'
} >"$tmp/values.c"
if ! "$cc" -I"$(dirname "$(dirname "$hdr")")" -o "$tmp/values" \
	"$tmp/values.c" >"$tmp/why" 2>&1; then
	fail
fi
"$tmp/values" >"$tmp/hdr.values" || { echo "values program failed" >"$tmp/why"; fail; }
awk '$1 == "type" { print }' "$tmp/hdr.txt" >>"$tmp/hdr.values"

# Spec types: the header comment names them, UNSPEC and PAD carry none.
awk '$1 == "type" && ($3 == "unused" || $3 == "pad") { $3 = "-" } { print }' \
	"$tmp/spec.txt" >"$tmp/spec.values"

sort "$tmp/hdr.values" >"$tmp/a"
sort "$tmp/spec.values" >"$tmp/b"
if ! diff "$tmp/a" "$tmp/b" >"$tmp/diff"; then
	{
		echo "header (<) and spec (>) disagree:"
		grep '^[<>]' "$tmp/diff"
	} >"$tmp/why"
	fail
fi
echo "# $(grep -c '^int' "$tmp/a") values, $(grep -c '^type' "$tmp/a") attribute types, $(grep -c '^check' "$tmp/a") checks compared"
echo "ok 1 $name"
exit 0
