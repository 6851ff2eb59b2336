// Live countdowns to NotBefore; everything else is htmx.
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
  setInterval(tick, 1000);
  document.addEventListener("htmx:afterSwap", tick);
})();
