"""The site's one stylesheet and one script, written once into ``assets/``.

Kept small and dependency-free: the site must open from ``file://`` with no network. The
script does three things: sorts tables on a click on a header, unpacks the gzip-compressed
payloads of long texts (``html.packed``), and filters table rows from a search box.
"""

from __future__ import annotations

CSS = """
:root { --fg:#1d2330; --muted:#5d6675; --line:#d9dde4; --bg:#fff; --soft:#f4f6f9;
  --accent:#1f5fbf; --mine:#fff4cc; --weak:#ffc9c2; --freq:#d5ecd4; --good:#1e7b34;
  --bad:#b3261e; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.5 system-ui, "Noto Sans CJK JP", "Hiragino Sans", sans-serif;
  color:var(--fg); background:var(--bg); }
nav { display:flex; gap:1.2em; padding:.6em 1.2em; background:#14213d; }
nav a { color:#fff; text-decoration:none; font-weight:600; }
main { padding:1em 1.5em 2em; max-width:1300px; }
h1 { font-size:1.5em; margin:.2em 0 .4em; } h2 { font-size:1.2em; margin-top:1.6em; }
.subtitle { color:var(--muted); margin-top:0; }
table { border-collapse:collapse; margin:.6em 0; font-variant-numeric:tabular-nums; }
th, td { border-bottom:1px solid var(--line); padding:.25em .6em; text-align:right;
  vertical-align:top; }
/* Fit a 1,280-pixel window: headers wrap, names wrap (anywhere, a model id has no
   spaces), numbers never; a table.narrow also wraps its cells between a number and
   its interval (never inside one). No table scrolls sideways. */
td { white-space:nowrap; }
td.name, td:first-child { white-space:normal; overflow-wrap:anywhere; }
table.narrow td { white-space:normal; overflow-wrap:normal; } .ci { white-space:nowrap; }
table.narrow td, table.narrow th { padding:.25em .4em; }
table.names3 td:nth-child(-n+3), table.names3 th:nth-child(-n+3) { text-align:left;
  min-width:6.5em; }
th { background:var(--soft); position:sticky; top:0; }
td:first-child, th:first-child, td.text, th.text, td.name { text-align:left; }
#questions th:nth-child(2), #differences th:nth-child(2), #judgments th:nth-child(2),
#leaderboard th:nth-child(2) { text-align:left; }
td.text { max-width:48em; white-space:normal; }
table.sortable th { cursor:pointer; user-select:none; }
table.sortable th.asc::after { content:" ▲"; } table.sortable th.desc::after { content:" ▼"; }
tr.mine td { background:var(--mine); font-weight:600; }
tr.flag td { color:var(--muted); }
.ci { color:var(--muted); font-size:.9em; }
.up { color:var(--good); } .down { color:var(--bad); }
a { color:var(--accent); }
footer { border-top:1px solid var(--line); padding:.8em 1.5em; color:var(--muted);
  font-size:.85em; }
footer code, .sig { font-family:ui-monospace, monospace; font-size:.9em; }
.answer { font-size:1.05em; line-height:1.9; background:var(--soft); padding:.5em .7em;
  border-radius:4px; white-space:pre-wrap; word-break:break-all; }
.answer .weak { background:var(--weak); border-bottom:2px solid var(--bad); }
.answer .freq { background:var(--freq); }
.answer .weak.freq { background:var(--weak); }
.answer .past { color:#8a8f98; }
.answer .cut { border-left:2px dashed var(--bad); margin-left:1px; }
.legend span { display:inline-block; padding:0 .4em; margin-right:.6em; border-radius:3px; }
.rule-met { color:var(--good); } .rule-missed { color:var(--bad); font-weight:600; }
.card { border:1px solid var(--line); border-radius:6px; padding:.6em .9em; margin:.8em 0; }
.card h3 { margin:.1em 0 .4em; font-size:1em; }
.refs li { margin:.2em 0; } .muted { color:var(--muted); }
details { margin:.3em 0; } summary { cursor:pointer; }
.judgment { white-space:pre-wrap; background:var(--soft); padding:.4em .6em;
  border-radius:4px; }
.zero { color:var(--bad); font-weight:600; }
.grid { display:flex; flex-wrap:wrap; gap:1.5em; align-items:flex-start; }
figure.scatter { margin:0; max-width:460px; }
table.axes td:nth-child(2), table.axes th:nth-child(2) { text-align:left; }
figure.scatter figcaption { color:var(--muted); font-size:.9em; }
svg text { font-family:system-ui, sans-serif; }
input.filter { padding:.3em .5em; width:22em; margin:.3em 0; }
.matrix td { text-align:center; min-width:4em; white-space:normal; }
.matrix th, .matrix td { padding:.25em .4em; } .matrix th { overflow-wrap:anywhere; }
.matrix td:first-child { min-width:8em; }
"""

JS = """
'use strict';
(function () {
  function key(cell) {
    if (!cell) return '';
    var v = cell.getAttribute('data-sort');
    if (v === null) v = cell.textContent.trim();
    var n = parseFloat(v);
    return (v !== '' && !isNaN(n) && isFinite(v)) ? n : v.toLowerCase();
  }
  function sortBy(table, index, header) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asc = !header.classList.contains('asc');
    Array.prototype.forEach.call(header.parentNode.cells, function (h) {
      h.classList.remove('asc', 'desc');
    });
    header.classList.add(asc ? 'asc' : 'desc');
    rows.sort(function (a, b) {
      var x = key(a.cells[index]), y = key(b.cells[index]);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function sortable() {
    document.querySelectorAll('table.sortable').forEach(function (table) {
      var head = table.tHead && table.tHead.rows[0];
      if (!head) return;
      Array.prototype.forEach.call(head.cells, function (h, i) {
        h.addEventListener('click', function () { sortBy(table, i, h); });
      });
    });
  }
  function filters() {
    document.querySelectorAll('input.filter').forEach(function (input) {
      var table = document.getElementById(input.getAttribute('data-table'));
      if (!table) return;
      input.addEventListener('input', function () {
        var q = input.value.toLowerCase();
        Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
          r.style.display = r.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none';
        });
      });
    });
  }
  function unpack() {
    document.querySelectorAll('script.packed').forEach(function (node) {
      if (typeof DecompressionStream === 'undefined') return;
      var bytes = Uint8Array.from(atob(node.textContent.trim()), function (c) {
        return c.charCodeAt(0);
      });
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      new Response(stream).text().then(function (text) {
        var payload = JSON.parse(text);
        Object.keys(payload).forEach(function (id) {
          var target = document.getElementById(id);
          if (target) target.innerHTML = payload[id];
        });
        document.body.setAttribute('data-unpacked', 'yes');
      });
    });
  }
  function start() { sortable(); filters(); unpack(); }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else { start(); }
})();
"""
