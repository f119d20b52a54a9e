// The try-it page: one file to one endpoint, the answer drawn on the picture.
// Everything it loads comes from the gateway itself; it talks only to /v1/*.
"use strict";

const ENDPOINTS = { mnist: "/v1/mnist", ocr: "/v1/ocr", seal: "/v1/seal" };
const KEY_STORE = "gateway-api-key";
const $ = (id) => document.getElementById(id);

function chosenTask() {
  return document.querySelector('input[name="task"]:checked').value;
}

function chooseTaskFromAddress() {
  const task = new URLSearchParams(window.location.search).get("task");
  const radio = task && document.querySelector(`input[name="task"][value="${CSS.escape(task)}"]`);
  if (radio) radio.checked = true;
}

function say(message, isError = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", isError);
}

function loadImage(file) {
  // Browsers honour EXIF orientation when drawing an <img>, as the service does when reading.
  return new Promise((resolve) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => resolve(null);
    image.src = URL.createObjectURL(file);
  });
}

function drawPicture(image) {
  const canvas = $("canvas");
  $("picture").hidden = !image; // a PDF has no picture here: its reading takes the width
  if (!image) {
    canvas.width = canvas.height = 0;
    return null;
  }
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  context.lineWidth = Math.max(2, canvas.width / 400);
  context.font = `${Math.max(14, Math.round(canvas.width / 45))}px "Noto Sans CJK SC", sans-serif`;
  return context;
}

function label(context, text, x, y, colour) {
  const height = parseInt(context.font, 10);
  const width = context.measureText(text).width;
  context.fillStyle = "rgba(255, 255, 255, 0.85)";
  context.fillRect(x, y - height, width + 6, height + 4);
  context.fillStyle = colour;
  context.fillText(text, x + 3, y);
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function expectedNames() {
  // The names typed for a seal, one per line (the service refuses empty ones).
  if (chosenTask() !== "seal") return [];
  return $("expect").value.split("\n").map((line) => line.trim()).filter(Boolean);
}

function verdictText(verdict) {
  const where = verdict.page ? `page ${verdict.page}, ` : "";
  const seal = verdict.seal === null ? "" : `${where}seal ${verdict.seal + 1}, `;
  const said = verdict.found ? "found" : "not found";
  return `${verdict.found ? "✓" : "✗"} ${verdict.text}: ${said} (${seal}score ${verdict.score.toFixed(2)})`;
}

function showVerdicts(expected, context) {
  // Each expected name, found or not: listed beside the picture and written on it, top left.
  $("verdicts").textContent = "";
  expected.forEach((verdict, i) => {
    $("verdicts").append(element("li", verdict.found ? "found" : "missing", verdictText(verdict)));
    if (context) {
      const line = (parseInt(context.font, 10) + 6) * (i + 1);
      label(context, verdictText(verdict), 4, line, verdict.found ? "#064" : "#b00");
    }
  });
}

function sealNames(answer) {
  // The expected name each seal was found to say, by seal index.
  const names = new Map();
  for (const verdict of answer.expected || []) if (verdict.found) names.set(verdict.seal, verdict.text);
  return names;
}

// The document check (check=document): the parties the page names, each seal's party, the verdict.
const ROLES = { seller: "seller", buyer: "buyer", party_a: "甲方", party_b: "乙方", party_c: "丙方", issuer: "issuer", named: "named" };
const GOOD_VERDICTS = new Set(["seller_sealed", "all_sealed", "sealed_by_party"]);
// Verdicts that tell nothing either way (a seal read too unsurely, a seller's name not read, no
// party printed): a person looks at the page, so they are not shown as failures.
const UNSURE_VERDICTS = new Set(["seller_seal_unread", "seller_not_found", "no_parties"]);

function verdictClass(verdict) {
  if (GOOD_VERDICTS.has(verdict.verdict)) return "found";
  return UNSURE_VERDICTS.has(verdict.verdict) ? "unsure" : "missing";
}

function partyText(party) {
  return `${ROLES[party.role] || party.role}: ${party.text}${party.tax_id ? ` (${party.tax_id})` : ""}`;
}

function centre([x0, y0, x1, y1]) {
  return [(x0 + x1) / 2, (y0 + y1) / 2];
}

function drawParties(answer, context) {
  // Each party's name boxed and labelled under it; a line from each seal to its party's name.
  context.strokeStyle = "#36c";
  for (const party of answer.parties) {
    const [x0, y0, x1, y1] = party.box;
    context.strokeRect(x0, y0, x1 - x0, y1 - y0);
    label(context, partyText(party), x0, y1 + parseInt(context.font, 10) + 4, "#236");
  }
  context.save();
  context.setLineDash([12, 8]);
  context.strokeStyle = "#0a6";
  for (const seal of answer.seals) {
    if (!seal.party) continue;
    const [sx, sy] = centre(seal.box);
    const [px, py] = centre(answer.parties[seal.party.index].box);
    context.beginPath();
    context.moveTo(sx, sy);
    context.lineTo(px, py);
    context.stroke();
  }
  context.restore();
}

function showCheck(answer, context, target) {
  // The verdict first (in the list beside the picture, or the page's block), then the parties
  // and which seal is whose.
  const verdict = answer.verdict;
  const line = element("div", `verdict ${verdictClass(verdict)}`, `Verdict: ${verdict.verdict} (${verdict.kind})`);
  if (target === $("text")) $("verdicts").append(element("li", line.className, line.textContent));
  else target.append(line);
  const block = element("div", "document-check");
  for (const reason of verdict.reasons) block.append(element("div", "reason", reason));
  answer.parties.forEach((party, index) => {
    const seals = answer.seals.map((seal, i) => (seal.party && seal.party.index === index ? i + 1 : 0)).filter(Boolean);
    const sealed = seals.length ? ` — sealed by seal ${seals.join(", ")}` : "";
    block.append(element("div", seals.length ? "party found" : "party", `${partyText(party)}${sealed}`));
  });
  if (!answer.parties.length) block.append(element("div", "party", "No party named on the page."));
  target.append(block);
  if (context) drawParties(answer, context);
}

function showSeals(answer, context, target = $("text")) {
  const names = sealNames(answer);
  answer.seals.forEach((seal, index) => {
    const [x0, y0, x1, y1] = seal.box;
    const name = names.get(index);
    if (context) {
      context.strokeStyle = name ? "#0a6" : "#c80";
      context.strokeRect(x0, y0, x1 - x0, y1 - y0);
      const text = name ? `✓ ${name}` : seal.rim_text || "(no rim text)";
      label(context, `${index + 1}: ${text}`, x0, Math.max(y0 - 4, 20), name ? "#064" : "#640");
    }
    const block = element("div", "seal-text");
    const scores = `seal score ${seal.score.toFixed(2)}, rim score ${seal.rim_score.toFixed(2)}`;
    block.append(element("div", "score", `seal ${index + 1}, ${scores}`));
    block.append(element("div", "rim", seal.rim_text || "(no rim text)"));
    if (name) block.append(element("div", "found", `✓ ${name}`));
    for (const line of seal.inner_texts) block.append(element("div", "inner", line.text));
    for (const code of seal.codes) block.append(element("div", "code", code));
    target.append(block);
  });
  if (!answer.seals.length) target.append(element("div", "", "No seal found."));
  if (target === $("text")) showVerdicts(answer.expected || [], context);
  else for (const verdict of answer.expected || []) target.append(element("div", verdict.found ? "found" : "missing", verdictText(verdict)));
  if (answer.verdict) showCheck(answer, context, target);
}

function showLines(answer, context, target = $("text")) {
  if (context) {
    context.strokeStyle = "#06c";
    for (const line of answer.lines) {
      context.beginPath();
      line.polygon.forEach(([x, y], i) => (i ? context.lineTo(x, y) : context.moveTo(x, y)));
      context.closePath();
      context.stroke();
    }
  }
  target.append(element("div", "", answer.text || "No text found."));
}

function showDigit(answer, context) {
  if (context) label(context, String(answer.label), 4, parseInt(context.font, 10) + 4, "#a11");
  $("text").textContent = `Digit: ${answer.label}`;
  answer.probabilities.forEach((p, digit) => {
    const bar = element("div", "bar");
    const fill = element("span", "fill");
    fill.style.width = `${Math.round(p * 200)}px`;
    bar.append(element("span", "", String(digit)), fill, element("span", "", p.toFixed(3)));
    $("bars").append(bar);
  });
}

function pageBlock(page) {
  // A PDF page's block, kept in page order whatever order the pages are read in.
  const block = element("section", "page");
  block.dataset.page = String(page.page);
  block.append(element("h3", "", `Page ${page.page}`));
  const later = [...$("text").children].find((other) => Number(other.dataset.page) > page.page);
  $("text").insertBefore(block, later || null);
  return block;
}

function showPage(page, show) {
  const block = pageBlock(page);
  if (page.error) block.append(element("div", "page-error", `${page.error.status}: ${page.error.message}`));
  else show(page, null, block);
}

function showPages(answer, show) {
  // A PDF's answer as one JSON: every page's reading (no picture to draw on), and on which
  // page each expected name was found.
  for (const page of answer.pages) showPage(page, show);
  showVerdicts(answer.expected || [], null);
}

async function eachLine(response, onLine) {
  // NDJSON as it arrives: one JSON object per line.
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    pending += decoder.decode(value || new Uint8Array(), { stream: !done });
    const lines = pending.split("\n");
    pending = done ? "" : lines.pop();
    for (const line of lines) if (line.trim()) onLine(JSON.parse(line));
    if (done) return;
  }
}

async function showStream(response, task, started) {
  // A PDF's pages as they are read, with a count of those in; the JSON view at the end.
  const pages = [];
  let total = 0;
  let last = null;
  $("result").hidden = false;
  drawPicture(null);
  await eachLine(response, (line) => {
    last = line;
    if (line.page !== undefined) {
      pages.push(line);
      showPage(line, SHOW[task]);
      say(`${task}: ${pages.length} of ${total} pages read...`);
    } else if (!line.done && !line.error) {
      total = line.pages;
      say(`${task}: 0 of ${total} pages read...`);
    }
  });
  pages.sort((a, b) => a.page - b.page);
  const expected = (last && last.expected) || [];
  $("json").textContent = JSON.stringify({ pages, expected, model: last && last.model }, null, 2);
  showVerdicts(expected, null);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  if (!last || !last.done) {
    const message = last && last.error ? last.error.message : "the stream ended early";
    say(`${task}: ${pages.length} of ${total} pages read, then: ${message}`, true);
    return;
  }
  const failed = last.failed ? ` (${last.failed} failed)` : "";
  say(`${task}: ${total} pages answered in ${seconds} s${failed}`);
}

const SHOW = { mnist: showDigit, ocr: showLines, seal: showSeals };
const NDJSON = "application/x-ndjson";

async function run(file) {
  if (!file) return;
  const task = chosenTask();
  say(`Reading ${file.name || "the pasted image"}...`);
  $("text").textContent = "";
  $("bars").textContent = "";
  $("verdicts").textContent = "";
  const form = new FormData();
  form.append("image", file, file.name || "pasted.png");
  for (const name of expectedNames()) form.append("expect", name);
  if (task === "seal" && $("check-document").checked) form.append("check", "document");
  const key = $("key").value.trim();
  // A PDF's pages stream in as they are read; an image is answered with JSON whatever is asked.
  const headers = { Accept: `${NDJSON}, application/json` };
  if (key) headers.Authorization = `Bearer ${key}`;
  const started = performance.now();
  let response;
  try {
    response = await fetch(ENDPOINTS[task], { method: "POST", body: form, headers });
  } catch (error) {
    say(`The service did not answer: ${error.message}`, true);
    return;
  }
  if (response.ok && (response.headers.get("content-type") || "").startsWith(NDJSON)) {
    await showStream(response, task, started);
    return;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const answer = await response.json().catch(() => null);
  $("key-label").classList.toggle("wanted", response.status === 401);
  if (!response.ok) {
    const message = answer && answer.error ? answer.error.message : response.statusText;
    say(`${response.status}: ${message}${response.status === 401 ? " (enter an API key)" : ""}`, true);
    return;
  }
  $("json").textContent = JSON.stringify(answer, null, 2);
  $("result").hidden = false;
  const context = drawPicture(file.type === "application/pdf" ? null : await loadImage(file));
  if (answer.pages) showPages(answer, SHOW[task]);
  else SHOW[task](answer, context);
  say(`${task}: answered in ${seconds} s`);
}

function showExpectField() {
  $("expect-label").hidden = $("check-label").hidden = chosenTask() !== "seal";
}

function wire() {
  chooseTaskFromAddress();
  showExpectField();
  for (const radio of document.querySelectorAll('input[name="task"]')) radio.addEventListener("change", showExpectField);
  $("key").value = localStorage.getItem(KEY_STORE) || "";
  $("key").addEventListener("change", () => localStorage.setItem(KEY_STORE, $("key").value.trim()));
  $("file").addEventListener("change", () => {
    const file = $("file").files[0];
    $("file").value = ""; // picking the same file again (after entering a key, say) runs it again
    run(file);
  });
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    run(event.dataTransfer.files[0]);
  });
  document.addEventListener("paste", (event) => {
    const item = [...event.clipboardData.items].find((i) => i.kind === "file");
    if (item) run(item.getAsFile());
  });
}

wire();
