# shellcheck shell=bash disable=SC2034,SC2054
# cxl: the 4-node machine plus a CXL type-3 volatile memory device, on QEMU 10
# (bookworm-backports; 7.2 has no volatile-memdev) and the 6.12 kernel. The
# guest setup creates a RAM region through sysfs and kmem onlines it as a
# fifth, CPU-less node.
MODE_KERNEL=6.12
MODE_QEMU=qemu10
MODE_TOPOLOGY=numa4
# Single-threaded TCG, as numa and newest: in a whole-suite soak beside a
# loaded host one multi-threaded boot stopped for good 1.77 s into the kernel
# (the CXL endpoint's PCI probe, no console line after it, no RCU stall
# report, killed at its 360 s limit), the lost-wake-up picture the model mode
# met under multi-threaded TCG (modes/model.sh); none of this mode's
# scenarios needs one host thread per vCPU.
MODE_TCG_THREAD=single
MODE_MACHINE_EXTRA=",cxl=on"
MODE_MODULES="cxl_acpi cxl_pci cxl_mem cxl_port cxl_core dax_cxl device_dax kmem"
# hypervisor=off: with the CPUID hypervisor bit the region commit fails
# ("Failed to synchronize CPU cache state"). Two root ports: with only one,
# QEMU's emulated device reads back zeros. A RAM backend needs no backing
# file to recreate per boot.
MODE_QEMU_ARGS=(
  -cpu qemu64,hypervisor=off
  -object memory-backend-ram,id=cxl-vmem0,share=on,size=256M
  -device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
  -device cxl-rp,port=0,bus=cxl.1,id=cxl_rp0,chassis=0,slot=2
  -device cxl-type3,bus=cxl_rp0,volatile-memdev=cxl-vmem0,id=cxl-vmem0dev
  -device cxl-rp,port=1,bus=cxl.1,id=cxl_rp1,chassis=0,slot=3
  -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
)
