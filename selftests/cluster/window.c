// SPDX-License-Identifier: GPL-2.0
/*
 * window: reach the test cluster's shared fabric window from a node.
 *
 * tools/vm/cluster gives every node the same host file as an ivshmem-plain
 * PCI device (1af4:1110); its BAR 2 is the window. This program finds the
 * device, maps the BAR through sysfs (no driver needed) and:
 *
 *   window info                    prints "<bdf> <size in bytes>"
 *   window write OFF LEN SEED      fills [OFF, OFF+LEN) with SEED's pattern
 *   window check OFF LEN SEED      exits 0 if [OFF, OFF+LEN) holds it
 *
 * The pattern is a 64-bit xorshift sequence started from SEED, so a stale
 * or foreign range cannot pass for it. OFF and LEN are multiples of 8.
 * Exit status: 0, 1 on a mismatch or a failure (explained on stderr),
 * 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define IVSHMEM_VENDOR	0x1af4
#define IVSHMEM_DEVICE	0x1110

static unsigned long read_hex(const char *dev, const char *file)
{
	char path[512], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", PCI_DEVICES, dev, file);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtoul(buf, NULL, 0);
}

/* The first ivshmem device's sysfs name, or NULL. */
static char *find_window(void)
{
	struct dirent *d;
	char *found = NULL;
	DIR *dir;

	dir = opendir(PCI_DEVICES);
	if (!dir)
		return NULL;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (read_hex(d->d_name, "vendor") == IVSHMEM_VENDOR &&
		    read_hex(d->d_name, "device") == IVSHMEM_DEVICE)
			found = strdup(d->d_name);
	}
	closedir(dir);
	return found;
}

/*
 * Memory decoding must be on for the BAR to answer; without a driver the
 * device is enabled through sysfs (pci_enable_device()).
 */
static int enable_device(const char *dev)
{
	char path[512];
	int fd, ret = 0;

	if (read_hex(dev, "enable"))
		return 0;
	snprintf(path, sizeof(path), "%s/%s/enable", PCI_DEVICES, dev);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		ret = -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int print_usage(void)
{
	fprintf(stderr, "usage: window info | write OFF LEN SEED | check OFF LEN SEED\n");
	return 2;
}

/*
 * Every word is one load or store the compiler may neither merge nor
 * drop: another VM reads and writes the same memory.
 */
static int run(const char *op, uint64_t *w, uint64_t words, uint64_t seed,
	       uint64_t off)
{
	uint64_t s = seed ? seed : 1, i, v, got;

	for (i = 0; i < words; i++) {
		v = next(&s);
		if (!strcmp(op, "write")) {
			__atomic_store_n(&w[i], v, __ATOMIC_RELAXED);
			continue;
		}
		got = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
		if (got != v) {
			fprintf(stderr, "window: offset %#" PRIx64 ": %#" PRIx64
				" where seed %" PRIu64 " writes %#" PRIx64 "\n",
				off + i * 8, got, seed, v);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t off, len, seed, size;
	char path[512], *dev;
	struct stat st;
	void *map;
	int fd, ret;

	if (argc < 2 || (strcmp(argv[1], "info") && argc != 5) ||
	    (!strcmp(argv[1], "info") && argc != 2))
		return print_usage();
	if (strcmp(argv[1], "info") && strcmp(argv[1], "write") &&
	    strcmp(argv[1], "check"))
		return print_usage();
	dev = find_window();
	if (!dev) {
		fprintf(stderr, "window: no ivshmem device %04x:%04x in %s\n",
			IVSHMEM_VENDOR, IVSHMEM_DEVICE, PCI_DEVICES);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s/resource2", PCI_DEVICES, dev);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "window: %s: %s\n", path, strerror(errno));
		return 1;
	}
	size = st.st_size;
	if (!strcmp(argv[1], "info")) {
		printf("%s %" PRIu64 "\n", dev, size);
		return 0;
	}
	off = strtoull(argv[2], NULL, 0);
	len = strtoull(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0);
	if ((off | len) % 8 || off > size || len > size - off) {
		fprintf(stderr, "window: [%#" PRIx64 ", +%#" PRIx64
			") is not 8-byte aligned inside the %" PRIu64
			"-byte window\n", off, len, size);
		return 1;
	}
	if (enable_device(dev)) {
		fprintf(stderr, "window: cannot enable %s: %s\n", dev,
			strerror(errno));
		return 1;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "window: mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	ret = run(argv[1], (uint64_t *)((char *)map + off), len / 8, seed,
		  off);
	munmap(map, size);
	close(fd);
	free(dev);
	return ret;
}
