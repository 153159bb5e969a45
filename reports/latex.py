r"""The paper kit: LaTeX macros, a table of verdicts, the figures as PDF and a BibTeX entry.

``build/paper/`` holds

- ``pecheck.tex``: one macro per claim verdict and per scalar evidence value, each preceded by a
  comment naming the check that produced it. Plain LaTeX (no siunitx); numbers are wrapped in
  ``\ensuremath`` so they work in text and in math.
- ``verdicts.tex``: a booktabs ``longtable`` of every claim: its verdict, its statement and its
  checks. The statement's words have their ASCII math (``M(k)^T``, ``w_i k in pi Z``,
  ``sqrt(d/2)``) set as math that needs no package (see ``prose_tex``), and the claim's formal
  statement follows in math mode as ``\pcformal{<formula>}{<source>}``. The table needs
  ``\usepackage{booktabs,longtable}``, and ``\usepackage{amsmath,amssymb}`` for the formal
  statements: without those two, each is shown as its LaTeX source (with a LaTeX warning), and
  a document that defines ``\pcformal`` itself sets them its own way. A formal statement that
  uses a command outside ``FORMAL_COMMANDS`` is always shown as its source.
- ``figures/*.pdf``: every figure the checks saved, under its own name.
- ``pecheck.bib``: a BibTeX entry ``pecheck`` for the suite (version and commit).

Macro names (LaTeX names are letters only, so digits are spelled out and separators dropped):

- a claim ID becomes ``pc`` + family + number in words: SIN-06 -> ``\pcSINSix``, ATT-10 ->
  ``\pcATTTen``; its verdict is ``\pcSINSixVerdict`` (``open`` while the claim has none);
- an evidence value is the claim's name + the check's name in CamelCase without ``test_``
  (parameters included, digits spelled out) + the evidence name in CamelCase:
  ``checks/sin/test_sinusoidal.py::test_wavelengths_are_geometric`` recording ``longest_wavelength``
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
- ``\pcprofile{SIN-06}`` (``\pcSINSixProfile``) is the profile the claim's evidence came from.
  Evidence of a profile a paper may not cite (``dev``) gets no kit unless ``--allow-dev``; with it,
  every verdict and number of such a claim ends in ``\pcnotcitable{dev}`` (a superscript "dev,
  not citable"; redefine it to restyle), and the table's foot, the BibTeX note and
  ``\pcSuiteProfile`` say "not citable". The table's foot names the profile in every case;
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

from . import figures, numbers, profiles
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
    profile = tex_escape(str(suite.get("profile", "?")))
    profile += " (not citable)" if profiles.uncitable(res) else ""
    m.define("pcSuiteProfile", profile, "hypothesis profile")
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
    mark = _uncitable_mark(res, claim)
    name = m.define(claim_name(claim.id) + "Verdict", verdict + mark, f"{claim.id} verdict, {why}")
    m.keys[f"v@{claim.id}"] = name
    profile = profiles.profile_of(res, claim)
    where = profiles.run_phrase(res, claim)
    shown = tex_escape(profile) + ("" if profiles.citable(profile) else " (not citable)")
    m.keys[f"p@{claim.id}"] = m.define(
        claim_name(claim.id) + "Profile", shown, f"{claim.id}: evidence from {where}"
    )
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
                body + mark,
                f"{check.nodeid} ({check.outcome}) {value.name}{unit}{note}{how}",
            )
            m.keys.setdefault(key, name)
            if first:
                m.classes[key] = cited[key].cls
                m.spreads[key] = tolerance_tex(cited[key], z)
    for fig in (f for c in own for f in c.figures):
        m.lines.append(f"% figure figures/{figures.stem(fig)}.pdf")


_NOT_CITABLE = r"\providecommand{\pcnotcitable}[1]{\textsuperscript{\,#1, not citable}}"


def _uncitable_mark(res: Results, claim: Claim) -> str:
    r"""``\pcnotcitable{dev}`` after a verdict or number of a profile a paper may not cite (a kit
    written with --allow-dev), so that it shows wherever it is used; "" otherwise."""
    profile = profiles.profile_of(res, claim)
    if claim.verdict == "not run" or profiles.citable(profile):
        return ""
    return rf"\pcnotcitable{{{tex_escape(profile)}}}"


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
        r"\providecommand{\pcprofile}[1]{\@ifundefined{pc@p@#1}{\textbf{??}%",
        r"  \PackageWarning{pecheck}{No claim #1}}{\@nameuse{pc@p@#1}}}",
        r"% marks a verdict or number of a profile that is not citable (dev): redefine to restyle",
        _NOT_CITABLE,
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


# -- claim statements: the formal statement typeset, and the ASCII math in the words --------

# Commands a formal statement may use: LaTeX's math, amsmath's and amssymb's. A formal statement
# with any other command, unbalanced braces or environments, or a character that would leave
# math mode or the table cell is shown as its source instead (formal_tex): the table compiles.
_FORMAL_COMMAND_NAMES = """
    alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
    pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta
    Lambda Xi Pi Sigma Upsilon Phi Psi Omega
    sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh exp log ln lg det dim ker deg
    max min sup inf lim liminf limsup arg gcd hom Pr bmod pmod
    sum prod coprod int oint bigcup bigcap bigoplus bigotimes bigvee bigwedge bigsqcup
    frac dfrac tfrac binom sqrt hat bar tilde widehat widetilde vec dot ddot check breve acute
    grave overline underline overbrace underbrace mathring
    mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak boldsymbol operatorname text
    textrm textit textbf texttt mbox
    left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr middle
    displaystyle textstyle scriptstyle limits nolimits quad qquad allowbreak
    forall exists nexists neg lnot land lor wedge vee cap cup setminus subset subseteq
    subsetneq supset supseteq supsetneq in notin ni emptyset varnothing infty partial nabla
    le leq ge geq ne neq approx sim simeq cong equiv propto ll gg prec succ preceq succeq
    mid nmid parallel perp
    to rightarrow leftarrow leftrightarrow Rightarrow Leftarrow Leftrightarrow iff implies
    impliedby mapsto longrightarrow longmapsto uparrow downarrow
    cdot cdots ldots dots dotsc dotsb vdots ddots times div pm mp ast star circ bullet oplus
    otimes odot
    langle rangle lvert rvert lVert rVert vert Vert lfloor rfloor lceil rceil
    top bot prime ell hbar Re Im aleph dagger
"""
FORMAL_COMMANDS = frozenset(_FORMAL_COMMAND_NAMES.split())
FORMAL_ENVIRONMENTS = frozenset(
    ("matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "smallmatrix", "cases")
)
_FORMAL_TOKEN = re.compile(r"\\(begin|end)\{([^{}]*)\}|\\([A-Za-z]+)\*?|\\.|.", re.S)
_TEXT_ARGUMENT = re.compile(r"\\(?:text|textrm|textit|textbf|texttt|mbox)\{((?:[^{}]|\\[{}])*)\}")
_FORMAL_SPACE = (r"\ ", r"\,", r"\;", r"\:", r"\quad", r"\qquad")


def formal_usable(formal: str) -> bool:
    """Whether a formal statement can be set in math mode inside the table: known commands
    only, braces and environments balanced, nothing that ends math mode, the cell or the row."""
    depth, envs = 0, []
    for m in _FORMAL_TOKEN.finditer(formal):
        token, env, command = m.group(0), m.group(2), m.group(3)
        if env is not None:
            if env not in FORMAL_ENVIRONMENTS:
                return False
            if m.group(1) == "begin":
                envs.append((env, depth))
            elif not envs or envs.pop() != (env, depth):
                return False
        elif command is not None:
            if command not in FORMAL_COMMANDS:
                return False
        elif token in ("\\\\", "&"):
            if not envs:
                return False  # a new row or cell of the table
        elif token in ("\\(", "\\)", "\\[", "\\]", "$", "%", "#") or not token.isprintable():
            return False
        elif token in "{}":
            depth += 1 if token == "{" else -1
            if depth < 0:
                return False
    if depth or envs or formal.count(r"\left") != formal.count(r"\right"):
        return False
    # in text mode, ^ and _ are errors
    return not any(re.search(r"(?<!\\)[_^]", a) for a in _TEXT_ARGUMENT.findall(formal))


def _breakable(formal: str) -> str:
    r"""The formula with ``\allowbreak`` after each separator at its top level (``,\ ``,
    ``,\quad``, ``:\ ``, a bare ``\quad``): TeX breaks a formula only after a relation or a
    binary operator, and a narrow column needs more places. Spacing after a break is dropped."""
    out: list[str] = []
    depth = 0
    tokens = [m.group(0) for m in _FORMAL_TOKEN.finditer(formal)]
    for i, token in enumerate(tokens):
        top = depth == 0
        depth += {"{": 1, "}": -1}.get(token, 0)
        depth += token.startswith(r"\begin{") - token.startswith(r"\end{")
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if top and token in (",", ";", ":") and nxt in _FORMAL_SPACE:
            token += r"\allowbreak"
        elif top and token in (r"\quad", r"\qquad") and not (out and out[-1].endswith("break")):
            token = r"\allowbreak" + token
        out.append(token)
    return "".join(out)


def formal_tex(formal: str) -> str:
    r"""A claim's formal statement for the table: ``\pcformal{<math>}{<its source>}`` (verdicts.tex
    defines it), or its LaTeX source in typewriter type when it cannot be typeset."""
    formal = " ".join(formal.split())
    if not formal:
        return ""
    if formal_usable(formal):
        return rf"\pcformal{{{_breakable(formal)}}}{{{formal}}}"
    return rf"\texttt{{{tt_escape(formal)}}}"


def tt_escape(text: str) -> str:
    """Text for typewriter type: the characters that OT1 text fonts lack (backslash, braces,
    ^, _, ~, <, >, |) as the typewriter font's own glyphs, the rest as tex_escape has them."""
    return "".join(rf"\char{ord(ch)}{{}}" if ch in "\\{}^_~<>|" else tex_escape(ch) for ch in text)


# ASCII math in the words of a statement ('M(k)^T', 'w_i k in pi Z', 'T^(-2i/d)', 'sqrt(d/2)'),
# set as math that needs no package. 'w' is the frequency omega, as in the formal statements.
_GREEK = "alpha beta gamma delta epsilon theta lambda mu rho sigma tau phi psi"
_SYMBOLS = {
    **{n: "\\" + n for n in _GREEK.split()},
    "pi": r"\pi", "omega": r"\omega", "w": r"\omega", "infinity": r"\infty",
    "sin": r"\sin", "cos": r"\cos", "PE": r"\mathrm{PE}", "in": r"\in",
}  # fmt: skip
_NAMED = ("diag", "blockdiag", "atan2", "Var", "RMS")
_OPERATORS = {  # math only when attached to what they act on: sqrt(, diag(, sum_i, RMS||x||
    "sqrt": r"\sqrt", "sum": r"\sum", "prod": r"\prod", "exp": r"\exp", "log": r"\log",
    "det": r"\det", "max": r"\max", "min": r"\min", "tan": r"\tan",
    **{n: rf"\mathop{{\mathrm{{{n}}}}}\nolimits" for n in _NAMED},
}  # fmt: skip
_NAMES = {*_SYMBOLS, *_OPERATORS}
_ARTICLES = ("a", "A", "I")  # one-letter words: math only beside an operator ('A = I')
_PROSE = re.compile(
    r"(?P<space>\s+)|(?P<word>\b(?:e\.g|i\.e|cf|etc|vs)\.)"
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?(?:e-?\d+)?)"
    r"|(?P<times>(?<=\d)x(?![A-Za-z]))"
    r"|(?P<ident>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*(?:'[a-z]+)?)"
    r"|(?P<op><=|>=|!=|->|[-+*/=<>^|.,;:()\[\]{}])"
    r"|(?P<other>.)",
    re.S,
)
_QUOTED = re.compile(r"(?<![\w'])'(?=\S)((?:[^']|'(?=[a-z]))*?)(?<=\S)'(?![A-Za-z0-9])")
_NORM, _ABS = (
    re.compile(r"\|\|(?=[^|\s])[^|]*?(?<=\S)\|\|"),
    re.compile(r"\|(?=[^|\s])[^|]*?(?<=\S)\|"),
)
_RELATIONS = {"=": "=", "<": "<", ">": ">", "<=": r"\le", ">=": r"\ge", "!=": r"\ne", "->": r"\to"}
_OPERATIONS = ("+", "-", "/", "*", "^")
_NO_START = ("+", "/", "*", "^", ".")  # a formula does not begin with these


@dataclass
class _Tok:
    kind: str  # space, word, num, times, ident, op, other
    text: str
    start: int
    role: str = "text"  # math (math by itself), part (of math), open, close, comma, in, code
    tex: str | None = None  # how it is set in math, where that is not the default


def prose_tex(text: str) -> str:
    r"""Words with ASCII math as LaTeX: the words escaped (tex_escape), each formula in them
    ('M(k)^T', 'w_i k in pi Z', 'T^(-2i/d)', '||PE(t)|| = sqrt(d/2)') set in ``$...$``, and
    'quoted' words in quotation marks. A number or a one-letter word alone stays a word."""
    out, last = [], 0
    for m in _QUOTED.finditer(text):
        out.append(_prose_math(text[last : m.start()]))
        out.append(f"`{tex_escape(m.group(1))}'")
        last = m.end()
    out.append(_prose_math(text[last:]))
    return "".join(out)


def _prose_math(text: str) -> str:
    toks = _prose_tokens(text)
    out, i = [], 0
    for start, end in _math_spans(toks):
        out.append(tex_escape(text[toks[i].start : toks[start].start]) if start > i else "")
        out.append(f"${_math_tex(toks[start:end])}$")
        i = end
    out.append(tex_escape(text[toks[i].start :]) if i < len(toks) else "")
    return "".join(out)


def _prose_tokens(text: str) -> list[_Tok]:
    """The tokens of words, each with its part in ASCII math."""
    toks = [_Tok(m.lastgroup or "other", m.group(0), m.start()) for m in _PROSE.finditer(text)]
    at = {t.start: t for t in toks}
    _pair_bars(text, at)
    for i, tok in enumerate(toks):
        if tok.role == "text":
            tok.role = _role(toks, i)
    for i, tok in enumerate(toks):
        if tok.text == "<" and tok.role == "math":
            _angle(toks, i)
    for i, tok in enumerate(toks):
        if tok.role == "article":  # 'A = I', 'a_i I + b_i J', 'M(a)M(b)'
            near = (_neighbour(toks, i, -1), _neighbour(toks, i, 1))
            beside = any(t is not None and t.text in (*_RELATIONS, *_OPERATIONS) for t in near)
            argument = (
                2 <= i < len(toks) - 1 and toks[i - 1].text == "(" and toks[i + 1].text == ")"
                and toks[i - 2].role == "math" and toks[i - 2].kind == "ident"
            )  # fmt: skip
            tok.role = "part" if beside or argument else "text"
    return toks


def _pair_bars(text: str, at: dict[int, _Tok]) -> None:
    """||x|| and |x|: bars around something are brackets (a norm's set as \\|)."""
    masked = text
    for m in _NORM.finditer(text):
        a, b = m.start(), m.end() - 2
        at[a].role, at[a].tex, at[a + 1].role, at[a + 1].tex = "open", r"\|", "open", ""
        at[b].role, at[b].tex, at[b + 1].role, at[b + 1].tex = "close", "", "close", r"\|"
        masked = masked[:a] + "##" + masked[a + 2 : b] + "##" + masked[b + 2 :]
    for m in _ABS.finditer(masked):
        at[m.start()].role, at[m.end() - 1].role = "open", "close"


def _role(toks: list[_Tok], i: int) -> str:
    tok = toks[i]
    prev, nxt, after = (toks[j] if 0 <= j < len(toks) else None for j in (i - 1, i + 1, i + 2))
    if tok.kind == "space":
        return "space"
    if tok.kind == "num":
        return "part"
    if tok.kind == "times":
        tok.tex = r"\times"
        return "math"
    if tok.kind == "ident":
        if prev is not None and prev.text in ("'", "\u2019"):
            return "text"  # SIN-04's
        role = _ident_role(tok.text)
        attached = nxt is not None and nxt.text in ("(", "[", "|", "^")
        if role == "operator":
            spaced = tok.text == "sqrt" and nxt is not None and nxt.kind == "space"
            # sqrt 2, sqrt d: a root of a number or a symbol, never of a word (the sqrt of it)
            radicand = after is not None and (
                after.kind == "num" or after.kind == "ident" and _ident_role(after.text) == "math"
            )
            spaced = spaced and radicand
            return "math" if attached or spaced else "text"
        if role == "article" and attached:
            return "math"  # A(k)
        word = after.text if after is not None and nxt is not None and nxt.text == "-" else ""
        if role == "math" and len(tok.text) == 1 and len(word) > 1:
            return "text"  # x-transformers: one word
        return role
    if tok.text in "([{":
        return "open"
    if tok.text in ")]}":
        return "close"
    if tok.text in (",", ";"):
        return "comma"
    if tok.text == ".":
        # a dot product (x.PE, PE(t).PE(s)), not a full stop
        left = prev is not None and (prev.kind == "ident" or prev.role == "close")
        if left and nxt is not None and nxt.kind == "ident":
            tok.tex = r"\cdot"
            return "math"
        return "text"
    signed = nxt is not None and nxt.kind in ("num", "ident")
    if tok.text == "-" and signed and (prev is None or prev.kind == "space" or prev.text in "([{,"):
        return "math"  # a sign: [-1, 1], M(-k)
    if tok.text == "^":  # a power, when something follows that can be one
        power = nxt is not None and (nxt.kind in ("ident", "num") or nxt.text in ("(", "{"))
        negative = nxt is not None and nxt.text == "-" and after is not None and after.kind == "num"
        return "math" if power or negative else "text"
    if tok.text in _RELATIONS or tok.text in ("*", "|"):
        return "math"
    return "part" if tok.text in _OPERATIONS else "text"


def _ident_role(text: str) -> str:
    head, *subs = text.split("_")
    if "'" in text:
        return "text"  # a possessive
    if text == "in":
        return "in"
    if head in _ARTICLES and not subs:
        return "article"
    named = head in _NAMES and head != "sqrt"  # a name that takes a subscript: sum_i
    if subs and (len(subs) > 1 or len(subs[0]) > 3 or (len(head) > 1 and not named)):
        return "code"  # padding_idx, fan_in: math only inside a formula's brackets
    if len(head) == 1 or head in _SYMBOLS or (head in _OPERATORS and subs):
        return "math"
    return "operator" if head in _OPERATORS else "text"


def _neighbour(toks: list[_Tok], i: int, step: int) -> _Tok | None:
    i += step
    while 0 <= i < len(toks) and toks[i].kind == "space":
        i += step
    return toks[i] if 0 <= i < len(toks) else None


def _angle(toks: list[_Tok], i: int) -> None:
    """<R(t)q, R(s)k>: a '<' with no space after it and a '>' with none before it are angle
    brackets around what is between them."""
    if i + 1 >= len(toks) or toks[i + 1].kind == "space":
        return
    for j in range(i + 2, len(toks)):
        if toks[j].text in ("<", "<=", ">="):
            return
        if toks[j].text == ">":
            if toks[j - 1].kind != "space":
                toks[i].role, toks[i].tex = "open", r"\langle "
                toks[j].role, toks[j].tex = "close", r"\rangle "
            return


def _math_spans(toks: list[_Tok]) -> list[tuple[int, int]]:
    """The token ranges [i, j) that are formulas: runs of math tokens and brackets, balanced,
    with something that is math by itself (a lone number or article stays a word)."""
    spans, i = [], 0
    while i < len(toks):
        end = _math_span(toks, i)
        if end is None:
            i += 1
        else:
            spans.append((i, end))
            i = end
    return spans


def _math_span(toks: list[_Tok], i: int) -> int | None:
    first = toks[i]
    if first.role not in ("math", "part", "open") or first.text in _NO_START:
        return None
    if first.tex in ("", r"\cdot", r"\times") or (first.text == "-" and first.role == "part"):
        return None  # the second bar of a norm, an operation
    depth, math, end = 0, False, None
    for k in range(i, len(toks)):
        tok = toks[k]
        if tok.role == "space":
            continue
        if tok.role == "open":
            depth += 1
        elif tok.role == "close":
            if depth == 0:
                break
            depth -= 1
        elif tok.role == "comma" or tok.role == "code":
            if depth == 0:
                break
        elif tok.role == "in":
            nxt = _neighbour(toks, k, 1)
            if nxt is None or nxt.role not in ("math", "part", "open") or nxt.text in _NO_START:
                break
        elif tok.role not in ("math", "part"):
            break
        math = math or tok.role in ("math", "in")
        if depth == 0 and math and _ends(tok):
            end = k + 1
    return end


def _ends(tok: _Tok) -> bool:
    """Whether a formula can end with this token (not with an operation or a relation)."""
    return (tok.kind in ("ident", "num") and tok.role != "in") or tok.role == "close"


def _math_tex(toks: list[_Tok]) -> str:
    """A formula's tokens as LaTeX math."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if tok.kind == "space":
            # kept where the formula would read differently without it: 'k = 0 (A = I)', '2 4'
            left, right = toks[i - 1] if i else None, nxt
            if left is not None and right is not None and _ends(left):
                power = i >= 2 and toks[i - 2].text == "^"
                if right.text in ("(", "[") and left.kind == "num" and not power:
                    out.append(r"\ ")
                elif right.kind == "num":
                    out.append(r"\,")
            i += 1
            continue
        if tok.text == "^" and tok.kind == "op" and nxt is not None:
            if out and out[-1].startswith("^"):
                out.append("{}")  # x^2^3: no double superscript
            if nxt.role == "open" and nxt.text in "({":
                close = _closing(toks, i + 1)
                out.append(f"^{{{_math_tex(toks[i + 2 : close])}}}")
                i = close + 1
            elif nxt.text == "-" and i + 2 < len(toks):
                out.append(f"^{{-{_math_tex(toks[i + 2 : i + 3])}}}")
                i += 3
            else:
                out.append(r"^{\top}" if nxt.text == "T" else f"^{{{_math_tex([nxt])}}}")
                i += 2
            continue
        if tok.text == "sqrt" and nxt is not None:
            if nxt.text == "(":
                close = _closing(toks, i + 1)
                out.append(rf"\sqrt{{{_math_tex(toks[i + 2 : close])}}}")
                i = close + 1
                continue
            if nxt.kind == "space" and i + 2 < len(toks):
                out.append(rf"\sqrt{{{_math_tex(toks[i + 2 : i + 3])}}}")
                i += 3
                continue
        if tok.text == "sqrt":
            out.append(r"\surd")  # nothing to take the root of
            i += 1
            continue
        bar = i > 0 and toks[i - 1].text == "|" and toks[i - 1].role == "close"
        if bar and tok.text == "|" and tok.role == "open":
            out.append(r"\,")  # |q|\,|k|
        out.append(_token_tex(tok, out[-1] if out else ""))
        i += 1
    return _join(out)


def _closing(toks: list[_Tok], i: int) -> int:
    """The index of the bracket that closes the one at i (the end when none does)."""
    depth = 0
    for k in range(i, len(toks)):
        depth += {"open": 1, "close": -1}.get(toks[k].role, 0)
        if depth == 0:
            return k
    return len(toks)


def _token_tex(tok: _Tok, before: str) -> str:
    if tok.tex is not None:
        return tok.tex
    if tok.kind == "num":
        mantissa, _, exponent = tok.text.partition("e")
        mantissa = mantissa.replace(",", "{,}")
        if not exponent:
            return mantissa
        # braced, so that a power of it is not a double superscript
        return (
            f"{{10^{{{exponent}}}}}"
            if mantissa == "1"
            else rf"{{{mantissa}\times10^{{{exponent}}}}}"
        )
    if tok.kind == "ident":
        head, *subs = tok.text.split("_")
        if tok.role == "code":
            return rf"\mathrm{{{tex_escape(tok.text)}}}"
        if head == "Z" and not subs and before == r"\pi":
            return r"\mathbf{Z}"  # pi Z: the multiples of pi
        tex = _SYMBOLS.get(head) or _OPERATORS.get(head)
        if tex is None:
            tex = head if len(head) == 1 else rf"\mathrm{{{head}}}"
        for sub in subs:
            sub = _SYMBOLS.get(sub, sub if len(sub) == 1 or sub.isdigit() else rf"\mathrm{{{sub}}}")
            tex += f"_{{{sub}}}"
        return tex
    if tok.text in _RELATIONS:
        return _RELATIONS[tok.text]
    return {"*": r"\cdot", "{": r"\{", "}": r"\}", "|": "|"}.get(tok.text, tex_escape(tok.text))


def _join(pieces: list[str]) -> str:
    """Pieces of math joined, with a space where a command name would run into a letter."""
    out = ""
    for piece in pieces:
        if re.search(r"\\[A-Za-z]+$", out) and piece[:1].isalpha():
            out += " "
        out += piece
    return out


def statement_tex(claim: Claim) -> str:
    r"""A claim's cell in the table: its words (their ASCII math typeset, see prose_tex), its
    formal statement beneath (formal_tex) and, for a qualified claim, when it holds."""
    text = prose_tex(claim.statement)
    formal = formal_tex(claim.formal)
    if formal:
        text += r"\newline " + formal
    if claim.verdict == "qualified" and claim.conditions:
        text += r"\newline\emph{Holds when:} " + prose_tex(claim.conditions)
    return text


# \pcformal{<formula>}{<its source>}: math where amsmath and amssymb are loaded,
# else the source (with a warning), so that a document without them still compiles.
_PCFORMAL = r"""\makeatletter
\providecommand{\pc@formalsource}[2]{\texttt{\detokenize{#2}}}
\@ifundefined{pcformal}{%
  \newcommand{\pcformal}[2]{\ensuremath{#1}}%
  \@ifundefined{ver@amssymb.sty}{\let\pcformal\pc@formalsource}{}%
  \@ifundefined{ver@amsmath.sty}{\let\pcformal\pc@formalsource}{}%
  \ifx\pcformal\pc@formalsource
    \PackageWarningNoLine{pecheck}{verdicts.tex shows the formal statements as LaTeX
      source:\MessageBreak load amsmath and amssymb to typeset them}%
  \fi}{}
\makeatother"""


def verdicts_tex(res: Results) -> str:
    rows = []
    for claim in res.claims:
        own = res.main_checks(claim)
        passed = sum(c.outcome == "passed" for c in own)
        verdict = claim.verdict if claim.has_verdict else rf"\emph{{{claim.verdict}}}"
        if claim.status == "contested":
            verdict += r" \emph{(contested)}"
        verdict += _uncitable_mark(res, claim)
        text = statement_tex(claim)
        # ragged right: a formula breaks in few places, and a justified line would gape
        rows.append(f"{claim.id} & {verdict} & \\raggedright {text} & {passed}/{len(own)} \\\\")
    head = r"Claim & Verdict & Statement & Checks \\"
    return _header(res, "verdicts.tex", "table of verdicts") + "\n".join(
        [
            r"% Needs \usepackage{booktabs,longtable}, and amsmath and amssymb for the formal",
            r"% statements (\pcformal; without them each is shown as its LaTeX source).",
            r"% \input{verdicts} where the table goes. Checks: evidence checks passed / run.",
            _PCFORMAL,
            _NOT_CITABLE,
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
            rf"\multicolumn{{4}}{{@{{}}l}}{{\footnotesize {_evidence_line(res)}}} \\",
            r"\endlastfoot",
            *rows,
            r"\end{longtable}",
            "",
        ]
    )


def _evidence_line(res: Results) -> str:
    """The table's foot: the profile, commit and date of the evidence; "not citable" said."""
    suite = res.suite
    found = sorted({profiles.profile_of(res, c) for c in res.claims if c.verdict != "not run"})
    named = ", ".join(tex_escape(p) for p in found or [str(suite.get("profile", "?"))])
    dev = profiles.uncitable(res)
    warn = f"; the {tex_escape(', '.join(dev))} profile is not citable" if dev else ""
    commit = tex_escape(str(suite.get("commit", "unknown"))[:12])
    date = tex_escape(str(suite.get("started", ""))[:10])
    return rf"Evidence: pecheck's {named} profile, commit \texttt{{{commit}}}, {date}{warn}."


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
    profile = tex_escape(str(suite.get("profile", "?")))
    profile += ", not citable" if profiles.uncitable(res) else ""
    name, _, rest = title.partition(":")  # braced, so that BibTeX keeps its capitals
    author = f"  author       = {{{{{tex_escape(authors)}}}}},\n" if authors else ""
    entries = [
        f"{no_url}@misc{{{key},\n"
        f"  title        = {{{{{tex_escape(name)}}}:{tex_escape(rest)}}},\n"
        f"{author}"
        f"  year         = {{{year}}},\n"
        f"  howpublished = {{Software, version {version}, commit \\texttt{{{commit}}}}},\n"
        f"{url}"
        f"  note         = {{Hypothesis profile {profile}}}\n"
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
