# The kernels the VM suite boots: Debian 12's 6.1 (plain and PREEMPT_RT) and 6.12.
KVERS ?= 6.1.0-57-amd64 6.1.0-57-rt-amd64 6.12.107+deb12-amd64
