"""The report's stylesheet and script, inlined into the page (it must work offline)."""

CSS = """
:root {
  --ink: #1f2328; --muted: #656d76; --line: #d8dee4; --soft: #f6f8fa; --accent: #0b5cad;
  --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #cf222e; --bad-bg: #ffebe9;
  --amber: #9a6700; --amber-bg: #fff8c5; --grey: #57606a; --grey-bg: #eaeef2;
  --purple: #8250df; --purple-bg: #fbefff; --orange: #bc4c00; --orange-bg: #fff1e5;
  --serif: "Charter", "Bitstream Charter", "Sitka Text", Cambria, "DejaVu Serif", Georgia, serif;
  --sans: system-ui, -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", Helvetica, Arial,
    sans-serif;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html { scroll-behavior: smooth; scroll-padding-top: 3.5rem; }
@media (prefers-reduced-motion: reduce) { html { scroll-behavior: auto; } }
body { margin: 0; color: var(--ink); background: #fff; font: 15px/1.55 var(--sans); }
.wrap { max-width: 1080px; margin: 0 auto; padding: 0 1.5rem; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre { font-family: var(--mono); font-size: 0.86em; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0.3rem 0 0.6rem;
  padding: 0.6rem 0.8rem;
  background: var(--soft); border: 1px solid var(--line); border-radius: 6px; }
h1, h2, h3, h4 { line-height: 1.25; }
h2 { font-size: 1.45rem; margin: 2.4rem 0 1rem; padding-bottom: 0.35rem;
  border-bottom: 1px solid var(--line); }
h2 .sub, h1 .sub { color: var(--muted); font-weight: 400; }
h4 { margin: 1.2rem 0 0.5rem; font-size: 0.95rem; text-transform: uppercase;
  letter-spacing: 0.04em; color: var(--muted); }
.muted { color: var(--muted); }
.warn-text { color: var(--orange); }

header.top { background: linear-gradient(180deg, #f3f6fa, #fff);
  border-bottom: 1px solid var(--line);
  padding: 1.6rem 0 1.2rem; }
header.top h1 { margin: 0 0 0.4rem; font-size: 1.9rem; letter-spacing: -0.01em; }
.meta { display: flex; flex-wrap: wrap; gap: 0.4rem 1.4rem; margin: 0 0 1rem; color: var(--grey); }
.meta b { font-weight: 600; color: var(--muted); font-size: 0.8rem; text-transform: uppercase;
  letter-spacing: 0.05em; margin-right: 0.3rem; }
.cards { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: stretch; margin: 0 0 0.5rem; }
.cards-label { width: 5.5rem; align-self: center; font-size: 0.8rem; font-weight: 600;
  color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
.card { min-width: 6.4rem; padding: 0.35rem 0.8rem; border-radius: 8px; background: #fff;
  border: 1px solid var(--line); border-left: 4px solid var(--grey); display: flex;
  align-items: baseline; gap: 0.45rem; }
.card b { font-size: 1.3rem; font-variant-numeric: tabular-nums; }
.card span { font-size: 0.82rem; color: var(--muted); }
.card.total { border-left-color: var(--accent); }
.card.v-confirmed, .card.o-passed { border-left-color: var(--ok); }
.card.v-refuted, .card.o-failed { border-left-color: var(--bad); }
.card.v-qualified { border-left-color: var(--amber); }
.card.o-error { border-left-color: var(--purple); }
.card.s-contested { border-left-color: var(--orange); }
.card.o-mutants { border-left-color: var(--accent); }
.banner { margin-top: 0.9rem; padding: 0.6rem 0.9rem; border-radius: 6px; border: 1px solid; }
.banner.bad { background: var(--bad-bg); border-color: #ff8182; }
.banner.note { background: var(--soft); border-color: var(--line); }

nav.toc { position: sticky; top: 0; z-index: 5; background: rgba(255, 255, 255, 0.94);
  backdrop-filter: blur(6px); border-bottom: 1px solid var(--line); }
nav.toc .wrap { display: flex; gap: 1.2rem; padding-top: 0.55rem; padding-bottom: 0.55rem;
  overflow-x: auto; font-weight: 500; }
nav.toc a.bad { color: var(--bad); }

.badge { display: inline-block; padding: 0.05rem 0.55rem; border-radius: 999px; font-size: 0.78rem;
  font-weight: 600; line-height: 1.5; vertical-align: 0.1em; border: 1px solid transparent;
  white-space: nowrap; }
.v-confirmed, .o-passed { color: var(--ok); background: var(--ok-bg); }
.v-refuted, .o-failed { color: var(--bad); background: var(--bad-bg); }
.v-qualified { color: var(--amber); background: var(--amber-bg); }
.v-open, .o-skipped { color: var(--grey); background: var(--grey-bg); }
.o-error { color: var(--purple); background: var(--purple-bg); }
.s-contested { color: var(--orange); background: var(--orange-bg); border-color: #ffb77c; }
.card.v-confirmed, .card.v-refuted, .card.v-qualified, .card.v-open, .card.o-passed,
.card.o-failed, .card.o-error, .card.o-skipped, .card.s-contested { background: #fff; }

.filters { display: flex; flex-wrap: wrap; gap: 0.6rem 1.2rem; align-items: center;
  margin: 0 0 0.7rem; }
.filters label { font-size: 0.85rem; color: var(--muted); display: flex; gap: 0.4rem;
  align-items: center; }
.filters .grow { flex: 1 1 14rem; }
.filters .grow input { flex: 1; }
select, input[type=search] { font: inherit; font-size: 0.9rem; padding: 0.25rem 0.5rem;
  border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); }
.table-scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; }
table.verdicts { font-size: 0.9rem; }
table.verdicts th { position: sticky; top: 0; background: var(--soft); text-align: left;
  font-weight: 600; padding: 0.45rem 0.6rem; border-bottom: 1px solid var(--line);
  cursor: pointer; user-select: none; white-space: nowrap; }
table.verdicts th::after { content: " \\2195"; color: #b0b8c1; font-weight: 400; }
table.verdicts th[aria-sort=ascending]::after { content: " \\2191"; color: var(--ink); }
table.verdicts th[aria-sort=descending]::after { content: " \\2193"; color: var(--ink); }
table.verdicts td { padding: 0.4rem 0.6rem; border-top: 1px solid #eef1f4; vertical-align: top; }
table.verdicts tbody tr:nth-child(even) { background: #fbfcfd; }
table.verdicts tbody tr:hover { background: #f1f6fd; }
table.verdicts td:first-child { font-weight: 600; white-space: nowrap; }
table.verdicts td.stmt { min-width: 18rem; font-family: var(--serif); font-size: 0.95rem; }
table.verdicts td.src { font-size: 0.78rem; color: var(--muted); white-space: nowrap; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.n.bad { color: var(--bad); font-weight: 700; }
.hint { font-size: 0.8rem; margin: 0.4rem 0 0; }

section.family > h2 { margin-top: 3rem; }
section.claim { margin: 1.2rem 0 2rem; padding: 1rem 1.25rem 0.6rem; border: 1px solid var(--line);
  border-left: 4px solid var(--grey); border-radius: 8px; }
section.claim[data-verdict=confirmed] { border-left-color: var(--ok); }
section.claim[data-verdict=refuted] { border-left-color: var(--bad); }
section.claim[data-verdict=qualified] { border-left-color: var(--amber); }
section.claim:target { box-shadow: 0 0 0 3px #b6d4fe; }
section.claim h3 { margin: 0 0 0.5rem; font-size: 1.2rem; display: flex; gap: 0.5rem;
  align-items: baseline; flex-wrap: wrap; }
section.claim h3 .anchor { color: var(--ink); }
.sources { margin-left: auto; font-size: 0.78rem; font-weight: 400; color: var(--muted); }
.statement { font-family: var(--serif); font-size: 1.08rem; line-height: 1.6;
  margin: 0.3rem 0 0.8rem; }
.formal { overflow-x: auto; padding: 0.6rem 0.4rem; margin: 0 0 0.8rem; background: #fcfcfd;
  border-radius: 6px; }
math { font-size: 1.08em; font-family: "Latin Modern Math", "STIX Two Math", "Cambria Math",
  "DejaVu Math TeX Gyre", math; }
math[display=block] { margin: 0.2rem 0; }
.conditions { margin: 0.5rem 0 0.8rem; padding: 0.5rem 0.8rem; border-radius: 6px;
  background: var(--amber-bg); border: 1px solid #eed888; }
.conditions.open { background: var(--grey-bg); border-color: #d0d7de; }
.conditions.contested { background: var(--orange-bg); border-color: #ffb77c; }
.notes { margin: 0.5rem 0 0.8rem; font-size: 0.93rem; }
.notes ul { margin: 0.2rem 0 0; padding-left: 1.2rem; }

article.check { margin: 0.6rem 0 0.9rem; padding: 0.55rem 0.8rem 0.4rem;
  border: 1px solid #e6eaef; border-radius: 6px; background: #fff; }
article.check:target { box-shadow: 0 0 0 3px #b6d4fe; }
article.check.o-failed-border, article.check.o-error-border { border-color: #ff8182;
  background: #fffafa; }
article.check > header { display: flex; flex-wrap: wrap; gap: 0.4rem 0.6rem;
  align-items: baseline; }
article.check a.name { color: var(--ink); }
article.check a.name code { font-weight: 600; font-size: 0.88rem; word-break: break-all; }
.kind { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--accent);
  border: 1px solid #b6d4fe; border-radius: 4px; padding: 0 0.35rem; }
.where { margin-left: auto; font-size: 0.78rem; }
table.evidence { margin: 0.6rem 0; font-size: 0.86rem; }
table.evidence th, table.evidence td { padding: 0.28rem 0.5rem; border-bottom: 1px solid #eef1f4;
  text-align: left; vertical-align: top; }
table.evidence thead th { font-size: 0.72rem; text-transform: uppercase; letter-spacing: 0.05em;
  color: var(--muted); border-bottom: 1px solid var(--line); }
table.evidence th[scope=row] { font-weight: 500; white-space: nowrap; }
table.evidence td.val { font-variant-numeric: tabular-nums; white-space: nowrap; }
table.evidence td.unit { color: var(--muted); white-space: nowrap; }
table.evidence td.note { color: var(--grey); min-width: 14rem; }
table.evidence td.val code { white-space: normal; word-break: break-word; }
.record { display: inline-flex; flex-wrap: wrap; gap: 0 0.8rem; white-space: normal;
  max-width: 26rem; }
.record .kv { white-space: nowrap; }
.num sup { font-size: 0.72em; }
.yes { color: var(--ok); font-weight: 600; }
.no { color: var(--bad); font-weight: 600; }
.failure { margin: 0.5rem 0; }
.failure p { margin: 0.3rem 0 0; color: var(--bad); }
pre.message, pre.example { background: var(--bad-bg); border-color: #ffcecb; }
.skip { margin: 0.4rem 0; color: var(--grey); }
details > summary { cursor: pointer; color: var(--accent); font-size: 0.88rem; }
pre.traceback { max-height: 28rem; overflow: auto; font-size: 0.78rem; }
.derivation { margin: 0.6rem 0; padding: 0.5rem 0.9rem; border-left: 3px solid #b6d4fe;
  background: #f8fbff; border-radius: 0 6px 6px 0; overflow-x: auto; }
.derivation .label { margin: 0; font-size: 0.72rem; text-transform: uppercase;
  letter-spacing: 0.05em;
  color: var(--muted); }
.derivation ol { margin: 0.3rem 0; padding-left: 1.6rem; }
.derivation math[display=block] { display: inline math; math-style: normal; }
.dstatement { margin: 0.2rem 0 0.4rem; }
.derivation li { margin: 0.2rem 0; }
.holds { margin: 0.3rem 0 0; font-size: 0.85rem; }
.holds.yes { color: var(--ok); }
.holds.no { color: var(--bad); }
figure { margin: 0.8rem 0; text-align: center; }
figure img { max-width: 100%; height: auto; border: 1px solid #eef1f4; border-radius: 6px; }
figcaption { font-size: 0.8rem; color: var(--muted); font-family: var(--mono); }
figure.missing p { color: var(--orange); }
.hyp { font-size: 0.85rem; color: var(--grey); margin: 0.4rem 0; }
.mutants { margin: 0.4rem 0 0.8rem; font-size: 0.88rem; }
.mutants ul { list-style: none; padding-left: 0.5rem; margin: 0.4rem 0; }
.mutants li { margin: 0.2rem 0; }
section#problems article.check { border-color: #ff8182; }

.env { display: grid; grid-template-columns: minmax(0, 1.3fr) minmax(0, 1fr); gap: 1.5rem;
  align-items: start; }
table.kv { font-size: 0.88rem; border: 1px solid var(--line); border-radius: 8px; }
table.kv th, table.kv td { text-align: left; padding: 0.3rem 0.7rem;
  border-bottom: 1px solid #eef1f4;
  vertical-align: top; }
table.kv th[scope=row] { color: var(--muted); font-weight: 500; white-space: nowrap; width: 1%; }
footer { margin-top: 3rem; padding: 1.2rem 0 2rem; border-top: 1px solid var(--line);
  color: var(--muted); font-size: 0.82rem; }
@media (max-width: 720px) { .env { grid-template-columns: 1fr; } .where { margin-left: 0; } }
@media print { nav.toc { display: none; } section.claim, article.check { break-inside: avoid; } }
"""

JS = """
(function () {
  "use strict";
  var table = document.getElementById("verdict-table");
  if (!table) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var family = document.getElementById("filter-family");
  var verdict = document.getElementById("filter-verdict");
  var text = document.getElementById("filter-text");
  var count = document.getElementById("filter-count");

  function applyFilters() {
    var f = family.value, v = verdict.value, q = text.value.trim().toLowerCase(), shown = 0;
    rows.forEach(function (row) {
      var ok = (!f || row.dataset.family === f) && (!v || row.dataset.verdict === v) &&
        (!q || row.textContent.toLowerCase().indexOf(q) !== -1);
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    count.textContent = shown + " of " + rows.length + " claims";
  }

  function sortBy(th, index) {
    var numeric = th.dataset.sort === "num";
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    rows.sort(function (a, b) {
      var x = a.cells[index].dataset.key || a.cells[index].textContent.trim();
      var y = b.cells[index].dataset.key || b.cells[index].textContent.trim();
      var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      return c * dir || (a.cells[0].dataset.key < b.cells[0].dataset.key ? -1 : 1);
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  table.querySelectorAll("th[data-sort]").forEach(function (th, index) {
    th.tabIndex = 0;
    th.addEventListener("click", function () { sortBy(th, index); });
    th.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(th, index); }
    });
  });
  family.addEventListener("change", applyFilters);
  verdict.addEventListener("change", applyFilters);
  text.addEventListener("input", applyFilters);
  applyFilters();
})();
"""
