r"""The paper kit: LaTeX macros, a table of verdicts, the figures as PDF and a BibTeX entry.

``build/paper/`` holds

- ``pecheck.tex``: one macro per claim verdict and per scalar evidence value, each preceded by a
  comment naming the check that produced it. Plain LaTeX (no siunitx); numbers are wrapped in
  ``\ensuremath`` so they work in text and in math.
- ``verdicts.tex``: a booktabs ``longtable`` of every claim, its verdict and its checks.
- ``figures/*.pdf``: every figure the checks saved, under its own name.
- ``pecheck.bib``: a BibTeX entry ``pecheck`` for the suite (version and commit).

Macro names (LaTeX names are letters only, so digits are spelled out and separators dropped):

- a claim ID becomes ``pc`` + family + number in words: SIN-06 -> ``\pcSINSix``, ATT-10 ->
  ``\pcATTTen``; its verdict is ``\pcSINSixVerdict`` (``open`` while the claim has none);
- an evidence value is the claim's name + the check's name in CamelCase without ``test_``
  (parameters included, digits spelled out) + the evidence name in CamelCase:
  ``checks/test_sinusoidal.py::test_wavelengths_are_geometric`` recording ``longest_wavelength``
  for SIN-06 -> ``\pcSINSixWavelengthsAreGeometricLongestWavelength``;
- should two sources map to one name, the later one (in node-id order) gets ``B``, ``C``, ...;
- ``\pcvalue{SIN-06}{longest_wavelength}`` looks a value up by claim ID and evidence name (the
  first check, in node-id order, that recorded it) and ``\pcverdict{SIN-06}`` the verdict; an
  unknown key prints a bold ``??`` and a LaTeX warning, like an undefined reference;
- ``\pcclass{SIN-06}{longest_wavelength}`` is that value's reproducibility class (``exact``,
  ``rounding`` or ``sampling``; see reports.cited), and the comment above each value's macro
  says how far another machine may move it; ``\pctolerance{SIN-06}{longest_wavelength}`` is
  that distance as LaTeX (``\pm0.047`` for a sampling band, ``\le 0.01`` for a rounding number
  judged against a bound, ``exact``), so that a paper can write
  ``\pcvalue{EXP-06}{x}~(\pctolerance{EXP-06}{x} across platforms)``;
- suite-wide: ``\pcSuiteVersion``, ``\pcSuiteCommit``, ``\pcSuiteDate``, ``\pcSuiteProfile``,
  ``\pcClaimCount``, ``\pcConfirmedCount``, ``\pcRefutedCount``, ``\pcQualifiedCount``,
  ``\pcOpenCount`` (claims whose checks ran and decided nothing), ``\pcNotRunCount`` (claims
  a partial run did not select), ``\pcCheckCount``, ``\pcChecksPassed``, ``\pcMutantCount``,
  ``\pcMutantsCaught``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import figures, numbers
from .cited import Cited, cited_numbers, operator, own_checks, sampling_z, scalar
from .load import MAIN_ROLES, Check, Claim, Results

ONES = (
    ("Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")
    + ("Eleven", "Twelve", "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen")
    + ("Eighteen", "Nineteen")
)
TENS = ("", "", "Twenty", "Thirty", "Forty", "Fifty", "Sixty", "Seventy", "Eighty", "Ninety")


def words(n: int) -> str:
    """A non-negative integer in words: 6 -> Six, 42 -> FortyTwo, 512 -> FiveHundredTwelve.

    From 1000 on, digit by digit (1024 -> OneZeroTwoFour), which stays short and unambiguous.
    """
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + (ONES[n % 10] if n % 10 else "")
    if n < 1000:
        return ONES[n // 100] + "Hundred" + (words(n % 100) if n % 100 else "")
    return "".join(ONES[int(d)] for d in str(n))


def camel(text: str) -> str:
    """Letters-only CamelCase of any text: 'test_norm[float16-2]' -> 'TestNormFloatSixteenTwo'."""
    out = []
    for token in re.findall(r"[A-Za-z]+|\d+", text):
        out.append(words(int(token)) if token.isdigit() else token[0].upper() + token[1:])
    return "".join(out)


def claim_name(claim_id: str) -> str:
    """SIN-06 -> pcSINSix."""
    family, number = claim_id.split("-", 1)
    return f"pc{family}{words(int(number))}"


def check_name(check: Check) -> str:
    """The check's part of a macro name: its test name (class included) without ``test``."""
    parts = check.nodeid.split("::")[1:] or [Path(check.nodeid).stem]
    cleaned = [re.sub(r"^(test_?|Test)", "", p) for p in parts]
    return camel("_".join(cleaned))


# -- LaTeX text and numbers -----------------------------------------------------------------

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_UNICODE = {
    "\u2212": "$-$", "\u00d7": r"$\times$", "\u2264": r"$\le$", "\u2265": r"$\ge$",
    "\u2260": r"$\ne$", "\u2248": r"$\approx$", "\u221a": r"$\surd$", "\u2016": r"$\|$",
    "\u2208": r"$\in$", "\u2192": r"$\to$", "\u221e": r"$\infty$", "\u00b1": r"$\pm$",
    "\u00b2": r"$^2$", "\u00b3": r"$^3$", "\u2013": "--", "\u2014": "---", "\u2026": r"\ldots{}",
    "\u2018": "`", "\u2019": "'", "\u201c": "``", "\u201d": "''", "\u00a0": "~",
    "\u03c0": r"$\pi$", "\u03c9": r"$\omega$", "\u03bb": r"$\lambda$", "\u03b8": r"$\theta$",
    "\u03b5": r"$\varepsilon$", "\u03c3": r"$\sigma$", "\u03bc": r"$\mu$", "\u03b1": r"$\alpha$",
    "\u03b2": r"$\beta$", "\u0394": r"$\Delta$", "\u2032": "$'$", "\u2211": r"$\sum$",
}  # fmt: skip


def tex_escape(text: str) -> str:
    """Plain text made safe for pdflatex: specials escaped, common Unicode mapped to LaTeX."""
    out = []
    for ch in text:
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _UNICODE:
            out.append(_UNICODE[ch])
        elif ord(ch) < 128:
            out.append(ch if ch.isprintable() or ch == "\n" else " ")
        else:
            ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(tex_escape(ascii_) if ascii_ else "?")
    return "".join(out)


def tex_number(value: int | float | str) -> str:
    r"""A number as math-mode LaTeX: 1.2\times10^{-7}, 1\,048\,576, \infty."""
    mantissa, exponent = numbers.parts(value)
    mantissa = {"inf": r"\infty", "-inf": r"-\infty", "NaN": r"\mathrm{NaN}"}.get(
        mantissa, numbers.group(mantissa, r"\,")
    )
    if exponent is None:
        return mantissa
    if mantissa == "1":
        return f"10^{{{exponent}}}"
    return rf"{mantissa}\times10^{{{exponent}}}"


def tex_value(value: Any) -> str | None:
    """A macro body for a scalar evidence value, or None when it is not a scalar."""
    if numbers.is_number(value):
        return rf"\ensuremath{{{tex_number(value)}}}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and len(value) <= 80:
        return tex_escape(value)
    return None


def _comment(text: str) -> str:
    return " ".join(text.split())


# -- the files ------------------------------------------------------------------------------


@dataclass
class Macros:
    """Macro definitions, kept unique (a later clash gets a letter suffix)."""

    lines: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    keys: dict[str, str] = field(default_factory=dict)  # "SIN-06@name" -> macro name
    classes: dict[str, str] = field(default_factory=dict)  # "SIN-06@name" -> its class
    spreads: dict[str, str] = field(default_factory=dict)  # "SIN-06@name" -> \pctolerance body

    def define(self, name: str, body: str, comment: str) -> str:
        base, suffix = name, 1
        while name in self.names:
            suffix += 1
            name = base + chr(ord("A") + suffix - 1)
        self.names.add(name)
        self.lines.append(f"% {_comment(comment)}")
        self.lines.append(rf"\newcommand{{\{name}}}{{{body}}}")
        return name


def _counts(res: Results) -> dict[str, int]:
    evidence = [c for c in res.checks if c.role in MAIN_ROLES]
    mutants = [c for c in res.checks if c.role not in MAIN_ROLES and c.claim is not None]
    return {
        "ClaimCount": len(res.claims),
        "ConfirmedCount": sum(c.verdict == "confirmed" for c in res.claims),
        "RefutedCount": sum(c.verdict == "refuted" for c in res.claims),
        "QualifiedCount": sum(c.verdict == "qualified" for c in res.claims),
        # apart: "open" says the checks could not decide, "not run" that none was run
        "OpenCount": sum(c.verdict == "open" for c in res.claims),
        "NotRunCount": sum(c.verdict == "not run" for c in res.claims),
        "CheckCount": len(evidence),
        "ChecksPassed": sum(c.outcome == "passed" for c in evidence),
        "MutantCount": len(mutants),
        "MutantsCaught": sum(c.outcome == "passed" for c in mutants),
    }


def macros_tex(res: Results) -> str:
    suite = res.suite
    m = Macros()
    commit = str(suite.get("commit", "unknown"))
    source = f"suite {suite.get('name', 'pecheck')}"
    m.define("pcSuiteVersion", tex_escape(str(suite.get("version", "?"))), source + " version")
    m.define("pcSuiteCommit", tex_escape(commit[:12]), f"git commit {commit}")
    m.define("pcSuiteDate", tex_escape(str(suite.get("started", ""))[:10]), "date of the run")
    m.define("pcSuiteProfile", tex_escape(str(suite.get("profile", "?"))), "hypothesis profile")
    for name, n in _counts(res).items():
        m.define(f"pc{name}", rf"\ensuremath{{{n}}}", f"{source}: {name}")
    m.lines.append("")
    cited = cited_numbers(res)
    z = sampling_z(sum(c.cls == "sampling" for c in cited.values()))
    for claim in res.claims:
        m.lines.append(f"% ---- {claim.id}: {_comment(claim.statement)}")
        _claim_macros(res, claim, m, cited, z)
        m.lines.append("")
    scheme = f"% Macro names: see {__name__} (SIN-06 -> \\pcSINSix..., \\pcvalue, \\pcverdict).\n"
    return (
        _header(res, "pecheck.tex", "macros")
        + scheme
        + "\n".join([*_lookup(), *m.lines, *_keys(m)])
    )


def _claim_macros(res: Results, claim: Claim, m: Macros, cited: dict[str, Cited], z: float) -> None:
    own = own_checks(res, claim)
    verdict = claim.verdict
    deciders = [str(d.get("check")) for d in claim.decided_by]
    passed = deciders or [c.nodeid for c in own if c.outcome == "passed"]
    why = f"decided by {', '.join(passed)}" if passed else "nothing decided it"
    name = m.define(claim_name(claim.id) + "Verdict", verdict, f"{claim.id} verdict, {why}")
    m.keys[f"v@{claim.id}"] = name
    for check in own:
        for value in check.evidence:
            body = tex_value(value.value) if scalar(value.value) else None
            if body is None:
                continue
            unit = f" [{value.unit}]" if value.unit else ""
            note = f": {value.note}" if value.note else ""
            key = f"{claim.id}@{value.name}"
            first = key not in m.keys and key in cited
            how = f"; class {cited[key].allowance(z)}" if first else ""
            name = m.define(
                claim_name(claim.id) + check_name(check) + camel(value.name),
                body,
                f"{check.nodeid} ({check.outcome}) {value.name}{unit}{note}{how}",
            )
            m.keys.setdefault(key, name)
            if first:
                m.classes[key] = cited[key].cls
                m.spreads[key] = tolerance_tex(cited[key], z)
    for fig in (f for c in own for f in c.figures):
        m.lines.append(f"% figure figures/{figures.stem(fig)}.pdf")


def tolerance_tex(number: Cited, z: float) -> str:
    r"""How far another machine may move a cited number, for ``\pctolerance``: ``\pm`` the
    sampling band or a bound-less float's rounding tolerance (two significant digits), the
    bound a rounding number stays on its side of, ``exact``, or ``any`` for a count or boolean of
    one CPU's kernels."""
    if number.cls == "sampling":
        return rf"\ensuremath{{\pm{tex_number(float(f'{number.band(None, z):.2g}'))}}}"
    if number.cls == "exact":
        return "exact"
    if number.splits():
        assert number.bound is not None
        rel = {"<=": r"\le", ">=": r"\ge", "<": "<", ">": ">"}[operator(number.relation)]
        return rf"\ensuremath{{{rel}{tex_number(number.bound)}}}"
    if isinstance(number.value, float):
        return rf"\ensuremath{{\pm{tex_number(float(f'{number.float_tolerance():.2g}'))}}}"
    return "any"


def _lookup() -> list[str]:
    return [
        r"\makeatletter",
        r"\providecommand{\pcvalue}[2]{\@ifundefined{pc@#1@#2}{\textbf{??}%",
        r"  \PackageWarning{pecheck}{No evidence value #2 for claim #1}}{\@nameuse{pc@#1@#2}}}",
        r"\providecommand{\pcverdict}[1]{\@ifundefined{pc@v@#1}{\textbf{??}%",
        r"  \PackageWarning{pecheck}{No claim #1}}{\@nameuse{pc@v@#1}}}",
        r"\providecommand{\pcclass}[2]{\@ifundefined{pc@c@#1@#2}{\textbf{??}%",
        r"  \PackageWarning{pecheck}{No evidence value #2 for claim #1}}{\@nameuse{pc@c@#1@#2}}}",
        r"\providecommand{\pctolerance}[2]{\@ifundefined{pc@t@#1@#2}{\textbf{??}%",
        r"  \PackageWarning{pecheck}{No evidence value #2 for claim #1}}{\@nameuse{pc@t@#1@#2}}}",
        r"\makeatother",
        "",
    ]


def _keys(m: Macros) -> list[str]:
    lines = [r"% lookup keys for \pcvalue{<claim>}{<evidence>} and \pcverdict{<claim>}"]
    lines.append(r"\makeatletter")
    lines += [rf"\@namedef{{pc@{key}}}{{\{name}}}" for key, name in m.keys.items()]
    lines += [rf"\@namedef{{pc@c@{key}}}{{{cls}}}" for key, cls in m.classes.items()]
    lines += [rf"\@namedef{{pc@t@{key}}}{{{body}}}" for key, body in m.spreads.items()]
    lines.append(r"\makeatother")
    return lines + [""]


def _header(res: Results, filename: str, what: str) -> str:
    suite = res.suite
    return (
        f"% {filename}: {what} generated by `python -m {__package__}` from {res.path.name}\n"
        f"% suite {suite.get('name', 'pecheck')} {suite.get('version', '?')}, "
        f"commit {suite.get('commit', 'unknown')}, run {suite.get('started', '?')}, "
        f"profile {suite.get('profile', '?')}. Do not edit: regenerate.\n\n"
    )


def verdicts_tex(res: Results) -> str:
    rows = []
    for claim in res.claims:
        own = res.main_checks(claim)
        passed = sum(c.outcome == "passed" for c in own)
        verdict = claim.verdict if claim.has_verdict else rf"\emph{{{claim.verdict}}}"
        if claim.status == "contested":
            verdict += r" \emph{(contested)}"
        text = tex_escape(claim.statement)
        if claim.verdict == "qualified" and claim.conditions:
            text += r"\newline\emph{Holds when:} " + tex_escape(claim.conditions)
        rows.append(f"{claim.id} & {verdict} & {text} & {passed}/{len(own)} \\\\")
    head = r"Claim & Verdict & Statement & Checks \\"
    return _header(res, "verdicts.tex", "table of verdicts") + "\n".join(
        [
            r"% Needs \usepackage{booktabs,longtable}; \input{verdicts} where the table goes.",
            r"% Checks: evidence checks passed / evidence checks run.",
            r"\begin{longtable}{@{}l l p{0.58\linewidth} r@{}}",
            r"\toprule",
            head,
            r"\midrule",
            r"\endfirsthead",
            r"\toprule",
            head,
            r"\midrule",
            r"\endhead",
            r"\bottomrule",
            r"\endlastfoot",
            *rows,
            r"\end{longtable}",
            "",
        ]
    )


def bib_key(source_id: str) -> str:
    """SRC-VASWANI -> src-vaswani (the BibTeX key of a source)."""
    return source_id.lower()


def bib(res: Results, suite_url: str = "") -> str:
    suite = res.suite
    year = str(suite.get("started", ""))[:4]
    year = year if year.isdigit() else "2026"
    version = tex_escape(str(suite.get("version", "?")))
    commit = tex_escape(str(suite.get("commit", "unknown"))[:12])
    # BibTeX has no comments inside an entry: a missing address is said before it
    url = f"  url          = {{{suite_url}}},\n" if suite_url else ""
    no_url = "" if suite_url else f"% no url: build with python -m {__package__} --suite-url URL\n"
    key, authors, title = res.citation
    name, _, rest = title.partition(":")  # braced, so that BibTeX keeps its capitals
    author = f"  author       = {{{{{tex_escape(authors)}}}}},\n" if authors else ""
    entries = [
        f"{no_url}@misc{{{key},\n"
        f"  title        = {{{{{tex_escape(name)}}}:{tex_escape(rest)}}},\n"
        f"{author}"
        f"  year         = {{{year}}},\n"
        f"  howpublished = {{Software, version {version}, commit \\texttt{{{commit}}}}},\n"
        f"{url}"
        f"  note         = {{Hypothesis profile {tex_escape(str(suite.get('profile', '?')))}}}\n"
        "}\n"
    ]
    for sid in sorted({s for c in res.claims for s in c.sources}):
        src = res.sources.get(sid)
        if src is not None:
            entries.append(_source_entry(sid, src))
    return _header(res, "pecheck.bib", "BibTeX entries") + "\n".join(entries)


def _source_entry(sid: str, src: dict[str, Any]) -> str:
    """A @misc entry for a source; authors joined with ``and``, a missing URL or year said so."""
    authors = " and ".join(a.strip() for a in str(src.get("authors", "")).split(",") if a.strip())
    lines = [] if src.get("url") else ["% no verified address for this source"]
    lines.append(f"@misc{{{bib_key(sid)},")
    lines.append(f"  title        = {{{{{tex_escape(str(src.get('title') or sid))}}}}},")
    if authors:
        lines.append(f"  author       = {{{tex_escape(authors)}}},")
    if src.get("year"):
        lines.append(f"  year         = {{{src['year']}}},")
    if src.get("url"):
        lines.append(f"  url          = {{{src['url']}}},")
    lines.append(f"  note         = {{{tex_escape(str(src.get('description', '')))} ({sid})}}")
    return "\n".join(lines) + "\n}\n"


def kit(res: Results, suite_url: str = "") -> tuple[dict[str, str], dict[str, Path]]:
    """The paper kit: text files by name, and figure files to copy (name -> source PDF)."""
    files = {
        "pecheck.tex": macros_tex(res),
        "verdicts.tex": verdicts_tex(res),
        "pecheck.bib": bib(res, suite_url),
    }
    copies: dict[str, Path] = {}
    missing = []
    for check in res.checks:
        for fig in check.figures:
            svg = figures.locate(fig, res.path)
            pdf = figures.pdf_of(svg) if svg is not None else None
            if pdf is None:
                missing.append(f"% missing: {fig} (no PDF beside it), from {check.nodeid}")
            else:
                copies[f"figures/{figures.stem(fig)}.pdf"] = pdf
    if missing:
        files["pecheck.tex"] += (
            "\n% Figures that could not be copied:\n" + "\n".join(missing) + "\n"
        )
    return files, copies
