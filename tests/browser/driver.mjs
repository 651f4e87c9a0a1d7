// One headless Chromium for the browser checks of the HTML report, driven over the DevTools
// protocol with Node's own WebSocket (node --experimental-websocket; no puppeteer).
//
//   node --experimental-websocket driver.mjs JOBS.json RESULTS.json
//
// JOBS.json: {"chromium": path, "mermaid": path to mermaid.min.js or null, "diagrams": [text…],
//             "reports": [{"html": path, "shots": dir, "name": str}]}
// RESULTS.json: {"diagrams": [{"ok": bool, "error": str}], "reports": [{…what the page showed…}]}
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [jobsPath, outPath] = process.argv.slice(2);
const jobs = JSON.parse(readFileSync(jobsPath, "utf8"));
const profile = mkdtempSync(join(tmpdir(), "logsleuth-chromium-"));
const browser = spawn(jobs.chromium, [
  "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--remote-debugging-port=0", "--allow-file-access-from-files",
  `--user-data-dir=${profile}`, "about:blank",
], { stdio: ["ignore", "ignore", "pipe"] });

const wsUrl = await new Promise((resolve, reject) => {
  let err = "";
  const timer = setTimeout(() => reject(new Error("chromium did not start: " + err)), 30000);
  browser.stderr.on("data", (d) => {
    err += d;
    const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) { clearTimeout(timer); resolve(m[1]); }
  });
  browser.on("exit", (code) => reject(new Error(`chromium exited ${code}: ${err}`)));
});

const ws = new WebSocket(wsUrl);
await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
let nextId = 0;
const pending = new Map();
const waiters = [];
ws.onmessage = (msg) => {
  const data = JSON.parse(msg.data);
  if (data.id !== undefined && pending.has(data.id)) {
    const { resolve, reject } = pending.get(data.id);
    pending.delete(data.id);
    data.error ? reject(new Error(JSON.stringify(data.error))) : resolve(data.result);
  } else if (data.method) {
    for (const w of waiters.splice(0)) w(data);
  }
};
function send(method, params = {}, sessionId = undefined) {
  const id = ++nextId;
  ws.send(JSON.stringify({ id, method, params, sessionId }));
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function openPage(url) {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const page = (m, p) => send(m, p, sessionId);
  await page("Page.enable");
  await page("Emulation.setDeviceMetricsOverride", { width: 1100, height: 900, deviceScaleFactor: 1, mobile: false });
  const loaded = new Promise((resolve) => {
    const check = (ev) => (ev.method === "Page.loadEventFired" && ev.sessionId === sessionId ? resolve() : waiters.push(check));
    waiters.push(check);
  });
  await page("Page.navigate", { url });
  await Promise.race([loaded, sleep(15000)]);
  return { page, close: () => send("Target.closeTarget", { targetId }) };
}

async function evaluate(page, expression) {
  const r = await page("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description || r.exceptionDetails.text);
  return r.result.value;
}

async function shot(page, path, full = false) {
  const params = { format: "png" };
  if (full) params.captureBeyondViewport = true;
  const { data } = await page("Page.captureScreenshot", params);
  writeFileSync(path, Buffer.from(data, "base64"));
  return path;
}

async function checkDiagrams() {
  if (!jobs.mermaid || !jobs.diagrams.length) return [];
  const host = join(profile, "mermaid.html");
  writeFileSync(host, `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><script charset="utf-8" src="${pathToFileURL(jobs.mermaid)}"></script></body></html>`);
  const { page, close } = await openPage(pathToFileURL(host).href);
  await evaluate(page, "mermaid.initialize({startOnLoad: false, securityLevel: 'strict'}), true");
  const out = [];
  for (const [i, text] of jobs.diagrams.entries()) {
    // parse (syntax, the 500-edge limit) and render (the text-size limit, the layout)
    // parse (syntax, the 500-edge limit), then draw it as a page would (text-size limit, layout, labels)
    const expr = `(async () => { try { await mermaid.parse(${JSON.stringify(text)});
      const el = document.createElement("pre"); el.className = "mermaid"; el.textContent = ${JSON.stringify(text)};
      document.body.replaceChildren(el);
      await mermaid.run({nodes: [el], suppressErrors: false});
      const svg = el.querySelector("svg");
      const labels = svg ? [...svg.querySelectorAll(".nodeLabel, .edgeLabel, text")].map(n => n.textContent) : [];
      return {ok: !!svg && !/Syntax error|Maximum text size/.test(el.textContent), error: "", labels}; }
      catch (e) { return {ok: false, error: String(e && e.message || e)}; } })()`;
    out.push(await evaluate(page, expr));
  }
  await close();
  return out;
}

async function checkReport(job) {
  const { page, close } = await openPage(pathToFileURL(job.html).href);
  const res = { name: job.name, shots: [] };
  res.shots.push(await shot(page, join(job.shots, `${job.name}-top.png`)));
  // the first reference in the road (else anywhere): scroll to it, click it like a person would
  const box = await evaluate(page, `(() => {
    const a = document.querySelector('#road a.ref') || document.querySelector('a.ref');
    if (!a) return null;
    a.scrollIntoView({block: 'center'});
    const r = a.getBoundingClientRect();
    return {href: a.getAttribute('href'), x: r.left + r.width / 2, y: r.top + r.height / 2};
  })()`);
  res.link = box;
  if (box) {
    await sleep(100);
    for (const type of ["mousePressed", "mouseReleased"]) {
      await page("Input.dispatchMouseEvent", { type, x: box.x, y: box.y, button: "left", clickCount: 1 });
    }
    await sleep(400);
    res.after = await evaluate(page, `(() => {
      const el = document.querySelector(location.hash);
      const r = el ? el.getBoundingClientRect() : null;
      return {hash: location.hash, found: !!el, top: r && r.top, bottom: r && r.bottom, height: innerHeight,
              detailsOpen: !!(el && el.closest('details') && el.closest('details').open),
              text: el ? el.innerText.slice(0, 300) : ""};
    })()`);
    res.shots.push(await shot(page, join(job.shots, `${job.name}-clicked.png`)));
  }
  res.layout = await evaluate(page, `(() => ({
    scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
    svg: document.querySelectorAll('svg.chain .node').length,
    edgeLabels: [...document.querySelectorAll('svg.chain text.elabel')].map(t => t.textContent),
  }))()`);
  await evaluate(page, "window.scrollTo(0, document.querySelector('#chain').offsetTop + 500), true");
  await sleep(100);
  res.shots.push(await shot(page, join(job.shots, `${job.name}-chain.png`)));
  await page("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: "dark" }] });
  await evaluate(page, "window.scrollTo(0, document.querySelector('#chain').offsetTop), true");
  await sleep(100);
  res.darkBackground = await evaluate(page, "getComputedStyle(document.body).backgroundColor");
  res.shots.push(await shot(page, join(job.shots, `${job.name}-dark.png`)));
  await page("Emulation.setEmulatedMedia", { media: "print", features: [] });
  res.printTranscriptDisplay = await evaluate(page, "getComputedStyle(document.querySelector('#transcript')).display");
  await close();
  return res;
}

const results = { diagrams: [], reports: [] };
try {
  results.diagrams = await checkDiagrams();
  for (const job of jobs.reports) results.reports.push(await checkReport(job));
} finally {
  writeFileSync(outPath, JSON.stringify(results, null, 1));
  ws.close();
  browser.kill();
  await sleep(200);
  rmSync(profile, { recursive: true, force: true });
}
process.exit(0);
