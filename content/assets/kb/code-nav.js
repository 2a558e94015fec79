// The theme puts each code block's copy button in an unnamed <nav>; with two code blocks a
// page has landmarks a screen reader cannot tell apart. Each gets a name of its own once the
// theme has drawn it (the theme's document$ tells when a page is ready).
(function () {
  "use strict";
  function name() {
    var navs = document.querySelectorAll("nav.md-code__nav:not([aria-label])");
    Array.prototype.forEach.call(navs, function (nav, i) {
      nav.setAttribute("aria-label", "Code block " + (i + 1) + " actions");
    });
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(function () { setTimeout(name, 0); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { setTimeout(name, 0); });
  }
})();
