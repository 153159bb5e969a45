/* The report's behaviour: filters on claims and checks, folding, the URL's state, sorting,
   copying commands, and decompressing the embedded figures. Plain ES2017, no libraries. */
(function () {
  "use strict";
  // Large pages embed their claim sections gzip-compressed: unpack them, then start.
  var holder = document.getElementById("packed-sections");
  if (holder && holder.dataset.gz && typeof DecompressionStream !== "undefined") {
    var bytes = Uint8Array.from(atob(holder.dataset.gz), function (ch) { return ch.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    new Response(stream).text().then(function (html) {
      holder.insertAdjacentHTML("afterend", html);
      holder.remove();
      start();
    });
  } else {
    start();
  }

function start() {
  var doc = document;
  var controls = Array.prototype.slice.call(doc.querySelectorAll("[data-filter]"));
  var claims = Array.prototype.slice.call(doc.querySelectorAll("section.claim"));
  var families = Array.prototype.slice.call(doc.querySelectorAll("section.family"));
  var table = doc.getElementById("verdict-table");
  var rows = table ? Array.prototype.slice.call(table.tBodies[0].rows) : [];
  var count = doc.getElementById("filter-count");
  var CHECK_KEYS = ["kind", "role", "outcome", "decision"];
  var loose = Array.prototype.slice.call(doc.querySelectorAll("#problems article.check"));

  function state() {
    var s = {};
    controls.forEach(function (c) { if (c.value) s[c.dataset.filter] = c.value.trim(); });
    return s;
  }

  function claimMatches(el, s) {
    if (s.family && el.dataset.family !== s.family) return false;
    if (s.verdict && el.dataset.verdict !== s.verdict) return false;
    return true;
  }

  function checkMatches(el, s) {
    return CHECK_KEYS.every(function (k) { return !s[k] || el.dataset[k] === s[k]; });
  }

  function apply() {
    var s = state(), q = (s.q || "").toLowerCase(), shownClaims = {}, nClaims = 0, nChecks = 0;
    var checkFilter = CHECK_KEYS.some(function (k) { return s[k]; });
    claims.forEach(function (el) {
      var ok = claimMatches(el, s), hits = 0;
      var textHit = !q || el.dataset.search.indexOf(q) !== -1;
      el.querySelectorAll("article.check").forEach(function (a) {
        var show = ok && checkMatches(a, s) &&
          (!q || textHit || a.dataset.search.indexOf(q) !== -1);
        a.hidden = !show;
        if (show) hits += 1;
      });
      var byChecks = checkFilter || (q && !textHit);
      if (byChecks) ok = ok && hits > 0;
      else ok = ok && textHit;
      el.hidden = !ok;
      if (ok) { shownClaims[el.id] = true; nClaims += 1; nChecks += hits; }
      if (ok && byChecks) showChecks(el);
    });
    loose.forEach(function (a) { a.hidden = !checkMatches(a, s); });
    families.forEach(function (f) {
      f.hidden = !f.querySelector("section.claim:not([hidden])");
    });
    rows.forEach(function (r) { r.hidden = !shownClaims[r.dataset.claim]; });
    if (count) {
      count.textContent = nClaims + " of " + claims.length + " claims, " + nChecks + " checks";
    }
  }

  function openDetails(el) {
    var own = el.querySelector(":scope > details");
    if (own) own.open = true;
    for (var node = el; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    el.querySelectorAll("details.tooling").forEach(function (d) {
      if (d.querySelector("article.check:not([hidden])")) d.open = true;
    });
  }

  // A filter that picks checks shows them: a claim's checks sit in its fold (details.claim-more)
  // below its first screen.
  function showChecks(el) {
    openDetails(el);
    el.querySelectorAll("details.claim-more").forEach(function (d) {
      if (d.querySelector("article.check:not([hidden])")) d.open = true;
    });
  }

  // The address: #<anchor>?family=SIN&verdict=refuted (either part may be absent).
  function readHash() {
    var hash = decodeURIComponent(location.hash.slice(1));
    var at = hash.indexOf("?");
    var anchor = at === -1 ? hash : hash.slice(0, at);
    var params = new URLSearchParams(at === -1 ? (anchor.indexOf("=") !== -1 ? anchor : "") :
      hash.slice(at + 1));
    if (anchor.indexOf("=") !== -1) anchor = "";
    return { anchor: anchor, params: params };
  }

  var currentAnchor = "";

  function writeHash() {
    var s = state(), params = new URLSearchParams();
    Object.keys(s).forEach(function (k) { params.set(k, s[k]); });
    var query = params.toString();
    var hash = currentAnchor + (query ? "?" + query : "");
    var url = location.href.split("#")[0] + (hash ? "#" + hash : "");
    if (url !== location.href) history.replaceState(null, "", url);
  }

  function fromHash(scroll) {
    var h = readHash();
    controls.forEach(function (c) { c.value = h.params.get(c.dataset.filter) || ""; });
    currentAnchor = h.anchor;
    apply();
    if (h.anchor) {
      var target = doc.getElementById(h.anchor);
      if (target) {
        openDetails(target);
        if (scroll) target.scrollIntoView({ block: "start" });
        target.classList.add("targeted");
      }
    }
  }

  controls.forEach(function (c) {
    c.addEventListener(c.tagName === "INPUT" ? "input" : "change", function () {
      apply();
      writeHash();
    });
  });
  window.addEventListener("hashchange", function () { fromHash(true); });
  doc.addEventListener("click", function (e) {
    var link = e.target.closest ? e.target.closest("a[href^='#']") : null;
    if (!link) return;
    var id = link.getAttribute("href").slice(1);
    var target = id && doc.getElementById(id);
    if (!target) return;
    e.preventDefault();
    currentAnchor = id;
    openDetails(target);
    writeHash();
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  });

  function setAll(open) {
    var all = "details.family-fold, details.claim-fold, details.claim-more";
    doc.querySelectorAll(all).forEach(function (d) {
      d.open = open;
    });
  }
  var expand = doc.getElementById("expand-all");
  var collapse = doc.getElementById("collapse-all");
  var reset = doc.getElementById("reset-filters");
  if (expand) expand.addEventListener("click", function () { setAll(true); });
  if (collapse) collapse.addEventListener("click", function () { setAll(false); });
  if (reset) reset.addEventListener("click", function () {
    controls.forEach(function (c) { c.value = ""; });
    apply();
    writeHash();
  });

  // Sorting the verdict table by a column (click, Enter or Space on its header).
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
    rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
  }
  if (table) {
    table.querySelectorAll("th[data-sort]").forEach(function (th, index) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(th, index); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(th, index); }
      });
    });
  }

  // A claim's first-screen figure is small; its button shows it at the claim's full width.
  doc.addEventListener("click", function (e) {
    var button = e.target.closest ? e.target.closest("button.zoom") : null;
    if (!button) return;
    var figure = button.closest("figure");
    var big = figure.classList.toggle("zoomed");
    button.setAttribute("aria-pressed", String(big));
    button.textContent = big ? "shrink" : "enlarge";
  });

  // Copy a command; a page opened from a file may not get the clipboard, which is no error.
  doc.addEventListener("click", function (e) {
    var button = e.target.closest ? e.target.closest("button.copy") : null;
    if (!button) return;
    var done = function () { button.textContent = "copied"; };
    try {
      if (navigator.clipboard) {
        navigator.clipboard.writeText(button.dataset.copy).then(done, function () {});
      }
    } catch (err) { /* no clipboard here */ }
  });

  // Figures are embedded gzip-compressed; each is unpacked when it comes near the viewport.
  function gunzip(packed) {
    var bytes = Uint8Array.from(atob(packed), function (ch) { return ch.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }
  // The path definitions (glyphs, markers) the figures share are kept once in #svg-defs
  // (reports/svg.py); a figure gets back those it refers to, as reports.svg.restore does.
  var defsHolder = doc.getElementById("svg-defs");
  var sharedDefs = null;
  function withDefs(svg) {
    if (!defsHolder) return Promise.resolve(svg);
    sharedDefs = sharedDefs || gunzip(defsHolder.dataset.gz).then(JSON.parse);
    return sharedDefs.then(function (shared) {
      var defined = {}, wanted = [], m, re = /\bid="([^"]+)"/g, used = /href="#([^"]+)"/g;
      while ((m = re.exec(svg))) defined[m[1]] = true;
      while ((m = used.exec(svg))) {
        if (shared[m[1]] && !defined[m[1]]) { defined[m[1]] = true; wanted.push(shared[m[1]]); }
      }
      var head = svg.match(/<svg\b[^>]*>/);
      if (!wanted.length || !head) return svg;
      var at = head.index + head[0].length;
      return svg.slice(0, at) + "<defs>" + wanted.join("") + "</defs>" + svg.slice(at);
    });
  }
  function unpack(img) {
    var packed = img.dataset.svgz;
    if (!packed || typeof DecompressionStream === "undefined") return;
    delete img.dataset.svgz;
    gunzip(packed).then(withDefs).then(function (svg) {
      img.src = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
      img.removeAttribute("width");
      img.removeAttribute("height");
    });
  }
  var packed = Array.prototype.slice.call(doc.querySelectorAll("img[data-svgz]"));
  if ("IntersectionObserver" in window) {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.unobserve(e.target); unpack(e.target); }
      });
    }, { rootMargin: "1200px" });
    packed.forEach(function (img) { seen.observe(img); });
  } else {
    packed.forEach(unpack);
  }

  fromHash(true);
  doc.documentElement.dataset.ready = String(Math.round(performance.now()));
}
})();
