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
  setInterval(tick, 1000);
  document.addEventListener("htmx:afterSwap", tick);
})();
