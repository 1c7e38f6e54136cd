// The ask page: question -> answer (SQL, rows, chart, explanation) -> thumbs.
"use strict";
let current = null; // the answer shown
let verdict = null;

const $ = (id) => document.getElementById(id);

function isDateText(v) { return typeof v === "string" && /^\d{4}-\d{2}(-\d{2})?([T ][\d:.]+.*)?$/.test(v); }
const TIME_NAME = /(^|_)(year|month|week|day|date|quarter|period|time)s?($|_)/i;
const ID_NAME = /(^|_)id$/i;

// A chart when the result has a category or time column and one or more measures.
function chartSpec(columns, rows) {
  if (!rows || rows.length < 2 || columns.length < 2) return null;
  const kinds = columns.map((c, i) => {
    const values = rows.map((r) => r[i]).filter((v) => v !== null);
    if (!values.length) return "empty";
    if (values.every(isDateText)) return "time";
    if (values.every((v) => typeof v === "number")) {
      if (TIME_NAME.test(c) && values.every((v) => Number.isInteger(v))) return "ordinal-time";
      return ID_NAME.test(c) ? "id" : "measure";
    }
    return "category";
  });
  let dim = kinds.indexOf("time");
  if (dim < 0) dim = kinds.indexOf("ordinal-time");
  if (dim < 0) dim = kinds.indexOf("category");
  if (dim < 0) return null;
  const measures = columns.filter((c, i) => i !== dim && kinds[i] === "measure");
  if (!measures.length) return null;
  const dimName = columns[dim];
  const data = rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])));
  const kind = kinds[dim] === "category" ? "bar" : "line";
  const x = kinds[dim] === "time" ? { field: dimName, type: "temporal" }
    : kinds[dim] === "ordinal-time" ? { field: dimName, type: "ordinal" }
      : { field: dimName, type: "nominal", sort: measures.length === 1 ? "-y" : null, axis: { labelLimit: 160 } };
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v4.17.0.json",
    data: { values: data }, width: 600, height: 260,
    mark: { type: kind, point: kind === "line", tooltip: true },
    encoding: { x },
  };
  if (measures.length === 1) {
    spec.encoding.y = { field: measures[0], type: "quantitative" };
  } else {
    spec.transform = [{ fold: measures, as: ["measure", "value"] }];
    spec.encoding.y = { field: "value", type: "quantitative" };
    spec.encoding.color = { field: "measure", type: "nominal" };
    if (kind === "bar") spec.encoding.xOffset = { field: "measure" };
  }
  return { spec, kind };
}

async function drawChart(columns, rows) {
  const el = $("chart");
  el.hidden = true;
  el.removeAttribute("data-chart");
  el.innerHTML = "";
  const made = chartSpec(columns, rows);
  if (!made || typeof vegaEmbed === "undefined") return;
  el.hidden = false;
  made.spec.width = Math.max(320, Math.min(900, el.parentElement.clientWidth - 160)); // el may be inline-block (vega-embed)
  await vegaEmbed(el, made.spec, { actions: false, renderer: "svg" });
  el.setAttribute("data-chart", made.kind);
}

function render(data) {
  current = data;
  verdict = null;
  $("answer").hidden = false;
  const status = data.status;
  const bits = ['<span class="badge ' + status + '">' + status + "</span>",
    '<span class="badge">route ' + SG.escape(data.route || "-") + (data.method ? " · " + SG.escape(data.method) : "") + "</span>"];
  if (data.similarity !== null && data.similarity !== undefined) bits.push('<span class="badge">similarity ' + data.similarity.toFixed(2) + "</span>");
  if (data.confidence !== null && data.confidence !== undefined) bits.push('<span class="badge">confidence ' + data.confidence.toFixed(2) + "</span>");
  if (data.unreviewed) bits.push('<span class="badge unreviewed" title="Regenerated after a thumbs-down; a reviewer has not checked it yet">awaiting review #' + data.review_id + "</span>");
  bits.push('<span class="muted">answer #' + data.id + " · " + Math.round(data.total_ms) + " ms</span>");
  $("meta").innerHTML = bits.join(" ");
  const msg = $("message");
  msg.hidden = !data.message;
  msg.textContent = data.message ? data.message + (data.hint ? " " + data.hint : "") : "";
  const sql = $("sql");
  sql.hidden = !data.sql;
  sql.innerHTML = data.sql ? SG.highlightSQL(data.sql) : "";
  $("rows").innerHTML = data.executed
    ? SG.table(data.columns, data.rows) + '<p class="muted">' + data.row_count + " row(s)" + (data.truncated ? " (more exist)" : "") + "</p>"
    : "";
  $("explanation").textContent = data.explanation || (data.think && data.think.reason) || "";
  $("corrections").innerHTML = (data.corrections || []).map((c) =>
    "<li><b>" + SG.escape(c.corrector) + "</b>: <code>" + SG.escape(c.before) + "</code> → <code>" + SG.escape(c.after) +
    "</code> <span class=\"muted\">" + SG.escape(c.reason || "") + "</span></li>").join("");
  const examples = data.examples || [];
  $("examples").innerHTML = examples.length
    ? "<p class=\"muted\">" + (status === "ok" ? "Retrieved verified examples" : "Nearest verified examples") + ":</p><ul>" +
      examples.slice(0, 5).map((e) => "<li>#" + e.id + " (" + e.similarity.toFixed(2) + ") " + SG.escape(e.question) +
        (e.id === data.example_id && status === "ok" ? " <b>← used</b>" : "") + "</li>").join("") + "</ul>"
    : "";
  $("thumbs-up").classList.remove("chosen");
  $("thumbs-down").classList.remove("chosen");
  $("comment-form").hidden = true;
  $("feedback-status").textContent = "";
  $("feedback").hidden = !data.id;
  return data.executed ? drawChart(data.columns, data.rows) : drawChart([], []);
}

async function ask(question) {
  SG.showError(null);
  $("ask-button").disabled = true;
  try {
    const data = await SG.api("POST", "/api/ask", { question });
    await render(data);
  } catch (e) {
    SG.showError(e);
  } finally {
    $("ask-button").disabled = false;
  }
}

async function sendFeedback() {
  const body = { ask_id: current.id, verdict, comment: $("comment").value.trim() || null,
    sql: verdict === "down" ? ($("corrected-sql").value.trim() || null) : null };
  const status = $("feedback-status");
  try {
    const res = await SG.api("POST", "/api/feedback", body);
    let text = "Thanks: feedback #" + res.feedback_id + " recorded.";
    if (res.job_id) text += " A better answer is being worked out (job #" + res.job_id + "); a reviewer will check it.";
    if (res.review_item_id) text += " Your correction waits for a reviewer (item #" + res.review_item_id + ").";
    if (res.bank_example_id) text += " Added to the verified examples (#" + res.bank_example_id + ").";
    status.textContent = text;
    $("comment-form").hidden = true;
  } catch (e) {
    status.textContent = "Feedback not recorded: " + e.message;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  SG.setupToken();
  $("ask-form").addEventListener("submit", (ev) => { ev.preventDefault(); ask($("question").value.trim()); });
  $("thumbs-up").addEventListener("click", () => {
    verdict = "up";
    $("thumbs-up").classList.add("chosen"); $("thumbs-down").classList.remove("chosen");
    $("corrected-sql").hidden = true; $("comment-form").hidden = false;
  });
  $("thumbs-down").addEventListener("click", () => {
    verdict = "down";
    $("thumbs-down").classList.add("chosen"); $("thumbs-up").classList.remove("chosen");
    $("corrected-sql").hidden = false; $("comment-form").hidden = false;
  });
  $("comment-form").addEventListener("submit", (ev) => { ev.preventDefault(); sendFeedback(); });
  const q = new URLSearchParams(location.search).get("q");
  if (q) { $("question").value = q; ask(q); }
});
