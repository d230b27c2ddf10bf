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
  // Forms marked data-return-here (deleting a saved usage profile) return
  // to the page as it is now, like the language switch.
  document.addEventListener("submit", function (e) {
    if (!e.target.matches || !e.target.matches("form[data-return-here]")) return;
    var next = e.target.querySelector('input[name="next"]');
    if (next) next.value = window.location.pathname + window.location.search;
  });
  // The share button copies the address it names and says so in its status;
  // where the browser will not copy, it opens to show the address, as it
  // does without JavaScript.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-share-url]");
    if (!b || !navigator.clipboard || !window.isSecureContext) return;
    e.preventDefault();
    var status = document.getElementById(b.getAttribute("data-share-status"));
    var say = function (attr) {
      if (!status) return;
      // Cleared first, so the same words are announced again.
      status.textContent = "";
      window.setTimeout(function () {
        status.textContent = b.getAttribute(attr);
      }, 50);
    };
    var url = new URL(b.getAttribute("data-share-url"), window.location.href).href;
    navigator.clipboard.writeText(url).then(
      function () {
        say("data-share-copied");
      },
      function () {
        var d = b.closest("details");
        if (d) d.open = true;
        say("data-share-failed");
      }
    );
  });
  // Field errors swapped in out of band (a recalculating form) mark their
  // input invalid, or valid again.
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll(".field-error[data-field]").forEach(function (box) {
      var input = document.getElementById(box.getAttribute("data-field"));
      if (input) input.setAttribute("aria-invalid", box.textContent.trim() ? "true" : "false");
    });
  });
  // The comparison's sections the reader opened stay open when its results
  // are recalculated (an input changed): they open again in the new
  // results, and so load again for the new figures.
  var openSections = [];
  document.addEventListener("htmx:beforeSwap", function (e) {
    var t = e.detail.target;
    if (!t || t.id !== "compare-results") return;
    openSections = Array.prototype.map.call(t.querySelectorAll("details[data-section][open]"), function (d) {
      return d.getAttribute("data-section");
    });
  });
  document.addEventListener("htmx:afterSettle", function () {
    var keys = openSections;
    openSections = [];
    keys.forEach(function (k) {
      var d = document.querySelector('#compare-results details[data-section="' + k + '"]');
      if (d && !d.open) d.open = true;
    });
  });
  // Print buttons (hidden without JavaScript) open the print dialog.
  document.addEventListener("click", function (e) {
    if (e.target.closest("[data-print]")) window.print();
  });
  document.querySelectorAll("[data-print]").forEach(function (b) {
    b.hidden = false;
  });
})();
// Forms and fields marked data-max-bytes (the limit the server enforces)
// refuse to send more: nothing is sent, what was entered stays, and the
// message element named by data-too-large is shown. A field counts its text
// as a form sends it (UTF-8, CRLF line ends); a form its encoded body.
(function () {
  "use strict";
  var utf8 = new TextEncoder();
  var fieldBytes = function (f) {
    return utf8.encode(f.value.replace(/\r?\n/g, "\r\n")).length;
  };
  var formBytes = function (form) {
    return new URLSearchParams(new FormData(form)).toString().length;
  };
  // overLimit returns the first marked element of form over its limit (or
  // null), showing its message and hiding the others.
  var overLimit = function (form) {
    var marked = [];
    if (form.hasAttribute("data-max-bytes")) marked.push(form);
    form.querySelectorAll("[data-max-bytes]").forEach(function (f) {
      marked.push(f);
    });
    var over = null;
    marked.forEach(function (el) {
      var max = parseInt(el.getAttribute("data-max-bytes"), 10);
      var n = max > 0 && !over ? (el === form ? formBytes(form) : fieldBytes(el)) : 0;
      if (n > max) over = el;
      var box = document.getElementById(el.getAttribute("data-too-large"));
      if (box) box.hidden = over !== el;
    });
    return over;
  };
  // Capturing, so the refusal comes before htmx or any other handler.
  document.addEventListener(
    "submit",
    function (e) {
      var form = e.target;
      var over = form.querySelector && overLimit(form);
      if (!over) return;
      e.preventDefault();
      e.stopPropagation();
      if (over !== form) over.focus();
    },
    true
  );
  // Forms that send as the reader types (htmx) refuse those requests too.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var elt = e.detail && e.detail.elt;
    var form = elt && elt.closest && elt.closest("form");
    if (form && overLimit(form)) e.preventDefault();
  });
  // The navigation's menu and its groups (docs/RULES.md §21.2) open and
  // close without this; with it they close as menus do: when another
  // opens, on a click elsewhere, and on Escape (which returns the focus to
  // the toggle of what it closed).
  var openMenus = function () {
    return document.querySelectorAll("details.nav-menu[open], details.nav-group[open]");
  };
  document.addEventListener("click", function (e) {
    openMenus().forEach(function (d) {
      if (!d.contains(e.target)) d.open = false;
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    var inner = null;
    openMenus().forEach(function (d) {
      if (d.contains(document.activeElement)) inner = d;
    });
    // The innermost open one holding the focus closes; else every one.
    (inner ? [inner] : Array.prototype.slice.call(openMenus())).forEach(function (d) {
      d.open = false;
    });
    if (inner) inner.querySelector("summary").focus();
  });
})();
