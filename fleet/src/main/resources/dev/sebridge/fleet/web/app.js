// Live countdowns to NotBefore, the open maintenance's filter and pages, the other lists' pages,
// and the sections' view marks; the rest is htmx.
(function () {
  function left(ms) {
    if (ms <= 0) return "now (NotBefore passed: Azure may start it any time)";
    var s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    s = s % 60;
    return (h > 0 ? h + "h " : "") + (h > 0 || m > 0 ? m + "m " : "") + s + "s";
  }
  function tick() {
    document.querySelectorAll("[data-not-before]").forEach(function (el) {
      el.textContent = left(Date.parse(el.getAttribute("data-not-before")) - Date.now());
    });
  }
  // A live refresh that brings the same HTML is not swapped in: focus, scroll and keyboard
  // position stay where the user left them until something really changes.
  var last = {};
  // A section asked for because the live stream told of a change sends the stream's mark of the
  // views that changed (X-Sebridge-Views), and so does every later request of it: whichever
  // instance answers shows at least that change, or answers 503 with X-Sebridge-Behind if its
  // views are not there yet. The section then stays as it is and asks again after Retry-After
  // (maybe of another instance), ten times at most; then once more without the mark, and shows
  // what it gets, until the stream tells of a newer change.
  var marks = {}, behind = {};
  document.addEventListener("htmx:configRequest", function (e) {
    var elt = e.detail.elt, told = e.detail.triggeringEvent;
    if (!elt || !elt.id) return;
    if (told && told.type && told.type.indexOf("sse:") === 0 && told.detail
        && typeof told.detail.data === "string") {
      marks[elt.id] = told.detail.data;
      behind[elt.id] = 0;
    }
    if (marks[elt.id]) e.detail.headers["X-Sebridge-Views"] = marks[elt.id];
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target, xhr = e.detail.xhr;
    if (!target || !target.id || !xhr) return;
    if (xhr.status === 503 && xhr.getResponseHeader("X-Sebridge-Behind")) {
      var id = target.id, mark = marks[id], tries = (behind[id] || 0) + 1;
      behind[id] = tries;
      e.detail.shouldSwap = false;
      var after = parseInt(xhr.getResponseHeader("Retry-After"), 10) || 1;
      setTimeout(function () {
        if (marks[id] !== mark) return; // a newer change was told: its request went out
        if (tries >= 10) delete marks[id]; // given up on this mark: what the views show now
        htmx.trigger(target, "views-behind");
      }, after * 1000);
      return;
    }
    if (xhr.status === 200) behind[target.id] = 0;
    if (xhr.status !== 200) {
      // An error swapped in: the next 200, even the same HTML as before it, replaces it.
      delete last[target.id];
      return;
    }
    if (last[target.id] === xhr.responseText) {
      e.detail.shouldSwap = false;
    } else {
      last[target.id] = xhr.responseText;
    }
  });
  // The open maintenance's filter and pages: set what the SRE chose, then ask the list for itself
  // (its request reads the filter and the page when it goes out; a newer one replaces one under
  // way). A filter starts again at page 1; a text is asked for once typing pauses.
  function showList(page) {
    var input = document.getElementById("events-page"), list = document.getElementById("events");
    if (input) input.value = page;
    if (list) htmx.trigger(list, "events-list");
  }
  var typing;
  document.addEventListener("submit", function (e) {
    if (e.target.id !== "events-filter") return;
    e.preventDefault();
    showList(1);
  });
  document.addEventListener("change", function (e) {
    if (e.target.tagName === "SELECT" && e.target.closest("#events-filter")) showList(1);
  });
  document.addEventListener("input", function (e) {
    if (e.target.tagName !== "INPUT" || !e.target.closest("#events-filter")) return;
    clearTimeout(typing);
    typing = setTimeout(function () { showList(1); }, 400);
  });
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-events-page]");
    if (b) showList(b.getAttribute("data-events-page"));
    // The other lists' pages (rollouts, silent agents, approval history): the page number goes in
    // the list's own input (#NAME-page, in the list), and the list asks for itself with it.
    var p = e.target.closest && e.target.closest("[data-page-of]");
    var input = p && document.getElementById(p.getAttribute("data-page-of") + "-page");
    var list = input && input.parentElement;
    if (list) {
      input.value = p.getAttribute("data-page");
      htmx.trigger(list, "page-list");
    }
  });
  setInterval(tick, 1000);
  document.addEventListener("htmx:afterSwap", tick);
})();
