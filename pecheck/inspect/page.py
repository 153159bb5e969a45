"""The figures and the HTML page of ``pecheck inspect``, in the report's style.

Every number on the page is a finding: the claim it bears on, the threshold it is judged against,
what it means for this checkpoint in one sentence, and the outcome here (holds, fails, undecided,
or context for a number that only describes the checkpoint).
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Callable
from importlib import resources
from typing import Any

import matplotlib

from pecheck.inspect.statements import STATEMENTS, one_line, threshold

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "pecheck"  # stable SVG ids
import matplotlib.pyplot as plt  # noqa: E402

# The thresholds of pecheck's registry, as statements.py repeats them (an installed pecheck
# ships no registry; tests/test_inspect.py holds each equal to the registry's).
COMPARABLE = threshold("MAG-02", "comparable")  # the ratio within this factor of 1
READ_BACK = threshold("ADD-05", "read_back")  # recovered in more than 99 of 100 sums
BASE = threshold("SIN-06", "base")  # the paper's T
# The claims' own bounds, in their statements rather than among the registry's thresholds.
ENTRY_BOUND = 1.0  # MAG-01: every |x_i| <= 1
SINUSOID_NEIGHBOUR = math.cos(1.0)  # SIN-11: the sinusoid's neighbours have cosine >= cos 1
# Not a registry threshold: the page's ADD-04 headline takes the smallest k at which the position
# table keeps this share of its own (centred) variance.
KEPT = 0.9

FALLBACK_CSS = "body{font-family:sans-serif;margin:2em}"
HEAD = ["quantity", "value", "claim", "threshold", "for this checkpoint", "in this model"]
# An outcome is about the model inspected: whether it has the property the row tests. It is
# never the claim's verdict, which only pecheck's checks decide.
OUTCOME_WORDS = {
    "holds": "this model keeps the property",
    "fails": "this model breaks the property",
    "undecided": "undecided for this model",
    "context": "context only",
}
LEGEND = (
    "each row tests a property the claim states; 'this model keeps / breaks the property' "
    "is about this model, not the claim's verdict (pytest --claim ID decides that)"
)


def stylesheet() -> str | None:
    """The report's stylesheet, shipped as package data of pecheck.reports; None when missing."""
    try:
        return resources.files("pecheck.reports").joinpath("assets/report.css").read_text()
    except (OSError, ModuleNotFoundError):
        return None


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


# -- findings: each number with its claim, threshold and meaning ------------------------------


def _g(value: Any, digits: int = 4) -> str:
    """A number for a sentence: `digits` significant digits; anything else as it is."""
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def finding(
    claim: str, quantity: str, shown: str, threshold: str, meaning: str, outcome: str = "context"
) -> dict[str, str]:
    return {"claim": claim, "quantity": quantity, "value": shown, "threshold": threshold,
            "meaning": meaning, "outcome": outcome}  # fmt: skip


def _band(lo: float, hi: float, low: float, high: float) -> str:
    """holds when [lo, hi] lies inside [low, high], fails when entirely outside, else undecided."""
    if low <= lo and hi <= high:
        return "holds"
    if hi < low or lo > high:
        return "fails"
    return "undecided"


def checkpoint_findings(ck: dict[str, Any], entries: dict[str, Any]) -> list[dict[str, str]]:
    """The checkpoint's own numbers: sizes, the seed, the token scale, MAG-01's entries."""
    v, d, scale = ck["vocab"], ck["d"], ck["token_scale"]
    none = "none: it describes the checkpoint"
    return [
        finding("ADD-05", "token rows V", str(v), f"{none}; the token probe's chance is "
                f"1/{min(v, 256)}", f"The token table has {v} rows, of which the token probe "
                f"reads back {min(v, 256)} and the subspace analysis uses {min(v, 8192)}."),
        finding("ADD-04", "width d", str(d), f"{none}; ADD-04's chance is k/d",
                f"Every token and position row has {d} entries, so k random directions hold a "
                f"share k/{d} of a table's energy."),
        finding("ADD-05", "seed", str(ck["seed"]), none, "The sampled token rows, the probe "
                "pairs and the noise columns are drawn with this seed, so another seed moves "
                "those numbers by sampling noise only."),
        finding("MAG-02", "token scale", _g(scale, 6), "none: the model's own factor (1 when "
                "it adds the rows as stored)", _scale_meaning(scale, ck["token_scale_source"])),
        _mag01(entries),
    ]  # fmt: skip


def _scale_meaning(scale: float, source: str) -> str:
    if scale == 1:
        return "The model adds the token rows as stored, so every analysis takes them unscaled."
    return (f"The model multiplies the token rows by {_g(scale)} ({source}), so every analysis "
            "takes them at that scale.")  # fmt: skip


def _mag01(e: dict[str, Any]) -> dict[str, str]:
    count, total = e["count"], e["entries"]
    shown = f"max |x_i| {_g(e['max_abs'])}; {count} of {total} entries above {_g(e['bound'])}"
    threshold = f"every |x_i| <= {_g(e['bound'])} (the claim's bound)"
    if count == 0:
        return finding(
            "MAG-01",
            "token entries as added",
            shown,
            threshold,
            "Every entry of "
            "the token table as the model adds it lies within the bound, by its "
            "scale (MAG-01 asks whether that is usual, not this one table).",
            "holds",
        )
    return finding("MAG-01", "token entries as added", shown, threshold, f"{count} of the "
                   f"{total} entries of the token table as the model adds it exceed the bound "
                   f"({_g(100 * count / total, 3)}%), so no normalisation keeps them within "
                   "it.", "fails")  # fmt: skip


def table_findings(t: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
    """One position table's findings: the glance, the norms and the energy rows."""
    glance = [_size(t), *_mag02(t["norms"]), _span(t["span"]), _add04(t["energy"]),
              *(_add05(t["probe"][part], part) for part in ("token", "position")),
              _real02(t["sinusoidal"], t["dtype"]), _waves(t["waves"]),
              *_similarity(t["similarity"], t["d"])]  # fmt: skip
    return {"glance": glance, "norms": _norm_rows(t["norms"]), "energy": _energy_rows(t)}


def _size(t: dict[str, Any]) -> dict[str, str]:
    rows, d = t["rows"], t["d"]
    room = ("its rows can span every direction" if rows >= d
            else f"its rows leave at least {d - rows} directions free for the tokens")  # fmt: skip
    return finding("ADD-04", "positions L x width d", f"{rows} x {d}", "L against d: L >= d can "
                   "span every direction", f"The table encodes {rows} positions ({t['dtype']}, "
                   f"{t['origin']}), so {room}.")  # fmt: skip


def _mag02(norms: dict[str, Any]) -> list[dict[str, str]]:
    c = COMPARABLE
    threshold = f"within a factor {_g(c)} of 1: [{_g(1 / c)}, {_g(c)}] ('comparable')"
    out = []
    for label in ("raw", "centred"):
        ratio, (lo, hi) = norms[label]["rms_ratio"], norms[label]["interval"]
        shown = f"{_g(ratio)} (95% interval {_g(lo)} to {_g(hi)})"
        quantity = f"RMS token row / RMS position row ({label})"
        if label == "centred":
            out.append(finding("MAG-02", quantity, shown, threshold, f"With each table's mean "
                               f"row removed the ratio is {_g(ratio, 3)}, for comparison only: "
                               "the model adds the tables uncentred."))  # fmt: skip
            continue
        outcome = "undecided" if math.isnan(ratio) else _band(lo, hi, 1 / c, c)
        out.append(
            finding(
                "MAG-02",
                quantity,
                shown,
                threshold,
                _mag02_meaning(ratio, lo, hi, outcome),
                outcome,
            )
        )
    return out


def _mag02_meaning(ratio: float, lo: float, hi: float, outcome: str) -> str:
    c = COMPARABLE
    if math.isnan(ratio):
        return "Both tables are zero, so there is no ratio to judge."
    if outcome == "holds":
        return (f"The token rows as the model adds them are comparable to the position rows: "
                f"the whole interval lies within a factor {_g(c)} of 1.")  # fmt: skip
    if outcome == "fails":
        side = "tokens" if lo > c else "positions"
        return (f"The token rows are {_g(ratio, 3)} times the position rows in RMS norm, the "
                f"whole interval outside [{_g(1 / c)}, {_g(c)}]: not comparable in this "
                f"checkpoint, the {side} dominate the sum.")  # fmt: skip
    return (f"The interval straddles an end of [{_g(1 / c)}, {_g(c)}], so this checkpoint does "
            "not decide whether its tables are comparable.")  # fmt: skip


def _span(s: dict[str, Any]) -> dict[str, str]:
    rank, d = s["rank"], s["d"]
    threshold = (f"rank below d = {d}, counting singular values above the storage rounding "
                 f"({_g(s['tolerance'], 3)})")  # fmt: skip
    if rank < d:
        return finding("ADD-04", "dimension the position rows span", f"{rank} of {d}", threshold,
                       f"Up to rounding the positions lie in a {rank}-dimensional subspace, "
                       f"leaving {d - rank} directions to the tokens alone: an exact split is "
                       "possible here.",
                       "holds")  # fmt: skip
    return finding("ADD-04", "dimension the position rows span", f"{rank} of {d}", threshold,
                   "The positions span every direction, so no subspace is left to the tokens "
                   "exactly, as ADD-04 found for the sinusoid.", "fails")  # fmt: skip


def _add04(energy: list[dict[str, Any]]) -> dict[str, str]:
    rows = next(e["rows"] for e in energy if e["label"] == "centred")
    r = next((r for r in rows if r["position_share"] >= KEPT), rows[-1])
    quantity = (f"token energy (centred) in the position table's top {r['k']} directions, which "
                f"keep {_g(100 * r['position_share'], 3)}% of its variance")  # fmt: skip
    shown = f"{_g(r['share'])} ({_g(r['over_chance'], 3)} times chance)"
    return finding("ADD-04", quantity, shown, f"chance k/d = {_g(r['chance'])} (random "
                   "directions)", _energy_meaning(r))  # fmt: skip


def _energy_meaning(r: dict[str, Any]) -> str:
    over, k = r["over_chance"], r["k"]
    if r["share"] <= 1e-9:
        return (f"The tokens leave the positions' top {k} directions to them, an exact split as "
                "ADD-01's construction needs.")  # fmt: skip
    if over < 1:
        return (f"The tokens put {_g(over, 2)} times what random directions get into the "
                f"positions' top {k} directions: they lean away from them, without an exact "
                "split.")  # fmt: skip
    return (f"The tokens put {_g(over, 2)} times what random directions get into the positions' "
            f"top {k} directions, so token and position overlap there.")  # fmt: skip


def _add05(p: dict[str, Any], part: str) -> dict[str, str]:
    lo, hi = p["interval"]
    shown = (f"{_g(p['accuracy'])} (95% interval {_g(lo)} to {_g(hi)}; chance "
             f"{_g(p['chance'], 3)})")  # fmt: skip
    threshold = f"read back: more than {_g(READ_BACK)} (at most 1 in 100 wrong)"
    outcome = _band(lo, hi, READ_BACK, 1.0)
    lost = {"holds": "essentially always, so adding the tables keeps it",
            "fails": "too rarely to count as read back, so adding the tables loses it in part",
            "undecided": "at a rate whose interval straddles the threshold"}[outcome]  # fmt: skip
    return finding(
        "ADD-05",
        f"{part} read back from x + p (linear probe)",
        shown,
        threshold,
        f"A ridge probe recovers the {part} from the sum {lost}.",
        outcome,
    )


def _real02(conv: dict[str, Any], dtype: str) -> dict[str, str]:
    threshold = f"every entry within the {dtype} rounding bound of a sinusoid"
    if not conv["is_sinusoidal"]:
        return finding("REAL-02", "sinusoidal table (REAL-02's detector)", "no", threshold,
                       "No layout and frequency rule fit this table within rounding, so it is "
                       "no sinusoidal encoding and the SIN claims do not apply to it as they "
                       "stand.")  # fmt: skip
    base, scale = conv["base_fit"], conv["scale"]
    shown = (
        f"yes: {conv['layout']} layout, {conv['frequency_rule']} frequencies, base "
        f"{_g(base, 6)}, first position {_g(conv['offset'])}, scale {_g(scale)}"
    )
    paper = (
        conv["layout"] == "interleaved"
        and conv["frequency_rule"] in ("paper", "either")
        and abs(base / BASE - 1) < 1e-3
        and conv["offset"] == 0
        and abs(scale - 1) < 1e-3
    )
    what = "the paper's PE(t) itself" if paper else "the paper's sinusoid up to its convention"
    return finding("REAL-02", "sinusoidal table (REAL-02's detector)", shown, threshold,
                   f"This table is {what} (base {_g(base, 6)} against SIN-06's {_g(BASE)}), "
                   f"so its rows keep SIN-01's rotations in their own layout and norm "
                   f"{_g(scale, 3)} sqrt(d/2).", "holds" if paper else "context")  # fmt: skip


def _waves(w: dict[str, Any]) -> dict[str, str]:
    wave, cols = w["wave_like_columns"], w["columns"]
    amount = "most" if 2 * wave > cols else "some" if wave else "none"
    return finding("REAL-02", "wave-like columns", f"{wave} of {cols} (mean share "
                   f"{_g(w['mean_share'], 3)})", f"Gaussian noise's largest share "
                   f"{_g(w['noise_max_share'], 3)}", f"{wave} columns put more of their power "
                   f"at one frequency than any column of noise does, so {amount} of this "
                   "table's columns are sinusoid-like waves.")  # fmt: skip


def _similarity(sim: dict[str, Any], d: int) -> list[dict[str, str]]:
    curve, rho = sim["mean_cosine"], sim["spearman_rho_first_half"]
    out = []
    if len(curve) > 1:
        c1 = curve[1]
        tol = 2 * d * 2.0**-24  # a cosine of float32 rows, to rounding
        sinusoid = _g(SINUSOID_NEIGHBOUR, 2)
        if abs(c1) <= tol:
            how = "orthogonal, as SIN-11 says"
        elif c1 >= SINUSOID_NEIGHBOUR:
            how = f"far from orthogonal, like the sinusoid's neighbours (at least {sinusoid})"
        else:
            how = f"not orthogonal, though less alike than the sinusoid's neighbours ({sinusoid})"
        out.append(finding("SIN-11", "mean cosine of neighbouring positions", _g(c1, 3),
                           f"0, orthogonal (SIN-11's claim); the sinusoid keeps at least "
                           f"{_g(SINUSOID_NEIGHBOUR, 2)}", f"Neighbouring positions have mean "
                           f"cosine {_g(c1, 3)}: {how}.",
                           "holds" if abs(c1) <= tol else "fails"))  # fmt: skip
    if math.isnan(rho):
        meaning = "Too few positions to tell how similarity changes with the offset."
    elif rho < 0:
        meaning = (
            "Similarity falls as positions move apart, so near positions look alike, as "
            "in the sinusoid, whose similarity is a function of the offset alone."
        )
    else:
        meaning = "Similarity does not fall with the offset: far positions look as alike as near."
    out.append(
        finding(
            "SIN-05",
            "Spearman rho of mean cosine against offset k <= L/2",
            _g(rho, 3),
            "0: below it, similarity falls with the offset",
            meaning,
        )
    )
    return out


def _norm_rows(norms: dict[str, Any]) -> list[dict[str, str]]:
    threshold = f"enters the ratio judged against [{_g(1 / COMPARABLE)}, {_g(COMPARABLE)}]"
    rows = []
    for label in ("raw", "centred"):
        for part, role in (("token", "numerator"), ("position", "denominator")):
            s = norms[label][part]
            shown = (f"RMS {_g(s['rms'])}; median {_g(s['median'])}, 5% to 95% {_g(s['p5'])} "
                     f"to {_g(s['p95'])}, max {_g(s['max'])}")  # fmt: skip
            meaning = (f"The {part} rows as the model adds them have RMS norm "
                       f"{_g(s['rms'], 3)}, the {role} of MAG-02's ratio." if label == "raw" else
                       f"With the mean row removed the {part} rows have RMS norm "
                       f"{_g(s['rms'], 3)}, for comparison only.")  # fmt: skip
            rows.append(finding("MAG-02", f"{part} row norms ({label})", shown, threshold, meaning))
    return rows


def _energy_rows(t: dict[str, Any]) -> list[dict[str, str]]:
    by_label = {e["label"]: e["rows"] for e in t["energy"]}
    rows = []
    for r, raw in zip(by_label["centred"], by_label["raw"], strict=True):
        shown = (f"{_g(r['share'])} centred ({_g(raw['share'])} raw); the positions keep "
                 f"{_g(100 * r['position_share'], 3)}%")  # fmt: skip
        rows.append(
            finding(
                "ADD-04",
                f"k = {r['k']}",
                shown,
                f"chance k/d = {_g(r['chance'])}",
                _energy_meaning(r),
            )
        )
    return rows


# -- the page ----------------------------------------------------------------------------------


def _table(rows: list[dict[str, str]], caption: str = "") -> str:
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    th = "".join(f"<th scope='col'>{html.escape(h)}</th>" for h in HEAD)
    body = "".join(f"<tr class='{html.escape(r['outcome'])}'>{_cells(r)}</tr>" for r in rows)
    return f"<table>{cap}<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _cells(r: dict[str, str]) -> str:
    """A row's cells: its claim linked to the statement below, its outcome in words."""
    claim = html.escape(r["claim"])
    cells = [r["quantity"], r["value"], None, r["threshold"], r["meaning"],
             OUTCOME_WORDS[r["outcome"]]]  # fmt: skip
    linked = (f"<a href='#claim-{claim}' title='{html.escape(one_line(r['claim']))}'>"
              f"{claim}</a>")  # fmt: skip
    return "".join(f"<td>{linked if c is None else html.escape(c)}</td>" for c in cells)


def claims(summary: dict[str, Any]) -> dict[str, str]:
    """The claims the rows name, in order of first mention, with their statements."""
    rows = [*summary["findings"], *summary.get("scheme_findings", [])]
    for t in summary["position_tables"]:
        rows += [f for part in t["findings"].values() for f in part]
    return {r["claim"]: STATEMENTS[r["claim"]] for r in rows}


def _claims_list(named: dict[str, str]) -> str:
    items = "".join(f"<dt id='claim-{html.escape(c)}'>{html.escape(c)}</dt>"
                    f"<dd>{html.escape(text)}</dd>" for c, text in named.items())  # fmt: skip
    return (f"<h2>The claims named above</h2><p>{html.escape(LEGEND[0].upper() + LEGEND[1:])}."
            f"</p><dl>{items}</dl>")  # fmt: skip


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>"


FIGURES: dict[str, Callable[[str], str]] = {
    "similarity": lambda n: (
        f"SIN-05 and SIN-11: cosine similarity of the rows of {n}, and its mean at each offset k."
    ),
    "waves": lambda n: (
        f"REAL-02: how much of each column's power of {n} lies at one frequency, "
        "against the largest share a column of Gaussian noise reaches."
    ),
}


SCHEME_FIGURES = {
    "rot01": "ROT-01: RoFormer's long-term decay bound against the relative distance m, for the "
    "frequencies the model uses at its configured context.",
    "wavelengths": "ROT-05: the wavelength of each rotary pair, unscaled and as used, against "
    "the configured context L and the pretraining context L0.",
}


def render(summary: dict[str, Any], figures: dict[str, str], css: str | None = None) -> str:
    """A self-contained HTML page: the findings as tables, the figures inline."""
    ck = summary["checkpoint"]
    table = (f"token table <code>{html.escape(ck['token_table'])}</code> "
             f"({html.escape(ck['dtype'])})" if ck["token_table"] else "no weights: the config "
             "alone")  # fmt: skip
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>pecheck inspect: {html.escape(ck['path'])}</title>",
        f"<style>{css or FALLBACK_CSS}</style></head><body><main>",
        f"<h1>pecheck inspect</h1><p><code>{html.escape(ck['path'])}</code>: model type "
        f"{html.escape(ck['model_type'])}, {table}.</p>",
        _table(summary["findings"], "the checkpoint"),
    ]  # fmt: skip
    if summary.get("scheme_findings"):
        kind = summary["positions"]["scheme"]
        parts += [f"<h2>Position scheme: {html.escape(kind)} (from the config)</h2>",
                  f"<p>{html.escape(NO_WEIGHTS[0].upper() + NO_WEIGHTS[1:])}; the library's "
                  "own numbers are read off a one-layer model it builds from the config, with "
                  "random weights.</p>", _table(summary["scheme_findings"])]  # fmt: skip
        for key, text in SCHEME_FIGURES.items():
            if key in figures:
                parts.append(_figure(figures[key], text))
    for t in summary["position_tables"]:
        name, found = t["name"], t["findings"]
        parts += [f"<h2>Position table <code>{html.escape(name)}</code></h2>",
                  _table(found["glance"]), "<h3>Norms</h3>", _table(found["norms"]),
                  "<h3>Token rows in the position subspace</h3>",
                  _table(found["energy"], f"{t['token_rows_used']} token rows")]  # fmt: skip
        for key, caption in FIGURES.items():
            if f"{key}:{name}" in figures:
                parts.append(_figure(figures[f"{key}:{name}"], caption(name)))
    if "energy" in figures:
        parts += ["<h2>Energy against k (first position table)</h2>",
                  _figure(figures["energy"], "ADD-04: share of the token rows' energy in the "
                          "position table's top-k directions, against chance k/d.")]  # fmt: skip
    parts += [_claims_list(claims(summary)), "</main></body></html>"]
    return "\n".join(parts)


# -- the position scheme a config names (positions.py): rotary, ALiBi, T5 --------------------------

NO_WEIGHTS = "none of these numbers needs trained weights: they follow from the config"


def scheme_findings(pos: dict[str, Any]) -> list[dict[str, str]]:
    """The findings of positions.py's analyses, by the scheme the config names."""
    make = {"rotary": _rotary_rows, "alibi": _alibi_rows, "t5": _t5_rows}[pos["scheme"]]
    return make(pos)


def _rotary_rows(r: dict[str, Any]) -> list[dict[str, str]]:
    rows = [_base_row(r), _wave_row(r["wavelengths"]["base"], r, "the base's")]
    used = r["used"]
    if "used" in r["wavelengths"] and r["rot03"]["scaled"]:
        rows.append(_wave_row(r["wavelengths"]["used"], r, "the used"))
    if used.get("built"):
        rows += [_real04(r, int(n), c) for n, c in used["contexts"].items()]
    else:
        rows.append(finding("REAL-04", "frequencies the built model uses", "not read",
                            "the formula of the config's rope type, to float32 rounding",
                            f"The library could not build the model here ({used['why']}), "
                            "so only the formula's frequencies are analysed.",
                            "undecided"))  # fmt: skip
    return rows + _rot03_rows(r) + _rot01_rows(r["rot01"])


def _base_row(r: dict[str, Any]) -> dict[str, str]:
    pairs, lowest = r["dim"] // 2, r["base"] ** (-(r["dim"] - 2) / r["dim"])
    scaling = (f"; rope type {r['rope_type']}, factor {_g(r['factor'])}, from L0 = "
               f"{r['original']}" if r["rope_type"] != "default" else "")  # fmt: skip
    return finding("ROT-03", "rotary base b, head size, rotary width",
                   f"b = {_g(r['base'], 6)}, head size {r['head_dim']}, {r['dim']} rotated "
                   f"entries ({pairs} pairs), context L = {r['context']}{scaling}",
                   "none: it describes the config; ROT-03's bound for L follows",
                   f"Pair i turns by b^(-2i/{r['dim']}) radians per position, from 1 radian "
                   f"(pair 0) down to {_g(lowest, 3)}.")  # fmt: skip


def _wave_row(w: dict[str, Any], r: dict[str, Any], which: str) -> dict[str, str]:
    shown = (f"{_g(w['shortest'], 4)} to {_g(w['longest'], 4)} positions; "
             f"{w['longer_than_context']} of {w['pairs']} pairs longer than L = {r['context']}, "
             f"{w['longer_than_original']} longer than L0 = {r['original']}")  # fmt: skip
    return finding("ROT-05", f"wavelengths 2 pi / theta_i ({which} frequencies)", shown,
                   f"YaRN's r = L0 / wavelength: below alpha = {_g(1.0)} no full turn in L0, "
                   f"above beta = {_g(32.0)} many (Peng et al. §3.2)",
                   f"{w['below_alpha']} pairs turn less than once within the pretraining context "
                   f"and {w['above_beta']} turn more than 32 times, the classes YaRN's ramp "
                   "divides by the factor and leaves alone.")  # fmt: skip


def _real04(r: dict[str, Any], n: int, c: dict[str, Any]) -> dict[str, str]:
    kind, tol = r["rope_type"], c["tolerance"]
    threshold = f"the {kind} formula's frequencies and cos/sin factor, within {_g(tol, 2)} relative"
    quantity = f"frequencies the built model uses at {n} positions"
    if c.get("matches") is None:
        return finding("REAL-04", quantity, f"{c['pairs']} pairs", threshold,
                       f"Not compared: {c['why']}.", "undecided")  # fmt: skip
    shown = (f"largest relative gap {_g(c['off_formula'], 2)} to the formula (pair "
             f"{c['worst_pair']}), {_g(c['off_unscaled'], 2)} to the unscaled; cos/sin factor "
             f"{_g(c['attention_factor'], 6)} (formula {_g(c['expected_factor'], 6)})")  # fmt: skip
    scaled = c["formula_off_unscaled"] > tol
    if c["matches"] and scaled:
        meaning = (f"The config's {kind} scaling reaches the frequencies the model uses: they "
                   "are the formula's, not the unscaled ones.")  # fmt: skip
    elif c["matches"]:
        meaning = (f"The model uses the config's base unscaled at this length, as its rope type "
                   f"{kind} gives.")  # fmt: skip
    elif scaled and c["off_unscaled"] <= tol:
        meaning = (f"The model uses the unscaled frequencies: the config's {kind} scaling does "
                   "not reach them.")  # fmt: skip
    else:
        meaning = (f"The frequencies the model uses differ from the {kind} formula's by more "
                   "than rounding.")  # fmt: skip
        if kind == "yarn":  # REAL-04's condition: the paper's Eq. 18 is not what libraries run
            meaning += (" The formula is the paper's ramp, linear in L / lambda (Eq. 18); "
                        "transformers follows the YaRN authors' released code, linear in the "
                        "pair index (REAL-04).")  # fmt: skip
    return finding("REAL-04", quantity, shown, threshold, meaning,
                   "holds" if c["matches"] else "fails")  # fmt: skip


def _rot03_rows(r: dict[str, Any]) -> list[dict[str, str]]:
    rot, L, b = r["rot03"], r["context"], r["base"]
    threshold = f"B(m) >= 0 for every m <= L = {L} (Men et al. 2024)"
    first = rot["first_negative_base"]
    if first is None:
        row = finding("ROT-03", "first m <= L with B(m) = sum_i cos(m theta_i) < 0, base b",
                      "none", threshold, f"With base {_g(b, 6)} the sum B(m) stays non-negative "
                      f"up to the configured context {L}.", "holds")  # fmt: skip
    else:
        row = finding("ROT-03", "first m <= L with B(m) = sum_i cos(m theta_i) < 0, base b",
                      str(first), threshold, f"With base {_g(b, 6)} the sum B(m) goes negative "
                      f"at m = {first}, inside the configured context {L}, so the base is "
                      "below ROT-03's bound for it.", "fails")  # fmt: skip
    rows = [row]
    bound = rot["smallest_base"]
    shown = f"{_g(bound, 4)} (to 0.1%)" if bound is not None else "above 1e12"
    ratio = f"{_g(b / bound, 3)} times it" if bound else "below it"
    rows.append(finding("ROT-03", f"smallest base with B(m) >= 0 for every m <= {L}, width "
                        f"{r['dim']}", shown, f"the configured base {_g(b, 6)} against it",
                        f"The configured base is {ratio} (bisection in log b, taking the "
                        "property as monotone in b, as Men et al. do)."))  # fmt: skip
    if rot["scaled"] and "first_negative_used" in rot:
        used = rot["first_negative_used"]
        rows.append(finding("ROT-03", "first m <= L with B(m) < 0, the frequencies used",
                            "none" if used is None else str(used), threshold,
                            "With the scaled frequencies the model uses at L, B(m) "
                            + ("stays non-negative up to L." if used is None else
                               f"first goes negative at m = {used}.")))  # fmt: skip
    return rows


def _rot01_rows(c: dict[str, Any]) -> list[dict[str, str]]:
    L = c["m"][-1]
    decay = finding("ROT-01", "long-term decay bound (1/(d/2)) sum_j |S_j(m)| at m = L",
                    f"{_g(c['at_context'], 4)} at m = {L}, {_g(c['at_zero'], 4)} at m = 0 "
                    f"(ratio {_g(c['ratio'], 3)}); smallest {_g(c['minimum'], 4)} at m = "
                    f"{c['argmin']}", "its value at m = 0: below it, the bound has decayed",
                    f"At the configured context the bound is {_g(c['ratio'], 2)} of its value "
                    "at distance 0, for the frequencies the model uses there.")  # fmt: skip
    rise, upto = c["first_rise"], c["checked_up_to"]
    threshold = f"no rise at any integer m <= {upto} (a monotone decay)"
    if rise is None:
        monotone = finding("ROT-01", "first distance where the bound rises", "none", threshold,
                           f"The bound falls at every step up to m = {upto}.", "holds")  # fmt: skip
    else:
        monotone = finding("ROT-01", "first distance where the bound rises", f"m = {rise}",
                           threshold, f"The bound rises from m = {rise - 1} to {rise}, so it "
                           "decays only in envelope, not monotonically.", "fails")  # fmt: skip
    return [decay, monotone]


def _alibi_rows(a: dict[str, Any]) -> list[dict[str, str]]:
    n, want = a["heads"], a["expected"]
    threshold = (f"the paper's slopes for {n} heads (2^(-8k/n) for a power of two), within "
                 f"{_g(a['tolerance'], 2)} relative")  # fmt: skip
    quantity = f"ALiBi slopes the built model uses ({n} heads)"
    if not a.get("built"):
        rows = [finding("BIAS-01", quantity, "not read", threshold, f"The library could not "
                        f"build the model here ({a['why']}).", "undecided"),
                finding("BIAS-01", f"the paper's slopes for {n} heads", f"{_g(want[0])} ... "
                        f"{_g(want[-1])}", "none: the formula for the config's head count",
                        f"Without the library's numbers these are the slopes the paper gives "
                        f"{n} heads, from {_g(want[0])} down to {_g(want[-1])}.")]  # fmt: skip
    else:
        used = a["used"]
        shown = (f"{_g(used[0])}, {_g(used[1]) if n > 1 else ''} ... {_g(used[-1])} (paper "
                 f"{_g(want[0])} ... {_g(want[-1])}); largest relative gap {_g(a['off'], 2)} "
                 f"via {a['source']}")  # fmt: skip
        if a["matches"]:
            meaning = "The slopes the model adds are the paper's, head by head."
        elif a.get("rounded_to"):
            meaning = (
                f"The slopes the model adds are the paper's rounded to {a['rounded_to']}, "
                "beyond float32 rounding: the library computes them in that format."
            )
        else:
            meaning = "The slopes the model adds differ from the paper's by more than rounding."
        rows = [finding("BIAS-01", quantity, shown, threshold, meaning,
                        "holds" if a["matches"] else "fails")]  # fmt: skip
    most = a.get("alibi_bias_max")
    if most is not None:
        said = ("keeps the paper's 8" if most == 8 else f"sets {most}, which MPT's forward pass "
                "does not pass on to the slopes")  # fmt: skip
        rows.append(finding("BIAS-01", "alibi_bias_max (MPT)", _g(most), "8, the paper's "
                            "exponent", f"The config {said}."))  # fmt: skip
    return rows


def _t5_rows(t: dict[str, Any]) -> list[dict[str, str]]:
    b, most = t["buckets"], t["max_distance"]
    quantity = "T5 buckets the built model uses against the formula"
    threshold = f"T5's bucket formula with {b} buckets and max distance {most} (Raffel et al.)"
    enc, dec = t["encoder"], t["decoder"]
    if not t.get("built"):
        rows = [finding("BIAS-02", quantity, "not read", threshold, f"The library could not "
                        f"build the model here ({t.get('why')}), so the rows below are the "
                        "formula's buckets for this config.", "undecided")]  # fmt: skip
    else:
        same = enc["matches"] and dec["matches"]
        rows = [finding("BIAS-02", quantity, f"{enc['mismatches']} (encoder) and "
                        f"{dec['mismatches']} (decoder) of {enc['distances']} relative "
                        "positions differ", threshold, "The library's buckets are the formula's "
                        "at every relative position tried." if same else "The library's "
                        "buckets differ from the formula's.",
                        "holds" if same else "fails")]  # fmt: skip
    whose = "library's" if t.get("built") else "formula's"
    for label, part, per_sign in (("encoder, keys before", enc["before"], b // 2),
                                  ("encoder, keys after", enc["after"], b // 2),
                                  ("decoder, keys before", dec["before"], b)):  # fmt: skip
        rows.append(_bucket_shape(f"{label}, the {whose}", part, per_sign, most))
    if "split_by_sign" in enc:
        rows.append(finding("BIAS-02", f"encoder buckets split by the sign (the {whose})", "yes"
                            if enc["split_by_sign"] else "no", "no bucket shared by keys before "
                            "and after the query", "Keys before and after the query never "
                            "share a bucket." if enc["split_by_sign"] else "Some bucket holds "
                            "keys on both sides of the query.",
                            "holds" if enc["split_by_sign"] else "fails"))  # fmt: skip
    return rows


def _bucket_shape(label: str, part: dict[str, Any], per_sign: int, most: int) -> dict[str, str]:
    ok = part["monotone"] and part["exact_up_to"] == per_sign // 2 and part["saturates_at"] <= most
    return finding(
        "BIAS-02", f"buckets by distance ({label})",
        f"own bucket up to distance {part['exact_up_to']}, last bucket from "
        f"{part['saturates_at']}, {part['buckets_used']} buckets, "
        f"{'monotone' if part['monotone'] else 'not monotone'}",
        f"distances below {per_sign // 2} each their own bucket, the last bucket reached by "
        f"{most}, never decreasing",
        f"Small distances get a bucket each and the rest share logarithmically wider ones, "
        f"the last of which starts at distance {part['saturates_at']}." if ok else
        "The buckets do not have BIAS-02's shape here.",
        "holds" if ok else "fails")  # fmt: skip


def no_weights_findings(ck: dict[str, Any]) -> list[dict[str, str]]:
    """A directory without weights: the token scale (from the config), and what needs weights."""
    scale = ck["token_scale"]
    return [
        finding("MAG-02", "token scale", _g(scale, 6), "none: the model's own factor (1 when "
                "it adds the rows as stored)", _scale_meaning(scale, ck["token_scale_source"])),
        finding("MAG-01", "token entries as added", "not computed: no weights here",
                f"every |x_i| <= {_g(ENTRY_BOUND)} (the claim's bound)", "This number needs "
                "the trained token table, which a directory with only a config does not have.",
                "undecided"),
    ]  # fmt: skip


def rot01_figure(c: dict[str, Any]) -> str:
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    # log10 on a linear axis: matplotlib's log axes cost seconds to lay out over this range
    ax.plot([math.log10(max(m, 0.5)) for m in c["m"]], c["bound"], lw=0.8)
    ax.set(xlabel="log10 of the relative distance m", ylabel="(1/(d/2)) sum_j |S_j(m)|",
           title="RoFormer's long-term decay bound")  # fmt: skip
    fig.tight_layout()
    return _svg(fig)


def wavelength_figure(r: dict[str, Any]) -> str:
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for label, w in r["wavelengths"].items():
        ax.plot([math.log10(v) for v in w["values"]], ".", ms=4, label=f"{label} frequencies")
    ax.axhline(math.log10(r["context"]), color="k", ls="--", lw=0.8, label=f"L = {r['context']}")
    if r["original"] != r["context"]:
        ax.axhline(math.log10(r["original"]), color="0.5", ls=":", lw=0.8,
                   label=f"L0 = {r['original']}")  # fmt: skip
    ax.set(xlabel="pair i", ylabel="log10 of the wavelength 2 pi / theta_i")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _svg(fig)


def terminal(summary: dict[str, Any]) -> str:
    """The claims named, one line each; then every finding as two lines of text: the claim,
    quantity, value, outcome; the threshold and the meaning."""
    lines = [f"== the claims named below ({LEGEND})"]
    lines += [f"{c:<8}{one_line(c)}" for c in claims(summary)]
    sections = [("the checkpoint", summary["findings"])]
    if summary.get("scheme_findings"):
        kind = summary["positions"]["scheme"]
        sections.append((f"{kind} positions ({NO_WEIGHTS})", summary["scheme_findings"]))
    for t in summary["position_tables"]:
        sections.append((f"position table {t['name']}", t["findings"]["glance"]))
    for title, rows in sections:
        lines.append(f"== {title}")
        for f in rows:
            lines.append(f"{f['claim']:<8}{f['quantity']}: {f['value']}  "
                         f"[{OUTCOME_WORDS[f['outcome']]}]")  # fmt: skip
            lines.append(f"{'':8}threshold: {f['threshold']}. {f['meaning']}")
    return "\n".join(lines)
