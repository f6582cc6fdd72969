# gpustack bisect, step 1: the releases of one package, from the index this Python's pip (or uv)
# is configured for, or from a local wheelhouse (--find-links DIR). Run in the user's interpreter,
# so "installable here" means what pip would decide: a wheel whose tags this interpreter accepts
# (pip's own `packaging`), or an sdist; Requires-Python checked the same way.
#
# GPUSTACK_ARGS: {"package": "triton", "find_links": "" | DIR, "index_url": "" | URL,
#                 "extra_index_urls": [URL...], "timeout_s": 30,
#                 "packaging_path": "" | where to borrow pip's packaging from}
# Prints one JSON object on stdout:
#   {"source": "index" | "find-links", "locations": [...], "versions": [
#      {"version": "3.5.0", "files": 7, "installable": true, "why_not": "", "yanked": false,
#       "uploaded": "2025-10-14T...Z" | null}], "links": {"changelog": URL, "from": "..."},
#    "errors": ["..."]}
# Exit 0 when the listing was read (it may be empty), 1 when no location could be read.
import base64
import html.parser
import json
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request

# A Python without pip or packaging (a venv made by uv) borrows them from the venv gpustack made,
# added at the end of sys.path for these imports only.
_BORROW = json.loads(os.environ.get("GPUSTACK_ARGS", "{}")).get("packaging_path") or ""
if _BORROW:
    sys.path.append(_BORROW)
try:  # pip's vendored copy first: every interpreter with pip has it, and pip decides with it
    from pip._vendor.packaging import tags as _tags
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
except ImportError:  # uv-made venvs have no pip
    try:
        from packaging import tags as _tags
        from packaging.specifiers import SpecifierSet
        from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
    except ImportError:
        _tags = None
if _BORROW:
    sys.path.remove(_BORROW)

JSON_TYPE = "application/vnd.pypi.simple.v1+json"


def canon(name):
    return canonicalize_name(name) if _tags else re.sub(r"[-_.]+", "-", name).lower()


def pip_config():
    """index-url / extra-index-url from `pip config list` (files and PIP_* variables together)."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                             timeout=20).stdout
    except Exception:
        return {}
    conf = {}
    for line in out.splitlines():
        m = re.match(r"(\w+)\.([\w-]+)='(.*)'$", line.strip())
        if m and m.group(2) in ("index-url", "extra-index-url"):
            conf.setdefault(m.group(2), m.group(3))
    return conf


def index_locations(a):
    """The primary index and the extra ones, in the order the user's tools would use them:
    --index-url, then uv's variables, then pip's configuration, then PyPI."""
    conf = pip_config()
    primary = (a.get("index_url") or os.environ.get("UV_DEFAULT_INDEX") or os.environ.get("UV_INDEX_URL")
               or conf.get("index-url") or "https://pypi.org/simple")
    extra = list(a.get("extra_index_urls") or [])
    for text in (os.environ.get("UV_INDEX", ""), os.environ.get("UV_EXTRA_INDEX_URL", ""), conf.get("extra-index-url", "")):
        extra += [u for u in re.split(r"[\s]+", text) if u]
    seen, out = set(), []
    for u in [primary] + extra:
        u = u.rstrip("/")
        if u not in seen:
            seen.add(u)
            out.append(u)
    return out


class Anchors(html.parser.HTMLParser):
    """PEP 503 HTML: <a href=... data-yanked data-requires-python>filename</a>."""

    def __init__(self):
        super().__init__()
        self.files, self._cur = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._cur = dict(attrs)
            self._cur["_text"] = ""

    def handle_data(self, data):
        if self._cur is not None:
            self._cur["_text"] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._cur is not None:
            c = self._cur
            self.files.append({"filename": c["_text"].strip(), "yanked": "data-yanked" in c,
                               "requires-python": c.get("data-requires-python")})
            self._cur = None


def fetch(url, timeout, accept):
    """(body, content type); credentials in the URL become a Basic header (urllib sends none)."""
    parts = urllib.parse.urlsplit(url)
    headers = {"Accept": accept, "User-Agent": "gpustack-bisect"}
    if parts.username:
        cred = "%s:%s" % (urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or ""))
        headers["Authorization"] = "Basic " + base64.b64encode(cred.encode()).decode()
        netloc = parts.hostname + (":%d" % parts.port if parts.port else "")
        url = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as r:
        return r.read().decode("utf-8", "replace"), r.headers.get("Content-Type", "")


def index_files(base, name, timeout):
    body, ctype = fetch("%s/%s/" % (base, name), timeout, "%s, text/html;q=0.1" % JSON_TYPE)
    if JSON_TYPE in ctype or body.lstrip().startswith("{"):
        return [{"filename": f["filename"], "yanked": bool(f.get("yanked")),
                 "requires-python": f.get("requires-python"), "uploaded": f.get("upload-time")}
                for f in json.loads(body).get("files", [])]
    p = Anchors()
    p.feed(body)
    return p.files


def wheelhouse_files(d):
    return [{"filename": f, "yanked": False, "requires-python": None} for f in sorted(os.listdir(d))]


def version_of(filename, name):
    """(version, is_wheel, tags) or None when the file is not a release of `name`."""
    try:
        if filename.endswith(".whl"):
            n, v, _, t = parse_wheel_filename(filename)
            return (str(v), True, t) if canon(n) == name else None
        if filename.endswith((".tar.gz", ".zip")):
            n, v = parse_sdist_filename(filename)
            return (str(v), False, None) if canon(n) == name else None
    except Exception:
        return None
    return None


def judge(files, name):
    here = set(_tags.sys_tags())
    pyver = "%d.%d.%d" % sys.version_info[:3]
    by = {}
    for f in files:
        got = version_of(f["filename"], name)
        if not got:
            continue
        v, is_wheel, t = got
        e = by.setdefault(v, {"version": v, "files": 0, "installable": False, "why_not": "", "yanked": True,
                              "uploaded": None, "_reasons": set()})
        e["files"] += 1
        e["yanked"] = e["yanked"] and bool(f.get("yanked"))
        up = f.get("uploaded")
        if up and (e["uploaded"] is None or up < e["uploaded"]):
            e["uploaded"] = up
        rp = f.get("requires-python")
        try:
            if rp and pyver not in SpecifierSet(rp):
                e["_reasons"].add("needs Python %s" % rp)
                continue
        except Exception:
            pass
        if is_wheel and not (t & here):
            e["_reasons"].add("no wheel for this Python and platform")
            continue
        e["installable"] = True
    out = []
    for e in by.values():
        reasons = e.pop("_reasons")
        if not e["installable"]:
            e["why_not"] = "; ".join(sorted(reasons)) or "no usable file"
        out.append(e)
    return out


def changelog_link(name, locations, timeout):
    """PyPI's JSON API names the project's links; pick a changelog, else its GitHub releases."""
    if not any("pypi.org" in u for u in locations):
        return {}
    try:
        body, _ = fetch("https://pypi.org/pypi/%s/json" % name, timeout, "application/json")
        info = json.loads(body).get("info", {})
    except Exception:
        return {}
    urls = dict(info.get("project_urls") or {})
    for k, u in urls.items():
        if re.search(r"change\s*log|changes|release\s*notes|history|news", k, re.I):
            return {"changelog": u, "from": "project_urls[%r] on PyPI" % k}
    for k, u in list(urls.items()) + [("home_page", info.get("home_page") or "")]:
        m = re.match(r"(https://(?:github\.com|gitlab\.com)/[^/]+/[^/#?]+)", u or "")
        if m:
            return {"releases": m.group(1).removesuffix(".git") + "/releases", "from": "project_urls[%r] on PyPI" % k}
    return {}


def main():
    a = json.loads(os.environ.get("GPUSTACK_ARGS", "{}"))
    name = canon(a["package"])
    timeout = float(a.get("timeout_s", 30))
    out = {"versions": [], "links": {}, "errors": []}
    if _tags is None:
        out["errors"].append("neither pip nor packaging is importable in %s: cannot judge which files install here"
                             % sys.executable)
        print(json.dumps(out))
        return 1
    files, read_any = [], False
    if a.get("find_links"):
        out["source"], out["locations"] = "find-links", [a["find_links"]]
        try:
            files = wheelhouse_files(a["find_links"])
            read_any = True
        except OSError as e:
            out["errors"].append("%s: %s" % (a["find_links"], e.strerror))
    else:
        out["source"], out["locations"] = "index", index_locations(a)
        for base in out["locations"]:
            try:
                files += index_files(base, name, timeout)
                read_any = True
            except Exception as e:
                why = getattr(e, "reason", None) or getattr(e, "code", None) or e
                out["errors"].append("%s/%s/: %s" % (re.sub(r"//[^/@]*@", "//", base), name, why))
        out["links"] = changelog_link(name, out["locations"], timeout)
    out["versions"] = judge(files, name)
    print(json.dumps(out))
    return 0 if read_any else 1


sys.exit(main())
