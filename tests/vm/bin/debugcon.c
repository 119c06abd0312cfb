// SPDX-License-Identifier: GPL-2.0
/*
 * debugcon: copy stdin to I/O port 0xe9, QEMU's isa-debugcon, which
 * tests/vm/vm.sh writes to a file. The VM's init sends the kernel log
 * this way: a PREEMPT_RT guest under TCG stalls for good after some
 * 100-200 KB written to an 8250 serial port (tests/vm/repro/rt-serial-flood.sh),
 * and the stress runs log megabytes. A port write needs no interrupt.
 */
#include <stdio.h>
#include <sys/io.h>
#include <unistd.h>

#define DEBUGCON_PORT 0xe9

int main(void)
{
	unsigned char buf[65536];
	ssize_t n, i;

	if (ioperm(DEBUGCON_PORT, 1, 1)) {
		perror("debugcon: ioperm");
		return 1;
	}
	while ((n = read(0, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			outb(buf[i], DEBUGCON_PORT);
	if (n < 0) {
		perror("debugcon: read");
		return 1;
	}
	return 0;
}
