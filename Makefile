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
#   make demo-cluster     boot two nodes: domain key, domain show, imexd -N,
#                         FABRIC memory across them
#   make bench-run        run tools/bench inside the VM: JSON and SVG plots in build/bench/
#                         (BENCH_ARGS=-q for a quick smoke run)
#   make cluster-check    boot a 2-node test cluster (tools/vm/cluster) and run
#                         its smoke test (selftests/cluster/smoke.sh)
#   make fuzz DURATION=S  the fuzzer (tools/fuzz) for S seconds under the
#                         debug kernel (FUZZ_SEED, FUZZ_ARGS: more options)
#   make soak DURATION=S  the kill -9 soak (selftests/soak_test.c) for S seconds
#                         under the debug kernel (KASAN, lockdep, kmemleak)
#   sudo make install     module, libraries, headers, cufabctl, pkg-config,
#                         udev rules, man pages (DESTDIR, PREFIX honoured)
#   sudo make uninstall   removes what install put there
#   sudo make dkms-install  the module's sources under DKMS

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
# KMOD_TAG names the module's build directory (dkms.conf fixes it).
KMOD_TAG	?= $(KTAG)
KMOD_DIR	:= $(BUILD)/kmod/$(KMOD_TAG)
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
RT_SO		:= $(BUILD)/lib/libcufabrt.so.$(SOVERSION)
# The same library under the name programs linked against NVIDIA's
# libcuda (-lcuda) look for: LD_LIBRARY_PATH=build/lib/cuda runs them on
# cufab unchanged.
LIBCUDA_DROPIN	:= $(BUILD)/lib/cuda/libcuda.so.1
# cufab's NVML (nvml/): a library of its own, only under NVIDIA's name and
# only in the drop-in directory, next to libcuda.so.1.
NVML_SRCS	:= $(wildcard nvml/*.c)
NVML_SO		:= $(BUILD)/lib/cuda/libnvidia-ml.so.1

CTL_SRCS	:= $(filter-out tools/cufabctl/jsoncheck.c,$(wildcard tools/cufabctl/*.c))
CTL_BIN		:= $(BUILD)/bin/cufabctl
IMEXD_SRCS	:= $(wildcard tools/imexd/*.c)
IMEXD_BIN	:= $(BUILD)/bin/cufab-imexd
IMEXD_TEST	:= $(BUILD)/tools/imexd_handshake_test
JSONCHECK	:= $(if $(wildcard tools/cufabctl/jsoncheck.c),$(BUILD)/bin/jsoncheck)

KSFT_DIR	:= $(BUILD)/ksft
KSFT_HDRS	:= $(KSFT_DIR)/kselftest_harness.h $(KSFT_DIR)/kselftest.h
LINUX_TARBALL	:= $(firstword $(wildcard /usr/src/linux-source-6.1.tar.xz))

ST_SRCS		:= $(wildcard selftests/*.c)
ST_BINS		:= $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(ST_SRCS))
ST_SCRIPTS	:= $(patsubst selftests/%,$(BUILD)/selftests/%,$(wildcard selftests/*.sh))
EX_BINS		:= $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
BENCH_BIN	:= $(BUILD)/bench/cufab-bench
# The test cluster: its private switch (host side) and the programs its
# nodes run (build/cluster/, apart from build/selftests/, which every
# single-node VM runs).
VSWITCH_BIN	:= $(BUILD)/tools/vswitch
CLUSTER_BINS	:= $(patsubst selftests/cluster/%.c,$(BUILD)/cluster/%,$(wildcard selftests/cluster/*.c)) \
		   $(patsubst selftests/cluster/%,$(BUILD)/cluster/%,$(wildcard selftests/cluster/*.sh))
FUZZ_BIN	:= $(BUILD)/fuzz/cufab-fuzz

# Programs that link libcufab find it next to them in build/, in the VM
# as on the host.
APP_CFLAGS	= $(CFLAGS) $(CPPFLAGS_COMMON) -I$(KSFT_DIR)
APP_LDFLAGS	= -L$(BUILD)/lib -Wl,-rpath,'$$ORIGIN/../lib' -lcufab -lpthread

.PHONY: all module lib tools selftests examples bench check demo bench-run \
	soak fuzz install uninstall clean print-kmod-path FORCE cluster-tests \
	cluster-check demo-cluster

all: module lib tools selftests cluster-tests examples bench

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
lib: $(LIB_SO) $(LIBCUDA_DROPIN) $(NVML_SO)

$(LIB_SO): $(LIB_SRCS) $(LIB_HDRS) lib/libcufab.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) -fPIC -fvisibility=hidden -shared \
		-fno-optimize-sibling-calls \
		-Wl,-soname,libcufab.so.$(SOVERSION) \
		-Wl,--version-script=lib/libcufab.map -Wl,-z,defs \
		-o $@ $(LIB_SRCS) -lpthread -ldl
	ln -sf libcufab.so.$(SOVERSION) $(BUILD)/lib/libcufab.so

$(LIBCUDA_DROPIN): $(LIB_SO)
	@mkdir -p $(dir $@)
	ln -sf ../libcufab.so.$(SOVERSION) $@

# The runtime API (rt/), a drop-in libcudart.so.13: compiled against
# NVIDIA's cuda_runtime_api.h, whose types, layouts and prototypes are its
# ABI, and built only where that header is installed. The files listed in
# RT_PTDS_SRCS take streams and are compiled a second time with
# CUDA_API_PER_THREAD_DEFAULT_STREAM, which renames both the runtime
# entry points (cudaX_ptsz/_ptds) and the driver calls they make.
CUDA_INC_DIR	?= /usr/local/cuda/include
RT_HAVE_HDRS	:= $(wildcard $(CUDA_INC_DIR)/cuda_runtime_api.h)
RT_SRCS		:= $(wildcard rt/*.c)
RT_PTDS_SRCS	:= rt/copy.c rt/event.c rt/graph.c rt/managed.c rt/pool.c \
		   rt/procaddr.c rt/stream.c
RT_OBJS		:= $(patsubst rt/%.c,$(BUILD)/rt/%.o,$(RT_SRCS)) \
		   $(patsubst rt/%.c,$(BUILD)/rt/%.ptds.o,$(filter $(RT_SRCS),$(RT_PTDS_SRCS)))
# -fno-plt: each runtime call is a driver call, taken through the GOT in
# one indirect call rather than a call to a PLT stub that jumps through it.
RT_CFLAGS	= $(CFLAGS) $(CPPFLAGS_COMMON) -isystem $(CUDA_INC_DIR) -fPIC \
		  -fvisibility=hidden -fno-plt
RT_DROPIN	:= $(BUILD)/lib/cuda/libcudart.so.13
# NVIDIA's libcudart.so.13, where installed: every symbol libcufabrt
# exports must be one it exports too (a misspelt entry point would never
# be called), checked when libcufabrt is linked.
RT_NV_LIB	?= $(firstword $(wildcard $(CUDA_INC_DIR)/../lib64/libcudart.so.13 \
		   $(CUDA_INC_DIR)/../targets/x86_64-linux/lib/libcudart.so.13))
RT_LIBS		:= $(if $(RT_HAVE_HDRS),$(RT_SO) $(RT_DROPIN))

lib: $(RT_LIBS)
ifeq ($(RT_HAVE_HDRS),)
lib: rt-missing
.PHONY: rt-missing
rt-missing:
	@echo "cufab: $(CUDA_INC_DIR)/cuda_runtime_api.h not found: libcufabrt not built"
endif

$(BUILD)/rt/%.o: rt/%.c rt/internal.h include/cufab/cuda.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

$(BUILD)/rt/%.ptds.o: rt/%.c rt/internal.h include/cufab/cuda.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -DCUDA_API_PER_THREAD_DEFAULT_STREAM -c -o $@ $<

$(RT_SO): $(RT_OBJS) rt/libcufabrt.map $(LIB_SO)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libcufabrt.so.$(SOVERSION) \
		-Wl,--version-script=rt/libcufabrt.map -Wl,-z,defs \
		-o $@ $(RT_OBJS) -L$(BUILD)/lib -Wl,-rpath,'$$ORIGIN:$$ORIGIN/..' \
		-lcufab -lpthread
ifneq ($(RT_NV_LIB),)
	nm -D --defined-only $@ | sed -n 's/^[0-9a-f]* T \([^@]*\)@.*/\1/p' | sort > $(BUILD)/rt/exports
	nm -D --defined-only $(RT_NV_LIB) | sed -n 's/^[0-9a-f]* T \([^@]*\)@.*/\1/p' | sort > $(BUILD)/rt/exports.nvidia
	@extra=$$(comm -23 $(BUILD)/rt/exports $(BUILD)/rt/exports.nvidia); \
	if [ -n "$$extra" ]; then \
		echo "cufab: libcufabrt exports what $(RT_NV_LIB) does not: $$extra" >&2; \
		rm -f $@; exit 1; \
	fi
endif
	ln -sf libcufabrt.so.$(SOVERSION) $(BUILD)/lib/libcufabrt.so

# Programs linked against NVIDIA's libcudart.so.13 (nvcc -cudart shared)
# load this one from LD_LIBRARY_PATH=build/lib/cuda; its symbols carry
# NVIDIA's version node, libcudart.so.13. Loaded through this link, its
# $$ORIGIN is the drop-in directory: libcufab.so.1 is found one up.
$(RT_DROPIN): $(RT_SO)
	@mkdir -p $(dir $@)
	ln -sf ../libcufabrt.so.$(SOVERSION) $@

# NVML answers from the netlink family alone (nvml/nl.c): no libcufab, no
# libnl. RUNPATH $ORIGIN: nvmlSystemGetCudaDriverVersion dlopens the
# libcuda.so.1 beside it.
$(NVML_SO): $(NVML_SRCS) $(wildcard nvml/*.h) nvml/libnvidia-ml.map \
		include/cufab/nvml.h include/uapi/linux/cufab.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) -DCUFAB_NVML_VERSION='"$(VERSION)"' \
		-fPIC -fvisibility=hidden -shared -Wl,-soname,libnvidia-ml.so.1 \
		-Wl,--version-script=nvml/libnvidia-ml.map -Wl,-z,defs \
		-Wl,--enable-new-dtags,-rpath,'$$ORIGIN' \
		-o $@ $(NVML_SRCS) -lpthread -ldl

# ---- tools ---------------------------------------------------------------
tools: $(CTL_BIN) $(IMEXD_BIN) $(JSONCHECK) $(FUZZ_BIN) $(VSWITCH_BIN) \
	$(IMEXD_TEST)

# The node daemon of a fabric domain (Documentation/multinode.rst).
$(IMEXD_BIN): $(IMEXD_SRCS) tools/imexd/imexd.h include/uapi/linux/cufab_imex.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) $(NL_CFLAGS) -o $@ $(IMEXD_SRCS) $(NL_LIBS) \
		-lcrypto

# The daemons' handshake on the host (make check: static imexd-handshake).
$(IMEXD_TEST): tools/imexd/test/handshake_test.c tools/imexd/auth.c \
		tools/imexd/peer.c tools/imexd/imexd.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) -o $@ $(filter %.c,$^) -lcrypto

$(VSWITCH_BIN): tools/vm/vswitch.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

$(CTL_BIN): $(CTL_SRCS) $(wildcard tools/cufabctl/*.h) include/uapi/linux/cufab.h
	@mkdir -p $(dir $@)
	@pkg-config --exists libnl-genl-3.0 || \
		{ echo "cufab: libnl-genl-3.0 not found; apt-get install libnl-3-dev libnl-genl-3-dev" >&2; exit 1; }
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) $(NL_CFLAGS) -o $@ $(CTL_SRCS) $(NL_LIBS)

# The fuzzer needs no library: it speaks the uAPI itself. check-table fails
# the build when an ioctl of the header has no description in table.c.
$(FUZZ_BIN): $(wildcard tools/fuzz/*.c tools/fuzz/*.h) tools/fuzz/check-table \
		include/uapi/linux/cufab.h
	@mkdir -p $(dir $@)
	tools/fuzz/check-table include/uapi/linux/cufab.h tools/fuzz/table.c
	$(CC) $(CFLAGS) $(CPPFLAGS_COMMON) -o $@ $(wildcard tools/fuzz/*.c) -lpthread

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

# The runtime suites (selftests/rt_*_test.c) are written against NVIDIA's
# cuda_runtime_api.h (and cuda.h where they compare with the driver), as a
# user's program is, and link libcufabrt; without that header each is a
# script that reports one skip. rt_errors.h lists every cudaError_t of
# driver_types.h for rt_error_test.
RT_ERRORS_H	:= $(BUILD)/rt/rt_errors.h

$(RT_ERRORS_H): $(CUDA_INC_DIR)/driver_types.h
	@mkdir -p $(dir $@)
	awk '/^enum __device_builtin__ cudaError$$/,/^};/' $< | \
		sed -n 's/^ *\(cuda[A-Za-z0-9]*\) *= *[0-9]*.*/\t{ \1, "\1" },/p' > $@.tmp
	mv $@.tmp $@

ifneq ($(RT_HAVE_HDRS),)
$(BUILD)/selftests/rt_%_test: selftests/rt_%_test.c $(KSFT_HDRS) $(RT_SO) $(RT_ERRORS_H) \
			      $(wildcard selftests/rt_*.h) selftests/cufab_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-sign-compare -Wno-misleading-indentation -Wno-deprecated-declarations \
		-isystem $(CUDA_INC_DIR) -I$(KSFT_DIR) -I$(BUILD)/rt -Iinclude/uapi \
		-o $@ $< -L$(BUILD)/lib -Wl,-rpath,'$$ORIGIN/../lib' -lcufabrt -lcufab -lpthread
else
$(BUILD)/selftests/rt_%_test: selftests/rt_%_test.c
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\n# NVIDIA cuda_runtime_api.h was absent when this was built.\n' > $@
	@printf 'echo "TAP version 13"\necho "1..1"\n' >> $@
	@printf 'echo "ok 1 # SKIP %s needs %s at build time"\n' $(notdir $@) $(CUDA_INC_DIR)/cuda_runtime_api.h >> $@
	@printf 'echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"\n' >> $@
	@chmod +x $@
endif

# Programs built by NVIDIA's nvcc -cudart shared from selftests/rt_nvcc/*.cu,
# run through the drop-in libcudart.so.13 by selftests/rt_nvcc_test.sh
# (which skips where they were not built: no nvcc).
NVCC		?= $(firstword $(wildcard $(CUDA_INC_DIR)/../bin/nvcc))
RT_NVCC_BINS	:= $(patsubst selftests/rt_nvcc/%.cu,$(BUILD)/rt/nvcc/%,\
		   $(wildcard selftests/rt_nvcc/*.cu))

ifneq ($(and $(NVCC),$(RT_HAVE_HDRS)),)
selftests: $(RT_NVCC_BINS)

$(BUILD)/rt/nvcc/%: selftests/rt_nvcc/%.cu $(RT_DROPIN)
	@mkdir -p $(dir $@)
	$(NVCC) -cudart shared -o $@ $<
endif

# nvml_test calls NVML as programs do: linked against libnvidia-ml.so.1.
$(BUILD)/selftests/nvml_test: $(NVML_SO)
$(BUILD)/selftests/nvml_test: APP_LDFLAGS += -L$(BUILD)/lib/cuda \
	-Wl,-rpath,'$$ORIGIN/../lib/cuda' -l:libnvidia-ml.so.1

$(BUILD)/selftests/%.sh: selftests/%.sh
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

cluster-tests: $(CLUSTER_BINS)

# The cluster's CUDA programs, linked against libcufab like the selftests.
$(BUILD)/cluster/fabric_mem: selftests/cluster/fabric_mem.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -o $@ $< -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../lib' -lcufab -lpthread

$(BUILD)/cluster/fabric_team: selftests/cluster/fabric_team.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -o $@ $< -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../lib' -lcufab -lpthread

$(BUILD)/cluster/fabric_le: selftests/cluster/fabric_le.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -o $@ $< -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../lib' -lcufab -lpthread

$(BUILD)/cluster/%: selftests/cluster/%.c $(wildcard selftests/cluster/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/cluster/%.sh: selftests/cluster/%.sh
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

examples: $(EX_BINS)

$(BUILD)/examples/%: examples/%.c $(wildcard examples/*.h) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -o $@ $< $(APP_LDFLAGS)

bench: $(BENCH_BIN)

# NVML linked as programs link it; libcufabrt opened at run time where it
# was built (tools/bench/rt_bench.c).
$(BENCH_BIN): $(wildcard tools/bench/*.c tools/bench/*.h) $(LIB_SO) $(NVML_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -o $@ $(wildcard tools/bench/*.c) $(APP_LDFLAGS) \
		-L$(BUILD)/lib/cuda -Wl,-rpath,'$$ORIGIN/../lib/cuda' \
		-l:libnvidia-ml.so.1 -ldl -lm

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
DEBUG_VM_KDIR = $$(tools/vm/kernel debug | sed -n 's/^DEBUG_KDIR=//p')

# The VM runs every example (tools/vm/demo.sh).
demo:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	tools/vm/run -- tools/vm/demo.sh

# Two nodes booted in parallel (tools/vm/demo-cluster.sh): the daemons
# with a domain key, cufabctl domain show, cufab-imexd -N, FABRIC memory
# exported on each node and imported on the other.
demo-cluster:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	tools/vm/cluster --nodes 2 --gpus 2 -- tools/vm/demo-cluster.sh

# Two nodes booted in parallel, the smoke test then the fabric suite on
# each (node 1's link cut at its end), two on the debug kernel, the
# failure suite (node 0 killed), and three running the smoke test and the
# domain suite's cases 1 to 4 (DEGRADED): what make check's "cluster ..."
# suites run, alone.
cluster-check:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	$(MAKE) module KDIR=$$(tools/vm/kernel debug | sed -n 's/^DEBUG_KDIR=//p') KUNIT=1
	tools/vm/cluster --nodes 2 --gpus 2 --cut 1@file:cut1 -- \
		sh -c 'build/cluster/smoke.sh; s=$$?; build/cluster/domain.sh || s=1; build/cluster/fabric.sh || s=1; exit $$s'
	tools/vm/cluster --debug --nodes 2 --gpus 2 --kill 0@file:kill0 -- \
		build/cluster/kill.sh
	tools/vm/cluster --nodes 3 --gpus 1 -- \
		sh -c 'build/cluster/smoke.sh; s=$$?; build/cluster/domain.sh 4 || s=1; exit $$s'

# make check runs the soak for 20 s per boot; this runs a long one.
DURATION	?= 600
soak:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	$(MAKE) module KDIR=$(DEBUG_VM_KDIR)
	tools/vm/run --debug --timeout $$(($(DURATION) + 900)) -- \
		env CUFAB_SOAK_SECONDS=$(DURATION) \
		CUFAB_SUITE_TIMEOUT=$$(($(DURATION) + 600)) \
		tools/vm/guest-tests soak_test

# selftests/fuzz_test.sh is the short seeded pass of make check; this runs a
# long one, reloading the module and scanning kmemleak every ten episodes,
# and fails if an ioctl never succeeded. The report (every ioctl's calls,
# successes and errnos) is on the console, also in build/vm/*.log.
FUZZ_SEED	?= 1
fuzz:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	$(MAKE) module KDIR=$(DEBUG_VM_KDIR)
	tools/vm/run --debug --numa 2 --param create_imex_channel0=1 \
		--timeout $$(($(DURATION) + 1200)) -- \
		$(FUZZ_BIN) -s $(FUZZ_SEED) -d $(DURATION) -c 3000 -R 10 -S $(FUZZ_ARGS)

# 8 GPUs so that the multicast broadcast rows cover k = 2, 4 and 8; the
# last has CONCURRENT_MANAGED_ACCESS 0 (features 0x13f) for the CPU fence
# row, the others an H100's features (0x17f).
BENCH_VM_ARGS	?= --gpus 8 --param mem_mib=2048 \
		   --param features=0x17f,0x17f,0x17f,0x17f,0x17f,0x17f,0x17f,0x13f
# The JSON goes to build/bench/bench.json (and stdout), one SVG per figure
# next to it (tools/bench/plot, gnuplot).
BENCH_JSON	:= $(BUILD)/bench/bench.json
bench-run:
	tools/check --setup
	$(MAKE) all KDIR=$(VM_KDIR)
	tools/vm/run $(BENCH_VM_ARGS) -- $(BENCH_BIN) $(BENCH_ARGS) -o $(BENCH_JSON)
	cat $(BENCH_JSON)
	tools/bench/plot $(BENCH_JSON) $(BUILD)/bench

# ---- install on a real host ----------------------------------------------
# Every path below is under $(DESTDIR): a packager's `make install
# DESTDIR=/tmp/root` touches nothing outside it (the module goes through
# INSTALL_MOD_PATH; depmod, ldconfig, groupadd and udevadm run only when
# installing into the live system). KDIR picks the kernel the module is
# installed for, as for `make module`.
SYSCONFDIR	?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
# The drop-in libcuda.so.1 lives in a directory of its own, off the default
# search path: only programs started with LD_LIBRARY_PATH=$(DROPINDIR) see it.
DROPINDIR	?= $(LIBDIR)/cufab
UDEVRULESDIR	?= /lib/udev/rules.d
MODPROBEDIR	?= /etc/modprobe.d
DKMS_SRCDIR	:= /usr/src/cufab-$(VERSION)
# uname -r of KDIR's kernel (Debian's headers say 6.1.192 in kernel.release
# but 6.1.0-N-amd64 here, which is what modules_install and depmod use).
KRELEASE	= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
		    $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
LIVE_INSTALL	:= $(if $(DESTDIR),,1)

# The files of the DKMS source tree: what `make module` needs, nothing more.
DKMS_FILES	:= Makefile Kbuild dkms.conf $(wildcard kernel/*.[ch] kernel/tests/*.[ch]) \
		   include/uapi/linux/cufab.h include/uapi/linux/cufab_imex.h

PKG_SUBST	= sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		      -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
		      -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		      -e 's|@DROPINDIR@|$(DROPINDIR)|g'

.PHONY: install-module install-lib install-tools install-data dkms-install \
	dkms-uninstall

install: install-module install-lib install-tools install-data
ifeq ($(LIVE_INSTALL),1)
	-ldconfig
	getent group cufab >/dev/null || groupadd --system cufab
	-udevadm control --reload-rules
endif

# Unsigned, as DKMS builds are unless configured: the signing key of a
# distribution kernel is not on the build host.
install-module: module
	$(MAKE) -C $(KDIR) M=$(KMOD_DIR) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra DEPMOD=true CONFIG_MODULE_SIG_ALL= modules_install
ifeq ($(LIVE_INSTALL),1)
	depmod -a $(KRELEASE)
endif

install-lib: $(LIB_SO) $(RT_LIBS) $(NVML_SO)
	install -D -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libcufab.so.$(VERSION)
	ln -sf libcufab.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcufab.so.$(SOVERSION)
	ln -sf libcufab.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libcufab.so
	install -d $(DESTDIR)$(DROPINDIR)
	ln -sf ../libcufab.so.$(VERSION) $(DESTDIR)$(DROPINDIR)/libcuda.so.1
ifneq ($(RT_HAVE_HDRS),)
	install -m 0755 $(RT_SO) $(DESTDIR)$(LIBDIR)/libcufabrt.so.$(VERSION)
	ln -sf libcufabrt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcufabrt.so.$(SOVERSION)
	ln -sf libcufabrt.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libcufabrt.so
	ln -sf ../libcufabrt.so.$(VERSION) $(DESTDIR)$(DROPINDIR)/libcudart.so.13
endif
	install -m 0755 $(NVML_SO) $(DESTDIR)$(DROPINDIR)/libnvidia-ml.so.1
	install -d $(DESTDIR)$(INCLUDEDIR)/cufab $(DESTDIR)$(INCLUDEDIR)/linux
	install -m 0644 include/cufab/*.h $(DESTDIR)$(INCLUDEDIR)/cufab/
	install -m 0644 include/uapi/linux/cufab.h $(DESTDIR)$(INCLUDEDIR)/linux/cufab.h
	install -d $(DESTDIR)$(PKGCONFIGDIR)
	$(PKG_SUBST) packaging/cufab.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/cufab.pc
	$(PKG_SUBST) packaging/cufabrt.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/cufabrt.pc

install-tools: $(CTL_BIN) $(IMEXD_BIN)
	install -D -m 0755 $(CTL_BIN) $(DESTDIR)$(BINDIR)/cufabctl
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0755 $(IMEXD_BIN) $(DESTDIR)$(SBINDIR)/cufab-imexd
	$(PKG_SUBST) packaging/cufab-imex-channels >$(DESTDIR)$(SBINDIR)/cufab-imex-channels
	chmod 0755 $(DESTDIR)$(SBINDIR)/cufab-imex-channels
	install -D -m 0644 tools/cufabctl/cufabctl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/cufabctl
	install -D -m 0644 Documentation/man/cufabctl.8 $(DESTDIR)$(MANDIR)/man8/cufabctl.8
	install -D -m 0644 Documentation/man/cufab.4 $(DESTDIR)$(MANDIR)/man4/cufab.4

install-data:
	install -d $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(MODPROBEDIR) \
		$(DESTDIR)$(SYSCONFDIR)/cufab
	$(PKG_SUBST) packaging/60-cufab.rules >$(DESTDIR)$(UDEVRULESDIR)/60-cufab.rules
	install -m 0644 packaging/cufab.modprobe.conf \
		$(DESTDIR)$(MODPROBEDIR)/cufab.conf.example
	test -e $(DESTDIR)$(SYSCONFDIR)/cufab/imex-channels || \
		install -m 0644 packaging/imex-channels $(DESTDIR)$(SYSCONFDIR)/cufab/imex-channels

# The administrator's channel table is configuration: it stays.
uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KRELEASE)/extra/cufab.ko
	rm -f $(DESTDIR)$(LIBDIR)/libcufab.so $(DESTDIR)$(LIBDIR)/libcufab.so.$(SOVERSION) \
		$(DESTDIR)$(LIBDIR)/libcufab.so.$(VERSION)
	rm -f $(DESTDIR)$(LIBDIR)/libcufabrt.so $(DESTDIR)$(LIBDIR)/libcufabrt.so.$(SOVERSION) \
		$(DESTDIR)$(LIBDIR)/libcufabrt.so.$(VERSION)
	rm -f $(DESTDIR)$(DROPINDIR)/libcuda.so.1 $(DESTDIR)$(DROPINDIR)/libcudart.so.13 \
		$(DESTDIR)$(DROPINDIR)/libnvidia-ml.so.1
	[ ! -d $(DESTDIR)$(DROPINDIR) ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(DROPINDIR)
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/cufab/,$(notdir $(wildcard include/cufab/*.h)))
	[ ! -d $(DESTDIR)$(INCLUDEDIR)/cufab ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(INCLUDEDIR)/cufab
	rm -f $(DESTDIR)$(INCLUDEDIR)/linux/cufab.h $(DESTDIR)$(PKGCONFIGDIR)/cufab.pc \
		$(DESTDIR)$(PKGCONFIGDIR)/cufabrt.pc
	rm -f $(DESTDIR)$(BINDIR)/cufabctl $(DESTDIR)$(SBINDIR)/cufab-imex-channels \
		$(DESTDIR)$(SBINDIR)/cufab-imexd
	rm -f $(DESTDIR)$(BASHCOMPDIR)/cufabctl $(DESTDIR)$(MANDIR)/man8/cufabctl.8 \
		$(DESTDIR)$(MANDIR)/man4/cufab.4
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-cufab.rules \
		$(DESTDIR)$(MODPROBEDIR)/cufab.conf.example
ifeq ($(LIVE_INSTALL),1)
	-depmod -a $(KRELEASE)
	-ldconfig
endif

# ---- the installed tree of selftests/install_test.sh -------------------------
# `make install` into build/install-root (PREFIX=/usr, the module for KDIR),
# and programs built from that tree only: examples/devices.c with nothing
# but pkg-config (selftests/install/rt_count.c likewise for cufabrt) (PKG_CONFIG_SYSROOT_DIR is how a packager points
# pkg-config at a DESTDIR), and with NVIDIA's cuda.h and the toolkit's
# stub libcuda.so, as CUDA programs are linked, the drop-in test programs.
INSTALL_ROOT	:= $(BUILD)/install-root
INSTALL_BIN	:= $(BUILD)/install-bin
PC_ENV		= PKG_CONFIG_SYSROOT_DIR=$(INSTALL_ROOT) \
		  PKG_CONFIG_LIBDIR=$(INSTALL_ROOT)/usr/lib/pkgconfig

.PHONY: install-root
install-root:
	rm -rf $(INSTALL_ROOT) $(INSTALL_BIN)
	$(MAKE) install DESTDIR=$(INSTALL_ROOT) PREFIX=/usr
	mkdir -p $(INSTALL_BIN)
	$(PC_ENV) sh -c '$(CC) -o $(INSTALL_BIN)/devices examples/devices.c \
		$$(pkg-config --cflags --libs cufab)'
# CUDA_H and CUDA_STUBS (the stub libcuda.so's directory) come from
# selftests/abi/abi.mk. -z lazy, as CUDA programs are linked: a call the
# library lacks stops the program at that call, by name, not at start.
ifneq ($(and $(wildcard $(CUDA_H)),$(wildcard $(CUDA_STUBS)/libcuda.so)),)
	$(CC) -I$(dir $(CUDA_H)) -o $(INSTALL_BIN)/dropin selftests/install/dropin.c \
		-L$(CUDA_STUBS) -lcuda -Wl,-z,lazy
	$(CC) -I$(dir $(CUDA_H)) -DCALL_UNCOVERED -o $(INSTALL_BIN)/dropin_uncovered \
		selftests/install/dropin.c -L$(CUDA_STUBS) -lcuda -Wl,-z,lazy
endif
# A runtime-API program: CUDA's cuda_runtime_api.h and nothing of cufab's
# but pkg-config's answer for cufabrt.
ifneq ($(RT_HAVE_HDRS),)
	$(PC_ENV) sh -c '$(CC) -I$(CUDA_INC_DIR) -o $(INSTALL_BIN)/rt_count \
		selftests/install/rt_count.c $$(pkg-config --cflags --libs cufabrt)'
endif

# DKMS rebuilds the module for every installed kernel from a copy of the
# sources in /usr/src/cufab-VERSION (dkms.conf says how). With DESTDIR
# only that copy is made; a package's postinst runs the dkms commands.
dkms-install:
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)
	for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRCDIR)/$$f || exit 1; \
	done
ifeq ($(LIVE_INSTALL),1)
	dkms add -m cufab -v $(VERSION)
	dkms build -m cufab -v $(VERSION)
	dkms install -m cufab -v $(VERSION)
endif

dkms-uninstall:
ifeq ($(LIVE_INSTALL),1)
	-dkms remove -m cufab -v $(VERSION) --all
endif
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)

clean:
	rm -rf $(BUILD)
