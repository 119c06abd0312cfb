# Sourced by tests/vm/deps.sh and tests/vm/sid.sh: Debian kernel images,
# downloaded and unpacked into $SLD_CACHE/KVER/root, never installed (that
# would run update-initramfs and fill /boot; the VMs only need the vmlinuz
# and the modules).

# host_download KVER DIR: linux-image-KVER's .deb into DIR with the host's apt.
host_download() {
	(cd "$2" && apt-get download -q "linux-image-$1" >/dev/null)
}

# merged_usr_links ROOT KVER: newer images (unstable's) keep vmlinuz and
# config in /usr/lib/modules/KVER and ship no /boot and no /lib: link them
# where the suite finds them in Debian 12's (boot/vmlinuz-KVER, lib/modules).
merged_usr_links() {
	local r=$1 k=$2 m=usr/lib/modules/$2
	[ ! -e "$r/boot/vmlinuz-$k" ] && [ -f "$r/$m/vmlinuz" ] || return 0
	mkdir -p "$r/boot"
	ln -s "../$m/vmlinuz" "$r/boot/vmlinuz-$k"
	ln -s "../$m/config" "$r/boot/config-$k"
	[ -e "$r/lib" ] || ln -s usr/lib "$r/lib"
}

# fetch_image KVER [DOWNLOADER]: unpack linux-image-KVER into $SLD_CACHE/KVER
# unless it is there already. DOWNLOADER KVER DIR puts its .debs into DIR
# (default host_download; sid.sh uses the apt of its root, unstable's or
# trixie-backports', where the image is split into linux-binary-,
# linux-modules- and linux-base-).
fetch_image() {
	local k=$1 get=${2:-host_download} dir=$SLD_CACHE/$1 deb
	[ -f "$dir/.ok" ] && return 0
	echo "deps: fetching linux-image-$k into $dir"
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp/deb"
	"$get" "$k" "$dir.tmp/deb"
	for deb in "$dir.tmp"/deb/*.deb; do
		dpkg-deb -x "$deb" "$dir.tmp/root"
	done
	rm -rf "$dir.tmp/deb"
	merged_usr_links "$dir.tmp/root" "$k"
	mv "$dir.tmp" "$dir"
	touch "$dir/.ok"
}
