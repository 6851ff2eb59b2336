// Live countdowns to NotBefore, and the open maintenance's filter and pages; the rest is htmx.
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
  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target, xhr = e.detail.xhr;
    if (!target || !target.id || !xhr) return;
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
  });
  setInterval(tick, 1000);
  document.addEventListener("htmx:afterSwap", tick);
})();
