"""Images without a Docker engine, for bench/start: buildah storages (the project's, where
scripts/build-image keeps the built flavors, and fresh empty ones that stand for a new
runner), and Debian's docker-registry on loopback standing in for ghcr.io."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

MANIFEST_TYPES = ", ".join([
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
])


def storage_driver() -> str:
    """overlay where the kernel has it, else vfs (as scripts/buildah-env.sh chooses)."""
    if os.environ.get("STORAGE_DRIVER"):
        return os.environ["STORAGE_DRIVER"]
    try:
        return "overlay" if "overlay" in Path("/proc/filesystems").read_text().split() else "vfs"
    except OSError:
        return "vfs"


@dataclass(frozen=True)
class Store:
    """One buildah storage (root and runroot under `path`)."""

    path: Path
    driver: str

    @classmethod
    def project(cls) -> Store:
        driver = storage_driver()
        base = Path(os.environ.get("REVIEWBOT_IMAGE_STORE", "/var/lib/reviewbot-image"))
        return cls(base / driver, driver)

    def cmd(self, *args: str) -> list[str]:
        return ["buildah", "--root", str(self.path / "root"), "--runroot", str(self.path / "run"),
                "--storage-driver", self.driver, *args]

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(self.cmd(*args), capture_output=True, text=True,
                              env={**os.environ, "BUILDAH_ISOLATION": "chroot", **(env or {})})
        if done.returncode != 0:
            raise RuntimeError(f"buildah {' '.join(args[:2])}: {done.stderr.strip()[-2000:]}")
        return done.stdout

    def has(self, image: str) -> bool:
        return subprocess.run(self.cmd("inspect", "--type", "image", image),
                              capture_output=True).returncode == 0

    def discard(self) -> None:
        """Removes this storage's containers and images, then the storage itself."""
        subprocess.run(self.cmd("rm", "--all"), capture_output=True)
        subprocess.run(self.cmd("rmi", "--all", "--force"), capture_output=True)
        subprocess.run(["umount", "--recursive", "--lazy", str(self.path / "root" / "overlay")],
                       capture_output=True)
        shutil.rmtree(self.path, ignore_errors=True)


@contextmanager
def fresh_store(where: Path, name: str) -> Iterator[Store]:
    """An empty storage, like a new runner's: nothing cached, removed afterwards."""
    store = Store(where / name, storage_driver())
    store.discard()
    store.path.mkdir(parents=True)
    try:
        yield store
    finally:
        store.discard()


@contextmanager
def registry(folder: Path, port: int) -> Iterator[str]:
    """Debian's docker-registry on 127.0.0.1:`port`, its blobs kept in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "config.yml"
    config.write_text(
        "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n"
        f"    rootdirectory: {folder / 'data'}\n  delete:\n    enabled: true\n"
        f"http:\n  addr: 127.0.0.1:{port}\n")
    with open(folder / "registry.log", "wb") as log:
        server = subprocess.Popen(["docker-registry", "serve", str(config)], stdout=log, stderr=log)
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://{address}/v2/", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"docker-registry did not start: {folder / 'registry.log'}") \
                        from None
                time.sleep(0.2)
        yield address
    finally:
        server.terminate()
        server.wait(timeout=30)


def push(store: Store, image: str, address: str, name: str) -> None:
    """`image` to the registry as `name`, each layer gzip-compressed as a registry serves it."""
    store.run("push", "--tls-verify=false", "--format", "oci", "--compression-format", "gzip",
              image, f"docker://{address}/{name}")


def sizes(address: str, name: str) -> tuple[int, int]:
    """The bytes a runner downloads for `name` (its compressed layers and its config), and
    the bytes of its layers once uncompressed (each layer's tar, read back from the registry)."""
    repo, tag = name.rsplit(":", 1)
    request = urllib.request.Request(f"http://{address}/v2/{repo}/manifests/{tag}",
                                     headers={"Accept": MANIFEST_TYPES})
    with urllib.request.urlopen(request, timeout=30) as answer:
        manifest = json.load(answer)
    compressed = int(manifest["config"]["size"]) + sum(int(layer["size"]) for layer in manifest["layers"])
    uncompressed = 0
    for layer in manifest["layers"]:
        url = f"http://{address}/v2/{repo}/blobs/{layer['digest']}"
        with urllib.request.urlopen(url, timeout=300) as blob:
            inflate = zlib.decompressobj(wbits=31)  # gzip
            while chunk := blob.read(1 << 20):
                uncompressed += len(inflate.decompress(chunk))
            uncompressed += len(inflate.flush())
    return compressed, uncompressed


def run_in(store: Store, image: str, command: Sequence[str], env: dict[str, str],
           volumes: Sequence[tuple[Path, str]], workdir: str) -> subprocess.CompletedProcess[str]:
    """A container of `image` started, `command` run in it as the image's user, removed: what
    a runner does for a Docker action's step."""
    ctr = store.run("from", "--pull=never", "--quiet", image).strip()
    try:
        opts = [f"--env={k}={v}" for k, v in env.items()]
        opts += [f"--volume={host}:{inside}" for host, inside in volumes]
        return subprocess.run(store.cmd("run", *opts, f"--workingdir={workdir}", ctr, "--", *command),
                              capture_output=True, text=True, timeout=1800,
                              env={**os.environ, "BUILDAH_ISOLATION": "chroot"})
    finally:
        subprocess.run(store.cmd("rm", ctr), capture_output=True)
