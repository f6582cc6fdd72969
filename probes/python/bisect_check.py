# gpustack bisect, step 2: after one version of a package was installed into a scratch directory
# that sits first on PYTHONPATH (the user's stack with that one package changed), does the stack
# still hold together? Run in the user's interpreter with that PYTHONPATH, so importlib.metadata
# sees exactly what the probe will import.
#
# GPUSTACK_ARGS: {"package": "triton", "version": "3.5.0", "packaging_path": "" | DIR}
# Prints one JSON object: {"seen": "3.5.0" | null, "location": path, "conflicts": [sentences]}
#   conflicts: a requirement of the new version that the stack does not meet (missing, or the
#   wrong version), and a requirement of another installed package that the new version breaks
#   (torch 2.9 requires triton==3.5.0). Markers are evaluated for this interpreter; extras are not
#   followed. Exit 0 always once the JSON is out.
import json
import os
import re
import sys
from importlib import metadata

# As bisect_index.py: a Python without pip or packaging borrows them, for the imports only, so
# the distributions read below are the user's alone.
_BORROW = json.loads(os.environ.get("GPUSTACK_ARGS", "{}")).get("packaging_path") or ""
if _BORROW:
    sys.path.append(_BORROW)
try:
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name
    from pip._vendor.packaging.version import Version
except ImportError:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version
if _BORROW:
    sys.path.remove(_BORROW)


def applies(req):
    try:
        return req.marker is None or req.marker.evaluate({"extra": ""})
    except Exception:
        return True


def main():
    a = json.loads(os.environ.get("GPUSTACK_ARGS", "{}"))
    name = canonicalize_name(a["package"])
    out = {"seen": None, "location": None, "conflicts": []}
    installed = {}  # canonical name -> (version, dist): the first on sys.path wins, as import does
    for d in metadata.distributions():
        n = canonicalize_name(d.metadata["Name"] or "")
        if n and n not in installed:
            installed[n] = (d.version, d)
    if name in installed:
        out["seen"] = installed[name][0]
        out["location"] = str(getattr(installed[name][1], "_path", ""))
    if out["seen"] is None or Version(out["seen"]) != Version(a["version"]):
        out["conflicts"].append("%s %s was installed but the stack sees %s" % (a["package"], a["version"],
                                                                               out["seen"] or "none"))
        print(json.dumps(out))
        return 0
    new = installed[name][1]
    for text in new.requires or []:
        req = Requirement(text)
        if not applies(req):
            continue
        dep = canonicalize_name(req.name)
        have = installed.get(dep)
        if have is None:
            out["conflicts"].append("%s %s needs %s, which is not installed" % (a["package"], a["version"], text))
        elif req.specifier and not req.specifier.contains(have[0], prereleases=True):
            out["conflicts"].append("%s %s needs %s, the stack has %s %s" % (a["package"], a["version"], text,
                                                                             req.name, have[0]))
    for dep, (ver, d) in installed.items():
        if dep == name:
            continue
        for text in d.requires or []:
            try:
                req = Requirement(text)
            except Exception:
                continue
            if canonicalize_name(req.name) != name or not applies(req):
                continue
            if req.specifier and not req.specifier.contains(a["version"], prereleases=True):
                out["conflicts"].append("%s %s requires %s" % (d.metadata["Name"], ver, re.sub(r"\s+", "", str(req))))
    print(json.dumps(out))
    return 0


sys.exit(main())
