// Tables wider than their column (see tables.css): show the cue above the table, and make
// the scrolling wrap a named region that takes keyboard focus, so that it can be scrolled
// without a mouse. A wrap that fits gets neither, and is no extra stop for the Tab key.
// The data pages write the cue (the table_wrap macro); the tables of hand-written pages,
// which the theme wraps in .md-typeset__scrollwrap, get one made here.
// ResizeObserver also sees a table appear (a tab picked, a <details> opened, a rotation)
// and a table that grows once the fonts are in.
(function () {
  "use strict";

  var CUE = "Wider than the page: scroll sideways for every column →";

  function cueOf(wrap) {
    var before = wrap.previousElementSibling;
    if (before && before.classList.contains("kb-scroll-cue")) return before;
    if (!wrap.classList.contains("md-typeset__scrollwrap")) return null;
    var cue = document.createElement("p");
    cue.className = "kb-scroll-cue";
    cue.setAttribute("aria-hidden", "true");
    cue.hidden = true;
    cue.textContent = CUE;
    wrap.parentNode.insertBefore(cue, wrap);
    return cue;
  }

  function mark(wrap) {
    if (!wrap) return;
    var scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
    var cue = cueOf(wrap);
    if (cue) cue.hidden = !scrolls;
    if (scrolls) {
      wrap.setAttribute("data-scrolls", "");
      wrap.setAttribute("role", "region");
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("aria-label", (wrap.dataset.label || "Table") + ", scrolls sideways");
    } else {
      ["data-scrolls", "role", "tabindex", "aria-label"].forEach(function (name) { wrap.removeAttribute(name); });
    }
  }

  function setup() {
    var wraps = document.querySelectorAll(".md-typeset .kb-table-wrap, .md-typeset .md-typeset__scrollwrap");
    if (!wraps.length) return;
    var observer = "ResizeObserver" in window
      ? new ResizeObserver(function (entries) {
        entries.forEach(function (e) { mark(e.target.closest(".kb-table-wrap, .md-typeset__scrollwrap")); });
      })
      : null;
    wraps.forEach(function (wrap) {
      mark(wrap);
      if (!observer) return;
      observer.observe(wrap);  // the column it sits in changes width
      if (wrap.firstElementChild) observer.observe(wrap.firstElementChild);  // or the table does
    });
  }

  // After the theme's own script, which wraps the tables of hand-written pages.
  if (document.readyState === "complete") setup();
  else window.addEventListener("load", setup);
})();
