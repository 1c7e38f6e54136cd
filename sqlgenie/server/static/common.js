// Shared by the ask and review pages: the token, API calls, SQL highlighting, tables.
"use strict";
const SG = {};

SG.token = () => localStorage.getItem("sqlgenie-token") || "";

SG.api = async (method, path, body) => {
  const headers = { "Authorization": "Bearer " + SG.token() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  if (!resp.ok) {
    let detail = data && data.detail;
    if (Array.isArray(detail)) detail = detail.map((d) => d.msg).join("; ");
    const err = new Error(detail || ("HTTP " + resp.status));
    err.status = resp.status;
    err.hint = data && data.hint;
    throw err;
  }
  return data;
};

SG.escape = (text) => String(text).replace(/[&<>"']/g, (c) =>
  ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// Display-only colouring of SQL text (what it runs is decided by the server, never here).
const KEYWORDS = new Set(("select from where group by order having limit offset join left right full inner outer cross on " +
  "as and or not in is null like ilike between case when then else end distinct union all with asc desc cast " +
  "interval extract date timestamp over partition filter exists any true false nulls first last using").split(" "));
SG.highlightSQL = (sql) => {
  const token = /(--[^\n]*)|('(?:[^']|'')*')|("(?:[^"]|"")*")|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)(\s*\()?|([\s\S])/g;
  let out = "";
  let m;
  while ((m = token.exec(sql)) !== null) {
    if (m[1]) out += '<span class="cm">' + SG.escape(m[1]) + "</span>";
    else if (m[2]) out += '<span class="str">' + SG.escape(m[2]) + "</span>";
    else if (m[3]) out += SG.escape(m[3]);
    else if (m[4]) out += '<span class="num">' + m[4] + "</span>";
    else if (m[5]) {
      const word = m[5];
      if (KEYWORDS.has(word.toLowerCase())) out += '<span class="kw">' + word + "</span>" + SG.escape(m[6] || "");
      else if (m[6]) out += '<span class="fn">' + word + "</span>" + SG.escape(m[6]);
      else out += SG.escape(word);
    } else out += SG.escape(m[7]);
  }
  return out;
};

SG.table = (columns, rows) => {
  const head = "<tr>" + columns.map((c) => "<th>" + SG.escape(c) + "</th>").join("") + "</tr>";
  const body = rows.map((r) => "<tr>" + r.map((v) =>
    typeof v === "number" ? '<td class="num">' + v.toLocaleString() + "</td>"
      : "<td>" + (v === null ? '<span class="muted">null</span>' : SG.escape(v)) + "</td>").join("") + "</tr>").join("");
  return "<table><thead>" + head + "</thead><tbody>" + body + "</tbody></table>";
};

SG.setupToken = (onChange) => {
  const input = document.getElementById("token");
  const who = document.getElementById("whoami");
  input.value = SG.token();
  const check = async () => {
    if (!SG.token()) { who.textContent = "no token"; return; }
    try {
      const me = await SG.api("GET", "/api/me");
      who.textContent = me.name + " (" + me.role + ")";
      if (onChange) onChange(me);
    } catch (e) { who.textContent = e.message; }
  };
  document.getElementById("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    localStorage.setItem("sqlgenie-token", input.value.trim());
    check();
  });
  check();
};

SG.showError = (err) => {
  const el = document.getElementById("error");
  if (!err) { el.hidden = true; el.textContent = ""; return; }
  el.hidden = false;
  el.textContent = err.message + (err.hint ? " — " + err.hint : "");
};
