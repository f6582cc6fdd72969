"""A gpustack report (JSON schema v1) as one self-contained HTML block for Jupyter and VS Code
notebooks (`Report._repr_html_`): the verdict, the GPUs, the stack, the findings with their
fixes, the probes. Everything shown is escaped; nothing is fetched."""
import html

_COLORS = {"fail": "#c62828", "warn": "#b26a00", "info": "#1565c0", "pass": "#2e7d32",
           "hang": "#6a1b9a", "crash": "#6a1b9a", "error": "#c62828", "skip": "#616161"}

_CSS = """<style>
.gs-report{font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:13px;line-height:1.45;max-width:960px}
.gs-report table{border-collapse:collapse;margin:4px 0 10px}
.gs-report th,.gs-report td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
.gs-report th{background:#f5f5f5}
.gs-report .gs-badge{display:inline-block;color:#fff;border-radius:3px;padding:0 6px;font-weight:600;font-size:11px}
.gs-report code{background:#f3f3f3;padding:1px 4px;border-radius:3px;white-space:pre-wrap;word-break:break-all}
.gs-report .gs-seen{color:#555}
.gs-report h4{margin:10px 0 4px}
</style>"""


def _e(value):
    return html.escape("" if value is None else str(value))


def _badge(status):
    color = _COLORS.get(status, "#616161")
    return '<span class="gs-badge" style="background:%s">%s</span>' % (color, _e(status.upper() if status else "?"))


def _gpus(report):
    gpus = report.get("gpus") or []
    if not gpus:
        return ""
    rows = "".join("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
        _e(g.get("vendor")), _e(g.get("arch")), _e(g.get("name")),
        _e("%.1f" % (g["vram_bytes"] / 2**30) if g.get("vram_bytes") else "?")) for g in gpus)
    return "<h4>GPUs</h4><table><tr><th>vendor</th><th>arch</th><th>name</th><th>VRAM GiB</th></tr>%s</table>" % rows


def _stack(report):
    s = report.get("stack") or {}
    rows = []
    drv = (s.get("driver") or {})
    if (drv.get("nvidia") or {}).get("version"):
        rows.append(("NVIDIA driver", drv["nvidia"]["version"]))
    if (drv.get("amdgpu") or {}).get("loaded"):
        rows.append(("amdgpu", (drv["amdgpu"].get("version") or "in-kernel")))
    if (s.get("rocm") or {}).get("version"):
        rows.append(("ROCm", s["rocm"]["version"]))
    if (s.get("cuda") or {}).get("toolkit_version"):
        rows.append(("CUDA toolkit", s["cuda"]["toolkit_version"]))
    py = s.get("python") or {}
    if py.get("found"):
        rows.append(("Python", "%s %s" % (py.get("version", ""), py.get("env_kind", ""))))
    pkgs = py.get("packages") or {}
    if pkgs.get("torch"):
        torch = s.get("torch") or {}
        build = "HIP " + torch["hip"] if torch.get("hip") else "CUDA " + torch["cuda"] if torch.get("cuda") else "CPU-only"
        rows.append(("torch", "%s (%s)" % (pkgs["torch"], build)))
    for name in ("triton", "pytorch-triton-rocm", "bitsandbytes", "flash-linear-attention", "transformers", "peft", "trl"):
        if pkgs.get(name):
            rows.append((name, pkgs[name]))
    if not rows:
        return ""
    return "<h4>Stack</h4><table>%s</table>" % "".join(
        "<tr><th>%s</th><td>%s</td></tr>" % (_e(k), _e(v)) for k, v in rows)


def _findings(report):
    order = {"fail": 0, "warn": 1, "info": 2}
    fs = sorted(report.get("findings") or [], key=lambda f: order.get(f.get("severity"), 3))
    if not fs:
        return "<h4>Findings</h4><p>none</p>"
    items = []
    for f in fs:
        refs = ", ".join('<a href="%s">%s</a>' % (_e(r), _e(r)) for r in f.get("refs") or [] if str(r).startswith("http"))
        items.append("<tr><td>%s</td><td><b>%s</b> %s%s%s%s</td></tr>" % (
            _badge(f.get("severity", "")), _e(f.get("id")), _e(f.get("title")),
            '<div class="gs-seen">seen: %s</div>' % _e(f["evidence"]) if f.get("evidence") else "",
            "<div>fix: <code>%s</code></div>" % _e(f["remediation"]) if f.get("remediation") else "",
            "<div>refs: %s</div>" % refs if refs else ""))
    return "<h4>Findings (%d)</h4><table>%s</table>" % (len(fs), "".join(items))


def _probes(report):
    ps = report.get("probes") or []
    if not ps:
        return ""
    rows = "".join("<tr><td><code>%s</code></td><td>%s</td><td>%.1f ms</td><td>%s</td></tr>" % (
        _e(p.get("id")), _badge(p.get("status", "")), float(p.get("duration_ms") or 0), _e(p.get("detail"))) for p in ps)
    return "<h4>Probes (%d)</h4><table><tr><th>probe</th><th>status</th><th>time</th><th>detail</th></tr>%s</table>" % (
        len(ps), rows)


def _explain(report):
    ex = report.get("explain") or {}
    parts = []
    if ex.get("next_step"):
        parts.append("<p><b>Next:</b> %s</p>" % _e(ex["next_step"]))
    if ex.get("undecided"):
        parts.append("<ul>%s</ul>" % "".join("<li>%s</li>" % _e(u) for u in ex["undecided"]))
    return "".join(parts)


def report_html(report):
    summary = report.get("summary") or {}
    tool = report.get("tool") or {}
    head = "<div><b>gpustack %s</b> %s %s</div>" % (
        _e(tool.get("command", "")), _badge(summary.get("status", "")), _e(summary.get("text", "")))
    return '%s<div class="gs-report">%s%s%s%s%s%s</div>' % (
        _CSS, head, _gpus(report), _stack(report), _findings(report), _explain(report), _probes(report))
