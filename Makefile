# SPDX-License-Identifier: GPL-2.0
#
# cufab top-level build. Everything lands under build/; nothing is built in
# the source directories, so two kernels' modules can coexist.
#
#   make                  module (KDIR), library (also as build/lib/cuda/libcuda.so.1),
#                         tools, selftests, examples, bench
#   make module KDIR=..   cufab.ko for that kernel tree (KUNIT=1 adds KUnit suites)
#   make check            everything, static checks, KUnit and selftests in qemu
#   make demo             boot the VM and run the examples
#   make bench-run        run tools/bench inside the VM, print JSON
#   sudo make install     module, library, header, cufabctl on this host

VERSION		:= 0.1.0
SOVERSION	:= 1

CC		?= cc
BUILD		:= $(CURDIR)/build
PREFIX		?= /usr/local
DESTDIR		?=

# The kernel to build against: the running kernel's build tree if it has
# one, else the Debian 6.1 headers package (what the test VM boots).
DEBIAN_KDIR	:= $(firstword $(wildcard /usr/src/linux-headers-*-amd64))
RUNNING_KDIR	:= $(wildcard /lib/modules/$(shell uname -r)/build)
KDIR		?= $(if $(RUNNING_KDIR),$(RUNNING_KDIR),$(DEBIAN_KDIR))
KTAG		:= $(notdir $(patsubst %/,%,$(realpath $(KDIR))))
KMOD_DIR	:= $(BUILD)/kmod/$(KTAG)
KUNIT		?=

CFLAGS_COMMON	:= -O2 -g -Wall -Wextra -Wno-unused-parameter \
		   -Wno-missing-field-initializers -D_GNU_SOURCE
CPPFLAGS_COMMON	:= -I$(CURDIR)/include -I$(CURDIR)/include/uapi
CFLAGS		?=
CFLAGS		+= $(CFLAGS_COMMON)

NL_CFLAGS	= $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS		= $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)

LIB_SRCS	:= $(wildcard lib/*.c)
LIB_HDRS	:= $(wildcard lib/*.h) include/cufab/cuda.h include/uapi/linux/cufab.h
LIB_SO		:= $(BUILD)/lib/libcufab.so.$(SOVERSION)
# The same library under the name programs linked against NVIDIA's
# libcuda (-lcuda) look for: LD_LIBRARY_PATH=build/lib/cuda runs them on
# cufab unchanged.
LIBCUDA_DROPIN	:= $(BUILD)/lib/cuda/libcuda.so.1

CTL_SRCS	:= $(filter-out tools/cufabctl/jsoncheck.c,$(wildcard tools/cufabctl/*.c))
CTL_BIN		:= $(BUILD)/bin/cufabctl
JSONCHECK	:= $(if $(wildcard tools/cufabctl/jsoncheck.c),$(BUILD)/bin/jsoncheck)

KSFT_DIR	:= $(BUILD)/ksft
KSFT_HDRS	:= $(KSFT_DIR)/kselftest_harness.h $(KSFT_DIR)/kselftest.h
LINUX_TARBALL	:= $(firstword $(wildcard /usr/src/linux-source-6.1.tar.xz))

ST_SRCS		:= $(wildcard selftests/*.c)
ST_BINS		:= $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(ST_SRCS))
ST_SCRIPTS	:= $(patsubst selftests/%,$(BUILD)/selftests/%,$(wildcard selftests/*.sh))
EX_BINS		:= $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
BENCH_BIN	:= $(BUILD)/bench/cufab-bench

# Programs that link libcufab find it next to them in build/, in the VM
# as on the host.
APP_CFLAGS	= $(CFLAGS) $(CPPFLAGS_COMMON) -I$(KSFT_DIR)
APP_LDFLAGS	= -L$(BUILD)/lib -Wl,-rpath,'$$ORIGIN/../lib' -lcufab -lpthread

.PHONY: all module lib tools selftests examples bench check demo bench-run \
	install uninstall clean print-kmod-path FORCE

all: module lib tools selftests examples bench

# ---- kernel module -------------------------------------------------------
# Kbuild wants to write objects next to the sources; a tree of symlinks per
# kernel keeps the source tree clean and the variants apart.
module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "cufab: no kernel build tree (KDIR='$(KDIR)'); install linux-headers-amd64 or pass KDIR=" >&2; exit 1; }
	@mkdir -p $(KMOD_DIR)
	@find $(KMOD_DIR) -xtype l -delete 2>/dev/null || true
	@cp -rsf $(CURDIR)/Kbuild $(CURDIR)/kernel $(CURDIR)/include $(KMOD_DIR)/
	$(MAKE) -C $(KDIR) M=$(KMOD_DIR) CUFAB_KUNIT=$(if $(KUNIT),y) modules

print-kmod-path:
	@echo $(KMOD_DIR)/cufab.ko

# ---- library -------------------------------------------------------------
lib: $(LIB_SO) $(LIBCUDA_DROPIN)

$(LIB_SO): $(LIB_SRCS) $(LIB_HDRS) lib/libcufab.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) -fPIC -fvisibility=hidden -shared \
		-Wl,-soname,libcufab.so.$(SOVERSION) \
		-Wl,--version-script=lib/libcufab.map -Wl,-z,defs \
		-o $@ $(LIB_SRCS) -lpthread -ldl
	ln -sf libcufab.so.$(SOVERSION) $(BUILD)/lib/libcufab.so

$(LIBCUDA_DROPIN): $(LIB_SO)
	@mkdir -p $(dir $@)
	ln -sf ../libcufab.so.$(SOVERSION) $@

# ---- tools ---------------------------------------------------------------
tools: $(CTL_BIN) $(JSONCHECK)

$(CTL_BIN): $(CTL_SRCS) $(wildcard tools/cufabctl/*.h) include/uapi/linux/cufab.h
	@mkdir -p $(dir $@)
	@pkg-config --exists libnl-genl-3.0 || \
		{ echo "cufab: libnl-genl-3.0 not found; apt-get install libnl-3-dev libnl-genl-3-dev" >&2; exit 1; }
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) $(NL_CFLAGS) -o $@ $(CTL_SRCS) $(NL_LIBS)

$(BUILD)/bin/jsoncheck: tools/cufabctl/jsoncheck.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# ---- selftests, examples, bench -------------------------------------------
# kselftest_harness.h comes from the installed linux-source package at
# build time; it is never copied into the repository.
$(KSFT_HDRS):
	@test -n "$(LINUX_TARBALL)" || \
		{ echo "cufab: /usr/src/linux-source-6.1.tar.xz missing; apt-get install linux-source-6.1" >&2; exit 1; }
	@mkdir -p $(KSFT_DIR)
	tar -xJf $(LINUX_TARBALL) -C $(KSFT_DIR) --strip-components=4 \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h
	@touch $(KSFT_HDRS)

selftests: $(ST_BINS) $(ST_SCRIPTS) abi-tests

# kselftest_harness.h compares int literals with unsigned values in its
# EXPECT_* macros and has a for-clause gcc 12 calls misleading: silence
# those two for the tests only.
ST_CFLAGS	= $(APP_CFLAGS) -Wno-sign-compare -Wno-misleading-indentation

$(BUILD)/selftests/%: selftests/%.c $(KSFT_HDRS) $(LIB_SO) $(wildcard selftests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -o $@ $< $(APP_LDFLAGS)

$(BUILD)/selftests/%.sh: selftests/%.sh
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

examples: $(EX_BINS)

$(BUILD)/examples/%: examples/%.c $(wildcard examples/*.h) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -o $@ $< $(APP_LDFLAGS)

bench: $(BENCH_BIN)

$(BENCH_BIN): $(wildcard tools/bench/*.c tools/bench/*.h) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -o $@ $(wildcard tools/bench/*.c) $(APP_LDFLAGS) -lm

# The ABI tests build against the official cuda.h when it is installed.
.PHONY: abi-tests
abi-tests:
-include selftests/abi/abi.mk

# ---- running -------------------------------------------------------------
check:
	tools/check

# The VM boots Debian's 6.1 kernel: build the module for it, whatever the
# host runs, after installing what a fresh machine lacks.
VM_KDIR = $$(tools/vm/kernel debian | sed -n 's/^DEBIAN_KDIR=//p')

demo:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	tools/vm/run -- tools/vm/demo.sh

# 8 GPUs so that the multicast broadcast rows cover k = 2, 4 and 8.
BENCH_VM_ARGS	?= --gpus 8 --param mem_mib=2048
bench-run:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	tools/vm/run $(BENCH_VM_ARGS) -- $(BENCH_BIN)

# ---- install on a real host ----------------------------------------------
install: all
	$(MAKE) -C $(KDIR) M=$(KMOD_DIR) modules_install
	install -D -m 0755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/libcufab.so.$(VERSION)
	ln -sf libcufab.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libcufab.so.$(SOVERSION)
	ln -sf libcufab.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libcufab.so
	install -D -m 0644 include/cufab/cuda.h $(DESTDIR)$(PREFIX)/include/cufab/cuda.h
	install -D -m 0644 include/uapi/linux/cufab.h $(DESTDIR)$(PREFIX)/include/linux/cufab.h
	install -D -m 0755 $(CTL_BIN) $(DESTDIR)$(PREFIX)/bin/cufabctl
	-depmod -a
	-ldconfig

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libcufab.so*
	rm -rf $(DESTDIR)$(PREFIX)/include/cufab
	rm -f $(DESTDIR)$(PREFIX)/include/linux/cufab.h $(DESTDIR)$(PREFIX)/bin/cufabctl

clean:
	rm -rf $(BUILD)
