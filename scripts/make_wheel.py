#!/usr/bin/env python3
"""Pack a built gpustack binary and the Python package in wheel/ into a pip/uv wheel.

    make_wheel.py BINARY OUTDIR

The platform tag is read from the binary itself, as auditwheel reads it: the newest GLIBC_x.y symbol
version it needs gives manylinux_x_y_<arch>, and every library it needs (DT_NEEDED) must be one that
manylinux lets a wheel take from the system (glibc's own); anything else is an error, so a wheel that
would not run elsewhere is never made. The binary is stripped into the wheel. Prints the wheel's path.
A binary of another architecture (scripts/build-wheel-aarch64.sh's, on an x86_64 host) is stripped by
that architecture's binutils and run under qemu-user for its version.
"""
import base64
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

# What manylinux policies let a wheel load from the system (glibc and its parts).
SYSTEM_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "ld-linux-x86-64.so.2",
               "ld-linux-aarch64.so.1", "libutil.so.1", "libgcc_s.so.1"}
ARCH = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64"}


def parse_elf_facts(header, dyn):
    """(arch, needed libraries, newest GLIBC version) from `readelf -h` and `readelf -d -V --wide` text."""
    machine = re.search(r"Machine:\s+(.+)", header).group(1).strip()
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
    versions = [tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_(\d+\.\d+(?:\.\d+)?)", dyn)]
    return ARCH.get(machine, machine), needed, max(versions) if versions else (2, 17)


def elf_facts(binary):
    # readelf reads every architecture's ELF (the aarch64 binary on an x86_64 host too)
    header = subprocess.run(["readelf", "-h", binary], capture_output=True, text=True, check=True).stdout
    dyn = subprocess.run(["readelf", "-d", "-V", "--wide", binary], capture_output=True, text=True, check=True).stdout
    return parse_elf_facts(header, dyn)


def manylinux_tag(arch, glibc):
    return "py3-none-manylinux_%d_%d_%s" % (glibc[0], glibc[1], arch)


def strip_tool(arch, host):
    """The binutils strip for ARCH's binary on a HOST machine (Debian's cross binutils name it by triplet)."""
    return "strip" if arch == host else "%s-linux-gnu-strip" % arch


def runner(arch, host, which=shutil.which):
    """The command prefix that runs ARCH's binary on a HOST machine: nothing when they match, else
    qemu-user, which finds ARCH's glibc where Debian's libc6:ARCH puts it (/lib/ld-linux-aarch64.so.1,
    /lib/aarch64-linux-gnu; scripts/install-deps-aarch64.sh); None when there is no qemu-user. No
    `-L /usr/aarch64-linux-gnu`: that takes ld.so from the cross package (libc6-arm64-cross, another
    build of glibc 2.36) while ld.so still finds libc.so.6 in /lib/aarch64-linux-gnu, and the
    mismatched pair hangs in the first pthread_create."""
    if arch == host:
        return []
    qemu = which("qemu-%s-static" % arch) or which("qemu-%s" % arch)
    return [qemu] if qemu else None


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, outdir = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.join(here, "..", "wheel", "gpustack")
    arch, needed, glibc = elf_facts(binary)
    foreign = [n for n in needed if n not in SYSTEM_LIBS]
    if foreign:
        sys.exit("make_wheel: the binary needs %s, which a manylinux wheel may not take from the system: "
                 "build it with -DGPUSTACK_PORTABLE=ON (scripts/build-wheel.sh)" % ", ".join(foreign))
    host = platform.machine()
    run = runner(arch, host)
    if run is None:
        sys.exit("make_wheel: an %s binary on this %s machine: its version is read by running it, which needs "
                 "qemu-user (scripts/install-deps-aarch64.sh)" % (arch, host))
    version = subprocess.run(run + [binary, "--version"], capture_output=True, text=True,
                             check=True).stdout.split()[-1]
    tag = manylinux_tag(arch, glibc)
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "gpustack")
        shutil.copy(binary, stripped)
        subprocess.run([strip_tool(arch, host), stripped], check=True)
        files = {}
        for name in sorted(os.listdir(pkg)):
            if name.endswith(".py"):
                with open(os.path.join(pkg, name), "rb") as f:
                    files["gpustack/" + name] = f.read()
        files["gpustack/VERSION"] = (version + "\n").encode()
        with open(stripped, "rb") as f:
            files["gpustack/bin/gpustack"] = f.read()
        info = "gpustack-%s.dist-info/" % version
        files[info + "METADATA"] = ("Metadata-Version: 2.1\nName: gpustack\nVersion: %s\n"
                                    "Summary: Will your GPU software stack fine-tune an LLM, and if not, why not "
                                    "(ROCm and CUDA: check, explain, probe, train-smoke)\n"
                                    "Requires-Python: >=3.8\nLicense: Apache-2.0\n" % version).encode()
        files[info + "WHEEL"] = ("Wheel-Version: 1.0\nGenerator: gpustack scripts/make_wheel.py\n"
                                 "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()
        files[info + "entry_points.txt"] = b"[console_scripts]\ngpustack = gpustack.__main__:main\n"
        record = [record_line(n, d) for n, d in files.items()] + [info + "RECORD,,"]
        files[info + "RECORD"] = ("\n".join(record) + "\n").encode()
        os.makedirs(outdir, exist_ok=True)
        path = os.path.join(outdir, "gpustack-%s-%s.whl" % (version, tag))
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in files.items():
                zi = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                # a regular file (0o100000) with its mode: pip makes a file executable only when both say so
                zi.external_attr = (0o100755 if name.endswith("bin/gpustack") else 0o100644) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, data)
    print(path)


if __name__ == "__main__":
    main()
