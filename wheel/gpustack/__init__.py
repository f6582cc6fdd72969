"""gpustack from Python: the report of `gpustack check` or `gpustack explain` as a dict.

    import gpustack
    r = gpustack.check()                      # this machine's stack, findings and fixes
    r = gpustack.explain(open("bug.txt").read())  # what is wrong in a paste
    r = gpustack.check(container="Dockerfile", gpu="RX 9070 XT")
    r["summary"]["status"], [f["id"] for f in r["findings"]]
    r                                         # in Jupyter / VS Code: the report as HTML

Every call runs the gpustack binary this package carries (or $GPUSTACK_BINARY) with --json and
returns its report (docs/report-schema.md): a dict, shown as a table in a notebook and as the
terminal view by print(). Nothing here imports torch or any GPU library.
"""
import json
import os
import shutil
import subprocess

from ._html import report_html

__all__ = ["Report", "GpustackError", "binary", "check", "explain", "run"]


def _version():
    here = os.path.join(os.path.dirname(__file__), "VERSION")
    try:
        with open(here) as f:
            return f.read().strip()
    except OSError:
        return "0+unknown"


__version__ = _version()


class GpustackError(RuntimeError):
    """The binary could not answer: a usage error (exit 2) or no report on its output."""


def binary():
    """Path of the gpustack binary: $GPUSTACK_BINARY, the one in this package, else `gpustack` on PATH."""
    env = os.environ.get("GPUSTACK_BINARY")
    if env:
        return env
    bundled = os.path.join(os.path.dirname(__file__), "bin", "gpustack")
    if os.access(bundled, os.X_OK):
        return bundled
    found = shutil.which("gpustack")
    if found and os.path.realpath(found) != os.path.realpath(os.path.join(os.path.dirname(__file__), "__main__.py")):
        return found
    raise GpustackError("no gpustack binary: install the gpustack wheel, or set GPUSTACK_BINARY")


class Report(dict):
    """A gpustack report (JSON schema v1) as a dict; HTML in notebooks, the terminal view in print()."""

    @property
    def status(self):
        return self.get("summary", {}).get("status", "")

    @property
    def findings(self):
        return self.get("findings", [])

    def _repr_html_(self):
        return report_html(self)

    def __str__(self):
        # The terminal view is the binary's (`gpustack report show`), so text reads the same everywhere.
        p = subprocess.run([binary(), "report", "show", "--no-color", "-"], input=json.dumps(self),
                           capture_output=True, text=True)
        return p.stdout if p.stdout else json.dumps(self, indent=2)


def run(*args, input=None, timeout=None):
    """`gpustack ARGS --json` as a Report. Exit 1 (a failing finding) is an answer, not an error."""
    cmd = [binary()] + [str(a) for a in args] + ["--json"]
    p = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout)
    if p.returncode == 2 or not p.stdout.strip():
        raise GpustackError((p.stderr or p.stdout).strip() or "gpustack exited %d" % p.returncode)
    try:
        return Report(json.loads(p.stdout))
    except ValueError as e:
        raise GpustackError("gpustack printed no JSON report: %s" % e)


def check(container=None, gpu=None, python=None, venv=None, sysroot=None, include_identifiers=False):
    """`gpustack check`: this machine (or `sysroot`); with `container`, a Dockerfile, compose file,
    `docker run` line or Kubernetes manifest judged on it (`gpu`: the card it will run on)."""
    args = ["check"]
    for flag, value in (("--container", container), ("--gpu", gpu), ("--python", python), ("--venv", venv),
                        ("--sysroot", sysroot)):
        if value is not None:
            args += [flag, value]
    if include_identifiers:
        args.append("--include-identifiers")
    return run(*args)


def explain(text):
    """`gpustack explain -`: what is wrong in a traceback, log, collect_env, pip list or issue body."""
    return run("explain", "-", input=text)
