// gpuquote: small progressive enhancements. Every page works without this.
(function () {
  "use strict";
  // htmx requests carry the session's CSRF token in a header.
  document.addEventListener("htmx:configRequest", function (e) {
    var m = document.querySelector('meta[name="csrf-token"]');
    if (m && m.content) {
      e.detail.headers["X-CSRF-Token"] = m.content;
    }
  });
  // Buttons marked data-confirm ask before submitting their form.
  document.addEventListener("submit", function (e) {
    var b = e.submitter;
    var msg = (b && b.getAttribute("data-confirm")) || e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) {
      e.preventDefault();
    }
  });
  // Copy buttons copy the text of the element they name.
  document.addEventListener("click", function (e) {
    var b = e.target.closest("[data-copy]");
    if (!b || !navigator.clipboard) return;
    var src = document.getElementById(b.getAttribute("data-copy"));
    if (src) {
      navigator.clipboard.writeText(src.innerText);
      b.setAttribute("data-copied", "true");
    }
  });
})();
