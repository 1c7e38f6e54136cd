// The review page: pending items (regenerated answers, corrections), accept or reject; jobs.
"use strict";
const $ = (id) => document.getElementById(id);

function itemHTML(item) {
  const sql = item.sql ? '<pre class="sql">' + SG.highlightSQL(item.sql) + "</pre>" : '<p class="muted">no SQL</p>';
  const old = item.downvoted_sql
    ? "<details><summary>The answer that got the thumbs-down</summary><pre class=\"sql\">" + SG.highlightSQL(item.downvoted_sql) + "</pre></details>" : "";
  const runner = item.runner_up_sql
    ? "<details><summary>Runner-up</summary><pre class=\"sql\">" + SG.highlightSQL(item.runner_up_sql) + "</pre></details>" : "";
  const ev = item.evidence && Object.keys(item.evidence).length
    ? "<details><summary>Evidence</summary><pre>" + SG.escape(JSON.stringify(item.evidence, null, 2)) + "</pre></details>" : "";
  const actions = item.state === "pending"
    ? '<div class="actions"><button type="button" class="accept" data-id="' + item.id + '">Accept into the bank</button>' +
      '<button type="button" class="reject" data-id="' + item.id + '">Reject</button></div>'
    : '<p class="muted">' + SG.escape(item.state) + (item.decided_by ? " by " + SG.escape(item.decided_by) : "") +
      (item.bank_example_id ? " · bank example #" + item.bank_example_id : "") + "</p>";
  return '<div class="item" data-item="' + item.id + '"><h3>#' + item.id + " · " + SG.escape(item.kind) + " · " +
    SG.escape(item.question) + "</h3>" + (item.differs === false ? '<p class="muted">No candidate differs from the downvoted answer.</p>' : "") +
    sql + old + runner + ev + actions + "</div>";
}

async function load() {
  SG.showError(null);
  try {
    const state = $("state").value;
    const data = await SG.api("GET", "/api/review" + (state ? "?state=" + encodeURIComponent(state) : ""));
    $("items").innerHTML = data.items.length ? data.items.map(itemHTML).join("") : '<p class="muted">Nothing to review.</p>';
    const jobs = await SG.api("GET", "/api/jobs?limit=20");
    $("jobs").innerHTML = jobs.jobs.length
      ? SG.table(["id", "kind", "state", "attempts", "created"], jobs.jobs.map((j) =>
        [j.id, j.kind, j.state || j.status, j.attempts, j.created_at || ""]))
      : '<p class="muted">No jobs.</p>';
  } catch (e) {
    SG.showError(e);
  }
}

async function decide(id, action) {
  try {
    const body = action === "reject" ? { reason: prompt("Why is it wrong? (optional)") || null } : undefined;
    await SG.api("POST", "/api/review/" + id + "/" + action, body);
    await load();
  } catch (e) {
    SG.showError(e);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  SG.setupToken(() => load());
  $("refresh").addEventListener("click", load);
  $("state").addEventListener("change", load);
  $("items").addEventListener("click", (ev) => {
    const btn = ev.target.closest("button[data-id]");
    if (btn) decide(btn.dataset.id, btn.classList.contains("accept") ? "accept" : "reject");
  });
});
