# shellcheck shell=bash
# Sourced by scripts/build-image and scripts/image-standins: one buildah storage for the
# stand-ins, the layer cache and the image, kept between runs so rebuilds are incremental.
# overlay where the kernel has it (layers share their files), else vfs (each layer a copy).
# Override with STORAGE_DRIVER and REVIEWBOT_IMAGE_STORE.
if [ -z "${STORAGE_DRIVER:-}" ]; then
  STORAGE_DRIVER=vfs
  grep -qw overlay /proc/filesystems 2>/dev/null && STORAGE_DRIVER=overlay
fi
image_store="${REVIEWBOT_IMAGE_STORE:-/var/lib/reviewbot-image}/$STORAGE_DRIVER"
export BUILDAH_ISOLATION="${BUILDAH_ISOLATION:-chroot}"
bah() {
  buildah --root "$image_store/root" --runroot "$image_store/run" \
    --storage-driver "$STORAGE_DRIVER" "$@"
}
