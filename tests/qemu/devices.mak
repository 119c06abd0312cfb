# The devices of the test QEMU (tests/qemu/build.sh configures with
# --without-default-devices and this file as configs/devices/x86_64-softmmu/
# sld.mak): what the suite's boots put in a guest, nothing else. QEMU's
# Kconfig adds what each entry selects: CONFIG_I440FX brings the pc
# machine's own board (PIIX3 and its IDE, PIIX4 ACPI with PCI hotplug,
# SMBus and its EEPROMs, fw_cfg with DMA, the ISA bus with the PIT, PICs,
# DMA controllers, RTC, i8042, PC speaker, serial ports and the floppy
# controller, the IOAPIC and APIC, SMBIOS). The rest are devices the pc
# machine adds by itself when they are built in (Kconfig only "implies"
# them), or that a boot's command line asks for. A boot of the same command
# line shows the same devices, ACPI tables and PCI functions to the guest as
# on the QEMU built with the default devices (info qtree, and the guest's
# /sys/firmware/acpi/tables, PCI and I/O port lists compared).
CONFIG_I440FX=y
# The pc machine's default display (-nographic and -display none keep it):
# VGA, the std VGA on PCI.
CONFIG_VGA_PCI=y
# HPET, vmport and its vmmouse, and the parallel port: the pc machine makes
# them by default when built in; the guest kernel uses the HPET.
CONFIG_HPET=y
CONFIG_VMPORT=y
CONFIG_VMMOUSE=y
CONFIG_PARALLEL=y
# -debugcon (tests/vm/vm.sh: the results' channel, I/O port 0xe9).
CONFIG_ISA_DEBUG=y
# -drive if=virtio (tests/system/boots.sh: the booted system's disk).
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_BLK=y
