# SPDX-License-Identifier: GPL-2.0
#
# ABI tests of libcufab; included by the top-level Makefile, which defines
# BUILD, CC, CFLAGS, KSFT_DIR, KSFT_HDRS, LIB_SO, APP_CFLAGS, APP_LDFLAGS
# and the phony target abi-tests.
#
#   build/selftests/abi_official_test  a program built against NVIDIA's
#                                      cuda.h runs on libcufab
#   build/selftests/abi_layout_test    every type, enumerator and macro of
#                                      include/cufab/cuda.h against NVIDIA's
#   build/selftests/abi_exports_test   lib/libcufab.map == lib/entrypoints.h
#
#   build/selftests/libcuda_dropin_test  a program written as NVIDIA's
#                                      driver samples are, linked through
#                                      NVIDIA's stub libcuda.so, runs on
#                                      build/lib/cuda/libcuda.so.1
#
# Without NVIDIA's header (CUDA_H) the first two and the last are scripts
# that report one skipped test each.

CUDA_H		?= /usr/local/cuda/include/cuda.h
ABI_SRC		:= selftests/abi
ABI_GEN		:= $(BUILD)/abi
ABI_BINS	:= $(BUILD)/selftests/abi_official_test \
		   $(BUILD)/selftests/abi_layout_test \
		   $(BUILD)/selftests/abi_exports_test \
		   $(BUILD)/selftests/libcuda_dropin_test

abi-tests: $(ABI_BINS)

$(BUILD)/selftests/abi_exports_test: $(ABI_SRC)/abi_exports_test.c lib/entrypoints.h \
				     lib/libcufab.map $(KSFT_HDRS) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -DCUFAB_MAP_PATH='"$(CURDIR)/lib/libcufab.map"' \
		-o $@ $< $(APP_LDFLAGS)

ifneq ($(wildcard $(CUDA_H)),)

CUDA_INC	:= $(patsubst %/,%,$(dir $(CUDA_H)))

# The facts to compare, listed from our header; those NVIDIA's lacks are
# marked ABI_NEW_* and checked against abi_reference.txt.
$(ABI_GEN)/abi_items.h: $(ABI_SRC)/abi_items.awk include/cufab/cuda.h $(CUDA_H)
	@mkdir -p $(dir $@)
	awk -f $< $(CUDA_H) include/cufab/cuda.h > $@.tmp
	mv $@.tmp $@

$(ABI_GEN)/abi_reference.c: $(ABI_SRC)/abi_reference.txt
	@mkdir -p $(dir $@)
	{ echo '#include "abi_layout.h"'; \
	  echo 'const struct abi_reference abi_reference[] = {'; \
	  awk -F'\t' '/^[^#]/ && NF >= 2 { printf "\t{ \"%s\", %sLL, \"%s\" },\n", $$1, $$2, $$3 }' $<; \
	  echo '};'; \
	  echo 'const size_t abi_reference_count = sizeof(abi_reference) / sizeof(abi_reference[0]);'; \
	} > $@.tmp
	mv $@.tmp $@

$(ABI_GEN)/abi_layout_ours.o: $(ABI_SRC)/abi_layout_ours.c $(ABI_SRC)/abi_layout.h \
			      $(ABI_GEN)/abi_items.h include/cufab/cuda.h
	$(CC) $(CFLAGS) -I$(CURDIR)/include -I$(ABI_SRC) -I$(ABI_GEN) -c -o $@ $<

# Only NVIDIA's header on the include path of this one.
$(ABI_GEN)/abi_layout_official.o: $(ABI_SRC)/abi_layout_official.c $(ABI_SRC)/abi_layout.h \
				  $(ABI_GEN)/abi_items.h $(CUDA_H)
	$(CC) $(CFLAGS) -I$(CUDA_INC) -I$(ABI_SRC) -I$(ABI_GEN) -c -o $@ $<

$(BUILD)/selftests/abi_layout_test: $(ABI_SRC)/abi_layout_test.c $(ABI_GEN)/abi_layout_ours.o \
				    $(ABI_GEN)/abi_layout_official.o \
				    $(ABI_GEN)/abi_reference.c $(KSFT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(KSFT_DIR) -I$(ABI_SRC) -o $@ $< \
		$(ABI_GEN)/abi_layout_ours.o $(ABI_GEN)/abi_layout_official.o \
		$(ABI_GEN)/abi_reference.c

$(BUILD)/selftests/abi_official_test: $(ABI_SRC)/abi_official_test.c $(CUDA_H) selftests/cufab_test.h \
				      $(KSFT_HDRS) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(CUDA_INC) -I$(CURDIR)/include/uapi -I$(KSFT_DIR) \
		-o $@ $< $(APP_LDFLAGS)

# The directory of NVIDIA's link stub libcuda.so next to the header
# (lib64/stubs, or the targets/ layout of the toolkit packages); the
# top-level Makefile's install-root uses the same variable.
CUDA_STUBS	?= $(patsubst %/,%,$(dir $(firstword \
		   $(wildcard $(CUDA_INC)/../lib64/stubs/libcuda.so \
			      $(CUDA_INC)/../targets/x86_64-linux/lib/stubs/libcuda.so))))

ifneq ($(wildcard $(CUDA_STUBS)/libcuda.so),)

# Only NVIDIA's header and stub: -z lazy as the samples rely on, so that
# only the calls the program makes must exist in the library it runs on.
$(ABI_GEN)/cuda_sample: $(ABI_SRC)/cuda_sample.c $(CUDA_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(CUDA_INC) -o $@ $< -L$(CUDA_STUBS) -lcuda \
		-Wl,-z,lazy

$(BUILD)/selftests/libcuda_dropin_test: $(ABI_SRC)/libcuda_dropin_test.sh \
					$(ABI_GEN)/cuda_sample $(LIBCUDA_DROPIN)
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

else

$(BUILD)/selftests/libcuda_dropin_test:
	@mkdir -p $(dir $@)
	@echo "cufab: no libcuda.so stub next to $(CUDA_H): $(notdir $@) will report SKIP"
	@printf '#!/bin/sh\necho "TAP version 13"\necho "1..1"\n' > $@
	@printf 'echo "ok 1 # SKIP needs NVIDIA'"'"'s stub libcuda.so at build time"\n' >> $@
	@printf 'echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"\n' >> $@
	@chmod +x $@

endif

else

$(BUILD)/selftests/abi_official_test $(BUILD)/selftests/abi_layout_test \
$(BUILD)/selftests/libcuda_dropin_test:
	@mkdir -p $(dir $@)
	@echo "cufab: $(CUDA_H) not found: $(notdir $@) will report SKIP"
	@printf '#!/bin/sh\n# NVIDIA cuda.h was absent when this was built.\n' > $@
	@printf 'echo "TAP version 13"\necho "1..1"\n' >> $@
	@printf 'echo "ok 1 # SKIP %s needs %s at build time"\n' $(notdir $@) $(CUDA_H) >> $@
	@printf 'echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"\n' >> $@
	@chmod +x $@

endif

# cufab's NVML (include/cufab/nvml.h, nvml/) against NVIDIA's nvml.h, which
# no toolkit package installs: the reference copy beside the repository
# (../shared/reference/nvidia, see its README), or NVML_H=. Without it, a
# script reporting one skip.
NVML_H		?= $(abspath $(CURDIR)/../shared/reference/nvidia/nvml.h)
NVML_ABI_TEST	:= $(BUILD)/selftests/nvml_abi_test
abi-tests: $(NVML_ABI_TEST)

ifneq ($(wildcard $(NVML_H)),)
$(ABI_GEN)/nvml_abi_ours.o: $(ABI_SRC)/nvml_abi_ours.c $(ABI_SRC)/nvml_abi.h \
			    $(ABI_SRC)/nvml_abi_items.h include/cufab/nvml.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(CURDIR)/include -I$(ABI_SRC) -c -o $@ $<

# Only NVIDIA's header on the include path of this one.
$(ABI_GEN)/nvml_abi_official.o: $(ABI_SRC)/nvml_abi_official.c $(ABI_SRC)/nvml_abi.h \
				$(ABI_SRC)/nvml_abi_items.h $(NVML_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(dir $(NVML_H)) -I$(ABI_SRC) -c -o $@ $<

$(NVML_ABI_TEST): $(ABI_SRC)/nvml_abi_test.c $(ABI_GEN)/nvml_abi_ours.o \
		  $(ABI_GEN)/nvml_abi_official.o $(KSFT_HDRS) $(NVML_SO) \
		  nvml/libnvidia-ml.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(KSFT_DIR) -I$(ABI_SRC) \
		-DNVML_HDR_PATH='"$(CURDIR)/include/cufab/nvml.h"' \
		-DNVML_MAP_PATH='"$(CURDIR)/nvml/libnvidia-ml.map"' -o $@ $< \
		$(ABI_GEN)/nvml_abi_ours.o $(ABI_GEN)/nvml_abi_official.o -ldl
else
$(NVML_ABI_TEST):
	@mkdir -p $(dir $@)
	@echo "cufab: $(NVML_H) not found: $(notdir $@) will report SKIP"
	@printf '#!/bin/sh\n# NVIDIA nvml.h was absent when this was built.\n' > $@
	@printf 'echo "TAP version 13"\necho "1..1"\n' >> $@
	@printf 'echo "ok 1 # SKIP nvml_abi_test needs %s at build time"\n' $(NVML_H) >> $@
	@printf 'echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"\n' >> $@
	@chmod +x $@
endif
