// The filter on a diff page: show only the changes graded at some level in some encoding.
// Each change row carries its grades as data-grades="binary:compatible http:breaking …";
// a prose change has none and counts as behavioural. The form is hidden in the page as
// built, so without JavaScript every change stays listed; this script shows the form and
// hides the rows it excludes, in every tab, and says how many remain.
(function () {
  "use strict";

  function matches(row, encoding, level) {
    var grades = (row.getAttribute("data-grades") || "").split(" ").filter(Boolean);
    if (!grades.length) return !encoding && (!level || level === "behavioural");
    return grades.some(function (grade) {
      var parts = grade.split(":");
      return (!encoding || parts[0] === encoding) && (!level || parts[1] === level);
    });
  }

  function setUp() {
    var form = document.getElementById("kb-diff-filter");
    if (!form || form.dataset.ready === "1") return;
    form.dataset.ready = "1";
    form.hidden = false;
    var rows = Array.prototype.slice.call(document.querySelectorAll("table.kb-diff tr.kb-change"));

    function apply() {
      var encoding = form.elements.encoding.value;
      var level = form.elements.level.value;
      var shown = 0;
      rows.forEach(function (row) {
        var keep = matches(row, encoding, level);
        row.hidden = !keep;
        if (keep) shown += 1;
      });
      form.elements.count.value = (encoding || level) ? shown + " of " + rows.length + " changes" : "";
    }

    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    apply();
  }

  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(setUp);  // Material's instant navigation
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
