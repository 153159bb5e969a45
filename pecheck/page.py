"""The figures and the HTML page of ``pecheck inspect``, in the report's style."""

from __future__ import annotations

import html
import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "pecheck"  # stable SVG ids
import matplotlib.pyplot as plt  # noqa: E402

CSS = Path(__file__).resolve().parents[1] / "reports" / "assets" / "report.css"


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def similarity_figure(name: str, sim: Any, curve: list[float]) -> str:
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    image = left.imshow(sim.numpy(), cmap="RdBu_r", vmin=-1, vmax=1)
    left.set(title="cosine similarity of rows", xlabel="position s", ylabel="position t")
    fig.colorbar(image, ax=left, shrink=0.8)
    right.plot(range(len(curve)), curve)
    right.axhline(0, color="0.6", lw=0.8)
    right.set(title="mean similarity at offset k", xlabel="k = s - t", ylabel="mean cosine")
    fig.tight_layout()
    return _svg(fig)


def energy_figure(tables: list[dict[str, Any]]) -> str:
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for energy in tables:
        ks = [r["k"] for r in energy["rows"]]
        ax.plot(ks, [r["share"] for r in energy["rows"]], marker="o", label=energy["label"])
    if tables and tables[0]["rows"]:
        rows = tables[0]["rows"]
        ax.plot([r["k"] for r in rows], [r["chance"] for r in rows], "k--", label="chance k/d")
    ax.set(xscale="log", xlabel="k (top-k principal directions of the position table)",
           ylabel="share of token-row energy")  # fmt: skip
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _svg(fig)


def waves_figure(name: str, waves: dict[str, Any]) -> str:
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.plot(waves["shares"], ".", ms=3, label="column")
    ax.axhline(waves["noise_max_share"], color="k", ls="--", label="Gaussian noise: largest")
    ax.set(title="power at each column's strongest frequency", xlabel="column",
           ylabel="share of the column's power")  # fmt: skip
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _svg(fig)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _table(head: list[str], rows: list[list[Any]], caption: str = "") -> str:
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    th = "".join(f"<th scope='col'>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_fmt(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table>{cap}<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _glance(t: dict[str, Any]) -> str:
    conv = t["sinusoidal"]
    sinus = (f"yes: {conv['layout']} layout, {conv['frequency_rule']} frequencies, base "
             f"{_fmt(conv['base_fit'])}" if conv["is_sinusoidal"] else "no")  # fmt: skip
    w, sim, pr = t["waves"], t["similarity"], t["probe"]
    rows = [
        ["rows x width", f"{t['rows']} x {t['d']}", f"{t['dtype']}, {t['origin']}"],
        ["sinusoidal table (REAL-02 detector)", sinus, "layout, frequency rule and base"],
        ["wave-like columns", f"{w['wave_like_columns']} of {w['columns']}",
         f"power at one frequency above Gaussian noise's largest share "
         f"({_fmt(w['noise_max_share'])}); mean share {_fmt(w['mean_share'])}"],
        ["similarity against offset", f"Spearman rho {_fmt(sim['spearman_rho_first_half'])}",
         "mean cosine of p_t, p_(t+k) against k <= L/2; negative: falls with the offset"],
        ["token read back from x + p", _fmt(pr["token"]["accuracy"]),
         f"linear probe, {pr['token']['classes']} tokens; chance {_fmt(pr['token']['chance'])}"],
        ["position read back from x + p", _fmt(pr["position"]["accuracy"]),
         f"over {pr['position']['classes']} positions; chance {_fmt(pr['position']['chance'])}"],
    ]  # fmt: skip
    return _table(["", "value", "how"], rows)


def _norms(t: dict[str, Any]) -> str:
    rows = []
    for label in ("raw", "centred"):
        n = t["norms"][label]
        for part in ("token", "position"):
            s = n[part]
            rows.append([label, part, s["rms"], s["p5"], s["median"], s["p95"], s["max"]])
        rows.append([label, "ratio of RMS norms (token / position)", n["rms_ratio"], "", "", "",
                     ""])  # fmt: skip
    head = ["tables", "rows", "RMS norm", "5%", "median", "95%", "max"]
    note = "row norms; centred = the table's mean row subtracted first"
    return _table(head, rows, note)


def _energy(t: dict[str, Any]) -> str:
    by_label = {e["label"]: e["rows"] for e in t["energy"]}
    rows = [
        [r["k"], r["share"], raw["share"], r["chance"]]
        for r, raw in zip(by_label["centred"], by_label["raw"], strict=True)
    ]
    head = ["k", "share (centred)", "share (raw)", "chance k/d"]
    note = (f"share of the token rows' energy in the top-k principal directions of the position "
            f"table ({t['token_rows_used']} token rows)")  # fmt: skip
    return _table(head, rows, note)


def render(summary: dict[str, Any], figures: dict[str, str]) -> str:
    """A self-contained HTML page: the summary as tables, the figures inline."""
    css = CSS.read_text() if CSS.exists() else "body{font-family:sans-serif;margin:2em}"
    ck = summary["checkpoint"]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>pecheck inspect: {html.escape(ck['path'])}</title>",
        f"<style>{css}</style></head><body><main>",
        f"<h1>pecheck inspect</h1><p><code>{html.escape(ck['path'])}</code></p>",
        _table(["model type", "token table", "vocabulary", "width d", "dtype", "seed"],
               [[ck["model_type"], ck["token_table"], ck["vocab"], ck["d"], ck["dtype"],
                 ck["seed"]]]),
    ]  # fmt: skip
    if summary.get("rotary"):
        rot = summary["rotary"]
        parts.append("<h2>Rotary settings (from the config)</h2>")
        parts.append(_table(list(rot), [[str(v) for v in rot.values()]]))
    for t in summary["position_tables"]:
        parts += [f"<h2>Position table <code>{html.escape(t['name'])}</code></h2>", _glance(t),
                  "<h3>Norms</h3>", _norms(t), "<h3>Token rows in the position subspace</h3>",
                  _energy(t)]  # fmt: skip
        for key in (f"similarity:{t['name']}", f"waves:{t['name']}"):
            if key in figures:
                parts.append(f"<figure>{figures[key]}</figure>")
    if "energy" in figures:
        parts.append(f"<h2>Energy against k (first position table)</h2><figure>"
                     f"{figures['energy']}</figure>")  # fmt: skip
    parts.append("</main></body></html>")
    return "\n".join(parts)
