"""`python -m gpustack ARGS` and the `gpustack` entry point of the wheel: the binary itself."""
import os
import sys

from . import GpustackError, binary


def main():
    try:
        exe = binary()
    except GpustackError as e:
        sys.stderr.write("gpustack: %s\n" % e)
        return 2
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
