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
  // The language switch returns to the page as it is now: htmx may have
  // changed its address (a comparison recalculated) since it was drawn.
  document.addEventListener("submit", function (e) {
    if (!e.target.matches || !e.target.matches("form.lang-switch")) return;
    var next = e.target.querySelector('input[name="next"]');
    if (next) next.value = window.location.pathname + window.location.search;
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
  // Upload forms marked data-progress show how much of the file is sent
  // (htmx upload progress events), then that the server is working on it.
  document.addEventListener("htmx:xhr:progress", function (e) {
    var form = e.target.closest && e.target.closest("form[data-progress]");
    var box = form && document.getElementById(form.getAttribute("data-progress"));
    // The response's download reports progress too: once the upload is
    // complete, the box stays on "processing".
    if (!box || box.hasAttribute("data-sent") || !e.detail.lengthComputable || !e.detail.total) return;
    var bar = box.querySelector("progress");
    var text = box.querySelector("[role=status]");
    box.hidden = false;
    var pct = Math.round((100 * e.detail.loaded) / e.detail.total);
    bar.value = pct;
    if (pct >= 100) box.setAttribute("data-sent", "");
    if (text) {
      text.textContent = pct < 100 ? box.getAttribute("data-uploading") + " " + pct + " %" : box.getAttribute("data-processing");
    }
  });
  // Forms marked data-swap-errors show the server's page for an error
  // status too (a 422 listing the problems), as they would without htmx.
  document.addEventListener("htmx:beforeSwap", function (e) {
    // (detail.elt is the swap target here; the form is the request's elt.)
    var elt = e.detail.requestConfig && e.detail.requestConfig.elt;
    if (elt && elt.hasAttribute && elt.hasAttribute("data-swap-errors") && e.detail.xhr.status >= 400) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });
  // Print buttons (hidden without JavaScript) open the print dialog.
  document.addEventListener("click", function (e) {
    if (e.target.closest("[data-print]")) window.print();
  });
  document.querySelectorAll("[data-print]").forEach(function (b) {
    b.hidden = false;
  });
})();
