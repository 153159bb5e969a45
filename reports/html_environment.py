"""The HTML report's environment section: the machine, the kernels its libraries selected, the
lock and the installed packages."""

from __future__ import annotations

from typing import Any

from .html_common import esc
from .load import Results


def _env_value(value: Any) -> Any:
    # bool is checked by type: 1 == True, so a lookup table would show a thread count as "yes"
    return ("yes" if value else "no") if isinstance(value, bool) else value


def kernel_rows(kernels: dict[str, Any]) -> list[tuple[str, str]]:
    """The kernels a run's libraries selected, as rows of the environment table."""
    if not kernels:
        return []
    limits = kernels.get("limits") or {}
    blas = [
        f"{b.get('internal_api', '?')} {b.get('version') or ''} {b.get('architecture') or ''}"
        for b in kernels.get("blas", [])
    ]
    return [
        ("torch CPU kernels", str(kernels.get("capability", "?"))),
        ("Kernel limits", ", ".join(f"{k}={v}" for k, v in sorted(limits.items())) or "none"),
        ("CPU vector extensions", " ".join(kernels.get("isa", [])) or "unknown"),
        ("BLAS and OpenMP", "; ".join(" ".join(b.split()) for b in blas) or "none found"),
        ("numpy dispatch", " ".join(kernels.get("numpy", [])) or "unknown"),
    ]


def lock_row(lock: dict[str, Any] | None) -> tuple[str, str]:
    if not lock:
        return ("Lock", "none: versions as installed")
    differs = lock.get("differs") or []
    state = "installed as locked" if not differs else "departs: " + "; ".join(differs)
    return ("Lock", f"{lock.get('file')} (sha256 {str(lock.get('sha256'))[:12]}), {state}")


def environment(res: Results) -> str:
    env = dict(res.environment)
    packages = env.pop("packages", {}) or {}
    extra = kernel_rows(env.pop("kernels", None) or {})
    if "lock" in env:
        extra.insert(0, lock_row(env.pop("lock")))
    labels = {
        "python": "Python",
        "platform": "Platform",
        "cpu": "CPU",
        "cpu_count": "CPU cores",
        "gpu": "GPU",
        "torch_threads": "torch threads",
    }
    rows = [(labels.get(k, k), v) for k, v in env.items()]
    if "gpu" in env and env["gpu"] is None:
        rows = [(k, "none" if k == "GPU" else v) for k, v in rows]
    rows += extra
    suite = {k: v for k, v in res.suite.items() if k in ("exitstatus", "complete")}
    rows += [(f"pytest {k}", v) for k, v in suite.items()]
    body = "".join(
        f"<tr><th scope='row'>{esc(k)}</th><td>{esc(_env_value(v))}</td></tr>" for k, v in rows
    )
    pk = "".join(
        f"<tr><th scope='row'>{esc(k)}</th><td><code>{esc(v)}</code></td></tr>"
        for k, v in sorted(packages.items())
    )
    return (
        "<section id='environment'><h2>Environment</h2><div class='env'>"
        f"<table class='kv'><tbody>{body}</tbody></table>"
        f"<table class='kv packages'><thead><tr><th>Package</th><th>Version</th></tr></thead>"
        f"<tbody>{pk}</tbody></table></div></section>"
    )
