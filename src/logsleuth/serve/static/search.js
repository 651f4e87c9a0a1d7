// Search as you type. The page works without it: the form POSTs (a long pasted traceback fits
// no address; a short query is sent on to its `/?q=` link) and the server renders the results;
// this only fetches them sooner.
(function () {
  const box = document.getElementById("q"), out = document.getElementById("results");
  const form = document.getElementById("search");
  if (!box || !out || !form) return;
  let timer = null, last = box.value, seq = 0;
  const LONG = 1500;  // characters: longer queries are POSTed (an address has limits)
  function run() {
    const q = box.value;
    if (q === last) return;
    last = q;
    const mine = ++seq;
    const long = q.length > LONG;
    if (!long) history.replaceState(null, "", q ? "/?q=" + encodeURIComponent(q) : "/");
    const req = long
      ? fetch("/search/results", {method: "POST", credentials: "same-origin",
                                  body: new URLSearchParams({q: q})})
      : fetch("/search/results?q=" + encodeURIComponent(q), {credentials: "same-origin"});
    req.then(r => r.text())
       .then(html => { if (mine === seq) out.innerHTML = html; })  // rendered and escaped by the server
       .catch(() => {});
  }
  box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 120); });
})();
