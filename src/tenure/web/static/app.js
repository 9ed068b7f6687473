// tenure's web page: plain DOM over /api (no build step). Text from memories is always set with
// textContent, never parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
  if (text) setTimeout(() => { if (status.textContent === text) status.textContent = ""; }, 4000);
}

const shortName = (element) => element.includes(":") && !element.startsWith("path:")
  ? element.slice(element.indexOf(":") + 1) : element.replace(/^path:/, "");
// A long name wraps after a dot, slash or underscore, never inside a word.
const wrapping = (name) => name.split(/(?<=[./_])/).flatMap((part, i) => i ? [el("wbr"), part] : [part]);
const days = (n) => n === null || n === undefined ? "" : n === 0 ? "today" : n === 1 ? "1 day" : `${n} days`;

// knowledge map -------------------------------------------------------------------------------
async function loadMap() {
  const map = await api(`/api/map?level=${encodeURIComponent($("level").value)}`);
  $("headline").textContent = `Knowledge map: ${map.headline}`;
  $("map").replaceChildren(...map.cells.map(cell));
}

function cell(c) {
  if (c.gap) {
    return el("div", { class: "cell gap", title: c.element },
      el("div", { class: "name" }, wrapping(shortName(c.element))), el("div", {}, "gap: nothing written"));
  }
  return el("div", { class: c.verify ? "cell verify" : "cell", title: c.element, onclick: () => showElement(c.element) },
    el("div", { class: "name" }, wrapping(shortName(c.element))),
    el("div", {}, `${c.memories} ${c.memories === 1 ? "memory" : "memories"}`,
      c.pitfalls ? el("span", { class: "pitfalls" }, ` · ${c.pitfalls} pitfall${c.pitfalls === 1 ? "" : "s"}`) : null),
    el("div", { class: "meta" }, `freshest ${days(c.freshestDays)} · stalest ${days(c.stalestDays)}`),
    c.verify ? el("div", { class: "verify-tag" }, `${c.verify} to verify`) : null);
}

// memories as list items ----------------------------------------------------------------------
function summary(m) {
  return [
    el("span", { class: `kind ${m.kind}` }, m.kind.replace("_", " ").toUpperCase()),
    m.verify ? el("span", { class: "verify-tag" }, "VERIFY — the element drifted since this was written ") : null,
    el("a", { class: "open", onclick: () => showMemory(m.id) }, m.title || `#${m.id}`),
    el("div", {}, m.content),
    el("div", { class: "meta" }, `#${m.id} · ${m.elements.map(shortName).join(", ")} · ${m.author} · `
      + `${days(m.ageDays)} since last confirmed · ${m.confirmations} confirmations`),
  ];
}

async function showElement(element) {
  const found = await api(`/api/recall?element=${encodeURIComponent(element)}`);
  showResults(`Memories in ${shortName(element)}`, found);
}

async function search(event) {
  event.preventDefault();
  const query = $("search").value.trim();
  showResults(`Recall: “${query}”`, await api(`/api/recall?q=${encodeURIComponent(query)}`));
}

function showResults(title, found) {
  $("results-section").hidden = false;
  $("results-title").textContent = title;
  $("results-note").textContent = found.note || "";
  $("results").replaceChildren(...(found.results.length ? found.results.map((m) => el("li", {},
    ...summary(m),
    el("div", { class: "meta" }, `score ${m.score.toFixed(3)}`, m.via ? ` · via #${m.via.from} (${m.via.link})` : ""),
  )) : [el("li", { class: "hint" }, "nothing found")]));
}

// review queue --------------------------------------------------------------------------------
async function loadReview() {
  const queue = await api("/api/review");
  $("review-count").textContent = `(${queue.count})`;
  $("review").replaceChildren(...(queue.items.length ? queue.items.map(reviewItem)
    : [el("li", { class: "hint" }, "Nothing to review.")]));
}

function reviewItem(m) {
  const editor = el("textarea", { "aria-label": `new content for #${m.id}` });
  editor.value = m.content;
  const supersedeBox = el("div", { class: "actions", hidden: "" }, editor,
    el("button", { class: "primary", type: "button", onclick: () => act(m.id, "supersede", { content: editor.value }) },
      "Save new version"));
  return el("li", { "data-memory": m.id },
    ...summary(m),
    ...m.reasons.map((r) => el("div", { class: "reasons" }, r)),
    el("div", { class: "actions" },
      el("button", { class: "primary confirm", type: "button", onclick: () => act(m.id, "confirm", {}) }, "Confirm — still holds"),
      el("button", { class: "supersede", type: "button", onclick: () => { supersedeBox.hidden = !supersedeBox.hidden; } },
        "Supersede…")),
    supersedeBox);
}

async function act(id, action, body) {
  try {
    const result = await api(`/api/memory/${id}/${action}`, body);
    say(action === "confirm" ? `#${id} confirmed (${result.confirmations} confirmations)`
      : `#${id} superseded by #${result.id}`);
    await Promise.all([loadReview(), loadMap()]);
    await showMemory(action === "confirm" ? id : result.id);
  } catch (error) {
    say(error.message, true);
  }
}

// memory detail -------------------------------------------------------------------------------
async function showMemory(id) {
  const detail = await api(`/api/memory/${id}`);
  const live = detail.versions.find((v) => v.id === detail.live) || detail.versions.at(-1);
  $("detail-section").hidden = false;
  $("detail-title").textContent = live.title || `Memory #${live.id}`;
  $("detail").replaceChildren(
    el("h3", {}, `History: ${detail.versions.length} version${detail.versions.length === 1 ? "" : "s"}`),
    ...detail.versions.map((v) => version(v, v.id === detail.live)),
    el("h3", {}, "Links"),
    detail.links.length ? el("ul", {}, ...detail.links.map(link)) : el("p", { class: "hint" }, "No links."),
  );
  $("detail-section").scrollIntoView({ block: "nearest" });
}

function version(v, isLive) {
  const cls = ["version", isLive ? "live" : "", v.verify ? "drifted" : ""].join(" ");
  return el("div", { class: cls, "data-version": v.id },
    el("div", {}, el("span", { class: `kind ${v.kind}` }, v.kind.toUpperCase()), `#${v.id} `,
      isLive ? "live" : `superseded by #${v.supersededBy}`, v.supersedes ? ` · supersedes #${v.supersedes}` : ""),
    el("div", {}, v.content),
    el("div", { class: "meta" }, `written ${v.createdAt.slice(0, 10)} by ${v.author} · last confirmed `
      + `${v.confirmedAt.slice(0, 10)} · ${v.confirmations} confirmations · served ${v.usage.impressions}× · `
      + `cited ${v.usage.declared + v.usage.inferred}×`),
    v.driftedAt ? el("div", { class: v.verify ? "verify-tag" : "meta" },
      `drift stamp ${v.driftedAt.slice(0, 10)}: its element changed${v.verify ? " after it was last confirmed" : "; confirmed since"}`) : null,
    el("ul", { class: "meta" }, ...v.events.map((e) => el("li", {}, `${e.at.slice(0, 16).replace("T", " ")} ${e.event}`
      + (e.detail ? ` — ${e.detail}` : "")))));
}

function link(l) {
  const arrow = l.direction === "to" ? "links to" : "linked from";
  if (l.memory) return el("li", {}, `${arrow} `, el("a", { class: "open", onclick: () => showMemory(l.memory) }, l.title || `#${l.memory}`));
  return el("li", {}, `${arrow} [[${shortName(l.element || "")}]]`);
}

// start ---------------------------------------------------------------------------------------
$("level").addEventListener("change", () => loadMap().catch((e) => say(e.message, true)));
$("search-form").addEventListener("submit", (e) => search(e).catch((err) => say(err.message, true)));
$("detail-close").addEventListener("click", () => { $("detail-section").hidden = true; });
Promise.all([loadMap(), loadReview()])
  .then(() => document.body.setAttribute("data-ready", "true"))
  .catch((e) => say(e.message, true));
